"""The files Paddock writes: the printing toolkit of every sheet, and CSV/XLSX exports safe in a
spreadsheet.
"""

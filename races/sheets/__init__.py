"""The printed race sheet (§2-0-3): what it prints, how it is drawn, the batch of every table's
sheets.
"""

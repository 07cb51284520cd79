"""Registration: championships, circuits, teams, drivers, events, entries; their pages, forms,
tables, CSV import and the Setup API.
"""

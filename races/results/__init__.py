"""Race results: the table classification's rules, the referee's sheet, race control's
confirmation, their API and URLs.
"""

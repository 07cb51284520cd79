"""Date and time formats per language (``FORMAT_MODULE_PATH``), where Django's own do not
suit a tournament day: English dates as day month year and a 24-hour clock, not the US
month/day/year with a.m./p.m. French keeps Django's formats."""

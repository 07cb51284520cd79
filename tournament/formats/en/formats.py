"""English dates the way the rest of the world reads a race day: "14 July 2026",
"14/07/2026 15:05" (Django's English formats are the US "July 14, 2026", "07/14/2026 3:05
p.m.")."""

from __future__ import annotations

DATE_FORMAT = "j F Y"
TIME_FORMAT = "H:i"
DATETIME_FORMAT = "j F Y, H:i"
YEAR_MONTH_FORMAT = "F Y"
MONTH_DAY_FORMAT = "j F"
SHORT_DATE_FORMAT = "d/m/Y"
SHORT_DATETIME_FORMAT = "d/m/Y H:i"
FIRST_DAY_OF_WEEK = 1  # Monday
# Input formats, separators: Django's English ones (the next format module looked up).

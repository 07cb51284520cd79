"""What the console says about a request: one line per refusal the site meant.

No database, no project import: a logging filter the settings name by its path.
"""

from __future__ import annotations

import logging


class ClientErrorsWithoutTraceback(logging.Filter):
    """Drop the traceback of a 4xx answer (a 403, a 404, a wrong host).

    Django logs ``PermissionDenied`` and ``SuspiciousOperation`` with the exception
    attached; for a refusal the site meant, the traceback is noise that hides real errors.
    5xx answers and everything else keep theirs.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and 400 <= status < 500:
            record.exc_info = None
            record.exc_text = None
        return True

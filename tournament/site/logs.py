"""What the console says about a request: one line per refusal the site meant.

No database, no project import: a logging filter the settings name by its path.
"""

from __future__ import annotations

import hashlib
import logging
import re


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


#: A link's secret in a path: a referee's, ``/q/<secret>/`` (qualifying) or ``/r/<secret>/``
#: (race); a registrant's own or its confirmation, ``/registrations/[confirm/]<secret>/``
#: (their page and the API's, which show and change their registration).
LINK_IN_PATH = re.compile(
    r"(/[qr]/|/registrations/(?:confirm/)?)([A-Za-z0-9_\-]{8,})(?=[/?#\s\"']|$)"
)


def _redacted(text: str) -> str:
    """``text`` with each link's secret replaced by ``#`` and the start of its digest (the
    SHA-256 the database keeps as the table's ``token_digest``: race control finds the
    table by it; the log never holds a secret that opens one)."""
    return LINK_IN_PATH.sub(lambda found: found.group(1) + "#" + _digest(found.group(2)), text)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()[:12]


class LinkSecretsRedacted(logging.Filter):
    """No live referee link in the server's log: a 4xx of a link's page logged its path,
    secret included (issue 32), readable by whoever reads the logs. Every line (Django's
    request log, runserver's) says the secret's digest instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _redacted(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True

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


#: A slash in a path, or in a query that names one (``?next=%2Finvitations%2F...``).
_SLASH = r"(?:/|%2[Ff])"
#: A secret in an address: a referee's link, ``/q/<secret>/`` (qualifying) or
#: ``/r/<secret>/`` (race); a registrant's own or its confirmation,
#: ``/registrations/[confirm/]<secret>/`` (their page and the API's); a club's invitation,
#: ``/invitations/<secret>/``; an account's confirmation, ``/accounts/confirm/<secret>/``; a
#: password reset, ``/accounts/reset/<uidb64>/<token>/`` (Django's ``set-password`` step,
#: which follows it, is no secret). Wherever it stands in the line (the path, a query, a
#: referrer) and whatever follows it.
LINK_IN_PATH = re.compile(
    rf"({_SLASH}(?:[qr]|registrations(?:{_SLASH}confirm)?|invitations|accounts{_SLASH}confirm"
    rf"|accounts{_SLASH}reset{_SLASH}[A-Za-z0-9_\-]+){_SLASH})"
    r"(?!set-password(?:[/?#%\s\"']|$))"
    r"([A-Za-z0-9_\-]{8,})"  # the whole run, whatever follows it
)


def _redacted(text: str) -> str:
    """``text`` with each link's secret replaced by ``#`` and the start of its digest (the
    SHA-256 the database keeps as the table's ``token_digest``: race control finds the
    table by it; the log never holds a secret that opens one)."""
    return LINK_IN_PATH.sub(lambda found: found.group(1) + "#" + _digest(found.group(2)), text)


def _digest(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()[:12]


class LinkSecretsRedacted(logging.Filter):
    """No live link in the server's log: a 4xx of a link's page logged its path, secret
    included (issue 32), and runserver logged an invitation's on a 200 (issue 49), readable by
    whoever reads the logs. Every line, whatever the answer's status (Django's request log,
    runserver's, gunicorn's access and error logs: ``paddock.venue.watchdog``), says the
    secret's digest instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        redacted = _redacted(message)
        if redacted != message:
            record.msg, record.args = redacted, ()
        return True

"""The player on this phone: "This is me" on "Where do I sit?" remembers a driver of one
championship in a cookie, so that the next visit (and the event page) shows their table.

Not a login and not a secret: anyone may say they are anyone, as anyone may read the
tables on the wall. The cookie holds ``<championship slug>:<driver number>``.
"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse

from tournament.models import Championship

COOKIE = "paddock_me"
MAX_AGE = 180 * 24 * 3600
_VALUE = re.compile(r"^([a-z0-9-]{1,80}):([0-9]{1,6})$")


def remembered_number(request: HttpRequest, championship: Championship) -> int | None:
    """The driver number this phone chose in ``championship``, or None."""
    match = _VALUE.match(request.COOKIES.get(COOKIE, ""))
    if match is None or match.group(1) != championship.slug:
        return None
    return int(match.group(2))


def remembered_value(request: HttpRequest) -> str:
    """The cookie's ``<slug>:<number>`` when it is one, else "" (a public page's cache key:
    whatever else the cookie holds changes nothing on the page, so it makes no variant)."""
    value = request.COOKIES.get(COOKIE, "")
    return value if _VALUE.match(value) else ""


def remember(response: HttpResponse, championship: Championship, number: int) -> None:
    response.set_cookie(
        COOKIE, f"{championship.slug}:{number}", max_age=MAX_AGE, samesite="Lax", httponly=True
    )


def forget(response: HttpResponse) -> None:
    response.delete_cookie(COOKIE, samesite="Lax")

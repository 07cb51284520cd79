"""The client's address, behind as many trusted proxies as ``TRUSTED_PROXY_COUNT`` says.

One helper for everything that counts per address: django-axes (``AXES_CLIENT_IP_CALLABLE``)
and the bad-link limiter (tournament.site.ratelimit). No database here.

With ``TRUSTED_PROXY_COUNT = 0`` (the default: gunicorn faces the clients) the address is
REMOTE_ADDR and X-Forwarded-For is ignored, since any client can write it. Behind N proxies
that each *append* the address they were reached from to X-Forwarded-For (nginx:
``proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;``), the client is the N-th
entry from the right; whatever stands further left was written by the client and is never
read. This holds only if the server can be reached through those proxies alone (gunicorn
bound to 127.0.0.1 or a private network), or anyone could write the header.

Why not django-ipware: its ``proxy_count`` counts proxies whose own addresses are in the
header, it reads a dozen headers by default (X-Real-IP, CF-Connecting-IP, ...) and prefers
public addresses to private ones, while a venue's laptops are on a private network. Taking
the N-th entry from the right is the whole rule, and it fits in a page.
"""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def parse_address(text: str | None) -> str | None:
    """``text`` as a canonical IP address, or None. A port (``1.2.3.4:80``, ``[::1]:80``),
    which some proxies add, is dropped."""
    text = (text or "").strip()
    candidates = [text]
    if text.startswith("[") and "]" in text:
        candidates.append(text[1 : text.index("]")])
    elif text.count(":") == 1:
        candidates.append(text.split(":")[0])
    for candidate in candidates:
        try:
            return str(ipaddress.ip_address(candidate))
        except ValueError:
            continue
    return None


def client_ip(request: HttpRequest) -> str | None:
    """The client's address, or None when there is none (a unix socket, ``force_login``).

    Behind the proxies, an entry that is not an address falls back to REMOTE_ADDR (the
    nearest proxy's): all such clients then share one count, which limits too much rather
    than too little.
    """
    remote = parse_address(request.META.get("REMOTE_ADDR"))
    count = int(getattr(settings, "TRUSTED_PROXY_COUNT", 0))
    if count <= 0:
        return remote
    header = request.META.get("HTTP_X_FORWARDED_FOR", "")
    forwarded = [entry.strip() for entry in header.split(",") if entry.strip()]
    if not forwarded:  # not through the proxies: the address that connected is the client
        return remote
    # Fewer entries than proxies: each was written by a trusted proxy; the first is farthest.
    entry = forwarded[-count] if len(forwarded) >= count else forwarded[0]
    return parse_address(entry) or remote

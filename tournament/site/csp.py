"""Content-Security-Policy of every HTML page: scripts, styles, fonts and images from this
site only, nothing inline.

A small middleware rather than django-csp: the policy is one fixed string (every asset is
vendored under ``static/``, no inline script or style is left in the templates, so no nonce
is needed), and it must stay off PDFs: Chrome shows an inline PDF in a viewer page of its
own, which a policy sent with the PDF blocks (crbug.com/271452), and referees open their
sheets that way. django-csp sends its header on every response unless each view is
exempted; here only ``text/html`` answers get it.

Pico's icons are ``data:`` SVG images in its stylesheet, hence ``img-src data:``. Team
colours are SVG ``fill`` attributes (not ``style``), and htmx is told not to inject its
indicator styles and not to evaluate code (``<meta name="htmx-config">`` in the templates).
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

HEADER = "Content-Security-Policy"

POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)


class ContentSecurityPolicyMiddleware:
    """Send ``POLICY`` with every HTML response that does not carry a policy already."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.get("Content-Type", "").startswith("text/html"):
            response.headers.setdefault(HEADER, POLICY)
        return response

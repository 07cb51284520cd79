"""The tables' web app: its service worker (served from the site's root, so that its scope
covers the table links' pages, the players' pages and the static files) and its manifest
(French and English, starting at the table's page)."""

from __future__ import annotations

import hashlib
import json

from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.templatetags.static import static
from django.utils.translation import gettext as _
from django.views.decorators.http import require_safe

from tournament.offline.idempotency import TABLE_PATH

#: What a table's page needs, kept when the service worker installs.
PRECACHE = (
    "vendor/pico/pico.min.css",
    "css/paddock.css",
    "css/race-day.css",
    "css/photos.css",
    "vendor/htmx/htmx.min.js",
    "js/paddock.js",
    "js/runs.js",
    "js/results.js",
    "vendor/idb-keyval/idb-keyval.umd.js",
    "offline/outbox-core.js",
    "offline/outbox.js",
    "offline/offline.css",
    "offline/icon-192.png",
    "offline/icon-512.png",
    "favicon.ico",
)


def _source(name: str) -> str:
    path = finders.find(name)
    if not path:
        raise FileNotFoundError(name)
    with open(path, encoding="utf-8") as handle:  # type: ignore[arg-type]
        return handle.read()


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """``/sw.js``: the worker's code after its settings (the static files' addresses, as
    deployed, and a version that changes with any of them: a new deployment updates it)."""
    files = [static(name) for name in PRECACHE]
    code = _source("offline/sw.js")
    version = hashlib.sha256(
        ("\n".join(files) + code + _source("offline/outbox-core.js")).encode()
    ).hexdigest()[:16]
    settings_line = "self.PADDOCK = " + json.dumps(
        {
            "version": version,
            "precache": files,
            "scripts": [
                static("vendor/idb-keyval/idb-keyval.umd.js"),
                static("offline/outbox-core.js"),
            ],
        }
    )
    response = HttpResponse(
        settings_line + ";\n" + code, content_type="text/javascript; charset=utf-8"
    )
    response["Cache-Control"] = "no-cache"
    response["Service-Worker-Allowed"] = "/"
    return response


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app's manifest, in the page's language; ``?start=`` a table link's page."""
    start = request.GET.get("start", "")
    if not TABLE_PATH.fullmatch(start):
        start = "/"
    response = JsonResponse(
        {
            "name": _("Paddock: referee's table"),
            "short_name": _("Paddock table"),
            "description": _("Enter a table's runs and results, even without Wi-Fi."),
            "lang": getattr(request, "LANGUAGE_CODE", "fr"),
            "start_url": start,
            "id": start,
            "scope": "/",
            "display": "standalone",
            "background_color": "#ffffff",
            "theme_color": "#c52f21",
            "icons": [
                {"src": static("offline/icon-192.png"), "sizes": "192x192", "type": "image/png"},
                {"src": static("offline/icon-512.png"), "sizes": "512x512", "type": "image/png"},
                {
                    "src": static("offline/icon-512.png"),
                    "sizes": "512x512",
                    "type": "image/png",
                    "purpose": "maskable",
                },
            ],
        },
        json_dumps_params={"ensure_ascii": False},
    )
    response["Content-Type"] = "application/manifest+json"
    return response

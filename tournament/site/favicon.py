"""``/favicon.ico``: the icon every phone asks for at the site's root, answered from the
static files (no 404 in the log for each new phone, no CDN)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponseRedirect
from django.templatetags.static import static
from django.views.decorators.http import require_safe


@require_safe
def favicon(request: HttpRequest) -> HttpResponseRedirect:
    """A permanent redirect to the icon among the static files (its hashed name)."""
    return HttpResponseRedirect(static("favicon.ico"), status=301)

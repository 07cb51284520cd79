"""What every page's header needs to know beyond Django's own context processors."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from tournament.site.accounts.laptop import guarded


def _admin_leads_somewhere(request: HttpRequest) -> bool:
    user = getattr(request, "user", None)
    if user is None or not (user.is_active and user.is_staff):
        return False
    # What ``admin.site.get_app_list`` would list, without building it: that list reverses
    # the URLs of every model (a fifth of race control's desk, reloaded twice a second).
    return admin.site.has_permission(request) and any(
        model_admin.has_module_permission(request)
        and True in model_admin.get_model_perms(request).values()
        for model_admin in admin.site._registry.values()
    )


def navigation(request: HttpRequest) -> dict[str, Any]:
    """``show_admin``: the admin has something for this person (an organiser without any
    admin permission would open an admin that says they may see nothing). Worked out only
    when a template asks.

    ``login_on_laptop``: the header's "Organiser login" would lead nowhere. Under ``make
    venue``'s guard a phone's login page is the "on the laptop only" 403, so a phone is told
    where race control logs in instead (the public cache keeps the phones' pages apart from the
    laptop's: ``tournament.public.cache``).

    ``clubs_open``: strangers make accounts here (the home and login pages link to it)."""
    return {
        "clubs_open": settings.CLUBS_OPEN,
        "show_admin": SimpleLazyObject(lambda: _admin_leads_somewhere(request)),
        "login_on_laptop": guarded(request),
    }

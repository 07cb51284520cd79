"""Django's account pages (login, logout, password change), and the password reset pages only
when mail can be sent (settings.PASSWORD_RESET_ENABLED): without mail they would promise a
message that never comes."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import urls

RESET_PAGES = {
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
}

urlpatterns = [
    pattern
    for pattern in urls.urlpatterns
    if settings.PASSWORD_RESET_ENABLED or pattern.name not in RESET_PAGES
]

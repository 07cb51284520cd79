"""Django's account pages (login, logout, password change), and the password reset pages only
when mail can be sent (settings.PASSWORD_RESET_ENABLED): without mail they would promise a
message that never comes. The reset's form is Paddock's (its mail through the outbox); the
pages of a stranger's account (``views``) answer 404 unless the server is open to clubs."""

from __future__ import annotations

from django.conf import settings
from django.contrib.auth import urls
from django.urls import path

from tournament.site.accounts import views

RESET_PAGES = {
    "password_reset",
    "password_reset_done",
    "password_reset_confirm",
    "password_reset_complete",
}

urlpatterns = [
    path("signup/", views.signup, name="account-signup"),
    path("signup/sent/", views.signup_sent, name="account-sent"),
    path("confirm/<str:token>/", views.confirm, name="account-confirm"),
    path("welcome/", views.welcome, name="account-welcome"),
    *(
        [path("password_reset/", views.PasswordResetView.as_view(), name="password_reset")]
        if settings.PASSWORD_RESET_ENABLED
        else []
    ),
    *(
        pattern
        for pattern in urls.urlpatterns
        if pattern.name != "password_reset"
        and (settings.PASSWORD_RESET_ENABLED or pattern.name not in RESET_PAGES)
    ),
]

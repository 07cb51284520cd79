"""The mails of a person's account (DOMAIN.md "A server open to clubs"): the confirmation of
a new account's address, the mail to an address that has an account already (sign in, or
reset the password), and the password reset. Each is a row of the sign-up outbox
(``tournament.signup.models.Mail``, no registration) rendered in the person's language; its
link is sealed beside the bodies (``Mail.link_sealed``) and written in when the mail leaves
(``tournament.signup.tasks``). Nothing here talks to a mail server.

They greet nobody by name: nobody confirmed the address yet (issue 49, N32)."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import make_msgid
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from tournament.signup import mails as outbox
from tournament.signup.models import Mail
from tournament.site.accounts.tokens import CONFIRM_HOURS


def site_url(path: str) -> str:
    return settings.SITE_URL.rstrip("/") + path


def confirm_url(secret: str) -> str:
    """The confirmation page of a new account: ``<SITE_URL>/accounts/confirm/<token>/``."""
    return site_url(reverse("account-confirm", args=[secret]))


def _mail(*, kind: str, to: str, language: str, subject: str, paragraphs: list[str],
          link: str, link_label: str) -> Mail:  # fmt: skip
    """One outbox row, rendered now (the invitation's plain templates: a greeting, the
    paragraphs, the link), not saved."""
    context = {"paragraphs": paragraphs, "link": outbox.LINK, "link_label": link_label,
               "language": language}  # fmt: skip
    return Mail(
        registration=None,
        kind=kind,
        key=kind,
        to=to,
        language=language,
        subject=outbox.one_line(subject)[:250],
        body_text=render_to_string("clubs/invitation_mail.txt", context),
        body_html=render_to_string("clubs/invitation_mail.html", context),
        link_sealed=outbox.seal_link(link),
        message_id_header=make_msgid(domain="paddock.invalid"),
    )


def account_confirm(*, to: str, language: str, username: str, secret: str) -> Mail:
    """The link that makes the account ``username`` (single use, 48 hours)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return _mail(
            kind=Mail.Kind.ACCOUNT,
            to=to,
            language=language,
            subject=_("Paddock: confirm your new account"),
            paragraphs=[
                _(
                    "Someone, you we hope, asked Paddock for the account “%(username)s” with "
                    "this address. Open the link below and press the button: the account "
                    "exists from then on."
                )
                % {"username": username},
                _(
                    "The link works once, for %(hours)s hours. If you did not ask, ignore this "
                    "mail: no account is made."
                )
                % {"hours": CONFIRM_HOURS},
            ],
            link=confirm_url(secret),
            link_label=_("Confirm my account"),
        )


def account_known(*, to: str, language: str) -> Mail:
    """To an address that has an account already: sign in, or reset the password."""
    with translation.override(language or settings.LANGUAGE_CODE):
        paragraphs = [
            _(
                "Someone, you we hope, asked Paddock for a new account with this address, "
                "which has an account already: no other account is made."
            ),
            _("Sign in with your account through the link below."),
        ]
        if settings.PASSWORD_RESET_ENABLED:
            paragraphs.append(
                _("Forgotten your password? Choose a new one at %(url)s")
                % {"url": site_url(reverse("password_reset"))}
            )
        paragraphs.append(_("If you did not ask, ignore this mail."))
        return _mail(
            kind=Mail.Kind.KNOWN,
            to=to,
            language=language,
            subject=_("Paddock: you have an account already"),
            paragraphs=paragraphs,
            link=site_url(reverse("login")),
            link_label=_("Sign in"),
        )


def password_reset(*, to: str, language: str, username: str, path: str) -> Mail:
    """The link to choose a new password for ``username`` (``path``: Django's reset page)."""
    with translation.override(language or settings.LANGUAGE_CODE):
        return _mail(
            kind=Mail.Kind.RESET,
            to=to,
            language=language,
            subject=_("Paddock: choose a new password"),
            paragraphs=[
                _(
                    "Someone asked Paddock for a new password for your account “%(username)s”. "
                    "To choose it, open the link below (it works once)."
                )
                % {"username": username},
                _("If you did not ask, ignore this mail: your password stays as it is."),
            ],
            link=site_url(path),
            link_label=_("Choose a new password"),
        )

"""The invitation's mail (DOMAIN.md "Clubs and who may do what"): written in the sign-up
outbox (``tournament.signup.models.Mail``, its ``invitation`` set, no registration, key
``invitation``) in the same transaction as the invitation, in the invitee's language, as
text and HTML. Sending is the outbox's job (``tournament.signup.tasks``): exactly once,
retried; nothing here talks to a mail server.

The link opens the club to whoever holds it: as sign-up's mails do, the bodies keep
``tournament.signup.mails.LINK`` in its place and the link is sealed beside them
(``Mail.link_sealed``); the outbox writes it in when the mail leaves."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import make_msgid
from django.template.loader import render_to_string
from django.utils import formats, timezone, translation
from django.utils.translation import gettext as _

from tournament.clubs.models import Invitation, role_phrase
from tournament.signup import mails as outbox
from tournament.signup.models import Mail

#: One invitation mail per invitation (``Mail``'s constraint: one per invitation and key).
KEY = "invitation"


def invitation_url(secret: str) -> str:
    """The invitation's page: where a new person chooses a username and a password, or a
    signed-in person joins."""
    return f"{settings.SITE_URL.rstrip('/')}/invitations/{secret}/"


def _short(name: str, most: int = 60) -> str:
    """``name`` cut to ``most`` characters (an ellipsis says so)."""
    return name if len(name) <= most else name[: most - 1].rstrip() + "…"


def render(invitation: Invitation, *, link: str) -> Mail:
    """The invitation's mail, rendered in the invitee's language, not saved; ``link``
    sealed apart from the bodies."""
    with translation.override(invitation.language or settings.LANGUAGE_CODE):
        facts = {
            "club": invitation.club.name,
            "role": role_phrase(invitation.role),
            "inviter": invitation.invited_by.get_username() if invitation.invited_by else "",
            "expires": formats.date_format(
                timezone.localtime(invitation.expires_at), "DATETIME_FORMAT"
            ),
        }
        # The club's name is its owner's words, not Paddock's: it is quoted as a name, cut
        # short in the subject, and never starts a sentence of the mail (issue 49: a name
        # such as "Your account is blocked, see http://…" must read as a name).
        subject = _("Paddock: an invitation to the club named “%(club)s”") % {
            **facts,
            "club": _short(facts["club"]),
        }
        paragraphs = [
            (
                _("%(inviter)s invites you to join a club on Paddock as %(role)s.")
                if facts["inviter"]
                else _("You are invited to join a club on Paddock as %(role)s.")
            )
            % facts,
            _("The club's name, as its owner wrote it: “%(club)s”.") % facts,
            _(
                "Open the link below: choose a username and a password, or join with the "
                "account you already have."
            ),
            _("The link works once, until %(expires)s. If you did not expect it, ignore this mail.")
            % facts,
        ]
        context = {
            "club": invitation.club,
            "paragraphs": paragraphs,
            "link": outbox.LINK,
            "link_label": _("Join the club"),
            "language": invitation.language,
        }
        text = render_to_string("clubs/invitation_mail.txt", context)
        html = render_to_string("clubs/invitation_mail.html", context)
    return Mail(
        invitation=invitation,
        registration=None,
        kind=Mail.Kind.INVITATION,
        key=KEY,
        to=invitation.email,
        language=invitation.language,
        subject=outbox.one_line(subject)[:250],
        body_text=text,
        body_html=html,
        link_sealed=outbox.seal_link(link),
        message_id_header=make_msgid(domain="paddock.invalid"),
    )


def queue(invitation: Invitation, *, secret: str) -> Mail:
    """Write the invitation's mail in the outbox (the caller's transaction)."""
    mail = render(invitation, link=invitation_url(secret))
    mail.save(force_insert=True)
    return mail

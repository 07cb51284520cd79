"""The mail of a proposed round: one to each owner of the event's club, written in the sign-up
outbox (``tournament.signup.models.Mail``, kind ``league``) in the same transaction as the
round, rendered at once as an invitation's mail is (``tournament.clubs.mails``). Sending is the
outbox's job: exactly once, retried."""

from __future__ import annotations

from django.conf import settings
from django.core.mail import make_msgid
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _

from standings.leagues.models import Round
from tournament.clubs.models import Membership, Role
from tournament.signup import mails as outbox
from tournament.signup.models import Mail


def league_url(round_: Round) -> str:
    """The page of the event's club where its owners and organisers accept or decline the
    rounds proposed to its events."""
    club = round_.event.championship.club
    return settings.SITE_URL.rstrip("/") + reverse("club-league-rounds", args=[club.slug])


def render(round_: Round, *, to: str, language: str) -> Mail:
    """The mail telling one owner of the event's club that a league proposes the event as
    a round, in ``language``, not saved."""
    league, event = round_.league, round_.event
    club = event.championship.club
    with translation.override(language):
        facts = {
            "league": league.name,
            "season": league.season,
            "club": league.club.name,
            "event": event.name,
            "date": event.date.isoformat(),
        }
        subject = _("%(league)s proposes %(event)s as a round") % facts
        paragraphs = [
            _(
                "The league %(league)s (%(season)s) of %(club)s proposes to count your event "
                "%(event)s of %(date)s as one of its rounds."
            )
            % facts,
            _(
                "The league reads only the published results and the public names of its "
                "rounds, and changes nothing of your event. Your club's owners and "
                "organisers accept or decline it."
            ),
        ]
        context = {
            "club": club,
            "paragraphs": paragraphs,
            "link": outbox.LINK,
            "link_label": _("Accept or decline the round"),
            "language": language,
        }
        text = render_to_string("clubs/invitation_mail.txt", context)
        html = render_to_string("clubs/invitation_mail.html", context)
    return Mail(
        registration=None,
        invitation=None,
        kind=Mail.Kind.LEAGUE,
        key=f"league-round:{round_.pk}",
        to=to,
        language=language,
        subject=outbox.one_line(subject)[:250],
        body_text=text,
        body_html=html,
        link_sealed=outbox.seal_link(league_url(round_)),
        message_id_header=make_msgid(domain="paddock.invalid"),
    )


def queue_proposed(round_: Round) -> list[Mail]:
    """Write the mails of a proposed round in the outbox (the caller's transaction): one
    per owner of the event's club with an address."""
    club_id = round_.event.championship.club_id
    if club_id is None:
        return []
    owners = (
        Membership.objects.filter(club_id=club_id, role=Role.OWNER, user__is_active=True)
        .exclude(user__email="")
        .select_related("user")
        .order_by("user__username")
    )
    rows = [
        render(round_, to=member.user.email, language=settings.LANGUAGE_CODE) for member in owners
    ]
    return Mail.objects.bulk_create(rows)

"""A league's writes (DOMAIN.md "A season across clubs"): a league made by a club's owners or
organisers; its rounds proposed by the league's organisers (its club's owners and
organisers), accepted or declined by the event's club, withdrawn by the league. Nothing here
changes a round's event: the league only counts it. Every change is recorded (the models'
history, with who acted)."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from standings.leagues import mails
from standings.leagues.models import League, Round
from tournament.access import Actor
from tournament.clubs.models import Club
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Event
from tournament.registration.services import save_checked
from tournament.signup import tasks
from tournament.signup.rules import one_line


def may_run_league(actor: Actor, league: League) -> bool:
    """The league's organisers: its club's owners and organisers (and a superuser)."""
    return actor.can_run_club(league.club)


def may_decide_round(actor: Actor, event: Event) -> bool:
    """Accept or decline a round: the event's club's owners and organisers (a superuser
    too); for an event of no club, the server's operator only."""
    return actor.can_run_club(event.championship.club)


def _require_league(actor: Actor, league: League) -> None:
    if not may_run_league(actor, league):
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s run the league %(league)s.")
            % {"club": league.club.name, "league": league.name}
        )


@transaction.atomic
def league_create(
    *,
    actor: Actor,
    club: Club,
    slug: str,
    name: str,
    season: str | int,
    points_scale: list[int],
    points_mode: str = Championship.PointsMode.PER_TABLE,
    best_results: int | None = None,
    club_best: int | None = None,
) -> League:
    """A league of ``club``, made by its owners or organisers: its scale, mode and best-K as
    a championship's, and the clubs' cup's N (3 when not said)."""
    if not actor.can_run_club(club):
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s create its leagues.")
            % {"club": club.name}
        )
    slug, name, season = (slug or "").strip(), (name or "").strip(), str(season).strip()
    for field, value in (("name", name), ("season", season)):
        if not one_line(value):
            message = _("One line only: no line break.")
            raise InvalidInput(message, {field: [message]})
    if League.objects.filter(slug=slug).exists():
        message = _("A league with the slug “%(slug)s” already exists.") % {"slug": slug[:60]}
        raise Conflict(message, {"slug": [message]})
    league = League(
        slug=slug,
        name=name,
        season=season,
        club=club,
        points_scale=points_scale,
        points_mode=points_mode,
        best_results=best_results,
        club_best=3 if club_best is None else club_best,
    )
    actor.stamp(league)
    try:
        with transaction.atomic():
            return save_checked(league, _("The league could not be created."))
    except IntegrityError:  # the same slug sent twice at once
        message = _("A league with the slug “%(slug)s” already exists.") % {"slug": slug[:60]}
        raise Conflict(message, {"slug": [message]}) from None


@transaction.atomic
def round_propose(*, actor: Actor, league: League, event: Event) -> Round:
    """The league counts ``event``: at once for an event of the league's own club, else
    proposed to the event's club, whose owners get a mail through the outbox."""
    _require_league(actor, league)
    if Round.objects.filter(league=league, event=event).exists():
        message = _("%(event)s is already a round of %(league)s.") % {
            "event": event.name,
            "league": league.name,
        }
        raise Conflict(message, {"event": [message]})
    own = event.championship.club_id == league.club_id
    now = timezone.now()
    round_ = Round(
        league=league,
        event=event,
        status=Round.Status.COUNTED if own else Round.Status.PROPOSED,
        proposed_by=actor.user if actor.is_authenticated else None,
        decided_by=actor.user if own and actor.is_authenticated else None,
        decided_at=now if own else None,
    )
    actor.stamp(round_)
    try:
        with transaction.atomic():
            round_.save()
    except IntegrityError:  # proposed twice at once
        message = _("%(event)s is already a round of %(league)s.") % {
            "event": event.name,
            "league": league.name,
        }
        raise Conflict(message, {"event": [message]}) from None
    if not own:
        tasks.send_soon([mail.pk for mail in mails.queue_proposed(round_)])
    return round_


def _decide(*, actor: Actor, round_: Round, status: str) -> Round:
    event = round_.event
    if not may_decide_round(actor, event):
        raise NotAllowed(
            _("Only the owners and organisers of the club of %(event)s decide its rounds.")
            % {"event": event.name}
        )
    round_ = Round.objects.select_for_update().select_related("event").get(pk=round_.pk)
    if round_.status == status:
        return round_  # sent twice: the same answer
    round_.status = status
    round_.decided_by = actor.user if actor.is_authenticated else None
    round_.decided_at = timezone.now()
    actor.stamp(round_)
    round_.save(update_fields=["status", "decided_by", "decided_at"])
    return round_


@transaction.atomic
def round_accept(*, actor: Actor, round_: Round) -> Round:
    """The event's club counts its event in the league (a declined round too: changed mind)."""
    return _decide(actor=actor, round_=round_, status=Round.Status.COUNTED)


@transaction.atomic
def round_decline(*, actor: Actor, round_: Round) -> Round:
    """The event's club keeps its event out of the league (a counted round too)."""
    return _decide(actor=actor, round_=round_, status=Round.Status.DECLINED)


@transaction.atomic
def round_withdraw(*, actor: Actor, round_: Round) -> None:
    """The league stops counting ``round_`` (its organisers); the history keeps it."""
    _require_league(actor, round_.league)
    actor.stamp(round_)
    round_.delete()

"""The next season of a championship, in one step: its settings, organisers, teams and
drivers carried over (same numbers, same players), nothing of the old season changed.

Circuits are shared by every championship (a circuit belongs to none): the ones the old
season used stay there for the new season's events, so there is nothing to copy.
"""

from __future__ import annotations

import re

from django.db import transaction
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.errors import Conflict, NotAllowed
from tournament.models import Championship, Driver, GuestSeat, Membership, Team
from tournament.players.identity import new_player
from tournament.registration.services import require_organiser, save_checked

_YEAR = re.compile(r"(?<![0-9])([0-9]{4})(?![0-9])")


def _later(text: str) -> str:
    """``text`` with each year one later: "2026" → "2027", "2026-2027" → "2027-2028"."""
    return _YEAR.sub(lambda m: str(int(m.group(1)) + 1), text)


def next_season_defaults(championship: Championship) -> dict[str, str]:
    """What the next season's form proposes: the years one later in the slug, name and
    season; a season without a year gets " 2" (then " 3"…), a slug without one "-next"."""
    season = _later(championship.season)
    if season == championship.season:
        found = re.fullmatch(r"(.*?)(?: ([0-9]+))?", championship.season)
        stem, count = (found.group(1), int(found.group(2) or 1)) if found else ("", 1)
        season = f"{stem} {count + 1}".strip()[:20]
    slug = _later(championship.slug)
    if slug == championship.slug:
        slug = f"{championship.slug}-next"[:50]
    return {"slug": slug, "name": _later(championship.name), "season": season}


def season_following(*, championship: Championship, name: str, season: str) -> Championship | None:
    """The championship of the same club that already is ``name``'s ``season`` (same name
    and season, case aside), other than ``championship`` itself: the next season started
    once already. Another club's championship of that name is its own, never followed."""
    return (
        Championship.objects.filter(
            club=championship.club_id, name__iexact=name.strip(), season__iexact=season.strip()
        )
        .exclude(pk=championship.pk)
        .order_by("pk")
        .first()
    )


def may_start_next_season(actor: Actor, championship: Championship) -> bool:
    """DOMAIN.md: a club's next season is started by its owners and organisers, never by a
    guest organiser. A championship of no club (the operator's, made before clubs) by its
    organisers, as before."""
    if championship.club_id is None:
        return actor.can_organise(championship)
    return actor.can_run_club(championship.club)


def _require_starter(actor: Actor, championship: Championship) -> None:
    if not may_start_next_season(actor, championship):
        require_organiser(actor, championship)  # the desk and strangers: the usual words
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s start its next season.")
            % {"club": championship.club.name}  # type: ignore[union-attr]
        )


def _guests_kept(championship: Championship, new: Championship) -> None:
    """The guest seats that still may be held go to ``new``, with who gave them: a guest
    who became a member of the club, or whose account is closed, has none there."""
    members = Membership.objects.filter(club_id=championship.club_id).values("user_id")
    kept = list(championship.organisers.filter(is_active=True).exclude(pk__in=members))
    new.organisers.set(kept)
    GuestSeat.objects.bulk_create(
        GuestSeat(championship=new, user_id=seat.user_id, given_by_id=seat.given_by_id,
                  given_at=seat.given_at)
        for seat in GuestSeat.objects.filter(championship=championship, user__in=kept)
    )  # fmt: skip


@transaction.atomic
def championship_next_season(
    *, actor: Actor, championship: Championship, slug: str, name: str, season: str
) -> Championship:
    """A new championship for the next season of ``championship`` (its club's owners and
    organisers only: ``may_start_next_season``).

    It takes the club, the points scale, points mode and best-K, the guest organisers who
    still may be (``_guests_kept``), the teams (name and colour) and the drivers (number,
    name, e-mail, team, player); no event, entry or result.
    A slug already taken is a Conflict (409), and so is a season that already follows this
    championship (same name and season: "Start next season" once made a second one); an
    invalid slug, name or season an InvalidInput (400). The old season is only read.
    """
    _require_starter(actor, championship)
    slug = (slug or "").strip()
    existing = season_following(championship=championship, name=name or "", season=season or "")
    if existing is not None:
        message = _("%(championship)s already exists (its slug: “%(slug)s”): nothing created.") % {
            "championship": existing,
            "slug": existing.slug,
        }
        raise Conflict(message, {"season": [message]})
    if Championship.objects.filter(slug=slug).exists():
        message = _("A championship with the slug “%(slug)s” already exists.") % {"slug": slug}
        raise Conflict(message, {"slug": [message]})
    new = Championship(
        slug=slug,
        name=(name or "").strip(),
        season=(season or "").strip(),
        points_scale=list(championship.points_scale),
        points_mode=championship.points_mode,
        best_results=championship.best_results,
        club_id=championship.club_id,  # the club's season too (its people run it)
    )
    actor.stamp(new)
    save_checked(new, _("The next season could not be created."))
    _guests_kept(championship, new)
    teams = {
        team.pk: Team(championship=new, name=team.name, colour=team.colour)
        for team in Team.objects.filter(championship=championship)
    }
    Team.objects.bulk_create(teams.values())
    drivers = []
    for driver in Driver.objects.filter(championship=championship).select_related("player"):
        player = driver.player
        if player is None:  # written by code older than players: a player of its own here
            player = new_player(driver.first_name, driver.last_name, driver.email)
        drivers.append(
            Driver(
                championship=new,
                number=driver.number,
                first_name=driver.first_name,
                last_name=driver.last_name,
                email=driver.email,
                team=teams.get(driver.team_id) if driver.team_id else None,
                player=player,
            )
        )
    Driver.objects.bulk_create(drivers)
    return new

"""Writes for registration: championships, circuits, teams, drivers, events, entries."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from tournament.access import Actor
from tournament.away.arrival import door_number
from tournament.errors import (
    Conflict,
    InvalidInput,
    NotAllowed,
    ServiceError,
    invalid_from_validation_error,
)
from tournament.games.registry import MAIN_GAME
from tournament.models import Championship, Circuit, Club, Driver, Entry, Event, Team
from tournament.players.identity import player_for
from tournament.public.tasks import warm_event_pages_soon
from tournament.registration.csv_import import MAX_NUMBER, DriverRow, LineError, parse_drivers_csv
from tournament.signals import results_changed_soon
from tournament.signup import broadcast as signup_mails


def require_organiser(actor: Actor, championship: Championship) -> None:
    """Refuse unless ``actor`` organises ``championship`` (a desk member is told why)."""
    if not actor.can_organise(championship):
        if actor.can_desk(championship):
            raise NotAllowed(
                _("The desk keeps the day's counter: only the organisers may do this.")
            )
        raise NotAllowed(_("Only the organisers of this championship may do this."))


def require_desk(actor: Actor, championship: Championship) -> None:
    """Refuse unless ``actor`` may keep ``championship``'s counter on the day (entries,
    check-in, runs, results entered and confirmed, sheets): its desk or its organisers."""
    if not actor.can_desk(championship):
        raise NotAllowed(_("Only the organisers of this championship may do this."))


def save_checked(instance, message: str):  # type: ignore[no-untyped-def]
    try:
        instance.full_clean()
    except ValidationError as exc:
        raise invalid_from_validation_error(exc, message) from exc
    instance.save()
    return instance


@transaction.atomic
def championship_create(
    *,
    actor: Actor,
    slug: str,
    name: str,
    season: str | int,
    points_scale: list[int],
    points_mode: str = Championship.PointsMode.PER_TABLE,
    best_results: int | None = None,
    club: Club | None = None,
) -> Championship:
    """A championship of ``club``, made by its owners or organisers (a superuser may leave
    it without a club: the operator's)."""
    if club is None and not actor.is_superuser():
        raise NotAllowed(
            _("Only a club's owner or organiser creates championships: say which club runs it.")
        )
    if club is not None and not actor.can_run_club(club):
        raise NotAllowed(
            _("Only the owners and organisers of %(club)s create its championships and circuits.")
            % {"club": club.name}
        )
    if Championship.objects.filter(slug=slug).exists():
        message = _("A championship with the slug “%(slug)s” already exists.") % {"slug": slug}
        raise Conflict(message, {"slug": [message]})
    championship = Championship(
        slug=slug,
        name=name,
        season=str(season).strip(),
        points_scale=points_scale,
        points_mode=points_mode,
        best_results=best_results,
        club=club,
    )
    return save_checked(championship, _("The championship could not be created."))


def teams_by_name(championship: Championship) -> dict[str, Team]:
    """The championship's teams keyed by casefolded name.

    Compared in Python: SQLite's case-insensitive match ignores accented capitals
    ("écurie" vs "Écurie"), PostgreSQL's does not; both must agree.
    """
    return {t.name.casefold(): t for t in Team.objects.filter(championship=championship)}


@transaction.atomic
def team_create(*, actor: Actor, championship: Championship, name: str) -> Team:
    require_organiser(actor, championship)
    name = name.strip()
    if name.casefold() in teams_by_name(championship):
        raise Conflict(_("The team “%(name)s” already exists.") % {"name": name})
    return save_checked(
        Team(championship=championship, name=name), _("The team could not be created.")
    )


def _team_named(championship: Championship, name: str | None) -> Team | None:
    if not name or not name.strip():
        return None
    name = name.strip()
    team = teams_by_name(championship).get(name.casefold())
    if team is None:
        team = save_checked(Team(championship=championship, name=name), _("Invalid team."))
    return team


@transaction.atomic
def driver_create(
    *,
    actor: Actor,
    championship: Championship,
    number: int,
    first_name: str,
    last_name: str,
    team: str | None = None,
    email: str = "",
    licence: str | None = None,
) -> Driver:
    """Register a driver; its player is the one holding ``licence`` when known, else a new
    one (matches by name or e-mail are proposed to race control, never made here). The
    desk may (a driver arriving at the counter on the day)."""
    require_desk(actor, championship)
    # On the laptop of an event away: one of the numbers its check-out reserved.
    number = door_number(championship, number)
    _check_numbers([number])
    if Driver.objects.filter(championship=championship, number=number).exists():
        raise Conflict(
            _("Driver number %(number)s is already registered.") % {"number": number},
            {"number": [_("This number is taken.")]},
        )
    driver = Driver(
        championship=championship,
        number=number,
        first_name=first_name.strip(),
        last_name=last_name.strip(),
        email=(email or "").strip(),
        team=_team_named(championship, team),
    )
    driver.player = player_for(
        championship=championship,
        first_name=driver.first_name,
        last_name=driver.last_name,
        email=driver.email,
        licence=licence,
        actor=actor,
    )
    return save_checked(driver, _("The driver could not be registered."))


@dataclass(frozen=True)
class ImportReport:
    created: int
    updated: int
    errors: list[LineError]


def drivers_import(*, actor: Actor, championship: Championship, text: str) -> ImportReport:
    """Create or update (by number) every driver of a CSV; all or nothing. Each driver's
    player is found by its licence number (``player_for``), else a new driver gets a new one.

    Raises InvalidInput carrying the report's errors when any line is bad: nothing is saved.
    """
    require_organiser(actor, championship)
    rows, errors = parse_drivers_csv(text)
    if errors:
        raise _lines_to_fix(errors)
    try:
        return _drivers_write(championship, rows, actor=actor)
    except _LineRefused as refused:  # e.g. a licence number already another driver's
        raise _lines_to_fix([refused.error]) from None


def _lines_to_fix(errors: list[LineError]) -> InvalidInput:
    return InvalidInput(
        ngettext(
            "Nothing was imported: %(count)s line to fix.",
            "Nothing was imported: %(count)s lines to fix.",
            len(errors),
        )
        % {"count": len(errors)},
        {f"line {e.line}": [e.message] for e in errors},
        current=errors,
    )


class _LineRefused(Exception):
    def __init__(self, error: LineError) -> None:
        super().__init__(error.message)
        self.error = error


@transaction.atomic
def _drivers_write(
    championship: Championship, rows: list[DriverRow], *, actor: Actor
) -> ImportReport:
    """Write the parsed rows (one transaction: a refused line undoes them all)."""
    created = updated = 0
    existing = {d.number: d for d in Driver.objects.filter(championship=championship)}
    teams = teams_by_name(championship)
    for row in rows:
        team = None
        if row.team:
            team = teams.get(row.team.casefold())
            if team is None:
                team = Team.objects.create(championship=championship, name=row.team)
                teams[row.team.casefold()] = team
        driver = existing.get(row.number)
        if driver is None:
            driver = Driver(championship=championship, number=row.number)
            created += 1
        else:
            updated += 1
        driver.first_name = row.first_name
        driver.last_name = row.last_name
        driver.team = team
        driver.email = row.email
        try:
            if driver.pk is None:  # a new driver: never a number a trip under way holds
                door_number(championship, row.number)
            driver.player = player_for(
                championship=championship,
                first_name=row.first_name,
                last_name=row.last_name,
                email=row.email,
                licence=row.licence,
                driver=driver,
                actor=actor,
            )
        except ServiceError as exc:
            raise _LineRefused(LineError(row.line, exc.message)) from exc
        driver.save()
    return ImportReport(created=created, updated=updated, errors=[])


@transaction.atomic
def event_create(
    *,
    actor: Actor,
    championship: Championship,
    slug: str,
    name: str,
    date: datetime.date,
    circuit: Circuit | None,
    game: str = MAIN_GAME,
    laps: int | None = None,
    table_size: int = 10,
    qualifying_mode: str = Event.QualifyingMode.BEST,
    minute_penalty: bool = True,
    allow_redo: bool = False,
    separate_teams: bool = True,
    **options: object,
) -> Event:
    """Create an event; ``options`` are further Event settings (language, stands, …)."""
    require_organiser(actor, championship)
    if Event.objects.filter(slug=slug).exists():
        raise Conflict(_("An event with the slug “%(slug)s” already exists.") % {"slug": slug})
    event = Event(
        championship=championship,
        slug=slug,
        name=name,
        date=date,
        circuit=circuit,
        game=game,
        laps=laps,
        table_size=table_size,
        qualifying_mode=qualifying_mode,
        minute_penalty=minute_penalty,
        allow_redo=allow_redo,
        separate_teams=separate_teams,
    )
    for name_, value in options.items():
        if name_ not in EVENT_SETTINGS:
            raise InvalidInput(_("Unknown event setting: %(name)s.") % {"name": name_})
        setattr(event, name_, value)
    return save_checked(event, _("The event could not be created."))


#: What an organiser may change on an event after creating it.
EVENT_SETTINGS = (
    "name",
    "date",
    "circuit",
    "laps",
    "table_size",
    "qualifying_mode",
    "minute_penalty",
    "allow_redo",
    "separate_teams",
    "min_stopwatch_cs",
    "language",
    "stand_numbers",
    "use_configurations",
    "standard_configuration",
    "crash_limit",
    "collisions",
    "race_end",
    "seed_by_rating",
    "show_favourites",
    "game_name",
    "grid",
)
#: Settings that only change while the event's state allows it (``event_update``).
EVENT_GUARDED = ("slug", "game")


def _state_refusal(event: Event, name: str, value: object) -> str | None:
    """Why the event's state forbids changing ``name`` to ``value`` now, None if it may."""
    if getattr(event, name) == value:
        return None
    entries = event.entries.exists()
    if name == "game" and entries:
        return _(
            "The game cannot change once drivers are registered: its tables, sheets and "
            "results depend on it."
        )
    if name == "slug" and entries:
        return _(
            "The event's address cannot change once drivers are registered: printed links "
            "and QR codes use it."
        )
    if name == "qualifying_mode" and (event.sessions.exists() or event.draw_rolls.exists()):
        return _(
            "The qualifying mode cannot change once a session is open or a d20 is drawn: "
            "the classification depends on it."
        )
    return None


@transaction.atomic
def event_update(*, actor: Actor, event: Event, **changes: object) -> Event:
    """Change an event's settings (not its championship). ``slug``, ``game`` and
    ``qualifying_mode`` change only while the event's state allows it (a refusal says why)."""
    require_organiser(actor, event.championship)
    for name_, value in changes.items():
        if name_ not in EVENT_SETTINGS + EVENT_GUARDED:
            raise InvalidInput(_("Unknown event setting: %(name)s.") % {"name": name_})
        refusal = _state_refusal(event, name_, value)
        if refusal:
            raise Conflict(refusal, {name_: [refusal]})
    slug = changes.get("slug", event.slug)
    if slug != event.slug and Event.objects.filter(slug=slug).exclude(pk=event.pk).exists():
        message = _("An event with the slug “%(slug)s” already exists.") % {"slug": slug}
        raise Conflict(message, {"slug": [message]})
    for name_, value in changes.items():
        setattr(event, name_, value)
    return save_checked(event, _("The event could not be saved."))


def _check_numbers(numbers: Iterable[int]) -> None:
    bad = [n for n in numbers if not 1 <= n <= MAX_NUMBER]
    if bad:
        raise InvalidInput(
            _("Driver numbers go from 1 to %(max)s: %(numbers)s is not one.")
            % {"max": MAX_NUMBER, "numbers": ", ".join(str(n) for n in bad)},
            {"number": [_("1 to %(max)s.") % {"max": MAX_NUMBER}]},
        )


def _drivers_by_number(championship: Championship, numbers: Iterable[int]) -> list[Driver]:
    wanted = list(dict.fromkeys(numbers))
    _check_numbers(wanted)
    found = {
        d.number: d for d in Driver.objects.filter(championship=championship, number__in=wanted)
    }
    unknown = [n for n in wanted if n not in found]
    if unknown:
        raise InvalidInput(
            ngettext(
                "Unknown driver number in this championship: %(numbers)s.",
                "Unknown driver numbers in this championship: %(numbers)s.",
                len(unknown),
            )
            % {"numbers": ", ".join(str(n) for n in unknown)},
            {"numbers": [_("Unknown: %(numbers)s") % {"numbers": unknown}]},
        )
    return [found[n] for n in wanted]


@transaction.atomic
def entries_register(*, actor: Actor, event: Event, numbers: Iterable[int]) -> list[Entry]:
    """Register drivers for ``event``; registering twice keeps the first registration."""
    require_desk(actor, event.championship)
    entries = []
    for driver in _drivers_by_number(event.championship, numbers):
        entry = Entry.objects.filter(event=event, driver=driver).first()
        if entry is None:
            entry = actor.stamp(Entry(event=event, driver=driver))
            try:
                with transaction.atomic():
                    entry.save()
            except IntegrityError:  # registered by someone else meanwhile
                entry = Entry.objects.get(event=event, driver=driver)
        entries.append(entry)
    return entries


@transaction.atomic
def entries_checkin(
    *, actor: Actor, event: Event, numbers: Iterable[int], checked_in: bool = True
) -> list[Entry]:
    require_desk(actor, event.championship)
    drivers = _drivers_by_number(event.championship, numbers)
    entries = {e.driver_id: e for e in Entry.objects.filter(event=event, driver__in=drivers)}
    missing = [d.number for d in drivers if d.pk not in entries]
    if missing:
        raise InvalidInput(
            _("Not registered for this event: %(numbers)s.")
            % {"numbers": ", ".join(str(n) for n in missing)}
        )
    result = []
    for driver in drivers:
        entry = entries[driver.pk]
        if entry.checked_in != checked_in or (checked_in and entry.absent):
            entry.checked_in = checked_in
            entry.absent = entry.absent and not checked_in  # here after all
            actor.stamp(entry).save(update_fields=["checked_in", "absent"])
        result.append(entry)
    return result


@transaction.atomic
def entry_absent_set(*, actor: Actor, event: Event, number: int, absent: bool = True) -> Entry:
    """Mark a registered driver absent (did not come: not checked in, seated nowhere by the
    spreads and the allocation; the day's check-in counts them as done), or not any more."""
    require_desk(actor, event.championship)
    entry = (
        Entry.objects.select_for_update()
        .filter(event=event, driver__number=number)
        .select_related("driver")
        .first()
    )
    if entry is None:
        raise InvalidInput(_("Not registered for this event: %(numbers)s.") % {"numbers": number})
    if entry.absent != absent or (absent and entry.checked_in):
        entry.absent = absent
        entry.checked_in = entry.checked_in and not absent
        actor.stamp(entry).save(update_fields=["checked_in", "absent"])
    return entry


@transaction.atomic
def event_publish(
    *,
    actor: Actor,
    event: Event,
    allocation: bool | None = None,
    qualifying: bool | None = None,
    results: bool | None = None,
    qualifying_tables: bool | None = None,
) -> Event:
    require_organiser(actor, event.championship)
    told = (
        bool(allocation and not event.published_allocation),
        bool(results and not event.published_results),
    )
    if qualifying_tables is not None:
        event.published_qualifying_tables = qualifying_tables
    if allocation is not None:
        event.published_allocation = allocation
    if qualifying is not None:
        event.published_qualifying = qualifying
    # Only published results count in the ratings: they change with the publication.
    ratings_change = results is not None and results != event.published_results
    if results is not None:
        event.published_results = results
    event.save(
        update_fields=[
            "published_qualifying_tables",
            "published_allocation",
            "published_qualifying",
            "published_results",
        ]
    )
    # The room opens the pages within seconds: build them once committed, not per phone.
    transaction.on_commit(partial(warm_event_pages_soon, event.pk), robust=True)
    if ratings_change:
        results_changed_soon(event.family)
    signup_mails.publication_mails(event=event, allocation=told[0], results=told[1])
    return event


def referee_account_set(*, actor: Actor, table: Any, username: str) -> Any:
    """Assign the referee account ``username`` to a table (qualifying or race); an empty
    name removes it. The account then opens that table's pages and API, like its link,
    and nothing more (recorded with who, before and after)."""
    require_organiser(actor, table.event.championship)
    username = (username or "").strip()
    user = None
    if username:
        readable = len(username) <= 150 and "\x00" not in username
        accounts = get_user_model().objects.filter(username=username, is_active=True)
        user = accounts.first() if readable else None
        if user is None:
            message = _("No active account is named “%(username)s”.") % {"username": username[:150]}
            raise InvalidInput(message, {"referee_account": [message]})
    if table.referee_id == (user.pk if user is not None else None):
        return table
    with transaction.atomic():
        table.referee = user
        actor.stamp(table).save(update_fields=["referee"])
    return table

"""Writes at a race table before the start: stands in grid order (§4-0-1), car
configurations (§5), the referee's start that writes them in ink (§5-0-2), and race
control's unlock (with a reason).

The rules live in ``races.grid.stands`` and ``races.grid.configuration``; here we check who acts,
validate, save, and record.
"""

from __future__ import annotations

from collections.abc import Mapping

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races.games.quick import rules as quick_rules
from races.grid import configuration as configuration_rules
from races.grid import stands as stand_rules
from races.grid.state import checked_reason, locked_for_start, require_not_started
from races.models import CarConfiguration, GridSlot, RaceTable, RaceWeather
from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.games.registry import require_step
from tournament.registration.services import require_organiser
from tournament.wording import configuration_messages


def _slots_by_number(table: RaceTable, numbers: list[int]) -> dict[int, GridSlot]:
    slots = {s.driver.number: s for s in table.slots.select_related("driver")}
    missing = [n for n in numbers if n not in slots]
    if missing:
        raise InvalidInput(
            _("Not on the grid of %(table)s: %(numbers)s.")
            % {"table": table, "numbers": ", ".join(str(n) for n in missing)},
            {str(n): [_("Not at this table.")] for n in missing},
        )
    return slots


def _stand_refusal(
    problem: stand_rules.StandProblem,
    names: Mapping[int, str],
    stands: list[int],
    positions: Mapping[int, int],
) -> str:
    """A refused stand in words, naming the drivers (never the one asking, as the holder)."""
    if problem.kind == "unknown_stand":
        return _("Stand %(stand)s does not exist here (stands: %(stands)s).") % {
            "stand": problem.stand,
            "stands": ", ".join(str(s) for s in sorted(stands)),
        }
    if problem.kind == "taken":
        return _("Stand %(stand)s is already taken by %(other)s at this table.") % {
            "stand": problem.stand,
            "other": names.get(problem.other, str(problem.other)),  # type: ignore[call-overload]
        }
    first = problem.other
    return _(
        "Stands are chosen in grid order, pole first (§4-0-1): %(first)s (P%(position)s) "
        "chooses before %(driver)s."
    ) % {
        "first": names.get(first, str(first)),  # type: ignore[call-overload]
        "position": positions.get(first, "?"),  # type: ignore[call-overload]
        "driver": names.get(problem.driver, str(problem.driver)),  # type: ignore[call-overload]
    }


def stands_set(
    *, actor: Actor, table: RaceTable, stands: Mapping[int, int | None]
) -> list[GridSlot]:
    """Record the stands chosen (§4-0-1): in grid order, one per driver, never twice at a
    table. A driver's stand may be corrected (or freed, with None) until the race starts
    at the table; the drivers with a stand are always the first of the grid."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may record its stands."))
    require_step(table.event, "stands")
    allowed = table.event.stands()
    with transaction.atomic():
        # FOR NO KEY UPDATE (here and wherever a table or an event is locked): its writers
        # still wait for each other, but a row that only points at it (a photo, a result's
        # line) commits without waiting. FOR UPDATE blocked those rows' foreign-key checks
        # at commit: a photo sent while the table was written deadlocked (issue 20's replay).
        # The table's row only (``of``): its event is read, not locked. Locked, it made every
        # table's stands and configurations wait for each other's (issue 31's return, when
        # twelve tables send theirs in the same second). A stand or a configuration reads
        # nothing of its event that a table's start guards (the race weather, ``table_start``).
        locked = RaceTable.objects.select_for_update(no_key=True, of=("self",))
        locked = locked.select_related("event")
        table = locked.get(pk=table.pk)
        require_not_started(
            table,
            confirmed=_("This table's result is confirmed: its stands can no longer change."),
            started=_(
                "The race has started at %(table)s: its stands are written in ink (§5-0-2). "
                "Race control may unlock the table, with a reason."
            )
            % {"table": table},
        )
        slots = list(table.slots.select_related("driver").order_by("position"))
        grid = [s.driver.number for s in slots]
        by_number = {s.driver.number: s for s in slots}
        problems = stand_rules.stand_problems(
            grid, {s.driver.number: s.stand for s in slots}, stands, stands=allowed
        )
        unknown = [p.driver for p in problems if p.kind == "unknown_driver"]
        if unknown:
            raise InvalidInput(
                _("Not on the grid of %(table)s: %(numbers)s.")
                % {"table": table, "numbers": ", ".join(str(n) for n in unknown)},
                {str(n): [_("Not at this table.")] for n in unknown},
            )
        if problems:
            names = {s.driver.number: f"{s.driver.number} {s.driver.name}" for s in slots}
            positions = {s.driver.number: s.position for s in slots}
            errors: dict[str, list[str]] = {}
            for problem in problems:
                text = _stand_refusal(problem, names, allowed, positions)
                errors.setdefault(str(problem.driver), []).append(text)
            raise InvalidInput(next(iter(errors.values()))[0], errors)
        # Free the stands first so that exchanging two stands does not trip the constraint.
        changed = [by_number[n] for n, stand in stands.items() if by_number[n].stand != stand]
        for slot in changed:
            slot.stand = None
            actor.stamp(slot).save(update_fields=["stand"])
        for slot in changed:
            slot.stand = stands[slot.driver.number]
            try:
                with transaction.atomic():
                    actor.stamp(slot).save(update_fields=["stand"])
            except IntegrityError as exc:  # someone else took it meanwhile
                raise Conflict(
                    _("Stand %(stand)s was just taken.") % {"stand": slot.stand}
                ) from exc
    return list(table.slots.select_related("driver"))


def configurations_set(
    *, actor: Actor, table: RaceTable, configurations: Mapping[int, Mapping[str, object]]
) -> list[CarConfiguration]:
    """Record car configurations (§5) for drivers of ``table``; all or nothing; refused
    once the race started at the table (§5-0-2: in ink)."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may record configurations."))
    require_step(table.event, "configurations")
    if not table.event.use_configurations:
        raise Conflict(_("This event does not record car configurations."))
    errors: dict[str, list[str]] = {}
    parsed = {}
    # The quick rules' car: 22 points on the car, no stand (their point 1).
    rules = quick_rules if table.event.is_quick_rules else configuration_rules
    for number, values in configurations.items():
        problems = rules.configuration_problems(values)
        if problems:
            for field, messages in configuration_messages(problems).items():
                errors[f"{number}.{field}"] = messages
        else:
            parsed[number] = rules.parse_configuration(values)
    saved = []
    with transaction.atomic():
        # The table's row only, as ``stands_set`` says.
        locked = RaceTable.objects.select_for_update(no_key=True, of=("self",))
        table = locked.select_related("event").get(pk=table.pk)
        require_not_started(
            table,
            confirmed=_(
                "This table's result is confirmed: its configurations can no longer change."
            ),
            started=_(
                "The race has started at %(table)s: its configurations are written in ink "
                "(§5-0-2). Race control may unlock the table, with a reason."
            )
            % {"table": table},
        )
        if errors:
            first = next(iter(errors))
            raise InvalidInput(
                _("Driver %(number)s: %(message)s")
                % {"number": first.split(".")[0], "message": errors[first][0]},
                errors,
            )
        slots = _slots_by_number(table, list(configurations))
        for number, config in parsed.items():
            record = CarConfiguration.objects.filter(slot=slots[number]).first()
            record = record or CarConfiguration(slot=slots[number])
            for field in configuration_rules.PARTS:
                setattr(record, field, getattr(config, field))
            record.stand_points = config.stand_points
            actor.stamp(record).save()
            saved.append(record)
    return saved


def start_missing(table: RaceTable) -> list[stand_rules.Missing]:
    """What the referee's start still waits for at ``table`` (grid order)."""
    slots = list(table.slots.select_related("driver", "configuration").order_by("position"))
    event = table.event
    return stand_rules.start_problems(
        [s.driver for s in slots],
        {s.driver: s.stand for s in slots},
        [s.driver for s in slots if getattr(s, "configuration", None) is not None],
        # The quick rules have no stands; their standard car is every driver's configuration.
        configurations=event.use_configurations and not event.standard_configuration,
        stands_required=event.has_stands,
    )


def missing_words(missing: list[stand_rules.Missing]) -> str:
    """ "no stand for 3 Chloé Durand; no configuration for 3 Chloé Durand"."""
    parts = []
    for what, text in (
        ("stand", _("no stand for %(drivers)s")),
        ("configuration", _("no configuration for %(drivers)s")),
    ):
        drivers = [f"{m.driver.number} {m.driver.name}" for m in missing if m.what == what]  # type: ignore[attr-defined]
        if drivers:
            parts.append(text % {"drivers": ", ".join(drivers)})
    return "; ".join(parts)


def table_start(*, actor: Actor, table: RaceTable) -> RaceTable:
    """The referee starts the race at the table: its stands and configurations are then
    written in ink (§5-0-2). Refused before the race weather is drawn (§3-0-1, where the
    game draws one) and while a stand (where the game has stands), or a configuration the
    event records, is missing (the refusal names whose). Starting a started table changes
    nothing."""
    if not actor.can_referee(table):
        raise NotAllowed(_("Only this table's referee or an organiser may start its race."))
    with transaction.atomic():
        table = locked_for_start(table)
        if table.started:
            return table
        if (
            table.event.draws_race_weather
            and not RaceWeather.objects.filter(event=table.event).exists()
        ):
            raise Conflict(
                _(
                    "The race weather is not drawn yet: the overall pole draws it (§2-0-1) "
                    "before the race starts at %(table)s."
                )
                % {"table": table},
                {"race_weather": [_("Race control draws the race weather first.")]},
            )
        missing = start_missing(table)
        if missing:
            raise Conflict(
                _("The race cannot start at %(table)s yet: %(missing)s.")
                % {"table": table, "missing": missing_words(missing)},
                {
                    str(m.driver.number): [  # type: ignore[attr-defined]
                        _("No stand yet.") if m.what == "stand" else _("No configuration yet.")
                    ]
                    for m in missing
                },
            )
        table.started_at = timezone.now()
        table.started_by = actor.label
        actor.stamp(table).save(update_fields=["started_at", "started_by"])
    return table


def table_unlock(*, actor: Actor, table: RaceTable, reason: str) -> RaceTable:
    """Race control unlocks a started table, saying why: its stands and configurations
    may change again until the referee starts it anew."""
    require_organiser(actor, table.event.championship)
    reason = checked_reason(reason, required=True, message=_("Say why the table is unlocked."))
    with transaction.atomic():
        table = RaceTable.objects.select_for_update(no_key=True).get(pk=table.pk)
        if not table.started:
            raise Conflict(_("%(table)s has not started: nothing to unlock.") % {"table": table})
        table.started_at = None
        table.started_by = ""
        table.unlock_reason = reason
        table._change_reason = reason  # type: ignore[attr-defined]
        actor.stamp(table).save(update_fields=["started_at", "started_by", "unlock_reason"])
    return table

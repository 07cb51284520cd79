"""On the hosted server: the way back lands (``manage.py return_event``, ``POST
/api/v1/events/{event}/return``, the desk's upload), in one transaction or not at all.

Refused whole, with what and why, before anything is written: a file that is not a way
back or whose signature fails, a row the models' validators refuse, a file that is not a
photo of the day (400); another check-out, a cancelled one, another event, a number taken
here since the check-out (409, named). Sent twice, it lands once: the second answer is the first
(``Checkout.return_digest``, ``return_answer``). The photos' files are written once the
rows are committed: a return killed before its commit leaves neither rows nor files, and
the same file sent again writes those a crash after the commit lost.

The day's rows are added, never replacing anything: each gets an id of this server (the
laptop's ids numbered anew in their order, above what each table holds here, its sequence
moved last of all: ``ids``), and every reference follows (the event, drivers by number,
entries by driver, people by username, the day's own rows by their new ids). History rows
come as the laptop wrote them. Then the event is home: standings read the new results,
ratings are recomputed (``results_changed_soon``), public pages follow the event's
release settings.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.exceptions import ValidationError
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from paddock.away.checkout import checkout_key
from paddock.away.export import LABELS
from paddock.away.files import checked_files, store_files
from paddock.away.ids import DayIds
from paddock.venue.rows import MAX_PROBLEMS, row_problems
from tournament import sealing
from tournament.access import Actor
from tournament.away import bundle
from tournament.away.models import Checkout
from tournament.errors import Conflict, InvalidInput, ServiceError
from tournament.models import Driver, Entry, Event, Player, Team
from tournament.players.identity import active, may_claim, player_for
from tournament.signals import results_changed_soon
from tournament.signup.models import Registration

#: Fields of the event the laptop may have changed (its settings and releases).
EVENT_KEEPS = ("id", "slug", "championship", "circuit")
_LABEL = {label.lower(): label for label in LABELS}
_LABELS = set(LABELS)
#: Tables a referee link opens: (model label, kind of ReplacedLink).
LINKED = (("qualifying.QualifyingTable", "qualifying"), ("races.RaceTable", "race"))


def _refused(kind: type[ServiceError], why: str, what: str = "bundle") -> ServiceError:
    return kind(why, {what: [why]})


def _damaged(part: str) -> str:
    """The refusal of a file whose part ``part`` (its key, as the file names it) is damaged."""
    return _("The file is damaged (its “%(part)s”).") % {"part": part}


def _is_id(value: Any) -> bool:
    """A laptop's id: a whole number above 0 (any size: it is not kept, ``ids``)."""
    return isinstance(value, int) and not isinstance(value, bool) and value > 0


def _base_label(label: str) -> str:
    return label.replace(".Historical", ".")


def _parse(text: str | bytes) -> dict[str, Any]:
    try:
        return bundle.parse(text, bundle.BACK)
    except bundle.BundleError as exc:
        why = _("This is not an event's way back from a laptop (%(why)s).") % {"why": exc}
        raise _refused(InvalidInput, why) from exc


def _checkout_of(data: dict[str, Any], event: Event | None, actor: Actor | None) -> Checkout:
    checkout = (
        Checkout.objects.select_related("event__championship")
        .filter(uid=_uuid(data["checkout"]["id"]), side=Checkout.Side.HOSTED)
        .first()
    )
    if checkout is None:
        raise _refused(Conflict, _("This file is of a check-out this server did not make."))
    if event is not None and checkout.event_id != event.pk:
        if actor is None or actor.can_organise(checkout.event.championship):
            raise _refused(Conflict, _("This file is another event's: %(slug)s.") % {
                "slug": checkout.event.slug
            })  # fmt: skip
        # Another club's: which event it is stays theirs.
        raise _refused(Conflict, _("This file is another event's."))
    if data["event"].get("slug") != checkout.event.slug:
        raise _refused(Conflict, _("This file names another event than its check-out's."))
    return checkout


def _uuid(text: str) -> Any:
    try:
        return uuid.UUID(text)
    except ValueError as exc:
        raise _refused(InvalidInput, _("The check-out id is not one.")) from exc


def land(
    text: str | bytes, *, event: Event | None = None, actor: Actor | None = None
) -> dict[str, Any]:
    """Land the way back in ``text`` (module docstring) for ``actor`` (None: the server's
    own command); answers ``{landed, refused}``."""
    data = _parse(text)
    checkout = _checkout_of(data, event, actor)
    if not bundle.verify(data, checkout_key(checkout)):
        raise _refused(
            InvalidInput,
            _("The file's signature fails: it was changed on its way, or is not this check-out's."),
            "signature",
        )
    digest = bundle.digest(data)
    with transaction.atomic():
        checkout = Checkout.objects.select_for_update().select_related("event").get(pk=checkout.pk)
        if checkout.returned_at is not None:
            if checkout.return_digest == digest and checkout.return_answer is not None:
                # A return whose files a crash lost after the commit: sent again, they land.
                store_files(checked_files(data))
                return checkout.return_answer  # type: ignore[no-any-return]
            raise _refused(Conflict, _("This check-out came back already, with another file."))
        if checkout.cancelled_at is not None:
            raise _refused(
                Conflict,
                _("This check-out was cancelled (%(reason)s): its day cannot come back.")
                % {"reason": checkout.cancel_reason},
            )
        answer = _land(data, checkout, actor)
        checkout.returned_at = timezone.now()
        checkout.return_digest = digest
        checkout.return_answer = answer
        checkout.save(update_fields=["returned_at", "return_digest", "return_answer"])
        results_changed_soon(checkout.event.family)
    return answer


def _land(data: dict[str, Any], checkout: Checkout, actor: Actor | None) -> dict[str, Any]:
    """Everything is checked before anything is written, and the tables' sequences move
    last of all (``ids``): ``nextval`` and ``setval`` are not undone by a rollback."""
    event = Event.objects.select_related("championship").get(pk=checkout.event_id)
    championship = event.championship
    files = checked_files(data)  # checked before any row: a damaged one refuses the whole day
    door = _door_checked(data, championship, actor)
    known = {
        *Driver.objects.filter(championship=championship).values_list("number", flat=True),
        *(driver.number for driver, _row, _player in door),
    }
    listed = _entries_checked(data, known)
    registrations = _registrations_checked(data)
    fields = _event_checked(data, event)
    numbers = data.get("numbers") or {}
    if not isinstance(numbers, dict) or not all(
        isinstance(n, int) and str(pk).isdigit() for pk, n in numbers.items()
    ):
        raise _refused(InvalidInput, _damaged("numbers"))
    day = DayIds()
    # The rows as they will land, with stand-ins for the drivers and entries not made yet:
    # what refers to what, the models' validators, the photos' files.
    seen = _remapped(
        data, event, {int(pk): 0 for pk, n in numbers.items() if n in known}, None, day
    )
    _rows_checked(seen, files)

    # Checked: the writes.
    teams = {t.name: t for t in Team.objects.filter(championship=championship)}
    for driver, row, player in door:
        if row.get("team"):
            team = teams.get(row["team"]) or Team.objects.create(
                championship=championship, name=row["team"]
            )
            teams[team.name] = driver.team = team
        named = row["player"]
        driver.player = player or player_for(
            championship=championship,
            first_name=named.get("first_name") or driver.first_name,
            last_name=named.get("last_name") or driver.last_name,
            email=named.get("email") or "",
            licence=named.get("licence"),
            actor=actor,
        )
        driver.save()
    by_number = dict(Driver.objects.filter(championship=championship).values_list("number", "pk"))
    drivers = {int(pk): by_number[n] for pk, n in numbers.items() if n in by_number}
    # The event's settings and releases as the day left them.
    Event.objects.filter(pk=event.pk).update(**fields)
    entries = _entries(listed, data, event, by_number, drivers)
    _registrations(registrations, event, by_number)
    counts: dict[str, int] = defaultdict(int)
    try:
        with transaction.atomic():
            day.place()
            rows: dict[str, list[Any]] = defaultdict(list)
            objects = _remapped(data, event, drivers, entries, day)
            for item in serializers.deserialize("python", objects, ignorenonexistent=False):
                rows[item.object._meta.label].append(item.object)
            # Whole tables at once, as the laptop wrote them: no signal, no new history row
            # (the laptop's come with them), the change counters' triggers fire.
            for label in LABELS:
                if rows[label]:
                    apps.get_model(label).objects.bulk_create(rows[label], batch_size=500)
                    counts[label] = len(rows[label])
            day.reserve()
    except (DeserializationError, IntegrityError, DatabaseError, ValueError, TypeError) as exc:
        raise _refused(
            InvalidInput,
            _("The day's rows could not be added, nothing landed: %(error)s")
            % {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__},
        ) from exc
    # Written once the rows are committed: a return that dies before its commit (a server
    # killed, restarted) leaves no file behind, and one that dies after it writes them when
    # it is sent again (``land``). Photos are named by their bytes: never a wrong file.
    transaction.on_commit(lambda: store_files(files))
    _renew_links(event)
    return {
        "landed": {
            "runs": counts["qualifying.Run"],
            "tables": counts["qualifying.QualifyingTable"] + counts["races.RaceTable"],
            "results": counts["races.RaceResult"],
            "sanctions": counts["tournament.Sanction"],
            "photos": counts["races.SheetPhoto"],
            "drivers": len(door),
        },
        "refused": [],
    }


def _listed(data: dict[str, Any], key: str, *, required: bool = False) -> list[dict[str, Any]]:
    """The list of rows ``data[key]`` (refused when damaged, or missing and ``required``)."""
    rows = data.get(key)
    if rows is None and not required:
        return []
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise _refused(InvalidInput, _damaged(key))
    return rows


def _door_checked(
    data: dict[str, Any], championship: Any, actor: Actor | None
) -> list[tuple[Driver, dict[str, Any], Player | None]]:
    """The drivers created at the door, checked and not saved, each with its row and the
    player here the laptop joined it to (None: a new one, proposed for matching)."""
    door = _listed(data, "drivers")
    if not all(isinstance(row.get("number"), int) for row in door):
        raise _refused(InvalidInput, _damaged("drivers"))
    taken = Driver.objects.filter(
        championship=championship, number__in=[row["number"] for row in door]
    ).order_by("number")
    if taken:
        named = "; ".join(
            _("number %(number)s is %(name)s's here") % {"number": d.number, "name": d.name}
            for d in taken
        )
        raise Conflict(
            _("Drivers created at the door have numbers taken here since the check-out: "
              "%(named)s. Nothing landed.") % {"named": named},
            {"drivers": [str(d.number) for d in taken]},
        )  # fmt: skip
    checked = []
    for row in door:
        driver = Driver(
            championship=championship,
            number=row["number"],
            first_name=row.get("first_name") or "",
            last_name=row.get("last_name") or "",
            email=row.get("email") or "",
        )
        try:
            driver.full_clean(exclude=["player", "team"])
        except ValidationError as exc:
            why = "; ".join(m for ms in exc.message_dict.values() for m in ms)
            raise _refused(
                InvalidInput,
                _("A driver created at the door is refused (number %(number)s): %(why)s")
                % {"number": row["number"], "why": why},
                "drivers",
            ) from exc
        player = row.get("player") if isinstance(row.get("player"), dict) else {}
        row = {**row, "player": player}
        checked.append((driver, row, _known_player(player.get("id"), championship, actor)))
    return checked


def _entries_checked(data: dict[str, Any], known: set[int]) -> list[dict[str, Any]]:
    listed = data.get("entries")
    if listed is None:
        raise _refused(InvalidInput, _("The file does not list the event's entries."))
    listed = _listed(data, "entries")
    for row in listed:
        if not isinstance(row.get("id"), int):
            raise _refused(InvalidInput, _damaged("entries"))
        if row.get("driver") not in known:
            raise _refused(InvalidInput, _("An entry names an unknown driver: %(n)s.") % {
                "n": row.get("driver")
            })  # fmt: skip
    return listed


def _registrations_checked(data: dict[str, Any]) -> list[dict[str, Any]]:
    listed = _listed(data, "registrations")
    for row in listed:
        when = row.get("confirmed_at")
        if when is not None and (not isinstance(when, str) or parse_datetime(when) is None):
            raise _refused(InvalidInput, _damaged("registrations"))
    return listed


def _event_checked(data: dict[str, Any], event: Event) -> dict[str, Any]:
    """The event's fields as the day left them, checked by the model's validators."""
    names = {f.name for f in Event._meta.concrete_fields if not f.is_relation}
    fields = {k: v for k, v in data["event"].items() if k not in EVENT_KEEPS and k in names}
    candidate = Event.objects.get(pk=event.pk)
    for key, value in fields.items():
        setattr(candidate, key, value)
    problems = row_problems(candidate)
    if problems:
        raise InvalidInput(
            _("Rows of the day were refused, nothing landed."), {"event": problems[:MAX_PROBLEMS]}
        )
    return fields


def _rows_checked(objects: list[dict[str, Any]], files: dict[str, bytes]) -> None:
    """The day's rows (stand-ins for ids) as the models' validators see them, and the photos'
    files: each one a photo row of the day names."""
    problems: list[str] = []
    named: set[str] = set()
    try:
        for item in serializers.deserialize("python", objects, ignorenonexistent=False):
            # The file is trusted no more than a form: the models' own validators.
            problems += row_problems(item.object)
            if item.object._meta.label in ("races.SheetPhoto", "races.HistoricalSheetPhoto"):
                named |= {item.object.image, item.object.thumbnail}
    except (DeserializationError, ValueError, TypeError) as exc:
        raise _refused(
            InvalidInput,
            _("The day's rows could not be added, nothing landed: %(error)s")
            % {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__},
        ) from exc
    if problems:
        raise InvalidInput(
            _("Rows of the day were refused, nothing landed."),
            {"objects": problems[:MAX_PROBLEMS]},
        )
    stray = sorted(set(files) - named)
    if stray:
        raise _refused(InvalidInput, _("A file no photo of the day names: %(name)s.") % {
            "name": stray[0]
        }, "files")  # fmt: skip


def _known_player(hosted_id: Any, championship: Any, actor: Actor | None) -> Player | None:
    """The player a door driver's row names by its id here (the laptop joined them to a
    player a bundle brought), when ``actor`` may join a driver to that player; None leaves
    the player to ``player_for`` (a new one, proposed for matching by name)."""
    if not isinstance(hosted_id, int):
        return None
    found = Player.objects.filter(pk=hosted_id).first()
    if found is None:
        return None
    player = active(found)
    if not may_claim(actor, player):
        return None
    other = Driver.objects.filter(championship=championship, player=player).first()
    if other is not None:
        raise Conflict(
            _("A driver created at the door is %(name)s, who drives number %(number)s here "
              "already: one person drives once per championship. Nothing landed.")
            % {"name": player.name, "number": other.number},
            {"drivers": [str(other.number)]},
        )  # fmt: skip
    return player


def _entries(
    listed: list[dict[str, Any]],
    data: dict[str, Any],
    event: Event,
    by_number: dict[int, int],
    drivers: dict[int, int],
) -> dict[int, int]:
    """The entries as the day left them (``listed``, checked): those the laptop holds,
    changed or added, and those it deleted (a driver withdrawn at the door) deleted here
    too. Their history comes with the day's rows, so no row of its own is written here.
    Answers laptop entry id → entry id here, a deleted entry's included (the laptop's
    history names it)."""
    here = {entry.driver_id: entry for entry in Entry.objects.filter(event=event)}
    flags = ("checked_in", "absent", "fast", "paid")
    changed, made, laptop_ids = [], [], {}
    for row in listed:
        driver = by_number[row["driver"]]
        entry = here.get(driver) or Entry(event=event, driver_id=driver)
        for flag in flags:
            setattr(entry, flag, bool(row.get(flag)))
        (changed if entry.pk else made).append(entry)
        laptop_ids[int(row["id"])] = entry
    Entry.objects.bulk_update(changed, flags, batch_size=500)
    Entry.objects.bulk_create(made, batch_size=500)
    ids = {laptop: entry.pk for laptop, entry in laptop_ids.items()}
    kept = {entry.driver_id for entry in laptop_ids.values()}
    gone = {driver: entry.pk for driver, entry in here.items() if driver not in kept}
    for row in data.get("objects") or []:
        if not isinstance(row, dict) or row.get("model") != "tournament.historicalentry":
            continue
        fields = row.get("fields") or {}
        driver = drivers.get(fields.get("driver"))  # type: ignore[arg-type]
        if fields.get("id") not in ids and driver in gone and isinstance(fields["id"], int):
            ids[fields["id"]] = gone[driver]
    if gone:
        # Without signals: the laptop's history of the deletion lands with the day's rows.
        with connection.cursor() as cursor:
            cursor.execute(
                f"DELETE FROM {Entry._meta.db_table} WHERE id IN "  # the model's own name
                f"({', '.join(['%s'] * len(gone))})",
                list(gone.values()),
            )
    return ids


def _registrations(listed: list[dict[str, Any]], event: Event, by_number: dict[int, int]) -> None:
    """Each registration as the day left it (DOMAIN.md "Corrections to 'Before the day'"):
    present or absent, moved in from the waiting list at the door, the driver it became,
    its place in the waiting list (their change in this server's history, by the return)."""
    here = {r.pk: r for r in Registration.objects.filter(event=event)}
    statuses = set(Registration.Status.values)
    for row in listed:
        registration = here.get(row.get("id"))
        if registration is None:
            continue  # erased here meanwhile: nothing to say of it
        status = row.get("status") if row.get("status") in statuses else registration.status
        present, driver = bool(row.get("present")), by_number.get(row.get("driver"))
        confirmed = registration.confirmed_at
        if isinstance(row.get("confirmed_at"), str):
            confirmed = parse_datetime(row["confirmed_at"]) or confirmed
        day = (status, present, driver, confirmed)
        if day == (
            registration.status, registration.present, registration.driver_id,
            registration.confirmed_at,
        ):  # fmt: skip
            continue
        (
            registration.status, registration.present, registration.driver_id,
            registration.confirmed_at,
        ) = day  # fmt: skip
        registration._history_actor = _("return from the venue")  # type: ignore[attr-defined]
        registration.save(update_fields=["status", "present", "driver", "confirmed_at"])


def _remapped(
    data: dict[str, Any],
    event: Event,
    drivers: dict[int, int],
    entries: dict[int, int] | None,
    day: DayIds,
) -> list[dict[str, Any]]:
    """The day's rows with the ids they take here (``day``; ``entries`` None: stand-ins,
    while nothing is written yet), refused when they name what is not this event's."""
    objects = data.get("objects")
    if not isinstance(objects, list) or not all(
        isinstance(r, dict) and isinstance(r.get("fields"), dict) and _is_id(r.get("pk"))
        for r in objects
    ):
        raise _refused(InvalidInput, _("The day's rows are damaged."))
    unknown = sorted({str(r.get("model")) for r in objects} - set(_LABEL))
    if unknown:
        raise _refused(InvalidInput, _("Rows of an unknown kind: %(kinds)s.") % {
            "kinds": ", ".join(unknown)
        })  # fmt: skip
    users = dict(get_user_model().objects.values_list(get_user_model().USERNAME_FIELD, "pk"))
    laptop_event = data["event"].get("id")
    problems: list[str] = []

    def entry(old: Any) -> Any:
        return (0 if old is not None else None) if entries is None else entries.get(old)

    def moved(label: str, old: Any) -> Any:
        if old is None:
            return None
        if label == "tournament.Event":
            if old != laptop_event:
                problems.append(_("a row of another event"))
            return event.pk
        if label == "tournament.Driver":
            if old not in drivers:
                problems.append(_("an unknown driver (%(id)s)") % {"id": old})
            return drivers.get(old)
        if label == "tournament.Entry":
            return entry(old)
        if label == get_user_model()._meta.label:
            name = old[0] if isinstance(old, list) and old else old
            return users.get(name)
        if label in _LABELS:
            if not _is_id(old):
                problems.append(_("a damaged id (%(what)s)") % {"what": label})
                return None
            return day.new(label, old)
        problems.append(_("a reference to %(what)s") % {"what": label})
        return None

    out = []
    for row in objects:
        label = _LABEL[row["model"]]
        model = apps.get_model(label)
        historical = label != _base_label(label)
        fields = dict(row["fields"])
        for field in model._meta.concrete_fields:
            if field.name not in fields:
                continue
            if field.is_relation and field.related_model is not None:
                fields[field.name] = moved(field.related_model._meta.label, fields[field.name])
            elif historical and field.name == "id":
                base = _base_label(label)
                old = fields["id"]
                fields["id"] = entry(old) if base == "tournament.Entry" else moved(base, old)
        if label == "races.ReplacedLink":
            kind = {"race": "races.RaceTable", "qualifying": "qualifying.QualifyingTable"}
            fields["table_id"] = moved(kind.get(fields.get("kind"), ""), fields.get("table_id"))
        if label == "tournament.HistoricalEntry" and fields.get("id") is None:
            continue  # the history of an entry made and deleted on the laptop: none here
        out.append({"model": label, "pk": day.new(label, row["pk"]), "fields": fields})
    if problems:
        raise _refused(
            InvalidInput,
            _("The day's rows name what is not this event's: %(what)s.")
            % {"what": ", ".join(sorted(set(problems))[:10])},
        )
    return out


def _renew_links(event: Event) -> None:
    """The laptop's referee links are sealed with its key: each table here gets a link of
    its own (the day is over; the old one says it was replaced)."""
    replaced_link = apps.get_model("races.ReplacedLink")
    who = _("return from the venue")
    for label, kind in LINKED:
        for table in apps.get_model(label).objects.filter(event=event).order_by("pk"):
            if sealing.unseal(table.token_sealed) is not None:
                continue
            replaced_link.objects.create(
                digest=table.token_digest, kind=kind, table_id=table.pk, actor=who
            )
            table.token = sealing.new_link_secret()
            table._history_actor = who
            table.save(update_fields=["token_digest", "token_sealed"])

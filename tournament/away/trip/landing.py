"""On the hosted server: the way back lands (``manage.py return_event``, ``POST
/api/v1/events/{event}/return``, the desk's upload), in one transaction or not at all.

Refused whole, with what and why: a file that is not a way back or whose signature fails
(400); another check-out, a cancelled one, another event, a number taken here since the
check-out (409, named). Sent twice, it lands once: the second answer is the first
(``Checkout.return_digest``, ``return_answer``). The photos' files are written once the
rows are committed: a return killed before its commit leaves neither rows nor files, and
the same file sent again writes those a crash after the commit lost.

The day's rows are added, never replacing anything: each gets an id of this server (a block
of ids reserved in each table's sequence, the laptop's id added to its start), and every
reference follows (the event, drivers by number, entries by driver, people by username,
the day's own rows by their new ids). History rows come as the laptop wrote them. Then the
event is home: standings read the new results, ratings are recomputed
(``recompute_ratings_soon``), public pages follow the event's release settings.
"""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections import defaultdict
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.serializers.base import DeserializationError
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from races.photos import storage
from tournament import sealing
from tournament.access import Actor
from tournament.away import bundle
from tournament.away.checkout import checkout_key
from tournament.away.models import Checkout
from tournament.away.trip.export import LABELS
from tournament.errors import Conflict, InvalidInput, ServiceError
from tournament.models import Driver, Entry, Event, Player, Team
from tournament.players.identity import active, may_claim, player_for
from tournament.ratings.soon import recompute_ratings_soon
from tournament.signup.models import Registration
from tournament.venue.backup_checks import MAX_PROBLEMS, row_problems

#: Fields of the event the laptop may have changed (its settings and releases).
EVENT_KEEPS = ("id", "slug", "championship", "circuit")
_LABEL = {label.lower(): label for label in LABELS}
#: Tables a referee link opens: (model label, kind of ReplacedLink).
LINKED = (("qualifying.QualifyingTable", "qualifying"), ("races.RaceTable", "race"))


def _refused(kind: type[ServiceError], why: str, what: str = "bundle") -> ServiceError:
    return kind(why, {what: [why]})


def _base_label(label: str) -> str:
    return label.replace(".Historical", ".")


def _parse(text: str | bytes) -> dict[str, Any]:
    try:
        return bundle.parse(text, bundle.BACK)
    except bundle.BundleError as exc:
        why = _("This is not an event's way back from a laptop (%(why)s).") % {"why": exc}
        raise _refused(InvalidInput, why) from exc


def _checkout_of(data: dict[str, Any], event: Event | None) -> Checkout:
    checkout = (
        Checkout.objects.select_related("event")
        .filter(uid=_uuid(data["checkout"]["id"]), side=Checkout.Side.HOSTED)
        .first()
    )
    if checkout is None:
        raise _refused(Conflict, _("This file is of a check-out this server did not make."))
    if event is not None and checkout.event_id != event.pk:
        raise _refused(Conflict, _("This file is another event's: %(slug)s.") % {
            "slug": checkout.event.slug
        })  # fmt: skip
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
    checkout = _checkout_of(data, event)
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
                _store_files(_files(data))
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
        recompute_ratings_soon(checkout.event.game)
    return answer


def _land(data: dict[str, Any], checkout: Checkout, actor: Actor | None) -> dict[str, Any]:
    files = _files(data)  # checked before any row: a damaged one refuses the whole day
    event = Event.objects.select_related("championship").get(pk=checkout.event_id)
    championship = event.championship
    door = data.get("drivers") or []
    taken = Driver.objects.filter(
        championship=championship, number__in=[d["number"] for d in door]
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
    teams = {t.name: t for t in Team.objects.filter(championship=championship)}
    for row in door:
        team = None
        if row.get("team"):
            team = teams.get(row["team"]) or Team.objects.create(
                championship=championship, name=row["team"]
            )
            teams[team.name] = team
        player = row.get("player") or {}
        driver = Driver(
            championship=championship,
            number=row["number"],
            first_name=row["first_name"],
            last_name=row["last_name"],
            team=team,
            email=row.get("email") or "",
        )
        driver.player = _known_player(player.get("id"), championship, actor) or player_for(
            championship=championship,
            first_name=player.get("first_name") or driver.first_name,
            last_name=player.get("last_name") or driver.last_name,
            email=player.get("email") or "",
            licence=player.get("licence"),
            actor=actor,
        )
        driver.full_clean(exclude=["player"])
        driver.save()
    by_number = dict(Driver.objects.filter(championship=championship).values_list("number", "pk"))
    drivers: dict[int, int] = {}
    for laptop_pk, number in (data.get("numbers") or {}).items():
        if number in by_number:
            drivers[int(laptop_pk)] = by_number[number]
    # The event's settings and releases as the day left them.
    fields = {
        key: value
        for key, value in data["event"].items()
        if key not in EVENT_KEEPS and key in {f.name for f in Event._meta.concrete_fields}
    }
    Event.objects.filter(pk=event.pk).update(**fields)
    entries = _entries(data, event, by_number, drivers)
    _registrations(data.get("registrations") or [], event, by_number)
    objects = _remapped(data, event, drivers, entries)
    counts: dict[str, int] = defaultdict(int)
    problems: list[str] = []
    rows: dict[str, list[Any]] = defaultdict(list)
    try:
        with transaction.atomic():
            for item in serializers.deserialize("python", objects, ignorenonexistent=False):
                # The file is trusted no more than a form: the models' own validators.
                problems += row_problems(item.object)
                rows[item.object._meta.label].append(item.object)
            if not problems:
                # Whole tables at once, as the laptop wrote them: no signal, no new history
                # row (the laptop's come with them), the change counters' triggers fire.
                for label in LABELS:
                    if rows[label]:
                        apps.get_model(label).objects.bulk_create(rows[label], batch_size=500)
                        counts[label] = len(rows[label])
            if problems:
                raise InvalidInput(
                    _("Rows of the day were refused, nothing landed."),
                    {"objects": problems[:MAX_PROBLEMS]},
                )
    except (DeserializationError, IntegrityError, DatabaseError, ValueError, TypeError) as exc:
        raise _refused(
            InvalidInput,
            _("The day's rows could not be added, nothing landed: %(error)s")
            % {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__},
        ) from exc
    # Written once the rows are committed: a return that dies before its commit (a server
    # killed, restarted) leaves no file behind, and one that dies after it writes them when
    # it is sent again (``land``). Photos are named by their bytes: never a wrong file.
    transaction.on_commit(lambda: _store_files(files))
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
    data: dict[str, Any], event: Event, by_number: dict[int, int], drivers: dict[int, int]
) -> dict[int, int]:
    """The entries as the day left them: those the laptop holds, changed or added, and those
    it deleted (a driver withdrawn at the door) deleted here too. Their history comes with
    the day's rows, so no row of its own is written here. Answers laptop entry id → entry
    id here, a deleted entry's included (the laptop's history names it)."""
    listed = data.get("entries")
    if listed is None:
        raise _refused(InvalidInput, _("The file does not list the event's entries."))
    here = {entry.driver_id: entry for entry in Entry.objects.filter(event=event)}
    flags = ("checked_in", "absent", "fast", "paid")
    changed, made, laptop_ids = [], [], {}
    for row in listed:
        driver = by_number.get(row["driver"])
        if driver is None:
            raise _refused(InvalidInput, _("An entry names an unknown driver: %(n)s.") % {
                "n": row["driver"]
            })  # fmt: skip
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
        if fields.get("id") not in ids and driver in gone:
            ids[int(fields["id"])] = gone[driver]
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
    """Who came to the door, and which driver each registration became (their change in
    this server's history, by the return)."""
    here = {r.pk: r for r in Registration.objects.filter(event=event)}
    statuses = set(Registration.Status.values)
    for row in listed:
        registration = here.get(row.get("id"))
        if registration is None:
            continue  # erased here meanwhile: nothing to say of it
        status = row.get("status") if row.get("status") in statuses else registration.status
        present, driver = bool(row.get("present")), by_number.get(row.get("driver"))
        if (status, present, driver) == (
            registration.status, registration.present, registration.driver_id,
        ):  # fmt: skip
            continue
        registration.status, registration.present, registration.driver_id = (
            status, present, driver,
        )  # fmt: skip
        registration._history_actor = _("return from the venue")  # type: ignore[attr-defined]
        registration.save(update_fields=["status", "present", "driver"])


def _spans(objects: list[dict[str, Any]]) -> dict[str, int]:
    """Per table (model label): one more than the highest laptop id it must hold."""
    spans: dict[str, int] = defaultdict(int)
    for row in objects:
        label = _LABEL[row["model"]]
        spans[label] = max(spans[label], int(row["pk"]) + 1)
        if label != _base_label(label):
            base = _base_label(label)
            spans[base] = max(spans[base], int(row["fields"].get("id") or 0) + 1)
    return spans


def _reserve(label: str, span: int) -> int:
    """Reserve ``span`` ids in ``label``'s table; answers the base to add to a laptop id."""
    model = apps.get_model(label)
    table, pk = model._meta.db_table, model._meta.pk.column
    history = getattr(model, "history", None)
    history_table = history.model._meta.db_table if history is not None else None
    # Names come from the models, not from the file.
    ghost = f"(SELECT COALESCE(MAX(id), 0) FROM {history_table})" if history_table else "0"
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST(nextval("
                f"pg_get_serial_sequence(%s, %s)), (SELECT COALESCE(MAX({pk}), 0) FROM {table}),"
                f" {ghost}) + %s)",
                [table, pk, table, pk, span],
            )
            return int(cursor.fetchone()[0]) - span
        cursor.execute(
            "INSERT INTO sqlite_sequence (name, seq) SELECT %s, 0 WHERE NOT EXISTS "
            "(SELECT 1 FROM sqlite_sequence WHERE name = %s)",
            [table, table],
        )
        cursor.execute(
            f"SELECT MAX(seq, (SELECT COALESCE(MAX({pk}), 0) FROM {table}), {ghost}) "
            "FROM sqlite_sequence WHERE name = %s",
            [table],
        )
        base = int(cursor.fetchone()[0])
        cursor.execute("UPDATE sqlite_sequence SET seq = %s WHERE name = %s", [base + span, table])
        return base


def _remapped(
    data: dict[str, Any], event: Event, drivers: dict[int, int], entries: dict[int, int]
) -> list[dict[str, Any]]:
    objects = data.get("objects")
    if not isinstance(objects, list) or not all(
        isinstance(r, dict) and isinstance(r.get("fields"), dict) and isinstance(r.get("pk"), int)
        for r in objects
    ):
        raise _refused(InvalidInput, _("The day's rows are damaged."))
    unknown = sorted({str(r.get("model")) for r in objects} - set(_LABEL))
    if unknown:
        raise _refused(InvalidInput, _("Rows of an unknown kind: %(kinds)s.") % {
            "kinds": ", ".join(unknown)
        })  # fmt: skip
    bases = {label: _reserve(label, span) for label, span in sorted(_spans(objects).items())}
    users = dict(get_user_model().objects.values_list(get_user_model().USERNAME_FIELD, "pk"))
    laptop_event = data["event"].get("id")
    problems: list[str] = []

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
            return entries.get(old)
        if label == get_user_model()._meta.label:
            name = old[0] if isinstance(old, list) and old else old
            return users.get(name)
        if label in bases:
            return int(old) + bases[label]
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
                fields["id"] = entries.get(old) if base == "tournament.Entry" else moved(base, old)
        if label == "races.ReplacedLink":
            kind = {"race": "races.RaceTable", "qualifying": "qualifying.QualifyingTable"}
            fields["table_id"] = moved(kind.get(fields.get("kind"), ""), fields.get("table_id"))
        if label == "tournament.HistoricalEntry" and fields.get("id") is None:
            continue  # the history of an entry made and deleted on the laptop: none here
        out.append({"model": label, "pk": int(row["pk"]) + bases[label], "fields": fields})
    if problems:
        raise _refused(
            InvalidInput,
            _("The day's rows name what is not this event's: %(what)s.")
            % {"what": ", ".join(sorted(set(problems))[:10])},
        )
    return out


def _files(data: dict[str, Any]) -> dict[str, bytes]:
    """The photos' files of the way back, each checked to be named by the SHA-256 of its
    bytes (a changed one is refused): name → bytes."""
    files = data.get("files") or {}
    if not isinstance(files, dict):
        raise _refused(InvalidInput, _("The photos' files are damaged."))
    checked = {}
    for name, encoded in files.items():
        try:
            content = base64.b64decode(str(encoded), validate=True)
        except ValueError as exc:
            raise _refused(InvalidInput, _("A photo's file is damaged: %(name)s.") % {
                "name": name
            }) from exc  # fmt: skip
        stem, dot, suffix = str(name).partition(".")
        if hashlib.sha256(content).hexdigest() != stem or not dot or "/" in suffix:
            raise _refused(InvalidInput, _("A photo's file is not the one named: %(name)s.") % {
                "name": name
            })  # fmt: skip
        checked[str(name)] = content
    return checked


def _store_files(files: dict[str, bytes]) -> None:
    """Write the photos' files (``storage.store``: one already there is kept)."""
    for name, content in files.items():
        storage.store(content, suffix="." + name.partition(".")[2])


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

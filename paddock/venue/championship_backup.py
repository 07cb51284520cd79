"""A whole championship as one JSON file, and back (``export_championship``,
``import_championship``).

The file holds every row that belongs to the championship: its teams, drivers, events and
the circuits they use, entries, qualifying sessions, tables, seats, runs and draws, race
tables, grids, configurations, weather, swaps, replaced links, results, result lines, rally
stages and times, and the history rows of all of these (who, when, before/after). Rows
keep their ids, so that history rows still point at their objects (including deleted
ones); people are named by username, since accounts are not part of a championship: a
username missing from the target database becomes an account without a password (the
organiser sets one with ``changepassword``).

No secret is in the file in clear. Referee links are there as the tables hold them: a
digest and a copy sealed with the exporting server's key (``tournament.sealing``); on import
a link this server's key opens works as before (its printed QR codes too), and one it cannot
open is renewed, the old one then saying it was replaced (print those sheets again). The
printed sheets of a batch (every link of an event) are not exported: build them again. API
tokens belong to people, not to a championship. The photos of the signed sheets are not in
the file (``"photos": "not included"`` says so): they are images, not rows, and stay with the
venue's backups (``paddock.venue.database_backup``). E-mail addresses (drivers', organisers')
are kept: they are the organisers' contact data.

Players (one person across championships) are not a championship's rows: the file lists
its drivers' players (``"players"``: name, licence number, e-mail) and, on import, each
driver gets the player of this server holding that licence number, else a new player
(``tournament.players.identity``); matches by name or e-mail are then proposed to race
control like any new driver's, never made by the import.

Django's own serializer turns rows into data and back; this module chooses the rows,
orders them, checks a file before touching the database and loads it in one transaction.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from django.apps import apps
from django.contrib.auth import get_user_model
from django.core import serializers
from django.core.management.color import no_style
from django.core.serializers.base import DeserializationError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import DatabaseError, IntegrityError, connection, models, transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from paddock.venue.rows import MAX_PROBLEMS, row_problems, unknown_fields
from tournament import sealing
from tournament.clubs import carried
from tournament.errors import ServiceError
from tournament.players.identity import checked_licence, new_player, player_for
from tournament.players.names import name_key

FORMAT = "paddock.championship"
VERSION = 1


class BackupError(Exception):
    """A file that cannot be imported, with a sentence saying why."""


class _Encoder(DjangoJSONEncoder):
    # DjangoJSONEncoder rounds times to milliseconds; a backup keeps them whole.
    def default(self, o: object) -> Any:
        if isinstance(o, datetime.datetime | datetime.time):
            return o.isoformat()
        return super().default(o)


def _rows(championship: Any) -> list[tuple[str, models.QuerySet]]:
    """(model label, rows) of a championship, parents before children (``LABELS``)."""

    def rows(label: str, *where: Q, **fields: Any) -> tuple[str, models.QuerySet]:
        return label, apps.get_model(label)._default_manager.filter(*where, **fields)

    event_ids = list(
        apps.get_model("tournament.Event")
        .objects.filter(championship=championship)
        .values_list("pk", flat=True)
    )
    events = Q(event__in=event_ids)
    driver_ids = list(
        apps.get_model("tournament.Driver")
        .objects.filter(championship=championship)
        .values_list("pk", flat=True)
    )
    drivers = Q(driver__in=driver_ids)
    # Deleted tables and grid places still have history (and their children's history).
    race_tables = set(rows("races.RaceTable", events)[1].values_list("pk", flat=True))
    race_tables |= set(rows("races.HistoricalRaceTable", events)[1].values_list("id", flat=True))
    slots = set(rows("races.GridSlot", drivers)[1].values_list("pk", flat=True))
    slots |= set(rows("races.HistoricalGridSlot", drivers)[1].values_list("id", flat=True))
    qualifying_tables = set(
        rows("qualifying.QualifyingTable", events)[1].values_list("pk", flat=True)
    )
    qualifying_tables |= set(
        rows("qualifying.HistoricalQualifyingTable", events)[1].values_list("id", flat=True)
    )
    replaced = Q(kind="race", table_id__in=race_tables) | Q(
        kind="qualifying", table_id__in=list(qualifying_tables)
    )
    circuits = rows("tournament.Event", championship=championship)[1].values("circuit")
    return [
        rows("tournament.Circuit", pk__in=circuits),
        rows("tournament.Championship", pk=championship.pk),
        rows("tournament.HistoricalChampionship", id=championship.pk),
        rows("tournament.Team", championship=championship),
        rows("tournament.Driver", pk__in=driver_ids),
        rows("tournament.Event", pk__in=event_ids),
        rows("tournament.Entry", events),
        rows("tournament.HistoricalEntry", events),
        rows("qualifying.QualifyingSession", events),
        rows("qualifying.HistoricalQualifyingSession", events),
        rows("qualifying.QualifyingTable", events),
        rows("qualifying.HistoricalQualifyingTable", events),
        rows("qualifying.QualifyingSeat", events),
        rows("qualifying.HistoricalQualifyingSeat", events),
        rows("qualifying.Run", drivers),
        rows("qualifying.HistoricalRun", drivers),
        rows("qualifying.DrawRoll", drivers),
        rows("qualifying.HistoricalDrawRoll", drivers),
        rows("races.RaceTable", events),
        rows("races.HistoricalRaceTable", events),
        rows("races.GridSlot", drivers),
        rows("races.HistoricalGridSlot", drivers),
        rows("races.CarConfiguration", slot__in=slots),
        rows("races.HistoricalCarConfiguration", slot__in=slots),
        rows("races.RaceWeather", events),
        rows("races.HistoricalRaceWeather", events),
        rows("races.RaceWeatherDraw", events),
        rows("races.HistoricalRaceWeatherDraw", events),
        rows("races.WeatherDraw", table__in=race_tables),
        rows("races.HistoricalWeatherDraw", table__in=race_tables),
        rows("races.AllocationRecord", events),
        rows("races.ManualSwap", events),
        rows("races.ReplacedLink", replaced),
        rows("races.RaceResult", table__in=race_tables),
        rows("races.HistoricalRaceResult", table__in=race_tables),
        rows("races.ResultLine", events),
        rows("races.Stage", events),
        rows("races.HistoricalStage", events),
        rows("races.StageTime", drivers),
        rows("races.HistoricalStageTime", drivers),
        rows("tournament.Sanction", events),
        rows("tournament.HistoricalSanction", events),
    ]


#: Models of the apps a backup leaves out: API tokens belong to people, not to a
#: championship; a batch of printed sheets shows every link of its event in clear, and is
#: built again from the desk in seconds; the photos of the signed sheets are files, kept by
#: the venue's backups (the export says ``"photos": "not included"``).
NOT_EXPORTED = {
    "tournament.ApiToken",
    # Players span championships: the file lists its drivers' players apart ("players"),
    # and an import finds or makes them here; ratings are computed again from results.
    "tournament.Player",
    "tournament.PlayerChange",
    "tournament.NotSamePlayer",
    "tournament.PlayerRating",
    "tournament.RatingPoint",
    "races.SheetBatch",
    "races.SheetPhoto",
    "races.HistoricalSheetPhoto",
    # Before the day: the sign-up of an event, its mails and messages; an event taken to a
    # laptop and back travels by its own bundle (tournament/away/), never by this file.
    "tournament.Announcement",
    "tournament.HistoricalAnnouncement",
    "tournament.Registration",
    "tournament.HistoricalRegistration",
    "tournament.Mail",
    "tournament.Message",
    # This server's own: its check-outs and the answers of writes sent twice.
    "tournament.Checkout",
    "tournament.ArrivedRegistration",
    "tournament.ArrivedPlayer",
    "tournament.IdempotencyKey",
    # The clubs belong to this server, not to a championship: their people and invitations
    # (secrets' digests, addresses) stay here; the whole-database backup holds them.
    "tournament.Club",
    "tournament.HistoricalClub",
    "tournament.Membership",
    "tournament.HistoricalMembership",
    "tournament.Invitation",
    "tournament.AccountRequest",  # a stranger's account asked for: this server's own
    # Who named a guest organiser (the seat itself travels with the championship's row).
    "tournament.GuestSeat",
    # A league is a club's, across championships: kept here with its rounds, as the clubs.
    *(f"leagues.{model}" for model in ("League", "HistoricalLeague", "Round", "HistoricalRound")),
}


#: The models a backup holds, in loading order.
LABELS = [
    "tournament.Circuit",
    "tournament.Championship",
    "tournament.HistoricalChampionship",
    "tournament.Team",
    "tournament.Driver",
    "tournament.Event",
    "tournament.Entry",
    "tournament.HistoricalEntry",
    "qualifying.QualifyingSession",
    "qualifying.HistoricalQualifyingSession",
    "qualifying.QualifyingTable",
    "qualifying.HistoricalQualifyingTable",
    "qualifying.QualifyingSeat",
    "qualifying.HistoricalQualifyingSeat",
    "qualifying.Run",
    "qualifying.HistoricalRun",
    "qualifying.DrawRoll",
    "qualifying.HistoricalDrawRoll",
    "races.RaceTable",
    "races.HistoricalRaceTable",
    "races.GridSlot",
    "races.HistoricalGridSlot",
    "races.CarConfiguration",
    "races.HistoricalCarConfiguration",
    "races.RaceWeather",
    "races.HistoricalRaceWeather",
    "races.RaceWeatherDraw",
    "races.HistoricalRaceWeatherDraw",
    "races.WeatherDraw",
    "races.HistoricalWeatherDraw",
    "races.AllocationRecord",
    "races.ManualSwap",
    "races.ReplacedLink",
    "races.RaceResult",
    "races.HistoricalRaceResult",
    "races.ResultLine",
    "races.Stage",
    "races.HistoricalStage",
    "races.StageTime",
    "races.HistoricalStageTime",
    "tournament.Sanction",
    "tournament.HistoricalSanction",
]


def exported_labels() -> list[str]:
    """The model labels a backup holds, in loading order."""
    return list(LABELS)


def _user_ids(label: str, rows: models.QuerySet) -> set[int]:
    user_model = get_user_model()
    ids: set[int] = set()
    model = apps.get_model(label)
    for field in model._meta.fields:
        if field.is_relation and field.related_model is user_model:
            ids |= set(rows.exclude(**{field.attname: None}).values_list(field.attname, flat=True))
    for field in model._meta.many_to_many:
        if field.related_model is user_model:
            ids |= set(rows.exclude(**{field.name: None}).values_list(field.name, flat=True))
    return ids


def export_championship(slug: str) -> dict[str, Any]:
    """Everything of championship ``slug`` as plain data (see the module docstring)."""
    championship = apps.get_model("tournament.Championship").objects.filter(slug=slug).first()
    if championship is None:
        raise BackupError(_("No championship “%(slug)s” here.") % {"slug": slug})
    objects: list[dict[str, Any]] = []
    user_ids: set[int] = set()
    chosen = _rows(championship)
    assert [label for label, _ in chosen] == LABELS, "backup: _rows and LABELS disagree"
    for label, rows in chosen:
        rows = rows.order_by("pk")
        user_ids |= _user_ids(label, rows)
        objects.extend(
            serializers.serialize("python", rows, use_natural_foreign_keys=True)  # type: ignore[arg-type]
        )
    users = [
        {
            "username": user.get_username(),
            "first_name": getattr(user, "first_name", ""),
            "last_name": getattr(user, "last_name", ""),
            "email": getattr(user, "email", ""),
        }
        for user in get_user_model().objects.filter(pk__in=user_ids).order_by("username")
    ]
    players = (
        apps.get_model("tournament.Player")
        .objects.filter(drivers__championship=championship)
        .order_by("pk")
        .distinct()
    )
    return {
        "format": FORMAT,
        "version": VERSION,
        "championship": slug,
        "players": [
            {
                "id": player.pk,
                "first_name": player.first_name,
                "last_name": player.last_name,
                "licence": player.licence,
                "email": player.email,
            }
            for player in players
        ],
        # The photos of the signed sheets stay with the venue's backups (module docstring).
        "photos": "not included",
        "clubs": carried.listed_in(objects),  # by slug; their people stay here
        "users": users,
        "objects": objects,
    }


def dumps(data: dict[str, Any]) -> str:
    """The export as JSON text, stable from one export to the next."""
    return json.dumps(data, cls=_Encoder, ensure_ascii=False, indent=1, sort_keys=True)


def _check(data: Any) -> tuple[str, list[dict[str, Any]], list[dict[str, Any]]]:
    """The slug, users and rows of a file, or BackupError saying what is wrong with it."""
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise BackupError(_("This is not a Paddock championship export."))
    if data.get("version") != VERSION:
        raise BackupError(
            _("This export has version %(found)s; this Paddock reads version %(version)s.")
            % {"found": data.get("version"), "version": VERSION}
        )
    slug, users, objects = data.get("championship"), data.get("users"), data.get("objects")
    if not isinstance(slug, str) or not isinstance(users, list) or not isinstance(objects, list):
        raise BackupError(_("The export is incomplete: championship, users or objects missing."))
    known = set(exported_labels())
    for number, row in enumerate(objects, start=1):
        if not isinstance(row, dict) or not isinstance(row.get("fields"), dict):
            raise BackupError(_("Object %(number)s of the export is damaged.") % {"number": number})
        if str(row.get("model", "")).lower() not in {label.lower() for label in known}:
            raise BackupError(
                _("Object %(number)s is of an unknown kind (%(model)s).")
                % {"number": number, "model": row.get("model")}
            )
    for user in users:
        if not isinstance(user, dict) or not isinstance(user.get("username"), str):
            raise BackupError(_("A person of the export has no username."))
    players = data.get("players", [])
    if not isinstance(players, list) or not all(
        isinstance(p, dict) and all(isinstance(p.get(k) or "", str) for k in _PLAYER_TEXTS)
        for p in players
    ):
        raise BackupError(_("The export's players are damaged."))
    return slug, users, objects


#: A player's words in an export (``export_championship``'s ``"players"``).
_PLAYER_TEXTS = ("first_name", "last_name", "licence", "email")


def _take_players(objects: list[dict[str, Any]]) -> dict[Any, Any]:
    """Driver id → the file's player id; the drivers' rows then load without one."""
    taken = {}
    for row in objects:
        if row["model"] == "tournament.driver":
            taken[row.get("pk")] = row["fields"].pop("player", None)
    return taken


def _give_players(slug: str, taken: dict[Any, Any], listed: list[dict[str, Any]]) -> None:
    """Each imported driver's player: the one here holding the file player's licence
    number, else a new one (one per player of the file)."""
    driver_model = apps.get_model("tournament.Driver")
    championship = apps.get_model("tournament.Championship").objects.get(slug=slug)
    in_file = {p.get("id"): p for p in listed}
    made: dict[Any, Any] = {}
    for driver in driver_model.objects.filter(championship=championship).order_by("pk"):
        key = taken.get(driver.pk)
        known = in_file.get(key) if key is not None else None
        if key is not None and key in made:
            player = made[key]
        elif known is not None:
            first_name = str(known.get("first_name") or driver.first_name)[:100]
            last_name = str(known.get("last_name") or driver.last_name)[:100]
            email = str(known.get("email") or "")[:254]
            licence = checked_licence(known.get("licence"))
            player_model = apps.get_model("tournament.Player")
            free = isinstance(key, int) and not player_model.objects.filter(pk=key).exists()
            held = licence is not None and player_model.objects.filter(licence=licence).exists()
            if free and not held:
                # Restored where its id is free (an empty database): the same player as
                # exported, id included, so that an export of the import is the same file.
                player = player_model.objects.create(
                    pk=key, first_name=first_name, last_name=last_name, email=email,
                    licence=licence, name_key=name_key(first_name, last_name),
                )  # fmt: skip
            else:
                player = player_for(
                    championship=championship, first_name=first_name, last_name=last_name,
                    email=email, licence=licence,
                )  # fmt: skip
        else:
            player = new_player(driver.first_name, driver.last_name, driver.email)
        if key is not None:
            made[key] = player
        driver_model.objects.filter(pk=driver.pk).update(player=player)


def _refuse_taken(slug: str, objects: list[dict[str, Any]]) -> None:
    """Refuse before writing anything when the file would overwrite what is here."""
    m = apps.get_model
    if m("tournament.Championship").objects.filter(slug=slug).exists():
        raise BackupError(
            _("A championship “%(slug)s” already exists here: nothing imported.") % {"slug": slug}
        )
    event_slugs = [
        row["fields"].get("slug") for row in objects if row["model"] == "tournament.event"
    ]
    taken = sorted(
        m("tournament.Event").objects.filter(slug__in=event_slugs).values_list("slug", flat=True)
    )
    if taken:
        raise BackupError(
            _("Events with these slugs already exist here: %(slugs)s. Nothing imported.")
            % {"slugs": ", ".join(taken)}
        )
    by_model: dict[str, list[Any]] = {}
    for row in objects:
        if row["model"] != "tournament.circuit":
            by_model.setdefault(row["model"], []).append(row.get("pk"))
    for label, pks in by_model.items():
        model = apps.get_model(label)
        if model._default_manager.filter(pk__in=pks).exists():
            raise BackupError(
                _(
                    "This database already holds %(what)s with the ids of the export: import "
                    "into an empty database (after “migrate”). Nothing imported."
                )
                % {"what": model._meta.verbose_name_plural}
            )


def _circuits(objects: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Circuits already here (same slug) are reused: events then point at them."""
    circuit_model = apps.get_model("tournament.Circuit")
    moved: dict[Any, int] = {}
    kept = []
    for row in objects:
        if row["model"] == "tournament.circuit":
            here = circuit_model.objects.filter(slug=row["fields"].get("slug")).first()
            if here is not None:
                moved[row["pk"]] = here.pk
                continue
            if circuit_model.objects.filter(pk=row["pk"]).exists():
                # Another circuit holds that id: take a new one.
                fields = {k: v for k, v in row["fields"].items()}
                moved[row["pk"]] = circuit_model.objects.create(**fields).pk
                continue
        kept.append(row)
    for row in kept:
        if row["model"] == "tournament.event" and row["fields"].get("circuit") in moved:
            row["fields"]["circuit"] = moved[row["fields"]["circuit"]]
    return kept


def _ensure_users(users: Iterable[dict[str, Any]]) -> None:
    user_model = get_user_model()
    for person in users:
        user, created = user_model._default_manager.get_or_create(
            **{user_model.USERNAME_FIELD: person["username"]},
            defaults={
                key: str(person.get(key) or "")
                for key in ("first_name", "last_name", "email")
                if hasattr(user_model, key)
            },
        )
        if created:
            user.set_unusable_password()
            user.save()


def _reset_sequences(labels: list[str]) -> None:
    """Ids come from the file: move each id sequence past them, and past the ids of
    deleted objects still named by their history, so that no new row reuses one."""
    imported = [apps.get_model(label) for label in labels]
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), imported):
            cursor.execute(sql)
        for model in imported:
            history = getattr(model, "history", None)
            if history is None:
                continue
            table, history_table = model._meta.db_table, history.model._meta.db_table
            pk = model._meta.pk.column
            # Table names come from the models, not from the file.
            if connection.vendor == "postgresql":
                cursor.execute(
                    f"SELECT setval(pg_get_serial_sequence(%s, %s), GREATEST("
                    f"(SELECT COALESCE(MAX({pk}), 1) FROM {table}),"
                    f"(SELECT COALESCE(MAX(id), 1) FROM {history_table})))",
                    [table, pk],
                )
            elif connection.vendor == "sqlite":
                cursor.execute(
                    "INSERT INTO sqlite_sequence (name, seq) SELECT %s, 0 WHERE NOT EXISTS "
                    "(SELECT 1 FROM sqlite_sequence WHERE name = %s)",
                    [table, table],
                )
                cursor.execute(
                    f"UPDATE sqlite_sequence SET seq = MAX(seq, "
                    f"(SELECT COALESCE(MAX(id), 0) FROM {history_table})) WHERE name = %s",
                    [table],
                )


@dataclass(frozen=True)
class Imported:
    """What an import did: the championship, and how many referee links it renewed."""

    slug: str
    links_renewed: int = 0


#: The tables opened by a referee link: (model label, kind of ReplacedLink).
LINKED = (("qualifying.QualifyingTable", "qualifying"), ("races.RaceTable", "race"))


def _renew_unreadable_links(slug: str) -> int:
    """Tables whose sealed link this server's key cannot open (another server's export):
    each gets a new link, and the old one says it was replaced. Answers how many."""
    replaced_link = apps.get_model("races.ReplacedLink")
    who = _("import of a backup")
    renewed = 0
    for label, kind in LINKED:
        tables = apps.get_model(label).objects.filter(event__championship__slug=slug)
        for table in tables.order_by("pk"):
            if sealing.unseal(table.token_sealed) is not None:
                continue
            replaced_link.objects.create(
                digest=table.token_digest, kind=kind, table_id=table.pk, actor=who
            )
            table.token = sealing.new_link_secret()
            table._history_actor = who
            table.save(update_fields=["token_digest", "token_sealed"])
            renewed += 1
    return renewed


def _refused(problems: list[str]) -> BackupError:
    return BackupError(
        _("The export was refused, nothing was imported:")
        + "".join(f"\n- {problem}" for problem in problems[:MAX_PROBLEMS])
        + (
            "\n- " + _("and %(count)s more.") % {"count": len(problems) - MAX_PROBLEMS}
            if len(problems) > MAX_PROBLEMS
            else ""
        )
    )


def import_championship(data: Any) -> Imported:
    """Load an export into this database, all or nothing (``Imported`` says what it did)."""
    slug, users, objects = _check(data)
    # The serializer's labels are lower case; the file may be hand-edited.
    for row in objects:
        row["model"] = str(row["model"]).lower()
    if unknown := unknown_fields(objects):
        raise _refused(unknown)
    try:
        with transaction.atomic():
            _refuse_taken(slug, objects)
            _ensure_users(users)
            carried.rows_here(objects, data.get("clubs"))
            objects = _circuits(objects)
            players = _take_players(objects)
            labels: list[str] = []
            problems: list[str] = []
            for item in serializers.deserialize("python", objects, ignorenonexistent=False):
                problems += row_problems(item.object)
                if problems:
                    continue  # nothing saved from here: the whole file is refused below
                item.save()
                label = item.object._meta.label
                if label not in labels:
                    labels.append(label)
            if problems:
                raise _refused(problems)
            _give_players(slug, players, data.get("players", []))
            _reset_sequences([*labels, "tournament.Player"])
            renewed = _renew_unreadable_links(slug)
    except BackupError:
        raise
    except ServiceError as exc:  # e.g. two drivers of the file with one licence number
        raise BackupError(
            _("The export could not be loaded, nothing was imported: %(error)s")
            % {"error": exc.message}
        ) from exc
    except (DeserializationError, IntegrityError, DatabaseError, ValueError, TypeError) as exc:
        raise BackupError(
            _("The export could not be loaded, nothing was imported: %(error)s")
            % {"error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}
        ) from exc
    except get_user_model().DoesNotExist as exc:
        raise BackupError(_("The export names a person it does not list.")) from exc
    return Imported(slug=slug, links_renewed=renewed)

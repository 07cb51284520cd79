"""Backups of the whole database, and their restore (``manage.py backup``, ``restore``;
``make venue`` takes one every few minutes).

Everything is in it: accounts, every championship, the history of every change. SQLite is
copied with its online backup (a consistent copy while the referees keep writing),
PostgreSQL with ``pg_dump`` in its custom format. Files are named by the time they were
taken, ``paddock-20260614-093000.sqlite3`` (or ``.pgdump``), and rotated: the last
``keep`` stay, and before them the last of each hour.

The photos of the signed sheets (``races.photos``) are files under the media root, named by
their content: each backup copies the new ones into ``photos/`` beside the backup files
(each file once, whatever the number of backups; the rotation never deletes one, since an
older backup may still name it), and a restore copies them back into the media root of the
restored server, another folder included.

The championship export (``paddock.venue.championship_backup``: one championship as
JSON) is another thing: a file to move a championship to another site, not a copy of the day.

Backups leave the sessions out (a session key read from a backup would open the desk), and
their folder and files are this account's only (0700, 0600).
"""

from __future__ import annotations

import contextlib
import datetime
import os
import re
import shlex
import shutil
import sqlite3
import stat
import subprocess
import tempfile
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connections
from django.utils import timezone
from django.utils.translation import gettext as _

from paddock.venue import backup_checks, pg_schema, rows
from paddock.venue.progress import Say, Steps
from qualifying.models import QualifyingTable, Run
from races.models import RaceTable
from tournament import sealing
from tournament.models import Championship, Driver, Entry, Event
from tournament.public import freshness
from tournament.site import backup_state

NAME = re.compile(r"^paddock-(\d{8})-(\d{2})(\d{4})(?:-\d+)?\.(sqlite3|pgdump)$")


class BackupProblem(Exception):
    """A backup or a restore that cannot be done, with a sentence saying why."""


#: The photos' folder, under the media root and beside the backup files alike.
PHOTOS = "photos"


@dataclass(frozen=True)
class Taken:
    path: Path
    size: int
    removed: list[Path]
    #: Photos of the sheets copied by this backup (the new ones since the last).
    photos: int = 0


def copy_photos(source: Path, target: Path) -> int:
    """Copy the photo files of ``source`` missing from ``target`` (names are their content's
    digest: a file of the same name is the same file). Answers how many were copied.

    Regular files only, each opened without following a link: a backup's folder comes from
    elsewhere (a USB stick, a shared folder), and a link planted in it to the venue's
    ``secret_key`` came back as a sheet's photo through a referee link (issue 32). A folder
    that is itself a link, or a file whose real path is not in it, is left out too."""
    if source.is_symlink() or not source.is_dir():
        return 0
    root = source.resolve()
    private_folder(target)
    copied = 0
    with os.scandir(source) as entries:
        for entry in entries:
            if (
                entry.name.startswith(".")
                or not entry.is_file(follow_symlinks=False)
                or not Path(entry.path).resolve().is_relative_to(root)
                or (target / entry.name).exists()
            ):
                continue
            copied += _copy_regular(Path(entry.path), target / entry.name)
    return copied


def _copy_regular(path: Path, destination: Path) -> int:
    """``path`` copied to ``destination`` if it is a regular file when opened (never through
    a link, whatever replaced it since it was listed): 1 if copied, else 0."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return 0
    with os.fdopen(fd, "rb") as read:
        if not stat.S_ISREG(os.fstat(read.fileno()).st_mode):
            return 0
        partial = destination.with_name(f".partial-{destination.name}")
        with partial.open("wb") as written:
            shutil.copyfileobj(read, written)
    os.replace(partial, destination)
    return 1


def restore_photos(backups: Path) -> int:
    """The photos kept beside the backups in ``backups`` back into this server's media root."""
    return copy_photos(backups / PHOTOS, Path(settings.MEDIA_ROOT) / PHOTOS)


def _settings(alias: str = "default") -> dict[str, Any]:
    return connections[alias].settings_dict


def _is_sqlite(alias: str = "default") -> bool:
    return connections[alias].vendor == "sqlite"


def _stamp() -> str:
    return timezone.localtime().strftime("%Y%m%d-%H%M%S")


#: Never in a backup: the sessions' keys. One read from a backup would open the desk and the
#: admin as whoever was logged in; after a restore, everyone logs in again.
SESSIONS = "django_session"


def private_folder(directory: Path) -> Path:
    """``directory``, made if need be, readable by this account only (0700): backups hold
    every result, e-mail and sealed link of the day."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o700)
    return directory


def _private_file(path: Path) -> None:
    """An empty file at ``path`` that only this account can read (0600), before anything is
    written into it."""
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600))
    path.chmod(0o600)  # an existing file keeps its mode through O_CREAT


def backup_now(*, directory: Path, keep: int) -> Taken:
    """A new backup file in ``directory``, then the rotation; returns what was done."""
    private_folder(directory)
    suffix = "sqlite3" if _is_sqlite() else "pgdump"
    stamp = _stamp()
    target = directory / f"paddock-{stamp}.{suffix}"
    index = 1
    while target.exists():  # two backups within a second: never overwrite one
        index += 1
        target = directory / f"paddock-{stamp}-{index}.{suffix}"
    partial = target.with_name(target.name + ".partial")
    try:
        _private_file(partial)
        if suffix == "sqlite3":
            _sqlite_copy(Path(_settings()["NAME"]), partial)
        else:
            _pg_dump(partial)
        os.replace(partial, target)  # a file under its final name is always complete
    finally:
        partial.unlink(missing_ok=True)
    photos = copy_photos(Path(settings.MEDIA_ROOT) / PHOTOS, directory / PHOTOS)
    return Taken(
        path=target,
        size=target.stat().st_size,
        removed=rotate(directory, keep=keep),
        photos=photos,
    )


def _sqlite_copy(source: Path, target: Path) -> None:
    if not source.exists():
        raise BackupProblem(f"There is no database at {source} to back up.")
    with (
        closing(sqlite3.connect(f"file:{source}?mode=ro", uri=True, timeout=30)) as src,
        closing(sqlite3.connect(target)) as dst,
    ):
        src.backup(dst)
        # Without the sessions' keys, overwritten where they were, not only unlinked.
        if dst.execute("SELECT 1 FROM sqlite_master WHERE name = ?", (SESSIONS,)).fetchone():
            dst.execute("PRAGMA secure_delete = ON")
            dst.execute(f"DELETE FROM {SESSIONS}")  # noqa: S608 - a constant
            dst.commit()
        # The copy is one file: its journal mode back to the default, so that it can be
        # moved alone (a WAL database is three files while it is open).
        dst.execute("PRAGMA journal_mode=DELETE")


def _pg_environment() -> tuple[dict[str, str], list[str]]:
    config = _settings()
    env = {**os.environ}
    if config.get("PASSWORD"):
        env["PGPASSWORD"] = str(config["PASSWORD"])
    args = []
    for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
        if config.get(key):
            args += [option, str(config[key])]
    return env, args


def _run(command: list[str], env: dict[str, str]) -> str:
    program = shutil.which(command[0])
    if program is None:
        raise BackupProblem(
            f"{command[0]} is not installed: install PostgreSQL's client "
            "(apt-get install postgresql-client)."
        )
    result = subprocess.run([program, *command[1:]], env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise BackupProblem(f"{command[0]} failed: {result.stderr.strip()[:500]}")
    return result.stdout


def _pg_dump(target: Path) -> None:
    env, args = _pg_environment()
    name = str(_settings()["NAME"])
    _run(
        ["pg_dump", "--format=custom", "--no-owner", f"--exclude-table-data={SESSIONS}",
         *args, "--file", str(target), name],
        env,
    )  # fmt: skip


def rotate(directory: Path, *, keep: int) -> list[Path]:
    """Delete the older backups: the newest ``keep`` stay, and before them the newest of
    each hour. Files not named by ``backup_now`` are never touched."""
    backups = sorted(
        (path for path in directory.iterdir() if NAME.match(path.name)),
        key=lambda path: path.name,
        reverse=True,
    )
    kept_hours = set()
    removed = []
    for index, path in enumerate(backups):
        match = NAME.match(path.name)
        assert match is not None
        hour = match.group(1) + match.group(2)
        if index < keep or hour not in kept_hours:
            kept_hours.add(hour)
            continue
        path.unlink(missing_ok=True)
        removed.append(path)
    return removed


def latest(directory: Path) -> Path | None:
    """The newest backup in ``directory``, or None."""
    if not directory.is_dir():
        return None
    names = sorted(p for p in directory.iterdir() if NAME.match(p.name))
    return names[-1] if names else None


# --- Restore ------------------------------------------------------------------------------------


def database_is_empty(alias: str = "default") -> bool:
    """True when the configured database has no table yet."""
    if _is_sqlite(alias):
        path = Path(_settings(alias)["NAME"])
        if not path.exists() or path.stat().st_size == 0:
            return True
        with closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return not db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table'").fetchone()
    return not connections[alias].introspection.table_names()


def restore(
    source: Path, *, replace: bool = False, role: str | None = None, say: Say | None = None
) -> Path | None:
    """Load the backup ``source`` into the configured database.

    The database must be empty (a new laptop, a new data folder), unless ``replace``: then
    a SQLite database is first kept aside as ``<name>.replaced-<time>`` (returned), and a
    PostgreSQL one is cleaned object by object by ``pg_restore --clean``.
    Stop the server first: a restore under its feet would mix two days. The photos kept
    beside ``source`` go back into the media root (``restore_photos``).

    Only what Paddock itself writes is accepted (``backup_checks``), checked before anything
    of the live database is touched, on a private copy of the file (``snapshot``), the one
    then loaded; PostgreSQL restores as the application's own role (or
    ``role``), never as a superuser.
    """
    if not source.is_file():
        raise BackupProblem(f"No backup file at {source}.")
    suffix = ".sqlite3" if _is_sqlite() else ".pgdump"
    if source.suffix != suffix:
        kind = "SQLite" if _is_sqlite() else "PostgreSQL"
        raise BackupProblem(f"This database is {kind}: restore a {suffix} backup.")
    kept_aside = None
    empty = database_is_empty()
    if not empty and not replace:
        raise BackupProblem(
            _(
                "The database is not empty. Restore into a new data folder: %(new)s; or "
                "replace this database (a SQLite file is kept aside first): %(replace)s "
                "(manage.py restore --replace; with DATABASE_URL, an empty database of its own)."
            )
            % {
                "new": restore_command(source, data=_("<new folder>")),
                "replace": restore_command(source, replace=True),
            }
        )
    steps = Steps(say or (lambda _text: None))
    with tempfile.TemporaryDirectory(prefix="paddock-restore-") as folder:
        checked = snapshot(source, Path(folder))
        steps.step(
            _(
                "Checking the backup against what this version of Paddock writes (the first "
                "time, it builds what to compare with: up to a minute)…"
            )
        )
        if _is_sqlite():
            kept_aside = _sqlite_restore(checked, named=source, empty=empty, steps=steps)
        else:
            _pg_restore(checked, named=source, replace=replace, role=role, steps=steps)
    steps.step(_("Copying the photos of the sheets…"))
    # Counters went back to the backup's: cache keys of before must never match again.
    freshness.renew_incarnation(connections["default"])
    restore_photos(source.parent)
    steps.done()
    return kept_aside


def shown_path(path: Path) -> str:
    """``path`` as typed from the project's folder (where make runs), quoted for the shell."""
    resolved = path.resolve()
    base = Path(settings.BASE_DIR).resolve()
    shown = resolved.relative_to(base) if resolved.is_relative_to(base) else resolved
    return shlex.quote(str(shown))


def restore_command(source: Path | str, *, data: str | None = None, replace: bool = False) -> str:
    """``make restore`` as it must be typed to restore ``source`` into this server's data
    folder (or ``data``): every variable in use, so that the command pasted as printed does
    what it says (without ``DATA=``, make restores into the default ``venue/``)."""
    folder = data or shown_path(Path(settings.DATA_DIR))
    file = source if isinstance(source, str) else shown_path(source)
    return f"make restore DATA={folder} FILE={file}" + (" REPLACE=1" if replace else "")


def snapshot(source: Path, folder: Path) -> Path:
    """``source`` read once, into ``folder`` (this account's only, 0600): the restore checks
    that copy and loads that copy. Checking the file in the backups folder and then loading
    it would load whatever it had become meanwhile (a copy still arriving, another account
    writing there)."""
    copy = folder / source.name
    _private_file(copy)
    with source.open("rb") as read, copy.open("wb") as written:
        shutil.copyfileobj(read, written)
    return copy


def _sqlite_restore(checked: Path, *, named: Path, empty: bool, steps: Steps) -> Path | None:
    """The SQLite backup ``checked`` (the private copy of ``named``) into the configured
    file, the database it replaces kept aside first (answered)."""
    try:
        refused = backup_checks.sqlite_refusals(checked)
    except RuntimeError as exc:  # this code's own schema could not be built
        raise BackupProblem(str(exc)) from exc
    _refuse(named, refused)
    # Its tables are Paddock's: then what their rows hold, as the models' validators see
    # it (the import of a championship file and an event's return check theirs too).
    steps.step(_("Checking its rows…"))
    _refuse(named, rows.sqlite_row_problems(checked))
    steps.step(_("Loading it into the database…"))
    connections["default"].close()
    target = Path(_settings()["NAME"])
    # This account's only from the start, as make venue's start makes them (day.protect_data):
    # a new data folder 0700 (the project's own folder keeps its mode), the database 0600.
    if target.parent.resolve() != Path(settings.BASE_DIR).resolve():
        private_folder(target.parent)
    target.parent.mkdir(parents=True, exist_ok=True)
    kept_aside = None
    if not empty:
        kept_aside = target.with_name(f"{target.name}.replaced-{_stamp()}")
        _private_file(kept_aside)
        _sqlite_copy(target, kept_aside)
    if not target.exists():
        _private_file(target)
    with (
        closing(backup_checks.read_only(checked)) as src,
        closing(sqlite3.connect(target, timeout=30)) as dst,
    ):
        src.backup(dst)
        dst.execute("PRAGMA journal_mode=WAL")
    for suffix in ("", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            Path(f"{target}{suffix}").chmod(0o600)
    return kept_aside


def _refuse(source: Path, refused: list[str]) -> None:
    if refused:
        raise BackupProblem(
            _(
                "%(file)s was refused, nothing was restored (the database is as it was). It "
                "holds what Paddock never writes:"
            )
            % {"file": source}
            + "".join(f"\n- {what}" for what in refused)
        )


def _pg_role(role: str | None) -> None:
    """Refuse to restore as a superuser: the archive's SQL would run with every right."""
    with connections["default"].cursor() as cursor:
        cursor.execute("SELECT current_user, rolsuper FROM pg_roles WHERE rolname = current_user")
        user, superuser = cursor.fetchone()
        if role is None:
            if superuser:
                raise BackupProblem(
                    _(
                        "PostgreSQL is reached as %(user)s, a superuser: a backup's SQL would run "
                        "with every right. Restore as the application's own role (DATABASE_URL "
                        "with that role), or name one that is not a superuser: --role <name>."
                    )
                    % {"user": user}
                )
            return
        cursor.execute(
            "SELECT rolsuper, pg_has_role(current_user, oid, 'MEMBER') FROM pg_roles "
            "WHERE rolname = %s",
            [role],
        )
        found = cursor.fetchone()
    if found is None or found[0] or not found[1]:
        raise BackupProblem(
            _(
                "The role %(role)s cannot restore: it must exist, not be a superuser, and be "
                "one that %(user)s may act as."
            )
            % {"role": role, "user": user}
        )


def _pg_restore(
    checked: Path, *, named: Path, replace: bool, role: str | None, steps: Steps
) -> None:
    """``pg_restore`` of the entries Paddock writes in ``checked`` (the private copy of
    ``named``), as the application's role (or ``role``), with no owner and no privileges of
    the archive; the change counters made again."""
    _pg_role(role)
    env, args = _pg_environment()
    refused, keep = backup_checks.pg_refusals(_run(["pg_restore", "--list", str(checked)], env))
    if not refused:  # the tables are Paddock's: then what they are made of
        ddl = _run(["pg_restore", "--schema-only", "--file=-", str(checked)], env)
        data = _run(["pg_restore", "--data-only", "--table=django_migrations", "--file=-",
                     str(checked)], env)  # fmt: skip
        refused = backup_checks.pg_schema_refusals(ddl, data)
        if not refused:  # their constraints, indexes and defaults
            try:
                refused = pg_schema.refusals(ddl, data)
            except RuntimeError as exc:
                raise BackupProblem(str(exc)) from exc
    _refuse(named, refused)
    steps.step(_("Loading it into the database…"))
    connections["default"].close()
    clean = ["--clean", "--if-exists"] if replace else []
    acting = [f"--role={role}"] if role else []
    name = str(_settings()["NAME"])
    with tempfile.TemporaryDirectory() as folder:
        listing = Path(folder) / "accepted.list"
        listing.write_text("\n".join(keep) + "\n")
        _run(["pg_restore", "--no-owner", "--no-privileges", "--exit-on-error",
              "--single-transaction", *clean, *acting, *args, "--use-list", str(listing),
              "--dbname", name, str(checked)], env)  # fmt: skip
    # Paddock's own function and triggers, from this code rather than from the file.
    freshness.install(connections["default"])


def unreadable_links() -> int:
    """How many tables' referee links no key of this server opens (a backup restored without
    its ``secret_key``): they still open their tables, but cannot be printed again."""
    count = 0
    for model in (QualifyingTable, RaceTable):
        for sealed in model.objects.values_list("token_sealed", flat=True).iterator():
            count += sealing.unseal(sealed) is None
    return count


def age(path: Path) -> datetime.timedelta:
    """How long ago ``path`` was written."""
    return timezone.now() - datetime.datetime.fromtimestamp(path.stat().st_mtime, tz=datetime.UTC)


def restored_summary() -> str:
    """What the database holds after a restore, in one line: "2 championships, 3 events
    (latest: Grand Prix, 2026-07-14), 24 drivers, 70 entries, 140 runs, 6 of 8 race tables
    confirmed"."""
    counts = [
        (Championship.objects.count(), "championship", "championships"),
        (Event.objects.count(), "event", "events"),
        (Driver.objects.count(), "driver", "drivers"),
        (Entry.objects.count(), "entry", "entries"),
    ]
    parts = [f"{n} {one if n == 1 else many}" for n, one, many in counts]
    # Only what it shows: a backup of an older version is read before ``migrate`` adds the
    # columns of this one.
    latest = Event.objects.order_by("-date", "-pk").only("name", "date").first()
    if latest is not None:
        parts[1] += f" (latest: {latest.name}, {latest.date.isoformat()})"
    runs = Run.objects.filter(cancelled=False).count()
    parts.append(f"{runs} {'run' if runs == 1 else 'runs'}")
    tables = RaceTable.objects.count()
    confirmed = RaceTable.objects.filter(result_status="confirmed").count()
    parts.append(f"{confirmed} of {tables} race {'table' if tables == 1 else 'tables'} confirmed")
    return ", ".join(parts)


def backup_recorded(*, directory: Path, keep: int) -> Taken:
    """:func:`backup_now`, its outcome kept for race control's desk (``backup_state``).

    A full disk or a folder gone is a :class:`BackupProblem` like the others, never another
    exception: ``make venue``'s loop reports it and keeps serving the hall.
    """
    try:
        taken = backup_now(directory=directory, keep=keep)
    except BackupProblem as exc:
        backup_state.record_failure(str(exc))
        raise
    except (OSError, sqlite3.Error, DatabaseError) as exc:
        problem = BackupProblem(f"The backup could not be written into {directory}: {exc}")
        backup_state.record_failure(str(problem))
        raise problem from exc
    backup_state.record_success()
    return taken

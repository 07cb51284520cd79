"""Backups of the whole database (paddock.venue.database_backup): rotation, no session in
a backup and only its owner reading it, and on PostgreSQL a pg_dump restored into an empty
database with every row equal. The SQLite path runs end to end in
tests/paddock/venue/test_venue.py (make venue's own backups, restored into a new data
folder).
"""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest
from django.contrib.sessions.backends.db import SessionStore
from django.db import connection
from psycopg import sql

from paddock.venue.database_backup import (
    BackupProblem,
    _private_file,
    _sqlite_copy,
    backup_now,
    latest,
    private_folder,
    restore,
    restore_photos,
    rotate,
)
from races.photos.services import photo_add
from races.photos.views import image_response
from races.results.services import result_confirm
from standings.leagues.models import League, Round
from tests.races.photos.images import oriented_jpeg
from tests.security.conftest import build_world
from tournament.access import Actor
from tournament.clubs.models import Club

ROOT = Path(__file__).resolve().parents[3]
PHOTO = oriented_jpeg()


def touch(directory: Path, *names: str) -> None:
    for name in names:
        (directory / name).write_bytes(b"x")


def test_rotation_keeps_the_last_ones_and_the_last_of_each_hour(tmp_path: Path) -> None:
    touch(
        tmp_path,
        "paddock-20260614-090000.sqlite3",
        "paddock-20260614-093000.sqlite3",
        "paddock-20260614-095500.sqlite3",  # the last of 9 h
        "paddock-20260614-100000.sqlite3",
        "paddock-20260614-100500.sqlite3",  # the last of 10 h
        "paddock-20260614-110000.sqlite3",
        "paddock-20260614-110500.sqlite3",
        "paddock-20260614-110500-2.sqlite3",
        "notes.txt",  # never touched
        "paddock-export.json",
    )
    removed = rotate(tmp_path, keep=3)
    left = sorted(p.name for p in tmp_path.iterdir())
    assert left == [
        "notes.txt",
        "paddock-20260614-095500.sqlite3",
        "paddock-20260614-100500.sqlite3",
        "paddock-20260614-110000.sqlite3",
        "paddock-20260614-110500-2.sqlite3",
        "paddock-20260614-110500.sqlite3",
        "paddock-export.json",
    ]
    assert len(removed) == 3
    assert latest(tmp_path).name == "paddock-20260614-110500.sqlite3"
    assert latest(tmp_path / "nowhere") is None


def test_a_backup_of_the_wrong_kind_is_refused(tmp_path: Path) -> None:
    wrong = tmp_path / ("x.pgdump" if connection.vendor == "sqlite" else "x.sqlite3")
    wrong.write_bytes(b"x")
    with pytest.raises(BackupProblem, match="restore a"):
        restore(wrong)
    with pytest.raises(BackupProblem, match="No backup file"):
        restore(tmp_path / "missing.sqlite3")


def test_a_sqlite_backup_holds_no_session_and_only_its_owner_reads_it(tmp_path: Path) -> None:
    """A session key read from a backup opened the desk and the admin (issue 20): the copy
    keeps every row but the sessions, overwritten rather than left in its free pages, in a
    folder and a file of this account only."""
    key = "k" * 8 + "session-key-of-the-organiser"
    source = tmp_path / "db.sqlite3"
    with sqlite3.connect(source) as db:
        db.execute("CREATE TABLE django_session (session_key, session_data, expire_date)")
        db.execute("INSERT INTO django_session VALUES (?, 'data', '2099-01-01')", (key,))
        db.execute("CREATE TABLE races_resultline (id, rank)")
        db.execute("INSERT INTO races_resultline VALUES (1, 1)")
    folder = private_folder(tmp_path / "backups")
    target = folder / "paddock-20260714-150000.sqlite3"
    _private_file(target)
    _sqlite_copy(source, target)

    assert folder.stat().st_mode & 0o777 == 0o700
    assert target.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(target) as copy:
        assert copy.execute("SELECT count(*) FROM django_session").fetchone() == (0,)
        assert copy.execute("SELECT * FROM races_resultline").fetchall() == [(1, 1)]
    assert key.encode() not in target.read_bytes()
    assert key.encode() in source.read_bytes()  # the test would prove nothing otherwise


ROWS = ("auth_user", "tournament_event", "tournament_driver", "races_resultline",
        "races_raceresult", "qualifying_run", "races_sheetphoto", "leagues_league",
        "leagues_round")  # fmt: skip


def rows(url: str) -> dict[str, list[tuple]]:
    with psycopg.connect(url) as db:
        return {
            table: sorted(db.execute(sql.SQL("SELECT * FROM {}").format(sql.Identifier(table))))
            for table in ROWS
        }


@pytest.mark.django_db(transaction=True)
def test_a_postgresql_backup_restores_into_an_empty_database(
    tmp_path, django_user_model, settings, postgresql
):
    """Restored as the application's own role (not a superuser: issue 20), into a database
    of its own; as a superuser it is refused unless told which role to act as."""
    settings.MEDIA_ROOT = tmp_path / "media"
    world = build_world(django_user_model)
    result_confirm(actor=Actor(user=world.users["organiser"]), table=world.rtables[0])
    photo = photo_add(actor=Actor(table=world.rtables[0]), table=world.rtables[0], data=PHOTO)
    SessionStore().create()  # someone logged in: no session may travel in a backup
    # A league counting the event (standings.leagues): the whole database travels.
    club = Club.objects.create(slug="aix", name="Aix")
    league = League.objects.create(slug="sud", name="Sud", season="2026", club=club,
                                   points_scale=[10, 6])  # fmt: skip
    Round.objects.create(league=league, event=world.event, status="counted")
    backups = tmp_path / "backups"
    taken = backup_now(directory=backups, keep=5)
    assert taken.path.suffix == ".pgdump" and taken.size > 0
    assert taken.path.stat().st_mode & 0o777 == 0o600
    assert backups.stat().st_mode & 0o777 == (backups / "photos").stat().st_mode & 0o777 == 0o700
    # The photo's two files (image, thumbnail) beside the backups, once.
    assert taken.photos == 2 and backup_now(directory=backups, keep=5).photos == 0

    config = connection.settings_dict
    name = postgresql.database("restored")
    elsewhere = tmp_path / "another-folder" / "media"
    env = {"PATH": os.environ.get("PATH", ""), "DEBUG": "true",
           "DATABASE_URL": postgresql.url(name), "MEDIA_ROOT": str(elsewhere)}  # fmt: skip
    # Reached as a superuser, the restore is refused (the archive's SQL would run with every
    # right): nothing restored.
    as_superuser = subprocess.run(
        [sys.executable, "manage.py", "restore", str(taken.path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert as_superuser.returncode != 0 and "--role" in as_superuser.stderr
    assert config["USER"] in as_superuser.stderr
    with psycopg.connect(postgresql.url(name)) as db:
        assert db.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ).fetchone() == (0,)
    # Told which role to act as (SET ROLE), it restores as that role: every object its own.
    # On a server with another key (its links then say so: issue 20, finding 5).
    with_role = postgresql.database("with_role")
    acted = subprocess.run(
        [sys.executable, "manage.py", "restore", str(taken.path), "--role", postgresql.role],
        cwd=ROOT, env={**env, "DATABASE_URL": postgresql.url(with_role),
                       "SECRET_KEY": "another-laptops-key-" + "x7Qm2" * 10},
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert acted.returncode == 0, acted.stderr
    tables = len(world.qtables) + len(world.rtables)
    assert f"{tables} referee links were sealed with another SECRET_KEY" in acted.stdout
    with psycopg.connect(postgresql.url(with_role)) as db:
        owners = db.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
        assert owners.fetchall() == [(postgresql.role,)]
    assert rows(postgresql.url(with_role)) == rows(postgresql.url(config["NAME"]))
    # The application's own role (DATABASE_URL's user is not a superuser): restored.
    env["DATABASE_URL"] = postgresql.url(name, user=postgresql.role)
    restored = subprocess.run(
        [sys.executable, "manage.py", "restore", str(taken.path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert restored.returncode == 0, restored.stdout + restored.stderr
    assert "Photos of the sheets" in restored.stdout and ": 2 files." in restored.stdout
    # It says what it restored.
    assert "The database now holds: " in restored.stdout
    assert "1 event (latest: Grand Prix d'Été, 2026-07-14), 8 drivers" in restored.stdout
    assert "8 runs, 1 of 2 race tables confirmed" in restored.stdout
    original, copy = rows(postgresql.url(config["NAME"])), rows(postgresql.url(name))
    assert len(original["races_resultline"]) == 4
    assert copy == original
    # Restored on another folder, the photo is still shown: its row is in the copy, its
    # files in the other media root, served from there.
    assert len(copy["races_sheetphoto"]) == 1
    assert len(copy["leagues_league"]) == len(copy["leagues_round"]) == 1
    with psycopg.connect(postgresql.url(name)) as db:
        assert db.execute("SELECT count(*) FROM django_session").fetchone() == (0,)
    with psycopg.connect(postgresql.url(config["NAME"])) as db:
        assert db.execute("SELECT count(*) FROM django_session").fetchone()[0] >= 1
    settings.MEDIA_ROOT = elsewhere
    served = image_response(photo)
    assert b"".join(served.streaming_content) == (elsewhere / "photos" / photo.image).read_bytes()
    again = subprocess.run(
        [sys.executable, "manage.py", "restore", str(taken.path)],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode != 0 and "REPLACE=1" in again.stderr
    # The hint speaks the Makefile's words.
    assert "REPLACE=1" in again.stderr and "DATA=" in again.stderr
    assert "PADDOCK_DATA_DIR" not in again.stderr


def test_a_restore_copies_the_photos_regular_files_only_never_through_a_link(tmp_path, settings):
    """A link planted in a backup's photos folder to the venue's ``secret_key`` came back as
    a sheet's photo through a referee link (issue 32): regular files only, no link followed,
    not even one to another photo of the folder, nor a photos folder that is a link."""
    settings.MEDIA_ROOT = tmp_path / "media"
    secret = tmp_path / "venue" / "secret_key"
    secret.parent.mkdir()
    secret.write_text("the venue's key")
    backups = tmp_path / "backups"
    photos = backups / "photos"
    photos.mkdir(parents=True)
    (photos / "a1.jpg").write_bytes(PHOTO)
    (photos / "b2.jpg").symlink_to(secret)
    (photos / "c3.jpg").symlink_to(photos / "a1.jpg")
    (photos / "d4.jpg").mkdir()

    assert restore_photos(backups) == 1
    media = settings.MEDIA_ROOT / "photos"
    assert sorted(p.name for p in media.iterdir()) == ["a1.jpg"]
    assert not (media / "a1.jpg").is_symlink() and (media / "a1.jpg").read_bytes() == PHOTO

    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "e5.jpg").write_bytes(PHOTO)
    linked = tmp_path / "linked-backups"
    linked.mkdir()
    (linked / "photos").symlink_to(elsewhere)
    assert restore_photos(linked) == 0
    assert not (media / "e5.jpg").exists()

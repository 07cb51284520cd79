"""The last backup's outcome (tournament.site.backup_state), kept by every backup
(``backup_recorded``: ``make venue``'s loop and ``manage.py backup``) and shown on race
control's desk until a backup works again. The full disk itself, under a running server, is
tests/faults/test_backups_full.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.urls import reverse

from paddock.venue.database_backup import BackupProblem, backup_recorded
from tournament.site import backup_state


@pytest.fixture(autouse=True)
def state_file(settings, tmp_path: Path) -> Path:
    settings.BACKUP_STATE_FILE = tmp_path / "state" / "backup-state.json"
    return settings.BACKUP_STATE_FILE


def test_a_backup_that_cannot_be_written_is_a_backup_problem_and_is_kept(tmp_path: Path) -> None:
    blocked = tmp_path / "backups"
    blocked.write_text("a file where the folder should be")
    with pytest.raises(BackupProblem, match="could not be written into"):
        backup_recorded(directory=blocked, keep=3)
    failure = backup_state.last_failure()
    assert failure is not None and failure.last_success is None
    assert "could not be written into" in failure.error


@pytest.mark.skipif(
    not os.environ.get("DATABASE_URL", "").startswith("postgres"),
    reason="a backup of the test database needs PostgreSQL (SQLite's is in memory)",
)
@pytest.mark.django_db
def test_a_backup_that_works_clears_the_failure_and_is_remembered(tmp_path: Path) -> None:
    backup_state.record_failure("The backup could not be written into backups: full")
    taken = backup_recorded(directory=tmp_path / "room", keep=3)
    assert taken.path.exists() and backup_state.last_failure() is None

    blocked = tmp_path / "blocked"
    blocked.write_text("a file where the folder should be")
    with pytest.raises(BackupProblem):
        backup_recorded(directory=blocked, keep=3)
    again = backup_state.last_failure()
    assert again is not None and again.last_success is not None  # when one last worked


def test_a_damaged_or_missing_state_says_nothing(state_file: Path) -> None:
    assert backup_state.last_failure() is None
    state_file.parent.mkdir(parents=True)
    state_file.write_text("{not json")
    assert backup_state.last_failure() is None


@pytest.mark.django_db
def test_the_desk_shows_the_failure_until_a_backup_works(client, organiser, make_event) -> None:
    event = make_event()
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    desk = reverse("event-desk", args=[event.slug])
    assert 'id="backup-failure"' not in client.get(desk).content.decode()

    backup_state.record_failure("The backup could not be written into backups: <disk full>")
    page = client.get(desk).content.decode()
    assert 'id="backup-failure"' in page and "The last backup failed, at" in page
    assert "No backup has worked yet." in page
    assert "&lt;disk full&gt;" in page  # the error as text, escaped

    backup_state.record_success()
    assert 'id="backup-failure"' not in client.get(desk).content.decode()

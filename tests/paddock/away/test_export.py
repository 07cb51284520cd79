"""On the laptop, the way back home (issue 40, item 15): ``make export EVENT=…`` knows the
venue's data folder and key and writes the file itself, whole or not at all (``manage.py
export_event <event> > back.json`` as README wrote it failed with "SECRET_KEY is not set"
and left an empty file); the laptop's trip page shows the way back, not a new check-out."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from paddock.away import checkout as trip
from tournament import sealing
from tournament.access import Actor
from tournament.away import bundle
from tournament.away.models import Checkout

ROOT = Path(__file__).resolve().parents[3]

pytestmark = pytest.mark.django_db


def make(*args: str) -> subprocess.CompletedProcess:
    """``make`` in the project's folder, as race control types it (the runtime taken as
    installed: ``-o``), with none of the test run's settings."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8"}
    return subprocess.run(
        ["make", "--no-print-directory", "-o", ".venv/.runtime", *args],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )  # fmt: skip


@pytest.mark.skipif(not shutil.which("make"), reason="make is not installed")
def test_make_export_writes_the_way_back_whole_or_not_at_all(
    make_event, organiser, migrated_sqlite, tmp_path
):
    """DOMAIN.md "The event away": the laptop's day goes home signed with the check-out's
    key; the file is the day's or is not there."""
    out = trip.check_out(actor=Actor(user=organiser), event=make_event(3))
    data = tmp_path / "salle des fêtes"
    data.mkdir()
    shutil.copy(migrated_sqlite, data / "db.sqlite3")
    (tmp_path / "bundle.json").write_text(json.dumps(out))
    venue = ["PADDOCK_DATA_DIR=" + str(data), "SECRET_KEY_FILE=" + str(data / "secret_key")]
    loaded = subprocess.run(
        [shutil.which("env") or "env", *venue, str(ROOT / ".venv/bin/python"), "manage.py",
         "import_event", str(tmp_path / "bundle.json")],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
        env={"PATH": os.environ.get("PATH", "")},
    )  # fmt: skip
    assert loaded.returncode == 0, loaded.stderr
    # The console speaks English, and counts what it loaded.
    assert loaded.stdout.strip() == "Event gp loaded: 3 drivers, 3 entries, 0 registrations."

    refused = make("export", "EVENT=gp-nope", f"DATA={data}")
    assert refused.returncode != 0
    assert "No event “gp-nope” here." in refused.stderr
    assert sorted(p.name for p in data.iterdir() if "back" in p.name) == []

    assert make("export", f"DATA={data}").returncode != 0  # which event?

    done = make("export", "EVENT=gp", f"DATA={data}")
    assert done.returncode == 0, done.stderr
    back = data / "gp.back.json"
    assert (back.stat().st_mode & 0o777) == 0o600
    way_back = json.loads(back.read_text())
    assert way_back["format"] == bundle.BACK
    assert bundle.verify(way_back, out["checkout"]["key"])
    assert "make push EVENT=gp" in done.stdout and str(back) in done.stdout
    assert [p.name for p in data.iterdir() if p.name.startswith(".")] == []  # no partial file


def test_the_laptops_trip_page_shows_the_way_back(make_event, organiser, client):
    event = make_event(3)
    key = bundle.new_key()
    Checkout.objects.create(
        event=event, side=Checkout.Side.VENUE, key=sealing.seal(key), reserved_numbers=[4, 5]
    )
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    page = client.get(f"/e/{event.slug}/away/").content.decode()
    assert "Download the day&#x27;s file" in page or "Download the day's file" in page
    assert f"make export EVENT={event.slug}" in page
    assert f"make push EVENT={event.slug}" in page
    assert "Check out to a laptop" not in page
    download = client.get(f"/e/{event.slug}/away/back/")
    assert download.status_code == 200
    assert download["Content-Disposition"] == f'attachment; filename="{event.slug}.back.json"'
    assert bundle.verify(json.loads(download.content), key)

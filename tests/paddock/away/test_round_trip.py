"""The event's round trip with two real servers on loopback: the hosted one is the test
database behind a live server (PostgreSQL when DATABASE_URL says so, as in CI), the laptop
is a SQLite database of its own driven by ``manage.py`` in processes of their own, under
``make venue``'s settings. Check-out over HTTP, import, the day on the laptop, export, and
the return over HTTP; then the hosted standings and ratings equal those of the same day
typed directly into the hosted server. Refused on the way: a tampered file, a number taken
meanwhile, a cancelled check-out; a return whose server is killed mid-transaction leaves
nothing (rows or photo files), and sent again after the restart it lands; sent twice, the
day lands once."""

from __future__ import annotations

import datetime
import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import psycopg
import pytest
from django.conf import settings
from django.db import connection

from paddock.away.checkout import under_way
from qualifying.models import Run
from races.models import RaceResult, RaceTable, SheetPhoto
from races.photos import storage
from standings.selectors import standings_for
from tests.faults.processes import start, stop, wait_until
from tournament.away import bundle
from tournament.away.models import Checkout
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Driver,
    Entry,
    Event,
    Player,
    PlayerRating,
    Sanction,
)
from tournament.signup.models import Registration

from .day import play

ROOT = Path(__file__).resolve().parents[3]
NAMES = ["Ayrton", "Alain", "Niki", "Jackie", "Graham", "Jim", "Juan", "Alberto"]

pytestmark = pytest.mark.django_db(transaction=True)


def championship_of(slug: str, organiser, circuit: Circuit) -> Event:
    """A championship of 8 drivers (players of their own) and its event, all entered."""
    championship = Championship.objects.create(
        slug=slug, name=slug.upper(), season="2026", points_scale=[10, 8, 6, 4, 2]
    )
    championship.organisers.add(organiser)
    event = Event.objects.create(
        championship=championship,
        slug=f"{slug}-gp",
        name="Grand Prix",
        date=datetime.date(2026, 11, 28),
        circuit=circuit,
        qualifying_mode="draw",
        separate_teams=False,
    )
    for number, name in enumerate(NAMES, start=1):
        player = Player.objects.create(first_name=name, last_name=slug.upper())
        driver = Driver.objects.create(
            championship=championship,
            number=number,
            first_name=name,
            last_name=slug.upper(),
            player=player,
        )
        Entry.objects.create(event=event, driver=driver)
    return event


def laptop(data: Path):
    """``manage.py`` on the venue's laptop: SQLite in ``data``, its own secret key."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PADDOCK_DATA_DIR": str(data),
        "SECRET_KEY_FILE": str(data / "secret_key"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
    }

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


def killed_return(event: Event, back: Path, tmp_path: Path) -> None:
    """``manage.py return_event`` on the hosted database (a server's process of its own),
    killed (SIGKILL) while its transaction is open: it has added the day's rows and waits
    on a lock this test holds on the check-outs' table, whose row it marks returned last of
    all (the day's own tables it locks itself from its first id read to its commit)."""
    url = (
        urlsplit(os.environ["DATABASE_URL"])
        ._replace(path="/" + connection.settings_dict["NAME"])
        .geturl()
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "paddock.settings",
        "DATABASE_URL": url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "PYTHONPATH": str(ROOT),
    }
    log = tmp_path / "return.log"
    # pg_stat_activity is read once a transaction: asked in autocommit, of another connection.
    with psycopg.connect(url) as lock, psycopg.connect(url, autocommit=True) as look:
        lock.execute(f"LOCK TABLE {Checkout._meta.db_table} IN SHARE MODE")
        server = start([sys.executable, "manage.py", "return_event", str(back)], env=env, log=log)
        try:
            waiting = """SELECT pid FROM pg_stat_activity WHERE %s = ANY(pg_blocking_pids(pid))
                AND backend_xid IS NOT NULL"""  # its transaction has written
            held = wait_until(
                lambda: (
                    (look.execute(waiting, [lock.info.backend_pid]).fetchone() or [None])[0]
                    or (server.poll() is not None and f"ended: {log.read_text()}")
                ),
                timeout=120,
                what="the return waiting inside its transaction",
            )
            assert isinstance(held, int), held
            os.killpg(server.pid, signal.SIGKILL)
            assert server.wait(timeout=10) == -signal.SIGKILL
        finally:
            stop(server)
        lock.rollback()
        # Its connection's end is seen once the lock is free: the transaction rolls back.
        gone = "SELECT NOT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = %s)"
        wait_until(
            lambda: look.execute(gone, [held]).fetchone()[0], timeout=60, what="its backend gone"
        )
    assert under_way(event) is not None  # still away
    day = (Run, RaceTable, RaceResult, RaceResult.history.model, SheetPhoto, Sanction)
    assert [m.objects.count() for m in day] == [0] * len(day)
    assert not Driver.objects.filter(championship=event.championship, number=9).exists()
    assert not Entry.objects.filter(event=event, checked_in=True).exists()
    assert not Registration.objects.filter(event=event, present=True).exists()
    files = json.loads(back.read_text())["files"]
    assert files and [storage.path_of(name) for name in files] == [None] * len(files)


def standings_rows(championship: Championship) -> list[tuple]:
    """Rank, number, points, points removed and countback of every driver."""
    return [
        (line.rank, line.driver.number, line.points, line.points_removed, line.countback)
        for line in standings_for(championship=championship).lines
    ]


def ratings(championship: Championship) -> dict[int, tuple[float, float, float, int]]:
    found = {}
    for driver in Driver.objects.filter(championship=championship):
        rating = PlayerRating.objects.get(player=driver.player_id)
        found[driver.number] = (rating.mu, rating.sigma, rating.rating, rating.races)
    return found


def test_the_day_goes_to_the_laptop_and_comes_back_as_if_typed_here(
    organiser, circuit, live_server, migrated_sqlite, tmp_path
):
    event = championship_of("cf", organiser, circuit)
    Registration.objects.create(
        event=event, first_name="Ayrton", last_name="CF", email="ayrton@example.org",
        status="accepted", driver=Driver.objects.get(championship=event.championship, number=1),
        confirmed_at=datetime.datetime(2026, 11, 1, tzinfo=datetime.UTC),
    )  # fmt: skip
    # The waiting list travels too, in its order (of confirmation, not of sign-up).
    for first, status, day in (("Alain", "accepted", 2), ("Kimi", "waiting", 4),
                               ("Mika", "waiting", 3)):  # fmt: skip
        Registration.objects.create(
            event=event, first_name=first, last_name="Attente", status=status,
            email=f"{first.lower()}@example.org",
            confirmed_at=datetime.datetime(2026, 11, day, tzinfo=datetime.UTC),
        )  # fmt: skip
    token = ApiToken.issue(organiser)
    api = httpx.Client(
        base_url=live_server.url + "/api/v1",
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )

    # Check-out: the bundle, signed with its key; the event is away.
    answer = api.post(f"/events/{event.slug}/checkout")
    assert answer.status_code == 200, answer.text
    out = answer.json()
    assert out["format"] == "paddock-event/1"
    assert bundle.verify(out, out["checkout"]["key"])
    assert [d["number"] for d in out["drivers"]] == list(range(1, 9))
    assert out["reserved_numbers"][0] == 9
    assert out["registrations"][0]["email"] == ""  # the addresses stay unless ticked
    assert [(r["first_name"], r["status"]) for r in out["registrations"]] == [
        ("Ayrton", "accepted"), ("Alain", "accepted"), ("Mika", "waiting"), ("Kimi", "waiting"),
    ]  # fmt: skip
    refused = api.post(f"/events/{event.slug}/checkin", json={"numbers": [1]})
    assert refused.status_code == 409
    assert refused.json()["away_since"] == out["checkout"]["at"]

    # The day on the laptop.
    data = tmp_path / "venue"
    data.mkdir()
    shutil.copy(migrated_sqlite, data / "db.sqlite3")
    (data / "bundle.json").write_text(json.dumps(out))
    manage = laptop(data)
    assert "cf-gp" in manage("import_event", str(data / "bundle.json"))
    late = int(
        manage(
            "shell",
            "--no-imports",
            "-c",
            "from tests.paddock.away.day import play; print(play('cf-gp'))",
        )
    )
    assert late == 9  # the first number the check-out reserved
    # The door's outcome (DOMAIN.md "Corrections to 'Before the day'"): Alain did not come
    # and is absent; of the waiting list, Kimi came and took his seat as the door driver
    # n° 9, Mika did not come and still waits, in her place.
    door = (
        "from tournament.signup.models import Registration as R; "
        "from tournament.models import Driver; "
        "R.objects.filter(first_name='Alain').update(status='absent', present=False); "
        "R.objects.filter(first_name='Mika').update(present=False); "
        "R.objects.filter(first_name='Kimi').update(status='accepted', present=True, "
        "driver=Driver.objects.get(number=9)); "
        "print(list(R.objects.filter(status='waiting').values_list('first_name', flat=True)))"
    )
    assert manage("shell", "--no-imports", "-c", door).strip() == "['Mika']"
    back_text = manage("export_event", "cf-gp")
    back = json.loads(back_text)
    assert bundle.verify(back, out["checkout"]["key"])

    # A file changed on its way: 400, nothing landed.
    tampered = json.loads(back_text)
    tampered["entries"][0]["paid"] = not tampered["entries"][0]["paid"]
    answer = api.post(f"/events/{event.slug}/return", content=json.dumps(tampered))
    assert answer.status_code == 400, answer.text
    assert "signature" in answer.json()["errors"]

    # Number 9 given here meanwhile: refused by name, nothing landed.
    taken = Driver.objects.create(
        championship=event.championship, number=9, first_name="Sébastien", last_name="Intrus"
    )
    answer = api.post(f"/events/{event.slug}/return", content=back_text)
    assert answer.status_code == 409, answer.text
    assert "Sébastien Intrus" in answer.json()["detail"]
    assert not RaceResult.objects.filter(table__event=event).exists()
    taken.delete()

    # The hosted server killed while the return's transaction is open: nothing landed, no
    # photo file, the event still away.
    if connection.vendor == "postgresql":
        (tmp_path / "back.json").write_text(back_text)
        killed_return(event, tmp_path / "back.json", tmp_path)

    # Restarted, the day pushed from the laptop lands whole; the file sent again (the same
    # export), the same answer, landed once.
    pushed = manage("push_event", "cf-gp", "--to", live_server.url, "--token", token)
    landed = json.loads(pushed)["landed"]
    assert landed["photos"] == 1 and landed["sanctions"] == 1 and landed["drivers"] == 1
    assert landed["results"] == landed["tables"] == 2
    again = api.post(f"/events/{event.slug}/return", content=back_text)
    assert again.status_code == 200 and again.json() == json.loads(pushed)
    assert RaceResult.objects.filter(table__event=event).count() == 2
    photo = SheetPhoto.objects.get(event=event)
    assert storage.path_of(photo.image) is not None
    # A file lost after the commit (a crash before it was written): sent again, it lands.
    storage.path_of(photo.image).unlink()
    assert api.post(f"/events/{event.slug}/return", content=back_text).json() == again.json()
    assert storage.path_of(photo.image) is not None
    assert Sanction.objects.filter(event=event).count() == 1
    # Each registration as the day left it: present, absent, moved in as a door driver.
    door_driver = Driver.objects.get(championship=event.championship, number=9)
    assert [
        (r.first_name, r.status, r.present, r.driver_id)
        for r in Registration.objects.filter(event=event).order_by("confirmed_at")
    ] == [
        ("Ayrton", "accepted", True, Driver.objects.get(championship=event.championship,
                                                        number=1).pk),
        ("Alain", "absent", False, None),
        ("Mika", "waiting", False, None),
        ("Kimi", "accepted", True, door_driver.pk),
    ]  # fmt: skip
    # The history came too: who, when, before and after (saved, submitted, confirmed).
    history = RaceResult.history.filter(table__event=event)
    assert history.count() >= 4 and {h.history_actor for h in history} >= {"rc"}

    # Rated on landing (the recompute it asked for), before anything else is typed here.
    returned = ratings(event.championship)
    assert len(returned) == 9

    # Home again: its writes pass the guard.
    home = api.post(f"/events/{event.slug}/checkin", json={"numbers": [1]})
    assert home.status_code == 200, home.text

    # The same day typed directly into the hosted server, in a championship of its own.
    direct = championship_of("cd", organiser, circuit)
    play(direct.slug, username=organiser.username, number=late)

    event.refresh_from_db()
    assert event.published_results
    standings = standings_rows(event.championship)
    assert len(standings) == 9 and any(line[3] == 2 for line in standings)
    assert standings == standings_rows(direct.championship)
    assert ratings(event.championship) == returned == ratings(direct.championship)


def test_a_cancelled_check_out_cannot_come_back(organiser, circuit, live_server):
    event = championship_of("cx", organiser, circuit)
    api = httpx.Client(
        base_url=live_server.url + "/api/v1",
        headers={"Authorization": f"Bearer {ApiToken.issue(organiser)}"},
        timeout=60,
    )
    out = api.post(f"/events/{event.slug}/checkout").json()
    assert api.request("DELETE", f"/events/{event.slug}/checkout", json={}).status_code == 400
    cancelled = api.request(
        "DELETE", f"/events/{event.slug}/checkout", json={"reason": "Salle inondée"}
    )
    assert cancelled.status_code == 200, cancelled.text
    back = bundle.signed(
        {
            "format": "paddock-event-back/1",
            "checkout": {"id": out["checkout"]["id"]},
            "event": {"slug": event.slug, "id": 1},
            "objects": [],
        },
        out["checkout"]["key"],
    )
    answer = api.post(f"/events/{event.slug}/return", content=json.dumps(back))
    assert answer.status_code == 409, answer.text
    assert "Salle inondée" in answer.json()["detail"]

"""``make venue``'s command for real: started on a free port with a data folder of its own,
asked for as the hall's phones ask for it (the machine's address on its network as the
host) with DEBUG off, backing the whole database up while it serves; a backup restores into
an empty database with every result equal.

Tests send packets to loopback only: the server listens on every address of the laptop, and
the test reaches it through 127.0.0.1 with the network address in the ``Host`` header, which
is all that the server sees of the address a phone typed. The organiser's pages answer the
laptop itself (127.0.0.1) only: a phone's refusal, which needs another client address, is
tested in tests/security/test_laptop_only.py.

Runs subprocesses with a clean environment (SQLite in the data folder, as on the day's
laptop), whatever the test database is.
"""

from __future__ import annotations

import ipaddress
import os
import queue
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import time
from contextlib import closing
from pathlib import Path

import httpx
import pytest
from diskcache import FanoutCache

from paddock.venue.day import lan_address
from paddock.venue.serving import PID_FILE, alive
from tests.faults.processes import children, wait_until

ROOT = Path(__file__).resolve().parents[3]
PASSWORD = "virage-rapide-2026"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("0.0.0.0", 0))
        return int(sock.getsockname()[1])


def environment(data: Path) -> dict[str, str]:
    """A fresh machine's environment: no DEBUG, no key, no database URL."""
    return {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "PADDOCK_DATA_DIR": str(data),
        "SECRET_KEY_FILE": str(data / "secret_key"),
        "LANG": "C.UTF-8",
    }


class Lines:
    """A process's output, line by line, read in a thread (so that a wait can time out)."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put(line.rstrip("\n"))

    def wait_for(self, pattern: str, timeout: float) -> re.Match[str]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            except queue.Empty:
                break
            self.seen.append(line)
            match = re.search(pattern, line)
            if match:
                return match
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "\n".join(self.seen))


#: A database that already holds the demo's admin with its published password.
DEMO_DATABASE = (
    "import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = 'paddock.settings';"
    "django.setup(); from django.core.management import call_command;"
    "from django.contrib.auth import get_user_model;"
    "call_command('migrate', verbosity=0);"
    "get_user_model().objects.create_superuser('admin', password='paddock-admin')"
)


def rows(database: Path, table: str) -> list[tuple]:
    with closing(sqlite3.connect(database)) as db:
        return sorted(db.execute(f"SELECT * FROM {table}").fetchall(), key=repr)  # noqa: S608


@pytest.mark.skipif(lan_address() is None, reason="this machine has no network address")
def test_venue_serves_the_network_with_debug_off_and_a_backup_restores(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    data, restored = tmp_path / "venue", tmp_path / "new-laptop"
    port = free_port()
    # A demo database brought into the venue (its admin still opens with the published
    # password), created with the usual modes (a 0644 file in a 0755 folder); it starts as
    # the run's migrated copy (the migrate below has nothing left to do).
    data.mkdir(mode=0o755)
    shutil.copyfile(migrated_sqlite, data / "db.sqlite3")
    (data / "db.sqlite3").chmod(0o644)
    brought = subprocess.run(
        [sys.executable, "-c", DEMO_DATABASE], cwd=ROOT, env=environment(data),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert brought.returncode == 0, brought.stderr
    assert (data / "db.sqlite3").stat().st_mode & 0o044  # readable by others, so far
    venue = subprocess.Popen(
        [sys.executable, "manage.py", "venue", "--port", str(port), "--backup-minutes", "0.05",
         "--wifi", "Salle des fêtes", "--workers", "1", "--threads", "4"],
        cwd=ROOT, env=environment(data), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    output = Lines(venue.stdout)
    try:
        # The demo's login is closed, so no organiser can log in: the first start asks for
        # the organiser's account, and refuses a published password (asked again).
        output.wait_for("The demo login 'admin' still opened with its published", timeout=120)
        output.wait_for("First start: the organiser", timeout=30)
        venue.stdin.write(
            f"chef\npaddock-admin\npaddock-admin\n{PASSWORD}\n{PASSWORD}\nClub du Lion\n"
        )
        venue.stdin.flush()
        output.wait_for("Organiser account created", timeout=30)
        assert any("démo" in line or "demo" in line for line in output.seen[-4:])
        base = output.wait_for(r"serves the hall on (http://([\d.]+):\d+)/", timeout=60)
        url, address = base.group(1), base.group(2)
        assert not ipaddress.ip_address(address).is_loopback
        laptop = f"http://127.0.0.1:{port}"
        output.wait_for(re.escape(f"on this laptop only: {laptop}/"), timeout=10)
        assert (data / "poster.pdf").read_bytes().startswith(b"%PDF")
        # The owner's only: the key, the data folder, the live database (made 0644 above).
        assert (data / "secret_key").stat().st_mode & 0o077 == 0
        assert data.stat().st_mode & 0o077 == 0
        assert (data / "db.sqlite3").stat().st_mode & 0o077 == 0

        # What a phone on the hall's Wi-Fi sends, through loopback (never the network).
        with httpx.Client(
            base_url=url.replace(address, "127.0.0.1", 1),
            headers={"Host": url.removeprefix("http://")},
            timeout=10,
        ) as client:
            deadline = time.monotonic() + 60
            while True:
                try:
                    health = client.get("/health/")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "gunicorn never answered"
                    time.sleep(0.3)
            assert health.status_code == 200
            assert health.json() == {"status": "ok", "database": "ok", "cache": "ok"}
            # A phone on the hall's plain HTTP asks for gzip: the public page comes compressed,
            # the static files pre-compressed by WhiteNoise (brotli too, for who asks).
            home = client.get("/", headers={"Accept-Encoding": "gzip, deflate"})
            assert home.status_code == 200 and home.headers["Content-Encoding"] == "gzip"
            # Kept in the data folder, shared by gunicorn's workers: built once for all.
            with FanoutCache(str(data / "cache"), shards=4) as shared:
                assert any("paddock:page:" in key for key in shared), list(shared)
            css = re.search(r'href="(/static/vendor/pico/pico\.min\.\w+\.css)"', home.text)
            assert css, home.text[:800]
            style = client.get(css[1], headers={"Accept-Encoding": "br"})
            assert style.status_code == 200 and style.headers["Content-Encoding"] == "br"
            # DEBUG off: a missing page is the site's 404, not Django's technical page.
            missing = client.get("/no-such-page/")
            assert missing.status_code == 404
            assert "URLconf" not in missing.text and "DEBUG" not in missing.text
        # The organiser logs in on the laptop itself, over plain HTTP (cookies not
        # Secure-only, the address a trusted origin), and reaches an organiser's page; the
        # session is the browser's (no expiry date: it ends when the browser closes).
        with httpx.Client(base_url=laptop, timeout=10) as client:
            login = client.get("/accounts/login/")
            token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
            assert token, login.text[:500]
            answer = client.post(
                "/accounts/login/",
                data={"username": "chef", "password": PASSWORD, "csrfmiddlewaretoken": token[1]},
                headers={"Referer": f"{laptop}/accounts/login/"},
            )
            assert answer.status_code == 302, answer.text[:500]
            session = [c for c in answer.headers.get_list("set-cookie") if "sessionid=" in c]
            assert session and "expires" not in session[0].lower(), session
            assert "max-age" not in session[0].lower(), session
            assert client.get("/me/tables/").status_code == 200

        # A day's results arrive while it serves (the demo's, loaded with DEBUG off).
        loaded = subprocess.run(
            [sys.executable, "manage.py", "load_demo", "--force", "--quiet"],
            cwd=ROOT, env=environment(data), capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert loaded.returncode == 0, loaded.stderr
        loaded_at = time.time()
        while True:
            name = output.wait_for(r"Backup: (paddock-\S+\.sqlite3)", timeout=60).group(1)
            backup = data / "backups" / name
            try:
                if backup.stat().st_mtime > loaded_at:
                    break
            except FileNotFoundError:
                continue  # a line read late (a busy machine): its backup already rotated away
    finally:
        venue.send_signal(signal.SIGINT)
        try:
            venue.wait(timeout=120)  # its last backup and gunicorn's stop, on a busy machine
        except subprocess.TimeoutExpired:
            venue.kill()
            venue.wait()
    output.wait_for("Stopped", timeout=10)
    assert venue.returncode == 0, "\n".join(output.seen)
    assert any("Backup:" in line for line in output.seen[-3:]), "no last backup on the way out"

    restore = subprocess.run(
        [sys.executable, "manage.py", "restore", str(backup)],
        cwd=ROOT, env=environment(restored), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert restore.returncode == 0, restore.stdout + restore.stderr
    original, copy = data / "db.sqlite3", restored / "db.sqlite3"
    results = rows(original, "races_resultline")
    assert len(results) > 40  # the demo's confirmed tables
    for table in ("races_resultline", "races_raceresult", "qualifying_run", "auth_user"):
        assert rows(copy, table) == rows(original, table), table

    # A second restore into the same, no longer empty, database is refused.
    again = subprocess.run(
        [sys.executable, "manage.py", "restore", str(backup)],
        cwd=ROOT, env=environment(restored), capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert again.returncode != 0
    assert "REPLACE=1" in again.stderr


# --- The stop (issue 33) -------------------------------------------------------------------

ORGANISER = f"chef\n{PASSWORD}\n{PASSWORD}\nClub du Lion\n"


def start_venue(
    data: Path, port: int, migrated: Path, *, ignore_sigint: bool = False
) -> tuple[subprocess.Popen[str], Lines]:
    """The venue on a copy of the run's migrated database, its organiser answered."""
    if not (data / "db.sqlite3").exists():
        data.mkdir(mode=0o700)
        shutil.copyfile(migrated, data / "db.sqlite3")

    def inherited() -> None:  # as a shell's background job (or nohup, a CI runner) has it
        signal.signal(signal.SIGINT, signal.SIG_IGN if ignore_sigint else signal.SIG_DFL)

    venue = subprocess.Popen(
        [sys.executable, "manage.py", "venue", "--port", str(port), "--backup-minutes", "60",
         "--workers", "1", "--threads", "2"],
        cwd=ROOT, env=environment(data), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT, text=True, preexec_fn=inherited,
    )  # fmt: skip
    venue.stdin.write(ORGANISER)
    venue.stdin.flush()
    return venue, Lines(venue.stdout)


def server_of(data: Path) -> tuple[int, int]:
    """gunicorn's pid and the command's, from the pid file."""
    server, command, _port = (int(word) for word in (data / PID_FILE).read_text().split())
    return server, command


def ended(venue: subprocess.Popen[str], server: int) -> None:
    """The venue and its server ended, whatever the test's outcome."""
    if venue.poll() is None:
        venue.kill()
        venue.wait()
    if server and alive(server):
        os.killpg(server, signal.SIGKILL)


def test_the_venue_started_with_sigint_ignored_stops_on_sigint_with_a_last_backup(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    data, port = tmp_path / "venue", free_port()
    venue, output = start_venue(data, port, migrated_sqlite, ignore_sigint=True)
    server = 0
    try:
        output.wait_for("serves the hall", timeout=120)
        output.wait_for(r"Backup: paddock-", timeout=120)  # the loop runs, gunicorn started
        server, command = server_of(data)
        assert command == venue.pid and alive(server)

        # A second start on the same folder: refused, the running one named with its stop.
        again = subprocess.run(
            [sys.executable, "manage.py", "venue", "--port", str(port)],
            cwd=ROOT, env=environment(data), stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=120,
        )  # fmt: skip
        assert again.returncode == 1, again.stdout + again.stderr
        assert f"kill {venue.pid}" in again.stderr and f"server pid {server}" in again.stderr
        assert "tourne déjà" in again.stderr  # and in French, the site's language
        assert alive(server)  # untouched

        venue.send_signal(signal.SIGINT)
        venue.wait(timeout=180)  # a state: the process ended (or the test fails here)
    finally:
        ended(venue, server)
    output.wait_for("Stopped", timeout=10)
    assert venue.returncode == 0, "\n".join(output.seen)
    stop = next(i for i, line in enumerate(output.seen) if line.startswith("Stopping"))
    assert any(line.startswith("Backup: paddock-") for line in output.seen[stop:]), output.seen
    assert not alive(server)
    assert not (data / PID_FILE).exists()


def test_a_venue_killed_by_sigkill_leaves_no_server_behind(
    tmp_path: Path, migrated_sqlite: Path
) -> None:
    data, port = tmp_path / "venue", free_port()
    venue, output = start_venue(data, port, migrated_sqlite)
    server, workers = 0, []
    try:
        output.wait_for(r"Backup: paddock-", timeout=120)
        server, _command = server_of(data)
        workers = wait_until(lambda: children(server), timeout=120, what="gunicorn's worker")
        venue.kill()  # SIGKILL: no handler, no finally
        venue.wait()
        wait_until(
            lambda: not any(alive(pid) for pid in (server, *workers)),
            timeout=120,
            what="gunicorn ended with its command",
        )
    finally:
        ended(venue, server)
        for pid in workers:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)

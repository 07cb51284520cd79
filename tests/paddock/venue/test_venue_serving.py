"""make venue's stop, in this process (issue 33): its own handlers of SIGINT, SIGTERM and
SIGHUP whatever it inherited, the backup under way finished and a last one taken, the stop
bounded when a backup hangs (a slow disk), a leftover server named by the next start, and the
watchdog that ends gunicorn where the parent-death signal is missing.

The signals are raised in this process by the test's own backup (the loop's state decides
when, never a clock); the handlers in place before are put back after each test.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from paddock.venue.serving import (
    PID_FILE,
    STOP_SIGNALS,
    Stopped,
    StopSignals,
    alive,
    command_line,
    leftover,
    serve,
)
from paddock.venue.watchdog import watch
from tests.faults.processes import wait_until


class FakeServer:
    """What the loop needs of gunicorn: started, running until stopped."""

    def __init__(self) -> None:
        self.events: list[str] = []

    def start(self) -> None:
        self.events.append("start")

    def running(self) -> bool:
        return "stop" not in self.events

    def stop(self) -> None:
        self.events.append("stop")


@pytest.fixture
def signals_kept() -> Iterator[None]:
    """The test process's handlers, as they were, after the test."""
    before = {signum: signal.getsignal(signum) for signum in STOP_SIGNALS}
    yield
    for signum, handler in before.items():
        signal.signal(signum, handler)


@pytest.mark.usefixtures("signals_kept")
@pytest.mark.parametrize("signum", STOP_SIGNALS, ids=lambda s: signal.Signals(s).name)
def test_a_stop_signal_mid_backup_finishes_it_then_takes_a_last_one(signum: int) -> None:
    # Inherited as a shell's background job has it: ignored. The venue installs its own.
    signal.signal(signum, signal.SIG_IGN)
    server, err = FakeServer(), io.StringIO()
    signals = StopSignals(err)

    def backup() -> None:
        server.events.append("backup")
        if server.events.count("backup") == 1:
            signal.raise_signal(signum)  # in the middle of the first backup

    complete = serve(server, every=3600, backup=backup, signals=signals, stderr=err)

    assert complete
    assert server.events == ["start", "backup", "stop", "backup"]
    assert "a last backup is taken" in err.getvalue()
    signals.restore()
    assert signal.getsignal(signum) == signal.SIG_IGN


@pytest.mark.usefixtures("signals_kept")
def test_a_second_ctrl_c_while_stopping_waits_for_the_last_backup() -> None:
    server, err = FakeServer(), io.StringIO()
    signals = StopSignals(err)

    def backup() -> None:
        server.events.append("backup")
        signal.raise_signal(signal.SIGINT)  # the first stops; the second, in the last one
        server.events.append("backup done")

    assert serve(server, every=3600, backup=backup, signals=signals, stderr=err)

    assert server.events == ["start", "backup", "backup done", "stop", "backup", "backup done"]
    assert err.getvalue().count("a last backup is taken") == 2


@pytest.mark.usefixtures("signals_kept")
def test_a_hanging_backup_does_not_hold_the_stop() -> None:
    """A slow disk: the backup under way never ends. The stop ends anyway, and says so."""
    server, err = FakeServer(), io.StringIO()
    signals = StopSignals(err)
    disk = threading.Event()

    def backup() -> None:
        server.events.append("backup")
        signal.raise_signal(signal.SIGTERM)
        disk.wait()  # the disk never answers, until the test lets it go

    try:
        complete = serve(
            server, every=3600, backup=backup, signals=signals, stderr=err, stop_within=0.2
        )
    finally:
        disk.set()

    assert not complete
    assert server.events == ["start", "backup", "stop"]
    assert "did not end within 0.2 s" in err.getvalue()


@pytest.mark.usefixtures("signals_kept")
def test_a_signal_before_serving_stops_the_command_at_once() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signals = StopSignals(io.StringIO())

    with pytest.raises(Stopped, match="SIGINT"):
        signal.raise_signal(signal.SIGINT)
    signals.restore()


@pytest.mark.usefixtures("signals_kept")
def test_a_failed_backup_is_said_and_the_hall_is_still_served() -> None:
    server, err = FakeServer(), io.StringIO()
    signals = StopSignals(err)

    def backup() -> None:
        server.events.append("backup")
        if server.events.count("backup") == 1:
            signal.raise_signal(signal.SIGTERM)
            raise OSError("disk I/O error")

    assert serve(server, every=3600, backup=backup, signals=signals, stderr=err)
    assert "Backup failed: disk I/O error" in err.getvalue()
    assert server.events == ["start", "backup", "stop", "backup"]


# --- The children ------------------------------------------------------------------------


def ignored_signals(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("SigIgn:"):
            return int(line.split()[1], 16)
    raise AssertionError("no SigIgn")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_gunicorn_starts_with_the_stop_signals_at_their_defaults() -> None:
    """A child of a command started with SIGINT ignored hears SIGINT again."""

    # An intermediate process as the venue, its SIGINT ignored; the child set up by it.
    script = (
        "import os, signal, subprocess, sys; signal.signal(signal.SIGINT, signal.SIG_IGN);"
        "import django; django.setup();"
        "from paddock.venue.serving import child_setup;"
        "plain = subprocess.Popen(['sleep', '600']);"
        "set_up = subprocess.Popen(['sleep', '600'], preexec_fn=child_setup(os.getpid()));"
        "print(plain.pid, set_up.pid, flush=True); sys.stdin.read()"
    )
    parent = subprocess.Popen(
        [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, cwd=Path(__file__).resolve().parents[3],
        env={**os.environ, "DJANGO_SETTINGS_MODULE": "paddock.settings"},
    )  # fmt: skip
    plain = set_up = 0
    try:
        plain, set_up = (int(word) for word in parent.stdout.readline().split())
        sigint = 1 << (signal.SIGINT - 1)
        assert ignored_signals(plain) & sigint  # inherited, as the issue found it
        assert not ignored_signals(set_up) & sigint
        # The parent killed: the set-up child gets its parent-death signal, the plain one
        # is left running (what gunicorn did before).
        parent.kill()
        parent.wait()
        wait_until(lambda: not alive(set_up), timeout=60, what="the child ended with its parent")
        assert alive(plain)
    finally:
        for pid in (plain, set_up):
            if pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        parent.kill()
        parent.wait()


# --- What an earlier start left ------------------------------------------------------------


def looking_like(*words: str) -> subprocess.Popen[bytes]:
    """A process whose command line holds ``words`` (a sleeping Python), once it does:
    ``Popen`` returns when the exec has begun, and Linux shows the new command line a moment
    later (under load, long enough for a read in between to find it empty)."""
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()", *words], stdin=subprocess.PIPE
    )
    wait_until(lambda: words[-1] in command_line(process.pid), timeout=10, what="its command line")
    return process


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_the_next_start_names_a_leftover_server_and_how_to_stop_it(tmp_path: Path) -> None:
    server = looking_like("-m", "gunicorn", "paddock.wsgi")
    other = looking_like("something-else")
    command = looking_like("manage.py", "venue")
    try:
        # The command gone (its pid ended), its server left: named, with the kill to type.
        (tmp_path / PID_FILE).write_text(f"{server.pid} {2**22 + 1} 8123\n")
        found = leftover(tmp_path)
        assert found is not None and found.server == server.pid and found.command is None
        said = found.message()
        assert f"kill {server.pid}" in said and "8123" in said
        assert "still runs" in said and "tourne encore" in said  # English and French

        # The command still running (another terminal): named too, stopped by Ctrl+C there.
        (tmp_path / PID_FILE).write_text(f"{server.pid} {command.pid} 8123\n")
        found = leftover(tmp_path)
        assert found is not None and found.command == command.pid
        assert f"kill {command.pid}" in found.message() and "Ctrl+C" in found.message()
        # Its pid taken by another program since: not named as the command.
        (tmp_path / PID_FILE).write_text(f"{server.pid} {other.pid} 8123\n")
        found = leftover(tmp_path)
        assert found is not None and found.command is None

        # A pid now held by another program is no server of ours: the stale file goes.
        (tmp_path / PID_FILE).write_text(f"{other.pid} {other.pid} 8123\n")
        assert leftover(tmp_path) is None
        assert not (tmp_path / PID_FILE).exists()
    finally:
        for process in (server, other, command):
            process.kill()
            process.wait()
    # Nor an ended one.
    (tmp_path / PID_FILE).write_text(f"{server.pid} {other.pid} 8123\n")
    assert leftover(tmp_path) is None
    assert leftover(tmp_path) is None  # no file at all


def test_the_watchdog_stops_the_server_once_its_command_is_gone() -> None:
    parents = iter([4242, 4242, 4242, 1])
    looks: list[float] = []
    stopped: list[bool] = []

    watch(4242, getppid=lambda: next(parents), stop=lambda: stopped.append(True),
          sleep=looks.append)  # fmt: skip

    assert stopped == [True] and len(looks) == 3

"""Serving the hall (``make venue``): gunicorn that never outlives the command, the leftover
server of an earlier start found and named, and the loop of backups that stops on a signal
whatever the command inherited.

- **Signals.** A shell's background job, ``nohup`` or a CI runner starts a command with
  SIGINT ignored, and Python then installs no Ctrl+C handler: the venue never heard it.
  :class:`StopSignals` installs the command's own handlers for SIGINT, SIGTERM and SIGHUP
  (the terminal closed), whatever was inherited.
- **The stop.** Backups run in a thread of their own, so the loop is never stuck in one when
  a signal comes; the stop (gunicorn ended, the backup under way finished, a last one taken)
  is bounded (``stop_within``), even on a slow disk. Another Ctrl+C meanwhile waits for it.
- **gunicorn never outlives the command.** Linux's parent-death signal (``prctl``
  ``PR_SET_PDEATHSIG``, set in the child before it runs gunicorn) ends it when the command
  dies, even by SIGKILL; elsewhere the watchdog of ``paddock/venue/watchdog.py`` does.
- **A leftover server** (the command killed before this safeguard, or still running in
  another terminal) is found by the next start from the pid file in the data folder, checked
  against the running processes, and named with how to stop it.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import CommandError
from django.utils import translation
from django.utils.translation import gettext as _

from paddock.venue.day import Venue

#: The signals that stop the venue: Ctrl+C, a service manager's stop, the terminal closed.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
#: linux/prctl.h
PR_SET_PDEATHSIG = 1
#: The server's pid file in the data folder: "<gunicorn pid> <command pid> <port>".
PID_FILE = "server.pid"
#: Seconds the stop waits for the backups (the one under way, then the last one).
STOP_WITHIN = 120.0
#: Seconds gunicorn has to end its requests (its --graceful-timeout), then a margin.
GRACEFUL = 10


def _libc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True)
    except OSError:
        return None


#: Loaded once in the parent: the child between fork and exec only calls it.
LIBC = _libc()


def child_setup(parent: int) -> Callable[[], None]:
    """A ``preexec_fn``: in the child, before it runs gunicorn. The stop signals back to
    their defaults (an ignored SIGINT or a blocked signal is inherited through exec), and on
    Linux the parent-death signal: SIGTERM when ``parent`` dies, whatever kills it. A parent
    already gone (before the signal was asked for) ends the child at once."""

    def setup() -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        if LIBC is not None:
            LIBC.prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != parent:
            os._exit(1)

    return setup


# --- The server, and what is left of an earlier one ----------------------------------------


def alive(pid: int) -> bool:
    """True when ``pid`` runs (a zombie, ended but not yet collected, does not)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        if Path("/proc/self/stat").exists():
            return False
        try:  # no /proc (macOS): the signal 0 answers whether it exists
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            return True
        return True
    return stat.rsplit(")", 1)[-1].split()[0] not in ("Z", "X")


def command_line(pid: int) -> list[str]:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return []
    return [part.decode(errors="replace") for part in raw.split(b"\0") if part]


def is_paddock_server(pid: int) -> bool:
    words = command_line(pid)
    if not words and alive(pid) and not Path("/proc/self/stat").exists():
        return True  # no /proc to read it from: the pid file's word is taken
    return any("gunicorn" in word for word in words) and "paddock.wsgi" in words


@dataclass(frozen=True)
class Leftover:
    """A server of this data folder still running: gunicorn's pid, the command's (if it
    still runs too) and the port."""

    server: int
    command: int | None
    port: int

    def message(self) -> str:
        """What the next start says, in the site's language and in English."""
        lines = []
        for language in dict.fromkeys([settings.LANGUAGE_CODE, "en"]):
            with translation.override(language):
                if self.command:
                    lines.append(
                        _(
                            "make venue already runs for this data folder (pid %(command)s, "
                            "its server pid %(server)s, port %(port)s). Stop it with Ctrl+C "
                            "in its terminal, or with: kill %(command)s"
                        )
                        % {"command": self.command, "server": self.server, "port": self.port}
                    )
                else:
                    lines.append(
                        _(
                            "A server left by an earlier make venue still runs (pid "
                            "%(server)s, port %(port)s), without its backups. Stop it with: "
                            "kill %(server)s (then start make venue again)."
                        )
                        % {"server": self.server, "port": self.port}
                    )
        return "\n".join(lines)


def leftover(data_dir: Path) -> Leftover | None:
    """The server an earlier start left running in ``data_dir``, or None (a stale pid file,
    whose process ended or whose pid another program now has, is removed)."""
    path = data_dir / PID_FILE
    try:
        server, command, port = (int(word) for word in path.read_text().split())
    except (OSError, ValueError):
        return None
    if not (alive(server) and is_paddock_server(server)):
        with contextlib.suppress(OSError):
            path.unlink()
        return None
    # The command too, if it still runs (its pid not taken by another program since).
    running = alive(command) and "venue" in command_line(command)
    return Leftover(server=server, command=command if running else None, port=port)


def port_taken(port: int) -> bool:
    """True when something listens on ``port`` already (gunicorn would fail to bind it)."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("0.0.0.0", port))
        except OSError:
            return True
    return False


class Gunicorn:
    """gunicorn on every interface, in a session of its own, ended with the command; its
    pid in the data folder while it serves."""

    def __init__(self, venue: Venue, *, workers: int, threads: int) -> None:
        self.venue = venue
        self.workers = workers
        self.threads = threads
        self.process: subprocess.Popen[bytes] | None = None
        self.pid_file = Path(settings.DATA_DIR) / PID_FILE

    def command(self) -> list[str]:
        return [
            sys.executable,
            "-m",
            "gunicorn",
            "paddock.wsgi",
            "--config",
            "python:paddock.venue.watchdog",
            "--bind",
            f"0.0.0.0:{self.venue.port}",
            "--workers",
            str(self.workers),
            "--threads",
            str(self.threads),
            "--log-level",
            "warning",
            "--graceful-timeout",
            str(GRACEFUL),
        ]

    def start(self) -> None:
        # A session of its own: the terminal's Ctrl-C reaches this command only, which
        # stops gunicorn gracefully once. Sharing the terminal, a second Ctrl-C reached the
        # arbiter mid-shutdown and its workers were killed ("Worker ... was sent SIGKILL!
        # Perhaps out of memory?").
        parent = os.getpid()
        self.process = subprocess.Popen(
            self.command(),
            cwd=settings.BASE_DIR,
            env={**os.environ, **self.venue.environment(), "PADDOCK_VENUE_PID": str(parent)},
            start_new_session=True,
            preexec_fn=child_setup(parent),  # noqa: PLW1509 (no thread runs yet)
        )
        self.pid_file.write_text(f"{self.process.pid} {parent} {self.venue.port}\n")

    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self) -> None:
        """SIGTERM (its requests end), then its whole group killed past the graceful time."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=GRACEFUL + 5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
        with contextlib.suppress(OSError):
            self.pid_file.unlink()


# --- The signals, and the loop -------------------------------------------------------------


class Stopped(CommandError):
    """A stop signal before the server started: nothing to back up yet."""


def say(stream: Any, line: str) -> None:
    """``line`` written, or nothing if the terminal is gone (SIGHUP: closed) or the pipe."""
    with contextlib.suppress(OSError, ValueError, RuntimeError):  # RuntimeError: reentrant
        stream.write(line if line.endswith("\n") else line + "\n")
        stream.flush()


class StopSignals:
    """The command's own handlers of SIGINT, SIGTERM and SIGHUP, installed whatever it
    inherited (an ignored SIGINT in a background job). Before :meth:`serving`, a signal
    stops the command at once; then it asks the loop to stop (``requested``); once stopping,
    another signal only says that the last backup is waited for."""

    def __init__(self, stderr: Any = None) -> None:
        self.stderr = stderr if stderr is not None else sys.stderr
        self.requested: int | None = None
        self.mode = "starting"
        self.previous = {signum: signal.signal(signum, self) for signum in STOP_SIGNALS}

    def __call__(self, signum: int, frame: Any) -> None:
        if self.mode == "starting":
            raise Stopped(f"Stopped ({signal.Signals(signum).name}) before serving.")
        if self.mode == "stopping":
            say(self.stderr, "Stopping: the server ends, then a last backup is taken. A moment…")
            return
        self.requested = signum

    def serving(self) -> None:
        self.mode = "serving"

    def stopping(self) -> None:
        self.mode = "stopping"

    def restore(self) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)


class Backups:
    """One backup at a time, in a thread of its own: the loop stays free for the signals."""

    def __init__(self, backup: Callable[[], None], stderr: Any) -> None:
        self.backup = backup
        self.stderr = stderr
        self.thread: threading.Thread | None = None
        self.taken = 0

    def _run(self) -> None:
        try:
            self.backup()
        except Exception as exc:  # noqa: BLE001 (reported; the hall is still served)
            say(self.stderr, f"Backup failed: {exc}")
        self.taken += 1

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="backup", daemon=True)
        self.thread.start()

    def busy(self) -> bool:
        return self.thread is not None and self.thread.is_alive()

    def wait(self, until: float, clock: Callable[[], float]) -> bool:
        """Until the backup under way ends, or ``until`` (on ``clock``): True if it ended."""
        while self.busy():
            left = until - clock()
            if left <= 0:
                return False
            assert self.thread is not None
            self.thread.join(timeout=min(left, 0.5))
        return True


def serve(
    server: Any,
    *,
    every: float,
    backup: Callable[[], None],
    signals: StopSignals,
    stderr: Any = None,
    stop_within: float = STOP_WITHIN,
    clock: Callable[[], float] = time.monotonic,
) -> bool:
    """Run until gunicorn stops or a stop signal comes: a backup at once, then one every
    ``every`` seconds; on the way out gunicorn is stopped, the backup under way finished and
    a last one taken, within ``stop_within`` seconds. Answers False when the last backup
    did not end in time (the command exits anyway: the backup before it is kept)."""
    stderr = stderr if stderr is not None else sys.stderr
    backups = Backups(backup, stderr)
    server.start()
    signals.serving()
    try:
        next_backup = clock()
        while server.running() and signals.requested is None:
            if clock() >= next_backup and not backups.busy():
                backups.start()
                next_backup = clock() + every
            time.sleep(0.2)
    finally:
        signals.stopping()
        if signals.requested is not None:
            say(stderr, "Stopping: the server ends, then a last backup is taken. A moment…")
        server.stop()
    deadline = clock() + stop_within
    if backups.wait(deadline, clock):
        backups.start()
        if backups.wait(deadline, clock):
            return True
    say(
        stderr,
        f"The last backup did not end within {stop_within:g} s (a slow disk?): stopping "
        "without it. The backups taken before are kept.",
    )
    return False

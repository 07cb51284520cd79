"""Real processes for the tests that start servers: free ports, gunicorn, a PostgreSQL cluster
and a Redis of the test's own, each stopped by its own id whatever happens.

Shared by the fault tests (``tests/faults/``) and any test that starts Paddock for real (two
gunicorns on two ports, a cold start): everything here listens on loopback only, on a port
picked free, with its files in a folder of its own, and never touches the machine's shared
PostgreSQL and Redis, which the rest of the suite uses in parallel.

Every process is started in a session of its own and stopped by its process group (a
gunicorn's workers with their arbiter); those still running when the interpreter exits (a
test interrupted between start and ``finally``) are killed then.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import glob
import json
import os
import pwd
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import httpx

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")

#: Started here and not yet stopped: killed at exit whatever happened to the test.
_RUNNING: dict[int, subprocess.Popen[bytes]] = {}


def free_port() -> int:
    """A loopback port nothing listens on now (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until(check: Callable[[], T | None], *, timeout: float, what: str) -> T:
    """Poll ``check`` until it answers something true; an AssertionError naming ``what``
    after ``timeout`` seconds. No sleep longer than a twentieth of a second."""
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout:g} s")
        time.sleep(0.05)


#: The signals a test sends or a terminal does: at their defaults in every process started
#: here, whatever this one inherited (a shell's background job ignores SIGINT, and an
#: ignored signal is inherited through exec: the process would not hear it).
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


def default_signals(then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``preexec_fn``: the stop signals at their defaults, none blocked; then ``then``."""

    def setup() -> None:
        for signum in STOP_SIGNALS:
            signal.signal(signum, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_SETMASK, [])
        if then is not None:
            then()

    return setup


def start(
    command: list[str],
    *,
    env: dict[str, str],
    log: Path,
    cwd: Path = ROOT,
    preexec_fn: Callable[[], None] | None = None,
    user: str | None = None,
) -> subprocess.Popen[bytes]:
    """``command`` in a session of its own, its signals at their defaults, its output into
    ``log``."""
    with log.open("ab") as output:
        process = subprocess.Popen(
            command,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=default_signals(preexec_fn),
            user=user,
        )
    _RUNNING[process.pid] = process
    return process


def stop(process: subprocess.Popen[bytes], *, timeout: float = 10) -> None:
    """``process`` and its group: SIGTERM, then SIGKILL after ``timeout`` seconds."""
    try:
        if process.poll() is None:
            _signal_group(process, signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=timeout)
        _signal_group(process, signal.SIGKILL)  # what the leader left behind, if anything
        process.wait(timeout=timeout)
    finally:
        _RUNNING.pop(process.pid, None)


def _signal_group(process: subprocess.Popen[bytes], signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signum)


@atexit.register
def _kill_leftovers() -> None:
    for process in list(_RUNNING.values()):
        _signal_group(process, signal.SIGKILL)


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a gunicorn arbiter's workers)."""
    found = []
    for stat in glob.glob("/proc/[0-9]*/stat"):
        try:
            text = Path(stat).read_text()
        except OSError:
            continue
        # "pid (name) state ppid ...": the name may hold spaces, the fields after it do not.
        fields = text.rsplit(")", 1)[-1].split()
        if int(fields[1]) == pid:
            found.append(int(Path(stat).parent.name))
    return sorted(found)


def sockets(pid: int) -> int:
    """How many sockets ``pid`` holds open (a busy worker holds its clients' connections)."""
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return 0
    count = 0
    for descriptor in descriptors:
        with contextlib.suppress(OSError):
            count += os.readlink(descriptor).startswith("socket:")
    return count


def connections_to(pid: int, port: int) -> int:
    """How many established TCP connections to ``port`` ``pid`` holds: the clients a
    gunicorn worker has accepted and not answered yet (a request held inside it)."""
    established = set()
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "01" and int(fields[1].rsplit(":", 1)[1], 16) == port:
                established.add(f"socket:[{fields[9]}]")
    count = 0
    with contextlib.suppress(OSError):
        for descriptor in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):
                count += os.readlink(descriptor) in established
    return count


def file_size_limit(limit: int) -> Callable[[], None]:
    """A ``preexec_fn``: files written by the process stop at ``limit`` bytes, the write
    failing (EFBIG) instead of the process being killed: a full disk, without a mount."""

    def limited() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return limited


@functools.cache
def static_manifest() -> Path:
    """A ``STATIC_ROOT`` holding only a manifest that names every static file as itself.

    With DEBUG off, pages name their static files through the manifest that
    ``collectstatic`` writes, and refuse to render without it; collecting and compressing
    takes a quarter of a minute on a busy machine. The processes these helpers start serve
    pages, not static files (the venue's test collects and serves them for real): this
    manifest lets the pages render in milliseconds. Every app's files are named, the
    admin's too (the password pages extend its templates: a missing entry is a 500).
    """
    from django.contrib.staticfiles import finders

    folder = Path(tempfile.mkdtemp(prefix="paddock-static-manifest-"))
    paths = {
        path.replace(os.sep, "/"): path.replace(os.sep, "/")
        for finder in finders.get_finders()
        for path, _storage in finder.list(["CVS", ".*", "*~"])
    }
    manifest = {"paths": paths, "version": "1.1", "hash": "faults"}
    (folder / "staticfiles.json").write_text(json.dumps(manifest))
    atexit.register(shutil.rmtree, folder, True)
    return folder


def paddock_environment(**values: str) -> dict[str, str]:
    """The environment of a Paddock process: this one's PATH and language, production
    settings (DEBUG off) with a key of its own and :func:`static_manifest`, then
    ``values``."""
    env = {
        "STATIC_ROOT": str(static_manifest()),
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "LANG": "C.UTF-8",
        "PYTHONPATH": str(ROOT),
        "SECRET_KEY": "faults-" + os.urandom(32).hex(),
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    env.update(values)
    return env


class Gunicorn:
    """Paddock under gunicorn on a free loopback port, stopped by its process group.

    The application is loaded once, before the workers are forked (``--preload``): a busy
    machine starts it in half the time, and a killed worker is replaced at once.
    """

    def __init__(
        self, env: dict[str, str], folder: Path, *, workers: int = 2, threads: int = 4
    ) -> None:
        self.env = env
        self.folder = folder
        self.workers = workers
        self.threads = threads
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log = folder / f"gunicorn-{self.port}.log"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, *, timeout: float = 180) -> Gunicorn:
        self.process = start(
            [sys.executable, "-m", "gunicorn", "paddock.wsgi",
             "--bind", f"127.0.0.1:{self.port}", "--workers", str(self.workers),
             "--threads", str(self.threads), "--timeout", "60", "--graceful-timeout", "5",
             "--log-level", "warning", "--preload"],
            env=self.env, log=self.log,
        )  # fmt: skip
        self.wait_answering(timeout=timeout)
        return self

    def answers(self) -> int | None:
        """The status of ``/health/`` (503 counts: the server answers), None if nothing."""
        assert self.process is not None
        if self.process.poll() is not None:
            raise AssertionError(f"gunicorn exited:\n{self.output()}")
        try:
            return httpx.get(f"{self.url}/health/", timeout=5).status_code
        except httpx.TransportError:
            return None

    def wait_answering(self, *, timeout: float = 180) -> int:
        return wait_until(self.answers, timeout=timeout, what=f"gunicorn on {self.url}")

    def worker_pids(self) -> list[int]:
        assert self.process is not None
        return children(self.process.pid)

    def held(self) -> int:
        """Client connections the workers hold (accepted, not answered yet)."""
        return sum(connections_to(pid, self.port) for pid in self.worker_pids())

    def busiest_worker(self) -> int:
        """The worker holding the most connections (the one a kill hurts most)."""
        return max(self.worker_pids(), key=sockets)

    def kill(self) -> None:
        """SIGKILL to the arbiter and every worker at once: the machine's plug pulled."""
        assert self.process is not None
        _signal_group(self.process, signal.SIGKILL)
        self.process.wait(timeout=10)
        _RUNNING.pop(self.process.pid, None)

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)

    def output(self) -> str:
        return self.log.read_text(errors="replace")[-6000:] if self.log.exists() else ""

    def __enter__(self) -> Gunicorn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def postgresql_bin() -> Path:
    """The folder of ``initdb`` and ``pg_ctl`` (Debian keeps them out of PATH)."""
    found = sorted(
        glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"),
        key=lambda path: int(Path(path).parts[-3]) if Path(path).parts[-3].isdigit() else 0,
    )
    if found:
        return Path(found[-1]).parent
    pg_ctl = shutil.which("pg_ctl")
    if pg_ctl is None:
        raise AssertionError("PostgreSQL's server is not installed (initdb, pg_ctl).")
    return Path(pg_ctl).parent


class PostgresCluster:
    """A PostgreSQL cluster of the test's own (``initdb`` in a temporary folder, its own
    port, trust on loopback, superuser ``root``), never the machine's.

    PostgreSQL refuses to run as root: when the tests run as root, the server runs as the
    ``postgres`` account, in a folder given to it (under the world-readable temporary
    folder: pytest's own are private to root).
    """

    def __init__(self) -> None:
        self.bin = postgresql_bin()
        self.folder = Path(tempfile.mkdtemp(prefix="paddock-faults-pg-"))
        self.data = self.folder / "data"
        self.port = free_port()
        self.user = "postgres" if os.geteuid() == 0 else None
        if self.user:
            account = pwd.getpwnam(self.user)
            os.chown(self.folder, account.pw_uid, account.pw_gid)
        self.folder.chmod(0o755)
        self.started = False

    def _run(self, *command: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [str(self.bin / command[0]), *command[1:]],
            user=self.user,
            cwd=self.folder,
            capture_output=True,
            text=True,
            timeout=timeout,
            env={"PATH": os.environ.get("PATH", ""), "LANG": "C.UTF-8"},
        )
        if result.returncode != 0:
            raise AssertionError(f"{command[0]} failed: {result.stdout}{result.stderr}")
        return result

    def init(self) -> PostgresCluster:
        self._run(
            "initdb", "-D", str(self.data), "-U", "root", "--auth=trust", "-E", "UTF8",
            "--locale=C.UTF-8", "--no-sync", "--no-instructions",
        )  # fmt: skip
        return self

    def start(self) -> None:
        # Loopback only, the socket in its own folder; no fsync: a test's data, and a stop
        # of the server (not of the machine) loses nothing written anyway.
        options = (
            f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.folder} "
            "-c fsync=off -c full_page_writes=off -c max_connections=40"
        )
        self._run("pg_ctl", "-D", str(self.data), "-l", str(self.folder / "server.log"),
                  "-o", options, "-w", "-t", "30", "start")  # fmt: skip
        self.started = True

    def stop(self, *, mode: str = "fast") -> None:
        """``fast``: connections cut, a clean shutdown; ``immediate``: as if it crashed."""
        self._run("pg_ctl", "-D", str(self.data), "-m", mode, "-w", "-t", "30", "stop")
        self.started = False

    def url(self, database: str) -> str:
        return f"postgres://root@127.0.0.1:{self.port}/{database}"

    def psql(self, database: str, sql: str) -> str:
        return self._run(
            "psql", "-h", "127.0.0.1", "-p", str(self.port), "-U", "root", "-d", database,
            "-At", "-v", "ON_ERROR_STOP=1", "-c", sql,
        ).stdout  # fmt: skip

    def destroy(self) -> None:
        """Stopped (immediately) if running, its process killed if it outlived that, its
        folder removed."""
        pid_file = self.data / "postmaster.pid"
        if pid_file.exists():
            with contextlib.suppress(AssertionError, subprocess.TimeoutExpired):
                self.stop(mode="immediate")
        if pid_file.exists():
            with contextlib.suppress(ValueError, OSError):
                os.kill(int(pid_file.read_text().split()[0]), signal.SIGKILL)
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def postgres_cluster() -> Iterator[PostgresCluster]:
    cluster = PostgresCluster()
    try:
        cluster.init().start()
        yield cluster
    finally:
        cluster.destroy()


class RedisServer:
    """A ``redis-server`` of the test's own: loopback, its own port, no persistence."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> RedisServer:
        program = shutil.which("redis-server")
        if program is None:
            raise AssertionError("redis-server is not installed (apt-get install redis-server).")
        self.process = start(
            [program, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self.folder), "--protected-mode", "yes"],
            env={"PATH": os.environ.get("PATH", "")}, log=self.folder / f"redis-{self.port}.log",
        )  # fmt: skip
        wait_until(self.answers, timeout=120, what=f"redis-server on port {self.port}")
        return self

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1) as sock:
                sock.sendall(b"PING\r\n")
                return sock.recv(16).startswith(b"+PONG")
        except OSError:
            return False

    def url(self, database: int = 0) -> str:
        return f"redis://127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.process is not None:
            stop(self.process)
            self.process = None

    def __enter__(self) -> RedisServer:
        return self.start()

    def __exit__(self, *exc: Any) -> None:
        self.stop()

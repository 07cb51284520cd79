"""No test leaves a process behind (issue 33): a pytest plugin, loaded by tests/conftest.py.

The process that runs the tests (a pytest-xdist worker, or pytest without workers) adopts
the orphans of what it starts (Linux's child subreaper: a server whose parent died is
reparented here, not to init), so that at the end of its session every process the tests
started and left running is its descendant: found through /proc, never any other process
of the machine (other runs share it). A worker hands what it found to the controller,
which fails the run; the leftovers are killed either way.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

import pytest

PR_SET_CHILD_SUBREAPER = 36
#: Seconds a process that is ending (stopped just before) gets to be gone; only a run with
#: leftovers waits them.
ENDING = float(os.environ.get("PADDOCK_TEST_ENDING", "30"))
LEFTOVERS = pytest.StashKey[list]()


def runs_tests(config: pytest.Config) -> bool:
    """True in a pytest-xdist worker, or in pytest without workers (not the controller)."""
    if hasattr(config, "workerinput"):
        return True
    return not (getattr(config.option, "numprocesses", None) and config.option.dist != "no")


def pytest_configure(config: pytest.Config) -> None:
    if runs_tests(config) and sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    config.stash[LEFTOVERS] = []


def _processes() -> dict[int, tuple[int, str]]:
    """Every process of the machine: its parent and its state."""
    found = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[-1].split()
        except OSError:
            continue
        found[int(stat.parent.name)] = (int(fields[1]), fields[0])
    return found


def descendants(root: int) -> list[int]:
    """The running descendants of ``root`` (its ended, uncollected children collected)."""
    processes = _processes()
    below: dict[int, list[int]] = {}
    for pid, (parent, _state) in processes.items():
        below.setdefault(parent, []).append(pid)
    found, todo = [], list(below.get(root, []))
    while todo:
        pid = todo.pop()
        todo.extend(below.get(pid, []))
        if processes[pid][1] in ("Z", "X"):
            if processes[pid][0] == root == os.getpid():
                with contextlib.suppress(ChildProcessError):
                    os.waitpid(pid, os.WNOHANG)
            continue
        found.append(pid)
    return sorted(found)


def described(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        words = "?"
    return f"pid {pid}: {words.strip()[:200]}"


def leftover_processes() -> list[str]:
    """The processes the tests started and left running, described, then killed. Those
    ending (stopped just before) get ``ENDING`` seconds to be gone."""
    if not Path("/proc/self/stat").exists():
        return []
    me = os.getpid()
    deadline = time.monotonic() + ENDING
    while (left := descendants(me)) and time.monotonic() < deadline:
        time.sleep(0.1)
    said = [described(pid) for pid in left]
    for pid in left:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return said


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    # A worker's leftovers, for the controller's verdict.
    left = getattr(node, "workeroutput", {}).get("paddock_leftovers", [])
    node.config.stash[LEFTOVERS].extend(f"{node.gateway.id} {line}" for line in left)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    if runs_tests(config):
        left = leftover_processes()
        if hasattr(config, "workeroutput"):
            config.workeroutput["paddock_leftovers"] = left
        else:
            config.stash[LEFTOVERS].extend(left)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    left = config.stash.get(LEFTOVERS, [])
    if left and reporter is not None:
        reporter.ensure_newline()
        reporter.write_sep("=", "processes left behind", red=True)
        reporter.write_line(
            f"{len(left)} process(es) started by the tests still ran at the end (killed now); "
            "a test or fixture must stop what it starts, in a finally:",
            red=True,
        )
        for line in left:
            reporter.write_line(f"  {line}", red=True)
    if left:
        session.exitstatus = 1

"""The end-of-session check of tests/leftovers.py, on a pytest run of its own: a test that
leaves a process running (here an orphan, its parent gone: a server whose command died)
fails the run, which names it and kills it; a run that stops what it starts passes."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

INNER = """
import subprocess

def test_leaves_an_orphan_running():
    # Its parent (the shell) exits at once: the sleep is adopted, as a venue's orphan was.
    subprocess.run(["bash", "-c", "sleep 600 {marker} & exit 0"], check=True)

def test_stops_what_it_starts():
    process = subprocess.Popen(["sleep", "600"])
    process.kill()
    process.wait()
"""


def running(marker: str) -> list[int]:
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if marker.encode() in cmdline.read_bytes():
                found.append(int(cmdline.parent.name))
        except OSError:
            continue
    return found


def inner_run(tmp_path: Path, *selection: str) -> subprocess.CompletedProcess[str]:
    """pytest on the inner tests with the plugin alone (no other plugin, no settings)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "PYTEST_"))}
    env.update(PYTHONPATH=str(ROOT), PADDOCK_TEST_ENDING="1", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-c", os.devnull, "--rootdir", str(tmp_path),
         "-p", "tests.leftovers", "-p", "no:cacheprovider", "-q", *selection],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc (Linux)")
def test_a_process_left_running_fails_the_run_and_is_killed(tmp_path: Path) -> None:
    marker = f"{secrets.randbelow(10**9)}"
    (tmp_path / "test_inner.py").write_text(INNER.replace("{marker}", marker))
    try:
        leaky = inner_run(tmp_path, "test_inner.py")
        assert leaky.returncode == 1, leaky.stdout + leaky.stderr
        assert "processes left behind" in leaky.stdout
        assert f"sleep 600 {marker}" in leaky.stdout
        assert "1 passed" in leaky.stdout or "2 passed" in leaky.stdout  # the tests passed
        assert running(marker) == []  # killed by the check

        clean = inner_run(tmp_path, "test_inner.py::test_stops_what_it_starts")
        assert clean.returncode == 0, clean.stdout + clean.stderr
        assert "processes left behind" not in clean.stdout
    finally:
        for pid in running(marker):
            os.kill(pid, 9)

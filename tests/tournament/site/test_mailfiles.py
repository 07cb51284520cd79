"""``make run``'s mails, written to files (issue 40): they carry the registrants' own links,
so the folder is this account's only (0700) and each file too (0600), and each mail written
says so on the console, where it is seen (the folder's line before runserver's banner
scrolled away). ``make run`` lists each allowed host once."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.core import mail

ROOT = Path(__file__).resolve().parents[3]


def test_mails_are_written_for_this_account_only_and_said_on_the_console(tmp_path, settings, capfd):
    folder = tmp_path / "mails"
    settings.EMAIL_BACKEND = "tournament.site.mailfiles.EmailBackend"
    settings.EMAIL_FILE_PATH = str(folder)
    old = os.umask(0o022)  # a laptop's usual umask: 0755 folders, 0644 files
    try:
        sent = mail.send_mail(
            "Confirmez votre inscription", "http://127.0.0.1:8000/registrations/confirm/s3cret/",
            None, ["elodie@example.org"],
        )  # fmt: skip
    finally:
        os.umask(old)
    assert sent == 1
    assert (folder.stat().st_mode & 0o777) == 0o700
    [written] = list(folder.iterdir())
    assert (written.stat().st_mode & 0o777) == 0o600
    assert "s3cret" in written.read_text()
    said = capfd.readouterr().err
    assert f"written to {written}" in said and "elodie@example.org" in said


@pytest.mark.skipif(not shutil.which("make"), reason="make is not installed")
@pytest.mark.parametrize("host", [None, "192.168.1.20", "localhost"])
def test_make_run_allows_each_host_once(host):
    args = ["make", "-n", "-o", ".venv/.runtime", "run"] + ([f"HOST={host}"] if host else [])
    dry = subprocess.run(
        args, cwd=ROOT, capture_output=True, text=True, timeout=60,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )  # fmt: skip
    assert dry.returncode == 0, dry.stderr
    hosts = re.search(r"ALLOWED_HOSTS=(\S+) .*runserver", dry.stdout)[1].split(",")
    assert len(hosts) == len(set(hosts))
    assert set(hosts) == {host or "127.0.0.1", "127.0.0.1", "localhost", "[::1]", "testserver"}

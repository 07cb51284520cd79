"""The backups' disk full while the hall is served (``make venue``'s setup: SQLite in WAL
mode, the shared cache in the data folder): the backup fails with a sentence saying why, the
server keeps serving and saving, and race control's desk says that backups fail, since when,
and why, until one works again.

The full disk is a file-size limit on the backup's process (``RLIMIT_FSIZE``: its writes
fail with EFBIG past 64 KiB, as they fail with ENOSPC on a full disk), not a mount: nothing
to clean up if the test dies, nothing shared with the tests running beside it.
"""

from __future__ import annotations

import re
import subprocess
import sys
from contextlib import closing
from pathlib import Path

import httpx

from tests.faults.conftest import SqliteDay
from tests.faults.processes import ROOT, Gunicorn, file_size_limit

WARNING = "La dernière sauvegarde a échoué"
PASSWORD = "chef-password-2026"  # tests.faults.world


def backup(env: dict[str, str], *, limit: int | None = None) -> subprocess.CompletedProcess[str]:
    """``manage.py backup`` on the served data folder; ``limit``: the disk full past it.

    Without the shared cache: the limit holds for every file the process writes, and the
    cache's files are the server's business, not the backup's (it never reads the cache).
    """
    env = {name: value for name, value in env.items() if name != "CACHE_DIR"}
    return subprocess.run(
        [sys.executable, "manage.py", "backup"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
        preexec_fn=file_size_limit(limit) if limit else None,
    )  # fmt: skip


def logged_in(server: Gunicorn) -> httpx.Client:
    client = httpx.Client(base_url=server.url, timeout=120)
    login = client.get("/accounts/login/")
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
    assert token, login.text[:500]
    answer = client.post(
        "/accounts/login/",
        data={"username": "chef", "password": PASSWORD, "csrfmiddlewaretoken": token[1]},
        headers={"Referer": f"{server.url}/accounts/login/"},
    )
    assert answer.status_code == 302, answer.text[:500]
    return client


def test_backups_disk_full_the_server_serves_and_the_desk_says_so(
    tmp_path: Path, sqlite_day: SqliteDay
) -> None:
    data = tmp_path / "venue"
    world = sqlite_day.copy(data)
    env = sqlite_day.environment(data)
    slug = world["event"]
    with (
        Gunicorn(env, tmp_path, workers=1, threads=4) as server,
        closing(logged_in(server)) as desk,
    ):
        assert WARNING not in desk.get(f"/e/{slug}/desk/").text

        full = backup(env, limit=64 * 1024)
        assert full.returncode != 0
        assert "The backup could not be written into" in full.stderr, full.stderr
        assert "Traceback" not in full.stderr
        assert not list((data / "backups").glob("paddock-*.sqlite3"))  # no half file left

        # The hall is still served, and a result saved meanwhile is saved.
        sheet = world["tables"]["60"]
        saved = httpx.put(
            f"{server.url}/api/v1/events/{slug}/tables/60/result",
            json={"version": 0, "finish": sheet["grid"], "submit": True},
            headers={"Authorization": f"Bearer {sheet['token']}"},
        )
        assert saved.status_code == 200 and saved.json()["version"] == 1
        assert httpx.get(f"{server.url}/").status_code == 200
        assert httpx.get(f"{server.url}/health/").status_code == 200

        page = desk.get(f"/e/{slug}/desk/")
        assert page.status_code == 200
        warning = re.search(r'<article[^>]*id="backup-failure".*?</article>', page.text, re.S)
        assert warning, page.text[:2000]
        assert WARNING in warning[0] and "Aucune sauvegarde n’a encore réussi" in warning[0]
        assert "could not be written into" in warning[0] and "disk I/O error" in warning[0]
        assert re.search(r"échoué, à \d\d:\d\d", warning[0])

        # Room again: the next backup works, holds the result, and the warning goes.
        done = backup(env)
        assert done.returncode == 0, done.stderr
        assert WARNING not in desk.get(f"/e/{slug}/desk/").text
        assert len(list((data / "backups").glob("paddock-*.sqlite3"))) == 1
    print("\nFAULT backups disk full: backup refused, server served and saved, desk warned")

"""``make guide-images``: the guide's screenshots, taken from the running app.

Not part of the test suite, nor of the server: run by hand when the pages change. It makes
a database of its own in a temporary folder (migrate, ``load_demo``), serves it on a free
loopback port (``runserver``, DEBUG on, as ``make run``), opens the sign-up of the demo's
2027 event as its organiser would, then takes each page of :data:`SHOTS` in Debian's
Chromium (Playwright, never a downloaded browser) in French and in English, at 390 px
(phone pages) or 1366 px (desk pages), and writes them as WebP files under
``static/guide/<language>/``. Nothing here leaves the machine.
"""

from __future__ import annotations

import datetime
import io
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from PIL import Image
from playwright.sync_api import Browser, BrowserContext, Page, sync_playwright

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "static" / "guide"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PHONE = {"width": 390, "height": 844}
DESK = {"width": 1366, "height": 860}
#: The demo's logins (published in the README; DEBUG on only).
LOGINS = {"owner": ("proprietaire", "paddock-club"), "desk": ("organisateur", "paddock-pc")}
SPRING = "demo-grand-prix-de-printemps"
OPENING = "demo-2027-grand-prix-d-ouverture"
#: WebP quality: the text stays readable, a desk page weighs tens of kilobytes.
QUALITY = 62


@dataclass(frozen=True)
class Shot:
    name: str
    path: str
    phone: bool = False
    login: str | None = None
    offline: bool = False


def shots(links: dict[str, str], career: str) -> list[Shot]:
    """The guide's images: each page's address as the demo has it."""
    return [
        # The organiser's year.
        Shot("my-clubs", "/clubs/", login="owner"),
        Shot("championship-new", "/clubs/club-demo/championships/new/", login="owner"),
        Shot("circuit-new", "/clubs/club-demo/circuits/new/", login="owner"),
        Shot("championship", "/c/demo/", login="owner"),
        Shot("announcement", f"/e/{OPENING}/desk/announcement/", login="owner"),
        Shot("away", f"/e/{OPENING}/away/", login="owner"),
        # Race control's day.
        Shot("desk", f"/e/{SPRING}/desk/", login="desk"),
        Shot("registrations", f"/e/{OPENING}/desk/registrations/", login="desk"),
        Shot("allocation", f"/e/{SPRING}/allocation/", login="desk"),
        Shot("results-desk", f"/e/{SPRING}/results/desk/", login="desk"),
        # The table referee's phone.
        Shot("qualifying-table", links["qualifying"], phone=True),
        Shot("race-table", links["race"], phone=True),
        Shot("race-result", links["race"] + "result/", phone=True),
        Shot("offline", links["race"], phone=True, offline=True),
        # The player's pages.
        Shot("signup", f"/e/{OPENING}/signup/", phone=True),
        Shot("where", f"/e/{SPRING}/where/?q=Girard", phone=True),
        Shot("standings", "/c/demo/standings/", phone=True),
        Shot("career", career, phone=True),
    ]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    )
    return done.stdout


@contextmanager
def server(env: dict[str, str], port: int) -> Iterator[str]:
    """``runserver`` on loopback, stopped however this ends."""
    process = subprocess.Popen(
        [sys.executable, "manage.py", "runserver", f"127.0.0.1:{port}", "--noreload"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(base + "/health/", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise SystemExit("The server did not start.") from None
                time.sleep(0.3)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=20)


def log_in(context: BrowserContext, base: str, who: str) -> None:
    username, password = LOGINS[who]
    page = context.new_page()
    page.goto(base + "/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    page.close()


def open_signup(browser: Browser, base: str) -> None:
    """The 2027 event's sign-up opened as its organiser would: 24 seats, open since
    yesterday until the day before the event."""
    context = browser.new_context(viewport=DESK)
    log_in(context, base, "desk")
    page = context.new_page()
    page.goto(f"{base}/e/{OPENING}/desk/announcement/")
    now = datetime.datetime.now().replace(second=0, microsecond=0)
    page.fill("#id_place", "Salle des fêtes, 1 place de la Mairie")
    page.fill("#id_starts_at", "09:30")
    page.fill("#id_capacity", "24")
    page.fill("#id_opens_at", (now - datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M"))
    page.fill("#id_closes_at", "2027-03-13T20:00")
    page.fill("#id_schedule_lines", "09:30 Accueil\n10:00 Essais\n14:00 Course")
    page.click("main form button[type=submit]")
    page.wait_for_load_state()
    context.close()


def take(browser: Browser, base: str, shot: Shot, language: str) -> bytes:
    context = browser.new_context(
        viewport=PHONE if shot.phone else DESK,
        is_mobile=shot.phone,
        has_touch=shot.phone,
        locale=language,
    )
    context.add_cookies([{"name": "django_language", "value": language, "url": base}])
    try:
        if shot.login:
            log_in(context, base, shot.login)
        page: Page = context.new_page()
        page.goto(base + shot.path)
        page.wait_for_load_state("networkidle")
        if shot.offline:
            context.set_offline(True)
            page.evaluate("window.dispatchEvent(new Event('offline'))")
            page.wait_for_selector("#offline-bar .offline-since:not([hidden])")
        return page.screenshot(animations="disabled", caret="hide")
    finally:
        context.close()


def save(png: bytes, target: Path) -> int:
    target.parent.mkdir(parents=True, exist_ok=True)
    with Image.open(io.BytesIO(png)) as picture:
        picture.convert("RGB").save(target, "WEBP", quality=QUALITY, method=6)
    return target.stat().st_size


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="paddock-guide-") as data:
        port = free_port()
        env = {
            **os.environ,
            "DEBUG": "true",
            "PADDOCK_DATA_DIR": data,
            "SITE_URL": f"http://127.0.0.1:{port}",
            "ALLOWED_HOSTS": "127.0.0.1,localhost",
        }
        env.pop("DATABASE_URL", None)
        env.pop("REDIS_URL", None)
        print("Demo database…", flush=True)
        manage(env, "migrate", "--noinput", "-v", "0")
        said = manage(env, "load_demo")
        links = {
            "qualifying": re.search(r"/q/[^/\s]+/", said).group(0),  # type: ignore[union-attr]
            "race": re.findall(r"/r/[^/\s]+/", said)[0],
        }
        career = manage(
            env,
            "shell",
            "-c",
            "from tournament.models import Driver; "
            "print(Driver.objects.get(championship__slug='demo', number=3).player_id)",
        ).strip()
        with server(env, port) as base, sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            open_signup(browser, base)
            total = 0
            for language in ("fr", "en"):
                for shot in shots(links, f"/p/{career}/"):
                    png = take(browser, base, shot, language)
                    target = OUT / language / f"{shot.name}.webp"
                    size = save(png, target)
                    total += size
                    print(f"  {target.relative_to(ROOT)}  {size // 1024} KB", flush=True)
            browser.close()
        print(f"Done: {total // 1024} KB in {OUT.relative_to(ROOT)}/.")


if __name__ == "__main__":
    main()

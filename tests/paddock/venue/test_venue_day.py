"""make venue's first start and its data (issue 20, finding 6): the organiser's password is
never a demo or common one, a demo database keeps no demo login, the data folder and the
live database are this account's only, and the server's environment guards the organiser's
pages unless the organiser chose otherwise."""

from __future__ import annotations

import io
import re
import shlex
import shutil
import stat
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse
from django.utils import translation

from paddock.venue.day import (
    NoAnswer,
    Venue,
    ask_organiser,
    close_demo_logins,
    organiser_exists,
    protect_data,
)
from paddock.venue.progress import _Counted
from tests.test_deploy import dry_run
from tournament.models import ApiToken, Club, Membership

GOOD = "virage-rapide-2026"


def answers(*lines: str) -> io.StringIO:
    return io.StringIO("".join(line + "\n" for line in lines))


@pytest.mark.django_db
def test_the_first_start_refuses_demo_and_common_passwords_and_asks_again() -> None:
    out = io.StringIO()
    # The issue's three, each typed twice, then one of the organiser's own.
    stdin = answers(
        "chef", "paddock-admin", "paddock-admin", "paddock-pc", "paddock-pc", GOOD, GOOD,
        "Écurie du Lion",
    )  # fmt: skip

    with translation.override("fr"):  # the venue's language, as ``make venue`` runs
        user = ask_organiser(stdin, out)

    assert user.username == "chef" and user.is_superuser
    assert user.check_password(GOOD)
    said = out.getvalue()
    assert said.count("Organiser's username") == 1  # only the password was asked again
    # Issue 32, item 8: in the prompts' language (English), never French among them.
    assert said.count("demo") == 2 and "démo" not in said, said


@pytest.mark.django_db
def test_the_first_start_makes_the_organiser_the_owner_of_the_club_named() -> None:
    """DOMAIN.md "Clubs and who may do what": the first start of make venue makes the
    organiser the owner of one club, named at that prompt (an empty name is asked again)."""
    out = io.StringIO()
    stdin = answers("chef", GOOD, GOOD, "   ", "Écurie du Lion")

    user = ask_organiser(stdin, out)

    [membership] = Membership.objects.filter(user=user)
    assert membership.role == "owner"
    assert (membership.club.name, membership.club.slug) == ("Écurie du Lion", "ecurie-du-lion")
    assert out.getvalue().count("Your club's name") == 2


@pytest.mark.django_db
def test_no_club_named_creates_no_account() -> None:
    with pytest.raises(NoAnswer):
        ask_organiser(answers("chef", GOOD, GOOD), io.StringIO())

    assert not get_user_model().objects.exists() and not Club.objects.exists()


@pytest.mark.django_db
def test_three_refused_passwords_create_no_account() -> None:
    out = io.StringIO()
    stdin = answers("chef", "motdepasse1", "motdepasse1", "paddock-admin", "paddock-admin",
                    "12345678901", "12345678901")  # fmt: skip

    with pytest.raises(NoAnswer), translation.override("fr"):
        ask_organiser(stdin, out)

    assert not get_user_model().objects.exists()
    assert "digits" in out.getvalue() and "chiffres" not in out.getvalue()


@pytest.mark.django_db
def test_a_demo_database_keeps_no_demo_login(django_user_model) -> None:
    admin = django_user_model.objects.create_superuser("admin", password="paddock-admin")
    demo_organiser = django_user_model.objects.create_user("organisateur", password="paddock-pc")
    staff = django_user_model.objects.create_user("marc", password="paddock-pc", is_staff=True)
    chef = django_user_model.objects.create_superuser("chef", password=GOOD)
    referee = django_user_model.objects.create_user("arbitre", password="paddock-pc")
    # The demo admin's session, open before the start (on the laptop).
    browser = Client()
    browser.force_login(admin)
    assert browser.get(reverse("password_change")).status_code == 200

    closed = close_demo_logins()

    assert closed == ["admin", "organisateur", "marc"]
    for user in (admin, demo_organiser, staff):
        user.refresh_from_db()
        assert not user.has_usable_password()
        assert not any(user.check_password(p) for p in ("paddock-admin", "paddock-pc"))
    chef.refresh_from_db()
    assert chef.check_password(GOOD)
    # Not an organiser nor a demo name: not checked (the forms refuse it from now on).
    referee.refresh_from_db()
    assert referee.check_password("paddock-pc")
    # The open session ended with its password.
    assert browser.get(reverse("password_change")).status_code == 302
    assert close_demo_logins() == []  # nothing left to close


@pytest.mark.django_db
def test_a_closed_demo_login_keeps_no_working_api_token(django_user_model) -> None:
    """A demo account closed at the venue's start kept its API tokens, and they still opened
    the API (issue 32): closed with it; an organiser's own account keeps its token."""
    admin = django_user_model.objects.create_superuser("admin", password="paddock-admin")
    chef = django_user_model.objects.create_superuser("chef", password=GOOD)
    demo_token, own_token = ApiToken.issue(admin), ApiToken.issue(chef)
    api = Client()

    def answers(token: str) -> int:
        return api.get("/api/v1/championships", HTTP_AUTHORIZATION=f"Bearer {token}").status_code

    assert answers(demo_token) == 200

    assert close_demo_logins() == ["admin"]

    assert ApiToken.user_for(demo_token) is None
    assert answers(demo_token) == 401
    assert answers(own_token) == 200


@pytest.mark.django_db
def test_a_closed_demo_admin_is_no_organiser_the_first_start_asks_again(django_user_model):
    django_user_model.objects.create_superuser("admin", password="paddock-admin")
    assert organiser_exists()

    close_demo_logins()

    assert not organiser_exists()


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_and_the_live_database_are_the_owners_only(tmp_path: Path) -> None:
    data = tmp_path / "venue"
    data.mkdir(mode=0o755)
    database = data / "db.sqlite3"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{database}{suffix}").write_bytes(b"")
        Path(f"{database}{suffix}").chmod(0o644)

    protect_data(data, tmp_path / "project", database)

    assert mode(data) == 0o700
    for suffix in ("", "-wal", "-shm"):
        assert mode(Path(f"{database}{suffix}")) == 0o600


def test_the_project_folder_keeps_its_mode(tmp_path: Path) -> None:
    """No data folder given (manage.py venue alone): the database lies in the project."""
    tmp_path.chmod(0o755)
    database = tmp_path / "db.sqlite3"
    database.write_bytes(b"")

    protect_data(tmp_path, tmp_path, database)

    assert mode(tmp_path) == 0o755
    assert mode(database) == 0o600


def test_the_server_guards_organiser_pages_unless_the_organiser_opts_in(monkeypatch) -> None:
    monkeypatch.setenv("ORGANISERS_ON_WIFI", "1")  # left in a shell: not a choice
    guarded = Venue(address="192.168.1.20", port=8000, hostname="pc")
    opted_in = Venue(address="192.168.1.20", port=8000, hostname="pc", organisers_on_wifi=True)

    assert guarded.environment()["VENUE"] == "true"
    assert guarded.environment()["ORGANISERS_ON_WIFI"] == "false"
    assert opted_in.environment()["ORGANISERS_ON_WIFI"] == "true"
    assert guarded.laptop_url == "http://127.0.0.1:8000"


@pytest.mark.parametrize(
    ("value", "opted_in"),
    [(None, False), ("1", True), ("yes", True), ("0", False), ("$(shell id)", False)],
)
def test_make_venue_opts_in_only_when_asked(value: str | None, opted_in: bool) -> None:
    if not shutil.which("make"):
        pytest.skip("make is not installed")
    words = dry_run("venue", **({} if value is None else {"ORGANISERS_ON_WIFI": value}))

    assert ("--organisers-on-wifi" in words) is opted_in
    assert not any("uid=" in word for word in words)  # what it holds is never run


def test_the_readme_restores_from_where_the_backups_are_and_names_every_host() -> None:
    """README step 6's ``FILE=backups/…`` failed: make venue's backups are in the data
    folder's ``backups/``; and "the only host it answers to" left out ``localhost`` and
    ``127.0.0.1``, which answer too (issue 32, item 5)."""
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text()
    commands = [c for c in re.findall(r"`make restore ([^`]*)`", readme) if "FILE=" in c]
    assert commands
    for command in commands:
        words = dict(word.split("=", 1) for word in shlex.split(command))
        assert words["FILE"].startswith(f"{words.get('DATA', 'venue')}/backups/"), command
    assert "only host" not in readme
    step = readme[readme.index("2. **In the hall**") : readme.index("3. **Morning")]
    hosts = Venue(address="192.168.1.20", port=8000, hostname="pc").environment()
    assert hosts["ALLOWED_HOSTS"] == "192.168.1.20,127.0.0.1,localhost,pc,pc.local"
    assert all(f"`{host}`" in step for host in ("127.0.0.1", "localhost", "<name>.local"))


def test_the_static_files_compression_says_how_far_it_is() -> None:
    """ "A few seconds" of compression took 22 s without a word (issue 32): collectstatic's
    lines are counted, each tenth of the files named by their content said, then the
    compressed copies by hundreds."""
    said: list[str] = []
    stream = _Counted(20, said.append)
    for n in range(20):
        stream.write(f"Post-processed 'css/{n}.css' as 'css/{n}.abc.css'\n")
    stream.write("Post-processed 'css/0.abc.css' as 'css/0.abc.css.gz'\n" * 250)
    assert said == [f"  named by their content: {t} %" for t in range(10, 101, 10)] + [
        "  compressed: 100 copies",
        "  compressed: 200 copies",
    ]

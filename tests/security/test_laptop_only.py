"""``make venue``: organiser pages on the laptop only (issue 20, finding 6).

The hall's Wi-Fi is plain HTTP and its password is on the poster. With the guard on (what
``make venue`` sets unless ``ORGANISERS_ON_WIFI=1``), a phone's request never acts as an
organiser: every page and API operation of the permission matrix is sent by the organiser
from a phone's address, and each answers as it answers a referee's link from the laptop,
except that what refuses the link (403, a redirect to the login, the account pages) answers
the "on the laptop only" 403 page. Players' pages and table links keep working.

Tests stay on loopback: the phone's address is the test client's ``REMOTE_ADDR`` (what
gunicorn sets from the connection), or a trusted proxy's X-Forwarded-For from 127.0.0.1.
"""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.db import transaction
from django.test import Client
from django.urls import reverse, set_script_prefix

from tests.security.conftest import World, english, logged_in
from tests.security.test_permission_matrix import (
    API,
    PAGES,
    api_path,
    api_request,
    api_token,
    codes,
)
from tournament.site.accounts import laptop
from tournament.site.accounts.laptop import ACCOUNT_PAGES

ROOT = Path(__file__).resolve().parent.parent.parent
#: A phone on the hall's Wi-Fi (a private address, as a hall's router gives).
PHONE = "192.168.1.37"
PHONE_METHODS = {"REMOTE_ADDR": PHONE}


@pytest.fixture
def venue(settings):
    """What make venue's settings say: the guard on, no proxy in front."""
    settings.ORGANISERS_LAPTOP_ONLY = True
    settings.TRUSTED_PROXY_COUNT = 0
    return settings


def send(client: Client, method: str, url: str) -> Any:
    sid = transaction.savepoint()
    try:
        return client.get(url) if method == "GET" else client.post(url)
    finally:
        transaction.savepoint_rollback(sid)


def is_login_redirect(response: Any) -> bool:
    return response.status_code == 302 and response["Location"].startswith(reverse("login"))


def says_laptop_only(response: Any) -> bool:
    text = response.content.decode()
    return (
        response.status_code == 403
        and "laptop" in text
        and "ORGANISERS_ON_WIFI=1" in text
        and "http://127.0.0.1:80" in text
    )


# --- Every page -------------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["GET", "POST"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_phone_never_opens_an_organiser_page(venue, world: World, name: str, method: str) -> None:
    arguments, expected_by_method = PAGES[name]
    organiser = world.users["organiser"]
    # The organiser's own session cookie, sent from a phone (as if read off the Wi-Fi).
    phone = logged_in(organiser, **PHONE_METHODS)
    link_on_laptop = english(Client())
    url = reverse(name, kwargs=arguments(world, "organiser"))  # table 1's link, as the link's

    on_phone = send(phone, method, url)
    as_link = send(link_on_laptop, method, reverse(name, kwargs=arguments(world, "link")))
    on_laptop = send(logged_in(organiser), method, url)

    refused = name in ACCOUNT_PAGES or as_link.status_code == 403 or is_login_redirect(as_link)
    if refused:
        assert says_laptop_only(on_phone), (name, method, on_phone.status_code)
    else:
        assert on_phone.status_code == as_link.status_code, (name, method)
    # The laptop itself, guard on: exactly the matrix's organiser.
    assert on_laptop.status_code == codes(expected_by_method[method])["organiser"], (name, method)


# --- Every API operation ------------------------------------------------------------------------


def api_client(token: str | None, **extra: str) -> Client:
    headers = {"HTTP_ACCEPT_LANGUAGE": "en", **extra}
    if token:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
    return Client(**headers)


@pytest.mark.django_db
@pytest.mark.parametrize("operation", sorted(API), ids=lambda op: f"{op[0]} {op[1]}")
def test_a_phone_never_uses_an_organiser_token(venue, world: World, operation) -> None:
    method, path = operation
    body, expected_text = API[operation]
    if callable(body):
        body = body(world)
    url = "/api/v1" + api_path(world, path)
    expected = codes(expected_text)

    def call(role: str, **extra: str) -> Any:
        client = api_client(api_token(world, role, path), **extra)
        sid = transaction.savepoint()
        try:
            return api_request(client, method, url, body)
        finally:
            transaction.savepoint_rollback(sid)

    for role in ("organiser", "account", "outsider"):  # accounts' tokens: refused, said why
        answer = call(role, **PHONE_METHODS)
        assert answer.status_code == 403, (role, method, path, answer.status_code)
        assert "ORGANISERS_ON_WIFI=1" in answer.json()["detail"]
        assert answer.json()["errors"] == {}
    # A referee's link and nobody: exactly as the matrix says, phone or not.
    for role in ("link", "anonymous"):
        assert call(role, **PHONE_METHODS).status_code == expected[role], (role, method, path)
    assert call("organiser").status_code == expected["organiser"], (method, path)


# --- The refusal itself -------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_refusal_is_in_the_phones_language_never_a_redirect(venue, world: World) -> None:
    desk = reverse("event-desk", args=[world.event.slug])
    french = Client(REMOTE_ADDR=PHONE)  # no language chosen: the tournament's, French

    for url in (desk, reverse("login"), "/admin/", "/admin/login/", reverse("my-tables")):
        answer = french.get(url)
        assert answer.status_code == 403, url
        text = answer.content.decode()
        assert "ordinateur" in text and "ORGANISERS_ON_WIFI=1" in text, url
        assert "Location" not in answer
    english_answer = english(Client(REMOTE_ADDR=PHONE)).get(desk)
    assert "On the laptop only" in english_answer.content.decode()
    assert "http://127.0.0.1:80/e/" in english_answer.content.decode()


@pytest.mark.django_db
def test_the_right_password_typed_on_a_phone_logs_nobody_in(venue, world: World) -> None:
    phone = english(Client(REMOTE_ADDR=PHONE))

    answer = phone.post(reverse("login"), {"username": "orga", "password": "orga-pass-1"})

    assert says_laptop_only(answer)
    assert django_settings.SESSION_COOKIE_NAME not in answer.cookies
    assert phone.get(reverse("event-desk", args=[world.event.slug])).status_code == 403


@pytest.mark.django_db
def test_public_pages_and_table_links_work_from_a_phone(venue, world: World) -> None:
    phone = english(Client(REMOTE_ADDR=PHONE))

    assert phone.get(reverse("home")).status_code == 200
    assert phone.get(reverse("standings", args=[world.championship.slug])).status_code == 200
    assert phone.get(reverse("rtable", args=[world.rtables[0].token])).status_code == 200
    assert phone.get(reverse("qtable", args=[world.qtables[0].token])).status_code == 200
    assert phone.get(reverse("health")).status_code == 200


# --- Which address is the laptop ---------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("count", "remote", "forwarded", "opens"),
    [
        (0, "127.0.0.1", None, True),
        (0, "::1", None, True),
        (0, "::ffff:127.0.0.1", None, True),
        (0, PHONE, None, False),
        # A phone writing X-Forwarded-For itself: ignored without a trusted proxy.
        (0, PHONE, "127.0.0.1", False),
        # Behind one trusted proxy on the laptop: the address it saw is the client.
        (1, "127.0.0.1", PHONE, False),
        (1, "127.0.0.1", f"127.0.0.1, {PHONE}", False),  # a forged entry, left of it
        (1, "127.0.0.1", "127.0.0.1", True),
        # The laptop's own address on the Wi-Fi is not loopback: 127.0.0.1 is the way in.
        (0, "192.168.1.20", None, False),
    ],
)
def test_only_a_loopback_client_is_the_laptop(
    venue, world: World, count: int, remote: str, forwarded: str | None, opens: bool
) -> None:
    venue.TRUSTED_PROXY_COUNT = count
    extra = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        extra["HTTP_X_FORWARDED_FOR"] = forwarded
    client = logged_in(world.users["organiser"], **extra)

    answer = client.get(reverse("event-desk", args=[world.event.slug]))

    assert answer.status_code == (200 if opens else 403)


@pytest.mark.django_db
def test_hosted_or_opted_in_organisers_work_from_any_address(settings, world: World) -> None:
    settings.ORGANISERS_LAPTOP_ONLY = False  # a hosted server, or ORGANISERS_ON_WIFI=1
    phone = logged_in(world.users["organiser"], REMOTE_ADDR=PHONE)

    assert phone.get(reverse("event-desk", args=[world.event.slug])).status_code == 200
    assert phone.get(reverse("login")).status_code == 200
    token = world.api_tokens["organiser"]
    answer = api_client(token, REMOTE_ADDR=PHONE).get(f"/api/v1/events/{world.event.slug}")
    assert answer.status_code == 200, json.loads(answer.content)


# --- The settings that make venue's environment gives -------------------------------------------


def settings_under(monkeypatch, **environment: str) -> dict[str, Any]:
    """The settings module run again under ``environment`` (DEBUG on: no key needed)."""
    for name in ("VENUE", "ORGANISERS_ON_WIFI"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEBUG", "true")
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(ROOT / "paddock" / "settings.py"))


def test_venue_sessions_last_the_day_and_organisers_stay_on_the_laptop(monkeypatch) -> None:
    venue = settings_under(monkeypatch, VENUE="true", ORGANISERS_ON_WIFI="false")
    opted_in = settings_under(monkeypatch, VENUE="true", ORGANISERS_ON_WIFI="true")
    hosted = settings_under(monkeypatch, ORGANISERS_ON_WIFI="true")

    assert venue["ORGANISERS_LAPTOP_ONLY"] is True
    assert venue["SESSION_EXPIRE_AT_BROWSER_CLOSE"] is True
    assert venue["SESSION_COOKIE_AGE"] == 12 * 3600
    assert opted_in["ORGANISERS_LAPTOP_ONLY"] is False
    assert opted_in["SESSION_COOKIE_AGE"] == 12 * 3600  # still the day's sessions
    # Hosted: every address, Django's sessions (two weeks, kept across browser restarts).
    assert hosted["ORGANISERS_LAPTOP_ONLY"] is False
    assert "SESSION_EXPIRE_AT_BROWSER_CLOSE" not in hosted
    assert "SESSION_COOKIE_AGE" not in hosted
    assert "tournament.site.accounts.laptop.LaptopOnlyMiddleware" in hosted["MIDDLEWARE"]


@pytest.mark.django_db
def test_a_venue_login_is_a_browser_session_of_twelve_hours(venue, world: World) -> None:
    venue.SESSION_EXPIRE_AT_BROWSER_CLOSE = True
    venue.SESSION_COOKIE_AGE = 12 * 3600
    laptop = english(Client())

    answer = laptop.post(reverse("login"), {"username": "orga", "password": "orga-pass-1"})

    assert answer.status_code == 302
    cookie = answer.cookies[django_settings.SESSION_COOKIE_NAME]
    assert cookie["expires"] == "" and cookie["max-age"] == ""  # gone with the browser
    session = laptop.session
    assert session.get_expire_at_browser_close()
    assert 12 * 3600 - 60 <= session.get_expiry_age() <= 12 * 3600


def test_the_admins_place_is_read_for_each_script_prefix_never_once_for_all(
    venue, world: World
) -> None:
    """The guard's prefixes of the admin and account pages were kept process-wide from the
    first request (issue 32): a first request behind a path (``SCRIPT_NAME``, which the WSGI
    handler makes the script prefix) kept ``/paddock/admin/``, and the admin at ``/admin/``
    then answered a phone. Each script prefix (and URL configuration) now has its own."""
    kept = getattr(laptop, "_prefixes", None) or laptop._account_and_admin_prefixes
    kept.cache_clear()  # as a new process starts
    phone = logged_in(world.users["organiser"])
    set_script_prefix("/paddock/")  # what the WSGI handler does with SCRIPT_NAME
    try:
        behind_a_path = phone.get("/admin/", SCRIPT_NAME="/paddock", **PHONE_METHODS)
    finally:
        set_script_prefix("/")
    assert behind_a_path.status_code == 403
    at_the_root = phone.get("/admin/", **PHONE_METHODS)
    assert says_laptop_only(at_the_root), at_the_root.status_code
    assert says_laptop_only(phone.get(reverse("login"), **PHONE_METHODS))

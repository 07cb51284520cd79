"""The real client address behind a trusted proxy (issue 14): one helper, used by the login
lockouts (django-axes) and the bad-link limiter (tournament.site.ratelimit).

Behind a TLS proxy every request comes from the proxy's address (REMOTE_ADDR); the client is
in X-Forwarded-For, whose left part the client writes itself. ``TRUSTED_PROXY_COUNT`` says
how many proxies appended to it. The addresses are documentation ranges: no traffic here.
"""

from __future__ import annotations

import pytest
from django.test import Client, RequestFactory
from django.urls import reverse

from tests.security.conftest import UNKNOWN_TOKEN, World, english
from tournament.site import ratelimit
from tournament.site.client_ip import client_ip

PROXY = "10.0.0.1"
ORGANISER_HOME = "198.51.100.7"
ATTACKER = "203.0.113.66"
VENUE = "203.0.113.10"


def request(remote: str | None = PROXY, forwarded: str | None = None):
    meta = {}
    if forwarded is not None:
        meta["HTTP_X_FORWARDED_FOR"] = forwarded
    built = RequestFactory().get("/", **meta)
    if remote is None:
        del built.META["REMOTE_ADDR"]
    else:
        built.META["REMOTE_ADDR"] = remote
    return built


# --- The helper --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("count", "remote", "forwarded", "expected"),
    [
        # No proxy (the default): X-Forwarded-For is whatever the client wrote, ignored.
        (0, "192.0.2.9", "1.2.3.4", "192.0.2.9"),
        (0, "2001:db8:0:0::1", None, "2001:db8::1"),
        # One proxy appends the address it was reached from: the last entry.
        (1, PROXY, "198.51.100.7", "198.51.100.7"),
        (1, PROXY, "1.2.3.4, 198.51.100.7", "198.51.100.7"),  # a forged entry, left of it
        (1, PROXY, "1.2.3.4,198.51.100.7 ", "198.51.100.7"),
        # Two proxies (a CDN, then nginx): the second entry from the right.
        (2, PROXY, "1.2.3.4, 198.51.100.7, 192.0.2.50", "198.51.100.7"),
        # Fewer entries than proxies: every entry came from a trusted proxy, the first is the
        # farthest address they saw.
        (2, PROXY, "198.51.100.7", "198.51.100.7"),
        # Straight to the server (no header): the address that connected.
        (1, "192.0.2.9", None, "192.0.2.9"),
        (1, "192.0.2.9", "", "192.0.2.9"),
        # Ports and brackets some proxies add.
        (1, PROXY, "198.51.100.7:51234", "198.51.100.7"),
        (1, PROXY, "[2001:db8::7]:443", "2001:db8::7"),
        # Not an address where the client should be: the proxy's, never the text.
        (1, PROXY, "unknown", PROXY),
        (1, PROXY, "<script>", PROXY),
        # No address at all (a unix socket, force_login): None, as axes stores it.
        (0, None, None, None),
        (0, "", None, None),
        (0, "not-an-address", None, None),
    ],
)
def test_client_ip(settings, count, remote, forwarded, expected) -> None:
    settings.TRUSTED_PROXY_COUNT = count
    assert client_ip(request(remote, forwarded)) == expected


# --- The bad-link limiter ----------------------------------------------------------------------

LIMIT = 3


@pytest.fixture
def behind_proxy(settings):
    settings.TRUSTED_PROXY_COUNT = 1
    settings.TOKEN_FAILURE_LIMIT = LIMIT
    settings.TOKEN_FAILURE_WINDOW = 600
    yield settings
    for address in (PROXY, ORGANISER_HOME, ATTACKER, VENUE, "1.2.3.4"):
        ratelimit.forget(address)


def through_proxy(client_address: str, forged: str = "") -> Client:
    forwarded = f"{forged}, {client_address}" if forged else client_address
    return english(Client(REMOTE_ADDR=PROXY, HTTP_X_FORWARDED_FOR=forwarded))


def bad_link(n: int = 0) -> str:
    return reverse("rtable", args=[f"{UNKNOWN_TOKEN}{n}"])


@pytest.mark.django_db
def test_the_link_limiter_counts_per_real_client_behind_the_proxy(
    world: World, behind_proxy
) -> None:
    attacker = through_proxy(ATTACKER)
    assert [attacker.get(bad_link(n)).status_code for n in range(LIMIT)] == [404] * LIMIT
    assert attacker.get(bad_link(99)).status_code == 429

    # Another client behind the same proxy is not limited by the attacker's failures...
    assert through_proxy(VENUE).get(bad_link(99)).status_code == 404
    # ...and the attacker cannot get out by writing an address of their own in the header.
    assert through_proxy(ATTACKER, forged="1.2.3.4").get(bad_link(99)).status_code == 429
    assert ratelimit.failures(attacker.get(bad_link(98)).wsgi_request) == LIMIT


@pytest.mark.django_db
def test_without_a_trusted_proxy_the_header_changes_nothing(world: World, behind_proxy) -> None:
    behind_proxy.TRUSTED_PROXY_COUNT = 0
    for n in range(LIMIT):
        through_proxy(ATTACKER).get(bad_link(n))

    # Every client is the proxy's address: a forged header is no way out.
    assert through_proxy("1.2.3.4").get(bad_link(99)).status_code == 429


# --- Logins (django-axes) ------------------------------------------------------------------------


def login(client: Client, username: str, password: str):
    return client.post(reverse("login"), {"username": username, "password": password})


@pytest.mark.django_db
def test_a_lockout_at_one_address_never_blocks_the_organiser_from_another(
    world: World, behind_proxy
) -> None:
    limit = behind_proxy.AXES_FAILURE_LIMIT
    attacker = through_proxy(ATTACKER)
    statuses = [login(attacker, "orga", "guess").status_code for _ in range(limit)]
    assert statuses == [200] * (limit - 1) + [429]
    assert login(attacker, "orga", "orga-pass-1").status_code == 429

    organiser = through_proxy(ORGANISER_HOME)
    response = login(organiser, "orga", "orga-pass-1")

    assert response.status_code == 302
    assert organiser.session["_auth_user_id"] == str(world.users["organiser"].pk)
    # The lockout was recorded at the attacker's address, not at the proxy's.
    from axes.models import AccessAttempt

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {ATTACKER}


@pytest.mark.django_db
def test_password_spraying_locks_the_address_across_usernames(world: World, behind_proxy) -> None:
    behind_proxy.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    attacker = through_proxy(ATTACKER)
    # One guess per name: no account reaches its own limit.
    statuses = [login(attacker, f"name{n}", "Summer2026!").status_code for n in range(7)]
    assert statuses == [200] * 7
    assert login(attacker, "arbitre2", "Summer2026!").status_code == 429

    # From that address, nothing more, not even a right password...
    refused = login(through_proxy(ATTACKER), "arbitre1", "ref-pass-1")
    assert refused.status_code == 429
    assert "Too many failed logins from this address" in refused.content.decode()
    # ...while everyone elsewhere logs in.
    assert login(through_proxy(ORGANISER_HOME), "arbitre1", "ref-pass-1").status_code == 302


@pytest.mark.django_db
def test_a_room_of_typos_below_the_address_limit_locks_nobody(world: World, behind_proxy) -> None:
    """Several people behind the venue's one address, each mistyping a few times."""
    behind_proxy.LOGIN_ADDRESS_FAILURE_LIMIT = 8
    room = through_proxy(VENUE)
    for username in ("orga", "arbitre1", "arbitre2"):
        for _ in range(2):
            assert login(room, username, "typo").status_code == 200

    assert login(room, "orga", "orga-pass-1").status_code == 302
    assert login(through_proxy(VENUE), "arbitre1", "ref-pass-1").status_code == 302

"""Rate limits count failures only: bad table links and API tokens (tournament.site.ratelimit,
on the cache) and failed logins (django-axes, database handler)."""

from __future__ import annotations

import pytest
from django.test import Client, override_settings
from django.urls import reverse

from races.grid.services import referee_link_regenerate
from races.models import RaceTable
from tests.security.conftest import UNKNOWN_TOKEN, World, english
from tournament.access import Actor
from tournament.site import ratelimit

pytestmark = pytest.mark.django_db

LIMIT = 5


@pytest.fixture(autouse=True)
def small_limit(settings):
    settings.TOKEN_FAILURE_LIMIT = LIMIT
    settings.TOKEN_FAILURE_WINDOW = 600
    yield
    ratelimit.forget("10.0.0.7")


def phone(address: str = "127.0.0.1") -> Client:
    return english(Client(REMOTE_ADDR=address))


def bad_link(n: int = 0) -> str:
    return reverse("rtable", args=[f"{UNKNOWN_TOKEN}{n}"])


def test_unknown_links_past_the_limit_get_429_with_a_clear_message(world: World) -> None:
    client = phone()
    statuses = [client.get(bad_link(n)).status_code for n in range(LIMIT)]
    assert statuses == [404] * LIMIT

    refused = client.get(bad_link(99))

    assert refused.status_code == 429
    assert "Too many wrong links or tokens from this address" in refused.content.decode()


def test_valid_links_keep_working_for_a_limited_address(world: World) -> None:
    """A room of referees behind one address: one phone's mistakes never block the others."""
    client = phone()
    for n in range(LIMIT + 3):
        client.get(bad_link(n))

    assert client.get(reverse("rtable", args=[world.rtables[0].token])).status_code == 200
    assert client.get(reverse("qtable", args=[world.qtables[1].token])).status_code == 200


def test_successes_never_count(world: World) -> None:
    client = phone()
    for _ in range(LIMIT * 4):
        assert client.get(reverse("qtable", args=[world.qtables[0].token])).status_code == 200

    assert client.get(bad_link()).status_code == 404
    assert ratelimit.failures(client.get(bad_link(1)).wsgi_request) == 2


def test_the_limit_is_per_address(world: World) -> None:
    for n in range(LIMIT):
        phone().get(bad_link(n))

    assert phone().get(bad_link(99)).status_code == 429
    assert phone("10.0.0.7").get(bad_link(99)).status_code == 404


def test_replaced_links_are_not_failures(world: World) -> None:
    table = RaceTable.objects.get(pk=world.rtables[0].pk)  # not the module's shared object
    old = table.token
    referee_link_regenerate(actor=Actor(user=world.users["organiser"]), table=table)
    client = phone()
    statuses = {client.get(reverse("rtable", args=[old])).status_code for _ in range(LIMIT * 2)}

    assert statuses == {410}
    assert client.get(bad_link()).status_code == 404


def test_qualifying_links_count_too(world: World) -> None:
    client = phone()
    for n in range(LIMIT):
        assert client.get(reverse("qtable", args=[f"nope{n}"])).status_code == 404

    assert client.get(reverse("qtable", args=["nope-again"])).status_code == 429


def api(token: str, address: str = "127.0.0.1") -> Client:
    return Client(
        HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en", REMOTE_ADDR=address
    )


def test_unknown_api_tokens_past_the_limit_get_429_json(world: World) -> None:
    url = f"/api/v1/events/{world.event.slug}/tables"
    statuses = [api(f"wrong-{n}").get(url).status_code for n in range(LIMIT)]
    assert statuses == [401] * LIMIT

    refused = api("wrong-again").get(url)

    assert refused.status_code == 429
    assert "Too many wrong links or tokens" in refused.json()["detail"]
    # A valid token from the same address still works.
    assert api(world.rtables[0].token).get(url).status_code == 200
    assert api(world.api_tokens["organiser"]).get(url).status_code == 200


def test_a_cache_outage_never_blocks_a_referee(world: World) -> None:
    """Redis down (a closed port): links still work and unknown ones are plain 404s."""
    down = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",
        }
    }
    with override_settings(CACHES=down):
        client = phone()
        for n in range(LIMIT * 2):
            assert client.get(bad_link(n)).status_code == 404
        assert client.get(reverse("rtable", args=[world.rtables[0].token])).status_code == 200
        url = f"/api/v1/events/{world.event.slug}/tables"
        assert api("wrong").get(url).status_code == 401


# --- Logins (django-axes) -------------------------------------------------------------------


def login(client: Client, username: str, password: str) -> int:
    return client.post(reverse("login"), {"username": username, "password": password}).status_code


def test_failed_logins_lock_that_account_from_that_address(world: World, settings) -> None:
    limit = settings.AXES_FAILURE_LIMIT
    client = phone()
    statuses = [login(client, "orga", "wrong") for _ in range(limit - 1)]
    assert statuses == [200] * (limit - 1)  # the form again, with its error
    assert login(client, "orga", "wrong") == 429

    locked = client.post(reverse("login"), {"username": "orga", "password": "orga-pass-1"})

    assert locked.status_code == 429
    assert "Too many failed logins" in locked.content.decode()
    assert "_auth_user_id" not in client.session
    # Another account from the same room, and the same account from elsewhere, log in.
    assert login(phone(), "arbitre1", "ref-pass-1") == 302
    assert login(phone("10.0.0.7"), "orga", "orga-pass-1") == 302


def test_successful_logins_never_count(world: World, settings) -> None:
    limit = settings.AXES_FAILURE_LIMIT
    for _ in range(limit * 3):
        assert login(phone(), "arbitre1", "ref-pass-1") == 302
    for _ in range(limit - 1):
        assert login(phone(), "arbitre1", "typo") == 200

    assert login(phone(), "arbitre1", "ref-pass-1") == 302
    # A success resets the count: the next typos start from zero.
    assert login(phone(), "arbitre1", "typo") == 200

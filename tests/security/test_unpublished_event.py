"""The site and the API agree on an unpublished event (issue 14): before race control
publishes anything of it (allocation, qualifying or results), its name, date and circuit
are shown to its organisers only, on the site as in the API; once something is published,
to everyone, in both."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from tests.security.conftest import World, english, logged_in
from tournament.models import ApiToken, Event

pytestmark = pytest.mark.django_db

#: Who asks, on the site and in the API; True for those who see the unpublished event.
CALLERS = {
    "organiser": True,
    "admin": True,
    "referee account": False,
    "referee link": False,
    "outsider": False,
    "anonymous": False,
}


def site_client(world: World, caller: str) -> Client:
    users = {
        "organiser": "organiser",
        "admin": "admin",
        "referee account": "ref1",
        "outsider": "outsider",
    }
    return logged_in(world.users[users[caller]]) if caller in users else english(Client())


def api_client(world: World, caller: str) -> Client:
    tokens = {
        "organiser": world.api_tokens["organiser"],
        "referee account": world.api_tokens["ref1"],
        "outsider": world.api_tokens["outsider"],
        "referee link": world.rtables[0].token,
    }
    if caller == "admin":
        tokens["admin"] = ApiToken.issue(world.users["admin"])
    headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
    if caller in tokens:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {tokens[caller]}"
    return Client(**headers)


def site_shows(world: World, caller: str) -> dict[str, Any]:
    client = site_client(world, caller)
    page = client.get(reverse("event", args=[world.event.slug]))
    link = reverse("event", args=[world.event.slug])
    home = client.get(reverse("home")).content.decode()
    championship = client.get(reverse("championship", args=[world.championship.slug]))
    return {
        "page": page.status_code == 200 and "Monza" in page.content.decode(),
        "listed": link in home and link in championship.content.decode(),
    }


def api_shows(world: World, caller: str) -> dict[str, Any]:
    client = api_client(world, caller)
    detail = client.get(f"/api/v1/events/{world.event.slug}")
    listed = client.get(f"/api/v1/championships/{world.championship.slug}/events").json()
    return {
        "page": detail.status_code == 200 and detail.json()["circuit"] == "monza",
        "listed": world.event.slug in [event["slug"] for event in listed],
    }


@pytest.mark.parametrize("caller", list(CALLERS))
def test_an_unpublished_event_is_its_organisers_only_on_the_site_and_in_the_api(
    world: World, caller: str
) -> None:
    seen = CALLERS[caller]
    expected = {"page": seen, "listed": seen}
    assert site_shows(world, caller) == expected
    assert api_shows(world, caller) == expected


@pytest.mark.parametrize("what", ["allocation", "qualifying", "results"])
@pytest.mark.parametrize("caller", list(CALLERS))
def test_once_anything_is_published_everyone_sees_it_on_both(
    world: World, caller: str, what: str
) -> None:
    sid = transaction.savepoint()
    try:
        Event.objects.filter(pk=world.event.pk).update(**{f"published_{what}": True})
        expected = {"page": True, "listed": True}
        assert site_shows(world, caller) == expected
        assert api_shows(world, caller) == expected
    finally:
        transaction.savepoint_rollback(sid)


def test_the_unpublished_event_page_is_the_404_of_an_unknown_one(world: World) -> None:
    client = english(Client())
    hidden = client.get(reverse("event", args=[world.event.slug]))
    unknown = client.get(reverse("event", args=["nowhere"]))
    assert hidden.status_code == unknown.status_code == 404
    assert "Grand Prix" not in hidden.content.decode()

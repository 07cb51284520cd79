"""The away guard against every route of an event: while it is away, each write answers
409 (the API's JSON with ``away_since``, a page elsewhere), whoever sends it (an organiser's
session or token, a table's link); its pages say the day runs at the venue; another event
of the championship carries on."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from qualifying.models import QualifyingTable
from races.models import RaceTable
from tournament import sealing
from tournament.away.models import Checkout
from tournament.models import ApiToken
from tournament.signup.models import Registration

WRITES = ("post", "put", "patch", "delete")
#: The trip's own routes act on an event away on purpose.
OWN = re.compile(r"/(?:checkout|return)$|^e/<slug:slug>/away/")


def _routes(patterns=None, prefix: str = "") -> list[str]:
    found = []
    for pattern in patterns if patterns is not None else get_resolver().url_patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            found += _routes(pattern.url_patterns, route)
        elif isinstance(pattern, URLPattern) and "(?P<" not in route and not OWN.search(route):
            found.append(route)
    return sorted(set(found))


def event_routes() -> list[str]:
    """Every route of one event: the API's under ``events/<event>``, the pages under
    ``e/<slug>`` and a table's link under ``q/<token>`` and ``r/<token>``."""
    return [
        r
        for r in _routes()
        if r.startswith(
            ("api/v1/events/<event>", "e/<slug:slug>", "q/<str:token>", "r/<str:token>")
        )
    ]


def url_of(route: str, event: str, token: str) -> str:
    def value(match: re.Match) -> str:
        name = match.group(1).split(":")[-1]
        return {"event": event, "slug": event, "token": token, "kind": "race"}.get(name, "1")

    return "/" + re.sub(r"<([^>]+)>", value, route)


@pytest.fixture
def away(make_event, organiser):
    event = make_event(4, published_allocation=True)
    other = make_event(4, slug="gp-2", published_allocation=True)
    links = {"q": sealing.new_link_secret(), "r": sealing.new_link_secret()}
    qualifying = QualifyingTable(event=event, number=1)
    qualifying.token = links["q"]
    qualifying.save()
    race = RaceTable(event=event, number=1)
    race.token = links["r"]
    race.save()
    checkout = Checkout.objects.create(
        event=event, side=Checkout.Side.HOSTED, key=sealing.seal("k"), by=organiser
    )
    return event, other, links, checkout


def test_every_route_of_an_event_is_found():
    routes = event_routes()
    assert len(routes) > 60
    assert "api/v1/events/<event>/tables/<t>/result" in routes
    assert "e/<slug:slug>/desk/register/" in routes
    assert "r/<str:token>/result/" in routes


@pytest.mark.django_db
@pytest.mark.parametrize("route", event_routes())
def test_a_write_to_an_event_away_answers_409(route, away, client, organiser):
    event, other, links, checkout = away
    token = links["q" if route.startswith("q/") else "r"]
    url = url_of(route, event.slug, token)
    if route.startswith("api/"):
        for bearer in (ApiToken.issue(organiser), links["r"]):
            for method in WRITES if route.endswith("/result") else ("post",):
                answer = getattr(client, method)(
                    url, data="{}", content_type="application/json",
                    headers={"Authorization": f"Bearer {bearer}"},
                )  # fmt: skip
                assert answer.status_code == 409, (method, url, answer.content[:200])
                assert answer.json()["away_since"] == checkout.at.isoformat()
                assert "sur place" in answer.json()["detail"]  # French unless asked
        return
    client.force_login(organiser)
    answer = client.post(url, {"numbers": "1"})
    assert answer.status_code == 409, (url, answer.content[:200])
    assert "La journée se déroule sur place" in answer.content.decode()


# Committed: on PostgreSQL the change counters move at the commit (tournament.public.cache).
@pytest.mark.django_db(transaction=True)
def test_its_pages_say_so_and_the_championship_carries_on(away, client, organiser):
    event, other, links, checkout = away
    phone = Client()
    phone.cookies["django_language"] = "en"
    page = phone.get(f"/e/{event.slug}/")
    assert page.status_code == 200
    assert "The day runs at the venue" in page.content.decode()
    table = client.get(f"/r/{links['r']}/")
    assert table.status_code == 200 and "away-banner" in table.content.decode()
    assert "away-banner" not in client.get(f"/e/{other.slug}/").content.decode()
    client.force_login(organiser)
    refused = client.post(f"/e/{event.slug}/desk/register/", {"numbers": "1"})
    assert refused.status_code == 409
    # Home again: the page a phone got from the cache is built again, without the banner.
    checkout.cancelled_at = checkout.at
    checkout.save()
    assert "away-banner" not in phone.get(f"/e/{event.slug}/").content.decode()
    assert client.post(f"/e/{event.slug}/desk/register/", {"numbers": "1"}).status_code == 302
    home = client.post(f"/e/{other.slug}/desk/register/", {"numbers": "1", "action": "checkin"})
    assert home.status_code == 302


@pytest.mark.django_db
def test_a_registrants_links_read_but_do_not_write_while_away(away, client):
    """DOMAIN.md "Corrections to 'Before the day'": while an event is away, the registrants'
    own links read but do not write on the hosted server (409, as every write of that
    event): a cancellation accepted here moved the waiting list in, and the return then
    wrote the laptop's statuses over it."""
    event, other, links, checkout = away
    own, confirm = sealing.new_link_secret(), sealing.new_link_secret()
    registration = Registration.objects.create(
        event=event, first_name="Élodie", last_name="Lefèvre", email="elodie@example.org",
        status="accepted", link_digest=sealing.link_digest(own),
    )  # fmt: skip
    Registration.objects.create(
        event=event, first_name="Paul", last_name="Martin", email="paul@example.org",
        confirm_digest=sealing.link_digest(confirm),
    )  # fmt: skip
    api = f"/api/v1/registrations/{own}"
    assert client.get(api).status_code == 200
    for method, body in (("patch", {"team": "Autre"}), ("delete", {})):
        answer = getattr(client, method)(api, data=body, content_type="application/json")
        assert answer.status_code == 409, (method, answer.content[:200])
        assert set(answer.json()) >= {"detail", "away_since"}
        assert answer.json()["away_since"] == checkout.at.isoformat()
    assert client.get(f"/registrations/{own}/").status_code == 200
    page = client.post(f"/registrations/{own}/", {"action": "cancel"})
    assert page.status_code == 409
    assert "La journée se déroule sur place" in page.content.decode()
    confirmed = client.post(
        "/api/v1/registrations/confirm", data={"token": confirm}, content_type="application/json"
    )
    assert confirmed.status_code == 409 and "away_since" in confirmed.json()
    assert client.post(f"/registrations/confirm/{confirm}/").status_code == 409
    registration.refresh_from_db()
    assert registration.status == "accepted" and registration.team == ""
    assert Registration.objects.get(first_name="Paul").status == "unconfirmed"
    # Home again, the own link writes.
    checkout.cancelled_at = checkout.at
    checkout.save()
    assert client.delete(api).status_code == 200

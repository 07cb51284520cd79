"""Referee links and referee accounts: what a table's link opens, what a referee account
sees ("My tables"), new links for qualifying and race tables, what the public sees, and
the admin where a superuser names the organisers."""

from __future__ import annotations

import math

import pytest
from django.test import Client
from django.urls import reverse

from qualifying.models import QualifyingTable, new_table_token
from races.models import RaceTable
from tests.security.conftest import World, english, logged_in

pytestmark = pytest.mark.django_db


def test_a_table_link_holds_at_least_128_random_bits() -> None:
    tokens = {new_table_token() for _ in range(200)}
    assert len(tokens) == 200
    token = tokens.pop()
    # URL-safe base64: 6 bits a character.
    assert len(token) * math.log2(64) >= 128
    assert set(token) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


def test_my_tables_lists_the_accounts_tables_and_nothing_else(world: World) -> None:
    client = logged_in(world.users["ref1"])

    text = client.get(reverse("my-tables")).content.decode()

    assert reverse("qtable", args=[world.qtables[0].token]) in text
    assert reverse("rtable", args=[world.rtables[0].token]) in text
    assert reverse("rtable-history", args=[world.rtables[0].token]) in text
    assert world.qtables[1].token not in text
    assert world.rtables[1].token not in text


def test_my_tables_needs_a_login_and_is_in_the_menu(world: World) -> None:
    response = english(Client()).get(reverse("my-tables"))
    assert response.status_code == 302
    assert reverse("login") in response["Location"]
    home = logged_in(world.users["ref2"]).get(reverse("home")).content.decode()
    assert reverse("my-tables") in home


def test_my_tables_follows_a_new_link(world: World) -> None:
    organiser = logged_in(world.users["organiser"])
    old = world.qtables[0].token
    organiser.post(
        reverse("qualifying-referee-link", args=[world.event.slug, 1]), {"confirmed": "1"}
    )

    new = QualifyingTable.objects.get(pk=world.qtables[0].pk).token
    text = logged_in(world.users["ref1"]).get(reverse("my-tables")).content.decode()

    assert new != old
    assert reverse("qtable", args=[new]) in text


@pytest.mark.parametrize("kind", ["qualifying", "race"])
def test_the_organiser_renews_a_link_from_the_desk_and_the_old_one_is_replaced(
    world: World, kind: str
) -> None:
    organiser = logged_in(world.users["organiser"])
    if kind == "qualifying":
        model, page, action, view = (
            QualifyingTable,
            "event-desk",
            "qualifying-referee-link",
            "qtable",
        )
        table = world.qtables[0]
    else:
        model, page, action, view = RaceTable, "allocation", "race-referee-link", "rtable"
        table = world.rtables[0]
    button = reverse(action, args=[world.event.slug, 1])
    assert button in organiser.get(reverse(page, args=[world.event.slug])).content.decode()

    asked = organiser.post(button)  # a confirmation first: the printed QR code stops working
    assert asked.status_code == 200 and "QR code" in asked.content.decode()
    assert model.objects.get(pk=table.pk).token == table.token
    response = organiser.post(button, {"confirmed": "1"})

    assert response.status_code == 302
    new = model.objects.get(pk=table.pk).token
    phone = english(Client())
    replaced = phone.get(reverse(view, args=[table.token]))
    assert replaced.status_code == 410
    assert "This link was replaced" in replaced.content.decode()
    assert phone.get(reverse(view, args=[new])).status_code == 200
    api = Client(HTTP_AUTHORIZATION=f"Bearer {table.token}", HTTP_ACCEPT_LANGUAGE="en")
    refused = api.get(f"/api/v1/events/{world.event.slug}/tables")
    assert refused.status_code == 401
    assert "replaced" in refused.json()["detail"]
    # Recorded: who gave the new link (race tables keep a history of their own).
    if kind == "race":
        assert RaceTable.history.filter(id=table.pk).latest("history_id").history_actor == "orga"


def test_a_referee_account_cannot_write_another_table_through_the_api(world: World) -> None:
    api = Client(HTTP_AUTHORIZATION=f"Bearer {world.api_tokens['ref1']}", HTTP_ACCEPT_LANGUAGE="en")
    other = world.rtables[1]
    number = other.slots.order_by("position").first().driver.number
    url = f"/api/v1/events/{world.event.slug}/tables/2/stands"

    response = api.put(url, {"stands": {str(number): 2}}, content_type="application/json")

    assert response.status_code == 403
    assert api.get(f"/api/v1/events/{world.event.slug}/tables/2/result").status_code == 403
    assert api.get(f"/api/v1/events/{world.event.slug}/tables/1/result").status_code == 200


def test_a_table_link_cannot_reach_another_tables_driver(world: World) -> None:
    phone = english(Client())
    theirs = world.qdriver(0)  # seated at qualifying table 1
    link = world.qtables[1].token
    for name in ("run-history", "run-cancel"):
        assert phone.get(reverse(name, args=[link, 1, theirs])).status_code == 404
    for name in ("run-save", "run-preview"):
        assert phone.post(reverse(name, args=[link, 1, theirs])).status_code == 404


# --- Everyone else: read-only, published only -----------------------------------------------


def test_the_public_sees_an_event_once_published(world: World) -> None:
    from races.results.services import result_confirm
    from tournament.access import Actor

    table = RaceTable.objects.get(pk=world.rtables[0].pk)
    result_confirm(actor=Actor(user=world.users["organiser"]), table=table, version=1)
    public = english(Client())
    slug = world.event.slug
    pages = [
        reverse("event-results", args=[slug]),
        reverse("qualifying-general", args=[slug]),
        reverse("where", args=[slug]),
    ]
    assert [public.get(url).status_code for url in pages] == [404, 404, 404]
    api_standings = public.get(f"/api/v1/championships/{world.championship.slug}/standings")
    assert api_standings.json() == []
    assert public.get(f"/api/v1/events/{slug}/results").status_code == 404

    organiser = logged_in(world.users["organiser"])
    organiser.post(
        reverse("desk-publish", args=[slug]), {"allocation": "1", "qualifying": "1", "results": "1"}
    )

    assert [public.get(url).status_code for url in pages] == [200, 200, 200]
    assert public.get(f"/api/v1/events/{slug}/results").status_code == 200
    api_standings = public.get(f"/api/v1/championships/{world.championship.slug}/standings")
    assert api_standings.json()[0]["points"] == 10  # the winner of the confirmed table
    # Still read-only: the public writes nothing.
    assert public.post(reverse("desk-publish", args=[slug])).status_code == 403
    entries = public.post(
        f"/api/v1/events/{slug}/entries", {"numbers": [1]}, content_type="application/json"
    )
    assert entries.status_code == 401


# --- The admin: a superuser names the organisers --------------------------------------------


def test_a_superuser_names_an_organiser_in_the_admin(world: World) -> None:
    admin = logged_in(world.users["admin"])
    championship = world.championship
    url = reverse("admin:tournament_championship_change", args=[championship.pk])
    form = admin.get(url)
    assert form.status_code == 200
    assert 'name="organisers"' in form.content.decode()
    referee = world.users["ref2"]

    data = {
        "slug": championship.slug,
        "name": championship.name,
        "season": championship.season,
        "points_scale": "[10, 8, 6]",
        "points_mode": championship.points_mode,
        "best_results": "",
        "organisers": [world.users["organiser"].pk, referee.pk],
    }
    response = admin.post(url, data)

    assert response.status_code == 302, response.content.decode()[:2000]
    assert championship.is_organiser(referee)
    # The new organiser reaches the desk at once; the admin stays closed to them.
    newly = logged_in(referee)
    assert newly.get(reverse("event-desk", args=[world.event.slug])).status_code == 200
    assert newly.get(reverse("admin:index")).status_code == 302


def admin_urls() -> list[str]:
    from django.contrib import admin

    urls = [reverse("admin:index"), reverse("admin:password_change")]
    for model in admin.site._registry:
        info = (model._meta.app_label, model._meta.model_name)
        urls += [
            reverse(f"admin:{info[0]}_{info[1]}_changelist"),
            reverse(f"admin:{info[0]}_{info[1]}_add"),
            reverse(f"admin:{info[0]}_{info[1]}_change", args=[1]),
            reverse(f"admin:{info[0]}_{info[1]}_delete", args=[1]),
            reverse(f"admin:{info[0]}_{info[1]}_history", args=[1]),
        ]
        urls.append(reverse("admin:app_list", kwargs={"app_label": model._meta.app_label}))
    return sorted(set(urls))


@pytest.mark.parametrize("who", ["organiser", "ref1", "outsider", None])
def test_the_admin_is_closed_to_everyone_but_staff(world: World, who: str | None) -> None:
    client = logged_in(world.users[who] if who else None)
    wrong = {}
    for url in admin_urls():
        for method in ("get", "post"):
            response = getattr(client, method)(url)
            if response.status_code != 302 or "/admin/login/" not in response["Location"]:
                wrong[f"{method} {url}"] = response.status_code
    assert wrong == {}


# --- Organisers assign referee accounts from the site -----------------------------------------


def _api(token: str) -> Client:
    return Client(HTTP_AUTHORIZATION=f"Bearer {token}", HTTP_ACCEPT_LANGUAGE="en")


def test_the_organiser_assigns_a_race_tables_referee_account_on_the_allocation_page(
    world: World,
) -> None:
    organiser = logged_in(world.users["organiser"])
    page = reverse("allocation", args=[world.event.slug])
    action = reverse("race-referee-account", args=[world.event.slug, 1])
    text = organiser.get(page).content.decode()
    assert action in text
    assert 'value="arbitre1"' in text  # the account table 1 has now

    response = organiser.post(action, {"username": "arbitre2"}, follow=True)

    assert "arbitre2 referees Table 1" in response.content.decode()
    table = RaceTable.objects.get(pk=world.rtables[0].pk)
    assert table.referee == world.users["ref2"]
    record = RaceTable.history.filter(id=table.pk).latest("history_id")
    assert (record.prev_record.referee_id, record.referee_id) == (
        world.users["ref1"].pk,
        world.users["ref2"].pk,
    )
    assert record.history_actor == "orga"
    # The new account opens the table (pages and API); the old one no longer does.
    result = f"/api/v1/events/{world.event.slug}/tables/1/result"
    assert _api(world.api_tokens["ref2"]).get(result).status_code == 200
    assert _api(world.api_tokens["ref1"]).get(result).status_code == 403
    my_tables = logged_in(world.users["ref2"]).get(reverse("my-tables")).content.decode()
    assert reverse("rtable", args=[table.token]) in my_tables

    organiser.post(action, {"username": ""})
    assert RaceTable.objects.get(pk=table.pk).referee is None


def test_an_unknown_account_is_refused_with_a_sentence(world: World) -> None:
    organiser = logged_in(world.users["organiser"])
    action = reverse("race-referee-account", args=[world.event.slug, 1])

    response = organiser.post(action, {"username": "personne"}, follow=True)

    assert "No active account is named “personne”." in response.content.decode()
    assert RaceTable.objects.get(pk=world.rtables[0].pk).referee == world.users["ref1"]
    referee = logged_in(world.users["ref1"])
    assert referee.post(action, {"username": "arbitre1"}).status_code == 403


def test_the_organiser_assigns_a_qualifying_tables_referee_account_at_the_desk(
    world: World,
) -> None:
    organiser = logged_in(world.users["organiser"])
    url = reverse("desk-table-edit", args=[world.event.slug, 1])
    drivers = " ".join(str(d.number) for d in world.qtables[0].drivers.order_by("number"))
    form = organiser.get(url).content.decode()
    assert 'name="referee_account"' in form and 'value="arbitre1"' in form

    response = organiser.post(
        url, {"number": 1, "referee_name": "", "drivers": drivers, "referee_account": "arbitre2"}
    )

    assert response.status_code == 302
    table = QualifyingTable.objects.get(pk=world.qtables[0].pk)
    assert table.referee == world.users["ref2"]
    record = QualifyingTable.history.filter(id=table.pk).latest("history_id")
    assert (record.referee_id, record.history_actor) == (world.users["ref2"].pk, "orga")
    assert (
        logged_in(world.users["ref2"]).get(reverse("qtable", args=[table.token])).status_code == 200
    )

    # An unknown account: nothing is saved, not even the drivers' move.
    response = organiser.post(
        url, {"number": 1, "referee_name": "", "drivers": "1", "referee_account": "personne"}
    )
    assert response.status_code == 200
    assert "No active account is named “personne”." in response.content.decode()
    assert QualifyingTable.objects.get(pk=table.pk).drivers.count() == 4
    assert QualifyingTable.objects.get(pk=table.pk).referee == world.users["ref2"]

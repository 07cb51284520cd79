"""Organisers create and set up events from the site, without the admin."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tournament.models import Event

pytestmark = pytest.mark.django_db


def form_data(circuit, **overrides):
    data = {
        "name": "Grand Prix d'Automne",
        "slug": "gp-automne",
        "date": "2026-10-04",
        "circuit": circuit.pk,
        "laps": "",
        "table_size": "8",
        "qualifying_mode": "sum",
        "minute_penalty": "on",
        "separate_teams": "on",
        "language": "fr",
        "stand_numbers": "",
    }
    data.update(overrides)
    return data


def test_organiser_creates_an_event_and_lands_on_its_desk(client, organiser, championship, circuit):
    client.force_login(organiser)
    response = client.post(reverse("event-new", args=[championship.slug]), form_data(circuit))
    assert response.status_code == 302
    assert response["Location"] == reverse("event-desk", args=["gp-automne"])
    event = Event.objects.get(slug="gp-automne")
    assert (event.championship, event.table_size, event.qualifying_mode) == (
        championship,
        8,
        "sum",
    )
    assert (event.minute_penalty, event.allow_redo, event.separate_teams) == (True, False, True)
    assert event.stands() == list(range(1, 9))


def test_bad_input_is_shown_in_the_page_and_nothing_is_created(
    client, organiser, championship, circuit
):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("event-new", args=[championship.slug]),
        form_data(circuit, slug="Pas Un Slug", table_size="1", stand_numbers="3 3"),
    )
    assert response.status_code == 200
    html = response.content.decode()
    assert "A stand number is listed twice." in html
    assert "Ensure this value is greater than or equal to 2." in html
    assert not Event.objects.exists()


def test_settings_change_stands_and_the_no_minute_league_rule(client, organiser, make_event):
    event = make_event(n_drivers=2)
    client.force_login(organiser)
    url = reverse("event-settings", args=[event.slug])
    assert client.get(url).status_code == 200
    data = form_data(event.circuit, minute_penalty="", stand_numbers="2 4 6", language="en")
    data.pop("slug")
    response = client.post(url, data)
    assert response.status_code == 302
    event.refresh_from_db()
    assert (event.minute_penalty, event.stand_numbers, event.language) == (False, [2, 4, 6], "en")
    assert event.slug == "gp"  # printed links keep working


def test_only_organisers_reach_the_event_forms(client, django_user_model, championship, make_event):
    event = make_event(n_drivers=1)
    new_url = reverse("event-new", args=[championship.slug])
    settings_url = reverse("event-settings", args=[event.slug])
    assert client.get(new_url).status_code == 403
    assert client.get(settings_url).status_code == 403
    client.force_login(django_user_model.objects.create_user("curieux", password="x-1234567"))
    assert client.get(new_url).status_code == 403
    assert client.post(settings_url, {"name": "Piraté"}).status_code == 403
    event.refresh_from_db()
    assert event.name != "Piraté"


def test_the_forms_are_linked_for_organisers_only(client, organiser, championship, make_event):
    event = make_event(n_drivers=1)
    new_url = reverse("event-new", args=[championship.slug])
    settings_url = reverse("event-settings", args=[event.slug])
    championship_url = reverse("championship", args=[championship.slug])
    assert new_url not in client.get(championship_url).content.decode()

    client.force_login(organiser)

    assert new_url in client.get(championship_url).content.decode()
    assert settings_url in client.get(reverse("event-desk", args=[event.slug])).content.decode()


def test_settings_set_the_plausible_stopwatch_floor(client, organiser, make_event):
    event = make_event(n_drivers=1)
    assert event.min_stopwatch == "0:20.00"  # DOMAIN.md: default 0:20
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    url = reverse("event-settings", args=[event.slug])
    assert 'value="0:20.00"' in client.get(url).content.decode()
    data = form_data(event.circuit, min_stopwatch="0:45")
    data.pop("slug")
    assert client.post(url, data).status_code == 302
    event.refresh_from_db()
    assert event.min_stopwatch_cs == 4500

    data["min_stopwatch"] = "45 s"
    response = client.post(url, data)
    assert "Write it as a stopwatch time, e.g. 0:20." in response.content.decode()
    event.refresh_from_db()
    assert event.min_stopwatch_cs == 4500

"""Race control's desk for fast tables (§1-0-4): flag the drivers running under a minute,
mark a table for them, spread; and the live progress part. The organiser only."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from qualifying.models import QualifyingSeat, QualifyingTable
from tournament.models import Entry

pytestmark = pytest.mark.django_db


@pytest.fixture
def event(make_event):
    return make_event(n_drivers=8)


@pytest.fixture
def desk(client, organiser):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    return client


def flagged(event) -> list[int]:
    return sorted(
        Entry.objects.filter(event=event, fast=True).values_list("driver__number", flat=True)
    )


def test_race_control_lists_the_drivers_under_a_minute(desk, event):
    url = reverse("desk-fast-drivers", args=[event.slug])
    response = desk.post(url, {"numbers": "7 3"}, follow=True)
    assert flagged(event) == [3, 7]
    html = response.content.decode()
    assert "2 drivers run under a minute." in html
    assert 'value="3 7"' in html  # the desk shows the list back
    desk.post(url, {"numbers": "7"})
    assert flagged(event) == [7]


def test_a_bad_number_is_said_and_changes_nothing(desk, event):
    desk.post(reverse("desk-fast-drivers", args=[event.slug]), {"numbers": "3"})
    response = desk.post(
        reverse("desk-fast-drivers", args=[event.slug]), {"numbers": "3 abc 99"}, follow=True
    )
    assert "“abc” is not a driver number." in response.content.decode()
    assert flagged(event) == [3]
    response = desk.post(
        reverse("desk-fast-drivers", args=[event.slug]), {"numbers": "99"}, follow=True
    )
    assert "Not registered for this event: 99." in response.content.decode()
    assert flagged(event) == [3]


def test_a_table_marked_for_them_seats_them_in_the_spread(desk, event):
    desk.post(reverse("desk-fast-drivers", args=[event.slug]), {"numbers": "6 8"})
    refused = desk.post(
        reverse("desk-tables-auto", args=[event.slug]), {"table_size": "4"}, follow=True
    )
    assert "none of tables 1 to 2 is reserved for them" in refused.content.decode()
    desk.post(
        reverse("desk-table-edit", args=[event.slug, 1]),
        {"number": "1", "drivers": "1", "referee_name": "Zoé", "fast": "on"},
    )
    assert QualifyingTable.objects.get(event=event, number=1).fast
    desk.post(reverse("desk-tables-auto", args=[event.slug]), {"table_size": "4"})
    table_1 = QualifyingSeat.objects.filter(event=event, table__number=1)
    assert sorted(table_1.values_list("driver__number", flat=True)) == [1, 2, 6, 8]
    page = desk.get(reverse("event-desk", args=[event.slug])).content.decode()
    assert '<span class="badge">under a minute</span>' in page


def test_race_control_reserves_a_table_from_the_desk_without_making_it_1_0_4(desk, event):
    """§1-0-4: "Des tables devront être réservées pour les pilotes courant régulièrement
    sous la minute": typed at the desk with the drivers, no table made by hand."""
    response = desk.post(
        reverse("desk-fast-drivers", args=[event.slug]),
        {"numbers": "6 8", "tables": "2"},
        follow=True,
    )

    html = response.content.decode()
    assert "2 drivers run under a minute. Table reserved for them: 2." in html
    assert list(QualifyingTable.objects.filter(event=event).values_list("number", "fast")) == [
        (2, True)
    ]
    assert re.search(r'name="tables" value="2"', html)  # the desk shows it back
    desk.post(reverse("desk-tables-auto", args=[event.slug]), {"table_size": "4"})
    table_2 = QualifyingSeat.objects.filter(event=event, table__number=2)
    assert sorted(table_2.values_list("driver__number", flat=True)) == [5, 6, 7, 8]
    # Unreserved from the desk as well.
    desk.post(reverse("desk-fast-drivers", args=[event.slug]), {"numbers": "", "tables": ""})
    assert not QualifyingTable.objects.filter(event=event, fast=True).exists()


def test_only_the_organiser_flags_drivers(client, django_user_model, event):
    url = reverse("desk-fast-drivers", args=[event.slug])
    assert client.post(url, {"numbers": "1"}).status_code == 403
    client.force_login(django_user_model.objects.create_user("curieux"))
    assert client.post(url, {"numbers": "1"}).status_code == 403
    assert flagged(event) == []

"""GET|POST /events/{event}/qualifying-tables: drivers per table and the referee links."""

from __future__ import annotations

import pytest
from django.test import override_settings

from qualifying.models import QualifyingTable
from tests.api.conftest import player_of

pytestmark = pytest.mark.django_db

TABLES = "/events/monaco-2025/qualifying-tables"


def numbers(table: dict) -> list[int]:
    return [d["number"] for d in table["drivers"]]


@override_settings(SITE_URL="https://paddock.example.org/")
def test_organiser_sees_links_and_tokens(organiser, event):
    response = organiser.get(TABLES)
    assert response.status_code == 200
    tables = response.json()
    token = QualifyingTable.objects.get(event=event, number=1).token
    assert tables[0] == {
        "number": 1,
        "drivers": [
            {"number": 1, "name": "Alice Martin", "team": "Ferrari", "player": player_of(1)},
            {"number": 2, "name": "Bruno Petit", "team": "Ferrari", "player": player_of(2)},
            {"number": 3, "name": "Chloé Durand", "team": None, "player": player_of(3)},
        ],
        "referee": "",
        "fast": False,
        "referee_link": f"https://paddock.example.org/q/{token}/",
        "referee_token": token,
    }
    assert numbers(tables[1]) == [4, 5, 6]


def test_set_a_table_moves_drivers_from_other_tables(organiser, event):
    response = organiser.post(TABLES, {"number": 3, "drivers": [6, 5], "referee": "Zoé"})
    assert response.status_code == 200, response.content
    tables = response.json()
    assert [(t["number"], numbers(t), t["referee"]) for t in tables] == [
        (1, [1, 2, 3], ""),
        (2, [4], ""),
        (3, [6, 5], "Zoé"),
    ]
    assert tables[2]["referee_token"] == QualifyingTable.objects.get(number=3).token


def test_referee_sees_only_their_table_without_secrets(referee, event):
    response = referee.get(TABLES)
    assert response.status_code == 200
    tables = response.json()
    assert [t["number"] for t in tables] == [1]
    assert tables[0]["referee_link"] is None and tables[0]["referee_token"] is None


def test_anonymous_sees_published_tables_without_secrets(anon, organiser, event):
    assert anon.get(TABLES).status_code == 404
    organiser.post("/events/monaco-2025/publish", {"qualifying": True})
    tables = anon.get(TABLES).json()
    assert [t["number"] for t in tables] == [1, 2]
    assert {t["referee_token"] for t in tables} == {None}


def test_tables_published_before_qualifying(anon, organiser, event):
    """Race control shows who sits where in the morning, before any run is published."""
    response = organiser.post("/events/monaco-2025/publish", {"qualifying_tables": True})
    assert response.status_code == 200
    assert response.json()["published"]["qualifying_tables"] is True
    assert response.json()["published"]["qualifying"] is False
    tables = anon.get(TABLES).json()
    assert [numbers(t) for t in tables] == [[1, 2, 3], [4, 5, 6]]
    assert {t["referee_token"] for t in tables} | {t["referee_link"] for t in tables} == {None}
    # The runs themselves stay unpublished.
    assert anon.get("/events/monaco-2025/qualifying").status_code == 404
    organiser.post("/events/monaco-2025/publish", {"qualifying_tables": False})
    assert anon.get(TABLES).status_code == 404


def test_publish_tables_with_non_boolean_is_400(organiser, event):
    response = organiser.post("/events/monaco-2025/publish", {"qualifying_tables": "oui"})
    assert response.status_code == 400
    event.refresh_from_db()
    assert not event.published_qualifying_tables


def test_outsider_cannot_read_or_write(outsider, event):
    assert outsider.get(TABLES).status_code == 403
    assert outsider.post(TABLES, {"number": 3, "drivers": [6]}).status_code == 403


def test_referee_cannot_set_tables(referee, event):
    assert referee.post(TABLES, {"number": 1, "drivers": [1]}).status_code == 403


def test_unregistered_driver_is_400(organiser, event):
    response = organiser.post(TABLES, {"number": 3, "drivers": [6, 99]})
    assert response.status_code == 400
    assert list(response.json()["errors"]) == ["drivers"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"number": 0, "drivers": [1]}, "number"),
        ({"number": 201, "drivers": [1]}, "number"),
        ({"number": 3, "drivers": "1 2"}, "drivers"),
        ({"number": 3, "drivers": [1], "referee": "x" * 121}, "referee"),
    ],
)
def test_invalid_table_is_400(organiser, event, body, field):
    response = organiser.post(TABLES, body)
    assert response.status_code == 400
    assert list(response.json()["errors"]) == [field]

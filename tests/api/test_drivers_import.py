"""POST /championships/{slug}/drivers/import: CSV with ``,`` or ``;``, all or nothing."""

from __future__ import annotations

import pytest

from tournament.models import Driver, Team

pytestmark = pytest.mark.django_db

URL = "/championships/cfd-2025/drivers/import"


def send(api, text: str | bytes, content_type: str = "text/csv"):
    raw = text.encode("utf-8") if isinstance(text, str) else text
    return api.post(URL, raw=raw, content_type=content_type)


def test_comma_file_creates_drivers_and_teams(organiser, championship):
    response = send(
        organiser,
        "number,first_name,last_name,team,email\n"
        "7,Ana,Ribeiro,Williams,ana@example.org\n"
        "8,Ben,Okafor,,\n"
        "9,Chen,Li,Williams,\n",
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"created": 3, "updated": 0, "errors": []}
    drivers = {d.number: d for d in Driver.objects.filter(championship=championship)}
    assert drivers[7].team.name == "Williams" and drivers[7].email == "ana@example.org"
    assert drivers[8].team is None
    assert Team.objects.filter(championship=championship, name="Williams").count() == 1


def test_semicolon_file_with_accents(organiser, championship):
    response = send(
        organiser,
        "number;first_name;last_name;team;email\n12;Élodie;Lefèvre;Écurie Étoile;\n",
    )
    assert response.status_code == 200, response.content
    assert response.json() == {"created": 1, "updated": 0, "errors": []}
    driver = Driver.objects.get(championship=championship, number=12)
    assert (driver.first_name, driver.last_name, driver.team.name) == (
        "Élodie",
        "Lefèvre",
        "Écurie Étoile",
    )
    listed = organiser.get("/championships/cfd-2025/drivers").json()
    assert listed[0]["name"] == "Élodie Lefèvre" and listed[0]["team"] == "Écurie Étoile"


def test_file_with_three_bad_lines_imports_nothing(organiser, championship):
    response = send(
        organiser,
        "number,first_name,last_name,team,email\n"
        "1,Ana,Ribeiro,,\n"
        "x,Ben,Okafor,,\n"
        "3,,Li,,\n"
        "4,Dan,Roy,,\n"
        "1,Eve,Duval,,not-an-email\n",
    )
    assert response.status_code == 400
    body = response.json()
    assert body["detail"]
    assert [line["line"] for line in body["errors"]] == [3, 4, 6]
    assert all(line["message"] for line in body["errors"])
    assert (body["created"], body["updated"]) == (0, 0)
    assert not Driver.objects.filter(championship=championship).exists()


def test_reimport_updates_by_number_without_duplicates(organiser, championship):
    first = send(organiser, "number,first_name,last_name,team\n5,Ana,Ribeiro,Williams\n6,B,O,\n")
    assert first.json() == {"created": 2, "updated": 0, "errors": []}
    second = send(
        organiser, "number;first_name;last_name;team\n5;Ana;Ribeiro-Costa;Alpine\n7;C;L;\n"
    )
    assert second.status_code == 200
    assert second.json() == {"created": 1, "updated": 1, "errors": []}
    drivers = Driver.objects.filter(championship=championship)
    assert sorted(d.number for d in drivers) == [5, 6, 7]
    five = drivers.get(number=5)
    assert (five.last_name, five.team.name) == ("Ribeiro-Costa", "Alpine")


def test_windows_1252_file_is_read(organiser, championship):
    text = "number;first_name;last_name\n3;Hélène;Noël\n".encode("cp1252")
    response = send(organiser, text)
    assert response.status_code == 200
    assert Driver.objects.get(number=3).first_name == "Hélène"


def test_import_needs_csv_content_type(organiser, championship):
    response = send(organiser, '{"number": 1}', content_type="application/json")
    assert response.status_code == 400
    assert "text/csv" in response.json()["detail"]


def test_empty_or_binary_file_is_400(organiser, championship):
    assert send(organiser, "").status_code == 400
    assert send(organiser, b"\x00\x01\x02").status_code == 400


def test_import_needs_an_organiser(anon, outsider, referee, championship, event):
    text = "number,first_name,last_name\n20,A,B\n"
    assert send(anon, text).status_code == 401
    assert send(outsider, text).status_code == 403
    assert send(referee, text).status_code == 403
    assert not Driver.objects.filter(number=20).exists()

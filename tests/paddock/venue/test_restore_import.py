"""``import_championship`` trusts a file no more than a form (issue 20, finding 4).

A championship imported with a slug no address can hold made the home page answer 500. Every
row of a file now goes through the models' own validators (slugs, lengths, choices, points
scales, numbers): one bad field and the whole file is refused, with the list of what is
wrong, and nothing is imported. The home page no longer breaks on a slug written around the
validators anyway (an import of before, a hand-edited database).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client

from tests.integrity.test_backup import _refusal, build_championship, export
from tests.template_db import empty_database
from tournament.models import Championship, Event

pytestmark = pytest.mark.django_db(transaction=True)


def rows_of(data: dict[str, Any], model: str) -> list[dict[str, Any]]:
    return [row for row in data["objects"] if row["model"] == model]


def test_a_file_with_bad_fields_is_refused_whole_with_every_problem(tmp_path: Path) -> None:
    slug = build_championship()
    data: dict[str, Any] = json.loads(export(slug))
    empty_database()
    users_before = get_user_model().objects.count()

    bad = "Coupe de France <b>!"
    data["championship"] = bad
    (championship,) = rows_of(data, "tournament.championship")
    championship["fields"]["slug"] = bad
    championship["fields"]["points_scale"] = ["x", -3]
    rows_of(data, "tournament.event")[0]["fields"]["name"] = "G" * 201
    rows_of(data, "tournament.driver")[0]["fields"]["number"] = 0
    rows_of(data, "qualifying.run")[0]["fields"]["tyres"] = "slick"

    message = _refusal(tmp_path, json.dumps(data))

    assert message.startswith("The export was refused, nothing was imported:")
    problems = message.splitlines()[1:]
    assert all(line.startswith("- ") for line in problems), message
    said = "\n".join(problems)
    for field, words in (
        ("slug", "Use only lowercase letters"),
        ("points_scale", "whole numbers"),
        ("name", "at most 200 characters"),
        ("number", "greater than or equal to 1"),
        ("tyres", "is not a valid choice"),
    ):
        assert any(f", {field}: " in line and words in line for line in problems), (field, said)
    assert not Championship.objects.exists() and not Event.objects.exists()
    assert get_user_model().objects.count() == users_before  # its people were not made either
    # The home page answers, with nothing imported.
    assert Client().get("/").status_code == 200


def test_a_good_file_still_imports(tmp_path: Path) -> None:
    """The validators accept what Paddock exports (every model, history rows included)."""
    slug = build_championship()
    text = export(slug)
    empty_database()
    file = tmp_path / "good.json"
    file.write_text(text, encoding="utf-8")
    call_command("import_championship", str(file))
    assert Championship.objects.filter(slug=slug).exists()


def test_the_home_page_holds_with_a_slug_no_address_can_hold() -> None:
    """Written around the validators (an import of before did it): left out, not a 500."""
    Championship.objects.create(slug="ok", name="Coupe visible", season="2026")
    Championship.objects.create(slug="Coupe de France !", name="Coupe cassée", season="2026")
    home = Client().get("/")
    assert home.status_code == 200
    page = home.content.decode()
    assert "Coupe visible" in page and "Coupe cassée" not in page


def test_an_unknown_field_is_refused_by_name_not_a_traceback(
    tmp_path: Path,
) -> None:
    """A field no model has (a hand-edited file, another version's) gave a raw traceback
    (issue 32): now the file is refused, each unknown field by its row, nothing imported."""
    slug = build_championship()
    data: dict[str, Any] = json.loads(export(slug))
    empty_database()
    driver = rows_of(data, "tournament.driver")[0]
    driver["fields"]["colour"] = "red"

    message = _refusal(tmp_path, json.dumps(data))

    assert message.startswith("The export was refused, nothing was imported:"), message
    assert f"- driver {driver['pk']}: an unknown field colour" in message, message
    assert not Championship.objects.exists()

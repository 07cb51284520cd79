"""Importing drivers from a CSV: the service, the decoding and the upload page."""

from __future__ import annotations

from html import unescape

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from tournament.access import Actor
from tournament.errors import InvalidInput
from tournament.models import Championship, Driver, Team
from tournament.registration.csv_import import LineError, decode, parse_drivers_csv
from tournament.registration.services import drivers_import

GOOD_CSV = (
    "number,first_name,last_name,team,email\n"
    "1,Élodie,Lefèvre,Écurie Étoile,elodie@example.org\n"
    "2,Théo,Marchand,Écurie Étoile,\n"
    "3,Zoé,Girard,Scuderia Dé,\n"
)

# Physical lines: 1 header, 2 good, 3 bad number, 4 empty last name, 5 blank, 6 bad email,
# 7 good.
THREE_BAD_LINES = (
    "number,first_name,last_name,team,email\n"
    "1,Élodie,Lefèvre,Écurie Étoile,elodie@example.org\n"
    "x1,Théo,Marchand,,\n"
    "3,Zoé,,Scuderia Dé,\n"
    "\n"
    "4,Léo,Bonnet,,not-an-email\n"
    "5,Chloé,Dubois,Team Chicane,\n"
)


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The shared organiser fixture sets a password; PBKDF2 would cost ~0.3 s per test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


@pytest.fixture
def other_organiser(django_user_model):
    """Organises another championship, not the fixture's one."""
    user = django_user_model.objects.create_user("autre-pc")
    other = Championship.objects.create(slug="autre", name="Autre", season="2026")
    other.organisers.add(user)
    return user


def drivers_by_number(championship) -> dict[int, tuple[str, str, str | None, str]]:
    return {
        d.number: (d.first_name, d.last_name, d.team.name if d.team else None, d.email)
        for d in Driver.objects.filter(championship=championship).select_related("team")
    }


def upload(data: bytes, name: str = "pilotes.csv") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, data, content_type="text/csv")


# --- Service ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_import_comma_file_creates_drivers_and_teams(actor, championship):
    report = drivers_import(actor=actor, championship=championship, text=GOOD_CSV)

    assert (report.created, report.updated, report.errors) == (3, 0, [])
    assert drivers_by_number(championship) == {
        1: ("Élodie", "Lefèvre", "Écurie Étoile", "elodie@example.org"),
        2: ("Théo", "Marchand", "Écurie Étoile", ""),
        3: ("Zoé", "Girard", "Scuderia Dé", ""),
    }
    assert sorted(
        Team.objects.filter(championship=championship).values_list("name", flat=True)
    ) == [
        "Scuderia Dé",
        "Écurie Étoile",
    ]


@pytest.mark.django_db
def test_import_semicolon_utf8_file_keeps_accents_exactly(actor, championship):
    data = "number;first_name;last_name;team\n7;Élodie;Lefèvre;Écurie Étoile\n".encode()

    drivers_import(actor=actor, championship=championship, text=decode(data))

    driver = Driver.objects.get(championship=championship, number=7)
    assert (driver.first_name, driver.last_name, driver.team.name) == (
        "Élodie",
        "Lefèvre",
        "Écurie Étoile",
    )


@pytest.mark.django_db
def test_import_utf8_file_with_bom_reads_the_first_header(actor, championship):
    data = "\ufeffnumber;first_name;last_name\n7;Élodie;Lefèvre\n".encode()
    assert data.startswith(b"\xef\xbb\xbf")

    report = drivers_import(actor=actor, championship=championship, text=decode(data))

    assert report.created == 1
    assert drivers_by_number(championship) == {7: ("Élodie", "Lefèvre", None, "")}


@pytest.mark.django_db
def test_import_windows_1252_file_is_decoded(actor, championship):
    data = "numéro;prénom;nom;écurie\n7;Élodie;Lefèvre;Écurie Étoile\n".encode("cp1252")
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")

    text = decode(data)
    drivers_import(actor=actor, championship=championship, text=text)

    assert text.startswith("numéro;prénom;nom;écurie")
    assert drivers_by_number(championship) == {7: ("Élodie", "Lefèvre", "Écurie Étoile", "")}


@pytest.mark.django_db
def test_import_with_three_bad_lines_imports_nothing_and_lists_physical_lines(actor, championship):
    old_team = Team.objects.create(championship=championship, name="Ancienne")
    Driver.objects.create(
        championship=championship, number=9, first_name="Ana", last_name="Vieux", team=old_team
    )
    before = (Driver.objects.count(), Team.objects.count())

    with pytest.raises(InvalidInput) as caught:
        drivers_import(actor=actor, championship=championship, text=THREE_BAD_LINES)

    assert (Driver.objects.count(), Team.objects.count()) == before == (1, 1)
    assert caught.value.current == [
        LineError(3, "The number must be a whole number from 1 to 99999, not “x1”."),
        LineError(4, "The last name is empty."),
        LineError(6, "“not-an-email” is not an email address."),
    ]
    assert caught.value.message == "Nothing was imported: 3 lines to fix."
    assert sorted(caught.value.errors) == ["line 3", "line 4", "line 6"]


@pytest.mark.django_db
def test_import_duplicate_number_in_the_file_is_refused(actor, championship):
    text = "number;first_name;last_name\n7;Élodie;Lefèvre\n7;Théo;Marchand\n"

    with pytest.raises(InvalidInput) as caught:
        drivers_import(actor=actor, championship=championship, text=text)

    assert caught.value.current == [LineError(3, "Number 7 is already on line 2.")]
    assert Driver.objects.count() == 0


@pytest.mark.django_db
def test_reimport_updates_by_number_and_never_duplicates(actor, championship):
    drivers_import(actor=actor, championship=championship, text=GOOD_CSV)
    again = (
        "number;first_name;last_name;team;email\n"
        "1;Élodie;Lefèvre-Martin;Team Chicane;elodie@paddock.example\n"
        "2;Théo;Marchand;;\n"
        "4;Léo;Bonnet;écurie étoile;\n"
    )

    report = drivers_import(actor=actor, championship=championship, text=again)

    assert (report.created, report.updated) == (1, 2)
    assert Driver.objects.filter(championship=championship).count() == 4
    assert drivers_by_number(championship) == {
        1: ("Élodie", "Lefèvre-Martin", "Team Chicane", "elodie@paddock.example"),
        2: ("Théo", "Marchand", None, ""),
        3: ("Zoé", "Girard", "Scuderia Dé", ""),
        # The team name matches the existing team whatever its case.
        4: ("Léo", "Bonnet", "Écurie Étoile", ""),
    }
    assert Team.objects.filter(championship=championship).count() == 3


@pytest.mark.django_db
def test_import_missing_header_column_is_line_one(actor, championship):
    with pytest.raises(InvalidInput) as caught:
        drivers_import(
            actor=actor, championship=championship, text="number;first_name;team\n7;Élodie;X\n"
        )

    assert caught.value.current == [
        LineError(
            1,
            "The first line must name the columns number, first_name, last_name, team, email; "
            "missing: last_name.",
        )
    ]
    assert Driver.objects.count() == 0


@pytest.mark.django_db
def test_import_french_headers(actor, championship):
    text = "Numéro;Prénom;Nom;Écurie;Courriel\n12;Maëlys;Faure;Écurie du Lion;m@example.org\n"

    drivers_import(actor=actor, championship=championship, text=text)

    assert drivers_by_number(championship) == {
        12: ("Maëlys", "Faure", "Écurie du Lion", "m@example.org")
    }


@pytest.mark.django_db
def test_import_by_an_organiser_of_another_championship_is_not_allowed(
    other_organiser, championship
):
    from tournament.errors import NotAllowed

    with pytest.raises(NotAllowed):
        drivers_import(actor=Actor(user=other_organiser), championship=championship, text=GOOD_CSV)
    assert Driver.objects.count() == 0


def test_import_unicode_digit_that_int_cannot_read_is_a_line_error():
    # BUG: "²".isdigit() is True but int("²") raises ValueError, so the parser crashes
    # (a 500 on the upload page) instead of reporting the line.
    rows, errors = parse_drivers_csv("number;first_name;last_name\n²;Élodie;Lefèvre\n")

    assert rows == []
    assert [e.line for e in errors] == [2]


def test_import_line_numbers_count_leading_blank_lines():
    # BUG: leading blank lines are dropped before numbering, so the bad row on physical
    # line 3 (what a text editor shows) is reported as line 2.
    rows, errors = parse_drivers_csv("\nnumber;first_name;last_name\nx;Élodie;Lefèvre\n")

    assert rows == []
    assert [e.line for e in errors] == [3]


# --- Upload page --------------------------------------------------------------------------


@pytest.mark.django_db
def test_upload_page_good_file_redirects_with_success_message(client, organiser, championship):
    client.cookies["django_language"] = "en"
    client.force_login(organiser)

    response = client.post(
        reverse("drivers-import", args=[championship.slug]),
        {"file": upload(GOOD_CSV.encode())},
    )

    assert response.status_code == 302
    assert response["Location"] == reverse("championship", args=[championship.slug])
    page = client.get(response["Location"])
    assert "3 drivers created, 0 updated." in page.content.decode()
    assert Driver.objects.filter(championship=championship).count() == 3


@pytest.mark.django_db
def test_upload_page_bad_file_lists_every_line_and_imports_nothing(client, organiser, championship):
    client.force_login(organiser)

    response = client.post(
        reverse("drivers-import", args=[championship.slug]),
        {"file": upload(THREE_BAD_LINES.encode())},
    )

    assert response.status_code == 200
    # The organiser's page speaks French by default.
    assert "Rien n’a été importé\u00a0: 3 lignes à corriger." in unescape(response.content.decode())
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("drivers-import", args=[championship.slug]),
        {"file": upload(THREE_BAD_LINES.encode())},
    )
    html = response.content.decode()
    assert "Nothing was imported: 3 lines to fix." in html
    assert "<td>3</td><td>The number must be a whole number from 1 to 99999, not “x1”.</td>" in html
    assert "<td>4</td><td>The last name is empty.</td>" in html
    assert "<td>6</td><td>“not-an-email” is not an email address.</td>" in html
    assert (Driver.objects.count(), Team.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_upload_page_windows_1252_file(client, organiser, championship):
    client.force_login(organiser)
    data = "numéro;prénom;nom;écurie\n7;Élodie;Lefèvre;Écurie Étoile\n".encode("cp1252")

    response = client.post(
        reverse("drivers-import", args=[championship.slug]), {"file": upload(data)}
    )

    assert response.status_code == 302
    assert drivers_by_number(championship) == {7: ("Élodie", "Lefèvre", "Écurie Étoile", "")}


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_upload_page_is_forbidden_to_anonymous(client, championship, method):
    url = reverse("drivers-import", args=[championship.slug])
    kwargs = {"data": {"file": upload(GOOD_CSV.encode())}} if method == "post" else {}

    response = getattr(client, method)(url, **kwargs)

    assert response.status_code == 403
    assert Driver.objects.count() == 0


@pytest.mark.django_db
@pytest.mark.parametrize("method", ["get", "post"])
def test_upload_page_is_forbidden_to_an_organiser_of_another_championship(
    client, other_organiser, championship, method
):
    client.force_login(other_organiser)
    url = reverse("drivers-import", args=[championship.slug])
    kwargs = {"data": {"file": upload(GOOD_CSV.encode())}} if method == "post" else {}

    response = getattr(client, method)(url, **kwargs)

    assert response.status_code == 403
    assert Driver.objects.count() == 0


@pytest.mark.django_db
def test_upload_page_get_as_organiser(client, organiser, championship):
    client.force_login(organiser)

    response = client.get(reverse("drivers-import", args=[championship.slug]))

    assert response.status_code == 200
    assert 'enctype="multipart/form-data"' in response.content.decode()


# --- The management command --------------------------------------------------------------------


def test_the_command_imports_a_semicolon_file_and_updates_by_number(tmp_path, championship):
    from django.core.management import call_command

    path = tmp_path / "pilotes.csv"
    path.write_text(GOOD_CSV.replace(",", ";"), encoding="utf-8")
    call_command("import_drivers", championship.slug, str(path))
    assert Driver.objects.get(championship=championship, number=1).team.name == "Écurie Étoile"

    path.write_text("number;first_name;last_name;team;email\n1;Élodie;Moreau;;\n")
    call_command("import_drivers", championship.slug, str(path))
    driver = Driver.objects.get(championship=championship, number=1)
    assert (driver.last_name, driver.team) == ("Moreau", None)
    assert Driver.objects.filter(championship=championship).count() == 3


def test_the_command_lists_every_bad_line_and_imports_nothing(tmp_path, championship, capsys):
    from django.core.management import CommandError, call_command

    path = tmp_path / "pilotes.csv"
    path.write_text(THREE_BAD_LINES, encoding="utf-8")
    with pytest.raises(CommandError):
        call_command("import_drivers", championship.slug, str(path))
    errors = capsys.readouterr().err
    assert [line.split(":")[0] for line in errors.splitlines()] == ["line 3", "line 4", "line 6"]
    assert not Driver.objects.filter(championship=championship).exists()


def test_the_command_names_an_unknown_championship_or_file(tmp_path, championship):
    from django.core.management import CommandError, call_command

    with pytest.raises(CommandError, match="No championship"):
        call_command("import_drivers", "nope", str(tmp_path / "x.csv"))
    with pytest.raises(CommandError, match="No such file"):
        call_command("import_drivers", championship.slug, str(tmp_path / "x.csv"))


# --- Possible matches an import brought (tournament.players.matching) --------------------------


def season_with(championship_slug: str, *organisers, **driver) -> Championship:  # type: ignore[no-untyped-def]
    from tournament.registration.services import driver_create

    season = Championship.objects.create(
        slug=championship_slug, name="Coupe de France", season="2025", points_scale=[10, 8, 6]
    )
    season.organisers.add(*organisers)
    driver_create(actor=Actor(user=organisers[0]), championship=season, **driver)
    return season


def imported(client, championship, data: str = GOOD_CSV):  # type: ignore[no-untyped-def]
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("drivers-import", args=[championship.slug]), {"file": upload(data.encode())}
    )
    assert response.status_code == 302
    return client.get(response["Location"]).content.decode()


@pytest.mark.django_db
def test_an_import_that_brings_a_possible_match_says_so_with_the_way_to_it(
    client, organiser, championship
):
    season_with("cf-2025", organiser, number=9, first_name="Elodie", last_name="LEFEVRE")
    client.force_login(organiser)

    page = imported(client, championship)

    assert "3 drivers created, 0 updated." in page
    link = f'<a href="{reverse("player-matches")}">1 possible match to check</a>'
    assert link in page
    # The championship page says it too, until it is decided.
    page = client.get(reverse("championship", args=[championship.slug])).content.decode()
    assert "1 possible match to check" in page and link not in page


@pytest.mark.django_db
def test_an_import_without_a_match_or_with_one_not_the_importers_to_decide_says_nothing(
    client, organiser, other_organiser, championship
):
    client.force_login(organiser)
    page = imported(client, championship)
    assert "possible match" not in page
    # Élodie Lefèvre also drives in a championship run by someone else: not this organiser's
    # to decide, so not this organiser's to check.
    Driver.objects.filter(championship=championship).delete()
    other = Championship.objects.get(slug="autre")
    from tournament.registration.services import driver_create

    driver_create(
        actor=Actor(user=other_organiser), championship=other, number=9,
        first_name="Élodie", last_name="Lefèvre",
    )  # fmt: skip
    page = imported(client, championship)
    assert "possible match" not in page
    page = client.get(reverse("championship", args=[championship.slug])).content.decode()
    assert "possible match" not in page


@pytest.mark.django_db
def test_the_pending_matches_are_shown_in_french(client, organiser, championship):
    season_with("cf-2025", organiser, number=9, first_name="Zoé", last_name="Girard")
    client.force_login(organiser)
    imported(client, championship)
    client.cookies["django_language"] = "fr"
    page = client.get(reverse("championship", args=[championship.slug])).content.decode()
    assert "1 correspondance possible à vérifier" in page

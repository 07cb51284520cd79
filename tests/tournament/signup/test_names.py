"""Names are one line (API.md "The door and a person's data, through the API"; issue 40,
item 12): a first name, last name or team with a line break at sign-up is a form error in
the person's language (it answered 500), and so are the names race control types (event,
championship, circuit, team, driver) in its forms and in the Setup API: a ``400``."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.api.conftest import Api
from tests.tournament.signup.conftest import OWN, sent_text
from tournament.errors import InvalidInput
from tournament.models import ApiToken, Championship, Circuit, Driver, Event, Team
from tournament.registration.forms import DriverForm, EventForm, NextSeasonForm
from tournament.signup import rules, services
from tournament.signup.models import Mail, Registration

pytestmark = pytest.mark.django_db

BREAKS = ("Élodie\r\nBcc: x@evil.example", "Élodie\nLefèvre", "Élodie\u2028L", "A\x0bB")
FORM = {"last_name": "Lefèvre", "email": "elodie@example.org", "public_name": "full",
        "consent": "on", "website": ""}  # fmt: skip


def test_a_line_break_is_no_name_but_spaces_and_accents_are():
    for text in BREAKS:
        assert not rules.one_line(text)
    assert not rules.one_line("Écurie\n")
    assert rules.one_line("Jean-Édouard d’Ornano  ") and rules.one_line("")


@pytest.mark.parametrize("first_name", BREAKS)
def test_the_sign_up_page_refuses_a_name_of_two_lines(open_event, first_name):
    """A 400 with the form and its error beside the field, in the person's language (the
    page answered 500 for ``\\r\\n``); nothing saved, nothing mailed."""
    event = open_event()
    client = Client()
    client.cookies["django_language"] = "en"
    answer = client.post(f"/e/{event.slug}/signup/", {**FORM, "first_name": first_name})
    assert answer.status_code == 400
    assert b"One line only: no line break." in answer.content
    assert not Registration.objects.exists() and not Mail.objects.exists()
    french = Client().post(f"/e/{event.slug}/signup/", {**FORM, "first_name": first_name})
    assert french.status_code == 400 and b'name="first_name"' in french.content


def test_the_service_and_the_sign_up_api_refuse_every_name_of_two_lines(open_event):
    event = open_event()
    for field in ("first_name", "last_name", "team", "licence"):
        data = {"first_name": "Élodie", "last_name": "Lefèvre", "email": "e@example.org"}
        with pytest.raises(InvalidInput) as refused:
            services.registration_sign_up(event=event, **{**data, field: "a\r\nb"})
        assert set(refused.value.errors) == {field}
    answer = Api().post(
        f"/events/{event.slug}/registrations",
        {"first_name": "Élodie\r\n", "last_name": "Lefèvre", "email": "e@example.org"},
    )
    assert answer.status_code == 400 and "first_name" in answer.json()["errors"]
    assert not Registration.objects.exists()


def test_the_registrants_own_changes_are_one_line_too(open_event, sign_up_confirmed):
    event = open_event()
    registration, _link = sign_up_confirmed(event, "e@example.org")
    with pytest.raises(InvalidInput):
        services.registration_edit(registration=registration, team="Rouge\nBleu")
    own = OWN.search(sent_text(Mail.objects.filter(kind="accepted").get())).group(1)
    client = Client()
    client.cookies["django_language"] = "en"
    answer = client.post(
        f"/registrations/{own}/",
        {"action": "edit", "first_name": "É\r\nX", "last_name": "L", "public_name": "full"},
    )
    assert answer.status_code == 400 and b"One line only" in answer.content
    assert Registration.objects.get().first_name == "Élodie"


def test_race_controls_forms_refuse_names_of_two_lines(championship, circuit):
    event = EventForm(data={"name": "Grand Prix\nd’Été", "date": "2026-07-14",
                            "circuit": circuit.pk, "table_size": 10, "language": "fr"})  # fmt: skip
    assert not event.is_valid() and "name" in event.errors
    driver = DriverForm(data={"number": 7, "first_name": "A", "last_name": "B\r\nC",
                              "team": "Rouge\nBleu"})  # fmt: skip
    assert not driver.is_valid() and {"last_name", "team"} <= set(driver.errors)
    season = NextSeasonForm(data={"slug": "cf-2027", "name": "Coupe\n2027", "season": "2027"})
    assert not season.is_valid() and "name" in season.errors
    assert DriverForm(data={"number": 7, "first_name": "A", "last_name": "B"}).is_valid()


def test_the_setup_api_refuses_names_of_two_lines(championship, circuit, make_event):
    """API.md: names (event, championship, circuit, team, person) are one line: a line
    break is a 400 naming the field; nothing is made."""
    root = get_user_model().objects.create_user("root", is_superuser=True, is_staff=True)
    api = Api(ApiToken.issue(root))
    scale = {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]}
    event = make_event(n_drivers=0)
    sent = [
        ("/championships", {"slug": "x", "name": "Coupe\nX", "season": "2026"}, "name"),
        ("/championships", {"slug": "x", "name": "Coupe X", "season": "20\r\n26"}, "season"),
        ("/circuits", {"slug": "spa", "name": "Spa\r\n", "weather_scale": scale}, "name"),
        (f"/championships/{championship.slug}/teams", {"name": "Rouge\nBleu"}, "name"),
        (f"/championships/{championship.slug}/drivers",
         {"number": 9, "first_name": "A\nB", "last_name": "C"}, "first_name"),
        (f"/championships/{championship.slug}/drivers",
         {"number": 9, "first_name": "A", "last_name": "C", "team": "R\u2028B"}, "team"),
        (f"/championships/{championship.slug}/events",
         {"slug": "spa", "name": "Spa\n", "date": "2026-06-14", "circuit": circuit.slug}, "name"),
    ]  # fmt: skip
    for path, body, field in sent:
        answer = api.post(path, body)
        assert answer.status_code == 400, (path, answer.content)
        assert field in answer.json()["errors"], (path, answer.json())
    patched = api.patch(f"/events/{event.slug}", {"name": "Grand Prix\nd’Été"})
    assert patched.status_code == 400 and "name" in patched.json()["errors"]
    step = api.patch(f"/events/{event.slug}", {"schedule": [{"time": "09:00", "label": "A\nB"}]})
    assert step.status_code == 400
    assert Championship.objects.count() == 1 and not Circuit.objects.filter(slug="spa")
    assert not Team.objects.exclude(name="Écurie Étoile") and not Driver.objects.exists()
    assert Event.objects.get().name == "Grand Prix d'Été"
    assert (
        api.post(f"/championships/{championship.slug}/teams", {"name": "Rouge"}).status_code == 201
    )

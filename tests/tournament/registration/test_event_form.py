"""The event form: the game first, only the chosen game's fields, the slug made from the
name when left empty."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from tournament.models import Circuit, Event
from tournament.registration.forms import derived_slug

pytestmark = [pytest.mark.django_db, pytest.mark.keeps_context]


@pytest.fixture
def organiser_client(client, organiser):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    return client


def fields(html: str) -> list[str]:
    """The names of the form's fields, in page order."""
    form = html[html.index('<form method="post" novalidate class="event-form">') :]
    return [
        name
        for name in re.findall(r'name="([a-z_]+)"', form[: form.index("</form>")])
        if name != "csrfmiddlewaretoken"
    ]


def base(circuit, **fields):
    return {"name": "Grand Prix d'Automne", "date": "2026-10-04", "circuit": circuit.pk,
            "table_size": "8", "language": "fr", **fields}  # fmt: skip


def test_the_game_comes_first(organiser_client, championship):
    html = organiser_client.get(reverse("event-new", args=[championship.slug])).content.decode()
    assert fields(html)[:3] == ["game", "name", "slug"]
    # Each field says which games it belongs to, for the page's script.
    assert re.search(r'data-games="racetrack"><label>[^<]*<input type="number" name="crash_limit"',
                     html)  # fmt: skip
    assert 'data-games="formula_de">' in html
    assert "js/event_form.js" in html


def test_the_slug_is_made_from_the_name(organiser_client, championship, circuit):
    """Issue 32, item 9: the apostrophe separates words (``d-automne``, not ``dautomne``)."""
    url = reverse("event-new", args=[championship.slug])
    first = organiser_client.post(url, base(circuit, game="formula_de", qualifying_mode="best"))
    assert first.status_code == 302
    assert Event.objects.filter(slug="grand-prix-d-automne").exists()
    again = organiser_client.post(url, base(circuit, game="formula_de", qualifying_mode="best"))
    assert again.status_code == 302
    assert Event.objects.filter(slug="grand-prix-d-automne-2").exists()


def test_a_name_with_nothing_to_make_a_slug_from_is_a_message(
    organiser_client, championship, circuit
):
    url = reverse("event-new", args=[championship.slug])
    response = organiser_client.post(url, base(circuit, name="!!! ???", game="racetrack"))
    assert response.status_code == 200
    assert "its name has no letter or digit to make one from" in response.content.decode()
    assert not Event.objects.exists()


def test_only_the_chosen_games_fields_are_read(organiser_client, championship, circuit):
    """A racetrack event: the Formula Dé fields sent (even wrong) are ignored."""
    url = reverse("event-new", args=[championship.slug])
    response = organiser_client.post(
        url,
        base(circuit, game="racetrack", slug="papier", crash_limit="3", collisions="",
             qualifying_mode="draw", laps="99", stand_numbers="3 3", standard_tyres="99"),
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    event = Event.objects.get(slug="papier")
    assert (event.game, event.crash_limit, event.collisions) == ("racetrack", 3, False)
    assert event.laps is None and event.stand_numbers == [] and event.standard_configuration is None


def test_the_settings_show_the_events_game_fields_only(organiser_client, championship, circuit):
    event = Event.objects.create(
        championship=championship, slug="papier", name="Papier", date="2026-06-06",
        circuit=circuit, game="racetrack",
    )  # fmt: skip
    url = reverse("event-settings", args=[event.slug])
    names = fields(organiser_client.get(url).content.decode())
    assert "crash_limit" in names and "collisions" in names
    assert not {"laps", "stand_numbers", "use_configurations", "game", "slug"} & set(names)
    formula = Event.objects.create(
        championship=championship, slug="fd", name="FD", date="2026-06-07", circuit=circuit
    )
    names = fields(organiser_client.get(reverse("event-settings", args=[formula.slug])).content
                   .decode())  # fmt: skip
    assert "laps" in names and "crash_limit" not in names


@pytest.mark.parametrize(
    ("name", "slug"),
    [
        ("Grand Prix d'Été", "grand-prix-d-ete"),
        ("Grand Prix d’automne", "grand-prix-d-automne"),
        ("GP_2026 / Spa", "gp-2026-spa"),
        ("  ", ""),
        ("x" * 80, "x" * 50),
    ],
)
def test_derived_slug(name, slug):
    assert derived_slug(name, taken=lambda s: False) == slug


def test_derived_slug_counts_past_the_taken_ones():
    taken = {"gp", "gp-2", "gp-3"}
    assert derived_slug("GP", taken=taken.__contains__) == "gp-4"
    assert len(derived_slug("y" * 60, taken={"y" * 50}.__contains__)) == 50


def test_a_competition_race_of_7_laps_is_refused_next_to_the_field(
    organiser_client, championship, circuit
):
    """§2-0-3 « La course se déroule sur trois tours de circuit »: the form says so next to
    the laps and keeps what was typed."""
    url = reverse("event-new", args=[championship.slug])
    typed = base(circuit, game="formula_de", qualifying_mode="best", laps="7", slug="gp-7")
    refused = organiser_client.post(url, typed)
    assert refused.status_code == 200
    html = refused.content.decode()
    assert "A competition race is 3 laps (§2-0-3)." in html
    assert re.search(r'name="laps" value="7"', html)
    assert not Event.objects.filter(slug="gp-7").exists()
    assert organiser_client.post(url, {**typed, "laps": "3"}).status_code == 302


@pytest.mark.parametrize(
    ("mode", "laps", "says"),
    [
        ("best", "7", "A competition race is 3 laps (§2-0-3)."),
        ("best", "", "A competition race is 3 laps (§2-0-3), and the circuit has 5"),
        ("draw", "7", "Quick rules: a race of 1, 2 or 3 laps."),
        ("draw", "", "Quick rules: a race of 1, 2 or 3 laps, and the circuit has 5"),
    ],
    ids=["competition", "competition-empty", "quick-rules", "quick-rules-empty"],
)
def test_the_laps_error_is_said_once(organiser_client, championship, circuit, mode, laps, says):
    """Issue 40: the "3 tours" error was printed twice under the field, once by the form on
    the laps typed and once by the model's own check of the same rule (§2-0-3; quick rules
    point 10) on the laps it kept, here on a circuit of 5 laps."""
    Circuit.objects.filter(pk=circuit.pk).update(laps=5)
    url = reverse("event-new", args=[championship.slug])
    typed = base(circuit, game="formula_de", qualifying_mode=mode, laps=laps, slug="gp-x")
    refused = organiser_client.post(url, typed)
    assert refused.status_code == 200
    errors = refused.context["form"].errors["laps"]
    assert len(errors) == 1 and errors[0].startswith(says)
    assert refused.content.decode().count("laps (§2-0-3)" if mode == "best" else "3 laps") == 1


def test_the_favourites_and_the_seeding_by_rating_are_off_and_worded_as_options(
    organiser_client, make_event
):
    """Issue 22: both off by default; seeding by rating only where the quick rules draw
    the grid, said to be a club's choice beside the d20 rule."""
    event = make_event(n_drivers=2, qualifying_mode="draw", laps=2)
    assert (event.seed_by_rating, event.show_favourites) == (False, False)
    html = organiser_client.get(reverse("event-settings", args=[event.slug])).content.decode()
    assert {"seed_by_rating", "show_favourites"} <= set(fields(html))
    assert "Seed the race tables by rating (a club&#x27;s choice)" in html
    assert "The quick rules seat the grid by the d20 alone, and that stays the default." in html
    assert "Just for fun: it changes nothing in the race." in html


def test_the_settings_tick_the_favourites_and_the_seeding(organiser_client, make_event):
    event = make_event(n_drivers=2, qualifying_mode="draw", laps=2)
    url = reverse("event-settings", args=[event.slug])
    data = base(event.circuit, qualifying_mode="draw", laps="2", minute_penalty="on",
                separate_teams="on", seed_by_rating="on", show_favourites="on")  # fmt: skip
    response = organiser_client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    event.refresh_from_db()
    assert (event.seed_by_rating, event.show_favourites) == (True, True)
    data.pop("seed_by_rating")
    data.pop("show_favourites")
    assert organiser_client.post(url, data).status_code == 302
    event.refresh_from_db()
    assert (event.seed_by_rating, event.show_favourites) == (False, False)


def test_another_game_has_the_favourites_but_no_seeding(organiser_client, championship, circuit):
    event = Event.objects.create(
        championship=championship, slug="piste", name="Piste", date="2026-06-06",
        circuit=circuit, game="racetrack",
    )  # fmt: skip
    names = fields(
        organiser_client.get(reverse("event-settings", args=[event.slug])).content.decode()
    )
    assert "show_favourites" in names and "seed_by_rating" not in names


def test_a_club_with_one_circuit_of_its_own_finds_it_chosen(organiser_client, championship):
    """A new event of a club's championship starts on the club's circuit when it has only one
    (the club made it for its season); with two, the organiser picks."""
    from tournament.clubs.models import Club

    club = Club.objects.create(slug="lion", name="Club du Lion")
    championship.club = club
    championship.save(update_fields=["club"])
    url = reverse("event-new", args=[championship.slug])
    assert organiser_client.get(url).context["form"].initial.get("circuit") is None
    weather = {"rain_from": 1, "rain_to": 4, "variable_from": 5, "variable_to": 8,
               "sun_from": 9, "sun_to": 20}  # fmt: skip
    home = Circuit.objects.create(slug="salle", name="Salle des fêtes", club=club, **weather)
    assert organiser_client.get(url).context["form"].initial["circuit"] == home.pk
    Circuit.objects.create(slug="garage", name="Garage", club=club, **weather)
    assert organiser_client.get(url).context["form"].initial.get("circuit") is None

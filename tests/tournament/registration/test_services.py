"""Registration services (championships, circuits, teams, drivers, entries) and load_demo."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tournament.access import Actor
from tournament.errors import Conflict, InvalidInput, NotAllowed
from tournament.models import Championship, Circuit, Club, Driver, Entry, Event, Team
from tournament.registration.circuits import circuit_create
from tournament.registration.services import (
    championship_create,
    driver_create,
    entries_checkin,
    entries_register,
    team_create,
)

VALID_SCALE = {"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]}


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The shared organiser fixture sets a password; PBKDF2 would cost ~0.3 s per test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def admin(django_user_model):
    return Actor(user=django_user_model.objects.create_superuser("admin", "a@example.org"))


@pytest.fixture
def actor(organiser):
    return Actor(user=organiser)


# --- Championships and circuits -----------------------------------------------------------


@pytest.mark.django_db
def test_circuit_create_with_a_valid_scale(admin):
    circuit = circuit_create(actor=admin, slug="spa", name="Spa", weather_scale=VALID_SCALE)

    assert circuit.weather_scale.weather_for(4) == "rain"
    assert circuit.weather_scale.weather_for(5) == "variable"
    assert circuit.weather_scale.weather_for(20) == "sun"
    assert Circuit.objects.get(slug="spa").laps == 3


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("scale", "message", "all_messages"),
    [
        pytest.param(
            {"rain": [1, 4], "variable": [6, 8], "sun": [9, 20]},
            "The weather scale must cover every face from 1 to 20; missing: 5.",
            ["The weather scale must cover every face from 1 to 20; missing: 5."],
            id="gap",
        ),
        pytest.param(
            {"rain": [1, 5], "variable": [5, 9], "sun": [9, 20]},
            "A d20 face may belong to one weather only; in two ranges: 5, 9.",
            ["A d20 face may belong to one weather only; in two ranges: 5, 9."],
            id="overlap",
        ),
        pytest.param(
            {"rain": [4, 1], "variable": [5, 8], "sun": [9, 20]},
            "The rain range must go from a lower to a higher face between 1 and 20.",
            [
                "The rain range must go from a lower to a higher face between 1 and 20.",
                "The weather scale must cover every face from 1 to 20; missing: 1, 2, 3, 4.",
            ],
            id="reversed",
        ),
    ],
)
def test_circuit_create_refuses_a_bad_weather_scale(admin, scale, message, all_messages):
    with pytest.raises(InvalidInput) as caught:
        circuit_create(actor=admin, slug="spa", name="Spa", weather_scale=scale)

    assert caught.value.message == message
    assert caught.value.errors == {"weather_scale": all_messages}
    assert not Circuit.objects.filter(slug="spa").exists()


@pytest.mark.django_db
def test_circuit_create_refuses_a_missing_range(admin):
    with pytest.raises(InvalidInput) as caught:
        circuit_create(
            actor=admin, slug="spa", name="Spa", weather_scale={"rain": [1, 4], "sun": [5, 20]}
        )

    assert caught.value.errors == {"weather_scale": ["Missing or malformed range: variable."]}


@pytest.mark.django_db
def test_championship_and_circuit_without_a_club_only_by_a_superuser(actor, championship):
    """A guest organiser runs no club: neither a championship nor a circuit of their own
    (DOMAIN.md "Clubs and who may do what"; a club's own are in tests/tournament/clubs)."""
    with pytest.raises(NotAllowed):
        championship_create(actor=actor, slug="x", name="X", season="2026", points_scale=[3])
    with pytest.raises(NotAllowed):
        circuit_create(actor=actor, slug="x", name="X", weather_scale=VALID_SCALE)
    with pytest.raises(NotAllowed):
        circuit_create(actor=Actor.anonymous(), slug="x", name="X", weather_scale=VALID_SCALE)

    assert not Championship.objects.filter(slug="x").exists()
    assert not Circuit.objects.filter(slug="x").exists()


@pytest.mark.django_db
def test_championship_create_by_superuser_and_duplicate_slug(admin):
    created = championship_create(
        actor=admin, slug="ligue", name="Ligue", season="2026", points_scale=[10, 6, 4]
    )
    assert Championship.objects.get(slug="ligue").points_scale == [10, 6, 4]
    assert created.points_mode == "per_table"

    with pytest.raises(Conflict):
        championship_create(actor=admin, slug="ligue", name="Bis", season="2027", points_scale=[1])
    assert Championship.objects.filter(slug="ligue").count() == 1


@pytest.mark.django_db
def test_championship_create_refuses_a_bad_points_scale(admin):
    with pytest.raises(InvalidInput) as caught:
        championship_create(
            actor=admin, slug="ligue", name="Ligue", season="2026", points_scale=[10, -1]
        )

    assert caught.value.errors == {
        "points_scale": ["The points scale is a list of whole numbers, 0 or more: -1 is not."]
    }


# --- Teams and drivers --------------------------------------------------------------------


@pytest.mark.django_db
def test_team_create_duplicate_is_a_conflict(actor, championship):
    team_create(actor=actor, championship=championship, name="Scuderia Dé")

    with pytest.raises(Conflict):
        team_create(actor=actor, championship=championship, name="  scuderia dé ")
    assert Team.objects.filter(championship=championship).count() == 1


@pytest.mark.django_db
def test_team_create_duplicate_differing_only_in_accented_capitals_is_a_conflict(
    actor, championship
):
    # BUG (SQLite): ``name__iexact`` is ASCII-only case-insensitive on SQLite, so
    # "écurie étoile" is not found as a duplicate of "Écurie Étoile" and a second team
    # is created; PostgreSQL raises the Conflict.
    team_create(actor=actor, championship=championship, name="Écurie Étoile")

    with pytest.raises(Conflict):
        team_create(actor=actor, championship=championship, name="écurie étoile")
    assert Team.objects.filter(championship=championship).count() == 1


@pytest.mark.django_db
def test_team_create_same_name_in_another_championship_is_allowed(admin, championship):
    other = Championship.objects.create(slug="autre", name="Autre", season="2026")

    team_create(actor=admin, championship=championship, name="Scuderia Dé")
    team_create(actor=admin, championship=other, name="Scuderia Dé")

    assert Team.objects.filter(name="Scuderia Dé").count() == 2


@pytest.mark.django_db
def test_driver_create_duplicate_number_is_a_conflict(actor, championship):
    driver_create(
        actor=actor,
        championship=championship,
        number=7,
        first_name="Élodie",
        last_name="Lefèvre",
        team="Écurie Étoile",
    )

    with pytest.raises(Conflict) as caught:
        driver_create(
            actor=actor, championship=championship, number=7, first_name="Théo", last_name="M"
        )

    assert caught.value.errors == {"number": ["This number is taken."]}
    assert Driver.objects.get(number=7).first_name == "Élodie"
    assert Driver.objects.get(number=7).team.name == "Écurie Étoile"


@pytest.mark.django_db
def test_driver_create_bad_email_creates_neither_driver_nor_team(actor, championship):
    with pytest.raises(InvalidInput) as caught:
        driver_create(
            actor=actor,
            championship=championship,
            number=7,
            first_name="Élodie",
            last_name="Lefèvre",
            team="Nouvelle Écurie",
            email="pas-un-courriel",
        )

    assert list(caught.value.errors) == ["email"]
    assert (Driver.objects.count(), Team.objects.count()) == (0, 0)


@pytest.mark.django_db
def test_driver_create_by_an_outsider_is_not_allowed(django_user_model, championship):
    outsider = Actor(user=django_user_model.objects.create_user("curieux"))

    with pytest.raises(NotAllowed):
        driver_create(
            actor=outsider, championship=championship, number=7, first_name="A", last_name="B"
        )
    assert Driver.objects.count() == 0


# --- Entries ------------------------------------------------------------------------------


@pytest.mark.django_db
def test_entries_register_is_idempotent(actor, make_event, championship):
    event = make_event(n_drivers=0)
    for number in (1, 2, 3):
        Driver.objects.create(
            championship=championship, number=number, first_name=f"P{number}", last_name="L"
        )

    first = entries_register(actor=actor, event=event, numbers=[1, 2])
    again = entries_register(actor=actor, event=event, numbers=[2, 1, 3, 3])

    assert [e.driver.number for e in first] == [1, 2]
    assert [e.driver.number for e in again] == [2, 1, 3]
    assert {e.pk for e in again} >= {e.pk for e in first}
    assert Entry.objects.filter(event=event).count() == 3
    # One creation row per entry in the history, none for the repeated registrations.
    assert Entry.history.filter(event_id=event.pk).count() == 3


@pytest.mark.django_db
def test_entries_register_unknown_number_registers_nobody(actor, make_event):
    event = make_event(n_drivers=2)

    with pytest.raises(InvalidInput) as caught:
        entries_register(actor=actor, event=event, numbers=[1, 98, 99])

    assert caught.value.message == "Unknown driver numbers in this championship: 98, 99."
    assert Entry.objects.filter(event=event).count() == 2


@pytest.mark.django_db
def test_entries_checkin_unregistered_number_is_invalid(actor, make_event, championship):
    event = make_event(n_drivers=3)
    Driver.objects.create(championship=championship, number=5, first_name="Zoé", last_name="G")

    with pytest.raises(InvalidInput) as caught:
        entries_checkin(actor=actor, event=event, numbers=[1, 5])

    assert caught.value.message == "Not registered for this event: 5."
    assert Entry.objects.filter(event=event, checked_in=True).count() == 0


@pytest.mark.django_db
def test_entries_checkin_and_back(actor, make_event):
    event = make_event(n_drivers=3)

    entries_checkin(actor=actor, event=event, numbers=[1, 3])
    assert sorted(
        Entry.objects.filter(event=event, checked_in=True).values_list("driver__number", flat=True)
    ) == [1, 3]

    entries_checkin(actor=actor, event=event, numbers=[3], checked_in=False)
    assert list(
        Entry.objects.filter(event=event, checked_in=True).values_list("driver__number", flat=True)
    ) == [1]
    latest = Entry.history.filter(driver__number=3).order_by("-history_id").first()
    assert (latest.checked_in, latest.history_user, latest.history_actor) == (
        False,
        actor.user,
        "pc",
    )


@pytest.mark.django_db
def test_entries_by_a_table_link_are_not_allowed(make_event):
    from qualifying.models import QualifyingTable

    event = make_event(n_drivers=2)
    table = QualifyingTable.objects.create(event=event, number=1)

    with pytest.raises(NotAllowed):
        entries_checkin(actor=Actor(table=table), event=event, numbers=[1])


# --- load_demo ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_load_demo_runs_twice_without_duplicates_and_prints_the_logins(django_user_model):
    from qualifying.models import QualifyingSession, QualifyingTable, Run

    first, second = io.StringIO(), io.StringIO()
    call_command("load_demo", stdout=first)
    call_command("load_demo", stdout=second)

    championship = Championship.objects.get(slug="demo")
    event = Event.objects.get(slug="demo-grand-prix-de-printemps")
    # + the other games' Club championship; the next season "demo-2027" (tests/tournament/players);
    # the demo league's three clubs' Heat evenings (tests/standings/leagues)
    others = ["demo-club", "demo-2027", "demo-heat-aix", "demo-heat-nice", "demo-heat-lyon"]
    assert Championship.objects.exclude(slug__in=others).count() == 1
    # spring (qualifying) and summer (quick-rules draw)
    assert Event.objects.filter(championship=championship).count() == 2
    assert Driver.objects.filter(championship=championship).count() == 24
    assert Team.objects.filter(championship=championship).count() == 8
    assert Entry.objects.filter(event=event, checked_in=True).count() == 24
    assert list(QualifyingSession.objects.values_list("number", "weather", "track")) == [
        (1, "sun", "dry"),
        (2, "rain", "wet"),
    ]
    assert QualifyingTable.objects.filter(event=event).count() == 4
    assert Run.objects.count() == 48
    # Driver 10 (and 22, who copies 10's line) is eliminated in session 1 only.
    assert sorted(
        Run.objects.filter(eliminated=True).values_list("session__number", "driver__number")
    ) == [(1, 10), (1, 22)]
    assert event.published_qualifying is True
    assert sorted(django_user_model.objects.values_list("username", "is_superuser")) == [
        ("accueil", False),
        ("admin", True),
        ("organisateur", False),
        ("proprietaire", False),
    ]
    # The demo club (DOMAIN.md "Clubs and who may do what"): its championships and circuits,
    # an owner, an organiser and a desk login; nobody a guest organiser.
    club = Club.objects.get(slug="club-demo")
    # The demo league's two other clubs (Nice, Lyon) hold their own Heat evenings only.
    assert set(Club.objects.exclude(pk=club.pk).values_list("slug", flat=True)) == {
        "demo-nice",
        "demo-lyon",
    }
    assert set(
        Championship.objects.exclude(slug__in=["demo-heat-nice", "demo-heat-lyon"]).values_list(
            "club", flat=True
        )
    ) == {club.pk}
    assert set(Circuit.objects.values_list("club", flat=True)) == {club.pk}
    assert sorted(club.memberships.values_list("user__username", "role")) == [
        ("accueil", "desk"),
        ("organisateur", "organiser"),
        ("proprietaire", "owner"),
    ]
    assert not Championship.organisers.through.objects.exists()
    assert championship.is_organiser(django_user_model.objects.get(username="organisateur"))
    assert not championship.is_organiser(django_user_model.objects.get(username="accueil"))
    for output in (first.getvalue(), second.getvalue()):
        assert "admin / paddock-admin" in output
        assert "organisateur / paddock-pc" in output
        assert "proprietaire / paddock-club   (owner of the demo club" in output
        assert "accueil / paddock-accueil   (the demo club's desk" in output
        assert "/e/demo-grand-prix-de-printemps/desk/" in output
        assert output.count("/q/") == 4


@pytest.mark.django_db
def test_load_demo_quiet_prints_nothing():
    out = io.StringIO()

    call_command("load_demo", "--quiet", stdout=out)

    assert out.getvalue() == ""
    assert Driver.objects.filter(championship__slug="demo").count() == 24


@pytest.mark.django_db
def test_load_demo_absolute_times_follow_the_rules():
    from qualifying.selectors import session_classification

    call_command("load_demo", "--quiet")
    from qualifying.models import QualifyingSession

    dry = session_classification(session=QualifyingSession.objects.get(number=1))
    by_number = {line.driver.number: line for line in dry}
    # Soft tyres on a dry track double the one exit square; 1:05.30 is one full minute.
    assert by_number[1].absolute_time == 19 + 2 + 1
    # 0:59.99 has no full minute; one placement error is 10 throws.
    assert by_number[8].absolute_time == 18 + 10
    # 3 and 4 share 22 throws: the lower stopwatch (1:10.00) classes first.
    assert by_number[3].rank + 1 == by_number[4].rank
    # 5 and 6 tie on everything: 5 ran first.
    assert by_number[5].rank + 1 == by_number[6].rank
    assert [line.driver.number for line in dry[-2:]] == [10, 22]
    assert {line.status for line in dry[-2:]} == {"eliminated"}

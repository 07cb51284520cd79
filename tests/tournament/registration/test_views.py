"""Registration pages: home, championship, event, and the organiser desk with its forms.

Every page as the organiser, an outsider (logged in, organises nothing), an organiser of
another championship and an anonymous visitor.
"""

from __future__ import annotations

import datetime
import re

import pytest
from django.urls import reverse
from django.utils import timezone

from tournament.models import Announcement, Championship, Driver, Entry, Event


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    # The shared organiser fixture sets a password; PBKDF2 would cost ~0.3 s per test.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user("curieux")


@pytest.fixture
def other_organiser(django_user_model):
    user = django_user_model.objects.create_user("autre-pc")
    Championship.objects.create(slug="autre", name="Autre", season="2026").organisers.add(user)
    return user


@pytest.fixture
def event(make_event):
    return make_event(n_drivers=4)


@pytest.fixture
def as_organiser(client, organiser):
    client.force_login(organiser)
    return client


def registered(event) -> list[int]:
    return sorted(Entry.objects.filter(event=event).values_list("driver__number", flat=True))


# --- Desk ---------------------------------------------------------------------------------


@pytest.mark.django_db
def test_desk_as_organiser(as_organiser, event):
    response = as_organiser.get(reverse("event-desk", args=[event.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    for number in range(1, 5):
        assert f"Pilote{number} Lefèvre" in html
    assert reverse("desk-session-create", args=[event.slug]) in html


@pytest.mark.django_db
def test_desk_as_superuser(client, django_user_model, event):
    client.force_login(django_user_model.objects.create_superuser("root-user", "r@example.org"))

    assert client.get(reverse("event-desk", args=[event.slug])).status_code == 200


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider", "other_organiser"])
def test_desk_is_forbidden_to_others(client, request, event, who):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))

    response = client.get(reverse("event-desk", args=[event.slug]))

    assert response.status_code == 403


@pytest.mark.django_db
def test_desk_of_an_unknown_event_is_404(as_organiser):
    assert as_organiser.get(reverse("event-desk", args=["nope"])).status_code == 404


@pytest.mark.django_db
def test_desk_is_french_by_default_and_english_on_request(as_organiser, event):
    url = reverse("event-desk", args=[event.slug])

    french = as_organiser.get(url).content.decode()
    as_organiser.cookies["django_language"] = "en"
    english = as_organiser.get(url).content.decode()

    # No French catalogue (locale/fr/LC_MESSAGES/django.mo) exists yet: only the language
    # of the page can be checked, not its words.
    assert '<html lang="fr">' in french
    assert '<html lang="en">' in english
    assert "Race control desk" in english


# --- Desk forms ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_desk_register_numbers_and_all(as_organiser, event, championship):
    for number in (7, 8, 9):
        Driver.objects.create(
            championship=championship, number=number, first_name="N", last_name="X"
        )
    url = reverse("desk-register", args=[event.slug])

    response = as_organiser.post(url, {"numbers": "7, 8"})
    assert response.status_code == 302
    assert registered(event) == [1, 2, 3, 4, 7, 8]

    as_organiser.post(url, {"all": "1"})
    assert registered(event) == [1, 2, 3, 4, 7, 8, 9]


@pytest.mark.django_db
def test_desk_register_bad_input_registers_nobody(as_organiser, event, championship):
    as_organiser.cookies["django_language"] = "en"
    Driver.objects.create(championship=championship, number=7, first_name="N", last_name="X")
    url = reverse("desk-register", args=[event.slug])

    response = as_organiser.post(url, {"numbers": "7 sept"}, follow=True)
    html = response.content.decode()
    assert "“sept” is not a driver number." in html
    # What was typed stays in the box, the reason beside it.
    assert re.search(r'name="numbers" value="7 sept"[^>]*aria-invalid="true"', html), html
    assert registered(event) == [1, 2, 3, 4]


@pytest.mark.django_db
def test_desk_checkin_batch_checks_in_the_known_and_keeps_the_unknown(
    as_organiser, event, championship
):
    """One unknown number (99, 1000) no longer loses the batch: 7 and 2 are checked in, the
    unknown numbers stay in the box, named."""
    as_organiser.cookies["django_language"] = "en"
    Driver.objects.create(championship=championship, number=7, first_name="N", last_name="X")
    url = reverse("desk-register", args=[event.slug])

    response = as_organiser.post(url, {"numbers": "7 99, 2 1000", "action": "checkin"}, follow=True)

    html = response.content.decode()
    assert registered(event) == [1, 2, 3, 4, 7]
    assert sorted(
        Entry.objects.filter(event=event, checked_in=True).values_list("driver__number", flat=True)
    ) == [2, 7]
    assert "2 drivers checked in." in html
    assert "No drivers 99, 1000 in this championship: kept in the box" in html
    assert re.search(r'name="numbers" value="99 1000"[^>]*aria-invalid="true"', html), html
    # Kept once: the next visit shows an empty box.
    again = as_organiser.get(reverse("event-desk", args=[event.slug])).content.decode()
    assert 'value="99 1000"' not in again


@pytest.mark.django_db
def test_desk_register_unicode_digit_is_a_form_error_not_a_crash(as_organiser, event, championship):
    # BUG: RegisterForm.clean_numbers checks ``token.isdigit()`` ("²" passes) and then
    # int("²") raises ValueError: a 500 instead of a form error.
    response = as_organiser.post(reverse("desk-register", args=[event.slug]), {"numbers": "²"})

    assert response.status_code == 302
    assert registered(event) == [1, 2, 3, 4]


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_desk_register_is_forbidden_to_others(client, request, event, championship, who):
    Driver.objects.create(championship=championship, number=7, first_name="N", last_name="X")
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))

    response = client.post(reverse("desk-register", args=[event.slug]), {"all": "1"})

    assert response.status_code == 403
    assert registered(event) == [1, 2, 3, 4]


@pytest.mark.django_db
def test_desk_checkin_with_htmx_returns_the_button(as_organiser, event):
    url = reverse("desk-checkin", args=[event.slug, 3])

    response = as_organiser.post(url, {"state": "present"}, HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    html = response.content.decode()
    # "✓ Present" is a mark, not a button: undoing is a button of its own, named so.
    assert re.search(r'<span class="checkin-state status-ok" role="status">✓ [^<]+</span>', html)
    assert 'name="state" value="none"' in html
    assert 'value="present"' not in html
    assert present(event) == [3]

    again = as_organiser.post(url, {"state": "present"}, HTTP_HX_REQUEST="true")
    assert again.status_code == 200
    assert present(event) == [3]  # a second tap changes nothing

    response = as_organiser.post(url, {"state": "none"})
    assert response.status_code == 302
    assert present(event) == []


def present(event) -> list[int]:
    return list(
        Entry.objects.filter(event=event, checked_in=True).values_list("driver__number", flat=True)
    )


@pytest.mark.django_db
def test_a_driver_who_did_not_come_is_marked_absent_and_the_check_in_completes(as_organiser, event):
    """DOMAIN.md: a registered driver who did not come is marked absent at the check-in;
    the day's checklist counts them as done."""
    as_organiser.cookies["django_language"] = "en"
    desk = reverse("event-desk", args=[event.slug])
    for number in (1, 2, 3):
        as_organiser.post(reverse("desk-checkin", args=[event.slug, number]), {"state": "present"})

    response = as_organiser.post(
        reverse("desk-checkin", args=[event.slug, 4]), {"state": "absent"}, follow=True
    )

    html = response.content.decode()
    assert "4 Pilote4 Lefèvre is marked absent." in html
    step = html.split('id="step-checkin"', 1)[1].split("</li>", 1)[0]
    assert step.startswith(' class="done"')
    assert "3 / 4 · 1 absent" in step
    entry = Entry.objects.get(event=event, driver__number=4)
    assert (entry.absent, entry.checked_in) == (True, False)
    # Undone: the step is open again.
    as_organiser.post(reverse("desk-checkin", args=[event.slug, 4]), {"state": "none"})
    again = as_organiser.get(desk).content.decode()
    assert again.split('id="step-checkin"', 1)[1].startswith(' class="todo"')
    assert not Entry.objects.get(event=event, driver__number=4).absent


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_desk_checkin_is_forbidden_to_others(client, request, event, who):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))

    response = client.post(reverse("desk-checkin", args=[event.slug, 1]), {"checked_in": "1"})

    assert response.status_code == 403
    assert not Entry.objects.filter(event=event, checked_in=True).exists()


@pytest.mark.django_db
def test_desk_publish_switches_the_qualifying_classification(as_organiser, event, client):
    url = reverse("desk-publish", args=[event.slug])

    assert as_organiser.post(url, {"qualifying": "1"}).status_code == 302
    assert Event.objects.get(pk=event.pk).published_qualifying is True
    as_organiser.post(url, {})
    assert Event.objects.get(pk=event.pk).published_qualifying is False


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_desk_publish_is_forbidden_to_others(client, request, event, who):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))

    response = client.post(reverse("desk-publish", args=[event.slug]), {"qualifying": "1"})

    assert response.status_code == 403
    assert Event.objects.get(pk=event.pk).published_qualifying is False


# --- Public pages -------------------------------------------------------------------------


@pytest.mark.django_db
def test_public_pages_for_anonymous(client, event, championship):
    # Anything published shows the event to visitors (test_unpublished_event: before, 404).
    Event.objects.filter(pk=event.pk).update(published_allocation=True)
    home = client.get(reverse("home"))
    page = client.get(reverse("championship", args=[championship.slug]))
    event_page = client.get(reverse("event", args=[event.slug]))

    assert [home.status_code, page.status_code, event_page.status_code] == [200, 200, 200]
    assert "Coupe de France" in home.content.decode()
    assert "<td >Pilote1</td>" in page.content.decode()
    # Neither the import link nor the desk link is offered to a visitor.
    assert reverse("drivers-import", args=[championship.slug]) not in page.content.decode()
    assert reverse("event-desk", args=[event.slug]) not in event_page.content.decode()


@pytest.mark.django_db
def test_event_page_links_the_desk_for_the_organiser_only(as_organiser, client, event, outsider):
    desk = reverse("event-desk", args=[event.slug])

    assert desk in as_organiser.get(reverse("event", args=[event.slug])).content.decode()
    client.force_login(outsider)
    assert desk not in client.get(reverse("event", args=[event.slug])).content.decode()


@pytest.mark.django_db
def test_event_page_hides_qualifying_until_published(client, event):
    general = reverse("qualifying-general", args=[event.slug])

    assert general not in client.get(reverse("event", args=[event.slug])).content.decode()
    Event.objects.filter(pk=event.pk).update(published_qualifying=True)
    assert general in client.get(reverse("event", args=[event.slug])).content.decode()


@pytest.mark.django_db
def test_the_event_page_is_public_once_its_sign_up_opens(client, event):
    """DOMAIN.md "Corrections to 'Before the day'": the event's page is public once its
    sign-up opens (the announcement, the sign-up link, the entrants); results still follow
    the publication settings. Before it opens, nothing is published: 404 as before."""
    Event.objects.filter(pk=event.pk).update(
        date=timezone.localdate() + datetime.timedelta(days=30)
    )
    announcement = Announcement.objects.create(
        event=event,
        place="Salle des fêtes",
        capacity=12,
        opens_at=timezone.now() + datetime.timedelta(days=1),
    )
    url = reverse("event", args=[event.slug])
    assert client.get(url).status_code == 404

    Announcement.objects.filter(pk=announcement.pk).update(
        opens_at=timezone.now() - datetime.timedelta(minutes=1)
    )
    response = client.get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "Salle des fêtes" in html
    assert f'href="{reverse("signup", args=[event.slug])}"' in html
    assert f'href="{reverse("signup-entrants", args=[event.slug])}"' in html
    assert reverse("event-results", args=[event.slug]) not in html
    assert reverse("qualifying-general", args=[event.slug]) not in html


# --- One driver at a time (driver-new) ---------------------------------------------------------


def add_driver(client, championship, **fields):  # type: ignore[no-untyped-def]
    data = {"number": "", "first_name": "", "last_name": "", "team": "", "email": "",
            "licence": ""} | fields  # fmt: skip
    client.cookies["django_language"] = "en"
    return client.post(reverse("driver-new", args=[championship.slug]), data)


def value_of(html: str, name: str) -> str:
    found = re.search(rf'<input [^>]*name="{name}"[^>]*>', html)
    assert found, name
    value = re.search(r'value="([^"]*)"', found.group(0))
    return value.group(1) if value else ""


@pytest.mark.django_db
def test_race_control_adds_one_driver_with_a_licence_from_the_championship_page(
    as_organiser, organiser, championship
):
    from tournament.access import Actor
    from tournament.registration.services import driver_create

    page = as_organiser.get(reverse("championship", args=[championship.slug])).content.decode()
    assert f'action="{reverse("driver-new", args=[championship.slug])}"' in page
    assert 'name="licence"' in page
    last_season = Championship.objects.create(slug="cf-2025", name="CF", season="2025")
    last_season.organisers.add(organiser)
    known = driver_create(actor=Actor(user=organiser), championship=last_season, number=4,
                          first_name="Élodie", last_name="Lefèvre", licence="FFJ-0042")  # fmt: skip

    response = add_driver(as_organiser, championship, number="12", first_name=" Élodie ",
                          last_name="Lefèvre-Martin", team="Écurie Étoile",
                          email="elodie@example.org", licence="FFJ-0042")  # fmt: skip

    assert response.status_code == 302
    assert response["Location"] == reverse("championship", args=[championship.slug]) + "#drivers"
    driver = Driver.objects.get(championship=championship, number=12)
    assert (driver.first_name, driver.last_name, driver.team.name, driver.email) == (
        "Élodie", "Lefèvre-Martin", "Écurie Étoile", "elodie@example.org",
    )  # fmt: skip
    assert driver.player_id == known.player_id  # the licence found the same player
    page = as_organiser.get(response["Location"]).content.decode()
    assert "Driver 12, Élodie Lefèvre-Martin, registered." in page


@pytest.mark.django_db
def test_a_refused_driver_comes_back_with_everything_typed_and_the_reason(
    as_organiser, organiser, championship
):
    add_driver(as_organiser, championship, number="7", first_name="Théo", last_name="Marchand",
               licence="L-7")  # fmt: skip
    cases = [
        ({"number": "7"}, "This number is taken."),
        ({"number": "8", "licence": "L-7"}, "already driver 7&#x27;s (Théo Marchand)"),
        ({"number": "8", "email": "not-an-email"}, "Enter a valid email address."),
        ({"number": "0"}, "Ensure this value is greater than or equal to 1."),
    ]
    for fields, reason in cases:
        typed = {"first_name": "Zoé", "last_name": "<b>Girard</b>", "team": "Scuderia Dé",
                 "licence": "", "email": "zoe@example.org"} | fields  # fmt: skip
        response = add_driver(as_organiser, championship, **typed)
        html = response.content.decode()
        assert response.status_code == 200, fields
        assert reason in html, fields
        for name in ("number", "first_name", "team", "licence"):
            assert value_of(html, name) == typed[name], (fields, name)
        assert value_of(html, "last_name") == "&lt;b&gt;Girard&lt;/b&gt;"
        assert "<b>Girard</b>" not in html
    assert list(
        Driver.objects.filter(championship=championship).values_list("number", flat=True)
    ) == [7]


@pytest.mark.django_db
def test_only_its_organisers_add_a_driver(client, outsider, other_organiser, championship):
    assert (
        'name="licence"'
        not in client.get(reverse("championship", args=[championship.slug])).content.decode()
    )
    for user in (None, outsider, other_organiser):
        if user is not None:
            client.force_login(user)
        response = add_driver(client, championship, number="3", first_name="A", last_name="B")
        assert response.status_code == 403
        page = client.get(reverse("championship", args=[championship.slug])).content.decode()
        assert 'name="licence"' not in page
    assert not Driver.objects.exists()


@pytest.mark.django_db
def test_the_driver_form_speaks_french(as_organiser, championship):
    as_organiser.cookies["django_language"] = "fr"
    html = as_organiser.get(reverse("driver-new", args=[championship.slug])).content.decode()
    assert "Numéro de licence" in html and "Ajouter le pilote" in html

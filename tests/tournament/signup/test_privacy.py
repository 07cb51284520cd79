"""A person's data on request: race control exports it (JSON) and erases it; the name and
contact become "Pilote anonyme n° N" everywhere they were kept, the entry and the driver
(results, points, ratings hang on them) stay, and the erasure is recorded."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from tournament.access import Actor
from tournament.errors import InvalidInput
from tournament.models import Entry
from tournament.signup import checkin, services
from tournament.signup.models import Mail, Registration

pytestmark = pytest.mark.django_db


def test_export_then_erase_everywhere_but_results_stay(open_event, sign_up_confirmed, organiser):
    actor = Actor(user=organiser)
    event = open_event()
    registration, _ = sign_up_confirmed(event, "elodie@example.org", licence="L-12")
    entry = checkin.registration_check_in(reg=registration, actor=actor)
    client = Client()
    client.force_login(organiser)
    path = f"/e/{event.slug}/desk/registrations/"
    exported = json.loads(client.post(path, {"action": "export", "id": registration.pk}).content)
    assert exported["registration"]["email"] == "elodie@example.org"
    assert [c["why"] for c in exported["changes"]][:2] == [
        "signed up",
        "address confirmed: accepted",
    ]
    assert {m["kind"] for m in exported["mails"]} == {"confirm", "accepted"}
    with pytest.raises(InvalidInput):
        services.registration_erase(registration=registration, actor=actor, reason="")
    client.post(path, {"action": "erase", "id": registration.pk, "reason": "asked by mail"})
    erased = Registration.objects.get(pk=registration.pk)
    assert (erased.first_name, erased.last_name) == ("Pilote anonyme", f"n° {registration.pk}")
    assert erased.email == erased.licence == "" and erased.erased_at is not None
    assert not Mail.objects.filter(registration=erased).exists()
    assert not Registration.history.filter(id=erased.pk, email="elodie@example.org").exists()
    last = Registration.history.filter(id=erased.pk).first()
    assert last.history_change_reason == "erased on request: asked by mail"
    assert last.history_user == organiser
    driver = Entry.objects.get(pk=entry.pk).driver
    assert driver.pk == entry.driver_id and driver.first_name == "Pilote anonyme"
    assert driver.email == "" and driver.player.licence is None
    assert b"elodie" not in client.get(path).content.lower()

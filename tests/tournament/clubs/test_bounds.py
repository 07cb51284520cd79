"""Bounded (DOMAIN.md "Many clubs on one server"): a club sends 20 invitations an hour, a
person makes 3 clubs a day on a server open to clubs; past that a 429 with ``Retry-After``
and a sentence saying when. A club's name carries no control or direction character, and
the invitation's mail quotes it as its owner's words, never as Paddock's."""

from __future__ import annotations

import pytest

from tournament.models import Club, Invitation
from tournament.signup.models import Mail

pytestmark = pytest.mark.django_db


def test_the_21st_invitation_of_a_club_within_an_hour_is_refused(clubs):
    owner = clubs.api("patronne")
    answers = [
        owner.post("/clubs/aix/invitations", {"email": f"p{n}@example.org", "role": "desk"})
        for n in range(21)
    ]

    assert [a.status_code for a in answers] == [202] * 20 + [429]
    assert 3500 <= int(answers[-1]["Retry-After"]) <= 3600
    assert "try again in 60 minutes" in answers[-1].json()["detail"]
    assert Invitation.objects.filter(club=clubs.club).count() == 20
    # Another club's budget is its own.
    other = clubs.api("rival").post("/clubs/nice/invitations", {"email": "a@x.org", "role": "desk"})
    assert other.status_code == 202


def test_a_person_makes_three_clubs_a_day_on_a_server_open_to_clubs(clubs, settings):
    settings.CLUBS_OPEN = True
    person = clubs.api("invitee")
    answers = [person.post("/clubs", {"slug": f"c{n}", "name": f"Club {n}"}) for n in range(4)]

    assert [a.status_code for a in answers] == [201] * 3 + [429]
    assert 23 * 3600 < int(answers[-1]["Retry-After"]) <= 24 * 3600
    assert "try again in 24 hours" in answers[-1].json()["detail"]
    assert not Club.objects.filter(slug="c3").exists()


def test_a_club_s_name_keeps_no_direction_character_and_the_mail_quotes_it(
    clubs, settings, django_capture_on_commit_callbacks
):
    settings.CLUBS_OPEN = True
    person = clubs.api("invitee")
    for name in ("Aix\u202egnp.exe", "Aix\u200bclub", "Aix\x07"):
        refused = person.post("/clubs", {"slug": "evil", "name": name})
        assert refused.status_code == 400 and "name" in refused.json()["errors"]
    made = person.post("/clubs", {"slug": "emoji", "name": "Écurie 👨\u200d👩\u200d👧"})
    assert made.status_code == 201

    phishing = "Your Paddock account is blocked: log in again at http://evil.example/login"
    clubs.club.name = phishing
    clubs.club.save()
    clubs.api("patronne").post("/clubs/aix/invitations", {"email": "l@x.org", "role": "desk"})

    mail = Mail.objects.get()
    assert mail.subject == (
        "Paddock: an invitation to the club named “Your Paddock account is blocked: log in "
        "again at http://evi…”"
    )
    assert f"The club's name, as its owner wrote it: “{phishing}”." in mail.body_text
    assert not mail.body_text.split("\n\n")[1].startswith(phishing)

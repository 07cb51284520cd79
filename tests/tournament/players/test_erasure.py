"""A person erased on request (tournament/players/erasure.py; DOMAIN.md "Corrections to
'Before the day'": erasure reaches the person, not one registration; erased drivers read
"Pilote anonyme" with their racing number, no other number).

The proof is the whole database: every row of every table, read back as text (binary
columns decoded), holds none of the person's name, address, licence and team text; results,
points and ratings are what they were."""

from __future__ import annotations

import datetime

import pytest
from django.contrib.admin.models import CHANGE, LogEntry
from django.contrib.contenttypes.models import ContentType
from django.db import connection
from django.test import Client
from django.utils import timezone

from races.models import ResultLine
from tests.standings.ratings.conftest import Season
from tests.tournament.signup.conftest import last_token
from tournament.access import Actor
from tournament.errors import InvalidInput, NotAllowed
from tournament.models import ApiToken, Driver, Entry, Player, PlayerRating, RatingPoint, Team
from tournament.offline.models import IdempotencyKey
from tournament.players import erasure
from tournament.players.changes import players_merge
from tournament.players.identity import new_player
from tournament.sealing import unseal_bytes
from tournament.signup import services
from tournament.signup.models import Announcement, Mail, Registration

pytestmark = pytest.mark.django_db

FIRST, LAST = "Zébulon", "Quintavalle"
EMAIL = "zq.person@example.org"
LICENCE = "LIC-ZQ-771"
TEAM = "Écurie Quintessence"
#: What must be found nowhere once the person is erased (ASCII: JSON may escape the rest).
WORDS = ("quintavalle", "zq.person", "lic-zq-771", "quintessence")


def readable(value: object) -> str:
    """A column's value as the server can read it: bytes decoded, and what is sealed with
    the server's key (answers kept for replays, links) opened as well."""
    raw = bytes(value) if isinstance(value, bytes | memoryview) else str(value).encode()
    opened = unseal_bytes(raw) if raw.startswith(b"gAAAAA") else None
    return " ".join(text.decode("utf-8", "replace") for text in (raw, opened or b""))


def every_row() -> str:
    """Every row of every table of the database, as lower-case text."""
    quote = connection.ops.quote_name
    lines = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT * FROM {quote(table)}")  # noqa: S608 - the schema's names
            for row in cursor.fetchall():
                lines.append(f"{table}: {' | '.join(readable(v) for v in row)}")
    return "\n".join(lines).casefold()


def found(text: str) -> list[str]:
    return [word for word in WORDS if word in text]


def api(token: str, method: str, path: str, body: str, key: str = ""):
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token}"} if token else {}
    if key:
        headers["HTTP_IDEMPOTENCY_KEY"] = key
    return getattr(Client(**headers), method)(
        f"/api/v1{path}", body, content_type="application/json"
    )


def results_and_ratings() -> list[list[tuple]]:
    return [
        list(ResultLine.objects.order_by("pk").values_list()),
        list(Entry.objects.order_by("pk").values_list("pk", "event", "driver", "checked_in")),
        list(PlayerRating.objects.order_by("pk").values_list("player", "mu", "sigma", "races")),
        list(RatingPoint.objects.order_by("pk").values_list("player", "seq", "place", "rating")),
    ]


@pytest.fixture
def person(organiser, make_event, django_capture_on_commit_callbacks):
    """Zébulon Quintavalle drove n° 3 of last season (for a team of his own, rated), signed
    up for this season's event (same address, licence, that team's name: a team row made at
    check-in), checked in through the API as n° 6 (a new player claiming his licence),
    merged by race control with his player of last season. Nina signed up too; API writes
    sent with Idempotency-Key."""
    actor = Actor(user=organiser)
    players = [Player.objects.create(first_name=f"Joueur{n}", last_name="Ancien") for n in (1, 2)]
    zebulon = new_player(FIRST, LAST, EMAIL, LICENCE)
    players += [zebulon, Player.objects.create(first_name="Joueur4", last_name="Ancien")]
    with django_capture_on_commit_callbacks(execute=True):
        old = Season(actor, "old", 4, players)
        Driver.objects.filter(pk=old.drivers[3].pk).update(
            email=EMAIL, team=Team.objects.create(championship=old.championship, name=TEAM)
        )
        played = old.event(day=1, table_size=4)
        old.confirm(played, 1, [3, 1, 4, 2])
    event = make_event(n_drivers=5)
    Announcement.objects.create(
        event=event, opens_at=timezone.now() - datetime.timedelta(days=1), capacity=None
    )
    token = ApiToken.issue(organiser)
    for key, first, email in (("zq", FIRST, EMAIL), ("nina", "Nina", "nina@example.org")):
        services.registration_sign_up(
            event=event, first_name=first, last_name=LAST if first == FIRST else "Autre",
            email=email, licence=LICENCE if first == FIRST else "",
            team=TEAM if first == FIRST else "Écurie Rouge",
        )  # fmt: skip
        registration, link = services.registration_confirm(token=last_token(email))
        own = link.rstrip("/").rsplit("/", 1)[1]
        api("", "patch", f"/registrations/{own}", '{"public_name": "short"}', f"own-link-{key}")
        answer = api(
            token, "post", f"/events/{event.slug}/registrations/{registration.pk}/checkin", "{}",
            f"door-checkin-{key}",
        )  # fmt: skip
        assert answer.status_code == 200, answer.content
    zq = Registration.objects.get(email=EMAIL)
    Mail.objects.filter(registration=zq).update(
        state=Mail.State.FAILED, last_error=f"SMTPRecipientsRefused: {EMAIL}"
    )
    LogEntry.objects.create(
        user=organiser,
        content_type=ContentType.objects.get_for_model(Player),
        object_id=str(zebulon.pk),
        object_repr=str(zebulon),
        action_flag=CHANGE,
        change_message="[]",
    )
    with django_capture_on_commit_callbacks(execute=True):
        players_merge(actor=actor, keep=zebulon, other=zq.driver.player, reason=f"{LAST}, 2 fois")
    return actor, zq, old


def test_erasure_leaves_none_of_the_person_in_any_table(person):
    """Issue 40, item 10: the player's folded name, the registration and its history, the
    team row, the replayed answers, the mails' bodies; item 20: every driver of the person."""
    actor, registration, old = person
    before = results_and_ratings()
    assert sorted(found(every_row())) == sorted(WORDS)  # the proof can find them
    kept = Registration.objects.exclude(pk=registration.pk).get()
    erasure.person_erase(registration=registration, actor=actor, reason=f"{LAST} asked")
    assert found(every_row()) == []
    assert results_and_ratings() == before
    drivers = Driver.objects.filter(pk__in=[old.drivers[3].pk, registration.driver_id])
    assert sorted((d.number, d.name, d.public_name) for d in drivers) == [
        (3, "Pilote anonyme", "Pilote anonyme"),
        (6, "Pilote anonyme", "Pilote anonyme"),
    ]
    assert not Team.objects.filter(name=TEAM, championship=old.championship).exists()
    # Others are untouched: Nina, her team, last season's drivers.
    nina = Registration.objects.get(pk=kept.pk)
    assert (nina.first_name, nina.email, nina.team) == ("Nina", "nina@example.org", "Écurie Rouge")
    assert nina.driver.team.name == "Écurie Rouge" and nina.driver.name == "Nina Autre"
    assert old.drivers[1].player.name == Player.objects.get(pk=old.player(1).pk).name
    assert Mail.objects.filter(registration=nina, subject__gt="").exists()
    kept_paths = list(IdempotencyKey.objects.order_by("pk").values_list("path", flat=True))
    assert len(kept_paths) == 2 and f"/registrations/{nina.pk}/checkin" in kept_paths[1]
    last = Registration.history.filter(id=registration.pk).first()
    assert last.history_change_reason == "erased on request: … asked"
    assert last.history_user == actor.user


def test_an_erased_driver_reads_pilote_anonyme_with_its_racing_number(person):
    """Issue 40, item 18: the driver's racing number reads "Pilote anonyme · n° <number>",
    never the registration's id (nor the driver's). Ids depend on the database (on
    PostgreSQL the registration's id may well be 6, the number check-in gave): the driver is
    renumbered to a number no id here can be, so that showing an id would fail."""
    actor, registration, _old = person
    number = 1000 + max(registration.pk, registration.driver_id)
    Driver.objects.filter(pk=registration.driver_id).update(number=number)
    registration.refresh_from_db()
    assert number not in (registration.pk, registration.driver_id)
    erasure.person_erase(registration=registration, actor=actor, reason="asked")
    registration.refresh_from_db()
    assert erasure.erased_name(registration) == f"Pilote anonyme · n° {number}"
    assert (registration.first_name, registration.last_name) == ("Pilote anonyme", "")
    assert str(registration.pk) not in registration.driver.name


def test_erasure_is_race_control_s_with_a_reason(person, django_user_model):
    actor, registration, _old = person
    with pytest.raises(InvalidInput):
        erasure.person_erase(registration=registration, actor=actor, reason=" ")
    outsider = Actor(user=django_user_model.objects.create_user("x", password="long-pass-1"))
    with pytest.raises(NotAllowed):
        erasure.person_erase(registration=registration, actor=outsider, reason="asked")
    assert Registration.objects.get(pk=registration.pk).email == EMAIL

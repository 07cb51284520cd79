"""The way back landing on the hosted server, on files written here (the whole trip, with a
laptop of its own, is test_round_trip's): an entry deleted on the laptop is deleted here,
with the laptop's history of it; a driver created at the door comes back as the player the
laptop joined it to (by that player's id here), or as a new player proposed for matching."""

from __future__ import annotations

import base64
import datetime
import hashlib
import json

import pytest
from django.db import connection

from paddock.away import checkout as trip
from paddock.away.landing import land
from tournament.access import Actor
from tournament.away import bundle
from tournament.errors import Conflict, InvalidInput, ServiceError
from tournament.models import Championship, Driver, Entry, Event, Sanction
from tournament.players.identity import new_player
from tournament.players.matching import proposals

from .day import photo

pytestmark = pytest.mark.django_db

#: The laptop's own ids: its drivers are 100 + their number, its entries 10 + it.
LAPTOP_DRIVER, LAPTOP_ENTRY = 100, 10


def way_back(out: dict, event, **day) -> str:
    """A laptop's way back of ``event`` (its check-out's bundle ``out``): entries of every
    driver but those ``day`` changes, nothing else happened."""
    numbers = [d["number"] for d in out["drivers"]]
    data = {
        "format": bundle.BACK,
        "checkout": {"id": out["checkout"]["id"]},
        "event": {"slug": event.slug, "id": 1},
        "numbers": {str(LAPTOP_DRIVER + n): n for n in numbers},
        "entries": [
            {"id": LAPTOP_ENTRY + n, "driver": n, "checked_in": True}
            for n in numbers
            if n not in day.get("withdrawn", ())
        ],
        "drivers": [],
        "registrations": [],
        "objects": [],
        "files": {},
        **{k: v for k, v in day.items() if k != "withdrawn"},
    }
    return json.dumps(bundle.signed(data, out["checkout"]["key"]))


def deleted_on_the_laptop(number: int, history_id: int) -> dict:
    """The laptop's history row of its entry of driver ``number``, deleted at the door."""
    return {
        "model": "tournament.historicalentry",
        "pk": history_id,
        "fields": {
            "id": LAPTOP_ENTRY + number,
            "event": 1,
            "driver": LAPTOP_DRIVER + number,
            "checked_in": False,
            "absent": False,
            "fast": False,
            "paid": False,
            "registered_at": "2026-07-14T08:00:00+00:00",
            "history_date": "2026-07-14T09:30:00+00:00",
            "history_change_reason": None,
            "history_type": "-",
            "history_user": None,
            "history_actor": "rc",
        },
    }


def test_an_entry_withdrawn_at_the_door_is_withdrawn_here(make_event, organiser):
    event = make_event(3)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    withdrawn = Entry.objects.get(event=event, driver__number=3)
    before = Entry.history.count()

    land(way_back(out, event, withdrawn=[3], objects=[deleted_on_the_laptop(3, 7)]))

    entries = Entry.objects.filter(event=event).order_by("driver__number")
    assert [(e.driver.number, e.checked_in) for e in entries] == [(1, True), (2, True)]
    assert Driver.objects.filter(championship=event.championship, number=3).exists()
    # The laptop's record of it, under this server's id: who and when, no other row.
    assert Entry.history.count() == before + 1
    gone = Entry.history.get(history_type="-")
    assert (gone.id, gone.history_actor) == (withdrawn.pk, "rc")
    assert gone.history_date == datetime.datetime(2026, 7, 14, 9, 30, tzinfo=datetime.UTC)


def test_a_door_driver_comes_back_as_the_player_the_laptop_joined_or_proposed(
    make_event, organiser, django_user_model
):
    event = make_event(2)
    actor = Actor(user=organiser)
    # Zoé drives in another championship of this organiser; Paul too, under the same name
    # as a door driver; Ana in another club's.
    mine = Championship.objects.create(slug="cc", name="Coupe", season="2026")
    mine.organisers.add(organiser)
    theirs = Championship.objects.create(slug="ailleurs", name="Ailleurs", season="2026")
    theirs.organisers.add(django_user_model.objects.create_user("other"))
    known = {}
    for championship, number, first, last in (
        (mine, 1, "Zoé", "Retardataire"),
        (mine, 2, "Paul", "Martin"),
        (theirs, 1, "Ana", "López"),
    ):
        known[first] = new_player(first, last)
        Driver.objects.create(
            championship=championship, number=number, first_name=first, last_name=last,
            player=known[first],
        )  # fmt: skip
    out = trip.check_out(actor=actor, event=event)
    first, second, third = out["reserved_numbers"][:3]

    def door(number: int, first: str, last: str, hosted_id: int | None) -> dict:
        player = {"id": hosted_id, "first_name": first, "last_name": last, "licence": None}
        return {"number": number, "first_name": first, "last_name": last, "player": player}

    landed = land(
        way_back(
            out,
            event,
            drivers=[
                # Joined on the laptop to the player its bundle brought: that player here,
                # whatever name the door typed.
                door(first, "Zoe", "Retardatair", known["Zoé"].pk),
                # A player of the door: a new one, proposed for matching by its name.
                door(second, "Paul", "Martin", None),
                # Another club's player, named by id: not joined, proposed at most.
                door(third, "Ana", "López", known["Ana"].pk),
            ],
        ),
        actor=actor,
    )
    assert landed["landed"]["drivers"] == 3
    players = dict(
        Driver.objects.filter(championship=event.championship, number__gt=2).values_list(
            "number", "player"
        )
    )
    assert players[first] == known["Zoé"].pk
    assert players[second] != known["Paul"].pk and players[third] != known["Ana"].pk
    proposed = {
        frozenset((p.player.pk, p.other.pk))
        for p in proposals(actor, championship=event.championship)
    }
    assert frozenset((players[second], known["Paul"].pk)) in proposed


# --- Issue 40: a laptop's ids are never kept, and a refused return moves no sequence ----


def sequences() -> dict[str, int]:
    """Every sequence of the database and where it stands (PostgreSQL's sequences, or
    SQLite's ``sqlite_sequence``)."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(
                "SELECT sequencename, COALESCE(last_value, 0) FROM pg_sequences "
                "WHERE schemaname = current_schema()"
            )
        else:
            cursor.execute("SELECT name, seq FROM sqlite_sequence")
        return dict(cursor.fetchall())


def sanction(pk: int, *, driver: int = 1, kind: str = "points") -> dict:
    """The laptop's row of a points sanction of driver ``driver`` (its laptop id 100 + it)."""
    return {
        "model": "tournament.sanction",
        "pk": pk,
        "fields": {
            "event": 1,
            "driver": LAPTOP_DRIVER + driver,
            "kind": kind,
            "value": 2,
            "session": None,
            "reason": "Dés lancés hors piste",
            "user": None,
            "actor": "rc",
            "created_at": "2026-07-14T10:00:00+00:00",
            "withdrawn_at": None,
            "withdrawn_by": "",
            "withdraw_reason": "",
        },
    }


HUGE = 2_147_483_000


@pytest.mark.parametrize(
    ("day", "status"),
    [
        # One row the models refuse, beside a row of a huge id.
        ({"objects": [sanction(HUGE), sanction(HUGE - 1, kind="prison")]}, 400),
        # A row of another event.
        ({"objects": [sanction(HUGE) | {"fields": sanction(HUGE)["fields"] | {"event": 9}}]}, 400),
        # A file that is no photo, a driver of the door on a number taken here.
        ({"objects": [sanction(HUGE)], "files": {"x.html": "PGh0bWw+"}}, 400),
        ({"objects": [sanction(HUGE)], "drivers": [{"number": 2, "first_name": "Zoé"}]}, 409),
    ],
    ids=["row-refused", "other-event", "not-a-photo", "number-taken"],
)
def test_a_refused_return_leaves_every_sequence_where_it_was(make_event, organiser, day, status):
    """Issue 40: ``setval`` is not undone by a rollback; a return refused after moving the
    sanctions' sequence to its maximum broke every later sanction of the server. Everything
    is checked first, and the sequences move last of all (DOMAIN.md "The event away": the
    day lands whole or is refused whole). Read on PostgreSQL, where it matters (CI)."""
    event = make_event(2)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    before = sequences()
    with pytest.raises(ServiceError) as refused:
        land(way_back(out, event, **day))
    assert refused.value.status == status
    assert sequences() == before
    assert not Sanction.objects.exists()


def test_a_laptop_id_is_never_kept(make_event, organiser):
    """Issue 40: the laptop's ids are numbered anew here, above what each table holds: a
    file with an id of two thousand million takes one id, and the server carries on."""
    event = make_event(2)
    actor = Actor(user=organiser)
    out = trip.check_out(actor=actor, event=event)
    here = Sanction.objects.create(
        event=make_event(2, slug="gp-2"), driver=Driver.objects.get(number=1), kind="warning",
        reason="Avant le jour",
    )  # fmt: skip
    land(way_back(out, event, objects=[sanction(HUGE), sanction(7, driver=2)]))
    landed = list(Sanction.objects.filter(event=event).order_by("pk"))
    # In the laptop's order, right above this server's own.
    assert [(s.pk, s.driver.number) for s in landed] == [(here.pk + 1, 2), (here.pk + 2, 1)]
    after = Sanction.objects.create(
        event=here.event, driver=here.driver, kind="warning", reason="Après le jour"
    )
    assert after.pk == here.pk + 3


def photo_row(image: str) -> dict:
    """The laptop's row of an unmatched photo whose stored file is ``image``."""
    return {
        "model": "races.sheetphoto",
        "pk": 3,
        "fields": {
            "event": 1, "table": None, "qualifying_table": None, "replaced_by": None,
            "source": "unmatched", "image": image, "thumbnail": image, "width": 640,
            "height": 480, "size": 1000, "original_name": "", "sent_by": "rc",
            "unmatched_reason": "", "code_read": False, "replaced_at": None,
            "sent_at": "2026-07-14T10:00:00+00:00",
        },
    }  # fmt: skip


@pytest.mark.parametrize("suffix", [".html", ".jpg"])
def test_a_file_that_is_no_photo_is_refused(make_event, organiser, settings, tmp_path, suffix):
    """Issue 40: a return's files were written to the photos' folder whatever they were (an
    ``.html`` page landed in ``media/photos/``). Each must be a JPEG picture named as the
    photos' files are, and named by a photo row of the day (DOMAIN.md "The event away")."""
    settings.MEDIA_ROOT = tmp_path
    event = make_event(2)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    page = b"<html><script>alert(1)</script></html>"
    name = hashlib.sha256(page).hexdigest() + suffix
    files = {name: base64.b64encode(page).decode()}
    with pytest.raises(InvalidInput) as refused:
        land(way_back(out, event, objects=[photo_row(name)], files=files))
    assert "files" in refused.value.errors
    assert not list(tmp_path.rglob("*"))


def test_a_photo_of_the_day_lands_and_a_stray_file_does_not(
    make_event, organiser, settings, tmp_path, django_capture_on_commit_callbacks
):
    settings.MEDIA_ROOT = tmp_path
    event = make_event(2)
    out = trip.check_out(actor=Actor(user=organiser), event=event)
    jpeg = photo()
    name = hashlib.sha256(jpeg).hexdigest() + ".jpg"
    files = {name: base64.b64encode(jpeg).decode()}
    with pytest.raises(InvalidInput) as refused:
        land(way_back(out, event, files=files))  # no row names it
    assert "files" in refused.value.errors
    with django_capture_on_commit_callbacks(execute=True):
        land(way_back(out, event, objects=[photo_row(name)], files=files))
    assert (tmp_path / "photos" / name).read_bytes() == jpeg


def test_a_return_nested_past_reason_is_refused(make_event, organiser):
    """Issue 40: a body of 100,000 ``[`` answered 500 (the parser's recursion): a 400."""
    event = make_event(2)
    trip.check_out(actor=Actor(user=organiser), event=event)
    with pytest.raises(InvalidInput):
        land("[" * 100_000)
    with pytest.raises(InvalidInput):
        land(json.dumps({"format": bundle.BACK, "deep": json.loads("[" * 40 + "]" * 40)}))


def test_another_clubs_check_out_is_not_named(make_event, organiser, django_user_model, circuit):
    """Issue 40: the return of another club's check-out, sent to one's own event, answered
    with that other event's slug: it is refused saying less."""
    theirs = Championship.objects.create(slug="ailleurs", name="Ailleurs", season="2026")
    other = django_user_model.objects.create_user("other")
    theirs.organisers.add(other)
    secret = Event.objects.create(
        championship=theirs, slug="gp-secret-du-club", name="GP", circuit=circuit,
        date=datetime.date(2026, 7, 14),
    )  # fmt: skip
    out = trip.check_out(actor=Actor(user=other), event=secret)
    mine = make_event(2)
    with pytest.raises(Conflict) as refused:
        land(way_back(out, secret), event=mine, actor=Actor(user=organiser))
    assert "gp-secret-du-club" not in str(refused.value.message)
    assert "gp-secret-du-club" not in str(refused.value.errors)
    # Its own organisers are told which event it is.
    theirs.organisers.add(organiser)
    with pytest.raises(Conflict, match="gp-secret-du-club"):
        land(way_back(out, secret), event=mine, actor=Actor(user=organiser))

"""Every game's evening is its own (DOMAIN.md "Every game's evening", API.md): each game
declares its day; the checklist (the desk's and ``GET .../checklist``) lists that game's
steps only, in order, and a finished evening ends whole; a step the game lacks is a
``409 not_in_this_game``; ``GET .../tables/{t}/sheet.pdf`` prints the game's own sheet."""

from __future__ import annotations

import io

import pdfplumber
import pytest
from django.urls import reverse
from django.utils import translation

from races.games.finishing_order import selectors as finishing_order_sheets
from races.grid.services import allocation_run
from races.models import SheetBatch
from tests.api.conftest import Api, make_user
from tests.games.conftest import allocate, put, table_api
from tournament.access import Actor
from tournament.games import registry
from tournament.models import ApiToken, Club, Event, Membership

pytestmark = pytest.mark.django_db

HEAT = "Heat: Pedal to the Metal"
QUALIFYING = ["qualifying_tables", "sessions", "runs", "qualifying_published"]


def test_each_game_declares_its_day() -> None:
    day = {spec.key: spec.steps() for spec in registry.games()}
    basic = ["entries", "checkin", "tables", "sheets", "results", "published"]
    assert list(day["finishing_order"]) == basic
    assert list(day["cannes_monaco"]) == basic
    assert list(day["racetrack"]) == basic
    assert list(day["rallyman"]) == [
        "entries", "checkin", "tables", "stages", "snow", "results", "published",
    ]  # fmt: skip

    class Competition:
        qualifying_mode = "best"

    class QuickRules:
        qualifying_mode = "draw"

    main = registry.spec_of(registry.MAIN_GAME)
    assert list(main.steps(Competition())) == [
        "entries", "checkin", *QUALIFYING, "tables", "sheets", "race_weather", "results",
        "published",
    ]  # fmt: skip
    # The quick rules draw the grid; their race weather is an optional rule, not a step.
    assert list(main.steps(QuickRules())) == [
        "entries", "checkin", "draw", "tables", "sheets", "results", "published",
    ]  # fmt: skip
    assert main.has("race_weather") and main.has("stands") and main.has("configurations")
    for key in ("finishing_order", "cannes_monaco", "racetrack", "rallyman"):
        spec = registry.spec_of(key)
        assert not any(spec.has(s) for s in [*QUALIFYING, "race_weather", "stands"]), key


def _heat(make_event):
    event = make_event(3, slug="heat", game="finishing_order", game_name=HEAT, grid="rating")
    event.circuit = None  # the game's own track
    event.save(update_fields=["circuit"])
    return event


def _event(slug: str) -> Event:
    return Event.objects.get(slug=slug)


def _checklist(api: Api, slug: str) -> list[dict]:
    response = api.get(f"/events/{slug}/checklist")
    assert response.status_code == 200, response.content
    return response.json()


def test_a_finishing_order_evening_through_the_api_ends_with_its_checklist_whole(
    make_event, org_api, championship
):
    event = _heat(make_event)
    before = _checklist(org_api, "heat")
    assert [row["step"] for row in before] == [
        "entries", "checkin", "tables", "sheets", "results", "published",
    ]  # fmt: skip
    assert before[0] == {"step": "entries", "done": True, "count": 3}
    assert before[1] == {"step": "checkin", "done": False, "count": 0, "total": 3}
    assert org_api.post("/events/heat/checkin", {"numbers": [1, 2, 3]}).status_code == 200
    grid = [line["driver"]["number"] for line in allocate(org_api, "heat", 4)[0]["grid"]]
    assert org_api.post("/events/heat/publish", {"allocation": True}).status_code == 200
    body = {"version": 0, "finish": grid, "submit": True}
    assert put(table_api(event, 1), "/events/heat/tables/1/result", body).status_code == 200
    assert org_api.post("/events/heat/tables/1/confirm", {"version": 1}).status_code == 200
    assert org_api.post("/events/heat/publish", {"results": True}).status_code == 200
    after = _checklist(org_api, "heat")
    assert all(row["done"] for row in after), after
    assert after[4] == {"step": "results", "done": True, "count": 1, "total": 1}
    # The desk reads it too; another championship's organiser and a table link do not.
    club = Club.objects.create(slug="club-heat", name="Club Heat")
    championship.club = club
    championship.save(update_fields=["club"])
    member = make_user("dora")
    Membership.objects.create(club=club, user=member, role="desk")
    assert _checklist(Api(ApiToken.issue(member)), "heat") == after
    outsider = Api(ApiToken.issue(make_user("olga")))
    assert outsider.get("/events/heat/checklist").status_code == 403
    assert Api().get("/events/heat/checklist").status_code == 401


def test_the_desk_page_lists_the_game_s_steps_only(client, organiser, make_event):
    event = _heat(make_event)
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    html = client.get(reverse("event-desk", args=[event.slug])).content.decode()
    for key in ("entries", "checkin", "tables", "sheets", "results", "published"):
        assert f'id="step-{key}"' in html
    for key in ("qualifying_tables", "sessions", "runs", "race_weather", "draw"):
        assert f'id="step-{key}"' not in html


def test_a_formula_de_checklist_keeps_its_qualifying_and_weather(make_event, org_api):
    make_event(2, slug="fd")
    steps = [row["step"] for row in _checklist(org_api, "fd")]
    assert steps == [
        "entries", "checkin", *QUALIFYING, "tables", "sheets", "race_weather", "results",
        "published",
    ]  # fmt: skip
    SheetBatch.objects.create(event=_event("fd"), kind="race", status="done")
    rows = {row["step"]: row["done"] for row in _checklist(org_api, "fd")}
    assert rows["sheets"] is True


def _refused(response) -> None:
    assert response.status_code == 409, response.content
    assert response.json()["code"] == "not_in_this_game"
    assert "has no" in response.json()["detail"]


def test_what_a_game_does_not_have_is_a_409(make_event, org_api):
    _heat(make_event)
    make_event(3, slug="cm", game="cannes_monaco", qualifying_mode="draw", separate_teams=False)
    make_event(3, slug="rt", game="racetrack", qualifying_mode="draw", separate_teams=False)
    make_event(3, slug="rally", game="rallyman", qualifying_mode="best")
    for slug in ("heat", "cm", "rt", "rally"):
        _refused(org_api.post(f"/events/{slug}/sessions", {"number": 1, "weather_roll": 12}))
        _refused(org_api.post(f"/events/{slug}/qualifying-tables", {"number": 1, "drivers": [1]}))
        assert org_api.post(f"/events/{slug}/checkin", {"numbers": [1, 2, 3]}).status_code == 200
        allocate(org_api, slug, 4)
        _refused(org_api.post(f"/events/{slug}/race-weather", {"roll": 12}))
        _refused(put(org_api, f"/events/{slug}/tables/1/stands", {"stands": {"1": 1}}))
        values = {"tyres": 4, "brakes": 3, "gearbox": 4, "body": 3, "engine": 4,
                  "road_holding": 4, "stand_points": 0}  # fmt: skip
        body = {"configurations": {"1": values}}
        _refused(put(org_api, f"/events/{slug}/tables/1/configurations", body))
        _refused(org_api.post(f"/events/{slug}/tables/1/weather-draws", {"roll": 5}))
    # The French sentence says the same.
    french = Api(org_api.client.defaults["HTTP_AUTHORIZATION"].split()[1], language="fr")
    answer = french.post("/events/heat/race-weather", {"roll": 12})
    assert answer.status_code == 409 and "n’a pas" in answer.json()["detail"]


def _pdf_text(pdf: bytes) -> str:
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        return "\n".join(page.extract_text() or "" for page in document.pages)


def test_every_game_s_table_sheet_prints_through_the_api(make_event, org_api):
    _heat(make_event)
    make_event(3, slug="cm", game="cannes_monaco", qualifying_mode="draw", separate_teams=False)
    make_event(3, slug="rt", game="racetrack", qualifying_mode="draw", separate_teams=False)
    make_event(3, slug="rally", game="rallyman", qualifying_mode="draw")
    expected = {"heat": HEAT, "cm": "Cannes–Monaco", "rt": "Racetrack", "rally": "P.C."}
    for slug, words in expected.items():
        assert org_api.post(f"/events/{slug}/checkin", {"numbers": [1, 2, 3]}).status_code == 200
        allocate(org_api, slug, 4)
        response = org_api.get(f"/events/{slug}/tables/1/sheet.pdf")
        assert response.status_code == 200, (slug, response.content[:300])
        assert response["Content-Type"] == "application/pdf"
        assert words in _pdf_text(response.content), slug
        assert "Météo" not in _pdf_text(response.content), slug  # the events speak French
        # The table's referee (its link) prints it too.
        own = table_api(_event(slug), 1).get(f"/events/{slug}/tables/1/sheet.pdf")
        assert own.status_code == 200, (slug, own.content[:300])


def test_the_finishing_order_sheet_s_headings_do_not_overprint(make_event, organiser):
    """In French "Ordre de passage de la ligne" overprinted "Non partant": every word of the
    grid's header sits in its own column, none overlapping another."""
    event = _heat(make_event)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    with translation.override("fr"):
        pdf = finishing_order_sheets.sheets_pdf(event=event, language="fr")
    with pdfplumber.open(io.BytesIO(pdf)) as document:
        page = document.pages[0]
        words = page.extract_words()
    header = [w for w in words if w["text"] in {"Ordre", "passage", "ligne", "Non", "partant"}]
    assert {w["text"] for w in header} >= {"Ordre", "passage", "ligne", "Non", "partant"}
    for i, a in enumerate(words):
        for b in words[i + 1 :]:
            overlap_x = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            overlap_y = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
            assert not (overlap_x > 0.5 and overlap_y > 0.5), (a["text"], b["text"])


def test_no_formula_de_circuit_on_a_game_without_one(client, organiser, make_event):
    """ "None · 0 tour" stood for the circuit on the public event page, the championship's,
    the desk and the tables page: the game's name stands there instead."""
    event = _heat(make_event)
    allocation_run(actor=Actor(user=organiser), event=event, table_size=4)
    event.published_allocation = True
    event.save(update_fields=["published_allocation"])
    client.cookies["django_language"] = "en"
    public = [
        reverse("event", args=[event.slug]),
        reverse("championship", args=[event.championship.slug]),
    ]
    for url in public:
        html = client.get(url).content.decode()
        assert "None" not in html and "0 laps" not in html, url
        assert HEAT in html, url
    client.force_login(organiser)
    for url in (reverse("event-desk", args=[event.slug]), reverse("allocation", args=[event.slug])):
        html = client.get(url).content.decode()
        assert "· None" not in html and "0 laps" not in html, url
        assert "d20 draw" not in html and "Best run" not in html, url

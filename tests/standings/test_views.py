"""Results and standings pages: event results, driver and team standings, a driver's page,
the projector and the points chart; publication rules for the organiser, a logged-in
outsider and an anonymous visitor.

The data (points scale 10, 8, 6), two events of two tables:

    gp  (published)  T1: 1 P1 10, 2 P2 8, 4 P3 6     T2: 6 P1 10, 3 P2 8, 5 retired
                                                            (engine, lap 2)
    gp2 (not yet)    T1: 2 P1 10, 1 P2 8, 6 retired  T2: 4 P1 10, 3 P2 8, 5 did not start
                         (other, lap 1: disqualified)

Over both: 1 and 2 have 18 with one 1st and one 2nd each (shared rank 1); 4 and 3 have 16,
4 ahead on countback (a 1st place) → ranks 1, 1, 3, 4, then 6 (10) and 5 (0).
"""

from __future__ import annotations

import csv
import datetime
import io
import re

import pytest
from django.urls import reverse

from races.models import GridSlot, RaceTable, ResultLine
from tournament.models import Driver, Event, Team

FINISHED, RETIRED, DNS = "finished", "retired", "dns"

# event slug → tables → (driver number, status, points, cause, lap, note), in position order
RESULTS = {
    "gp": [
        [(1, FINISHED, 10), (2, FINISHED, 8), (4, FINISHED, 6)],
        [(6, FINISHED, 10), (3, FINISHED, 8), (5, RETIRED, 0, "engine", 2, "")],
    ],
    "gp2": [
        [(2, FINISHED, 10), (1, FINISHED, 8), (6, RETIRED, 0, "other", 1, "disqualified")],
        [(4, FINISHED, 10), (3, FINISHED, 8), (5, DNS, 0)],
    ],
}


def add_results(event: Event, tables: list[list[tuple]]) -> None:
    drivers = {d.number: d for d in Driver.objects.filter(championship=event.championship)}
    rank = 0
    for number, lines in enumerate(tables, start=1):
        table = RaceTable.objects.create(event=event, number=number, result_status="confirmed")
        for position, (driver, status, points, *rest) in enumerate(lines, start=1):
            rank += 1
            cause, lap, note = rest or ("", None, "")
            ResultLine.objects.create(
                event=event,
                table=table,
                driver=drivers[driver],
                position=position,
                rank=rank,
                status=status,
                points=points,
                cause=cause,
                lap=lap,
                note=note,
            )


@pytest.fixture
def season(make_event, championship):
    first = make_event(n_drivers=6, slug="gp", published_results=True)
    second = make_event(n_drivers=6, slug="gp2")
    Event.objects.filter(pk=second.pk).update(
        date=datetime.date(2026, 9, 1), name="Grand Prix d'Automne"
    )
    second.refresh_from_db()
    rouge = Team.objects.create(championship=championship, name="Scuderia Rouge", colour="#c62828")
    Driver.objects.filter(championship=championship, number__in=[2, 4]).update(team=rouge)
    for event in (first, second):
        add_results(event, RESULTS[event.slug])
    return first, second


@pytest.fixture
def outsider(django_user_model):
    return django_user_model.objects.create_user("curieux")


@pytest.fixture
def english(client):
    client.cookies["django_language"] = "en"
    return client


def login(client, request, who: str):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    return client


def row_numbers(html: str, table_id: str) -> list[int]:
    """Driver numbers in the order of a table's rows."""
    body = html.split(f'id="{table_id}"', 1)[1].split("</table>", 1)[0]
    return [int(n) for n in re.findall(r'<tr[^>]*data-number="(\d+)"', body)]


def csv_rows(response) -> list[list[str]]:
    assert response["Content-Type"].startswith("text/csv")
    return list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))


# --- Championship standings -------------------------------------------------------------------


@pytest.mark.django_db
def test_standings_as_organiser_count_every_confirmed_event(
    client, organiser, championship, season
):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("standings", args=[championship.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Grand Prix d&#x27;Été" in html and "Grand Prix d&#x27;Automne" in html
    # Shared 1st (same points, same countback), then 4 before 3 on countback (a 1st place).
    assert row_numbers(html, "standings") == [1, 2, 4, 3, 6, 5]


@pytest.mark.django_db
def test_standings_ranks_in_the_csv_export(client, organiser, championship, season):
    client.force_login(organiser)

    rows = csv_rows(client.get(reverse("standings", args=[championship.slug]), {"_export": "csv"}))

    ranks = [(row[0], row[1], row[4]) for row in rows[1:]]
    assert ranks == [
        ("1", "1", "18"),
        ("1", "2", "18"),
        ("3", "4", "16"),
        ("4", "3", "16"),
        ("5", "6", "10"),
        ("6", "5", "0"),
    ]
    header = rows[0]
    assert len(header) == 5 + 2 + 2  # rank, no., driver, team, points; 2 events; 2 places
    by_number = {row[1]: row for row in rows[1:]}
    assert by_number["1"][5:] == ["10", "8", "P1", "P2"]
    assert by_number["5"][5:] == ["0", "0", "ab.", "NP"]  # French by default


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_standings_for_visitors_count_published_events_only(
    client, request, championship, season, who
):
    login(client, request, who)

    response = client.get(reverse("standings", args=[championship.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Grand Prix d&#x27;Automne" not in html
    rows = csv_rows(client.get(reverse("standings", args=[championship.slug]), {"_export": "csv"}))
    assert [(row[0], row[1], row[4]) for row in rows[1:]] == [
        ("1", "1", "10"),
        ("1", "6", "10"),
        ("3", "2", "8"),
        ("3", "3", "8"),
        ("5", "4", "6"),
        ("6", "5", "0"),
    ]


@pytest.mark.django_db
def test_standings_are_empty_until_an_event_is_published(client, championship, season):
    Event.objects.update(published_results=False)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("standings", args=[championship.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "No results published yet." in html
    assert 'id="standings"' not in html
    assert "<svg" not in html


@pytest.mark.django_db
def test_standings_mark_results_not_counted_under_best_k(client, organiser, championship, season):
    championship.best_results = 1
    championship.save()
    client.force_login(organiser)

    html = client.get(reverse("standings", args=[championship.slug])).content.decode()
    rows = csv_rows(client.get(reverse("standings", args=[championship.slug]), {"_export": "csv"}))

    assert '<span class="pts not-counted">(8)</span>' in html
    by_number = {row[1]: row for row in rows[1:]}
    assert by_number["1"][4:7] == ["10", "10", "(8)"]
    assert by_number["3"][4] == "8"


@pytest.mark.django_db
def test_best_k_keeps_the_earlier_of_equal_results(client, organiser, championship, season):
    championship.best_results = 1
    championship.save()
    client.force_login(organiser)

    rows = csv_rows(client.get(reverse("standings", args=[championship.slug]), {"_export": "csv"}))

    by_number = {row[1]: row for row in rows[1:]}
    assert by_number["3"][4:7] == ["8", "8", "(8)"]


@pytest.mark.django_db
def test_standings_link_each_driver_to_their_page(client, championship, season):
    html = client.get(reverse("standings", args=[championship.slug])).content.decode()

    for number in range(1, 7):
        assert f'href="{reverse("driver", args=[championship.slug, number])}"' in html


@pytest.mark.django_db
def test_standings_sort_by_an_event_column(client, organiser, championship, season):
    client.force_login(organiser)
    first, second = season

    html = client.get(
        reverse("standings", args=[championship.slug]), {"sort": f"-e{second.pk}"}
    ).content.decode()

    assert row_numbers(html, "standings")[:2] == [2, 4]  # the winners of gp2's tables


@pytest.mark.django_db
def test_standings_unknown_championship_is_404(client):
    assert client.get(reverse("standings", args=["nope"])).status_code == 404


# --- The chart --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_chart_draws_one_line_per_driver_with_cumulative_points(
    client, organiser, championship, season
):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"

    html = client.get(reverse("standings", args=[championship.slug])).content.decode()

    svg = html.split('<svg id="progression"', 1)[1].split("</svg>", 1)[0]
    assert svg.count("<polyline") == 6
    assert '<title id="chart-title">Cumulative points after each event</title>' in svg
    desc = re.search(r'<desc id="chart-desc">(.*?)</desc>', svg).group(1)
    assert "Pilote1 Lefèvre: 10, 18" in desc
    assert "Pilote6 Lefèvre: 10, 10" in desc
    assert 'class="chart-legend"' in html
    assert "<script" not in html.split('<section class="chart"', 1)[1]


@pytest.mark.django_db
def test_chart_coordinates_are_not_localised_in_french(client, organiser, championship, season):
    client.force_login(organiser)

    response = client.get(reverse("standings", args=[championship.slug]))

    assert response["Content-Language"] == "fr"
    svg = response.content.decode().split('<svg id="progression"', 1)[1].split("</svg>", 1)[0]
    coordinates = re.findall(r'\s(?:cx|cy|x|y|x1|x2|y1|y2)="([^"]*)"', svg)
    assert coordinates
    assert all(re.fullmatch(r"-?\d+(\.\d+)?", value) for value in coordinates), coordinates


@pytest.mark.django_db
def test_chart_keeps_the_top_eight(client, organiser, championship, make_event):
    event = make_event(n_drivers=12, slug="grand", published_results=True)
    add_results(
        event,
        [
            [(n, FINISHED, max(0, 13 - n)) for n in range(1, 7)],
            [(n, FINISHED, 0) for n in range(7, 13)],
        ],
    )

    html = client.get(reverse("standings", args=[championship.slug])).content.decode()

    svg = html.split('<svg id="progression"', 1)[1].split("</svg>", 1)[0]
    assert svg.count("<polyline") == 8
    assert re.findall(r'class="series" data-number="(\d+)"', svg) == [str(n) for n in range(1, 9)]


@pytest.mark.django_db
def test_chart_applies_best_k_to_the_results_so_far(client, organiser, championship, season):
    championship.best_results = 1
    championship.save()
    client.force_login(organiser)

    html = client.get(reverse("standings", args=[championship.slug])).content.decode()

    desc = re.search(r'<desc id="chart-desc">(.*?)</desc>', html).group(1)
    assert "Pilote3 Lefèvre: 8, 8" in desc
    assert "Pilote2 Lefèvre: 8, 10" in desc


# --- Event results ----------------------------------------------------------------------------


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider", "organiser"])
def test_published_event_results_are_public(client, request, season, who):
    login(client, request, who)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("event-results", args=["gp"]))

    assert response.status_code == 200
    html = response.content.decode()
    assert row_numbers(html, "event-results") == [1, 2, 4, 6, 3, 5]
    assert "Engine, lap 2" in html
    assert "Retired" in html


@pytest.mark.django_db
@pytest.mark.parametrize("who", ["anonymous", "outsider"])
def test_unpublished_event_results_are_404_to_visitors(client, request, season, who):
    login(client, request, who)

    assert client.get(reverse("event-results", args=["gp2"])).status_code == 404
    assert client.get(reverse("event-results", args=["gp2"]), {"_export": "csv"}).status_code == 404


@pytest.mark.django_db
def test_organiser_sees_unpublished_event_results(client, organiser, season):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"

    html = client.get(reverse("event-results", args=["gp2"])).content.decode()

    assert "Not published: only organisers see these results." in html
    assert "Other, lap 1: disqualified" in html
    assert "Did not start" in html


@pytest.mark.django_db
def test_event_results_csv_export(client, organiser, season):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("event-results", args=["gp2"]), {"_export": "csv"})

    assert 'filename="gp2-results.csv"' in response["Content-Disposition"]
    rows = csv_rows(response)
    assert rows[0] == [
        "Rank",
        "Table",
        "Pos.",
        "No.",
        "Driver",
        "Team",
        "Status",
        "Retirement",
        "Sanction",
        "Points",
    ]
    assert rows[1] == [
        "1",
        "1",
        "1",
        "2",
        "Pilote2 Lefèvre",
        "Scuderia Rouge",
        "Finished",
        "",
        "",
        "10",
    ]
    assert rows[3] == [
        "3",
        "1",
        "3",
        "6",
        "Pilote6 Lefèvre",
        "",
        "Retired",
        "Other, lap 1: disqualified",
        "",
        "0",
    ]
    assert rows[6][6] == "Did not start"
    assert len(rows) == 7


@pytest.mark.django_db
def test_event_results_xlsx_export(client, season):
    response = client.get(reverse("event-results", args=["gp"]), {"_export": "xlsx"})

    assert response.status_code == 200
    assert response.content[:2] == b"PK"


@pytest.mark.django_db
def test_event_results_of_one_table(client, season):
    response = client.get(reverse("event-results", args=["gp"]), {"table": "2"})

    assert row_numbers(response.content.decode(), "event-results") == [6, 3, 5]
    rows = csv_rows(
        client.get(reverse("event-results", args=["gp"]), {"table": "2", "_export": "csv"})
    )
    assert [row[3] for row in rows[1:]] == ["6", "3", "5"]


@pytest.mark.django_db
def test_event_results_name_tables_not_confirmed_yet(client, season, english):
    first, _second = season
    RaceTable.objects.create(event=first, number=3, result_status="submitted")

    html = english.get(reverse("event-results", args=["gp"])).content.decode()

    assert "Not confirmed yet:" in html and "Table 3" in html


# --- Team standings ---------------------------------------------------------------------------


@pytest.mark.django_db
def test_team_standings_share_equal_points(client, organiser, championship, season):
    client.force_login(organiser)

    rows = csv_rows(
        client.get(reverse("team-standings", args=[championship.slug]), {"_export": "csv"})
    )

    # Étoile: 1 + 3 + 5 = 18 + 16 + 0; Rouge: 2 + 4 = 18 + 16; driver 6 has no team.
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("1", "Écurie Étoile", "34"),
        ("1", "Scuderia Rouge", "34"),
    ]


@pytest.mark.django_db
def test_team_standings_for_visitors(client, championship, season, english):
    response = english.get(reverse("team-standings", args=[championship.slug]))

    assert response.status_code == 200
    html = response.content.decode()
    assert "Scuderia Rouge" in html
    rows = csv_rows(
        english.get(reverse("team-standings", args=[championship.slug]), {"_export": "csv"})
    )
    # Published gp only: Étoile 10 + 8 + 0, Rouge 8 + 6.
    assert [(row[0], row[1], row[2]) for row in rows[1:]] == [
        ("1", "Écurie Étoile", "18"),
        ("2", "Scuderia Rouge", "14"),
    ]


# --- Projector --------------------------------------------------------------------------------


@pytest.mark.django_db
def test_projector_polls_without_navigation(client, championship, season, english):
    response = english.get(reverse("standings-projector", args=[championship.slug]))

    html = response.content.decode()
    assert response.status_code == 200
    assert 'hx-trigger="every 15s"' in html
    assert "htmx.min.js" in html
    assert 'http-equiv="refresh"' in html  # without JavaScript
    assert "Organiser login" not in html and "<nav" not in html
    assert row_numbers(html, "projector-board") == [1, 6, 2, 3, 4, 5]


@pytest.mark.django_db
def test_projector_fragment_turns_the_pages(client, championship, season):
    url = reverse("standings-projector", args=[championship.slug])

    first = client.get(url, {"rows": 5}, HTTP_HX_REQUEST="true").content.decode()
    second = client.get(url, {"rows": 5, "page": 2}, HTTP_HX_REQUEST="true").content.decode()

    assert "<html" not in first
    assert first.startswith('<div id="projector-board"')
    assert f'hx-get="{url}?page=2&amp;rows=5"' in first
    assert row_numbers(first, "projector-board") == [1, 6, 2, 3, 4]
    assert row_numbers(second, "projector-board") == [5]
    assert f'hx-get="{url}?page=1&amp;rows=5"' in second  # back to the top


@pytest.mark.django_db
def test_projector_shows_published_results_even_to_an_organiser(
    client, organiser, championship, season
):
    client.force_login(organiser)

    html = client.get(reverse("standings-projector", args=[championship.slug])).content.decode()

    assert row_numbers(html, "projector-board") == [1, 6, 2, 3, 4, 5]


# --- A driver's page --------------------------------------------------------------------------


@pytest.mark.django_db
def test_driver_page_as_organiser(client, organiser, championship, season):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"

    response = client.get(reverse("driver", args=[championship.slug, 4]))

    html = response.content.decode()
    assert response.status_code == 200
    assert "Pilote4 Lefèvre" in html and "Scuderia Rouge" in html
    summary = html.split('class="driver-summary"', 1)[1].split("</div>", 1)[0]
    assert re.findall(r'class="big">(\d+)', summary) == ["3", "16"]
    body = html.split('id="driver-results"', 1)[1]
    events = re.findall(r"Grand Prix d&#x27;(\w+)", body)
    assert events == ["Automne", "Été"]  # latest first


@pytest.mark.django_db
def test_driver_page_retirement_in_words(client, organiser, championship, season, english):
    english.force_login(organiser)

    html = english.get(reverse("driver", args=[championship.slug, 6])).content.decode()

    assert "Other, lap 1: disqualified" in html


@pytest.mark.django_db
def test_driver_page_for_visitors_shows_published_results_only(
    client, championship, season, english
):
    html = english.get(reverse("driver", args=[championship.slug, 4])).content.decode()

    assert "Automne" not in html
    summary = html.split('class="driver-summary"', 1)[1].split("</div>", 1)[0]
    assert re.findall(r'class="big">(\d+)', summary) == ["5", "6"]


@pytest.mark.django_db
@pytest.mark.django_db(transaction=True)  # the public cache's counters move at commit
def test_driver_page_shows_the_published_seat(client, championship, season, english):
    _first, second = season
    table = RaceTable.objects.get(event=second, number=2)
    driver = Driver.objects.get(championship=championship, number=4)
    GridSlot.objects.create(event=second, table=table, driver=driver, position=3, rank=11, stand=7)
    url = reverse("driver", args=[championship.slug, 4])

    hidden = english.get(url).content.decode()
    Event.objects.filter(pk=second.pk).update(published_allocation=True)
    shown = english.get(url).content.decode()

    assert "Grid position 3" not in hidden
    assert "Table 2" in shown and "Grid position 3" in shown and "stand 7" in shown


@pytest.mark.django_db
def test_driver_of_another_championship_is_404(client, championship, season):
    assert client.get(reverse("driver", args=[championship.slug, 99])).status_code == 404


@pytest.mark.django_db
def test_driver_without_results(client, championship, season, english):
    Driver.objects.create(
        championship=championship, number=42, first_name="Nouveau", last_name="Venu"
    )

    html = english.get(reverse("driver", args=[championship.slug, 42])).content.decode()

    assert "No published result yet." in html
    assert "driver-summary" not in html


# --- Publication from the desk, and links -----------------------------------------------------


@pytest.mark.django_db
def test_desk_publishes_the_results(client, organiser, season):
    client.force_login(organiser)
    _first, second = season

    desk = client.get(reverse("event-desk", args=[second.slug])).content.decode()
    client.post(reverse("desk-publish", args=[second.slug]), {"results": "1"})

    assert 'name="results"' in desk
    second.refresh_from_db()
    assert second.published_results
    client.logout()
    assert client.get(reverse("event-results", args=[second.slug])).status_code == 200


@pytest.mark.django_db
def test_desk_unpublishes_the_results(client, organiser, season):
    client.force_login(organiser)
    first, _second = season

    client.post(reverse("desk-publish", args=[first.slug]), {"qualifying": "1"})

    first.refresh_from_db()
    assert not first.published_results
    assert first.published_qualifying


@pytest.mark.django_db
def test_event_and_championship_pages_link_to_results(client, championship, season):
    # gp2 shows its qualifying, not its results (unpublished altogether, it would be a 404).
    Event.objects.filter(slug="gp2").update(published_qualifying=True)
    event_html = client.get(reverse("event", args=["gp"])).content.decode()
    hidden_html = client.get(reverse("event", args=["gp2"])).content.decode()
    championship_html = client.get(
        reverse("championship", args=[championship.slug])
    ).content.decode()

    assert reverse("event-results", args=["gp"]) in event_html
    assert reverse("event-results", args=["gp2"]) not in hidden_html
    assert reverse("standings", args=[championship.slug]) in hidden_html
    for name in ("standings", "team-standings", "standings-projector"):
        assert reverse(name, args=[championship.slug]) in championship_html


# --- Through the services, as on race day -----------------------------------------------------


@pytest.mark.django_db
@pytest.mark.django_db(transaction=True)  # the public cache's counters move at commit
def test_results_confirmed_by_race_control_reach_every_page(
    client, organiser, championship, make_event
):
    from qualifying.models import Run
    from qualifying.services import session_create
    from races.grid.services import allocation_run
    from races.results.services import result_confirm, result_save
    from races.weather.services import race_weather_draw
    from tournament.access import Actor
    from tournament.registration.services import event_publish

    actor = Actor(user=organiser)
    event = make_event(n_drivers=6)
    session = session_create(actor=actor, event=event, number=1, weather_roll=15)
    for index, number in enumerate([4, 2, 5, 1, 6, 3]):  # qualifying order, best first
        Run.objects.create(
            session=session,
            driver=Driver.objects.get(championship=championship, number=number),
            tyres="hard",
            throws=10 + index,
            stopwatch_cs=5000,
        )
    first, second = allocation_run(actor=actor, event=event, table_size=3)  # 4 2 5 | 1 6 3
    race_weather_draw(actor=actor, event=event, roll=15)  # §2-0-1: before any result
    result_save(actor=actor, table=first, version=0, finish=[2, 4], dns=[], submit=True,
                retired=[{"driver": 5, "cause": "body", "lap": 3, "note": ""}])  # fmt: skip
    result_save(actor=actor, table=second, version=0, finish=[6, 1, 3], retired=[], dns=[],
                submit=True)  # fmt: skip
    for table in (first, second):
        result_confirm(actor=actor, table=table)
    client.cookies["django_language"] = "en"

    hidden = client.get(reverse("event-results", args=[event.slug]))
    empty = client.get(reverse("standings", args=[championship.slug])).content.decode()
    event_publish(actor=actor, event=event, results=True)
    results = client.get(reverse("event-results", args=[event.slug])).content.decode()
    standings = client.get(reverse("standings", args=[championship.slug])).content.decode()

    assert hidden.status_code == 404
    assert "No results published yet." in empty
    assert row_numbers(results, "event-results") == [2, 4, 5, 6, 1, 3]
    assert "Body, lap 3" in results
    # 2 and 6 won their tables (10), 4 and 1 second (8), 3 third (6), 5 retired.
    assert row_numbers(standings, "standings") == [2, 6, 1, 4, 3, 5]
    assert re.findall(r'<tr[^>]*data-number="\d+"[^>]*>\s*<td[^>]*>(\d+)', standings) == [
        "1", "1", "3", "3", "5", "6"
    ]  # fmt: skip


# --- Exports of the driver's page and the championship's drivers ------------------------------


def test_driver_page_exports_its_results_as_csv(client, organiser, season):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    url = reverse("driver", args=["cf", 5])
    rows = csv_rows(client.get(url, {"_export": "csv"}))
    assert rows[0] == [
        "Event",
        "Date",
        "Table",
        "Position at the table",
        "Status",
        "Retirement",
        "Points",
        "Counted",
    ]
    # Latest first: did not start at gp2, retired (engine, lap 2) at gp.
    assert [(r[0], r[2], r[3], r[4], r[6]) for r in rows[1:]] == [
        ("Grand Prix d'Automne", "2", "3", "Did not start", "0"),
        (Event.objects.get(slug="gp").name, "2", "3", "Retired", "0"),
    ]
    assert "lap 2" in rows[2][5]


def test_driver_page_export_keeps_unpublished_events_from_visitors(client, season):
    response = client.get(reverse("driver", args=["cf", 5]), {"_export": "csv"})
    events = [row[0] for row in csv_rows(response)[1:]]
    assert events == [Event.objects.get(slug="gp").name]


def test_championship_drivers_export_as_xlsx_without_emails(client, championship, season):
    # A public page: the export must not hand out the drivers' addresses.
    Driver.objects.filter(championship=championship, number=1).update(email="elodie@example.org")
    response = client.get(reverse("championship", args=[championship.slug]), {"_export": "xlsx"})
    assert response["Content-Type"].startswith(
        "application/vnd.openxmlformats-officedocument.spreadsheetml"
    )
    assert response.content[:2] == b"PK"  # a zip: the xlsx container
    rows = csv_rows(
        client.get(reverse("championship", args=[championship.slug]), {"_export": "csv"})
    )
    assert [row[0] for row in rows[1:]] == ["1", "2", "3", "4", "5", "6"]
    assert not any("@" in cell for row in rows for cell in row)

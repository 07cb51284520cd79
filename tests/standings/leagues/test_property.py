"""A league's standings equal a brute-force recomputation from its rounds' published lines, for
random seasons (DOMAIN.md "A season across clubs"): the rows read from the database by the
selector, then a plain sum of the league's scale over each player's best K rounds, less every
point sanctioned, ranked by points then countback, shared ranks 1, 2, 2, 4."""

from __future__ import annotations

import datetime
import itertools

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from races.models import RaceTable, ResultLine
from standings.leagues.models import League, Round
from standings.leagues.selectors import league_table
from tournament.models import Championship, Club, Driver, Event, Player, Sanction

pytestmark = pytest.mark.django_db

PLAYERS = 6
STATUSES = ["finished", "finished", "finished", "retired", "dns"]

round_st = st.fixed_dictionaries(
    {
        "club": st.integers(0, 1),
        "published": st.booleans(),
        "status": st.sampled_from(["counted", "counted", "proposed"]),
        "tables": st.lists(
            st.lists(st.integers(0, PLAYERS - 1), min_size=1, max_size=4, unique=True),
            min_size=1,
            max_size=2,
        ),
        "statuses": st.lists(st.sampled_from(STATUSES), min_size=8, max_size=8),
        "sanction": st.one_of(st.none(), st.tuples(st.integers(0, PLAYERS - 1), st.integers(1, 9))),
    }
)
season_st = st.fixed_dictionaries(
    {
        "rounds": st.lists(round_st, min_size=1, max_size=4),
        "scale": st.lists(st.integers(0, 12), min_size=1, max_size=5),
        "mode": st.sampled_from(["per_table", "overall"]),
        "best": st.one_of(st.none(), st.integers(1, 3)),
    }
)


@pytest.fixture
def ground(db):
    clubs = [Club.objects.create(slug=f"c{n}", name=f"C{n}") for n in (0, 1)]
    championships = [
        Championship.objects.create(slug=f"ch{n}", name=f"Ch{n}", season="2026", club=club)
        for n, club in enumerate(clubs)
    ]
    players = [Player.objects.create(first_name=f"P{n}", last_name="X") for n in range(PLAYERS)]
    drivers = {
        (c, p): Driver.objects.create(
            championship=championships[c],
            number=p + 1,
            first_name="P",
            last_name="X",
            player=players[p],
        )  # fmt: skip
        for c in (0, 1)
        for p in range(PLAYERS)
    }
    return clubs, championships, players, drivers


def _brute(season, players) -> list[tuple[int, int, int]]:
    """(player id, rank, points) recomputed by hand."""
    scale, mode, best = season["scale"], season["mode"], season["best"]
    got: dict[int, list[tuple[int, int | None]]] = {}  # points, counted place per round
    taken: dict[int, int] = {}
    for spec in season["rounds"]:
        if not (spec["published"] and spec["status"] == "counted"):
            continue
        rank = 0
        statuses = iter(spec["statuses"])
        seen: set[int] = set()
        for table in spec["tables"]:
            for position, p in enumerate(table, start=1):
                rank += 1
                status = next(statuses)
                if p in seen:
                    continue
                seen.add(p)
                place = position if mode == "per_table" else rank
                pts = scale[place - 1] if status == "finished" and place <= len(scale) else 0
                got.setdefault(players[p].pk, []).append((pts, None if status == "dns" else place))
        if spec["sanction"] and spec["sanction"][0] in seen:
            pid = players[spec["sanction"][0]].pk
            taken[pid] = taken.get(pid, 0) + spec["sanction"][1]
    totals = {}
    for pid, results in got.items():
        points = sorted((r[0] for r in results), reverse=True)
        kept = points if best is None else points[:best]
        depth = 12
        countback = [0] * depth
        for _, place in results:
            if place is not None:
                countback[place - 1] += 1
        totals[pid] = (sum(kept) - taken.get(pid, 0), tuple(countback))
    ordered = sorted(totals.items(), key=lambda item: item[1], reverse=True)
    out = []
    for index, (pid, key) in enumerate(ordered):
        rank = out[-1][1] if index and ordered[index - 1][1] == key else index + 1
        out.append((pid, rank, key[0]))
    return out


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(season=season_st)
def test_the_standings_equal_a_brute_force_recomputation(ground, season):
    clubs, championships, players, drivers = ground
    league = League.objects.create(
        slug="prop", name="Prop", season="2026", club=clubs[0], points_scale=season["scale"],
        points_mode=season["mode"], best_results=season["best"],
    )  # fmt: skip
    try:
        for n, spec in enumerate(season["rounds"]):
            c = spec["club"]
            event = Event.objects.create(
                championship=championships[c], slug=f"e{n}", name=f"E{n}",
                date=datetime.date(2026, 1, 1) + datetime.timedelta(days=n),
                published_results=spec["published"],
            )  # fmt: skip
            Round.objects.create(league=league, event=event, status=spec["status"])
            rank = itertools.count(1)
            statuses = iter(spec["statuses"])
            seen: set[int] = set()
            for number, table in enumerate(spec["tables"], start=1):
                race_table = RaceTable.objects.create(event=event, number=number)
                for position, p in enumerate(table, start=1):
                    status, day_rank = next(statuses), next(rank)
                    if p in seen:  # one line per driver and event
                        continue
                    seen.add(p)
                    ResultLine.objects.create(
                        event=event, table=race_table, driver=drivers[(c, p)], position=position,
                        rank=day_rank, status=status, points=0,
                    )  # fmt: skip
            if spec["sanction"] and spec["sanction"][0] in seen:
                Sanction.objects.create(
                    event=event, driver=drivers[(c, spec["sanction"][0])], kind="points",
                    value=spec["sanction"][1], reason="r",
                )  # fmt: skip
        table = league_table(league=league)
        got = [(line["player"]["id"], line["rank"], line["points"]) for line in table.lines]
        assert sorted(got) == sorted(_brute(season, players))
    finally:
        Event.objects.filter(slug__startswith="e").delete()
        league.delete()

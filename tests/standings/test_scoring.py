"""The championship's scoring from the site: a preset or custom scale, the mode, best-K;
confirmed results take the new points at once, and the change is recorded.

Grid from a d20 draw (quick rules), seven drivers in number order, tables of 4:
table 1 = 1, 2, 3, 4 and table 2 = 5, 6, 7 (as in tests/races/results/test_services.py).
Table 1: 3 then 1 finish, 2 and 4 retire; table 2: 7 finishes, 5 retires, 6 does not start.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from qualifying.services import draw_record
from races.grid.services import allocation_run
from races.models import RaceTable, ResultLine
from races.results.services import result_confirm, result_save
from standings.forms import ScoringForm
from standings.services import championship_scoring_set
from tournament.access import Actor
from tournament.errors import NotAllowed
from tournament.models import Championship
from tournament.rules.scales import PRESETS

pytestmark = pytest.mark.django_db

SHEETS = {
    1: {
        "finish": [3, 1],
        "retired": [
            {"driver": 2, "cause": "off_track", "lap": 1},
            {"driver": 4, "cause": "engine", "lap": 3},
        ],
        "dns": [],
    },
    2: {"finish": [7], "retired": [{"driver": 5, "cause": "body", "lap": 2}], "dns": [6]},
}


@pytest.fixture
def confirmed(make_event, organiser):
    actor = Actor(user=organiser)
    event = make_event(n_drivers=7, qualifying_mode="draw", separate_teams=False)
    draw_record(actor=actor, event=event, rolls={n: [n] for n in range(1, 8)})
    allocation_run(actor=actor, event=event, table_size=4)
    for number, sheet in SHEETS.items():
        table = RaceTable.objects.get(event=event, number=number)
        result_save(actor=Actor(table=table), table=table, version=0, submit=True, **sheet)
        result_confirm(actor=actor, table=table)
    return event


def points(event) -> dict[int, int]:
    return dict(ResultLine.objects.filter(event=event).values_list("driver__number", "points"))


def test_a_new_scale_rewrites_the_stored_points_of_confirmed_results(confirmed, organiser):
    assert points(confirmed) == {3: 10, 1: 8, 2: 0, 4: 0, 7: 10, 5: 0, 6: 0}  # scale 10-8-6

    changed = championship_scoring_set(
        actor=Actor(user=organiser),
        championship=confirmed.championship,
        points_scale=list(PRESETS["f1"]),
        points_mode="per_table",
        best_results=None,
    )

    assert points(confirmed) == {3: 25, 1: 18, 2: 0, 4: 0, 7: 25, 5: 0, 6: 0}
    assert changed == 3  # the three finishers; retired and DNS still score nothing (§21-1-2)


def test_the_overall_mode_scores_by_day_rank(confirmed, organiser):
    championship_scoring_set(
        actor=Actor(user=organiser),
        championship=confirmed.championship,
        points_scale=[10, 8, 6, 5, 4, 3, 2],
        points_mode="overall",
        best_results=2,
    )
    # Day ranks: table 1 is 1..4 (3, 1, 4, 2), table 2 starts at 5 with its winner 7.
    assert points(confirmed) == {3: 10, 1: 8, 4: 0, 2: 0, 7: 4, 5: 0, 6: 0}
    championship = Championship.objects.get(pk=confirmed.championship.pk)
    assert (championship.points_mode, championship.best_results) == ("overall", 2)


def test_the_change_is_recorded_with_who_and_the_scale_before(confirmed, organiser):
    championship_scoring_set(
        actor=Actor(user=organiser),
        championship=confirmed.championship,
        points_scale=[5, 3, 1],
        points_mode="per_table",
        best_results=None,
    )
    latest, before = confirmed.championship.history.all()[:2]
    assert latest.history_user == organiser
    assert (before.points_scale, latest.points_scale) == ([10, 8, 6], [5, 3, 1])


def test_only_an_organiser_changes_the_scoring(confirmed, django_user_model):
    stranger = django_user_model.objects.create_user("curieux")
    with pytest.raises(NotAllowed):
        championship_scoring_set(
            actor=Actor(user=stranger),
            championship=confirmed.championship,
            points_scale=[1],
            points_mode="per_table",
            best_results=None,
        )
    assert points(confirmed)[3] == 10


@pytest.mark.parametrize(
    ("data", "scale"),
    [
        ({"preset": "f1"}, [25, 18, 15, 12, 10, 8, 6, 4, 2, 1]),
        ({"preset": "classic"}, [10, 8, 6, 4, 3, 2, 1]),
        ({"preset": "twelve"}, [12, 10, 8, 7, 6, 5, 4, 3, 2, 1]),
        ({"preset": "short"}, [8, 6, 4, 3, 2, 1]),
        ({"preset": "custom", "custom_scale": "20 - 15, 12;9 7"}, [20, 15, 12, 9, 7]),
    ],
)
def test_the_form_gives_each_preset_and_a_custom_scale(data, scale):
    form = ScoringForm({"points_mode": "per_table", "best_results": "", **data})
    assert form.is_valid(), form.errors
    assert form.cleaned_data["points_scale"] == scale


@pytest.mark.parametrize("custom", ["", "10 huit 6", "10 +3", "1.5 1"])
def test_a_custom_scale_that_is_not_whole_points_is_refused(custom):
    form = ScoringForm({"preset": "custom", "custom_scale": custom, "points_mode": "per_table"})
    assert not form.is_valid()
    assert form.errors["custom_scale"]


def test_the_form_starts_from_the_championship_scale(championship):
    assert ScoringForm.initial_for(championship)["preset"] == "custom"  # 10-8-6 is no preset
    championship.points_scale = list(PRESETS["short"])
    assert ScoringForm.initial_for(championship)["preset"] == "short"


def test_organiser_picks_a_preset_on_the_scoring_page(client, organiser, confirmed):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    url = reverse("championship-scoring", args=[confirmed.championship.slug])
    assert "25-18-15-12-10-8-6-4-2-1" in client.get(url).content.decode()

    response = client.post(
        url, {"preset": "short", "points_mode": "per_table", "best_results": ""}, follow=True
    )

    assert "3 confirmed result lines took the new points" in response.content.decode()
    assert points(confirmed)[3] == 8


def test_a_bad_custom_scale_is_shown_in_the_page_and_nothing_changes(client, organiser, confirmed):
    client.force_login(organiser)
    client.cookies["django_language"] = "en"
    response = client.post(
        reverse("championship-scoring", args=[confirmed.championship.slug]),
        {"preset": "custom", "custom_scale": "10 x", "points_mode": "per_table"},
    )
    assert response.status_code == 200
    assert "“x” is not a number of points" in response.content.decode()
    assert Championship.objects.get(pk=confirmed.championship.pk).points_scale == [10, 8, 6]


@pytest.mark.parametrize("who", ["anonymous", "stranger"])
def test_the_scoring_page_is_for_organisers_only(client, django_user_model, championship, who):
    if who == "stranger":
        client.force_login(django_user_model.objects.create_user("curieux"))
    url = reverse("championship-scoring", args=[championship.slug])
    assert client.get(url).status_code == 403
    assert client.post(url, {"preset": "f1", "points_mode": "per_table"}).status_code == 403
    assert Championship.objects.get(pk=championship.pk).points_scale == [10, 8, 6]

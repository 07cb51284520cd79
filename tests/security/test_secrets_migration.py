"""The migrations that put referee links at rest (issue 14) convert what a database already
holds: links written in clear become digests and sealed copies that still open the same
tables, replaced links still say so, and a stored batch of sheets is sealed."""

from __future__ import annotations

import datetime
from collections.abc import Iterator

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from qualifying.models import QualifyingTable
from races.models import RaceTable, SheetBatch
from tests.security.test_secrets_at_rest import tables_holding
from tournament.access import link_was_replaced, table_for_link

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("qualifying", "0003_history_tables_seats"), ("races", "0004_history_weather_draws")]
QUALIFYING_LINK = "qualifying-link-written-in-clear-0123"
RACE_LINK = "race-link-written-in-clear-456789abc"
OLD_LINK = "replaced-link-written-in-clear-defgh"
PDF = b"%PDF-1.4 a sheet printing https://paddock.example.org/r/" + RACE_LINK.encode()


@pytest.fixture
def executor() -> Iterator[MigrationExecutor]:
    """Migrations as they were before; the latest ones again afterwards, whatever happens."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        yield executor
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def test_links_written_in_clear_are_sealed_and_keep_working(executor: MigrationExecutor) -> None:
    old = executor.loader.project_state(BEFORE).apps
    championship = old.get_model("tournament", "Championship").objects.create(
        slug="cf", name="Coupe", season="2026"
    )
    circuit = old.get_model("tournament", "Circuit").objects.create(
        slug="monza",
        name="Monza",
        rain_from=1,
        rain_to=4,
        variable_from=5,
        variable_to=8,
        sun_from=9,
        sun_to=20,
    )
    event = old.get_model("tournament", "Event").objects.create(
        championship=championship,
        slug="gp",
        name="GP",
        date=datetime.date(2026, 7, 14),
        circuit=circuit,
    )
    qtable = old.get_model("qualifying", "QualifyingTable").objects.create(
        event=event, number=1, token=QUALIFYING_LINK
    )
    old.get_model("qualifying", "HistoricalQualifyingTable").objects.create(
        id=qtable.pk,
        event_id=event.pk,
        number=1,
        token=QUALIFYING_LINK,
        history_date=timezone.now(),
        history_type="+",
    )
    rtable = old.get_model("races", "RaceTable").objects.create(
        event=event, number=1, token=RACE_LINK
    )
    old.get_model("races", "HistoricalRaceTable").objects.create(
        id=rtable.pk,
        event_id=event.pk,
        number=1,
        token=OLD_LINK,
        history_date=timezone.now(),
        history_type="+",
    )
    old.get_model("races", "ReplacedLink").objects.create(
        token=OLD_LINK, kind="race", table_id=rtable.pk
    )
    old.get_model("races", "SheetBatch").objects.create(
        event=event, kind="race", status="done", pdf=PDF
    )

    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())

    for secret in (QUALIFYING_LINK, RACE_LINK, OLD_LINK):
        assert tables_holding(secret) == [], secret
    assert table_for_link(QUALIFYING_LINK) == QualifyingTable.objects.get(pk=qtable.pk)
    assert table_for_link(RACE_LINK) == RaceTable.objects.get(pk=rtable.pk)
    assert QualifyingTable.objects.get(pk=qtable.pk).token == QUALIFYING_LINK
    assert RaceTable.objects.get(pk=rtable.pk).token == RACE_LINK
    assert link_was_replaced(OLD_LINK) and table_for_link(OLD_LINK) is None
    assert SheetBatch.objects.get(event_id=event.pk).pdf == PDF

    # And back: the links in clear again, for a server that must return to the old code.
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = MigrationExecutor(connection).loader.project_state(BEFORE).apps
    assert old.get_model("qualifying", "QualifyingTable").objects.get().token == QUALIFYING_LINK
    assert old.get_model("races", "RaceTable").objects.get().token == RACE_LINK
    assert bytes(old.get_model("races", "SheetBatch").objects.get().pdf) == PDF

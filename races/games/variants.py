"""Each game tells the race floor what it changes (``races.variants``), once, at start-up
(``races.games.apps``). A fifth game adds its line here."""

from __future__ import annotations

from races.games.rallyman import services as rallyman
from races.games.table_sheet import api as sheet_api
from races.games.table_sheet import services as sheet
from races.variants import Variant, register

_TABLE_SHEET = {
    "table_lines": sheet.game_table_lines,
    "sheet_complete": sheet.game_sheet_complete,
    "result_fields": sheet.game_fields,
    "api_result_save": sheet_api.table_result_save,
}


def register_all() -> None:
    register(
        "rallyman",
        Variant(
            start_lines=rallyman.rally_start_lines,
            allocation=rallyman.rally_allocation,
            event_rescore=rallyman.rally_rescore,
        ),
    )
    register("cannes_monaco", Variant(allocation=sheet.cannes_monaco_allocation, **_TABLE_SHEET))
    register("racetrack", Variant(**_TABLE_SHEET))

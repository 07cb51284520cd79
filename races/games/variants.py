"""Each game registers itself, once, at start-up (``races.games.apps``): what the core knows
of it in the games' registry (``tournament.games.registry``), and what it changes in the race
floor (``races.variants``). A new game adds its lines here."""

from __future__ import annotations

from races.games.cannes_monaco import api as cannes_monaco_api
from races.games.cannes_monaco import game as cannes_monaco_game
from races.games.finishing_order import api as finishing_order_api
from races.games.finishing_order import game as finishing_order_game
from races.games.finishing_order import selectors as finishing_order_sheets
from races.games.finishing_order import services as finishing_order
from races.games.racetrack import api as racetrack_api
from races.games.racetrack import game as racetrack_game
from races.games.rallyman import api as rallyman_api
from races.games.rallyman import game as rallyman_game
from races.games.rallyman import services as rallyman
from races.games.rallyman import views as rally_views
from races.games.table_sheet import api as sheet_api
from races.games.table_sheet import services as sheet
from races.variants import Variant, missing_rules, register, register_router, register_shape
from tournament.games import registry

_TABLE_SHEET = {
    "table_lines": sheet.game_table_lines,
    "sheet_complete": sheet.game_sheet_complete,
    "result_fields": sheet.game_fields,
    "api_result_save": sheet_api.table_result_save,
    "result_page": "game-table-entry",
    "sheets": sheet.sheets_pdf,
}


def register_all() -> None:
    # The operation ids of the v1 contract were named after the module that first held them.
    register_router(rallyman_api.router, "races_games_api")
    # A game of a crossing order without rules of its own takes the finishing-order game's
    # (never Formula Dé's): its result body, its places and points, its page and its sheet.
    register_shape(
        "finish",
        Variant(
            table_lines=finishing_order.game_table_lines,
            sheet_complete=finishing_order.sheet_complete,
            api_result_save=finishing_order_api.table_result_save,
            result_page="finishing-order-entry",
            table_page="finishing-order-entry",
            sheets=finishing_order_sheets.sheets_pdf,
        ),
    )
    register(
        "rallyman",
        Variant(
            start_lines=rallyman.rally_start_lines,
            allocation=rallyman.rally_allocation,
            event_rescore=rallyman.rally_rescore,
            table_context=rally_views.table_snow,
            sheets=rallyman.rally_sheets_pdf,
        ),
    )
    register(
        "cannes_monaco",
        Variant(
            allocation=sheet.cannes_monaco_allocation,
            result_in=cannes_monaco_api.RESULT_IN,
            result_out=cannes_monaco_api.CannesMonacoResultOut,
            **_TABLE_SHEET,
        ),
    )
    register(
        "racetrack",
        Variant(
            result_in=racetrack_api.RESULT_IN,
            result_out=racetrack_api.RacetrackResultOut,
            **_TABLE_SHEET,
        ),
    )
    register(
        "finishing_order",
        Variant(
            allocation=finishing_order.allocation,
            table_lines=finishing_order.game_table_lines,
            sheet_complete=finishing_order.sheet_complete,
            api_result_save=finishing_order_api.table_result_save,
            result_page="finishing-order-entry",
            table_page="finishing-order-entry",
            sheets=finishing_order_sheets.sheets_pdf,
        ),
    )
    # Each game's rules first: the registry refuses a game without any.
    registry.add_check(missing_rules)
    for spec in (
        rallyman_game.SPEC,
        cannes_monaco_game.SPEC,
        racetrack_game.SPEC,
        finishing_order_game.SPEC,
    ):
        registry.register(spec)

"""``python manage.py ratings [--game GAME]``: compute the ratings again from the start,
here and now.

For a database whose results were confirmed before the ratings existed, or restored from a
backup: the ratings otherwise follow each confirmation, reopening and publication by
themselves, from the first table that changed (``standings.ratings.soon``).
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from standings.ratings.services import ratings_recompute
from tournament.games.selectors import families


class Command(BaseCommand):
    help = gettext_lazy("Compute every player's rating again from the published results.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--game", choices=families(), action="append", help=_("Only this game (repeatable).")
        )

    def handle(self, *args: Any, **options: Any) -> None:
        for game in [game for game in families() if not options["game"] or game in options["game"]]:
            players = ratings_recompute(game=game, full=True)
            self.stdout.write(
                _("%(game)s: %(count)s players rated.") % {"game": game, "count": players}
            )

"""Who a new driver is: the player holding the licence number given, else a new player.

Every way a driver is created (the registration service and the Setup API, the CSV import,
a championship's import from a file, the next season, the demo) asks here. A name or an
e-mail address alone never joins two players: matches by name or e-mail are only proposed
(``tournament.players.matching``) for race control to confirm.
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournament.errors import Conflict, InvalidInput
from tournament.models import Championship, Driver, Player
from tournament.players.names import LICENCE_MAX, licence_key, name_key


def checked_licence(text: str | None) -> str | None:
    """The licence number as stored (stripped, upper case; None when empty), or
    InvalidInput when it cannot be one."""
    licence = licence_key(text)
    if licence is not None and (len(licence) > LICENCE_MAX or "\x00" in licence):
        message = _("A licence number has at most %(max)s characters.") % {"max": LICENCE_MAX}
        raise InvalidInput(message, {"licence": [message]})
    return licence


def active(player: Player) -> Player:
    """The player that now stands for ``player``: the one it was merged into, if any."""
    seen = {player.pk}
    while player.merged_into_id is not None and player.merged_into_id not in seen:
        seen.add(player.merged_into_id)
        player = Player.objects.get(pk=player.merged_into_id)
    return player


def new_player(
    first_name: str, last_name: str, email: str = "", licence: str | None = None
) -> Player:
    """A player of its own, its name folded for the matching proposals."""
    return Player.objects.create(
        first_name=first_name,
        last_name=last_name,
        email=email,
        licence=licence,
        name_key=name_key(first_name, last_name),
    )


def player_for(
    *,
    championship: Championship,
    first_name: str,
    last_name: str,
    email: str = "",
    licence: str | None = None,
    driver: Driver | None = None,
) -> Player:
    """The player of a driver of ``championship`` (``driver``: the one being updated, if any).

    A known licence number gives its player (one merged into another gives that other); an
    unknown one a new player holding it; none, a new player (or the driver's own, kept).
    Refused (409) when that player already drives another number in the championship: one
    person drives once per championship.
    """
    licence = checked_licence(licence)
    if licence is None:
        if driver is not None and driver.player_id is not None:
            return driver.player  # type: ignore[return-value]
        return new_player(first_name, last_name, email)
    holder = Player.objects.filter(licence=licence).first()
    if holder is None:
        if driver is not None and driver.player_id is not None and not driver.player.licence:
            # The driver's own player gets the licence it was missing.
            driver.player.licence = licence  # type: ignore[union-attr]
            driver.player.save(update_fields=["licence"])  # type: ignore[union-attr]
            return driver.player  # type: ignore[return-value]
        return new_player(first_name, last_name, email, licence)
    player = active(holder)
    taken = Driver.objects.filter(championship=championship, player=player)
    if driver is not None and driver.pk is not None:
        taken = taken.exclude(pk=driver.pk)
    other = taken.first()
    if other is not None:
        message = _(
            "The licence number %(licence)s is already driver %(number)s's (%(name)s) in this "
            "championship: one person drives once per championship."
        ) % {"licence": licence, "number": other.number, "name": other.name}
        raise Conflict(message, {"licence": [message]})
    return player

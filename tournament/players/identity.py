"""Who a new driver is: the player holding the licence number given, else a new player.

Every way a driver is created (the registration service and the Setup API, the CSV import,
a championship's import from a file, the next season, the demo) asks here. A name or an
e-mail address alone never joins two players: matches by name or e-mail are only proposed
(``tournament.players.matching``) for race control to confirm.

A licence number joins its holder only when the organiser typing it may see that holder:
an organiser of a championship the holder already plays in, or an administrator. Anyone
else's licence only proposes the match (``Player.claimed_licence``), for the holder's
organisers to confirm: a licence typed by any organiser attached another club's player,
named that player in the answer (a licence → name oracle), and fed that player's public
career and ratings (issue 32).
"""

from __future__ import annotations

from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.clubs import rights
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
    first_name: str,
    last_name: str,
    email: str = "",
    licence: str | None = None,
    *,
    claimed_licence: str = "",
) -> Player:
    """A player of its own, its name folded for the matching proposals."""
    return Player.objects.create(
        first_name=first_name,
        last_name=last_name,
        email=email,
        licence=licence,
        claimed_licence=claimed_licence,
        name_key=name_key(first_name, last_name),
    )


def may_claim(actor: Actor | None, holder: Player) -> bool:
    """True when ``actor`` may join a driver to ``holder`` by its licence: an administrator,
    or an organiser of a championship ``holder`` already plays in; None for the code's own
    writes (a championship's import from a file, the next season, the demo)."""
    if actor is None or actor.is_superuser():
        return True
    if not actor.is_authenticated or actor.table is not None:
        return False
    organised = Championship.objects.filter(rights.organised_filter(actor.user))
    return Driver.objects.filter(player=holder, championship__in=organised).exists()


def _claim(
    *, licence: str, first_name: str, last_name: str, email: str, driver: Driver | None
) -> Player:
    """A player apart that only claims ``licence`` (a proposed match, never a join)."""
    if driver is not None and driver.player_id is not None and driver.player.licence is None:
        own: Player = driver.player  # type: ignore[assignment]
        if own.claimed_licence != licence:
            own.claimed_licence = licence
            own.save(update_fields=["claimed_licence"])
        return own
    return new_player(first_name, last_name, email, claimed_licence=licence)


def player_for(
    *,
    championship: Championship,
    first_name: str,
    last_name: str,
    email: str = "",
    licence: str | None = None,
    driver: Driver | None = None,
    actor: Actor | None = None,
) -> Player:
    """The player of a driver of ``championship`` (``driver``: the one being updated, if any),
    for ``actor`` (None: the code's own writes).

    A known licence number gives its player (one merged into another gives that other) when
    ``actor`` may claim it (``may_claim``), else a player apart that only proposes the match;
    an unknown one a new player holding it; none, a new player (or the driver's own, kept).
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
    if not may_claim(actor, player):
        return _claim(
            licence=licence, first_name=first_name, last_name=last_name, email=email, driver=driver
        )
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

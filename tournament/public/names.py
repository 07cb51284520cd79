"""The names the public reads (DOMAIN.md "Corrections to 'Before the day'": the public name
is the registrant's choice everywhere). A driver's is ``Driver.public_name``; here are the
same name for what is read without a model (rows of ``.values()``), a last name shown apart
from the first (API answers), and a player's, who may be several drivers.

Race control's pages and the tables' sheets keep the full name (``Driver.name``).
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef

from tournament.models import Driver, Player
from tournament.signup.rules import public_name

#: ``Driver.public_name_choice`` of a driver shown by first name and initial.
SHORT = "short"
FULL = "full"


def row_name(first_name: str, last_name: str, choice: str) -> str:
    """The public name of a driver read as a row (``first_name``, ``last_name`` and
    ``public_name_choice`` among its values)."""
    return public_name(first_name, last_name, choice)


def shown_last_name(last_name: str, choice: str) -> str:
    """The last name as the public reads it beside the first name: its initial ("L.") for
    a driver who chose the short name, so that first and last together read as
    ``public_name``."""
    last = last_name.strip()
    if choice == SHORT and last:
        return f"{last[0].upper()}."
    return last_name


def chose_short(player: str = "pk") -> Exists:
    """An annotation: True when a driver of the player (``player``, the outer query's
    player id) chose the short name. A person is several drivers (championships,
    seasons); on what reads the person (career, ranking) the most private choice holds."""
    return Exists(Driver.objects.filter(player=OuterRef(player), public_name_choice=SHORT))


def player_name(player: Player, *, short: bool) -> str:
    """The player's public name, ``short`` as ``chose_short`` said."""
    return public_name(player.first_name, player.last_name, SHORT if short else FULL)


def player_public_name(player: Player) -> str:
    """The player's public name, read with one query of their drivers' choices."""
    short = Driver.objects.filter(player=player, public_name_choice=SHORT).exists()
    return player_name(player, short=short)


def driver_player_name(driver: Driver) -> str:
    """The name of the driver's player in that championship's answers (its ``player:
    {id, name}``): the player's names as this driver chose to show them (select the
    driver's player with it)."""
    player = driver.player
    return public_name(player.first_name, player.last_name, driver.public_name_choice)


def shown_names(driver: Driver, *, full: bool) -> dict[str, str]:
    """``first_name`` and ``last_name`` of an answer that gives them apart: in full for race
    control (``full``), else the last name as the driver chose to show it ("L.")."""
    last = driver.last_name
    return {
        "first_name": driver.first_name,
        "last_name": last if full else shown_last_name(last, driver.public_name_choice),
    }

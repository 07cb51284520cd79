"""How the ground finds a race table by its referee link, and knows a replaced link
(``tournament.access``, by the link's digest). Replaced links of both kinds of tables are
kept here, as digests."""

from __future__ import annotations

from typing import Any

from races.models import RaceTable, ReplacedLink
from tournament.access import register_links
from tournament.models import Driver, Event
from tournament.signup.selectors import register_table_lookup


def table_for_link(digest: str) -> RaceTable | None:
    """The table whose link has this digest (``tournament.sealing.link_digest``)."""
    return (
        RaceTable.objects.select_related("event__championship", "event__circuit")
        .filter(token_digest=digest)
        .first()
    )


def replaced(digest: str) -> bool:
    return ReplacedLink.objects.filter(digest=digest).exists()


def refereed(user: Any, event: Event) -> bool:
    return RaceTable.objects.filter(event=event, referee=user).exists()


def table_number(event: Event, driver: Driver) -> int | None:
    """The race table of ``driver`` at ``event`` (a registrant's "your table")."""
    return (
        RaceTable.objects.filter(event=event, slots__driver=driver)
        .values_list("number", flat=True)
        .first()
    )


def register() -> None:
    register_links(find=table_for_link, replaced=replaced, refereed=refereed)
    register_table_lookup(table_number)

"""Proposed matches: two players who may be one person, for race control to confirm.

Two players standing alone (not merged into another) are proposed when their folded names
are equal (``names.name_key``: accents, case and word order left out) or their e-mail
addresses are (case left out), or when one claims the licence number the other holds
(``identity.player_for``: typed by an organiser who may not see its holder; the holder's
organisers decide). Never proposed: a pair race control said are two people
(``NotSamePlayer``), two players holding different licence numbers, two players driving
in one championship (one person drives once per championship). Nothing here writes: a
merge is ``changes.players_merge``, done by a person.

At the door, the drivers of a championship who may be a registrant (``drivers_like``: the
licence typed, the address, the folded name) are shown side by side with the registration;
the check-in joins one only when race control confirms (tournament/signup/checkin.py).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from django.db.models import Count
from django.db.models.functions import Lower
from django.utils.translation import gettext as _

from tournament.access import Actor
from tournament.models import Championship, Driver, NotSamePlayer, Player
from tournament.players.changes import organised_championships
from tournament.players.names import licence_key, name_key
from tournament.signup.rules import address_key

#: The most proposals one page lists (the oldest players first); the rest come next time.
LIMIT = 100


@dataclass
class Seat:
    """One driver of a player, as evidence: where, when, which number, which e-mail."""

    championship: str
    season: str
    slug: str
    number: int
    name: str
    email: str  # "" when none, or not the reader's to see


@dataclass
class Proposal:
    """Two players who may be one person, and why they are proposed."""

    player: Player
    other: Player
    reasons: list[str] = field(default_factory=list)
    seats: dict[int, list[Seat]] = field(default_factory=dict)

    @property
    def player_seats(self) -> list[Seat]:
        return self.seats.get(self.player.pk, [])

    @property
    def other_seats(self) -> list[Seat]:
        return self.seats.get(self.other.pk, [])


def _pairs(groups: dict[str, list[int]]) -> set[tuple[int, int]]:
    pairs = set()
    for ids in groups.values():
        ids = sorted(ids)
        pairs |= {(a, b) for i, a in enumerate(ids) for b in ids[i + 1 :]}
    return pairs


def _groups_by_name() -> dict[str, list[int]]:
    alone = Player.objects.filter(merged_into__isnull=True).exclude(name_key="")
    keys = alone.values("name_key").annotate(n=Count("pk")).filter(n__gt=1).values("name_key")
    groups: dict[str, list[int]] = defaultdict(list)
    for pk, key in alone.filter(name_key__in=keys).values_list("pk", "name_key"):
        groups[key].append(pk)
    return groups


def _groups_by_email() -> dict[str, list[int]]:
    alone = (
        Player.objects.filter(merged_into__isnull=True)
        .exclude(email="")
        .annotate(address=Lower("email"))
    )
    addresses = alone.values("address").annotate(n=Count("pk")).filter(n__gt=1).values("address")
    groups: dict[str, list[int]] = defaultdict(list)
    for pk, address in alone.filter(address__in=addresses).values_list("pk", "address"):
        groups[address].append(pk)
    return groups


def _licence_claims() -> dict[tuple[int, int], int]:
    """Each pair of a player claiming a licence number (``Player.claimed_licence``) and the
    player holding it, both standing alone → the holder's id."""
    claims = list(
        Player.objects.filter(merged_into__isnull=True)
        .exclude(claimed_licence="")
        .values_list("pk", "claimed_licence")
    )
    holders = dict(
        Player.objects.filter(
            merged_into__isnull=True, licence__in=[licence for _pk, licence in claims]
        ).values_list("licence", "pk")
    )
    pairs = {}
    for pk, licence in claims:
        holder = holders.get(licence)
        if holder is not None and holder != pk:
            pairs[(min(pk, holder), max(pk, holder))] = holder
    return pairs


def proposals(
    actor: Actor, limit: int = LIMIT, *, championship: Championship | None = None
) -> list[Proposal]:
    """The matches ``actor`` may decide (``changes.may_decide``), oldest players first; with
    ``championship``, only those where one of the two drives in it (what an import of its
    drivers brought)."""
    reasons: dict[tuple[int, int], list[str]] = defaultdict(list)
    for pair in sorted(_pairs(_groups_by_name())):
        reasons[pair].append(_("same name"))
    for pair in sorted(_pairs(_groups_by_email())):
        reasons[pair].append(_("same e-mail address"))
    claims = _licence_claims()
    for pair in sorted(claims):
        reasons[pair].append(_("same licence number"))
    if not reasons:
        return []
    ids = {pk for pair in reasons for pk in pair}
    refused = set(
        NotSamePlayer.objects.filter(player__in=ids, other__in=ids).values_list(
            "player_id", "other_id"
        )
    )
    players = Player.objects.in_bulk(ids)
    drivers = list(
        Driver.objects.filter(player__in=ids)
        .select_related("championship")
        .order_by("championship__season", "championship__name", "number")
    )
    championships: dict[int, set[int]] = defaultdict(set)
    for driver in drivers:
        championships[driver.player_id].add(driver.championship_id)  # type: ignore[index]
    mine = organised_championships(actor)
    found = []
    for (a, b), why in sorted(reasons.items()):
        one, two = players[a], players[b]
        if (a, b) in refused or championships[a] & championships[b]:
            continue
        if one.licence and two.licence and one.licence != two.licence:
            continue
        if mine is not None and not (mine & championships[a] and mine & championships[b]):
            # A licence claimed: the holder's organisers decide (changes._require_merge).
            holder = claims.get((a, b))
            if holder is None or not mine & championships[holder]:
                continue
        if championship is not None and championship.pk not in championships[a] | championships[b]:
            continue
        found.append(Proposal(player=one, other=two, reasons=why))
        if len(found) >= limit:
            break
    shown = {p.pk for proposal in found for p in (proposal.player, proposal.other)}
    seats: dict[int, list[Seat]] = defaultdict(list)
    for driver in drivers:
        if driver.player_id not in shown:
            continue
        championship = driver.championship
        visible = mine is None or championship.pk in mine
        seats[driver.player_id].append(  # type: ignore[index]
            Seat(
                championship=championship.name,
                season=championship.season,
                slug=championship.slug,
                number=driver.number,
                name=driver.name,
                email=driver.email if visible else "",
            )
        )
    for proposal in found:
        proposal.seats = {pk: seats[pk] for pk in (proposal.player.pk, proposal.other.pk)}
    return found


# --- a registrant at the door -------------------------------------------------------------


@dataclass
class DriverMatch:
    """A driver of the championship who may be the registrant at the door, and why: the
    evidence race control reads side by side before joining them (DOMAIN.md "Corrections to
    'Before the day'": a licence typed by a registrant is a hint, never a key)."""

    driver: Driver
    #: ``licence``, ``email``, ``name``: what the two have in common.
    reasons: list[str]
    licence: str
    email: str
    folded: str


def drivers_like(
    *,
    championship: Championship,
    first_name: str,
    last_name: str,
    email: str,
    licence: str,
    exclude: set[int] | None = None,
) -> list[DriverMatch]:
    """The drivers of ``championship`` (but ``exclude``, their ids) whose player holds the
    licence typed, whose address is the same as the mail server delivers it, or whose folded
    name is the same; the most reasons first, then by number. Nothing is joined here."""
    typed_licence = licence_key(licence)
    typed_address = address_key(email) if email else ""
    typed_name = name_key(first_name, last_name)
    found = []
    drivers = Driver.objects.filter(championship=championship).select_related("player")
    for driver in drivers.exclude(pk__in=exclude or set()).order_by("number"):
        player = driver.player
        held = (player.licence or "") if player is not None else ""
        addresses = {address_key(a) for a in (driver.email, player.email if player else "") if a}
        folded = name_key(driver.first_name, driver.last_name)
        reasons = []
        if typed_licence and held == typed_licence:
            reasons.append("licence")
        if typed_address and typed_address in addresses:
            reasons.append("email")
        if typed_name and typed_name == folded:
            reasons.append("name")
        if reasons:
            shown_email = driver.email or (player.email if player is not None else "")
            found.append(DriverMatch(driver, reasons, held, shown_email, folded))
    return sorted(found, key=lambda match: (-len(match.reasons), match.driver.number))

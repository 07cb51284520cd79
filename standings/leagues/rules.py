"""A league's standings and its clubs' cup, from its rounds' published lines: no database.

DOMAIN.md "A season across clubs": a league scores each round with its own scale and mode
(``per_table``: the place at the table; ``overall``: the day's rank), counts a player's best
K rounds and breaks equal points by countback, exactly as a championship does: the points,
best-K, countback and shared ranks are :func:`races.results.points.standings`'s, the points
of a line :func:`races.results.points.line_points`'s, the place countback counts
:func:`races.results.points.countback_place`'s. Only those who cross the line score
(§21-1-2 of ``rules/formule-de-competition-rules.fr.txt``); a points sanction (§1-2-3) comes
off the total after best-K, in full, as in a championship.

The clubs' cup: each round, a club scores the points of its best N players of that round
(after that round's sanctions, never below 0); clubs are ranked by the sum, equal sums by
their best round, then their second best, and so on; still equal, they share the rank.
A player counts for the club of the championship of its driver at that round.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass

from races.results import points


@dataclass(frozen=True)
class RoundLine:
    """A player's published line at one round (an event the league counts)."""

    round: Hashable
    player: Hashable
    #: The club of the championship of the player's driver at that round.
    club: Hashable
    status: str
    #: Place in the table classification.
    position: int
    #: The place at the table countback counts (the game's shared place, else the position).
    place: int
    #: The day's rank.
    rank: int
    #: Points a sanction in force removed from the player at that round (§1-2-3), whole.
    removed: int = 0


@dataclass(frozen=True)
class RoundScore:
    """A player's round as the league scores it."""

    round: Hashable
    club: Hashable
    position: int
    rank: int
    status: str
    #: The league's points for the line, before any points sanction.
    points: int
    removed: int
    counted: bool


@dataclass(frozen=True)
class LeagueLine:
    rank: int
    player: Hashable
    #: The counted rounds' points less every point a sanction removed (may go below 0).
    points: int
    #: The player's rounds in the order of the league's rounds.
    rounds: tuple[RoundScore, ...]
    countback: tuple[int, ...]
    #: The clubs the player counted for, in the order of its rounds.
    clubs: tuple[Hashable, ...]


@dataclass(frozen=True)
class ClubLine:
    rank: int
    club: Hashable
    points: int
    #: Points by round, for every round where the club scored a line (0 included).
    rounds: tuple[tuple[Hashable, int], ...]


def line_points(line: RoundLine, *, scale: Sequence[int], mode: points.Mode) -> int:
    """The league's points for one line, before any sanction."""
    return points.line_points(
        scale=scale, mode=mode, status=line.status, place=line.place, rank=line.rank
    )


def _one_per_round(
    lines: Iterable[RoundLine], *, rounds: Sequence[Hashable], scale: Sequence[int], mode: str
) -> list[tuple[RoundLine, int]]:
    """Lines of known rounds in the rounds' order, with their points; a player with two
    lines at one round (two of its drivers there) keeps the better: more points, then the
    better day's rank."""
    order = {round_: index for index, round_ in enumerate(rounds)}
    best: dict[tuple[Hashable, Hashable], tuple[RoundLine, int]] = {}
    for line in lines:
        if line.round not in order:
            continue
        scored = line_points(line, scale=scale, mode=mode)  # type: ignore[arg-type]
        key = (line.player, line.round)
        kept = best.get(key)
        if kept is None or (scored, -line.rank) > (kept[1], -kept[0].rank):
            best[key] = (line, scored)
    return sorted(best.values(), key=lambda item: order[item[0].round])


def league_standings(
    lines: Iterable[RoundLine],
    *,
    rounds: Sequence[Hashable],
    scale: Sequence[int],
    mode: points.Mode,
    best: int | None = None,
    players: Sequence[Hashable] = (),
) -> list[LeagueLine]:
    """Every player with a line at one of ``rounds`` (in the rounds' order, by date), ranked
    as a championship ranks its drivers (:func:`races.results.points.standings`): the sum
    of the ``best`` highest rounds (every round when None), sanctions off after, countback
    over every round, shared ranks 1, 2, 2, 4. ``players``: the order of players whose lines
    stay equal (any others follow in the order of their first line)."""
    scored = _one_per_round(lines, rounds=rounds, scale=scale, mode=mode)
    results = []
    removed: dict[Hashable, int] = {}
    by_key: dict[tuple[Hashable, Hashable], RoundLine] = {}
    for line, line_pts in scored:
        by_key[(line.player, line.round)] = line
        if line.removed:
            removed[line.player] = removed.get(line.player, 0) + line.removed
        results.append(
            points.EventResult(
                line.round,
                line.player,
                line.position,
                line.status,
                line_pts,
                points.countback_place(
                    mode=mode, status=line.status, place=line.place, rank=line.rank
                ),
            )
        )
    known = {player for player, _ in by_key}
    order = [player for player in players if player in known]
    table = points.standings(order, results, best=best, removed=removed)
    out = []
    for standing in table:
        counted = set(standing.counted)
        round_scores = []
        clubs: list[Hashable] = []
        for result in standing.results:
            line = by_key[(standing.driver, result.event)]
            if line.club not in clubs:
                clubs.append(line.club)
            round_scores.append(
                RoundScore(
                    round=result.event,
                    club=line.club,
                    position=line.position,
                    rank=line.rank,
                    status=line.status,
                    points=result.points,
                    removed=line.removed,
                    counted=result.event in counted,
                )
            )
        out.append(
            LeagueLine(
                rank=standing.rank,
                player=standing.driver,
                points=standing.points,
                rounds=tuple(round_scores),
                countback=standing.countback,
                clubs=tuple(clubs),
            )
        )
    return out


def clubs_cup(
    lines: Iterable[RoundLine],
    *,
    rounds: Sequence[Hashable],
    scale: Sequence[int],
    mode: points.Mode,
    club_best: int,
    clubs: Sequence[Hashable] = (),
) -> list[ClubLine]:
    """The clubs' cup: at each round, a club scores its best ``club_best`` players' points
    of that round (each after that round's sanctions, never below 0); clubs ranked by the
    sum, equal sums by their best round, then the next best…; still equal, a shared rank
    (1, 2, 2, 4) in the order of ``clubs`` (any others follow in order of appearance)."""
    if type(club_best) is not int or club_best < 1:
        raise ValueError(f"club_best must be a whole number of at least 1, got {club_best!r}")
    by_round: dict[Hashable, dict[Hashable, list[int]]] = {}
    seen: list[Hashable] = list(clubs)
    for line, line_pts in _one_per_round(lines, rounds=rounds, scale=scale, mode=mode):
        kept = points.points_after_sanction(line_pts, line.removed)
        by_round.setdefault(line.club, {}).setdefault(line.round, []).append(kept)
        if line.club not in seen:
            seen.append(line.club)
    unranked = []
    for club in seen:
        per_round = by_round.get(club)
        if not per_round:
            continue
        scores = tuple(
            (round_, sum(sorted(per_round[round_], reverse=True)[:club_best]))
            for round_ in rounds
            if round_ in per_round
        )
        total = sum(score for _, score in scores)
        best_first = sorted((score for _, score in scores), reverse=True)
        # Every club's countback as long as the rounds: a round not scored counts as 0.
        countback = tuple(best_first + [0] * (len(rounds) - len(best_first)))
        unranked.append((total, countback, club, scores))
    # More points, then the better best round, the better second best…: a stable sort,
    # reversed too, keeps equal clubs in the order of ``clubs``.
    unranked.sort(key=lambda item: (item[0], item[1]), reverse=True)
    out: list[ClubLine] = []
    for index, (total, countback, club, scores) in enumerate(unranked):
        previous = unranked[index - 1] if index else None
        shared = previous is not None and (previous[0], previous[1]) == (total, countback)
        rank = out[-1].rank if shared else index + 1
        out.append(ClubLine(rank=rank, club=club, points=total, rounds=scores))
    return out

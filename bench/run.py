"""``make bench``: build the synthetic championship, measure, write ``bench/results.json``.

Run from the repository root: ``.venv/bin/python -m bench.run`` (``--quick`` for a small
size to try it out; quick figures are not written unless ``--output`` says where).

The bench has its own database, recreated at each run, never the app's:
``BENCH_DATABASE_URL`` if set (used as is); else, with ``DATABASE_URL`` set to a
PostgreSQL, the same server's database ``<name>_bench``; else ``paddock_bench`` on a
PostgreSQL answering on 127.0.0.1:5432; else a SQLite file in the temporary directory,
and then the load part (which needs PostgreSQL) is skipped with a printed line.

The scenarios of sign-up, the event away and the offline tables (issues 29, 30, 31) run
with the load part, or alone: ``--only-registration`` (``registration_rush`` and
``registration_mails``: gunicorn, Redis database 6 or ``BENCH_REDIS_URL``, a Celery worker,
aiosmtpd), ``--only-event-return``, ``--only-offline``; a national season across clubs
(issue 52, ``bench.leagues``) too, ``--only-league``; add ``--into-results`` to merge one's
measures and targets into ``bench/results.json``.
"""

from __future__ import annotations

import argparse
import datetime
import getpass
import json
import os
import platform
import shutil
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results.json"


@dataclass(frozen=True)
class Config:
    drivers: int = 1000
    small_drivers: int = 100
    teams: int = 200
    events: int = 10
    table_size: int = 10
    sessions: int = 2
    seed: int = 1925
    load_referees: int = 100
    load_seconds: float = 10.0
    load_deadline: float = 90.0
    spike_phones: int = 1000
    spike_seconds: float = 10.0
    spike_deadline: float = 120.0
    spike_drivers: int = 300
    runs: int = 7
    fast_runs: int = 21  # the measures that take milliseconds
    # A federation's history for the ratings: seasons of ``events`` events of ``drivers``.
    ratings_seasons: int = 10
    ratings_runs: int = 3  # a full recompute takes seconds
    ratio_runs: int = 15  # a measure and its floor, in turns
    # Sign-up before the day (issue 29): a rush of registrants for a final's seats.
    signup_people: int = 2000
    signup_capacity: int = 120
    # Arrivals over 30 s, as issue 29 first asked (issue 42: each request a few ms of CPU).
    signup_seconds: float = 30.0
    signup_deadline: float = 240.0
    mails_deadline: float = 180.0
    # A national season across clubs (issue 52): its rounds' results, its league's reads.
    league_clubs: int = 10
    league_rounds: int = 40
    league_players: int = 600
    league_round_size: int = 300
    league_requests: int = 200


QUICK = Config(
    drivers=100,
    small_drivers=20,
    teams=20,
    events=3,
    load_referees=10,
    load_seconds=2,
    spike_phones=50,
    spike_seconds=2,
    spike_drivers=30,
    ratings_seasons=2,
    league_clubs=3,
    league_rounds=6,
    league_players=60,
    league_round_size=30,
    league_requests=20,
    signup_people=60,
    signup_capacity=12,
    signup_seconds=2,
)


# --- The bench's database --------------------------------------------------------------------


def _with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path="/" + name))


def _database_name(url: str) -> str:
    return urlsplit(url).path.lstrip("/")


def _postgres_answers(url: str) -> bool:
    import psycopg

    try:
        with psycopg.connect(_with_database(url, "postgres"), connect_timeout=3):
            return True
    except psycopg.Error:
        return False


def choose_database() -> tuple[str, str]:
    """The bench's database URL and where it came from."""
    explicit = os.environ.get("BENCH_DATABASE_URL", "")
    app = os.environ.get("DATABASE_URL", "")
    if explicit:
        if app and explicit == app:
            sys.exit("BENCH_DATABASE_URL is the app's DATABASE_URL: the bench needs its own.")
        return explicit, "BENCH_DATABASE_URL"
    if app.startswith("postgres"):
        name = _database_name(app) + "_bench"
        return _with_database(app, name), f"DATABASE_URL's server, database {name}"
    local = f"postgres://{getpass.getuser()}@127.0.0.1:5432/paddock_bench"
    if _postgres_answers(local):
        return local, "PostgreSQL on 127.0.0.1:5432"
    path = Path(tempfile.gettempdir()) / "paddock-bench.sqlite3"
    return f"sqlite:///{path}", "SQLite (no PostgreSQL answered on 127.0.0.1:5432)"


def recreate_database(url: str) -> None:
    """An empty database at ``url``: dropped and created again (PostgreSQL) or deleted."""
    if url.startswith("sqlite"):
        Path(urlsplit(url).path).unlink(missing_ok=True)
        return
    import psycopg
    from psycopg import sql

    name = _database_name(url)
    with psycopg.connect(_with_database(url, "postgres"), autocommit=True) as conn:
        conn.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )
        conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))


def bench_environment(url: str) -> dict[str, str]:
    """Production-like settings on the bench's database, for this process and gunicorn."""
    return {
        "DJANGO_SETTINGS_MODULE": "paddock.settings",
        "DATABASE_URL": url,
        "DEBUG": "false",
        "SECRET_KEY": "paddock-bench-only-not-a-secret-0123456789abcdefghijklmnop",
        "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
        # Plain HTTP on 127.0.0.1: no redirect to HTTPS, cookies without the Secure flag.
        "SECURE_SSL_REDIRECT": "false",
        "SECURE_COOKIES": "false",
        "SECURE_HSTS_SECONDS": "0",
        "REDIS_URL": "",  # tasks inline: the bench measures the app
        # The cache in a folder shared by gunicorn's workers, as make venue has it; this
        # run's own (another run on the machine must not empty it or fill it).
        "CACHE_DIR": tempfile.mkdtemp(prefix="paddock-bench-cache-"),
    }


# --- Measuring -------------------------------------------------------------------------------


def measure_ratings(config: Config) -> dict[str, Any]:
    """The ratings of a federation's history recomputed, and its ranking served stored."""
    from bench.ratings import History, measure_ratings

    history = History(
        seasons=config.ratings_seasons,
        events=config.events,
        drivers=config.drivers,
        table_size=config.table_size,
        seed=config.seed,
    )
    out = measure_ratings(history, runs=config.ratings_runs, fast_runs=config.fast_runs)
    recompute, ranking = out["ratings_10k_tables"], out["ratings_ranking_10k_cached"]
    say(
        f"ratings of {recompute['tables']} tables ({recompute['places']} places, "
        f"{recompute['players']} players) recomputed: {recompute['median']} ms (CPU: this "
        f"process {recompute['cpu_median']} ms, the database {recompute['database_cpu_median']} "
        f"ms; load {recompute['load_average']}); ranking cached {ranking['median']} ms, "
        f"{ranking['bytes_br']} bytes brotli"
    )
    latest, unchanged = out["ratings_latest_event_10k"], out["ratings_unchanged_10k"]
    say(
        f"ratings: the latest event's {latest['tables']} tables published on that history "
        f"{latest['median']} ms (CPU {latest['cpu_median']} ms); a recompute finding nothing "
        f"changed {unchanged['median']} ms"
    )
    return out


def measure_league(config: Config, *, env: dict[str, str] | None) -> dict[str, Any]:
    """A national season across clubs (``bench.leagues``): its recompute against a one-query
    floor in process; with ``env``, its standings and a publication on the hosted server."""
    from bench.leagues import Season
    from bench.leagues import measure_league as measure

    season = Season(
        clubs=config.league_clubs,
        rounds=config.league_rounds,
        players=config.league_players,
        round_size=config.league_round_size,
        table_size=config.table_size,
        seed=config.seed,
    )
    out = measure(season, env=env, runs=config.ratio_runs, requests=config.league_requests)
    built, recompute = out["league_season"], out["league_recompute"]
    say(
        f"league: {built['rounds']} rounds of {built['clubs']} clubs, {built['players']} "
        f"players, {built['results']} results built in {built['build_s']} s; recompute "
        f"{recompute['median']} ms (CPU {recompute['cpu_vs_floor']}× its one-query floor)"
    )
    if "league_publication" in out:
        page, api = out["league_standings_page"], out["league_standings_api"]
        say(
            f"league: page p95 {page['p95_ms']} ms, API p95 {api['p95_ms']} ms warm; a round "
            f"published shown after {out['league_publication']['seconds']} s"
        )
    return out


def _small_size(config: Config) -> Any:
    """The small championship's size: ``small_drivers`` drivers, teams in proportion."""
    from bench.builder import Size

    return Size(
        drivers=config.small_drivers,
        teams=max(1, config.teams * config.small_drivers // config.drivers),
        events=config.events,
        table_size=config.table_size,
        sessions=config.sessions,
        seed=config.seed,
    )


def measure_all(config: Config, *, env: dict[str, str], load: bool) -> dict[str, Any]:
    from bench import measures
    from bench.builder import Size, build_championship
    from bench.spike import measure_cached_standings

    out: dict[str, Any] = {}
    started = time.perf_counter()
    size = Size(
        drivers=config.drivers,
        teams=config.teams,
        events=config.events,
        table_size=config.table_size,
        sessions=config.sessions,
        seed=config.seed,
    )
    small = _small_size(config)
    large = build_championship(slug="bench-large", size=size, load_tables=config.load_referees)
    little = build_championship(slug="bench-small", size=small)
    spiked = _spike_championship(config)
    out["build_s"] = round(time.perf_counter() - started, 1)
    say(f"built {size.drivers} + {small.drivers} drivers in {out['build_s']} s")

    for built in (little, large):
        label = f"standings_{built.championship.drivers.count()}"
        result = measures.measure_standings(built.championship, runs=config.ratio_runs)
        out[label], out[f"{label}_floor"] = result["page"], result["floor"]
        say(f"{label}: {result['page']['median']} ms, floor {result['floor']['median']} ms")
    cached = measure_cached_standings(large.championship, runs=config.fast_runs)
    out[f"standings_{size.drivers}_cached"] = cached
    say(
        f"standings cached: {cached['median']} ms, {cached['bytes_br']} bytes brotli, "
        f"{cached['bytes_gzip']} gzip"
    )
    out[f"qualifying_{size.drivers}x{size.sessions}"] = measures.measure_qualifying(
        large.events[-1], runs=config.fast_runs
    )
    out[f"allocation_{size.drivers}"] = measures.measure_allocation(
        drivers=size.drivers,
        teams=size.teams,
        capacity=size.table_size,
        seed=size.seed,
        runs=config.fast_runs,
    )
    say("qualifying classification and allocation measured")
    sheets = measures.measure_sheets(large.events[-1], runs=config.ratio_runs)
    label = f"race_sheets_{size.tables}"
    out[label], out[f"{label}_render"] = sheets["sheets"], sheets["render"]
    out[f"{label}_floor"] = sheets["floor"]
    say(f"race sheets: {sheets['sheets']['median']} ms, floor {sheets['floor']['median']} ms")
    photo = measures.measure_photo_match(large.events[-1], runs=config.runs)
    out["photo_match_12mp"] = photo
    say(
        f"photo of a sheet matched by its QR code ({photo['megapixels']} MP): "
        f"{photo['median']} ms, QR reading {photo['qr_read_median']} ms"
    )
    out.update(measure_ratings(config))
    if not load:  # in process; on the hosted server with the load part below
        out["event_return"] = measure_event_return(config)

    if load and large.load_event is not None:
        from bench.load import measure_load

        out["load"] = measure_load(
            large.load_event.slug,
            large.load_tables,
            env=env,
            seconds=config.load_seconds,
            deadline=config.load_deadline,
        )
        say(f"load: p95 {out['load']['p95_ms']} ms, errors {out['load']['errors']}")
    if load:
        out.update(measure_spikes(config, env=env, spiked=spiked, little=little))
        out.update(measure_registration(config, env=env))
        out["event_return"] = measure_event_return(config, env=env)
        out["offline_return"] = measure_offline(env)
        out.update(measure_league(config, env=env))
    else:
        out.update(measure_league(config, env=None))
    return out


def _spike_championship(config: Config) -> Any:
    """The spike's championship: a day of 300 drivers, its allocation and results published."""
    from bench.builder import Size, build_championship

    return build_championship(
        slug="bench-spike",
        size=Size(
            drivers=config.spike_drivers,
            teams=max(1, config.spike_drivers // 5),
            events=max(2, config.events // 2),
            table_size=config.table_size,
            sessions=config.sessions,
            seed=config.seed,
        ),
    )


def measure_event_return(config: Config, *, env: dict[str, str] | None = None) -> dict[str, Any]:
    """A national day back from the laptop (``bench.event_return``): with ``env``, on the
    hosted server through the API, another event's desk measured meanwhile; else in process."""
    from bench.event_return import measure_event_return as measure
    from bench.event_return import measure_event_return_served

    quick = config.drivers < Config().drivers
    size = {"drivers": 30, "photos": 4, "photo_bytes": 200_000} if quick else {}
    out = measure_event_return_served(env, **size) if env is not None else measure(**size)
    desk = f", desk p95 {out['desk_p95_ms']} ms" if "desk_p95_ms" in out else ""
    say(
        f"event_return: {out['landed']} in {out['seconds']} s ({out['bytes']} bytes), "
        f"{out['rated_players']} players rated{desk}"
    )
    return out


def event_return_targets(measured: dict[str, Any]) -> list[tuple]:
    back = measured.get("event_return")
    if not back:
        return []
    rows: list[tuple] = [
        ("a national day lands (ratings included) ≤ 30 s", back["seconds"], "s", 30)
    ]
    if "desk_p95_ms" in back:
        rows += [
            ("event return: answered 200", back["status"], "", back["status"] == 200),
            ("event return: another event's desk 0 errors", back["desk_errors"], "",
             back["desk_errors"] == 0),
            ("event return: another event's desk p95 ≤ 250 ms", back["desk_p95_ms"], "ms", 250),
        ]  # fmt: skip
    return rows


def measure_registration(config: Config, *, env: dict[str, str]) -> dict[str, Any]:
    """``registration_rush`` then ``registration_mails`` (``bench.registration``)."""
    from bench.registration import measure_mails, measure_rush

    out: dict[str, Any] = {}
    rush, event = measure_rush(
        env,
        people=config.signup_people,
        capacity=config.signup_capacity,
        seconds=config.signup_seconds,
        deadline=config.signup_deadline,
    )
    out["registration_rush"] = rush
    say(
        f"registration_rush: {rush['people']} over {rush['arrival_seconds']} s, "
        f"{rush['accepted']} accepted, {rush['waiting']} waiting (in order: "
        f"{rush['waiting_in_confirmation_order']}), errors {rush['errors']}, all confirmed in "
        f"{rush['all_confirmed_s']} s, confirmation p95 {rush['confirm_p95_ms']} ms, sign-up "
        f"p95 {rush['signup_p95_ms']} ms, server CPU {rush['server_cpu_s']} s for "
        f"{rush['server_requests']} requests ({rush['server_cpu_ms_per_request']} ms each), "
        f"desk p95 {rush['desk_p95_ms']} ms; load {rush['load_average']}"
    )
    mails = measure_mails(env, event, deadline=config.mails_deadline)
    out["registration_mails"] = mails
    say(
        f"registration_mails: {mails['delivered']} of {mails['mails']} delivered in "
        f"{mails['all_delivered_s']} s, duplicates {mails['duplicates']}; "
        f"load {mails['load_average']}"
    )
    return out


def measure_offline(env: dict[str, str]) -> dict[str, Any]:
    """``offline_return`` (``bench.offline``)."""
    from bench.offline import measure_offline_return

    out = measure_offline_return(env)
    say(
        f"offline_return: {out['tables']} tables, exactly once {out['exactly_once']}, errors "
        f"{out['errors']}, outboxes empty in {out['all_empty_s']} s (qualifying "
        f"{out['qualifying']['all_empty_s']} s, race {out['race']['all_empty_s']} s), desk "
        f"p95 {out['desk_p95_ms']} ms; load {out['load_average']}"
    )
    return out


def offline_targets(measured: dict[str, Any]) -> list[tuple]:
    from bench.offline import targets as of_offline

    return of_offline(measured)


def registration_targets(measured: dict[str, Any]) -> list[tuple]:
    from bench.registration import targets as of_registration

    return of_registration(measured)


def measure_spikes(config: Config, *, env: dict[str, str], spiked: Any, little: Any) -> dict:
    """The spike on a restarted server, then as the day runs (``bench.spike``); ``little``:
    the championship whose standings warm the workers up, beside ``spiked``'s first event."""
    from django.urls import reverse

    from bench.spike import measure_spike

    out: dict[str, Any] = {}
    other = spiked.events[0]  # the same pages of another event and championship
    warm = [
        reverse("where", args=[other.slug]) + "?q=lea",
        reverse("event-results", args=[other.slug]),
        reverse("event", args=[other.slug]),
        reverse("standings", args=[little.championship.slug]),
    ]
    # First a server restarted after the publication, then the day as it runs: race
    # control publishes, the room comes.
    for name, cold in (("spike_cold", True), ("spike", False)):
        out[name] = measure_spike(
            spiked.events[-1],
            warm=warm,
            warm_desk=reverse("event-desk", args=[other.slug]),
            env=env,
            phones=config.spike_phones,
            seconds=config.spike_seconds,
            deadline=config.spike_deadline,
            cold=cold,
        )
        say(
            f"{name}: p50 {out[name]['p50_ms']} ms, p95 {out[name]['p95_ms']} ms, "
            f"errors {out[name]['errors']}; desk p95 {out[name]['desk_p95_ms']} ms "
            f"(idle p50 {out[name]['desk_idle_p50_ms']} ms), publish "
            f"{out[name]['publish_ms']} ms; builds {out[name]['builds_at_start']} at start, "
            f"{out[name]['builds_during_spike']} during; load {out[name]['load_average']}"
        )
    return out


def measure_only_spikes(config: Config, *, env: dict[str, str]) -> dict[str, Any]:
    """``--only-spike``: the spike's championship (and the small one warming the workers),
    both spikes, then the CPU time of a search and of the desk in process."""
    from bench.builder import build_championship
    from bench.spike import measure_requests

    little = build_championship(slug="bench-small", size=_small_size(config))
    spiked = _spike_championship(config)
    out = measure_spikes(config, env=env, spiked=spiked, little=little)
    # After the spikes, never before: the server's measures start as ``make bench``'s do.
    out["requests_cpu"] = measure_requests(
        spiked.events[-1], phones=config.spike_phones, desk_runs=config.fast_runs
    )
    cpu = out["requests_cpu"]
    say(
        f"in process, CPU: a search {cpu['where_cpu_p50_ms']} ms (p50 of "
        f"{cpu['where_searches']}, mean {cpu['where_cpu_mean_ms']}), the desk "
        f"{cpu['desk_cpu_p50_ms']} ms (p50 of {cpu['desk_runs']}, mean {cpu['desk_cpu_mean_ms']})"
    )
    return out


def _ratio(measured: dict[str, Any], name: str, *, wall: bool = False) -> float:
    """A measure over its floor by CPU time (this process's and its database server's), the
    median of the runs' ratios, each run beside the floor's (``measures.cpu_ratio``): the
    others' work on a shared machine counts in neither (the wall-clock medians' ratio read
    1.76 to 3.0 from one run to the next here); ``wall``: the wall clock's medians' ratio,
    for information."""
    if wall:
        return round(measured[name]["median"] / measured[f"{name}_floor"]["median"], 2)
    return round(measured[name]["cpu_vs_floor"], 2)


def targets(measured: dict[str, Any], config: Config) -> tuple[dict[str, float], list[dict]]:
    """The issue's targets on 2-core machines, each with its value and pass/fail."""
    large, small, sessions = config.drivers, config.small_drivers, config.sessions
    tables = -(-large // config.table_size)
    standings, sheets = f"standings_{large}", f"race_sheets_{tables}"
    ratios = {
        f"{standings}_vs_floor": _ratio(measured, standings),
        f"standings_{small}_vs_floor": _ratio(measured, f"standings_{small}"),
        f"{sheets}_vs_floor": _ratio(measured, sheets),
        f"{standings}_vs_floor_wall": _ratio(measured, standings, wall=True),
        f"{sheets}_vs_floor_wall": _ratio(measured, sheets, wall=True),
    }
    queries = (measured[f"standings_{small}"]["queries"], measured[standings]["queries"])
    qualifying = measured[f"qualifying_{large}x{sessions}"]["median"]
    allocation = measured[f"allocation_{large}"]["median"]
    rows = [
        (
            f"standings at {large} drivers ≤ 2× floor (CPU time)",
            ratios[f"{standings}_vs_floor"],
            "×",
        ),
        (
            f"standings: same query count at {small} and {large} drivers",
            f"{queries[0]} / {queries[1]}",
            "queries",
            queries[0] == queries[1],
        ),
        (f"qualifying classification {large}×{sessions} ≤ 100 ms", qualifying, "ms", 100),
        (f"allocation of {large} drivers ≤ 100 ms", allocation, "ms", 100),
        (f"{tables} race sheets ≤ 2× floor (CPU time)", ratios[f"{sheets}_vs_floor"], "×"),
    ]
    photo = measured.get("photo_match_12mp")
    if photo:
        rows.append(
            ("a 12-megapixel photo matched by its QR code ≤ 500 ms", photo["median"], "ms", 500)
        )
    cached = measured.get(f"standings_{large}_cached")
    if cached:
        rows += [
            (f"standings of {large} drivers cached ≤ 100 ms", cached["median"], "ms", 100),
            (
                f"standings of {large} drivers ≤ 100 KB compressed",
                round(cached["bytes_br"] / 1000, 1),
                "KB",
                100,
            ),
        ]
    rows += spike_targets(measured)
    load = measured.get("load")
    if load:
        rows += [
            ("load: 0 errors", load["errors"], "", load["errors"] == 0),
            ("load: 0 lost updates", load["lost_updates"], "", load["lost_updates"] == 0),
            ("load: p95 ≤ 500 ms", load["p95_ms"], "ms", 500),
        ]
    rows += registration_targets(measured) + offline_targets(measured)
    league = measured.get("league_recompute")
    if league:
        ratios["league_recompute_vs_floor"] = league["cpu_vs_floor"]
    return ratios, checks_of(
        rows + ratings_targets(measured) + event_return_targets(measured) + league_rows(measured)
    )


def league_rows(measured: dict[str, Any]) -> list[tuple]:
    from bench.leagues import league_targets

    return league_targets(measured)


def spike_targets(measured: dict[str, Any]) -> list[tuple]:
    """The spikes' targets (rows as ``targets`` takes them), each spike measured."""
    rows: list[tuple] = []
    for name, what in (("spike", "spike"), ("spike_cold", "spike on a restarted server")):
        spike = measured.get(name)
        if spike:
            desk_errors = spike["desk_errors"]
            rows += [
                (f"{what}: 0 errors", spike["errors"], "", spike["errors"] == 0),
                (f"{what}: p95 ≤ 150 ms", spike["p95_ms"], "ms", 150),
                (f"{what}: race control's desk 0 errors", desk_errors, "", desk_errors == 0),
                (f"{what}: race control's desk p95 ≤ 250 ms", spike["desk_p95_ms"], "ms", 250),
            ]
    return rows


def ratings_targets(measured: dict[str, Any]) -> list[tuple]:
    """The issue's targets for the ratings (rows as ``bench.run.targets`` takes them)."""
    rows: list[tuple] = []
    recompute = measured.get("ratings_10k_tables")
    if recompute:
        seconds = round(recompute["median"] / 1000, 2)
        rows.append(
            (f"ratings of {recompute['tables']} tables recomputed ≤ 10 s", seconds, "s", 10)
        )
    ranking = measured.get("ratings_ranking_10k_cached")
    if ranking:
        rows += [
            (
                f"ranking of {ranking['players']} players cached ≤ 100 ms",
                ranking["median"],
                "ms",
                100,
            ),
            (
                f"ranking of {ranking['players']} players ≤ 100 KB compressed",
                round(ranking["bytes_br"] / 1000, 1),
                "KB",
                100,
            ),
        ]
    return rows


def checks_of(rows: list[tuple]) -> list[dict]:
    """Each target row (name, value, unit[, limit]) with its pass/fail; a limit that is a
    bool is the verdict itself, a missing one a ratio's 2× its floor."""
    checks = []
    for row in rows:
        name, value, unit = row[:3]
        limit = row[3] if len(row) > 3 else 2  # a ratio's limit: 2× its floor
        passed = limit if isinstance(limit, bool) else value is not None and value <= limit
        checks.append({"target": name, "value": value, "unit": unit, "pass": bool(passed)})
    return checks


def machine(source: str) -> dict[str, Any]:
    import django
    from django.db import connection

    return {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "platform": platform.platform(),
        "processor": _cpu_model(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(),
        "django": django.get_version(),
        "database": _database_version(connection),
        "database_source": source,
    }


def _database_version(connection: Any) -> str:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW server_version")
            return f"PostgreSQL {cursor.fetchone()[0]}"
    import sqlite3

    return f"SQLite {sqlite3.sqlite_version}"


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def table(results: dict[str, Any]) -> str:
    """The printed summary."""
    lines = [f"{'measure':<28} {'median':>10} {'min':>10} {'max':>10} {'cpu med.':>10}  unit"]
    for name, value in results["measures"].items():
        if isinstance(value, dict) and "median" in value:
            queries = f"  ({value['queries']} queries)" if "queries" in value else ""
            lines.append(
                f"{name:<28} {value['median']:>10} {value['min']:>10} {value['max']:>10} "
                f"{value['cpu_median']:>10}  {value['unit']}{queries}"
            )
    load = results["measures"].get("load")
    if load:
        lines += [
            f"load: {load['referees']} referees over {load['arrival_seconds']} s, "
            f"{load['server']}:",
            f"  {load['requests']} requests, {load['throughput_rps']} req/s, "
            f"p50 {load['p50_ms']} ms, p95 {load['p95_ms']} ms, max {load['max_ms']} ms, "
            f"errors {load['errors']}, lost updates {load['lost_updates']}",
        ]
    elif results.get("load_skipped"):
        lines.append(f"load: skipped ({results['load_skipped']})")
    for name in ("spike", "spike_cold"):
        spike = results["measures"].get(name)
        if not spike:
            continue
        published = (
            f", after race control published ({spike['publish_ms']} ms)"
            if spike["publish_ms"] is not None
            else ", restarted with an empty cache after the publication"
        )
        lines += [
            f"{name}: {spike['phones']} phones over {spike['arrival_seconds']} s on a "
            f"{spike['drivers']}-driver event{published}, {spike['server']}:",
            f"  p50 {spike['p50_ms']} ms, p95 {spike['p95_ms']} ms, max {spike['max_ms']} ms, "
            f"errors {spike['errors']}; race control's desk meanwhile: "
            f"p50 {spike['desk_p50_ms']} ms, p95 {spike['desk_p95_ms']} ms "
            f"(alone: p50 {spike['desk_idle_p50_ms']} ms)",
            f"  pages built: {spike['builds_at_start']} as the server started, "
            f"{spike['builds_during_spike']} during the spike; load average "
            f"{spike['load_average']}",
        ]
    lines.append("")
    for row in results["targets"]:
        verdict = "PASS" if row["pass"] else "FAIL"
        lines.append(f"{verdict}  {row['target']}: {row['value']} {row['unit']}".rstrip())
    return "\n".join(lines)


def say(text: str) -> None:
    print(f"[bench] {text}", flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small size, to try it out")
    parser.add_argument("--output", type=Path, help=f"where to write (default {RESULTS.name})")
    parser.add_argument("--no-load", action="store_true", help="skip the gunicorn load part")
    parser.add_argument(
        "--only-ratings",
        action="store_true",
        help="the ratings' measures only (written only where --output says)",
    )
    parser.add_argument(
        "--only-event-return",
        action="store_true",
        help="a national day back from the laptop only (written only where --output says)",
    )
    parser.add_argument(
        "--only-registration",
        action="store_true",
        help="the sign-up rush and its mails only (written only where --output says)",
    )
    parser.add_argument(
        "--only-offline",
        action="store_true",
        help="the tables' outboxes sent at once only (written only where --output says)",
    )
    parser.add_argument(
        "--into-results",
        action="store_true",
        help="with --only-registration, --only-offline, --only-event-return or --only-league: "
        "merge its "
        "measures and targets into bench/results.json (the others' kept)",
    )
    parser.add_argument(
        "--only-league",
        action="store_true",
        help="a national season across clubs only (written only where --output says)",
    )
    parser.add_argument(
        "--only-spike",
        action="store_true",
        help="the publication spike only, and the CPU time of a search and of the desk "
        "(written only where --output says)",
    )
    args = parser.parse_args(argv)
    config = QUICK if args.quick else Config()
    only = (
        args.only_ratings
        or args.only_spike
        or args.only_event_return
        or args.only_registration
        or args.only_offline
        or args.only_league
    )
    output = args.output or (None if args.quick or only else RESULTS)

    load_at_start = " ".join(f"{value:.2f}" for value in os.getloadavg())
    url, source = choose_database()
    say(f"database: {source}")
    recreate_database(url)
    env = bench_environment(url)
    os.environ.update(env)
    sys.path.insert(0, str(ROOT))

    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    started = time.perf_counter()
    call_command("migrate", interactive=False, verbosity=0)
    # DEBUG off serves hashed static names: the manifest must exist, as in production
    # (collected and compressed again only when a static file changed: half a minute).
    from paddock.venue.day import static_files_current

    if not static_files_current():
        call_command("collectstatic", interactive=False, verbosity=0)
    say(f"migrated in {time.perf_counter() - started:.1f} s")

    if args.only_ratings:
        measured = measure_ratings(config)
        results = {
            "machine": machine(source),
            "config": asdict(config),
            "measures": measured,
            "targets": checks_of(ratings_targets(measured)),
        }
        return _report(results, output)
    scenarios = [
        (args.only_event_return, "event_return", event_return_targets),
        (args.only_offline, "offline_return", offline_targets),
        (args.only_registration, "registration", registration_targets),
        (args.only_league, "league", league_rows),
    ]
    for chosen, name, targets_of in scenarios:
        if not chosen:
            continue
        if connection.vendor != "postgresql" and name not in ("event_return", "league"):
            sys.exit(f"--only-{name} needs PostgreSQL (set BENCH_DATABASE_URL or start one)")
        try:
            measured = measure_scenario(name, config, env=env, served=connection.vendor)
        finally:
            shutil.rmtree(env["CACHE_DIR"], ignore_errors=True)
        results = {
            "machine": {
                **machine(source),
                "load_average_start": load_at_start,
                "load_average_end": " ".join(f"{value:.2f}" for value in os.getloadavg()),
            },
            "config": asdict(config),
            "measures": measured,
            "targets": checks_of(targets_of(measured)),
        }
        if args.into_results and not args.quick:
            return _merge_report(results, RESULTS, name)
        return _report(results, output)
    if args.only_spike:
        if connection.vendor != "postgresql":
            sys.exit("--only-spike needs PostgreSQL (set BENCH_DATABASE_URL or start one)")
        try:
            measured = measure_only_spikes(config, env=env)
        finally:
            shutil.rmtree(env["CACHE_DIR"], ignore_errors=True)
        results = {
            "machine": {**machine(source), "load_average_start": load_at_start},
            "config": asdict(config),
            "measures": measured,
            "targets": checks_of(spike_targets(measured)),
        }
        return _report(results, output)

    skipped = ""
    if args.no_load:
        skipped = "--no-load"
    elif connection.vendor != "postgresql":
        skipped = "needs PostgreSQL (set BENCH_DATABASE_URL or start one on 127.0.0.1:5432)"
        say(f"load part skipped: {skipped}")
    try:
        measured = measure_all(config, env=env, load=not skipped)
    finally:
        shutil.rmtree(env["CACHE_DIR"], ignore_errors=True)
    ratios, checks = targets(measured, config)
    results = {
        "machine": {
            **machine(source),
            # Others' work on a shared machine slows the wall-clock figures (the ratios are
            # by CPU time): its load (1, 5, 15 minutes) as the run began and ended.
            "load_average_start": load_at_start,
            "load_average_end": " ".join(f"{value:.2f}" for value in os.getloadavg()),
        },
        "config": asdict(config),
        "measures": measured,
        "ratios": ratios,
        "targets": checks,
    }
    if skipped:
        results["load_skipped"] = skipped
    return _report(results, output)


def measure_scenario(
    name: str, config: Config, *, env: dict[str, str], served: str
) -> dict[str, Any]:
    """One scenario of issues 29, 30 and 31 alone (``--only-…``)."""
    if name == "registration":
        return measure_registration(config, env=env)
    if name == "offline_return":
        return {"offline_return": measure_offline(env)}
    if name == "league":
        return measure_league(config, env=env if served == "postgresql" else None)
    on_server = env if served == "postgresql" else None
    return {"event_return": measure_event_return(config, env=on_server)}


#: How the targets of each scenario begin (``_merge_report`` replaces them all).
SCENARIO_TARGETS = {
    "registration": ("registration rush:", "registration mails:"),
    "offline_return": ("offline return:",),
    "event_return": ("a national day lands", "event return:"),
    "league": ("league:",),
}


def _merge_report(results: dict[str, Any], output: Path, name: str) -> int:
    """``results`` of one scenario merged into ``output``: its measures replace those of the
    same name, its targets those of the same text; the machine and its load as this
    scenario ran are kept under ``machine.scenarios``."""
    print(table(results), flush=True)
    merged = json.loads(output.read_text()) if output.exists() else {"measures": {}, "targets": []}
    merged.setdefault("measures", {}).update(results["measures"])
    # A scenario's rows name their sizes ("2000 delivered"): replaced by their prefixes.
    prefixes = SCENARIO_TARGETS[name]
    merged["targets"] = [
        row for row in merged.get("targets", []) if not row["target"].startswith(prefixes)
    ] + results["targets"]
    merged.setdefault("machine", {}).setdefault("scenarios", {})[name] = results["machine"]
    output.write_text(json.dumps(merged, indent=2, ensure_ascii=False) + "\n")
    say(f"merged into {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


def _report(results: dict[str, Any], output: Path | None) -> int:
    print(table(results), flush=True)
    if output:
        output.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n")
        say(f"written to {output.relative_to(ROOT) if output.is_relative_to(ROOT) else output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

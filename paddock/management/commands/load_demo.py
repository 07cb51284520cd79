"""Load the demo championship (idempotent) and the demo logins.

Two events of one championship, both with confirmed and published results:

* "Grand Prix de printemps" (Monaco): two qualifying sessions, tables of 8, variable sky
  (the race weather drawn a second time, with race control's reason: the first die fell
  off the table), and a warning to a driver (§1-2-3).
* "Grand Prix d'été" (Spa-Francorchamps): the quick rules' d20 draw for the grid
  (``qualifying_mode="draw"``, physical rolls recorded with ``draw_record``), sunny race.

Across the two events every retirement cause appears, two drivers do not start, and the
standings hold a countback tie: drivers 11 (Camille Roux: 1st and 6th) and 1 (Élodie
Lefèvre: 2nd and 3rd) both have 33 points; 11 ranks ahead on her 1st place. Drivers 13 and
20 (31 points, each a 1st and a 7th) cannot be separated and share their rank.

Then the next season ("demo-2027", made by "Start next season"): the same 24 drivers, the
same players, so that their careers hold two seasons; its opening event (quick rules' d20
draw, the summer's rolls) has its results in. A 25th driver joins, Rémi Vidal, who has the
name of a driver of the other games' Club championship: race control finds the pair on
the players' matches page, to confirm or dismiss (never merged by itself).
"""

from __future__ import annotations

import contextlib
import datetime
import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from qualifying.forms import RunForm
from qualifying.models import DrawRoll, QualifyingTable
from qualifying.seating.services import qualifying_tables_auto
from qualifying.services import draw_record, run_record, session_create
from races.games.demo import belongs_to, load_other_games
from races.grid.services import allocation_run
from races.models import RaceResult, RaceTable, RaceWeather, ResultStatus
from races.results.services import result_confirm, result_save
from races.sanctions.services import sanction_record
from races.weather.services import race_weather_draw
from standings.leagues.demo import load_league
from standings.leagues.models import League
from tournament.access import Actor
from tournament.clubs.models import Club, Membership, Role
from tournament.models import Championship, Circuit, Driver, Event, Sanction
from tournament.registration.circuits import circuit_create
from tournament.registration.seasons import championship_next_season
from tournament.registration.services import (
    championship_create,
    driver_create,
    drivers_import,
    entries_checkin,
    entries_register,
    event_create,
    event_publish,
)

DEMO_REDRAW_REASON = "Le dé du poleman est tombé de la table : tirage recommencé."
DEMO_WARNED = 8  # Raphaël Simon
DEMO_WARNING_REASON = "A rejoué sans attendre l'annonce « Levier » du commissaire."

DEMO_LOGINS = [
    # username, password (published in the README: DEBUG on only), superuser
    ("admin", "paddock-admin", True),
    ("organisateur", "paddock-pc", False),
    ("proprietaire", "paddock-club", False),
    ("accueil", "paddock-accueil", False),
]
#: The demo club: it owns the demo championships and circuits (DOMAIN.md "Clubs and who may
#: do what"); its people, one role each, log in with the logins above.
DEMO_CLUB = ("club-demo", "Club Formula Dé de démo")
DEMO_ROLES = {"proprietaire": Role.OWNER, "organisateur": Role.ORGANISER, "accueil": Role.DESK}
#: What each login is, printed beside it.
DEMO_LOGIN_ROLES = {
    "admin": "administrator: the server's operator",
    "proprietaire": "owner of the demo club: its people and everything else",
    "organisateur": "organiser of the demo club's championships",
    "accueil": "the demo club's desk: entries, check-in, runs, results, sheets",
}

DRIVERS_CSV = """number;first_name;last_name;team;email;licence
1;Élodie;Lefèvre;Écurie Étoile;elodie@example.org;FFJ-2019-0042
2;Théo;Marchand;Écurie Étoile;
3;Zoé;Girard;Scuderia Dé;
4;Léo;Bonnet;Scuderia Dé;
5;Chloé;Dubois;Team Chicane;
6;Hugo;Moreau;Team Chicane;
7;Inès;Laurent;Les Pneus Tendres;
8;Raphaël;Simon;Les Pneus Tendres;
9;Manon;Michel;Virage Rapide;
10;Lucas;Garcia;Virage Rapide;
11;Camille;Roux;Aspiration Racing;
12;Jules;Fournier;Aspiration Racing;
13;Léa;Morel;Dé Noir Motorsport;
14;Gabriel;Mercier;Dé Noir Motorsport;
15;Anaïs;Blanc;Écurie du Lion;
16;Noé;Guérin;Écurie du Lion;
17;Maëlys;Faure;Écurie Étoile;
18;Arthur;Rousseau;Scuderia Dé;
19;Jade;Fontaine;Team Chicane;
20;Louis;Chevalier;Les Pneus Tendres;
21;Sarah;Robin;Virage Rapide;
22;Adam;Gauthier;Aspiration Racing;
23;Lina;Perrin;Dé Noir Motorsport;
24;Nathan;Lemaire;Écurie du Lion;
"""

# (tyres, throws, placement errors, exit squares, stopwatch, eliminated) per driver number.
# Session 1 is dry (sun), session 2 wet (rain). Ties on purpose: drivers 3 and 4 share an
# absolute time in session 1 (the stopwatch splits them), 5 and 6 share both (order decides).
SESSION_1: dict[int, tuple[Any, ...]] = {
    1: ("soft", 19, 0, 1, "1:05.30", False),
    2: ("hard", 22, 0, 0, "0:58.10", False),
    3: ("hard", 21, 0, 0, "1:10.00", False),
    4: ("hard", 21, 0, 0, "1:12.40", False),
    5: ("hard", 23, 0, 0, "1:20.00", False),
    6: ("hard", 23, 0, 0, "1:20.00", False),
    7: ("rain", 20, 0, 1, "1:01.00", False),
    8: ("soft", 18, 1, 0, "0:59.99", False),
    9: ("hard", 24, 0, 2, "1:30.50", False),
    10: ("hard", 0, 0, 0, "", True),
    11: ("soft", 20, 0, 0, "1:00.00", False),
    12: ("hard", 25, 0, 0, "2:05.00", False),
}
SESSION_2: dict[int, tuple[Any, ...]] = {
    1: ("rain", 22, 0, 0, "1:15.00", False),
    2: ("rain", 21, 0, 1, "1:08.20", False),
    3: ("hard", 24, 0, 1, "1:25.00", False),
    4: ("rain", 20, 0, 0, "0:55.00", False),
    5: ("soft", 23, 0, 1, "1:18.00", False),
    6: ("rain", 22, 0, 2, "1:12.00", False),
    7: ("rain", 21, 0, 0, "1:03.00", False),
    8: ("rain", 24, 0, 0, "1:40.00", False),
    9: ("rain", 22, 0, 0, "1:22.00", False),
    10: ("rain", 23, 0, 0, "1:19.00", False),
    11: ("hard", 26, 0, 3, "1:50.00", False),
    12: ("rain", 20, 0, 1, "1:05.00", False),
}

# The race results, by event and table: (finishing order, retirements in the order they
# happened as (driver, cause, lap, note), did not start). The grids they follow come from
# the data above: keep both in step (tests/tournament/test_demo_results.py checks them).
RetirementRow = tuple[int, str, int, str]
TableSheet = tuple[list[int], list[RetirementRow], list[int]]
SPRING_RESULTS: dict[int, TableSheet] = {
    # Grid 4, 11, 16, 2, 7, 23, 9, 19: Camille Roux (11) wins from 2nd on the grid.
    1: ([11, 4, 2, 7, 19, 23], [(16, "off_track", 2, ""), (9, "engine", 3, "")], []),
    # Grid 12, 1, 3, 14, 24, 10, 5, 8: driver 8 does not start.
    2: ([3, 1, 12, 24, 10, 5], [(14, "blocked", 1, "")], [8]),
    # Grid 13, 15, 6, 21, 22, 17, 18, 20.
    3: ([13, 6, 15, 22, 21, 18, 20], [(17, "body", 2, "")], []),
}

# The quick rules' d20 draw of the summer event (lowest first; ties re-rolled among the tied
# drivers): the order 7, 2, 13, 18, 9, 24, 5, 12 | 15, 11, 4, 20, 1, 21, 6, 23 |
# 3, 8, 10, 14, 16, 17, 19, 22 puts one driver of each team at every table of 8.
SUMMER_ROLLS: dict[int, list[int]] = {
    7: [1],
    2: [2],
    13: [3, 4],
    18: [3, 15],
    9: [4],
    24: [5],
    5: [6],
    12: [7],
    15: [8],
    11: [9, 2],
    4: [9, 11],
    20: [10],
    1: [11],
    21: [12],
    6: [13],
    23: [14],
    3: [15, 6],
    8: [15, 9],
    10: [16],
    14: [17],
    16: [18],
    17: [19, 5, 3],
    19: [19, 5, 17],
    22: [20],
}
SUMMER_RESULTS: dict[int, TableSheet] = {
    # Grid 7, 2, 13, 18, 9, 24, 5, 12.
    1: ([2, 9, 7, 24, 5, 12, 13], [(18, "road_holding", 3, "")], []),
    # Grid 15, 11, 4, 20, 1, 21, 6, 23: Élodie Lefèvre (1) 3rd, Camille Roux (11) 6th.
    2: (
        [20, 4, 1, 15, 21, 11],
        [(6, "off_track", 1, ""), (23, "other", 2, "Disqualification")],
        [],
    ),
    # Grid 3, 8, 10, 14, 16, 17, 19, 22: driver 8 does not start again.
    3: ([16, 22, 10, 17, 3, 19], [(14, "engine", 2, "")], [8]),
}
REFEREES = ["Marc Petit", "Sophie André", "Paul Lambert"]
SUMMER_SLUG = "demo-grand-prix-d-ete"

# The next season: its opening event seats the tables as the summer's did (same rolls,
# same teams), and the results go otherwise.
NEXT_SEASON_SLUG = "demo-2027"
OPENING_SLUG = "demo-2027-grand-prix-d-ouverture"
OPENING_RESULTS: dict[int, TableSheet] = {
    # Grid 7, 2, 13, 18, 9, 24, 5, 12: every car finishes.
    1: ([13, 5, 18, 12, 2, 9, 24, 7], [], []),
    # Grid 15, 11, 4, 20, 1, 21, 6, 23.
    2: ([23, 6, 11, 21, 15, 1, 4], [(20, "engine", 2, "")], []),
    # Grid 3, 8, 10, 14, 16, 17, 19, 22.
    3: ([8, 19, 3, 14, 17, 10, 22], [(16, "off_track", 1, "")], []),
}
#: The driver who joins next season, named like a driver of the Club championship.
NEWCOMER = (25, "Rémi", "Vidal")


class Command(BaseCommand):
    help = (
        "Load the demo championship, its two events with runs, draw and results, and the "
        "demo logins (idempotent). With DEBUG off it needs --force and gives the demo "
        "accounts random passwords, printed once."
    )

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--quiet", action="store_true", help="Print nothing.")
        parser.add_argument(
            "--force",
            action="store_true",
            help="Load the demo with DEBUG off too: its accounts get random passwords, "
            "printed once (never the published ones).",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        published = settings.DEMO_LOGINS_ALLOWED
        if not published and not options["force"]:
            raise CommandError(
                "DEBUG is off: this looks like a production server, where the demo's published "
                "logins would let anyone in. Run it with DEBUG=true on a laptop, or add --force "
                "to load the demo with random passwords for its accounts (printed once)."
            )
        users, logins = self._users(published=published)
        admin = Actor(user=users["admin"], via="demo")
        with transaction.atomic():
            club = self._club(users)
            spring = self._championship(admin, club)
            self._results(admin, spring, SPRING_RESULTS)
            self._sanction(admin, spring)
            summer = self._summer(admin, spring.championship)
            self._results(admin, summer, SUMMER_RESULTS)
            opening = self._next_season(admin, spring.championship)
            self._results(admin, opening, OPENING_RESULTS)
            # The other racing games, in their own "Club" championship.
            others = load_other_games(admin=admin, club=club)
            # A league of three clubs, two Heat evenings each (standings.leagues.demo).
            league, rounds = load_league(admin=admin, club=club)
        if not options["quiet"]:
            self._print([spring, summer, opening, *others, *rounds], logins)
            self._print_league(league)

    def _users(self, *, published: bool) -> tuple[dict[str, Any], list[tuple[str, str, bool]]]:
        """The demo accounts, and the (username, password to print, superuser) lines.

        ``published``: the README's passwords, set on accounts this run creates. Otherwise
        each new account, and each account still holding its published password (a demo
        once loaded with DEBUG on), gets a random one, printed this once; other accounts
        keep theirs.
        """
        User = get_user_model()
        users, logins = {}, []
        for username, password, superuser in DEMO_LOGINS:
            user, created = User.objects.get_or_create(username=username)
            changed = created
            if published:
                shown = password
                if created:
                    user.set_password(password)
            elif created or user.check_password(password):
                shown = secrets.token_urlsafe(15)
                user.set_password(shown)
                changed = True
            else:
                shown = "(password unchanged)"
            if created:
                user.is_staff = True
                user.is_superuser = superuser
            if changed:
                user.save()
            users[username] = user
            logins.append((username, shown, superuser))
        return users, logins

    @staticmethod
    def _club(users: dict[str, Any]) -> Club:
        """The demo club and its three people (owner, organiser, desk)."""
        slug, name = DEMO_CLUB
        club = Club.objects.filter(slug=slug).first() or Club.objects.create(slug=slug, name=name)
        for username, role in DEMO_ROLES.items():
            Membership.objects.get_or_create(
                club=club, user=users[username], defaults={"role": role}
            )
        return club

    def _championship(self, admin: Actor, club: Club) -> Event:
        existing = Event.objects.filter(slug="demo-grand-prix-de-printemps").first()
        if existing is not None:
            belongs_to(club, existing.championship)
            if not existing.race_tables.exists():  # a demo loaded before race day existed
                self._race_day(admin, existing)
            return existing
        championship = Championship.objects.filter(slug="demo").first() or championship_create(
            actor=admin,
            slug="demo",
            name="Championnat de France de Formula Dé (démo)",
            season="2026",
            points_scale=[25, 18, 15, 12, 10, 8, 6, 4, 2, 1],
            club=club,
        )
        belongs_to(club, championship)
        circuit = Circuit.objects.filter(slug="monaco").first() or circuit_create(
            actor=admin,
            slug="monaco",
            name="Monaco",
            laps=3,
            weather_scale={"rain": [1, 4], "variable": [5, 8], "sun": [9, 20]},
            club=club,
        )
        drivers_import(actor=admin, championship=championship, text=DRIVERS_CSV)
        event = event_create(
            actor=admin,
            championship=championship,
            slug="demo-grand-prix-de-printemps",
            name="Grand Prix de printemps",
            date=datetime.date(2026, 4, 12),
            circuit=circuit,
        )
        numbers = list(range(1, 25))
        entries_register(actor=admin, event=event, numbers=numbers)
        entries_checkin(actor=admin, event=event, numbers=numbers)
        tables = qualifying_tables_auto(actor=admin, event=event, table_size=6)
        for index, table in enumerate(tables, start=1):
            table.referee_name = ["Marc Petit", "Sophie André", "Paul Lambert", "Julie Colin"][
                (index - 1) % 4
            ]
            table.save(update_fields=["referee_name"])
        sun = session_create(actor=admin, event=event, number=1, weather_roll=15)
        rain = session_create(actor=admin, event=event, number=2, weather_roll=2)
        start = timezone.now() - datetime.timedelta(hours=3)
        for session, specs, offset in ((sun, SESSION_1, 0), (rain, SESSION_2, 90)):
            for number in numbers:
                base = specs[(number - 1) % 12 + 1]
                tyres, throws, placement, exits, stopwatch, eliminated = base
                if number > 12:  # the second half of the field: a little slower
                    throws = throws + 2 if throws else throws
                form = RunForm(
                    data={
                        "tyres": tyres,
                        "throws": throws or "",
                        "placement_errors": placement,
                        "exit_squares": exits,
                        "stopwatch": stopwatch,
                        "eliminated": "on" if eliminated else "",
                        "performed_at": (
                            start + datetime.timedelta(minutes=offset + number * 3)
                        ).isoformat(),
                    }
                )
                if not form.is_valid():  # pragma: no cover - demo data is fixed
                    raise ValueError(form.errors.as_text())
                run_record(
                    actor=admin, session=session, driver_number=number, data=form.cleaned_data
                )
        event_publish(actor=admin, event=event, qualifying=True)
        self._race_day(admin, event)
        return event

    def _race_day(self, admin: Actor, event: Event) -> None:
        """Tables of 8 (team-mates 1 and 2 meet at table 1: one is swapped), variable sky:
        the overall pole's first die fell off the table, so race control drew again, saying
        why (§2-0-1: every draw stays listed)."""
        tables = allocation_run(actor=admin, event=event, table_size=8)
        self._referees(tables)
        race_weather_draw(actor=admin, event=event, roll=17)
        race_weather_draw(actor=admin, event=event, roll=6, reason=DEMO_REDRAW_REASON)
        event_publish(actor=admin, event=event, allocation=True)

    @staticmethod
    def _sanction(admin: Actor, event: Event) -> None:
        """A warning (§1-2-3): it shows on the results, the driver's page and the sheets
        without moving the standings' countback tie."""
        if not Sanction.objects.filter(event=event).exists():
            sanction_record(
                actor=admin, event=event, driver=DEMO_WARNED, kind="warning",
                reason=DEMO_WARNING_REASON,
            )  # fmt: skip

    @staticmethod
    def _referees(tables: list[RaceTable]) -> None:
        for table, referee in zip(tables, REFEREES, strict=False):
            table.referee_name = referee
            table.save(update_fields=["referee_name"])

    def _next_season(self, admin: Actor, championship: Championship) -> Event:
        """The next season (its drivers the same players) and its opening event; a
        newcomer named like a Club driver, for the matches page."""
        season = Championship.objects.filter(slug=NEXT_SEASON_SLUG).first()
        if season is not None:
            belongs_to(championship.club, season)
        else:
            season = championship_next_season(
                actor=admin,
                championship=championship,
                slug=NEXT_SEASON_SLUG,
                name=championship.name,
                season="2027",
            )
        number, first_name, last_name = NEWCOMER
        if not Driver.objects.filter(championship=season, number=number).exists():
            driver_create(
                actor=admin,
                championship=season,
                number=number,
                first_name=first_name,
                last_name=last_name,
            )
        return self._summer(
            admin,
            season,
            slug=OPENING_SLUG,
            name="Grand Prix d'ouverture",
            date=datetime.date(2027, 3, 14),
        )

    def _summer(
        self,
        admin: Actor,
        championship: Championship,
        *,
        slug: str = SUMMER_SLUG,
        name: str = "Grand Prix d'été",
        date: datetime.date = datetime.date(2026, 6, 21),
    ) -> Event:
        """The second event: a d20 draw for the grid (quick rules §2), tables of 8, sun
        (the next season's opening event likewise).

        Each step runs only if its result is missing, so that loading twice changes nothing.
        """
        event = Event.objects.filter(slug=slug).first()
        if event is None:
            circuit = Circuit.objects.filter(slug="spa").first() or circuit_create(
                actor=admin,
                slug="spa",
                name="Spa-Francorchamps",
                laps=3,
                weather_scale={"rain": [1, 6], "variable": [7, 12], "sun": [13, 20]},
                club=championship.club,
            )
            event = event_create(
                actor=admin,
                championship=championship,
                slug=slug,
                name=name,
                date=date,
                circuit=circuit,
                table_size=8,
                qualifying_mode=Event.QualifyingMode.DRAW,
            )
            numbers = list(range(1, 25))
            entries_register(actor=admin, event=event, numbers=numbers)
            entries_checkin(actor=admin, event=event, numbers=numbers)
        if not DrawRoll.objects.filter(event=event).exists():
            draw_record(actor=admin, event=event, rolls=SUMMER_ROLLS)
        if not event.race_tables.exists():
            self._referees(allocation_run(actor=admin, event=event))
        if not RaceWeather.objects.filter(event=event).exists():
            race_weather_draw(actor=admin, event=event, roll=16)  # sun at Spa: dry all race
        if not event.published_allocation:
            event_publish(actor=admin, event=event, allocation=True)
        return event

    def _results(self, admin: Actor, event: Event, sheets: dict[int, TableSheet]) -> None:
        """Enter each table's sheet as submitted, confirm it, then publish the results."""
        for table in RaceTable.objects.filter(event=event).order_by("number"):
            if table.result_status == ResultStatus.CONFIRMED:
                continue
            if table.result_status != ResultStatus.SUBMITTED:
                finish, retired, dns = sheets[table.number]
                stored = RaceResult.objects.filter(table=table).first()
                result_save(
                    actor=admin,
                    table=table,
                    version=stored.version if stored else 0,
                    finish=finish,
                    retired=[
                        {"driver": driver, "cause": cause, "lap": lap, "note": note}
                        for driver, cause, lap, note in retired
                    ],
                    dns=dns,
                    submit=True,
                )
            result_confirm(actor=admin, table=table)
        if not event.published_results:
            event_publish(actor=admin, event=event, results=True)

    def _print(self, events: list[Event], logins: list[tuple[str, str, bool]]) -> None:
        """The logins, then every demo championship with its events' links."""
        base = settings.SITE_URL.rstrip("/")
        self.stdout.write("")
        self.stdout.write(self.style.SUCCESS("Paddock is ready: " + base + "/"))
        self.stdout.write("Demo logins (username / password):")
        for username, password, _superuser in logins:
            self.stdout.write(f"  {username} / {password}   ({DEMO_LOGIN_ROLES[username]})")
        championships: dict[int, list[Event]] = {}
        for event in events:
            championships.setdefault(event.championship_id, []).append(event)
        for championship_events in championships.values():
            championship = championship_events[0].championship
            self.stdout.write("")
            self.stdout.write(self.style.SUCCESS(f"{championship.name}"))
            self.stdout.write(
                f"  Championship: {base}{reverse('championship', args=[championship.slug])}"
            )
            try:  # the standings page may not exist yet
                standings = reverse("standings", args=[championship.slug])
            except NoReverseMatch:
                standings = ""
            if standings:
                self.stdout.write(f"  Standings: {base}{standings}")
            for event in championship_events:
                self._print_event(base, event)
        self.stdout.write("")

    def _print_league(self, league: League) -> None:
        """The demo league: its public page (once it exists) and its matching page."""
        base = settings.SITE_URL.rstrip("/")
        self.stdout.write(self.style.SUCCESS(f"{league.name}"))
        for label, name in (("League", "league"), ("Who is who", "league-matches")):
            with contextlib.suppress(NoReverseMatch):  # the page may not exist yet
                self.stdout.write(f"  {label}: {base}{reverse(name, args=[league.slug])}")
        self.stdout.write(f"  API: {base}/api/v1/leagues/{league.slug}/standings")
        self.stdout.write("")

    def _print_event(self, base: str, event: Event) -> None:
        self.stdout.write(f"  {event.name} ({event.get_game_display()}, {event.date:%Y-%m-%d}):")
        self.stdout.write(f"    Event page: {base}{reverse('event', args=[event.slug])}")
        desk = reverse("event-desk", args=[event.slug])
        self.stdout.write(f"    Race control desk: {base}{desk}")
        self.stdout.write(f"    Where do I sit? {base}{reverse('where', args=[event.slug])}")
        tables = [
            *QualifyingTable.objects.filter(event=event).order_by("number"),
            *RaceTable.objects.filter(event=event).order_by("number"),
        ]
        if tables:
            self.stdout.write("    Referee links (no login needed):")
        for table in tables:
            name = "qtable" if isinstance(table, QualifyingTable) else "rtable"
            self.stdout.write(f"      {table}: {base}{reverse(name, args=[table.token])}")

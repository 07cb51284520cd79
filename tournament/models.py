"""Championships, circuits, teams, drivers, events and entries: registration."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator, RegexValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from tournament import sealing, wording

# Models of their own rooms, registered with the app here (and imported from here).
from tournament.away.models import ArrivedPlayer, ArrivedRegistration, Checkout  # noqa: F401
from tournament.clubs import rights
from tournament.clubs.models import Club, GuestSeat, Invitation, Membership  # noqa: F401
from tournament.games.registry import GRIDS, MAIN_GAME, GameEnumeration, game_choices, spec_of
from tournament.offline.models import IdempotencyKey  # noqa: F401
from tournament.players.models import (  # noqa: F401
    NotSamePlayer,
    Player,
    PlayerChange,
    PlayerRating,
    RatingPoint,
)
from tournament.players.names import driver_name
from tournament.registration.scales import (  # noqa: F401  (migrations and callers read them here)
    DEFAULT_POINTS_SCALE,
    WEATHER_NAMES,
    CircuitTerms,
    validate_points_scale,
    weather_scale_errors,
)
from tournament.rules import scales, stopwatch
from tournament.signup.models import Announcement, Mail, Message, Registration  # noqa: F401
from tournament.signup.rules import public_name as chosen_name
from tournament.site.accounts.tokens import AccountRequest, ApiToken  # noqa: F401
from tournament.site.actor import HistoryActor


class RefereeLinked(models.Model):
    """A table opened by a referee link (qualifying and race tables): the secret is kept as its
    digest (``token_digest``, how a link finds its table) and sealed (``token_sealed``, how it
    is printed again), never as it is (``tournament.sealing``); a new table gets a fresh one."""

    token_digest = models.CharField(max_length=64, unique=True, editable=False)
    token_sealed = models.CharField(max_length=200, editable=False)

    class Meta:
        abstract = True

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        # A new table (not one read from the database, nor given a token): a fresh link.
        if self.__dict__.get("token_digest") == "":
            self.token = sealing.new_link_secret()

    def __getstate__(self) -> dict[str, object]:
        # A pickled table (a cache) carries the sealed copy only, never the opened secret.
        state = super().__getstate__()
        state.pop("_opened_link", None)
        return state

    @property
    def token(self) -> str:
        """The link's secret, opened with the server's key (or known: ``opened_with``)."""
        if (secret := self.token_or_none) is None:
            raise sealing.LinkSealedElsewhere(
                f"The referee link of {self._meta.label} {self.pk} was sealed with another "
                "SECRET_KEY: put that key in SECRET_KEY_FALLBACKS, or renew the link."
            )
        return secret

    @property
    def token_or_none(self) -> str | None:
        """The secret, or None when no key of this server opens it (restored without its key)."""
        opened = self.__dict__.get("_opened_link")
        if opened is None or opened[0] != self.token_sealed:
            secret = sealing.unseal(self.token_sealed) or sealing.remembered_link(self.token_digest)
            if secret is None:
                return None
            opened = self.__dict__["_opened_link"] = (self.token_sealed, secret)
        return opened[1]

    @property
    def link_available(self) -> bool:
        return self.token_or_none is not None

    def opened_with(self, secret: str) -> RefereeLinked:
        """The table reached by ``secret``: its pages build their links from it, whatever key."""
        if sealing.link_digest(secret) == self.token_digest:
            sealing.remember_link(secret)
            self.__dict__["_opened_link"] = (self.token_sealed, secret)
        return self

    @token.setter
    def token(self, secret: str) -> None:
        self.token_digest = sealing.link_digest(secret)
        self.token_sealed = sealing.seal(secret)
        self.__dict__["_opened_link"] = (self.token_sealed, secret)


slug_validator = RegexValidator(
    r"^[a-z0-9-]+$", _("Use only lowercase letters, digits and hyphens (a-z, 0-9, -).")
)


class Championship(models.Model):
    class PointsMode(models.TextChoices):
        PER_TABLE = "per_table", _("By position at the table")
        OVERALL = "overall", _("By rank of the day")

    slug = models.SlugField(_("slug"), unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=200)
    season = models.CharField(_("season"), max_length=20)
    points_scale = models.JSONField(
        _("points scale"), default=list, validators=[validate_points_scale]
    )
    points_mode = models.CharField(
        _("points mode"), max_length=20, choices=PointsMode, default=PointsMode.PER_TABLE
    )
    best_results = models.PositiveSmallIntegerField(
        _("best results counted"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1)],
        help_text=_("Leave empty to count every result."),
    )
    #: The club that owns it (null: a championship made before clubs, the operator's).
    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="championships",
        verbose_name=_("club"),
    )
    #: Guest organisers: rights over this championship alone (a neighbouring club's referee).
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL,
        blank=True,
        related_name="organised_championships",
        verbose_name=_("organisers"),
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # A new scale or mode rewrites the stored points of every confirmed result: who did it,
    # when, and the scale before and after are kept.
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["-season", "name"]
        verbose_name = _("championship")
        verbose_name_plural = _("championships")

    def __str__(self) -> str:
        return f"{self.name} {self.season}"

    def is_organiser(self, user: object) -> bool:
        """True when ``user`` may run this championship: a superuser, its club's owner or
        organiser, or one of its guest organisers (``tournament.clubs.rights`` decides)."""
        return rights.may_organise(user, self)


class Circuit(models.Model):
    slug = models.SlugField(_("slug"), unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=200)
    laps = models.PositiveSmallIntegerField(
        _("laps"), default=3, validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    rain_from = models.PositiveSmallIntegerField(_("rain from"))
    rain_to = models.PositiveSmallIntegerField(_("rain to"))
    variable_from = models.PositiveSmallIntegerField(_("variable from"))
    variable_to = models.PositiveSmallIntegerField(_("variable to"))
    sun_from = models.PositiveSmallIntegerField(_("sun from"))
    sun_to = models.PositiveSmallIntegerField(_("sun to"))
    #: The club that made it and alone may change it (null: the operator's); read by all.
    club = models.ForeignKey(
        Club,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="circuits",
        verbose_name=_("club"),
    )

    class Meta:
        ordering = ["name"]
        verbose_name = _("circuit")
        verbose_name_plural = _("circuits")

    def __str__(self) -> str:
        return self.name

    @property
    def weather_scale(self) -> scales.WeatherScale:
        """The d20 weather scale printed on the board (§3-0-3)."""
        return scales.WeatherScale(
            rain=(self.rain_from, self.rain_to),
            variable=(self.variable_from, self.variable_to),
            sun=(self.sun_from, self.sun_to),
        )

    def clean(self) -> None:
        errors = weather_scale_errors(self.weather_scale)
        if errors:
            raise ValidationError({"weather_scale": errors})


class Team(models.Model):
    championship = models.ForeignKey(
        Championship, on_delete=models.CASCADE, related_name="teams", verbose_name=_("championship")
    )
    name = models.CharField(_("name"), max_length=120)
    colour = models.CharField(_("colour"), max_length=7, blank=True, default="")

    class Meta:
        ordering = ["name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        constraints = [
            models.UniqueConstraint(fields=["championship", "name"], name="team_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class Driver(models.Model):
    championship = models.ForeignKey(
        Championship,
        on_delete=models.CASCADE,
        related_name="drivers",
        verbose_name=_("championship"),
    )
    number = models.PositiveIntegerField(_("number"), validators=[MinValueValidator(1)])
    first_name = models.CharField(_("first name"), max_length=100)
    last_name = models.CharField(_("last name"), max_length=100)
    team = models.ForeignKey(
        Team,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="drivers",
        verbose_name=_("team"),
    )
    email = models.EmailField(_("email"), blank=True, default="")
    #: The name the public reads (DOMAIN.md "Corrections to 'Before the day'"): the full
    #: name, or the first name and initial a registrant chose; race control's pages and the
    #: tables' sheets keep the full name (``name``).
    public_name_choice = models.CharField(
        _("name in public"),
        max_length=5,
        choices=[("full", _("Full name")), ("short", _("First name and initial"))],
        default="full",
    )
    # The same person across championships and games (tournament.players); null only for a
    # driver written by code that predates players.
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="drivers",
        verbose_name=_("player"),
    )

    class Meta:
        ordering = ["number"]
        verbose_name = _("driver")
        verbose_name_plural = _("drivers")
        constraints = [
            models.UniqueConstraint(fields=["championship", "number"], name="driver_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.name}"

    @property
    def name(self) -> str:
        """First and last name as players write them (race control's pages and sheets)."""
        return driver_name(self.first_name, self.last_name)

    @property
    def public_name(self) -> str:
        """The name every public page, export and answer shows: the driver's choice."""
        return chosen_name(self.first_name, self.last_name, self.public_name_choice)


class Event(CircuitTerms):
    #: The registered games (``tournament.games.registry``): ``Event.Game.values`` & co.
    Game = GameEnumeration

    class QualifyingMode(models.TextChoices):
        BEST = "best", _("Best run")
        SUM = "sum", _("Sum of the sessions")
        DRAW = "draw", _("d20 draw (quick rules)")

    championship = models.ForeignKey(
        Championship,
        on_delete=models.CASCADE,
        related_name="events",
        verbose_name=_("championship"),
    )
    slug = models.SlugField(_("slug"), unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=200)
    date = models.DateField(_("date"))
    circuit = models.ForeignKey(
        Circuit,
        on_delete=models.PROTECT,
        related_name="events",
        verbose_name=_("circuit"),
        null=True,
        blank=True,
    )
    # The registry's games, read when asked: a migration keeps the callable, not the list.
    game = models.CharField(_("game"), max_length=20, choices=game_choices, default=MAIN_GAME)
    # A named game's (``GameSpec.named``): its name, and its grid drawn or by rating.
    game_name = models.CharField(
        _("name of the game"), max_length=100, blank=True, default="", db_default=""
    )
    grid = models.CharField(
        _("grid"), max_length=10, choices=GRIDS, default="draw", db_default="draw"
    )
    laps = models.PositiveSmallIntegerField(
        _("laps"),
        null=True,
        blank=True,
        validators=[MinValueValidator(1), MaxValueValidator(20)],
        help_text=_("Empty: the circuit's number of laps."),
    )
    table_size = models.PositiveSmallIntegerField(
        _("table size"), default=10, validators=[MinValueValidator(2), MaxValueValidator(20)]
    )
    qualifying_mode = models.CharField(
        _("qualifying mode"), max_length=10, choices=QualifyingMode, default=QualifyingMode.BEST
    )
    minute_penalty = models.BooleanField(
        _("+1 throw per full minute"),
        default=True,
        help_text=_("§1-1-13: each full minute of the stopwatch counts as one more throw."),
    )
    allow_redo = models.BooleanField(
        _("allow one redo"),
        default=False,
        help_text=_("Open format: a driver may cancel their run and run again."),
    )
    separate_teams = models.BooleanField(
        _("keep team-mates apart"), default=True, help_text=_("§1-3-3")
    )
    min_stopwatch_cs = models.PositiveIntegerField(
        _("plausible stopwatch floor (1/100 s)"),
        default=stopwatch.DEFAULT_MIN_STOPWATCH_CS,
        # In the database too: rows written by code older than this column still get it.
        db_default=stopwatch.DEFAULT_MIN_STOPWATCH_CS,
        validators=[MaxValueValidator(10 * 60 * 100)],
        help_text=_(
            "A qualifying stopwatch below it (“1,48” read as 1.48 s) is refused unless the "
            "referee confirms it."
        ),
    )
    language = models.CharField(
        _("language of the sheets"),
        max_length=5,
        choices=settings.LANGUAGES,
        default="fr",
        help_text=_("The printed sheets are in this language."),
    )
    stand_numbers = models.JSONField(
        _("stand numbers"),
        default=list,
        blank=True,
        help_text=_("Empty: stands 1 to the table size."),
    )
    use_configurations = models.BooleanField(
        _("record car configurations"),
        default=False,
        help_text=_("§5: six parts, each at least 1, plus 0–2 stand points, 22 in all."),
    )
    standard_configuration = models.JSONField(
        _("standard car configuration"),
        null=True,
        blank=True,
        help_text=_("Quick rules: one configuration every driver uses, printed on the sheets."),
    )
    crash_limit = models.PositiveSmallIntegerField(
        _("crashes before elimination"),
        default=1,
        validators=[MinValueValidator(1), MaxValueValidator(9)],
        help_text=_("1 = a crash eliminates (the rule); more = a variant."),
    )
    collisions = models.BooleanField(
        _("collisions"),
        default=True,
        help_text=_("A collision eliminates both cars; off = cars pass through."),
    )

    class RaceEnd(models.TextChoices):
        SECOND_TO_LAST = "second_to_last", _("When the second-to-last crosses the line")
        WINNER = "winner", _("When the winner crosses the line")

    race_end = models.CharField(
        _("end of the race"),
        max_length=20,
        choices=RaceEnd,
        default=RaceEnd.SECOND_TO_LAST,
        # In the database too: rows written by code that predates the setting get it.
        db_default=RaceEnd.SECOND_TO_LAST,
        help_text=_(
            "“Fin du jeu”: when the race stops at the winner, the referee places the cars "
            "still running."
        ),
    )
    published_allocation = models.BooleanField(_("allocation published"), default=False)
    # "Where do I sit?" in the morning: each driver's qualifying table.
    # A default in the database too: rows written by code that predates the field (an older
    # server during a deploy, a migration's historical model) stay valid.
    published_qualifying_tables = models.BooleanField(
        _("qualifying tables published"), default=False, db_default=False
    )
    published_qualifying = models.BooleanField(_("qualifying published"), default=False)
    published_results = models.BooleanField(_("results published"), default=False)
    # Ratings (tournament.players): the favourites of each race table shown for fun, and a
    # club's choice to seed a draw-mode event's tables by rating instead of the d20 alone.
    show_favourites = models.BooleanField(
        _("show each table's favourites"), default=False, db_default=False
    )
    seed_by_rating = models.BooleanField(
        _("seed the tables by rating (club's choice)"), default=False, db_default=False
    )

    class Meta:
        ordering = ["-date", "name"]
        verbose_name = _("event")
        verbose_name_plural = _("events")

    def __str__(self) -> str:
        return self.name

    def is_public(self) -> bool:
        """True once race control published anything of it (qualifying tables, allocation,
        qualifying or results). Before that only its organisers see the event at all, its
        name, date and circuit included, on the site as in the API."""
        return (
            self.published_qualifying_tables
            or self.published_allocation
            or self.published_qualifying
            or self.published_results
        )

    def clean(self) -> None:
        # The race's length (§2-0-3; quick rules point 10) and the standard car (point 1).
        errors = {
            "laps": wording.laps_errors(
                quick_rules=self.is_quick_rules,
                competition=self.is_competition,
                laps=self.laps,
                circuit_laps=self.circuit_race_laps,
            ),
            "standard_configuration": wording.standard_car_errors(
                quick_rules=self.is_quick_rules, standard=self.standard_configuration
            ),
        }
        for name, texts in spec_of(self.game).event_errors(self).items():
            errors[name] = [*(errors.get(name) or []), *texts]
        if any(errors.values()):
            raise ValidationError({field: texts for field, texts in errors.items() if texts})

    @property
    def game_label(self) -> str:
        """The game's name as pages show it: the organiser's name of a named game."""
        return spec_of(self.game).label(self.game_name)

    #: The declaration of this event's game (its day, its words): what pages read.
    game_spec = property(lambda self: spec_of(self.game))
    #: The ratings and careers family of this event's game (a named game's own).
    family = property(lambda self: spec_of(self.game).family(self.game_name))

    @property
    def is_quick_rules(self) -> bool:
        """Formula Dé in mode ``draw``: a d20 grid, 1–3 laps, no stands, weather optional."""
        return self.game == MAIN_GAME and self.qualifying_mode == "draw"

    @property
    def is_competition(self) -> bool:
        """Formula Dé in modes ``best`` and ``sum``: 3 laps (§2-0-3)."""
        return self.game == MAIN_GAME and self.qualifying_mode != "draw"

    #: The start waits for the race weather (§3-0-1) in a competition only: the quick
    #: rules leave « la météo » out (an optional rule); race control may still draw one.
    draws_race_weather = is_competition
    #: Stands are chosen before the start (§4-0-1) but under the quick rules (none there).
    has_stands = property(lambda self: not self.is_quick_rules)

    def stands(self) -> list[int]:
        """The stand numbers drivers choose from (§4-0-1): the event's own, else 1..table size."""
        return list(self.stand_numbers) or list(range(1, self.table_size + 1))

    @property
    def min_stopwatch(self) -> str:
        """The plausible stopwatch floor as ``m:ss.cc`` (API field ``min_stopwatch``)."""
        return stopwatch.format_stopwatch(self.min_stopwatch_cs)


class Entry(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="entries", verbose_name=_("event")
    )
    driver = models.ForeignKey(
        Driver, on_delete=models.CASCADE, related_name="entries", verbose_name=_("driver")
    )
    checked_in = models.BooleanField(_("checked in"), default=False)
    #: Registered and did not come (DOMAIN.md): never checked in, seated nowhere, and the
    #: day's check-in counts them as done.
    absent = models.BooleanField(_("absent"), default=False, db_default=False)
    #: §1-0-4: "pilotes courant régulièrement sous la minute", seated at the fast tables.
    fast = models.BooleanField(_("runs under a minute"), default=False, db_default=False)
    #: The fee, paid at the door: marked at check-in.
    paid = models.BooleanField(_("paid"), default=False, db_default=False)
    registered_at = models.DateTimeField(_("registered at"), auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["registered_at", "id"]
        verbose_name = _("entry")
        verbose_name_plural = _("entries")
        constraints = [
            models.UniqueConstraint(fields=["event", "driver"], name="entry_unique_driver"),
        ]

    def __str__(self) -> str:
        return f"{self.event} – {self.driver}"


class Sanction(models.Model):
    """A consequence the organisers decided (§1-2-3): a warning, throws added to a
    qualifying run, championship points removed for the event, or a disqualification.

    A withdrawn sanction no longer applies and stays listed, with who withdrew it and why.
    """

    class Kind(models.TextChoices):
        WARNING = "warning", _("Warning")
        THROWS = "throws", _("Throws added")
        POINTS = "points", _("Points removed")
        DISQUALIFIED = "disqualified", _("Disqualified")

    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="sanctions", verbose_name=_("event")
    )
    driver = models.ForeignKey(
        Driver, on_delete=models.CASCADE, related_name="sanctions", verbose_name=_("driver")
    )
    kind = models.CharField(_("sanction"), max_length=12, choices=Kind)
    value = models.PositiveSmallIntegerField(_("throws or points"), null=True, blank=True)
    session = models.PositiveSmallIntegerField(_("qualifying session"), null=True, blank=True)
    reason = models.CharField(_("reason"), max_length=200)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    withdrawn_by = models.CharField(_("withdrawn by"), max_length=120, blank=True, default="")
    withdraw_reason = models.CharField(_("reason for withdrawing"), max_length=200, blank=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "created_at", "id"]
        verbose_name = _("sanction")
        verbose_name_plural = _("sanctions")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(kind__in=["warning", "throws", "points", "disqualified"]),
                name="sanction_kind",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.driver}: {self.get_kind_display()}"

    @property
    def in_force(self) -> bool:
        """True until the sanction is withdrawn."""
        return self.withdrawn_at is None

    def words(self) -> str:
        """The sanction as the results and sheets print it ("+2 throws (session 1)")."""
        if self.kind == self.Kind.THROWS:
            return str(
                _("+%(value)s throw(s) in session %(session)s")
                % {"value": self.value, "session": self.session}
            )
        if self.kind == self.Kind.POINTS:
            return str(_("−%(value)s point(s)") % {"value": self.value})
        return str(self.get_kind_display())

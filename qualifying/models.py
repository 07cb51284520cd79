"""Qualifying sessions, qualifying tables and the runs referees enter."""

from __future__ import annotations

import datetime
from typing import Any

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy
from simple_history.models import HistoricalRecords

from qualifying import scoring
from tournament.models import Driver, Event, HistoryActor, RefereeLinked
from tournament.sealing import new_link_secret


# Contexts: Django's own French catalogue already has "Sun" (= Sunday), and "Rain" is both
# a weather and a tyre.
class Weather(models.TextChoices):
    SUN = "sun", pgettext_lazy("weather", "Sun")
    VARIABLE = "variable", pgettext_lazy("weather", "Variable")
    RAIN = "rain", pgettext_lazy("weather", "Rain")


class Track(models.TextChoices):
    DRY = "dry", _("Dry")
    WET = "wet", _("Wet")


class Tyres(models.TextChoices):
    HARD = "hard", pgettext_lazy("tyres", "Hard")
    SOFT = "soft", pgettext_lazy("tyres", "Soft")
    RAIN = "rain", pgettext_lazy("tyres", "Rain")


class RollSource(models.TextChoices):
    PHYSICAL = "physical", _("Physical die")
    SYSTEM = "system", _("Rolled by the system")


def new_table_token() -> str:
    """192 random bits, URL-safe: the secret inside a referee link (the first migrations
    name this function; tables now take theirs from ``RefereeLinked``)."""
    return new_link_secret()


class QualifyingSession(models.Model):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="sessions", verbose_name=_("event")
    )
    number = models.PositiveSmallIntegerField(_("number"), validators=[MinValueValidator(1)])
    roll = models.PositiveSmallIntegerField(
        _("weather roll"), validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    source = models.CharField(_("roll"), max_length=10, choices=RollSource)
    weather = models.CharField(_("weather"), max_length=10, choices=Weather)
    track = models.CharField(_("track"), max_length=5, choices=Track)
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("qualifying session")
        verbose_name_plural = _("qualifying sessions")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="session_unique_number"),
            models.CheckConstraint(condition=Q(roll__gte=1, roll__lte=20), name="session_roll_d20"),
            models.CheckConstraint(condition=Q(number__gte=1), name="session_number_positive"),
            models.CheckConstraint(condition=Q(weather__in=Weather.values), name="session_weather"),
            models.CheckConstraint(condition=Q(track__in=Track.values), name="session_track"),
        ]

    def __str__(self) -> str:
        return str(_("Session %(number)s") % {"number": self.number})


class QualifyingTable(RefereeLinked):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="qualifying_tables", verbose_name=_("event")
    )
    number = models.PositiveSmallIntegerField(_("number"), validators=[MinValueValidator(1)])
    referee_name = models.CharField(_("referee"), max_length=120, blank=True, default="")
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="qualifying_tables",
        verbose_name=_("referee account"),
    )
    #: §1-0-4: reserved for the drivers running under a minute (experienced referees).
    fast = models.BooleanField(_("for drivers under a minute"), default=False, db_default=False)
    drivers = models.ManyToManyField(
        Driver, through="QualifyingSeat", related_name="qualifying_tables"
    )
    # Who created the table, renamed its referee, assigned an account or renewed its link
    # (history rows hold the link's digest and sealed copy, as the table does).
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("qualifying table")
        verbose_name_plural = _("qualifying tables")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="qtable_unique_number"),
            models.CheckConstraint(condition=Q(number__gte=1), name="qtable_number_positive"),
        ]

    def __str__(self) -> str:
        return str(_("Qualifying table %(number)s") % {"number": self.number})


class QualifyingSeat(models.Model):
    """A driver's place at a qualifying table; a driver sits at one table per event."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(QualifyingTable, on_delete=models.CASCADE, related_name="seats")
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="qualifying_seats")
    order = models.PositiveSmallIntegerField(default=0)
    # Who seated a driver at a table, or moved them to another.
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("qualifying seat")
        verbose_name_plural = _("qualifying seats")
        ordering = ["table", "order", "driver__number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "driver"], name="seat_one_table_per_event"),
        ]

    def __str__(self) -> str:
        return f"{self.table} – {self.driver}"


class Run(models.Model):
    """One timed lap (§1-0-1) as written on the referee's sheet."""

    session = models.ForeignKey(
        QualifyingSession, on_delete=models.CASCADE, related_name="runs", verbose_name=_("session")
    )
    driver = models.ForeignKey(
        Driver, on_delete=models.CASCADE, related_name="runs", verbose_name=_("driver")
    )
    tyres = models.CharField(_("tyres"), max_length=5, choices=Tyres)
    throws = models.PositiveSmallIntegerField(_("throws"), null=True, blank=True)
    placement_errors = models.PositiveSmallIntegerField(_("placement errors"), default=0)
    exit_squares = models.PositiveSmallIntegerField(_("corner-exit squares"), default=0)
    stopwatch_cs = models.PositiveIntegerField(_("stopwatch (1/100 s)"), null=True, blank=True)
    eliminated = models.BooleanField(_("eliminated"), default=False)
    performed_at = models.DateTimeField(_("performed at"), default=timezone.now)
    cancelled = models.BooleanField(_("cancelled"), default=False)
    cancel_reason = models.CharField(_("cancel reason"), max_length=200, blank=True, default="")
    version = models.PositiveIntegerField(_("version"), default=1)
    #: Why race control changed the run once the race tables existed (kept in the history).
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="", db_default="")
    recorded_at = models.DateTimeField(_("recorded at"), auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])
    #: Set by a write once the race tables exist: the drivers whose general rank it changed
    #: (``qualifying.closure.RankMove``); None while qualifying is open.
    rank_moves: list[Any] | None = None

    class Meta:
        ordering = ["performed_at", "id"]
        verbose_name = _("run")
        verbose_name_plural = _("runs")
        constraints = [
            models.UniqueConstraint(
                fields=["session", "driver"],
                condition=Q(cancelled=False),
                name="run_one_counted_per_session",
            ),
            # A counted lap needs its throws and stopwatch; only an eliminated one may lack them.
            models.CheckConstraint(
                condition=Q(eliminated=True) | Q(throws__isnull=False, stopwatch_cs__isnull=False),
                name="run_complete_unless_eliminated",
            ),
            models.CheckConstraint(condition=Q(tyres__in=Tyres.values), name="run_tyres"),
            # Versioned writes start at 1 and only go up (API.md, "Versioned writes").
            models.CheckConstraint(condition=Q(version__gte=1), name="run_version_positive"),
        ]

    def __str__(self) -> str:
        return f"{self.session} – {self.driver}"

    @property
    def stopwatch(self) -> str | None:
        """The stopwatch as ``m:ss.cc``, or None when not recorded."""
        if self.stopwatch_cs is None:
            return None
        return scoring.format_stopwatch(self.stopwatch_cs)

    def breakdown(self) -> scoring.Breakdown | None:
        """Absolute time and its parts (§1-1-10 … §1-1-13); None for an eliminated run."""
        return run_breakdown(
            eliminated=self.eliminated,
            throws=self.throws,
            placement_errors=self.placement_errors,
            exit_squares=self.exit_squares,
            tyres=self.tyres,
            stopwatch_cs=self.stopwatch_cs,
            track=self.session.track,
            minute_penalty=self.session.event.minute_penalty,
        )

    def as_result(self, breakdown: scoring.Breakdown | None = None) -> scoring.RunResult:
        """The run as the pure classification sees it; ``breakdown``: its own, when the
        caller has it already (with a sanction's throws, which then count)."""
        return run_result(
            pk=self.pk or 0,
            driver=self.driver.number,
            session=self.session.number,
            eliminated=self.eliminated,
            breakdown=self.breakdown() if breakdown is None else breakdown,
            stopwatch_cs=self.stopwatch_cs,
            performed_at=self.performed_at,
        )


def run_result(
    *,
    pk: int,
    driver: int,
    session: int,
    eliminated: bool,
    breakdown: scoring.Breakdown | None,
    stopwatch_cs: int | None,
    performed_at: datetime.datetime,
) -> scoring.RunResult:
    """A run (a ``Run`` or a plain row of one) as the pure classification sees it: its
    absolute time from ``breakdown``, ties in the order the runs were performed."""
    return scoring.RunResult(
        driver=driver,
        session=session,
        eliminated=eliminated,
        absolute=breakdown.total if breakdown else None,
        stopwatch_cs=stopwatch_cs,
        order=(performed_at, pk),
    )


def run_breakdown(
    *,
    eliminated: bool,
    throws: int | None,
    placement_errors: int,
    exit_squares: int,
    tyres: str,
    stopwatch_cs: int | None,
    track: str,
    minute_penalty: bool,
) -> scoring.Breakdown | None:
    """A run's absolute time and its parts from its stored values (a ``Run`` or a plain
    row of one); None for an eliminated run or one without throws or stopwatch."""
    if eliminated or throws is None or stopwatch_cs is None:
        return None
    return scoring.absolute_time(
        throws=throws,
        placement_errors=placement_errors,
        exit_squares=exit_squares,
        tyres=tyres,  # type: ignore[arg-type]
        track=track,  # type: ignore[arg-type]
        stopwatch_cs=stopwatch_cs,
        minute_penalty=minute_penalty,
    )


class DrawRoll(models.Model):
    """Quick rules §2: a driver's d20 for the grid, with re-rolls after ties."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="draw_rolls")
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="draw_rolls")
    rolls = models.JSONField(_("rolls"), default=list)
    source = models.CharField(_("roll"), max_length=10, choices=RollSource)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("d20 draw roll")
        verbose_name_plural = _("d20 draw rolls")
        constraints = [
            models.UniqueConstraint(fields=["event", "driver"], name="draw_one_per_driver"),
            models.CheckConstraint(condition=Q(source__in=RollSource.values), name="draw_source"),
        ]

    def __str__(self) -> str:
        return f"{self.driver}: {self.rolls}"

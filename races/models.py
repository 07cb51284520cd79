"""Race day: tables and grids, race weather, stands, car configurations, printed sheets."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import F, Q
from django.db.models.lookups import Exact
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from qualifying.models import QualifyingTable, RollSource, Track, Weather
from tournament.models import Driver, Event, HistoryActor, RefereeLinked
from tournament.sealing import SealedBinaryField


class ResultStatus(models.TextChoices):
    EMPTY = "empty", _("Not started")
    DRAFT = "draft", _("Draft")
    SUBMITTED = "submitted", _("Submitted")
    CONFIRMED = "confirmed", _("Confirmed")


class RetirementCause(models.TextChoices):
    """Why a car left the race (§20), in the referee's words on the sheet."""

    OFF_TRACK = "off_track", _("Off track")
    BLOCKED = "blocked", _("Blocked")
    BODY = "body", _("Body")
    ENGINE = "engine", _("Engine")
    ROAD_HOLDING = "road_holding", _("Road holding")
    OTHER = "other", _("Other")


class RaceTable(RefereeLinked):
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="race_tables", verbose_name=_("event")
    )
    number = models.PositiveSmallIntegerField(_("number"), validators=[MinValueValidator(1)])
    referee_name = models.CharField(_("referee"), max_length=120, blank=True, default="")
    referee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="race_tables",
        verbose_name=_("referee account"),
    )
    # The table's weather as it evolves during a variable race (§3-2-4 … §3-2-6).
    weather = models.CharField(_("weather"), max_length=10, choices=Weather, blank=True)
    track = models.CharField(_("track"), max_length=5, choices=Track, blank=True)
    weather_fixed = models.BooleanField(_("weather fixed"), default=False)
    last_draw = models.CharField(max_length=10, choices=Weather, blank=True)
    # §5-0-2: once the race starts at the table, stands and configurations are in ink.
    started_at = models.DateTimeField(_("race started at"), null=True, blank=True)
    started_by = models.CharField(_("started by"), max_length=120, blank=True, default="")
    unlock_reason = models.CharField(_("reason for unlocking"), max_length=200, blank=True)
    # Filled by the results workflow; allocation and swaps need every table still empty.
    result_status = models.CharField(
        _("result"), max_length=10, choices=ResultStatus, default=ResultStatus.EMPTY
    )
    # History rows hold the link's digest and sealed copy, as the table does.
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("race table")
        verbose_name_plural = _("race tables")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="rtable_unique_number"),
        ]

    def __str__(self) -> str:
        return str(_("Table %(number)s") % {"number": self.number})

    @property
    def started(self) -> bool:
        """True once the race started at this table: stands and configurations locked."""
        return self.started_at is not None

    def status_words(self) -> str:
        """What is true of the table's race, in words: "In the race" once it started and
        no result is entered yet, else its result's status ("Not started", "Draft", ...)."""
        if self.result_status == ResultStatus.EMPTY and self.started_at is not None:
            return str(_("In the race"))
        return str(self.get_result_status_display())  # type: ignore[attr-defined]


class GridSlot(models.Model):
    """A driver's place on a table's grid, with the stand they chose (§4-0-1)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    table = models.ForeignKey(RaceTable, on_delete=models.CASCADE, related_name="slots")
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="grid_slots")
    position = models.PositiveSmallIntegerField(_("position"))
    rank = models.PositiveIntegerField(_("qualifying rank"))
    stand = models.PositiveSmallIntegerField(_("stand"), null=True, blank=True)
    swapped = models.BooleanField(_("moved to keep team-mates apart"), default=False)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["table", "position"]
        verbose_name = _("grid place")
        verbose_name_plural = _("grid places")
        constraints = [
            models.UniqueConstraint(fields=["event", "driver"], name="slot_one_table_per_event"),
            models.UniqueConstraint(fields=["table", "position"], name="slot_unique_position"),
            models.UniqueConstraint(
                fields=["table", "stand"],
                condition=Q(stand__isnull=False),
                name="slot_unique_stand",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table} P{self.position} {self.driver}"


class CarConfiguration(models.Model):
    """Wear points of a car (§5): six parts ≥ 1 plus 0–2 stand points, 22 in all."""

    slot = models.OneToOneField(GridSlot, on_delete=models.CASCADE, related_name="configuration")
    tyres = models.PositiveSmallIntegerField(_("tyres"))
    brakes = models.PositiveSmallIntegerField(_("brakes"))
    gearbox = models.PositiveSmallIntegerField(_("gearbox"))
    body = models.PositiveSmallIntegerField(_("body"))
    engine = models.PositiveSmallIntegerField(_("engine"))
    road_holding = models.PositiveSmallIntegerField(_("road holding"))
    stand_points = models.PositiveSmallIntegerField(_("stand points"), default=0)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("car configuration")
        verbose_name_plural = _("car configurations")
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    tyres__gte=1,
                    brakes__gte=1,
                    gearbox__gte=1,
                    body__gte=1,
                    engine__gte=1,
                    road_holding__gte=1,
                    stand_points__lte=2,
                ),
                name="config_parts_at_least_one",
            ),
            # 20 points plus 2 at the stand (§5-0-2, §5-3).
            models.CheckConstraint(
                condition=Exact(
                    F("tyres")
                    + F("brakes")
                    + F("gearbox")
                    + F("body")
                    + F("engine")
                    + F("road_holding")
                    + F("stand_points"),
                    22,
                ),
                name="config_total_22",
            ),
        ]

    def __str__(self) -> str:
        return str(self.slot)

    def values(self) -> dict[str, int]:
        return {
            "tyres": self.tyres,
            "brakes": self.brakes,
            "gearbox": self.gearbox,
            "body": self.body,
            "engine": self.engine,
            "road_holding": self.road_holding,
            "stand_points": self.stand_points,
        }


class RaceWeather(models.Model):
    """The race's weather now: the last of its draws (``RaceWeatherDraw``, §2-0-1, §3-2-1)."""

    event = models.OneToOneField(Event, on_delete=models.CASCADE, related_name="race_weather")
    roll = models.PositiveSmallIntegerField(
        _("roll"), validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    source = models.CharField(_("roll"), max_length=10, choices=RollSource)
    weather = models.CharField(_("weather"), max_length=10, choices=Weather)
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("race weather")
        verbose_name_plural = _("race weather")

    def __str__(self) -> str:
        return f"{self.event}: {self.get_weather_display()}"


class RaceWeatherDraw(models.Model):
    """One draw of the race weather: the overall pole's d20 (§2-0-1, §3-2-1), or an
    organiser's new draw with its reason (a die off the table, a wrong scale). Every draw
    stays listed."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="race_weather_draws")
    number = models.PositiveSmallIntegerField(_("draw"))
    roll = models.PositiveSmallIntegerField(
        _("roll"), validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    source = models.CharField(_("roll"), max_length=10, choices=RollSource)
    weather = models.CharField(_("weather"), max_length=10, choices=Weather)
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("race weather draw")
        verbose_name_plural = _("race weather draws")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="raceweather_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.event} #{self.number}: {self.weather}"


class WeatherDraw(models.Model):
    """A weather draw at a table during a variable race (§3-2-4 … §3-2-6).

    A draw made by mistake is undone by race control with a reason: it stays listed,
    marked undone, and no longer counts.
    """

    table = models.ForeignKey(RaceTable, on_delete=models.CASCADE, related_name="weather_draws")
    number = models.PositiveSmallIntegerField(_("draw"))
    roll = models.PositiveSmallIntegerField(
        _("roll"), validators=[MinValueValidator(1), MaxValueValidator(20)]
    )
    source = models.CharField(_("roll"), max_length=10, choices=RollSource)
    drawn = models.CharField(_("drawn"), max_length=10, choices=Weather)
    weather = models.CharField(_("weather"), max_length=10, choices=Weather)
    track = models.CharField(_("track"), max_length=5, choices=Track)
    fixed = models.BooleanField(_("fixed"), default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    undone_at = models.DateTimeField(_("undone at"), null=True, blank=True)
    undone_by = models.CharField(_("undone by"), max_length=120, blank=True, default="")
    undo_reason = models.CharField(_("reason for undoing"), max_length=200, blank=True)
    # Draws are only created, but an allocation run again deletes them: recorded too.
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("table weather draw")
        verbose_name_plural = _("table weather draws")
        ordering = ["table", "number"]
        constraints = [
            models.UniqueConstraint(fields=["table", "number"], name="draw_unique_number"),
        ]

    def __str__(self) -> str:
        return f"{self.table} #{self.number}: {self.drawn}"


class AllocationRecord(models.Model):
    """What the last allocation did: its swaps and the conflicts it could not resolve."""

    event = models.OneToOneField(Event, on_delete=models.CASCADE, related_name="allocation")
    table_size = models.PositiveSmallIntegerField()
    swaps = models.JSONField(default=list)
    conflicts = models.JSONField(default=list)
    created_at = models.DateTimeField(auto_now=True)
    actor = models.CharField(max_length=120, blank=True, default="")

    class Meta:
        verbose_name = _("allocation")
        verbose_name_plural = _("allocations")

    def __str__(self) -> str:
        return f"{self.event} ({self.created_at:%Y-%m-%d %H:%M})"


class ManualSwap(models.Model):
    """An organiser's swap of two drivers between tables (who, when, why)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="manual_swaps")
    driver_a = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="+")
    driver_b = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="+")
    table_a = models.PositiveSmallIntegerField()
    table_b = models.PositiveSmallIntegerField()
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True
    )
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        verbose_name = _("swap")
        verbose_name_plural = _("swaps")
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"{self.driver_a} ↔ {self.driver_b}"


class ReplacedLink(models.Model):
    """A referee link that was regenerated: it answers "this link was replaced".

    Only the old link's digest is kept (``tournament.sealing.link_digest``)."""

    digest = models.CharField(max_length=64, unique=True)
    kind = models.CharField(max_length=12)  # "race" or "qualifying"
    table_id = models.PositiveBigIntegerField()
    replaced_at = models.DateTimeField(auto_now_add=True)
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")

    class Meta:
        verbose_name = _("replaced referee link")
        verbose_name_plural = _("replaced referee links")

    def __str__(self) -> str:
        return f"{self.kind} table {self.table_id}"


class SheetBatch(models.Model):
    """All the printed sheets of an event in one PDF, built by a background task."""

    class Kind(models.TextChoices):
        RACE = "race", _("Race sheets")
        QUALIFYING = "qualifying", _("Qualifying table sheets")

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Being built")
        DONE = "done", _("Ready")
        FAILED = "failed", _("Failed")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="sheet_batches")
    kind = models.CharField(max_length=12, choices=Kind)
    status = models.CharField(max_length=10, choices=Status, default=Status.QUEUED)
    done = models.PositiveIntegerField(default=0)
    total = models.PositiveIntegerField(default=0)
    # Sealed in the database (it prints every link of the event), plain when read.
    pdf = SealedBinaryField(null=True, blank=True, editable=False)
    language = models.CharField(max_length=5, default="fr")
    error = models.CharField(max_length=300, blank=True, default="")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name = _("batch of sheets")
        verbose_name_plural = _("batches of sheets")
        constraints = [
            # Building twice replaces the file: one batch per event and kind.
            models.UniqueConstraint(fields=["event", "kind"], name="batch_one_per_kind"),
        ]

    def __str__(self) -> str:
        return f"{self.event} {self.kind} ({self.status})"

    @property
    def percent(self) -> int:
        """Progress in percent, for the progress bar."""
        if self.status == self.Status.DONE:
            return 100
        return int(100 * self.done / self.total) if self.total else 0


class RaceResult(models.Model):
    """What a table's referee wrote on the race sheet (§2-0-3), versioned.

    One row per table (the database allows no second one, hence never two confirmed
    results for a table); its status lives on ``RaceTable.result_status``.
    """

    table = models.OneToOneField(RaceTable, on_delete=models.CASCADE, related_name="result")
    version = models.PositiveIntegerField(_("version"), default=1)
    finish = models.JSONField(_("finishing order"), default=list)
    retired = models.JSONField(_("retirements"), default=list)
    dns = models.JSONField(_("did not start"), default=list)
    # What the referee wrote for games other than Formula Dé, in the shape of the game's
    # API body (``{"squares": {...}, "crossed": [...]}``, ``{"runs": {...}}``…).
    game_data = models.JSONField(_("game sheet"), default=dict, blank=True)
    submitted_at = models.DateTimeField(null=True, blank=True)
    confirmed_at = models.DateTimeField(null=True, blank=True)
    confirmed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    reopen_reason = models.CharField(_("reason for reopening"), max_length=200, blank=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        verbose_name = _("race result")
        verbose_name_plural = _("race results")

    def __str__(self) -> str:
        return f"{self.table} v{self.version}"


class ResultLine(models.Model):
    """A driver's confirmed place, stored when race control confirms the table's result,
    so that standings read one row per driver and event, whatever the size."""

    class Status(models.TextChoices):
        FINISHED = "finished", _("Finished")
        RETIRED = "retired", _("Retired")
        DNS = "dns", _("Did not start")
        # Other games: still on the road when the race stopped, out of the race (a crash
        # or a collision).
        RUNNING = "running", _("Still running")
        ELIMINATED = "eliminated", _("Eliminated")
        # §1-2-3: the organisers disqualified the driver from the event.
        DSQ = "dsq", _("Disqualified")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="result_lines")
    table = models.ForeignKey(RaceTable, on_delete=models.CASCADE, related_name="result_lines")
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="result_lines")
    position = models.PositiveSmallIntegerField(_("position"))
    # The place at the table as the game shares it (games with shared places); countback
    # counts it (DOMAIN.md). Formula Dé shares none: empty means the position.
    place = models.PositiveSmallIntegerField(_("place"), null=True, blank=True)
    rank = models.PositiveIntegerField(_("rank of the day"))
    status = models.CharField(_("status"), max_length=10, choices=Status)
    cause = models.CharField(_("cause"), max_length=20, choices=RetirementCause, blank=True)
    lap = models.PositiveSmallIntegerField(_("lap"), null=True, blank=True)
    note = models.CharField(_("note"), max_length=200, blank=True)
    points = models.PositiveIntegerField(_("points"), default=0)
    # Championship points a sanction removed (§1-2-3), already taken off ``points``.
    points_removed = models.PositiveIntegerField(_("points removed"), default=0)

    class Meta:
        verbose_name = _("result line")
        verbose_name_plural = _("result lines")
        ordering = ["event", "rank"]
        constraints = [
            models.UniqueConstraint(fields=["event", "driver"], name="line_one_per_driver"),
            models.UniqueConstraint(fields=["table", "position"], name="line_unique_position"),
            # §21-1-2: only finishers score (other games: and cars still on the road).
            models.CheckConstraint(
                condition=Q(status__in=["finished", "running"]) | Q(points=0),
                name="line_points_finishers_only",
            ),
        ]
        indexes = [models.Index(fields=["event", "driver"])]

    def __str__(self) -> str:
        return f"{self.event} {self.driver}: {self.rank}"

    @property
    def table_place(self) -> int:
        """The place at the table countback counts: shared by the games that share places."""
        return self.position if self.place is None else self.place


# --- A rally: special stages timed across every game of the rally ----------------------------


class Stage(models.Model):
    """A special stage (ES) of a rally: its route and whether a service park follows."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="stages")
    number = models.PositiveSmallIntegerField(_("number"), validators=[MinValueValidator(1)])
    route = models.CharField(
        _("route"), max_length=200, help_text=_("Zones, e.g. C8 C3-J6-J5-C4 C5")
    )
    service_after = models.BooleanField(_("service park after"), default=False)
    # Driver numbers in start order; stage 1 is set (or drawn) by the organisers.
    start_order = models.JSONField(_("start order"), default=list, blank=True)
    # Règlement+: one die per zone before the stage; true = the zone is snowy. Empty: not
    # drawn yet.
    snow = models.JSONField(_("snowy zones"), default=list, blank=True)
    snow_source = models.CharField(_("snow draw"), max_length=10, choices=RollSource, blank=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event", "number"]
        verbose_name = _("special stage")
        verbose_name_plural = _("special stages")
        constraints = [
            models.UniqueConstraint(fields=["event", "number"], name="stage_unique_number"),
        ]

    def __str__(self) -> str:
        return str(_("SS%(number)s") % {"number": self.number})


class StageTime(models.Model):
    """A driver's chrono on a stage: sum of the speed cards, minus the seconds tokens held."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="times")
    driver = models.ForeignKey(Driver, on_delete=models.CASCADE, related_name="stage_times")
    chrono = models.PositiveIntegerField(_("chrono (s)"), null=True, blank=True)
    seconds_held = models.PositiveSmallIntegerField(_("seconds tokens held"), default=0)
    retired = models.BooleanField(_("retired"), default=False)
    # Optional intermediate time points, in seconds from the start of the stage.
    splits = models.JSONField(_("intermediate times"), default=list, blank=True)
    # Règlement+ "Choix des pneus": asphalt or snow, when the referee records it.
    tyres = models.CharField(
        _("tyres"),
        max_length=8,
        choices=[("asphalt", _("Asphalt")), ("snow", _("Snow"))],
        blank=True,
        default="",
    )
    version = models.PositiveIntegerField(_("version"), default=1)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["stage", "driver__number"]
        verbose_name = _("stage time")
        verbose_name_plural = _("stage times")
        constraints = [
            models.UniqueConstraint(fields=["stage", "driver"], name="stagetime_one_per_driver"),
            models.CheckConstraint(
                condition=Q(retired=True) | Q(chrono__isnull=False), name="stagetime_chrono_or_out"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.stage} {self.driver}"


class SheetPhoto(models.Model):
    """A photo or scan of a signed paper sheet, the day's legal record: a race table's
    (§2-0-3, ``table``) or a qualifying table's (§1-0-2, ``qualifying_table``).

    The image is stored re-encoded under the media root (``races.photos.storage``), named by
    its content; both tables are empty while the photo waits in the desk's "unmatched" tray.
    A replaced photo is never deleted: it stays listed with the one that replaced it.
    """

    class Source(models.TextChoices):
        TABLE = "table", _("sent for its table")
        QR = "qr", _("matched by its QR code")
        HAND = "hand", _("assigned by race control")
        UNMATCHED = "unmatched", _("unmatched")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="sheet_photos")
    table = models.ForeignKey(
        RaceTable, on_delete=models.CASCADE, null=True, blank=True, related_name="photos"
    )
    qualifying_table = models.ForeignKey(
        QualifyingTable, on_delete=models.CASCADE, null=True, blank=True, related_name="photos"
    )
    source = models.CharField(_("how it reached its table"), max_length=10, choices=Source)
    image = models.CharField(max_length=80, editable=False)
    thumbnail = models.CharField(max_length=80, editable=False)
    width = models.PositiveIntegerField()
    height = models.PositiveIntegerField()
    size = models.PositiveIntegerField(_("bytes"))
    original_name = models.CharField(_("file name as sent"), max_length=120, blank=True)
    sent_by = models.CharField(_("sent by"), max_length=120, blank=True, default="")
    sent_at = models.DateTimeField(_("sent at"), auto_now_add=True)
    replaced_by = models.ForeignKey(
        "self", on_delete=models.SET_NULL, null=True, blank=True, related_name="replaces"
    )
    replaced_at = models.DateTimeField(null=True, blank=True)
    #: Why a photo sent to the desk found no table (``races.photos.services.Unmatched``).
    unmatched_reason = models.CharField(max_length=20, blank=True, default="")
    #: Whether a sheet's QR code was read in it: False is "code not read" on the desk (race
    #: control checks by eye whose sheet it is); None for a photo sent before codes were read.
    code_read = models.BooleanField(_("QR code read"), null=True, blank=True, default=None)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["sent_at", "pk"]
        verbose_name = _("sheet photo")
        verbose_name_plural = _("sheet photos")
        constraints = [
            models.CheckConstraint(
                condition=Q(table__isnull=True, qualifying_table__isnull=True, source="unmatched")
                | (Q(table__isnull=False, qualifying_table__isnull=True) & ~Q(source="unmatched"))
                | (Q(table__isnull=True, qualifying_table__isnull=False) & ~Q(source="unmatched")),
                name="photo_unmatched_has_no_table",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.table or self.qualifying_table or self.event} photo {self.pk}"

    @property
    def sheet_table(self) -> RaceTable | QualifyingTable | None:
        """The table whose sheet this is (race or qualifying), None while unmatched."""
        return self.table or self.qualifying_table

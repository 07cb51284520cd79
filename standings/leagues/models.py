"""A league and its rounds: the rows only (rules in ``rules.py``, writes in
``services.py``, reads in ``selectors.py``)."""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MinValueValidator
from django.db import models
from django.utils.translation import gettext_lazy as _
from simple_history.models import HistoricalRecords

from tournament.clubs.models import Club
from tournament.models import Championship, Event, slug_validator, validate_points_scale
from tournament.site.actor import HistoryActor


class League(models.Model):
    """A season that counts events of several clubs' championships. It belongs to one club,
    whose owners and organisers run it; its scale, mode and best-K are a championship's."""

    PointsMode = Championship.PointsMode

    slug = models.SlugField(_("slug"), unique=True, validators=[slug_validator])
    name = models.CharField(_("name"), max_length=200)
    season = models.CharField(_("season"), max_length=20)
    club = models.ForeignKey(
        Club, on_delete=models.PROTECT, related_name="leagues", verbose_name=_("club")
    )
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
    #: The clubs' cup: each round, a club scores the points of its best N players.
    club_best = models.PositiveSmallIntegerField(
        _("best players of a club per round"), default=3, validators=[MinValueValidator(1)]
    )
    created_at = models.DateTimeField(auto_now_add=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["-season", "name"]
        verbose_name = _("league")
        verbose_name_plural = _("leagues")

    def __str__(self) -> str:
        return f"{self.name} {self.season}"


class Round(models.Model):
    """An event that the league counts: proposed by the league, accepted or declined by the
    event's club; an event of the league's own club is counted at once."""

    class Status(models.TextChoices):
        PROPOSED = "proposed", _("proposed")
        COUNTED = "counted", _("counted")
        DECLINED = "declined", _("declined")

    league = models.ForeignKey(
        League, on_delete=models.CASCADE, related_name="rounds", verbose_name=_("league")
    )
    event = models.ForeignKey(
        Event, on_delete=models.CASCADE, related_name="league_rounds", verbose_name=_("event")
    )
    status = models.CharField(_("status"), max_length=10, choices=Status)
    proposed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    proposed_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True,
        related_name="+",
    )  # fmt: skip
    decided_at = models.DateTimeField(null=True, blank=True)
    history = HistoricalRecords(bases=[HistoryActor])

    class Meta:
        ordering = ["event__date", "event__name"]
        verbose_name = _("round")
        verbose_name_plural = _("rounds")
        constraints = [
            models.UniqueConstraint(fields=["league", "event"], name="league_round_once"),
        ]

    def __str__(self) -> str:
        return f"{self.league} · {self.event}"

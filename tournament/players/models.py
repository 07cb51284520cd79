"""A player across championships, the recorded changes to players, and their ratings."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _


class Player(models.Model):
    """One person, whatever the championship, season or game: each championship's
    ``Driver`` points to its player. Never merged silently: race control confirms."""

    first_name = models.CharField(_("first name"), max_length=100)
    last_name = models.CharField(_("last name"), max_length=100)
    # A federation's licence number: optional, unique when given.
    licence = models.CharField(_("licence number"), max_length=30, null=True, blank=True)
    email = models.EmailField(_("email"), blank=True, default="")
    # A licence number typed for this player by an organiser who may not attach it: held by
    # another player, of championships that organiser does not run. Only a proposed match
    # (tournament.players.matching), for that player's organisers to confirm.
    claimed_licence = models.CharField(
        _("licence number claimed"), max_length=30, blank=True, default="", db_index=True
    )
    # The name folded for matching (accents, case and order of the words left out).
    name_key = models.CharField(max_length=200, db_index=True, editable=False, default="")
    # A player merged into another: kept (a merge can be undone), its drivers moved.
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="absorbed",
        verbose_name=_("merged into"),
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["last_name", "first_name", "pk"]
        verbose_name = _("player")
        verbose_name_plural = _("players")
        constraints = [
            models.UniqueConstraint(fields=["licence"], name="player_unique_licence"),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def name(self) -> str:
        return f"{self.first_name} {self.last_name}".strip()


class PlayerChange(models.Model):
    """Race control's change to players: a merge or a split, who, when, what moved; undone
    by a later change that records its own who and when."""

    class Kind(models.TextChoices):
        MERGE = "merge", _("merge")
        SPLIT = "split", _("split")

    kind = models.CharField(_("change"), max_length=10, choices=Kind)
    # Merge: ``player`` kept, ``other`` merged into it. Split: ``player`` left, ``other``
    # the new player the drivers moved to.
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="changes", verbose_name=_("player")
    )
    other = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("other player")
    )
    drivers = models.JSONField(_("drivers moved"), default=list)  # driver ids
    reason = models.CharField(_("reason"), max_length=200, blank=True, default="")
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    created_at = models.DateTimeField(_("when"), auto_now_add=True)
    undone_at = models.DateTimeField(_("undone at"), null=True, blank=True)
    undone_by = models.CharField(_("undone by"), max_length=120, blank=True, default="")

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("change to players")
        verbose_name_plural = _("changes to players")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.player} / {self.other}"


class PlayerRating(models.Model):
    """A player's skill in one game family after every confirmed table (openskill,
    Plackett–Luce); ``rating`` is the conservative figure, mu − 3 sigma."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="ratings", verbose_name=_("player")
    )
    family = models.CharField(_("game"), max_length=50)
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField(_("rating"))
    races = models.PositiveIntegerField(_("races"), default=0)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["family", "-rating", "pk"]
        verbose_name = _("rating")
        verbose_name_plural = _("ratings")
        constraints = [
            models.UniqueConstraint(fields=["player", "family"], name="rating_one_per_family"),
        ]
        indexes = [models.Index(fields=["family", "-rating"], name="rating_ranking")]

    def __str__(self) -> str:
        return f"{self.player} {self.family}: {self.rating:.2f}"


class RatingPoint(models.Model):
    """A player's rating right after one table: the career chart's points."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="rating_points", verbose_name=_("player")
    )
    family = models.CharField(_("game"), max_length=50)
    # The processing order of the family's tables (event date, event, table number).
    seq = models.PositiveIntegerField()
    event = models.ForeignKey(
        "tournament.Event", on_delete=models.CASCADE, related_name="+", verbose_name=_("event")
    )
    table_number = models.PositiveSmallIntegerField(_("table"))
    place = models.PositiveSmallIntegerField(_("place"))
    mu = models.FloatField()
    sigma = models.FloatField()
    rating = models.FloatField(_("rating"))

    class Meta:
        ordering = ["player", "family", "seq"]
        verbose_name = _("rating after a table")
        verbose_name_plural = _("ratings after a table")
        indexes = [models.Index(fields=["player", "family", "seq"], name="rating_point_career")]

    def __str__(self) -> str:
        return f"{self.player} {self.family} #{self.seq}: {self.rating:.2f}"


class NotSamePlayer(models.Model):
    """Race control said two players proposed as one person are not ("Not the same"): the
    pair is not proposed again. Stored once per pair, the lower id first."""

    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("player")
    )
    other = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", verbose_name=_("other player")
    )
    actor = models.CharField(_("by"), max_length=120, blank=True, default="")
    created_at = models.DateTimeField(_("when"), auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("players not the same person")
        verbose_name_plural = _("players not the same person")
        constraints = [
            models.UniqueConstraint(fields=["player", "other"], name="not_same_player_once"),
            models.CheckConstraint(
                condition=models.Q(player__lt=models.F("other")), name="not_same_player_ordered"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.player} ≠ {self.other}"

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib import admin
from django.utils.translation import gettext_lazy as _
from simple_history.admin import SimpleHistoryAdmin

from races.results.services import results_rescore
from tournament.clubs.models import Club, GuestSeat, Invitation, Membership
from tournament.models import (
    Announcement,
    ApiToken,
    ArrivedPlayer,
    ArrivedRegistration,
    Championship,
    Checkout,
    Circuit,
    Driver,
    Entry,
    Event,
    IdempotencyKey,
    Mail,
    Message,
    NotSamePlayer,
    Player,
    PlayerChange,
    PlayerRating,
    RatingPoint,
    Registration,
    Sanction,
    Team,
)
from tournament.players.names import licence_key, name_key
from tournament.site.accounts.tokens import AccountRequest


class PointsScaleField(forms.CharField):
    """The points scale as race control writes it, "25 18 15 12", not raw JSON."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 400)
        kwargs.setdefault(
            "help_text",
            _("Points of the 1st, 2nd, 3rd… separated by dashes, spaces or commas."),
        )
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, list):
            return " ".join(str(points) for points in value)
        return value

    def to_python(self, value: Any) -> list[int]:  # type: ignore[override]
        tokens = [t for t in re.split(r"[\s,;\-–\[\]]+", str(value or "").strip()) if t]
        if not tokens:
            raise forms.ValidationError(_("Type the points of the 1st, 2nd, 3rd…"))
        if len(tokens) > 100:
            raise forms.ValidationError(_("At most 100 places score."))
        for token in tokens:
            if not re.fullmatch(r"[0-9]{1,4}", token):
                raise forms.ValidationError(
                    _("“%(value)s” is not a number of points (whole numbers, 0 or more)."),
                    params={"value": token},
                )
        return [int(token) for token in tokens]


class ChampionshipForm(forms.ModelForm):
    points_scale = PointsScaleField(label=_("points scale"))

    class Meta:
        model = Championship
        fields = "__all__"  # noqa: DJ007 (the admin's own form: every field, as before)


@admin.register(Championship)
class ChampionshipAdmin(SimpleHistoryAdmin):
    form = ChampionshipForm
    list_display = ("name", "season", "slug", "points_mode", "best_results")
    search_fields = ("name", "slug", "season")
    list_filter = ("season", "points_mode")
    filter_horizontal = ("organisers",)
    prepopulated_fields = {"slug": ("name", "season")}  # typed name and season make the slug

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        super().save_model(request, obj, form, change)
        if change and {"points_scale", "points_mode"} & set(form.changed_data):
            # Confirmed results take the new points at once, as from the scoring page.
            results_rescore(championship=obj)


@admin.register(Circuit)
class CircuitAdmin(admin.ModelAdmin):
    list_display = (
        "name",
        "slug",
        "laps",
        "rain_from",
        "rain_to",
        "variable_from",
        "variable_to",
        "sun_from",
        "sun_to",
    )
    search_fields = ("name", "slug")
    list_filter = ("laps",)


@admin.register(Club)
class ClubAdmin(SimpleHistoryAdmin):
    list_display = ("name", "slug", "created_at")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}


@admin.register(Membership)
class MembershipAdmin(SimpleHistoryAdmin):
    list_display = ("club", "user", "role", "since")
    search_fields = ("club__name", "club__slug", "user__username", "user__email")
    list_filter = ("role", "club")
    list_select_related = ("club", "user")


@admin.register(Invitation)
class InvitationAdmin(admin.ModelAdmin):
    """Invitations are sent by a club's owners (the secret goes by mail, only its digest is
    kept): the admin shows them and may withdraw one, never makes one."""

    list_display = ("email", "club", "role", "sent_at", "expires_at", "accepted_at", "withdrawn_at")
    search_fields = ("email", "club__name", "club__slug")
    list_filter = ("role", "club")
    list_select_related = ("club",)
    readonly_fields = ("digest", "invited_by", "sent_at", "accepted_at", "accepted_by")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(GuestSeat)
class GuestSeatAdmin(admin.ModelAdmin):
    """Who named a championship's guest organiser (the seat is the championship's
    "organisers"): read here, never made here."""

    list_display = ("user", "championship", "given_by", "given_at")
    search_fields = ("user__username", "championship__slug", "championship__name")
    list_select_related = ("user", "championship", "given_by")
    readonly_fields = ("championship", "user", "given_by", "given_at")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(AccountRequest)
class AccountRequestAdmin(admin.ModelAdmin):
    """A stranger's request for an account on a server open to clubs (its link's secret goes
    by mail, only its digest is kept): read here, never made nor changed here."""

    list_display = ("username", "created_at", "expires_at", "mailed_at", "confirmed_at")
    search_fields = ("username",)
    readonly_fields = (
        "username", "email", "language", "known_address", "created_at", "expires_at",
        "mailed_at", "confirmed_at",
    )  # fmt: skip
    exclude = ("password", "digest")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "championship")
    search_fields = ("name",)
    list_filter = ("championship",)


@admin.register(Driver)
class DriverAdmin(admin.ModelAdmin):
    list_display = ("number", "first_name", "last_name", "team", "championship", "email")
    search_fields = ("first_name", "last_name", "email", "=number")
    list_filter = ("championship", "team")
    list_select_related = ("team", "championship")
    raw_id_fields = ("player",)


class PlayerForm(forms.ModelForm):
    class Meta:
        model = Player
        fields = ("first_name", "last_name", "licence", "email")

    def clean_licence(self) -> str | None:
        """Stored stripped and upper case, None when empty (unique when given)."""
        return licence_key(self.cleaned_data.get("licence"))


@admin.register(Player)
class PlayerAdmin(admin.ModelAdmin):
    """A player's name, licence and e-mail; merges and splits go through race control's
    pages (recorded, undoable), never through here."""

    form = PlayerForm
    list_display = ("last_name", "first_name", "licence", "email", "merged_into", "created_at")
    search_fields = ("first_name", "last_name", "=licence", "email", "name_key")
    readonly_fields = ("name_key", "merged_into", "created_at")
    list_select_related = ("merged_into",)

    def save_model(self, request, obj, form, change):  # type: ignore[no-untyped-def]
        obj.name_key = name_key(obj.first_name, obj.last_name)
        super().save_model(request, obj, form, change)


class RecordAdmin(admin.ModelAdmin):
    """A record of race control's decisions on players: shown, never edited here (undo a
    change on its page, where the undo is recorded too)."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


@admin.register(PlayerChange)
class PlayerChangeAdmin(RecordAdmin):
    list_display = ("kind", "player", "other", "actor", "created_at", "undone_at", "undone_by")
    list_filter = ("kind",)
    search_fields = ("player__last_name", "other__last_name", "actor", "reason")
    list_select_related = ("player", "other")


@admin.register(NotSamePlayer)
class NotSamePlayerAdmin(RecordAdmin):
    list_display = ("player", "other", "actor", "created_at")
    search_fields = ("player__last_name", "other__last_name")
    list_select_related = ("player", "other")


@admin.register(PlayerRating)
class PlayerRatingAdmin(RecordAdmin):
    """Computed from the confirmed tables (standings.ratings): recompute, never edit."""

    list_display = ("player", "family", "rating", "mu", "sigma", "races", "updated_at")
    list_filter = ("family",)
    search_fields = ("player__last_name", "player__first_name")
    list_select_related = ("player",)


@admin.register(RatingPoint)
class RatingPointAdmin(RecordAdmin):
    list_display = ("player", "family", "seq", "event", "table_number", "place", "rating")
    list_filter = ("family",)
    search_fields = ("player__last_name", "player__first_name")
    list_select_related = ("player", "event")


@admin.register(Event)
class EventAdmin(admin.ModelAdmin):
    list_display = ("name", "date", "championship", "circuit", "game", "qualifying_mode")
    search_fields = ("name", "slug")
    list_filter = ("championship", "game", "qualifying_mode", "date")


@admin.register(Entry)
class EntryAdmin(SimpleHistoryAdmin):
    list_display = ("event", "driver", "checked_in", "registered_at")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "checked_in")
    list_select_related = ("event", "driver")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "created_at")
    search_fields = ("user__username",)
    list_filter = ("created_at",)
    readonly_fields = ("digest",)


@admin.register(Sanction)
class SanctionAdmin(SimpleHistoryAdmin):
    """Sanctions are recorded and withdrawn on the sanctions page or through the API, each
    with its reason (§1-2-3); the admin shows them and their history, and edits nothing."""

    list_display = ("event", "driver", "kind", "value", "reason", "actor", "created_at")
    list_filter = ("kind",)
    search_fields = ("driver__last_name", "reason", "event__name")

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


# Before the day, the event away, writes sent twice: shown here, changed on their own pages
# (the desk's registrations, its check-out), where each change is recorded with its reason.
@admin.register(Announcement)
class AnnouncementAdmin(RecordAdmin):
    list_display = ("event", "capacity", "opens_at", "closes_at", "approval")


@admin.register(Registration)
class RegistrationAdmin(RecordAdmin):
    list_display = ("event", "first_name", "last_name", "status", "confirmed_at")
    list_filter = ("status",)
    search_fields = ("first_name", "last_name")


@admin.register(Message)
class MessageAdmin(RecordAdmin):
    list_display = ("event", "to", "subject", "at", "queued")


@admin.register(Mail)
class MailAdmin(RecordAdmin):
    list_display = ("registration", "kind", "state", "attempts", "sent_at")
    list_filter = ("kind", "state")


@admin.register(Checkout)
class CheckoutAdmin(RecordAdmin):
    list_display = ("event", "side", "uid", "at", "cancelled_at", "returned_at")
    exclude = ("key",)


@admin.register(ArrivedRegistration)
class ArrivedRegistrationAdmin(RecordAdmin):
    list_display = ("registration", "hosted_id")


@admin.register(ArrivedPlayer)
class ArrivedPlayerAdmin(RecordAdmin):
    list_display = ("player", "hosted_id")


@admin.register(IdempotencyKey)
class IdempotencyKeyAdmin(RecordAdmin):
    list_display = ("method", "path", "status", "created_at")
    exclude = ("response",)

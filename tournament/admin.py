from __future__ import annotations

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from races.results.services import results_rescore
from tournament.models import (
    ApiToken,
    Championship,
    Circuit,
    Driver,
    Entry,
    Event,
    Sanction,
    Team,
)


@admin.register(Championship)
class ChampionshipAdmin(SimpleHistoryAdmin):
    list_display = ("name", "season", "slug", "points_mode", "best_results")
    search_fields = ("name", "slug", "season")
    list_filter = ("season", "points_mode")
    filter_horizontal = ("organisers",)

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

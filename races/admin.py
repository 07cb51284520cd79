from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.admin import SimpleHistoryAdmin

from qualifying.admin import WorkflowAdmin
from races.models import (
    AllocationRecord,
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceResult,
    RaceTable,
    RaceWeather,
    RaceWeatherDraw,
    ReplacedLink,
    ResultLine,
    ResultStatus,
    SheetBatch,
    SheetPhoto,
    Stage,
    StageTime,
    WeatherDraw,
)
from tournament.sealing import link_digest


def _in_ink(table: RaceTable | None) -> bool:
    """True for a table whose stands and configurations are written in ink (§5-0-2): the
    race started there or its result is confirmed. Race control unlocks it, with a reason."""
    return table is not None and (
        table.started_at is not None or table.result_status == ResultStatus.CONFIRMED
    )


class InkAdmin(SimpleHistoryAdmin):
    """Stands and configurations: editable here while the table has not started, read-only
    once they are in ink (unlock the table on its page, with a reason)."""

    def table_of(self, obj: Any) -> RaceTable | None:
        return None if obj is None else obj.table

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not _in_ink(self.table_of(obj)) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not _in_ink(self.table_of(obj)) and super().has_delete_permission(request, obj)


class ReadOnlyAdmin(SimpleHistoryAdmin):
    """What has a workflow changes through it only (results: save, submit, confirm, reopen
    with a reason; the race weather and the table draws: drawn, redrawn or undone with a
    reason), never behind it: the admin shows them and their history, and edits nothing
    (DOMAIN.md, "The admin is no side door")."""

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False


class SlotInline(admin.TabularInline):
    model = GridSlot
    extra = 0
    fields = ("position", "driver", "rank", "stand", "swapped")
    raw_id_fields = ("driver",)

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not _in_ink(obj) and super().has_change_permission(request, obj)

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not _in_ink(obj) and super().has_add_permission(request, obj)

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not _in_ink(obj) and super().has_delete_permission(request, obj)


@admin.register(RaceTable)
class RaceTableAdmin(SimpleHistoryAdmin):
    list_display = (
        "event",
        "number",
        "referee_name",
        "weather",
        "track",
        "weather_fixed",
        "result_status",
    )
    search_fields = ("event__name", "referee_name")
    list_filter = ("event", "result_status", "weather")
    inlines = [SlotInline]
    # The weather (drawn, §3-2), the start (§5-0-2) and the result's state have their
    # workflow on the table's page: shown here, never edited.
    readonly_fields = (
        "weather",
        "track",
        "weather_fixed",
        "last_draw",
        "started_at",
        "started_by",
        "unlock_reason",
        "result_status",
    )


@admin.register(GridSlot)
class GridSlotAdmin(InkAdmin):
    list_display = ("table", "position", "driver", "rank", "stand", "swapped")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "swapped")
    list_select_related = ("table", "driver")


@admin.register(CarConfiguration)
class CarConfigurationAdmin(InkAdmin):
    list_display = (
        "slot",
        "tyres",
        "brakes",
        "gearbox",
        "body",
        "engine",
        "road_holding",
        "stand_points",
    )
    search_fields = ("slot__driver__last_name", "=slot__driver__number")
    list_filter = ("slot__event",)

    def table_of(self, obj: Any) -> RaceTable | None:
        return None if obj is None else obj.slot.table

    def has_add_permission(self, request):  # type: ignore[no-untyped-def]
        return False  # a configuration is written at its table (§5), in grid order


@admin.register(RaceWeather)
class RaceWeatherAdmin(ReadOnlyAdmin):
    list_display = ("event", "roll", "source", "weather")
    search_fields = ("event__name",)
    list_filter = ("weather", "source")


@admin.register(WeatherDraw)
class WeatherDrawAdmin(ReadOnlyAdmin):
    list_display = ("table", "number", "roll", "drawn", "weather", "track", "fixed", "actor")
    search_fields = ("table__event__name",)
    list_filter = ("table__event", "drawn", "fixed")


@admin.register(SheetPhoto)
class SheetPhotoAdmin(ReadOnlyAdmin):
    """Photos of the signed sheets, to read: they are sent, matched and replaced through
    the referee's page and the results desk, where their history is kept."""

    list_display = ("event", "table", "qualifying_table", "source", "sent_by", "sent_at")
    search_fields = ("event__name", "original_name", "sent_by")
    list_filter = ("source", "sent_at")


@admin.register(AllocationRecord)
class AllocationRecordAdmin(admin.ModelAdmin):
    list_display = ("event", "table_size", "created_at", "actor")
    search_fields = ("event__name",)
    list_filter = ("created_at",)


@admin.register(ManualSwap)
class ManualSwapAdmin(admin.ModelAdmin):
    list_display = (
        "event",
        "driver_a",
        "table_a",
        "driver_b",
        "table_b",
        "reason",
        "actor",
        "created_at",
    )
    search_fields = ("reason", "driver_a__last_name", "driver_b__last_name")
    list_filter = ("event",)


@admin.register(ReplacedLink)
class ReplacedLinkAdmin(admin.ModelAdmin):
    list_display = ("kind", "table_id", "replaced_at")
    search_fields = ("digest",)
    list_filter = ("kind",)

    def get_search_results(
        self, request: HttpRequest, queryset: QuerySet, search_term: str
    ) -> tuple[QuerySet, bool]:
        """Only digests are kept: a pasted link (or its secret) is found by its digest."""
        term = search_term.strip()
        if not term:
            return queryset, False
        secret = term.rstrip("/").rsplit("/", 1)[-1]
        return queryset.filter(digest__in={link_digest(secret), term}), False


@admin.register(SheetBatch)
class SheetBatchAdmin(admin.ModelAdmin):
    list_display = ("event", "kind", "status", "done", "total", "updated_at")
    search_fields = ("event__name",)
    list_filter = ("kind", "status")
    exclude = ("pdf",)


@admin.register(RaceResult)
class RaceResultAdmin(ReadOnlyAdmin):
    list_display = ("table", "version", "submitted_at", "confirmed_at", "confirmed_by")
    search_fields = ("table__event__name",)
    list_filter = ("table__event", "table__result_status")
    list_select_related = ("table__event", "confirmed_by")


@admin.register(ResultLine)
class ResultLineAdmin(admin.ModelAdmin):
    list_display = ("event", "table", "position", "rank", "driver", "status", "cause", "points")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "status", "cause")
    list_select_related = ("event", "table", "driver")

    has_add_permission = ReadOnlyAdmin.has_add_permission
    has_change_permission = ReadOnlyAdmin.has_change_permission
    has_delete_permission = ReadOnlyAdmin.has_delete_permission


class StageTimeInline(admin.TabularInline):
    """A stage's times, shown with it and changed on their page only (StageTimeAdmin)."""

    model = StageTime
    extra = 0
    fields = ("driver", "chrono", "seconds_held", "retired", "splits")
    readonly_fields = fields

    has_add_permission = ReadOnlyAdmin.has_add_permission
    has_change_permission = ReadOnlyAdmin.has_change_permission
    has_delete_permission = ReadOnlyAdmin.has_delete_permission


@admin.register(Stage)
class StageAdmin(WorkflowAdmin):
    """Stages are made on the rally desk, their snow drawn there (a second draw with a
    reason, DOMAIN.md's rally snow); their times rescore the rally."""

    list_display = ("event", "number", "route", "service_after")
    search_fields = ("event__name", "route")
    list_filter = ("event", "service_after")
    inlines = [StageTimeInline]
    workflow_what = gettext_lazy("special stages and their snow")

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        return reverse("rally-desk", args=[obj.event.slug]), _("the rally desk")


@admin.register(StageTime)
class StageTimeAdmin(WorkflowAdmin):
    """Times are written on the stage's page, which stores the rally's places and points
    again (``rally_results_store``): never here, where nothing would rescore."""

    list_display = ("stage", "driver", "chrono", "seconds_held", "retired")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("stage__event", "retired")
    list_select_related = ("stage", "driver")
    workflow_what = gettext_lazy("stage times")

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        stage = obj.stage
        url = reverse("rally-stage-times", args=[stage.event.slug, stage.number])
        return url, _("the times page of %(stage)s") % {"stage": stage}


@admin.register(RaceWeatherDraw)
class RaceWeatherDrawAdmin(ReadOnlyAdmin):
    """Every draw of the race weather stays listed (§2-0-1); a new one is drawn with a
    reason on the allocation page, never edited here."""

    list_display = ("event", "number", "roll", "weather", "reason")

from __future__ import annotations

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from races.models import (
    AllocationRecord,
    CarConfiguration,
    GridSlot,
    ManualSwap,
    RaceTable,
    RaceWeather,
    ReplacedLink,
    SheetBatch,
    WeatherDraw,
)


class SlotInline(admin.TabularInline):
    model = GridSlot
    extra = 0
    fields = ("position", "driver", "rank", "stand", "swapped")
    raw_id_fields = ("driver",)


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


@admin.register(GridSlot)
class GridSlotAdmin(SimpleHistoryAdmin):
    list_display = ("table", "position", "driver", "rank", "stand", "swapped")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "swapped")
    list_select_related = ("table", "driver")


@admin.register(CarConfiguration)
class CarConfigurationAdmin(SimpleHistoryAdmin):
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


@admin.register(RaceWeather)
class RaceWeatherAdmin(SimpleHistoryAdmin):
    list_display = ("event", "roll", "source", "weather")
    search_fields = ("event__name",)
    list_filter = ("weather", "source")


@admin.register(WeatherDraw)
class WeatherDrawAdmin(admin.ModelAdmin):
    list_display = ("table", "number", "roll", "drawn", "weather", "track", "fixed", "actor")
    search_fields = ("table__event__name",)
    list_filter = ("table__event", "drawn", "fixed")


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
    search_fields = ("token",)
    list_filter = ("kind",)


@admin.register(SheetBatch)
class SheetBatchAdmin(admin.ModelAdmin):
    list_display = ("event", "kind", "status", "done", "total", "updated_at")
    search_fields = ("event__name",)
    list_filter = ("kind", "status")
    exclude = ("pdf",)

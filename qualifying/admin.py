from __future__ import annotations

from django.contrib import admin
from simple_history.admin import SimpleHistoryAdmin

from qualifying.models import DrawRoll, QualifyingSeat, QualifyingSession, QualifyingTable, Run


@admin.register(QualifyingSession)
class QualifyingSessionAdmin(SimpleHistoryAdmin):
    list_display = ("event", "number", "roll", "source", "weather", "track")
    search_fields = ("event__name",)
    list_filter = ("event", "weather", "track")


class SeatInline(admin.TabularInline):
    model = QualifyingSeat
    extra = 0
    fields = ("driver", "order")
    raw_id_fields = ("driver",)


@admin.register(QualifyingTable)
class QualifyingTableAdmin(admin.ModelAdmin):
    list_display = ("event", "number", "referee_name", "referee")
    search_fields = ("event__name", "referee_name")
    list_filter = ("event",)
    inlines = [SeatInline]

    def save_formset(self, request, form, formset, change):  # type: ignore[no-untyped-def]
        for seat in formset.save(commit=False):
            seat.event = form.instance.event
            seat.save()
        formset.save_m2m()
        for seat in formset.deleted_objects:
            seat.delete()


@admin.register(Run)
class RunAdmin(SimpleHistoryAdmin):
    list_display = (
        "session",
        "driver",
        "tyres",
        "throws",
        "placement_errors",
        "exit_squares",
        "stopwatch",
        "eliminated",
        "cancelled",
        "version",
    )
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("session__event", "session", "tyres", "eliminated", "cancelled")
    list_select_related = ("session", "driver")


@admin.register(DrawRoll)
class DrawRollAdmin(SimpleHistoryAdmin):
    list_display = ("event", "driver", "rolls", "source")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "source")


@admin.register(QualifyingSeat)
class QualifyingSeatAdmin(admin.ModelAdmin):
    list_display = ("table", "driver")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("table__event",)
    list_select_related = ("table", "driver")

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from simple_history.admin import SimpleHistoryAdmin

from qualifying.closure import qualifying_closed
from qualifying.models import DrawRoll, QualifyingSeat, QualifyingSession, QualifyingTable, Run


class WorkflowAdmin(SimpleHistoryAdmin):
    """What has a workflow, with its reasons and its rescore, changes there, never behind it
    (DOMAIN.md, "The admin is no side door"): shown here with its history, read-only once
    ``locked``, and its change page says which page changes it."""

    #: What the workflow changes, in words ("runs once the race tables exist").
    workflow_what: Any = ""

    def locked(self, obj: Any) -> bool:
        """True when ``obj`` (None: the model as a whole) may not change here."""
        return True

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        """The page that changes ``obj``: its URL and its name in words."""
        raise NotImplementedError

    def has_add_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return False

    def has_change_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not self.locked(obj) and super().has_change_permission(request, obj)

    def has_delete_permission(self, request, obj=None):  # type: ignore[no-untyped-def]
        return not self.locked(obj) and super().has_delete_permission(request, obj)

    def change_view(self, request, object_id, form_url="", extra_context=None):  # type: ignore[no-untyped-def]
        obj = self.get_object(request, unquote(object_id))
        if request.method == "GET" and obj is not None and self.locked(obj):
            self.message_user(request, self.pointer(obj), messages.INFO)
        return super().change_view(request, object_id, form_url, extra_context)

    def pointer(self, obj: Any) -> str:
        """ "Read-only here: … change on <a>the page</a> …", escaped but for the link."""
        url, page = self.workflow_page(obj)
        text = _(
            "Read-only here: %(what)s change on %(page)s, where a change after the fact "
            "needs its reason and is recorded."
        )
        return mark_safe(  # noqa: S308 - every piece is escaped above the link's own markup
            conditional_escape(text)
            % {
                "what": conditional_escape(self.workflow_what),
                "page": format_html('<a href="{}" class="workflow-page">{}</a>', url, page),
            }
        )


def event_desk(event: Any) -> tuple[str, str]:
    return reverse("event-desk", args=[event.slug]), _("the event's desk")


@admin.register(QualifyingSession)
class QualifyingSessionAdmin(WorkflowAdmin):
    """A session opens on the desk with its weather drawn once, for good (§1-0-3)."""

    list_display = ("event", "number", "roll", "source", "weather", "track")
    search_fields = ("event__name",)
    list_filter = ("event", "weather", "track")
    workflow_what = gettext_lazy("qualifying sessions and their weather")

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        return event_desk(obj.event)


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
class RunAdmin(WorkflowAdmin):
    """A run is recorded at its qualifying table; once the race tables exist, race control
    corrects it there with a reason and is told whose ranks moved (qualifying.closure)."""

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
    workflow_what = gettext_lazy("runs once the race tables exist")

    def locked(self, obj: Any) -> bool:
        return obj is not None and qualifying_closed(event=obj.session.event)

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        return event_desk(obj.session.event)


@admin.register(DrawRoll)
class DrawRollAdmin(WorkflowAdmin):
    """The quick rules' d20 rolls come through the draw, closed by the allocation (a roll
    then needs race control's reason, qualifying.services.draw_record)."""

    list_display = ("event", "driver", "rolls", "source")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("event", "source")
    workflow_what = gettext_lazy("d20 rolls")

    def workflow_page(self, obj: Any) -> tuple[str, str]:
        return reverse("allocation", args=[obj.event.slug]), _(
            "the race tables' page (the draw itself: POST /api/v1/events/%(event)s/draw)"
        ) % {"event": obj.event.slug}


@admin.register(QualifyingSeat)
class QualifyingSeatAdmin(admin.ModelAdmin):
    list_display = ("table", "driver")
    search_fields = ("driver__first_name", "driver__last_name", "=driver__number")
    list_filter = ("table__event",)
    list_select_related = ("table", "driver")

"""django-tables2 tables of the qualifying classifications (sortable, CSV/XLSX export)."""

from __future__ import annotations

from typing import Any

import django_tables2 as tables
from django.utils.translation import gettext_lazy as _

STATUS_LABELS = {
    "ok": _("classified"),
    "eliminated": _("eliminated"),
    "incomplete": _("incomplete"),
    "no_run": _("no run"),
}


class ClassificationTable(tables.Table):
    rank = tables.Column(verbose_name=_("Rank"))
    number = tables.Column(verbose_name=_("No."))
    name = tables.Column(verbose_name=_("Driver"))
    team = tables.Column(verbose_name=_("Team"), default="—")
    absolute_time = tables.Column(verbose_name=_("Absolute time"), default="—")
    throws = tables.Column(verbose_name=_("Throws"), default="")
    placement = tables.Column(verbose_name=_("Placement (×10)"), default="")
    corner_exits = tables.Column(verbose_name=_("Corner exits"), default="")
    minutes = tables.Column(verbose_name=_("Minutes"), default="")
    stopwatch = tables.Column(verbose_name=_("Stopwatch"), default="—")
    session = tables.Column(verbose_name=_("Session"), default="—")
    status = tables.Column(verbose_name=_("Status"))

    class Meta:
        attrs = {"class": "striped", "id": "classification"}
        order_by = ("rank",)
        row_attrs = {"data-number": lambda record: record["number"]}

    def render_status(self, value: str) -> str:
        return str(STATUS_LABELS.get(value, value))

    def value_status(self, value: str) -> str:
        return str(STATUS_LABELS.get(value, value))

    @classmethod
    def from_lines(cls, lines: list[Any], **kwargs: Any) -> ClassificationTable:
        rows = []
        for line in lines:
            b = line.breakdown
            rows.append(
                {
                    "rank": line.rank,
                    "number": line.driver.number,
                    "name": line.driver.name,
                    "team": line.driver.team.name if line.driver.team else None,
                    "absolute_time": line.absolute_time,
                    "throws": b.throws if b else None,
                    "placement": b.placement if b else None,
                    "corner_exits": b.corner_exits if b else None,
                    "minutes": b.minutes if b else None,
                    "stopwatch": line.stopwatch,
                    "session": line.session,
                    "status": line.status,
                }
            )
        return cls(rows, **kwargs)

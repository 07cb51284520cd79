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


#: Hidden on a phone until "All columns" is tapped: the rank, driver, absolute time,
#: stopwatch and status stay in view (static/css/paddock.css).
LOW = {"th": {"class": "prio-low"}, "td": {"class": "prio-low"}}


class ClassificationTable(tables.Table):
    rank = tables.Column(verbose_name=_("Rank"))
    number = tables.Column(verbose_name=_("No."), attrs=LOW)
    name = tables.Column(verbose_name=_("Driver"))
    team = tables.Column(verbose_name=_("Team"), default="—", attrs=LOW)
    absolute_time = tables.Column(verbose_name=_("Absolute time"), default="—")
    throws = tables.Column(verbose_name=_("Throws"), default="", attrs=LOW)
    placement = tables.Column(verbose_name=_("Placement (×10)"), default="", attrs=LOW)
    corner_exits = tables.Column(verbose_name=_("Corner exits"), default="", attrs=LOW)
    minutes = tables.Column(verbose_name=_("Minutes"), default="", attrs=LOW)
    # Throws the organisers added (§1-2-3): a column only when a sanction added any.
    sanction = tables.Column(verbose_name=_("Sanction (throws)"), default="", attrs=LOW)
    # In view on a phone too: the stopwatch decides equal absolute times (§1-1-15).
    stopwatch = tables.Column(verbose_name=_("Stopwatch"), default="—")
    session = tables.Column(verbose_name=_("Session"), default="—", attrs=LOW)
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
                    "name": line.driver.public_name,  # a public page and its exports
                    "team": line.driver.team.name if line.driver.team else None,
                    "absolute_time": line.absolute_time,
                    "throws": b.throws if b else None,
                    "placement": b.placement if b else None,
                    "corner_exits": b.corner_exits if b else None,
                    "minutes": b.minutes if b else None,
                    "sanction": f"+{b.sanction}" if b and b.sanction else None,
                    "stopwatch": line.stopwatch,
                    "session": line.session,
                    "status": line.status,
                }
            )
        if not any(row["sanction"] for row in rows):
            kwargs["exclude"] = (*kwargs.get("exclude", ()), "sanction")
        return cls(rows, **kwargs)

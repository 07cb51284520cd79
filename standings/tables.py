"""django-tables2 tables of results and standings (sortable, CSV/XLSX export).

Rows are plain dicts built from the selectors' values: no query happens while a table
renders, so a page costs the same number of queries at 10 drivers as at 200. Drivers are
named as they chose to be shown (``Driver.public_name``): these pages and their exports are
the public's.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any

import django_tables2 as tables
from django.urls import reverse
from django.utils.formats import localize
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import mark_safe
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _
from django_tables2.utils import signature

# Short marks for a driver who scored nothing at an event, beside the points.
STATUS_MARKS = {
    "retired": (_("ret."), _("Retired")),
    "dns": (_("DNS"), _("Did not start")),
    "dsq": (_("DSQ"), _("Disqualified by the organisers (§1-2-3)")),
}


def place_mark(position: int | None, status: str) -> tuple[str, str]:
    """The short place written beside points ("P2", "ret.") and its long form."""
    if status in STATUS_MARKS:
        short, long = STATUS_MARKS[status]
        return str(short), str(long)
    if position is None:
        return "", ""
    return (
        gettext("P%(position)s") % {"position": position},
        gettext("Position %(position)s at the table") % {"position": position},
    )


def retirement_words(status: str, cause_display: str, lap: int | None, note: str) -> str:
    """ "Engine, lap 2", "Other, lap 1: disqualified": the cause in words; a finisher's
    note as it is ("engine broken on the last lap", §16-0-6)."""
    if status == "finished":
        return note
    if status != "retired":
        return ""
    words = cause_display
    if lap:
        words = gettext("%(cause)s, lap %(lap)s") % {"cause": words, "lap": lap}
    if note:
        words = f"{words}: {note}"
    return words


# On a phone the team gives way to the points (it is on the driver's page anyway).
#: A column a phone hides until "All columns" is tapped (static/css/paddock.css).
PRIORITY_LOW = {"class": "prio-low"}
NARROW_HIDDEN = PRIORITY_LOW


def _caller(fn: Any) -> Any:
    """django-tables2's ``call_with_appropriate(fn, kwargs)``, its signature read once."""
    names, catch_all = signature(fn)
    if catch_all:
        return lambda kwargs: fn(**kwargs)

    def call(kwargs: dict[str, Any]) -> Any:
        if any(name not in kwargs for name in names):
            return None
        return fn(**{name: kwargs[name] for name in names})

    return call


def _linker(link: Any) -> Any:
    """A column's ``linkify`` as django-tables2 applies it to a cell's content."""
    if link.attrs or not callable(link.url):
        return lambda content, kwargs: link(content, **kwargs)
    url = _caller(link.url)

    def apply(content: Any, kwargs: dict[str, Any]) -> Any:
        href = url(kwargs)
        if href is None:
            return content
        # format_html('<a href="{}">{}</a>', href, content), without its wrappers' cost.
        return mark_safe(f'<a href="{_escaped(href)}">{_escaped(content)}</a>')  # noqa: S308

    return apply


#: What django-tables2's ``table.html`` prints for a row (its loop's and its row block's
#: white space around the ``<tr>``): the standings' rows come prebuilt in one string.
ROW_HTML = (
    "\n                    \n                    "
    '<tr data-number="{}" class="{}">{}</tr>\n\n                '
)


def _escaped(value: Any) -> str:
    """``conditional_escape(value)``; plain text escaped at once (Django's ``escape`` is the
    same ``html.escape``, behind a wrapper that looks for lazy arguments)."""
    if type(value) is str:
        return html.escape(value)
    return conditional_escape(value)


def _cell_text() -> Any:
    """A function printing a cell's content as ``{{ cell }}`` does: localized, escaped.

    An integer's text is worked out once for all when the language groups no thousands
    (``str(n)`` then, as ``numberformat.format`` gives it), else once per value; text is
    escaped unless already safe; anything else localized once per value.
    """
    grouped = localize(1234567) != "1234567"
    known: dict[tuple[type, Any], str] = {}

    def text(value: Any) -> str:
        kind = type(value)
        if kind is str or isinstance(value, str):  # localize() leaves text as it is
            return _escaped(value)
        if kind is int and not grouped:
            return str(value)
        key = (kind, value)
        if key not in known:
            known[key] = conditional_escape(localize(value))
        return known[key]

    return text


# --- Day classification of an event -----------------------------------------------------------


class EventResultTable(tables.Table):
    # On a phone: rank, place at the table, driver and points; the rest behind a tap.
    rank = tables.Column(verbose_name=_("Rank"))
    table = tables.Column(verbose_name=_("Table"), attrs={"th": PRIORITY_LOW, "td": PRIORITY_LOW})
    position = tables.Column(
        verbose_name=_("Pos."), attrs={"th": {"title": _("Position at the table")}}
    )
    number = tables.Column(verbose_name=_("No."), attrs={"th": PRIORITY_LOW, "td": PRIORITY_LOW})
    name = tables.Column(verbose_name=_("Driver"))
    team = tables.Column(
        verbose_name=_("Team"), default="—", attrs={"th": NARROW_HIDDEN, "td": NARROW_HIDDEN}
    )
    status = tables.Column(verbose_name=_("Status"), attrs={"th": PRIORITY_LOW, "td": PRIORITY_LOW})
    # Shown under the status on the page (narrow phones), a column of its own in exports.
    retirement = tables.Column(
        verbose_name=_("Retirement"), default="", orderable=False, visible=False
    )
    # The organisers' sanctions (§1-2-3), under the status on the page.
    sanction = tables.Column(verbose_name=_("Sanction"), default="", orderable=False, visible=False)
    points = tables.Column(verbose_name=_("Points"), attrs={"td": {"class": "num"}})

    class Meta:
        attrs = {"class": "striped results", "id": "event-results"}
        order_by = ("rank",)
        row_attrs = {
            "data-number": lambda record: record["number"],
            "class": lambda record: f"status-{record['status_code']}",
        }

    def render_name(self, value: str, record: dict) -> Any:
        if not record.get("url"):
            return value
        return format_html('<a href="{}">{}</a>', record["url"], value)

    def value_name(self, value: str) -> str:
        return value

    def render_status(self, value: str, record: dict) -> Any:
        html = format_html("{}", value)
        if record["retirement"]:
            html += format_html("<br><small>{}</small>", record["retirement"])
        if record.get("sanction"):
            html += format_html(
                '<br><small class="sanction-mark">{}</small>',
                gettext("Sanction: %(what)s") % {"what": record["sanction"]},
            )
        return html

    def render_points(self, value: int, record: dict) -> Any:
        if not record.get("removed"):
            return value
        return format_html(
            '{} <small class="sanction-mark" title="{}">(−{})</small>',
            value,
            gettext("%(points)s point(s) removed by a sanction (§1-2-3)")
            % {"points": record["removed"]},
            record["removed"],
        )

    def value_points(self, value: int) -> int:
        return value

    def value_status(self, value: str) -> str:
        return value

    @classmethod
    def from_lines(
        cls,
        lines: Iterable[Any],
        *,
        driver_url: Any = None,
        sanctions: dict[int, str] | None = None,
        **kwargs: Any,
    ) -> EventResultTable:
        """``lines`` are ResultLine objects with driver, team and table selected;
        ``sanctions`` the sanctions in force in words, by driver id."""
        rows = []
        for line in lines:
            driver = line.driver
            rows.append(
                {
                    "rank": line.rank,
                    "table": line.table.number,
                    "position": line.position,
                    "number": driver.number,
                    "name": driver.public_name,
                    "team": driver.team.name if driver.team else None,
                    "status": line.get_status_display(),
                    "status_code": line.status,
                    "retirement": retirement_words(
                        line.status, line.get_cause_display(), line.lap, line.note
                    ),
                    "points": line.points,
                    "removed": line.points_removed,
                    "sanction": (sanctions or {}).get(driver.pk, ""),
                    "url": driver_url(driver) if driver_url else "",
                }
            )
        return cls(rows, **kwargs)


# --- Championship standings -------------------------------------------------------------------


class EventPointsColumn(tables.Column):
    """One event's points of each driver: "18 P2", "(6) P4" when not counted (best-K).

    Sorted by points, a driver absent from the event after every driver with a result.
    Exported as the points alone (a number, in parentheses when not counted); the place
    goes to its own export-only column.
    """

    def __init__(self, key: str, **kwargs: Any) -> None:
        self.key = key
        super().__init__(
            accessor=f"{key}__points",
            order_by=(f"{key}__sort",),
            default="—",
            attrs={"td": {"class": "num prio-low"}, "th": {"class": "num prio-low"}},
            **kwargs,
        )

    def render(self, value: int, record: dict) -> Any:
        cell = record[self.key]
        short, long = place_mark(cell["position"], cell["status"])
        points = str(value) if cell["counted"] else f"({value})"
        title = long if cell["counted"] else gettext("%(place)s, not counted") % {"place": long}
        html = format_html(
            '<span class="{}">{}</span> <small class="place" title="{}">{}</small>',
            "pts" if cell["counted"] else "pts not-counted",
            points,
            title,
            short,
        )
        removed = cell.get("removed")
        if removed:
            html += format_html(
                ' <small class="sanction-mark" title="{}">−{}</small>',
                gettext("%(points)s point(s) removed by a sanction (§1-2-3)") % {"points": removed},
                removed,
            )
        return html

    def value(self, value: int, record: dict) -> Any:
        return value if record[self.key]["counted"] else f"({value})"


class StandingsTable(tables.Table):
    # On a phone: rank, driver and points; the number, team and events behind a tap.
    rank = tables.Column(verbose_name=_("Rank"))
    number = tables.Column(verbose_name=_("No."), attrs={"th": PRIORITY_LOW, "td": PRIORITY_LOW})
    name = tables.Column(
        verbose_name=_("Driver"),
        linkify=lambda record: record["url"],
        attrs={"td": {"class": "driver"}},
    )
    team = tables.Column(
        verbose_name=_("Team"), default="—", attrs={"th": NARROW_HIDDEN, "td": NARROW_HIDDEN}
    )
    total = tables.Column(
        verbose_name=_("Points"), attrs={"td": {"class": "num total"}, "th": {"class": "num"}}
    )

    class Meta:
        attrs = {"class": "striped standings", "id": "standings"}
        order_by = ("rank",)
        row_attrs = {"data-number": lambda record: record["number"]}
        # django-tables2's own table.html, its rows printed from ``body_rows`` (before_render).
        template_name = "standings/_standings_table.html"

    def before_render(self, request: Any) -> None:
        """Every row as HTML, in one string (``body_rows``), built here once the visible
        columns and the order are final.

        The same markup as django-tables2's ``table.html`` prints row by row (each cell:
        accessor, empty values → default, the column's ``render`` and link, localized and
        escaped; the row's ``Meta.row_attrs`` and even/odd class), without its generic
        cost per cell and per row: at 1,000 drivers and 10 events that was most of the
        page's time. What does not depend on the row is worked out once per column
        (``td`` attributes, the default's cell, which arguments the render and link
        functions take); an event cell depends only on its points, place, counted flag and
        sanction, so it is rendered once per such combination; an integer is localized
        once for all when the language groups no thousands (:func:`_cell_text`).

        A paginated table, or one without rows, is left to django-tables2's own template
        (``body_rows`` None).
        """
        self.body_rows = None
        if hasattr(self, "page") or not self.data:
            return
        if set(self.row_attrs) != {"data-number"}:
            return  # other row attributes: django-tables2 prints them
        number = _caller(self.row_attrs["data-number"])
        text = _cell_text()
        event_cells: dict[Any, dict[int, str]] = {}
        writers = [self._cell_writer(bound, text, event_cells) for bound in self.columns]
        rows = []
        for index, record in enumerate(self.data):
            rows.append(
                ROW_HTML.format(
                    text(number({"record": record, "table": self})),
                    "odd" if index % 2 else "even",
                    "".join([write(record) for write in writers]),
                )
            )
        self.body_rows = mark_safe("".join(rows))  # noqa: S308 - every value escaped by text()

    def _cell_writer(self, bound: Any, text: Any, event_cells: dict[Any, dict[int, str]]) -> Any:
        """A function of a record giving its cell of the column ``bound``: ``<td ...>...</td>``.
        ``event_cells``: the event columns' cells already printed, shared between them."""
        column = bound.column
        td = f"<td {bound.attrs['td'].as_html()}>"
        empty = column.empty_values
        default = f"{td}{text(bound.default)}</td>"
        if isinstance(column, EventPointsColumn):
            key = column.key
            # By the cell's identity: from_standings shares one dict per distinct cell, and
            # every event column prints it alike (its render reads only the cell).
            rendered = event_cells.setdefault((td, default), {})

            def event_cell(record: dict) -> str:
                cell = record[key]
                html = rendered.get(id(cell))
                if html is None:
                    value = cell.get("points")
                    if value in empty:
                        html = default
                    else:
                        html = f"{td}{text(column.render(value, record))}</td>"
                    rendered[id(cell)] = html
                return html

            return event_cell
        path = bound.accessor.split(bound.accessor.SEPARATOR)
        plain = getattr(bound.render, "__func__", None) is tables.Column.render
        if plain and not bound.link and len(path) == 1:
            (name,) = path

            def plain_cell(record: dict) -> str:
                value = record.get(name) if isinstance(record, dict) else None
                if value in empty:
                    return default
                return f"{td}{text(value)}</td>"

            return plain_cell
        render = None if plain else _caller(bound.render)  # Column.render: the value
        link = _linker(bound.link) if bound.link else None
        table = self

        def cell(record: dict) -> str:
            value: Any = record
            for part in path:
                value = value.get(part) if isinstance(value, dict) else None
            if value in empty:
                return default
            kwargs = {"value": value, "record": record, "table": table, "bound_column": bound}
            content = value if render is None else render(kwargs)
            if link is not None:
                content = link(content, kwargs)
            return f"{td}{text(content)}</td>"

        return cell

    @classmethod
    def from_standings(cls, standings: Any, *, driver_url: Any, **kwargs: Any) -> StandingsTable:
        """One column per event of ``standings.events``, then export-only place columns."""
        extra: list[tuple[str, tables.Column]] = []
        for event in standings.events:
            extra.append(
                (f"e{event.pk}", EventPointsColumn(f"e{event.pk}", verbose_name=event.name))
            )
        if any(line.points_removed for line in standings.lines):
            # §1-2-3: points sanctions, off the total after best-K (DOMAIN.md): their column.
            extra.append(
                (
                    "removed",
                    tables.Column(
                        verbose_name=gettext("Points removed"),
                        default="",
                        attrs={"td": {"class": "num sanction-mark"}, "th": {"class": "num"}},
                    ),
                )
            )
        for event in standings.events:
            extra.append(
                (
                    f"p{event.pk}",
                    tables.Column(
                        accessor=f"e{event.pk}__place",
                        verbose_name=gettext("%(event)s: place") % {"event": event.name},
                        visible=False,
                        default="",
                    ),
                )
            )
        marks: dict[tuple[int, str], str] = {}  # place_mark translates: once per place
        # Each event's id and column, once (not 1,000 drivers × 10 events × 4 times).
        columns = [(event.pk, f"e{event.pk}") for event in standings.events]
        # One event cell per distinct content, shared by the rows that show it (read only):
        # a few hundred dicts instead of one per driver and event.
        cells: dict[tuple[Any, ...], dict[str, Any]] = {}
        absent = {"points": None, "sort": -1, "place": ""}
        rows = []
        for line in standings.lines:
            driver = line.driver
            row: dict[str, Any] = {
                "rank": line.rank,
                "number": driver.number,
                "name": driver.public_name,
                "team": driver.team.name if driver.team else None,
                "total": line.points,
                "removed": -line.points_removed if line.points_removed else None,
                "url": driver_url(driver),
            }
            results, counted, removed = line.results, line.counted, line.removed
            for event_id, column in columns:
                result = results.get(event_id)
                if result is None:
                    row[column] = absent
                    continue
                content = (
                    result.points,
                    result.position,
                    result.status,
                    event_id in counted,
                    removed.get(event_id, 0),
                )
                cell = cells.get(content)
                if cell is None:
                    mark = (result.position, result.status)
                    if mark not in marks:
                        marks[mark] = place_mark(*mark)[0]
                    cell = cells[content] = {
                        "points": result.points,
                        "sort": result.points,
                        "position": result.position,
                        "status": result.status,
                        "counted": content[3],
                        "place": marks[mark],
                        "removed": content[4],
                    }
                row[column] = cell
            rows.append(row)
        return cls(rows, extra_columns=extra, **kwargs)


class TeamStandingsTable(tables.Table):
    rank = tables.Column(verbose_name=_("Rank"))
    team = tables.Column(verbose_name=_("Team"))
    points = tables.Column(
        verbose_name=_("Points"), attrs={"td": {"class": "num total"}, "th": {"class": "num"}}
    )
    drivers = tables.Column(verbose_name=_("Drivers"), orderable=False, default="")

    class Meta:
        attrs = {"class": "striped standings", "id": "team-standings"}
        order_by = ("rank",)

    def render_team(self, value: str, record: dict) -> Any:
        if not record["colour"]:
            return value
        return format_html(  # an SVG fill, not a style attribute: the CSP forbids those
            '<svg class="team-dot" aria-hidden="true"><rect width="100%" height="100%" fill="{}"/>'
            "</svg>{}",
            record["colour"],
            value,
        )

    def value_team(self, value: str) -> str:
        return value

    @classmethod
    def from_standings(cls, teams: Any, standings: Any, **kwargs: Any) -> TeamStandingsTable:
        members: dict[int, list[str]] = {}
        for line in standings.lines:
            if line.driver.team_id:
                members.setdefault(line.driver.team_id, []).append(
                    f"{line.driver.public_name} ({line.points})"
                )
        rows = [
            {
                "rank": t.rank,
                "team": t.team.name,
                "colour": t.team.colour,
                "points": t.points,
                "drivers": ", ".join(members.get(t.team.pk, [])),
            }
            for t in teams
        ]
        return cls(rows, **kwargs)


def driver_url_for(championship: Any) -> Any:
    """A function giving a driver's page address, without a query per driver."""
    base = reverse("driver", args=[championship.slug, 0])
    prefix = base[: base.rstrip("/").rfind("/") + 1]
    return lambda driver: f"{prefix}{driver.number}/"


class DriverResultsTable(tables.Table):
    """A driver's results, event by event: the export of the driver's page."""

    event = tables.Column(verbose_name=_("Event"))
    date = tables.DateColumn(verbose_name=_("Date"), format="Y-m-d")
    table = tables.Column(verbose_name=_("Table"))
    position = tables.Column(verbose_name=_("Position at the table"))
    status = tables.Column(verbose_name=_("Status"))
    retirement = tables.Column(verbose_name=_("Retirement"), default="")
    points = tables.Column(verbose_name=_("Points"))
    counted = tables.BooleanColumn(verbose_name=_("Counted"))

    class Meta:
        orderable = False

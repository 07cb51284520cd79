"""django-tables2 tables of registration pages (sortable, exportable)."""

from __future__ import annotations

from typing import Any

import django_tables2 as tables
from django.core.paginator import InvalidPage
from django.http import Http404, HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django_tables2 import RequestConfig

from tournament.documents import exports
from tournament.models import Driver
from tournament.public.names import shown_last_name


def sorted_or_exported(
    request: HttpRequest, table: Any, filename: str, *, per_page: int | None = None
) -> HttpResponse | None:
    """Sort ``table`` as the query string asks; the CSV/XLSX file when ``?_export=`` asks.

    The one way out of a page into a spreadsheet (``tournament.documents.exports``: formulas are
    written as text). Build tables without ``request=``: django-tables2 would then paginate
    them by 25, and a classification or standings page shows every row. ``per_page`` pages
    the table (``?page=``) once it is not exported: an export holds every row.

    Whatever the query string says, no error page: an unknown ``?sort=`` column is ignored,
    an ``?_export=`` other than csv/xlsx shows the page, a ``?page=`` that is no page of the
    table is a 404. django-tables2's own pagination is not used: it reads ``?per_page=``
    too, and ``?per_page=0`` divides by zero.
    """
    RequestConfig(request, paginate=False).configure(table)
    export_format = request.GET.get("_export")
    if export_format in exports.FORMATS:
        return exports.export_response(table, export_format, filename)
    if per_page is not None:
        try:
            table.paginate(page=request.GET.get("page", 1), per_page=per_page)
        except InvalidPage as error:
            raise Http404 from error
    return None


class DriverTable(tables.Table):
    """The championship's drivers; on its public page and export, each last name as the
    driver chose to show it ("L.", DOMAIN.md "Corrections to 'Before the day'"), in full
    for its organisers (``full_names``)."""

    number = tables.Column(verbose_name=_("No."))
    first_name = tables.Column(verbose_name=_("First name"))
    last_name = tables.Column(verbose_name=_("Last name"))
    team = tables.Column(verbose_name=_("Team"), accessor="team__name", default="—")

    class Meta:
        model = Driver
        fields = ("number", "first_name", "last_name", "team")
        attrs = {"class": "striped"}
        order_by = ("number",)

    def __init__(self, *args: Any, full_names: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.full_names = full_names

    def render_last_name(self, value: str, record: Driver) -> str:
        if self.full_names:
            return value
        return shown_last_name(value, record.public_name_choice)

    def value_last_name(self, value: str, record: Driver) -> str:
        return self.render_last_name(value, record)

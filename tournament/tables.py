"""django-tables2 tables of registration pages (sortable, exportable)."""

from __future__ import annotations

from typing import Any

import django_tables2 as tables
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _
from django_tables2 import RequestConfig
from django_tables2.export import TableExport

from tournament.models import Driver


def sorted_or_exported(request: HttpRequest, table: Any, filename: str) -> HttpResponse | None:
    """Sort ``table`` as the query string asks; the CSV/XLSX file when ``?_export=`` asks.

    Build tables without ``request=``: django-tables2 would then paginate them by 25, and a
    classification or standings page shows every row.
    """
    RequestConfig(request, paginate=False).configure(table)
    export_format = request.GET.get("_export")
    if TableExport.is_valid_format(export_format):
        return TableExport(export_format, table).response(f"{filename}.{export_format}")
    return None


class DriverTable(tables.Table):
    number = tables.Column(verbose_name=_("No."))
    first_name = tables.Column(verbose_name=_("First name"))
    last_name = tables.Column(verbose_name=_("Last name"))
    team = tables.Column(verbose_name=_("Team"), accessor="team__name", default="—")

    class Meta:
        model = Driver
        fields = ("number", "first_name", "last_name", "team")
        attrs = {"class": "striped"}
        order_by = ("number",)

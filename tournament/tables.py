"""django-tables2 tables of registration pages (sortable, exportable)."""

from __future__ import annotations

import django_tables2 as tables
from django.utils.translation import gettext_lazy as _

from tournament.models import Driver


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

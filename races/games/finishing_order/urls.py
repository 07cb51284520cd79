"""The finishing-order game's pages under the table link (``/r/<link>/…``: the tables'
outbox keeps their writes offline)."""

from __future__ import annotations

from django.urls import path

from races.games.finishing_order import views

urlpatterns = [
    path("r/<str:token>/finishing-order/", views.table_entry, name="finishing-order-entry"),
    path(
        "r/<str:token>/finishing-order/sheet.pdf", views.table_sheet, name="finishing-order-sheet"
    ),
]

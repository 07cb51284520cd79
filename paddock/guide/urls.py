"""The guide's addresses (``paddock.guide.views``)."""

from __future__ import annotations

from django.urls import path

from paddock.guide import views

urlpatterns = [
    path("guide/", views.index, name="guide"),
    path("guide/<slug:page>/", views.page, name="guide-page"),
]

"""The URLs of a club's season pages: a new championship, a circuit made or changed, the
shared circuit catalogue, a circuit's page."""

from django.urls import path

from tournament.clubs import season_pages

urlpatterns = [
    path(
        "clubs/<slug:club>/championships/new/",
        season_pages.club_championship_new,
        name="club-championship-new",
    ),
    path("clubs/<slug:club>/circuits/new/", season_pages.club_circuit_new, name="club-circuit-new"),
    path("circuits/", season_pages.circuit_catalogue, name="circuit-catalogue"),
    path("circuits/<slug:slug>/", season_pages.circuit_detail, name="circuit"),
    path("circuits/<slug:slug>/edit/", season_pages.circuit_edit, name="circuit-edit"),
]

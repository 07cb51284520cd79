from django.urls import path

from standings import views

urlpatterns = [
    path("e/<slug:slug>/results/", views.event_results_view, name="event-results"),
    path("c/<slug:slug>/standings/", views.standings_view, name="standings"),
    path(
        "c/<slug:slug>/standings/projector/",
        views.standings_projector,
        name="standings-projector",
    ),
    path("c/<slug:slug>/teams/", views.team_standings_view, name="team-standings"),
    path("c/<slug:slug>/drivers/<int:number>/", views.driver_view, name="driver"),
]

from django.urls import path

from standings.leagues import views

urlpatterns = [
    path("l/<slug:slug>/", views.league_page, name="league"),
    path("l/<slug:slug>/projector/", views.league_projector, name="league-projector"),
]

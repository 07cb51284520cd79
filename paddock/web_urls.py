from django.urls import include, path

from paddock.away import views as away_views
from races import history_views, referee_views
from standings import views as standings_views
from tournament.players import desk as player_desk
from tournament.registration import event_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("tournament.clubs.urls")),
    path("", include("tournament.clubs.season_urls")),
    path("", include("paddock.guide.urls")),
    path("", include("standings.leagues.urls")),
    path("language/<str:code>/", views.language_switch, name="language"),
    path("c/<slug:slug>/", views.championship_detail, name="championship"),
    path("c/<slug:slug>/import/", views.drivers_import_view, name="drivers-import"),
    path("c/<slug:slug>/drivers/new/", views.driver_new, name="driver-new"),
    path("c/<slug:slug>/events/new/", event_views.event_new, name="event-new"),
    path(
        "c/<slug:slug>/next-season/",
        views.championship_next_season,
        name="championship-next-season",
    ),
    path(
        "c/<slug:slug>/scoring/", standings_views.championship_scoring, name="championship-scoring"
    ),
    path("e/<slug:slug>/", views.event_detail, name="event"),
    path("e/<slug:slug>/settings/", event_views.event_settings, name="event-settings"),
    path("e/<slug:slug>/desk/register/", views.desk_register, name="desk-register"),
    path("e/<slug:slug>/desk/checkin/<int:number>/", views.desk_checkin, name="desk-checkin"),
    path("e/<slug:slug>/desk/publish/", views.desk_publish, name="desk-publish"),
    path(
        "e/<slug:slug>/desk/tables/<int:number>/referee-link/",
        referee_views.qualifying_link_regenerate,
        name="qualifying-referee-link",
    ),
    # The event away (issue 30): check-out, cancellation, return.
    path("e/<slug:slug>/away/", away_views.away_page, name="away"),
    path("e/<slug:slug>/away/checkout/", away_views.away_checkout, name="away-checkout"),
    path("e/<slug:slug>/away/cancel/", away_views.away_cancel, name="away-cancel"),
    path("e/<slug:slug>/away/return/", away_views.away_return, name="away-return"),
    path("e/<slug:slug>/away/back/", away_views.away_back, name="away-back"),
    path("me/tables/", referee_views.my_tables, name="my-tables"),
    # Players across championships (issue 22): race control's matches and changes.
    path("players/matches/", player_desk.matches, name="player-matches"),
    path("players/matches/merge/", player_desk.merge, name="player-merge"),
    path("players/matches/not-same/", player_desk.not_same, name="player-not-same"),
    path("players/changes/", player_desk.change_list, name="player-changes"),
    path("players/changes/<int:pk>/undo/", player_desk.change_undo, name="player-change-undo"),
    path("players/<int:pk>/split/", player_desk.split, name="player-split"),
    path("q/<str:token>/history/", history_views.qualifying_table_history, name="qtable-history"),
    path("r/<str:token>/history/", history_views.race_table_history, name="rtable-history"),
    path("r/<str:token>/result/restore/", history_views.result_restore_view, name="result-restore"),
]

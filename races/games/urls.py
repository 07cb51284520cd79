from django.urls import include, path

from races.games.rallyman import views as rally_views
from races.games.table_sheet import views as sheet_views

urlpatterns = [
    path("", include("races.games.finishing_order.urls")),
    path("r/<str:token>/game-result/", sheet_views.table_entry, name="game-table-entry"),
    path("r/<str:token>/game-sheet.pdf", sheet_views.table_sheet, name="game-table-sheet"),
    path("e/<slug:slug>/rally/", rally_views.rally_desk, name="rally-desk"),
    path(
        "e/<slug:slug>/rally/stages/<int:number>/times/",
        rally_views.stage_times,
        name="rally-stage-times",
    ),
    path(
        "e/<slug:slug>/rally/classification/",
        rally_views.rally_classification,
        name="rally-classification",
    ),
    path("e/<slug:slug>/rally/sheet.pdf", rally_views.rally_sheet, name="rally-sheet"),
]

from django.urls import path

from races import game_views

urlpatterns = [
    path("r/<str:token>/game-result/", game_views.table_entry, name="game-table-entry"),
    path("r/<str:token>/game-sheet.pdf", game_views.table_sheet, name="game-table-sheet"),
    path("e/<slug:slug>/rally/", game_views.rally_desk, name="rally-desk"),
    path(
        "e/<slug:slug>/rally/stages/<int:number>/times/",
        game_views.stage_times,
        name="rally-stage-times",
    ),
    path(
        "e/<slug:slug>/rally/classification/",
        game_views.rally_classification,
        name="rally-classification",
    ),
    path("e/<slug:slug>/rally/sheet.pdf", game_views.rally_sheet, name="rally-sheet"),
]

from django.urls import path

from qualifying import views
from qualifying.referee import views as table_views

urlpatterns = [
    path("e/<slug:slug>/desk/", views.event_desk, name="event-desk"),
    path("e/<slug:slug>/desk/sessions/", views.desk_session_create, name="desk-session-create"),
    path("e/<slug:slug>/desk/tables/auto/", views.desk_tables_auto, name="desk-tables-auto"),
    path("e/<slug:slug>/desk/tables/<int:number>/", views.desk_table_edit, name="desk-table-edit"),
    path("e/<slug:slug>/desk/fast/", views.desk_fast_drivers, name="desk-fast-drivers"),
    path("e/<slug:slug>/qualifying/", views.general_view, name="qualifying-general"),
    path("e/<slug:slug>/sessions/<int:number>/", views.session_view, name="qualifying-session"),
    path("q/<str:token>/", table_views.qtable, name="qtable"),
    path("q/<str:token>/count/", table_views.qtable_count, name="qtable-count"),
    path("q/<str:token>/name/", table_views.qtable_name, name="qtable-name"),
    path("q/<str:token>/cards.pdf", table_views.qtable_pdf, {"kind": "cards"}, name="qtable-cards"),
    path("q/<str:token>/sheet.pdf", table_views.qtable_pdf, {"kind": "sheet"}, name="qtable-sheet"),
    path(
        "q/<str:token>/s/<int:session>/d/<int:number>/preview/",
        table_views.qtable_preview,
        name="run-preview",
    ),
    path("q/<str:token>/s/<int:session>/d/<int:number>/", table_views.qtable_save, name="run-save"),
    path(
        "q/<str:token>/s/<int:session>/d/<int:number>/cancel/",
        table_views.qtable_cancel,
        name="run-cancel",
    ),
    path(
        "q/<str:token>/s/<int:session>/d/<int:number>/history/",
        table_views.run_history_view,
        name="run-history",
    ),
]

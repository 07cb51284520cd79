from django.urls import path

from races import table_views, views
from races.sanctions import views as sanction_views

urlpatterns = [
    path("e/<slug:slug>/allocation/", views.allocation_page, name="allocation"),
    path("e/<slug:slug>/allocation/run/", views.allocation_submit, name="allocation-run"),
    path("e/<slug:slug>/allocation/undo/", views.allocation_undo_submit, name="allocation-undo"),
    path("e/<slug:slug>/allocation/swap/", views.swap_submit, name="allocation-swap"),
    path("e/<slug:slug>/race-weather/", views.race_weather_submit, name="race-weather"),
    path(
        "e/<slug:slug>/tables/<int:number>/weather-undo/",
        views.table_weather_undo_submit,
        name="race-weather-undo",
    ),
    path(
        "e/<slug:slug>/tables/<int:number>/unlock/",
        views.table_unlock_submit,
        name="race-table-unlock",
    ),
    path(
        "e/<slug:slug>/tables/<int:number>/referee-link/",
        views.referee_link_submit,
        name="race-referee-link",
    ),
    path(
        "e/<slug:slug>/tables/<int:number>/referee-account/",
        views.referee_account_submit,
        name="race-referee-account",
    ),
    path("e/<slug:slug>/sheets/", views.sheet_batch_submit, name="sheet-batch-request"),
    path("e/<slug:slug>/sheets/<str:kind>/", views.sheet_batch_page, name="sheet-batch"),
    path(
        "e/<slug:slug>/sheets/<str:kind>/download.pdf",
        views.sheet_batch_download,
        name="sheet-batch-download",
    ),
    path("e/<slug:slug>/where/", views.where_page, name="where"),
    path("e/<slug:slug>/sanctions/", sanction_views.sanctions_page, name="sanctions"),
    path(
        "e/<slug:slug>/sanctions/<int:pk>/withdraw/",
        sanction_views.sanction_withdraw_submit,
        name="sanction-withdraw",
    ),
    path("r/<str:token>/", table_views.rtable, name="rtable"),
    path("r/<str:token>/sheet.pdf", table_views.rtable_sheet, name="rtable-sheet"),
    path("r/<str:token>/stands/<int:number>/", table_views.rtable_stand, name="rtable-stand"),
    path(
        "r/<str:token>/configurations/<int:number>/",
        table_views.rtable_configuration,
        name="rtable-configuration",
    ),
    path("r/<str:token>/weather/", table_views.rtable_weather, name="rtable-weather"),
    path("r/<str:token>/start/", table_views.rtable_start, name="rtable-start"),
    path("r/<str:token>/name/", table_views.rtable_name, name="rtable-name"),
]

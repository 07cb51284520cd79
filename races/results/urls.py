from django.urls import path

from races.results import views as result_views

urlpatterns = [
    path("r/<str:token>/result/", result_views.result_entry, name="result-entry"),
    path("r/<str:token>/result/summary/", result_views.result_summary, name="result-summary"),
    path("e/<slug:slug>/results/desk/", result_views.results_desk, name="results-desk"),
    path(
        "e/<slug:slug>/results/tables/<int:number>/confirm/",
        result_views.desk_confirm,
        name="result-confirm",
    ),
    path(
        "e/<slug:slug>/results/tables/<int:number>/reopen/",
        result_views.desk_reopen,
        name="result-reopen",
    ),
]

from django.urls import path

from standings.ratings import views

urlpatterns = [
    path("ratings/", views.ranking_view, name="ratings-home"),
    path("ratings/<str:game>/", views.ranking_view, name="ratings"),
]

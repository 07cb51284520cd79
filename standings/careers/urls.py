from django.urls import path

from tournament.careers import views

urlpatterns = [
    path("p/<int:pk>/", views.career_view, name="career"),
]

from django.urls import path

from standings.careers import views

urlpatterns = [
    path("p/<int:pk>/", views.career_view, name="career"),
]

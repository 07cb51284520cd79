from django.urls import path

from tournament.offline import views

urlpatterns = [
    path("sw.js", views.service_worker, name="offline-sw"),
    path("manifest.webmanifest", views.manifest, name="offline-manifest"),
]

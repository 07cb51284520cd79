from django.urls import path

from tournament import event_views, views

urlpatterns = [
    path("", views.home, name="home"),
    path("c/<slug:slug>/", views.championship_detail, name="championship"),
    path("c/<slug:slug>/import/", views.drivers_import_view, name="drivers-import"),
    path("c/<slug:slug>/events/new/", event_views.event_new, name="event-new"),
    path("e/<slug:slug>/", views.event_detail, name="event"),
    path("e/<slug:slug>/settings/", event_views.event_settings, name="event-settings"),
    path("e/<slug:slug>/desk/", views.event_desk, name="event-desk"),
    path("e/<slug:slug>/desk/register/", views.desk_register, name="desk-register"),
    path("e/<slug:slug>/desk/checkin/<int:number>/", views.desk_checkin, name="desk-checkin"),
    path("e/<slug:slug>/desk/publish/", views.desk_publish, name="desk-publish"),
]

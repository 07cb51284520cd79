from django.urls import path

from tournament.signup import desk, views

urlpatterns = [
    path("e/<slug:slug>/signup/", views.signup_page, name="signup"),
    path("events.ics", views.events_ics, name="events-ics"),
    path("e/<slug:slug>/event.ics", views.event_ics, name="event-ics"),
    path("registrations/confirm/<str:token>/", views.confirm_page, name="signup-confirm"),
    path("registrations/<str:token>/", views.own_page, name="signup-own"),
    path("e/<slug:slug>/desk/announcement/", desk.announcement_page, name="signup-announcement"),
    path("e/<slug:slug>/desk/registrations/", desk.registrations_page, name="signup-desk"),
]

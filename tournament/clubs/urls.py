"""The pages of clubs and their people (``tournament.clubs.views``)."""

from __future__ import annotations

from django.urls import path

from tournament.clubs import views

urlpatterns = [
    path("clubs/", views.my_clubs, name="my-clubs"),
    path("clubs/new/", views.club_new, name="club-new"),
    path("start/", views.after_login, name="after-login"),
    path("clubs/<slug:club>/leave/", views.club_leave, name="club-leave"),
    path("clubs/<slug:club>/people/", views.people, name="club-people"),
    path("clubs/<slug:club>/people/invite/", views.invite, name="club-invite"),
    path(
        "clubs/<slug:club>/people/<str:username>/role/",
        views.member_role,
        name="club-member-role",
    ),
    path(
        "clubs/<slug:club>/people/<str:username>/remove/",
        views.member_remove,
        name="club-member-remove",
    ),
    path(
        "clubs/<slug:club>/invitations/<int:pk>/withdraw/",
        views.invitation_withdraw,
        name="club-invitation-withdraw",
    ),
    path("invitations/<str:token>/", views.invitation_page, name="invitation"),
    path("me/", views.me, name="me"),
    path("me/token/", views.token_new, name="me-token"),
]

from django.urls import path, re_path

from races.photos import views

urlpatterns = [
    path("r/<str:token>/photos/", views.rtable_photo_add, name="rtable-photo-add"),
    re_path(
        r"^r/(?P<token>[^/]+)/photos/(?P<photo_id>[0-9]{1,9})/(?P<size>full|thumb)\.jpg$",
        views.rtable_photo,
        name="rtable-photo",
    ),
    path("q/<str:token>/photos/", views.qtable_photo_add, name="qtable-photo-add"),
    re_path(
        r"^q/(?P<token>[^/]+)/photos/(?P<photo_id>[0-9]{1,9})/(?P<size>full|thumb)\.jpg$",
        views.qtable_photo,
        name="qtable-photo",
    ),
    path("e/<slug:slug>/results/photos/", views.photo_desk, name="photo-desk"),
    path("e/<slug:slug>/results/photos/<int:photo_id>/", views.desk_photo, name="desk-photo"),
    path(
        "e/<slug:slug>/results/photos/<int:photo_id>/assign/",
        views.photo_assign,
        name="photo-assign",
    ),
    re_path(
        r"^e/(?P<slug>[-a-zA-Z0-9_]+)/results/photos/(?P<photo_id>[0-9]{1,9})/(?P<size>full|thumb)\.jpg$",
        views.desk_photo_image,
        name="desk-photo-image",
    ),
]

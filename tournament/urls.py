from django.contrib import admin
from django.urls import include, path

from tournament.api import api

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("qualifying.urls")),
    path("", include("races.urls")),
    path("", include("races.result_urls")),
    path("", include("races.game_urls")),
    path("", include("tournament.standings_urls")),
    path("", include("tournament.web_urls")),
]

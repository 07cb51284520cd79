from django.contrib import admin
from django.urls import include, path

from paddock.api import api
from tournament.site import favicon, health

# A database outage raised outside a view (a middleware's query) is a 503, not a 500.
handler500 = "tournament.site.unavailable.server_error"

urlpatterns = [
    path("health/", health.health, name="health"),
    path("favicon.ico", favicon.favicon, name="favicon"),
    path("", include("tournament.offline.urls")),
    path("admin/", admin.site.urls),
    path("api/v1/", api.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("accounts/", include("tournament.site.accounts.urls")),
    path("", include("qualifying.urls")),
    path("", include("races.urls")),
    path("", include("races.results.urls")),
    path("", include("races.photos.urls")),
    path("", include("races.games.urls")),
    path("", include("standings.urls")),
    path("", include("standings.leagues.match_views")),
    path("", include("standings.leagues.organiser_views")),
    path("", include("standings.careers.urls")),
    path("", include("standings.ratings.urls")),
    path("", include("tournament.signup.urls")),
    path("", include("paddock.web_urls")),
]

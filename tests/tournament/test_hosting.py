"""Hosting basics: the health endpoint, the language links, the admin link only where it
leads somewhere."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Permission
from django.db import OperationalError
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def test_health_says_ok_when_the_database_and_cache_answer(client):
    response = client.get(reverse("health"))
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok"}
    assert "no-cache" in response["Cache-Control"]


def test_health_is_503_when_the_cache_is_down(client, settings):
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": "redis://127.0.0.1:1/0",  # nothing listens there
            "OPTIONS": {"socket_connect_timeout": 0.2, "socket_timeout": 0.2},
        }
    }
    response = client.get(reverse("health"))
    assert response.status_code == 503
    body = response.json()
    assert body["status"] == "error" and body["database"] == "ok"
    assert body["cache"].startswith("error: ")


def test_health_is_503_when_the_database_is_down(client, monkeypatch):
    from tournament.site import health

    class Broken:
        def cursor(self):
            raise OperationalError("connection refused")

    monkeypatch.setattr(health, "connection", Broken())
    response = client.get(reverse("health"))
    assert response.status_code == 503
    assert response.json()["database"] == "error: OperationalError"


def test_the_language_links_set_the_language_and_come_back(client):
    response = client.get(reverse("language", args=["en"]), {"next": "/c/cf/?sort=name"})
    assert response.status_code == 302 and response["Location"] == "/c/cf/?sort=name"
    assert client.cookies["django_language"].value == "en"
    assert "Championships" in client.get(reverse("home")).content.decode()


@pytest.mark.parametrize(
    "target", ["https://evil.example/", "//evil.example/", "home", "", "javascript:alert(1)"]
)
def test_the_language_links_go_nowhere_else(client, target):
    response = client.get(reverse("language", args=["fr"]), {"next": target})
    assert response.status_code == 302 and response["Location"] == reverse("home")


def test_an_unknown_language_is_404(client):
    assert client.get(reverse("language", args=["xx"])).status_code == 404


def test_pages_switch_language_with_links_not_a_form(client):
    html = client.get(reverse("home")).content.decode()
    assert f'href="{reverse("language", args=["en"])}?next=/"' in html
    assert "set_language" not in html and 'name="language"' not in html


def admin_link(user) -> bool:
    client = Client()
    client.force_login(user)
    return f'href="{reverse("admin:index")}"' in client.get(reverse("home")).content.decode()


def test_the_admin_link_only_where_it_leads_somewhere(django_user_model):
    organiser = django_user_model.objects.create_user("pc", password="x", is_staff=True)
    assert not admin_link(organiser)  # staff without any permission: an empty admin
    organiser.user_permissions.add(Permission.objects.get(codename="view_championship"))
    assert admin_link(django_user_model.objects.get(pk=organiser.pk))
    assert admin_link(django_user_model.objects.create_superuser("root", password="x"))
    assert not admin_link(django_user_model.objects.create_user("curieux", password="x"))

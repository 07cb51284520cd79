"""CSRF on every form: each POST form of the templates carries ``{% csrf_token %}``, and
every page that accepts a POST refuses one without the token (the API takes bearer
tokens, never cookies, so it needs none)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse

from tests.security.conftest import World
from tests.security.test_permission_matrix import PAGES, codes, page_clients

TEMPLATES = Path(settings.BASE_DIR) / "templates"
FORM = re.compile(r"<form\b(?P<attrs>[^>]*)>(?P<body>.*?)</form>", re.S | re.I)
POSTS = re.compile(r"""(method=["']post["']|hx-post=)""", re.I)


def post_forms() -> list[tuple[str, str]]:
    found = []
    for path in sorted(TEMPLATES.rglob("*.html")):
        text = path.read_text(encoding="utf-8")
        for match in FORM.finditer(text):
            if POSTS.search(match.group("attrs")):
                found.append((str(path.relative_to(TEMPLATES)), match.group(0)))
    return found


def test_the_templates_have_post_forms_to_check() -> None:
    assert len(post_forms()) >= 20


def test_every_post_form_carries_the_csrf_token() -> None:
    missing = [
        f"{name}: {form[:120]}" for name, form in post_forms() if "{% csrf_token %}" not in form
    ]
    assert missing == []


def test_htmx_requests_send_the_csrf_token() -> None:
    """Posts made by htmx outside a form (a row's preview) take the token from the page."""
    base = (TEMPLATES / "base.html").read_text(encoding="utf-8")
    assert """hx-headers='{"X-CSRFToken": "{{ csrf_token }}"}'""" in base


def accepts_post(name: str) -> bool:
    expected = codes(PAGES[name][1]["POST"])
    return any(status != 405 for status in expected.values())


POST_PAGES = sorted(name for name in PAGES if accepts_post(name))


@pytest.mark.django_db
@pytest.mark.parametrize("name", POST_PAGES)
def test_a_post_without_the_csrf_token_is_refused(world: World, name: str) -> None:
    """Whoever sends it (organiser, referee's phone, anonymous), no token → 403 "CSRF"."""
    arguments = PAGES[name][0]
    clients = page_clients(world)
    for role in ("organiser", "link", "anonymous"):
        client = Client(enforce_csrf_checks=True)
        client.cookies = clients[role].cookies  # same session, language
        response = client.post(reverse(name, kwargs=arguments(world, role)), {})
        assert response.status_code == 403, (name, role, response.status_code)
        assert b"CSRF" in response.content, (name, role)


@pytest.mark.django_db
def test_a_post_with_the_csrf_token_goes_through(world: World) -> None:
    """The check is real: the same POST with the page's token is accepted."""
    client = Client(enforce_csrf_checks=True)
    client.force_login(world.users["organiser"])
    page = client.get(reverse("event-desk", args=[world.event.slug]))
    token = re.search(rb'name="csrfmiddlewaretoken" value="([^"]+)"', page.content).group(1)
    response = client.post(
        reverse("desk-publish", args=[world.event.slug]),
        {"csrfmiddlewaretoken": token.decode()},
    )
    assert response.status_code == 302

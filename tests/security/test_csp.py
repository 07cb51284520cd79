"""Every page answers with the Content-Security-Policy, and no page needs what it forbids.

Every URL pattern of the permission matrix, GET and POST, by the organiser and by a visitor
holding table 1's link, on the published event of ``tests/security/hostile.py`` (a team
colour, so colour dots are drawn), plus the pages the matrix leaves out (not found, CSRF
failure, the admin, the API's documentation): each HTML answer carries ``csp.POLICY``.
PDFs carry none (Chrome's PDF viewer would be blocked). The site's own pages hold no inline
script, style element or attribute, event handler attribute, ``javascript:`` address or
htmx code (``hx-on``, trigger filters), and tell htmx not to inject styles nor evaluate.
Whether a browser agrees is ``test_csp_browser.py``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from django.test import Client
from django.urls import reverse

from tests.security.conftest import World, english, logged_in
from tests.security.hostile import hostile_world
from tests.security.test_permission_matrix import PAGES
from tournament.site.csp import HEADER, POLICY

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


@pytest.fixture(scope="module")
def hostile(django_db_setup: None, django_db_blocker: Any) -> Any:
    with hostile_world(django_db_blocker) as world:
        yield world


def send(client: Client, method: str, url: str) -> Any:
    sid = transaction.savepoint()
    try:
        return client.get(url) if method == "GET" else client.post(url)
    finally:
        transaction.savepoint_rollback(sid)


def is_html(response: Any) -> bool:
    return response.get("Content-Type", "").startswith("text/html")


#: What a policy without 'unsafe-inline' / 'unsafe-eval' blocks, as it shows in HTML.
INLINE = {
    "inline script": re.compile(r"<script(?![^>]*\ssrc=)[^>]*>", re.IGNORECASE),
    "style element": re.compile(r"<style[\s>]", re.IGNORECASE),
    "style attribute": re.compile(r"<[^>]*\sstyle\s*=", re.IGNORECASE),
    "event handler attribute": re.compile(r"<[^>]*\son[a-z]+\s*=", re.IGNORECASE),
    "javascript: address": re.compile(r"javascript:", re.IGNORECASE),
    "htmx code": re.compile(r"\shx-on|hx-trigger=\"[^\"]*\[", re.IGNORECASE),
}


def inline_code(html: str) -> list[str]:
    return [f"{kind} → {m.group(0)[:80]}" for kind, rx in INLINE.items() for m in rx.finditer(html)]


HTMX_CONFIG = (
    """<meta name="htmx-config" content='{"includeIndicatorStyles": false, "allowEval": false}'>"""
)


def test_the_inline_code_detector_finds_inline_code() -> None:
    """The checks below would see what they look for."""
    page = (
        '<script>alert(1)</script><style>p{}</style><p style="color:red">'
        '<a href="javascript:x()" onclick="y()">'
        '<div hx-on:click="z()" hx-trigger="every 5s [ok()]"></div>'
        '<script src="/static/a.js"></script>'
    )
    assert {line.split(" → ")[0] for line in inline_code(page)} == set(INLINE)


@pytest.mark.parametrize("name", sorted(PAGES))
def test_every_page_has_the_policy_and_no_inline_code(hostile: World, name: str) -> None:
    arguments, methods = PAGES[name]
    url = reverse(name, kwargs=arguments(hostile, "organiser"))
    clients = {"organiser": logged_in(hostile.users["organiser"]), "link": english(Client())}
    problems = []
    for role, client in clients.items():
        for method in methods:
            response = send(client, method, url)
            where = f"{method} {url} as {role} ({response.status_code})"
            if not is_html(response):
                if response.has_header(HEADER):
                    problems.append(f"{where}: a {response['Content-Type']} with a policy")
                continue
            if response.get(HEADER) != POLICY:
                problems.append(f"{where}: policy {response.get(HEADER)!r}")
            html = response.content.decode()
            problems += [f"{where}: {found}" for found in inline_code(html)]
            if "htmx.min.js" in html and HTMX_CONFIG not in html:
                problems.append(f"{where}: htmx without its htmx-config meta tag")
    assert problems == []


def test_pdfs_have_no_policy(hostile: World) -> None:
    """Chrome's viewer of an inline PDF is a page of its own: a policy would blank it."""
    response = english(Client()).get(reverse("qtable-sheet", args=[hostile.qtables[0].token]))
    assert response["Content-Type"] == "application/pdf"
    assert not response.has_header(HEADER)


def test_pages_outside_the_matrix_have_the_policy(hostile: World) -> None:
    admin = logged_in(hostile.users["admin"])
    visitor = english(Client(enforce_csrf_checks=True))
    responses = {
        "not found": visitor.get("/no-such-page/"),
        "CSRF failure": visitor.post(reverse("login"), {"username": "x", "password": "y"}),
        "admin": admin.get(reverse("admin:index")),
        "admin list": admin.get(reverse("admin:tournament_driver_changelist")),
        "API documentation": visitor.get("/api/v1/docs"),
    }
    assert {name: r.status_code for name, r in responses.items()} == {
        "not found": 404,
        "CSRF failure": 403,
        "admin": 200,
        "admin list": 200,
        "API documentation": 200,
    }
    assert {name: r.get(HEADER) for name, r in responses.items()} == dict.fromkeys(
        responses, POLICY
    )
    # The site's own error pages: no inline code either (Django's CSRF page has a <style>).
    for name in ("not found", "CSRF failure"):
        assert inline_code(responses[name].content.decode()) == [], name
    assert b"CSRF" in responses["CSRF failure"].content


def test_no_template_holds_inline_code() -> None:
    """Templates no page of the walk above happened to render are read as text too."""
    found = {
        str(path.relative_to(TEMPLATES)): inline_code(path.read_text(encoding="utf-8"))
        for path in TEMPLATES.rglob("*.html")
    }
    assert {name: problems for name, problems in found.items() if problems} == {}
    assert len(found) > 40

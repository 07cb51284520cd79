"""Run by ``test_redis_down.py`` in a subprocess whose REDIS_URL points at a closed port.

Settings are read at import, so only a fresh process is honest about what an outage does.
It builds the security tests' event (``tests.security.conftest.build_world``), then walks
every page of the project (the permission matrix's list, so a new page is covered too) as
the organiser and as a referee's link, enters a result through the page and through the
API, and asks for the sheets batch. It prints one JSON object for the test to judge.
"""

from __future__ import annotations

import json
import os
import sys
import time

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "paddock.settings")
django.setup()

from django.conf import settings  # noqa: E402
from django.contrib.auth import get_user_model  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.test.utils import setup_test_environment  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import translation  # noqa: E402

# Logins of the built users, as in the tests.
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
call_command("migrate", verbosity=0, interactive=False)
setup_test_environment()  # responses carry their context (the flashed messages)

from races.models import RaceResult, SheetBatch  # noqa: E402
from tests.security.conftest import build_world  # noqa: E402
from tests.security.test_permission_matrix import (  # noqa: E402
    API,
    PAGES,
    ROLES,
    api_path,
    api_token,
    codes,
    page_clients,
)


def main() -> dict[str, object]:
    with translation.override("en"):
        world = build_world(get_user_model())
    clients = page_clients(world)
    report: dict[str, object] = {
        "cache": settings.CACHES["default"]["BACKEND"],
        "broker": settings.CELERY_BROKER_URL,
        "eager": settings.CELERY_TASK_ALWAYS_EAGER,
    }

    # Every page, GET, as every caller of the permission matrix: each gets exactly what it
    # gets with Redis up (the matrix's expected status), not merely "no 500".
    errors, slowest, count = [], 0.0, 0
    for name, (arguments, methods) in PAGES.items():
        if name in ("logout", "sheet-batch-request", "set_language"):
            continue  # writes, or GET-less: not pages to read
        expected = codes(methods["GET"])
        if name == "health":
            # The one page that must differ: an uptime monitor is told the cache is down.
            expected = dict.fromkeys(ROLES, 503)
        for role in ROLES:
            url = reverse(name, kwargs=arguments(world, role))
            started = time.monotonic()
            status = clients[role].get(url).status_code
            slowest = max(slowest, time.monotonic() - started)
            count += 1
            if status != expected[role]:
                errors.append(f"{role} GET {url}: {status}, not {expected[role]}")
    report.update(pages=count, page_errors=errors, slowest_page=round(slowest, 2))

    # Every API read, as every caller, with its token (a token failure is counted on the
    # cache, which is down): the same statuses as with Redis up.
    from django.test import Client

    api_errors, reads = [], 0
    for (method, path), (_body, expected_text) in API.items():
        if method != "get":
            continue
        expected = codes(expected_text)
        url = "/api/v1" + api_path(world, path)
        for role in ROLES:
            token = api_token(world, role, path)
            headers = {"HTTP_ACCEPT_LANGUAGE": "en"}
            if token:
                headers["HTTP_AUTHORIZATION"] = f"Bearer {token}"
            status = Client(**headers).get(url).status_code
            reads += 1
            if status != expected[role]:
                api_errors.append(f"{role} GET {url}: {status}, not {expected[role]}")
    report.update(api_reads=reads, api_errors=api_errors)

    # Result entry through the page (table 2's referee link, a draft) ...
    table = world.rtables[1]
    grid = list(table.slots.order_by("position").values_list("driver__number", flat=True))
    data = {"version": "0", "action": "draft"}
    for place, number in enumerate(grid, start=1):
        data[f"d{number}-outcome"] = str(place)
    page = clients["link"].post(reverse("result-entry", args=[table.token]), data)
    stored = RaceResult.objects.filter(table=table).first()
    report["page_save"] = [page.status_code, stored.version if stored else None, grid]

    # ... and through the API (the same table, next version, submitted).
    api = Client(HTTP_AUTHORIZATION=f"Bearer {table.token}", HTTP_ACCEPT_LANGUAGE="en")
    body = {"version": 1, "finish": grid[::-1], "retired": [], "dns": [], "submit": True}
    answer = api.put(
        f"/api/v1/events/{world.event.slug}/tables/2/result",
        json.dumps(body),
        content_type="application/json",
    )
    report["api_save"] = [answer.status_code, answer.json().get("version"), grid[::-1]]
    stored = RaceResult.objects.get(table=table)
    report["stored"] = [stored.version, stored.finish]

    # Race control publishes: the pages' build cannot be queued, the publication holds.
    started = time.monotonic()
    published = clients["organiser"].post(
        reverse("desk-publish", args=[world.event.slug]), {"allocation": "1", "results": "1"}
    )
    world.event.refresh_from_db()
    report["publish"] = [
        published.status_code,
        world.event.published_allocation and world.event.published_results,
        round(time.monotonic() - started, 2),
    ]

    # The sheets batch: the queue is down, so the request is built right away, never lost.
    SheetBatch.objects.all().delete()
    started = time.monotonic()
    batch_response = clients["organiser"].post(
        reverse("sheet-batch-request", args=[world.event.slug]), {"kind": "race"}, follow=True
    )
    batch = SheetBatch.objects.get(event=world.event, kind="race")
    report["batch"] = {
        "status_code": batch_response.status_code,
        "status": batch.status,
        "pdf": bytes(batch.pdf or b"")[:5].decode("latin-1"),
        "seconds": round(time.monotonic() - started, 2),
        "messages": [str(m) for m in batch_response.context["messages"]],
    }
    return report


if __name__ == "__main__":
    sys.stdout.write("REPORT " + json.dumps(main()) + "\n")

"""The sign-up rush in one process, cheaply: N sign-ups and their confirmations through
Django's WSGI handler (the middleware stack as gunicorn runs it, no socket), on PostgreSQL
and Redis. Prints the queries and the CPU milliseconds of each kind of request, then the top
lines of a cProfile of them: what ``registration_rush`` spends its server's CPU on, found
without a server or a client beside it (the bench's machine is shared).

    DATABASE_URL=postgres://…/<yours> REDIS_URL=redis://…/<n> \\
        .venv/bin/python -m bench.rush_profile [--people 300] [--top 25]

The database is migrated beforehand (``manage.py migrate``); each run adds an event of its
own and empties the Redis database given (the sign-up tries it counts).
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import pstats
import statistics
import sys
import time
import uuid
from collections.abc import Callable
from typing import Any

SETTINGS = {
    "DJANGO_SETTINGS_MODULE": "paddock.settings",
    "DEBUG": "false",
    "SECRET_KEY": "paddock-bench-only-not-a-secret-0123456789abcdefghijklmnop",
    "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver",
    "SECURE_SSL_REDIRECT": "false",
    "SECURE_COOKIES": "false",
    "SECURE_HSTS_SECONDS": "0",
    # As the bench's server: each registrant from an address of its own behind one proxy.
    "TRUSTED_PROXY_COUNT": "1",
    "CACHE_DIR": "",
}


def post(app: Callable, path: str, body: dict[str, Any], address: str) -> tuple[int, bytes]:
    """A POST of JSON through the WSGI application ``app``; its status and body."""
    data = json.dumps(body).encode()
    environ = {
        "REQUEST_METHOD": "POST",
        "PATH_INFO": path,
        "QUERY_STRING": "",
        "SERVER_NAME": "127.0.0.1",
        "SERVER_PORT": "8000",
        "SERVER_PROTOCOL": "HTTP/1.1",
        "REMOTE_ADDR": "127.0.0.1",
        "HTTP_HOST": "127.0.0.1",
        "HTTP_X_FORWARDED_FOR": address,
        "HTTP_ACCEPT_LANGUAGE": "fr",
        "CONTENT_TYPE": "application/json",
        "CONTENT_LENGTH": str(len(data)),
        "wsgi.input": io.BytesIO(data),
        "wsgi.url_scheme": "http",
        "wsgi.errors": sys.stderr,
        "wsgi.multithread": True,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        "wsgi.version": (1, 0),
    }
    status: list[str] = []
    chunks = app(environ, lambda s, headers, exc_info=None: status.append(s))
    try:
        content = b"".join(chunks)
    finally:
        if hasattr(chunks, "close"):
            chunks.close()
    return int(status[0].split()[0]), content


class Rush:
    """Registrants of one event, signed up then confirmed one at a time."""

    def __init__(self, app: Callable, slug: str) -> None:
        self.app, self.slug, self.n = app, slug, 0

    def sign_up(self) -> tuple[str, str]:
        self.n += 1
        n = self.n
        email = f"pilote{n:05d}-{self.slug}@bench.example.org"
        address = f"10.{n // 65536 % 256}.{n // 256 % 256}.{n % 256}"
        body = {
            "first_name": f"Élodie{n}",
            "last_name": "Lefèvre",
            "email": email,
            "public_name": "short" if n % 3 else "full",
            "language": "en" if n % 4 == 0 else "fr",
        }
        status, content = post(self.app, f"/api/v1/events/{self.slug}/registrations", body, address)
        assert status == 202, (status, content[:300])
        return email, address

    def confirm(self, email: str, address: str) -> None:
        from django.db import close_old_connections

        from bench.registration import _token

        token = _token(email)
        close_old_connections()
        status, content = post(self.app, "/api/v1/registrations/confirm", {"token": token}, address)
        assert status == 200, (status, content[:300])


def cpu_ms(rush: Rush, people: int) -> dict[str, float]:
    """CPU milliseconds (this process: user + system) per sign-up and per confirmation."""
    signs, confirms = [], []
    for _ in range(people):
        started = time.process_time()
        email, address = rush.sign_up()
        signs.append((time.process_time() - started) * 1000)
        from bench.registration import _token

        _token(email)  # read apart, so that the confirmation's time is its own
        started = time.process_time()
        rush.confirm(email, address)
        confirms.append((time.process_time() - started) * 1000)
    return {
        "signup_cpu_ms_median": round(statistics.median(signs), 2),
        "signup_cpu_ms_mean": round(statistics.fmean(signs), 2),
        "confirm_cpu_ms_median": round(statistics.median(confirms), 2),
        "confirm_cpu_ms_mean": round(statistics.fmean(confirms), 2),
    }


def queries(rush: Rush, people: int) -> dict[str, Any]:
    """Queries per sign-up and per confirmation (the last request's, as SQL)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.registration import _token

    signs, confirms, last = [], [], ([], [])
    for _ in range(people):
        with CaptureQueriesContext(connection) as signed:
            email, address = rush.sign_up()
        token = _token(email)
        assert token
        with CaptureQueriesContext(connection) as confirmed:
            from django.db import close_old_connections

            close_old_connections()
            status, content = post(
                rush.app, "/api/v1/registrations/confirm", {"token": token}, address
            )
            assert status == 200, content[:300]
        signs.append(len(signed.captured_queries))
        confirms.append(len(confirmed.captured_queries))
        last = ([q["sql"] for q in signed], [q["sql"] for q in confirmed])
    return {
        "signup_queries": max(signs),
        "confirm_queries": max(confirms),
        "signup_sql": last[0],
        "confirm_sql": last[1],
    }


def profile(rush: Rush, people: int, top: int, dump: str = "") -> str:
    """The top ``top`` lines (cumulative, then own time) of ``people`` sign-ups and
    confirmations under cProfile."""
    profiler = cProfile.Profile(time.process_time)
    pairs = []
    for _ in range(people):
        profiler.enable()
        pairs.append(rush.sign_up())
        profiler.disable()
        from bench.registration import _token

        token = _token(pairs[-1][0])
        profiler.enable()
        from django.db import close_old_connections

        close_old_connections()
        post(rush.app, "/api/v1/registrations/confirm", {"token": token}, pairs[-1][1])
        profiler.disable()
    if dump:
        profiler.dump_stats(dump)
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=300)
    parser.add_argument("--top", type=int, default=25)
    parser.add_argument("--sql", action="store_true", help="print each request's SQL")
    parser.add_argument("--dump", default="", help="where to write the profile (pstats)")
    args = parser.parse_args(argv)
    if not os.environ.get("DATABASE_URL", "").startswith("postgres"):
        sys.exit("set DATABASE_URL to a PostgreSQL database of your own (migrated)")
    for name, value in SETTINGS.items():
        os.environ.setdefault(name, value)

    import django

    django.setup()
    import redis
    from django.conf import settings
    from django.core.wsgi import get_wsgi_application

    from bench.registration import open_event

    if settings.REDIS_URL:
        redis.Redis.from_url(settings.REDIS_URL).flushdb()
    event = open_event(capacity=120, slug=f"profile-{uuid.uuid4().hex[:8]}")
    rush = Rush(get_wsgi_application(), event.slug)
    for _ in range(20):  # warm: imports, catalogues, the first connection
        rush.confirm(*rush.sign_up())
    measured = cpu_ms(rush, args.people)
    counted = queries(rush, 5)
    print(json.dumps(measured | {k: counted[k] for k in ("signup_queries", "confirm_queries")}))
    if args.sql:
        for kind in ("signup_sql", "confirm_sql"):
            print(f"--- {kind}")
            print("\n".join(sql[:220] for sql in counted[kind]))
    print(profile(rush, min(args.people, 200), args.top, args.dump))
    return 0


if __name__ == "__main__":
    sys.exit(main())

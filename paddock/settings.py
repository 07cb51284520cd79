"""Settings read from environment variables.

Production unless ``DEBUG`` is on: with DEBUG off (the default) the server refuses to start
without a ``SECRET_KEY`` of its own. ``DEBUG=true`` alone gives a laptop setup (what
``make run`` and the tests use): SQLite file, Celery tasks run inline, local memory cache,
a development key. ``DATABASE_URL`` switches to PostgreSQL, ``REDIS_URL`` to a Redis broker,
result backend and cache. ``PADDOCK_DATA_DIR`` is the folder of the SQLite file and the
backups (``make venue``: ``venue/``), ``SECRET_KEY_FILE`` a file holding the key, written
once with a new key when it does not exist yet (``make venue``).
"""

from __future__ import annotations

import datetime
import os
import secrets
from pathlib import Path
from urllib.parse import urlsplit

import dj_database_url
from celery.schedules import crontab
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _
from whitenoise.compress import Compressor

BASE_DIR = Path(__file__).resolve().parent.parent


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


def env_list(name: str, default: list[str]) -> list[str]:
    value = os.environ.get(name)
    if not value:
        return default
    return [item.strip() for item in value.split(",") if item.strip()]


# Only the laptop setup (DEBUG on) may fall back to this published key.
DEVELOPMENT_SECRET_KEY = "django-insecure-paddock-development-key-change-me-in-production"


def env_int(name: str, default: int) -> int:
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        return int(value)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {value!r}.") from None


def secret_key_from_file(path: Path) -> str:
    """The key kept in ``path``; a new one is written there first when the file does not exist.

    Created exclusively and readable by its owner only: two processes starting at once
    keep the same key, and other accounts of the laptop cannot read it.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(descriptor, "w") as file:
            file.write(secrets.token_urlsafe(50) + "\n")
    return path.read_text().strip()


def secret_key_problem(key: str) -> str | None:
    """Why ``key`` cannot sign a production's sessions and links, or None when it can.

    The rules of Django's deploy check (security.W009), enforced at start-up instead of
    left to a warning nobody runs.
    """
    if not key:
        return "SECRET_KEY is not set."
    if key == DEVELOPMENT_SECRET_KEY:
        return "SECRET_KEY is the development key, which is published with the code."
    if key.startswith("django-insecure-"):
        return "SECRET_KEY is Django's insecure placeholder (it starts with django-insecure-)."
    if len(key) < 50:
        return f"SECRET_KEY has {len(key)} characters; it needs 50 at least."
    if len(set(key)) < 5:
        return "SECRET_KEY repeats fewer than 5 different characters."
    return None


# Off unless set: a server someone forgot to configure is a production, not a laptop.
DEBUG = env_bool("DEBUG", False)
# Where the SQLite file, its backups and the venue's files live (make venue: venue/).
DATA_DIR = Path(env_str("PADDOCK_DATA_DIR") or BASE_DIR).resolve()
SECRET_KEY_FILE = env_str("SECRET_KEY_FILE")
SECRET_KEY = env_str("SECRET_KEY") or (
    secret_key_from_file(Path(SECRET_KEY_FILE))
    if SECRET_KEY_FILE
    else DEVELOPMENT_SECRET_KEY
    if DEBUG
    else ""
)
if not DEBUG and (problem := secret_key_problem(SECRET_KEY)):
    raise ImproperlyConfigured(
        f"{problem} With DEBUG off, Paddock needs a secret key of its own: generate one with "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))' and set the SECRET_KEY "
        "environment variable to it (or set DEBUG=true on a laptop)."
    )
# Old keys, comma-separated, while changing SECRET_KEY: they still open the sealed referee
# links (tournament/sealing.py) and sessions signed with them.
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS", [])
if not DEBUG:  # a published key among them would open the links and sessions as well
    for fallback in SECRET_KEY_FALLBACKS:
        if problem := secret_key_problem(fallback):
            raise ImproperlyConfigured(
                f"In SECRET_KEY_FALLBACKS: {problem.replace('SECRET_KEY', 'a key')} Remove "
                "it: an old key is kept there only while links signed with it are in use."
            )
# load_demo's published logins (README) only where DEBUG was on when the settings were read.
# Not DEBUG itself: test runners switch DEBUG off at run time, on the laptop setup.
DEMO_LOGINS_ALLOWED = DEBUG
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000")
# Clubs (DOMAIN.md "Clubs and who may do what"): on a server open to new clubs, any signed-in
# person creates one (and owns it); off (the default), the server's operator creates them.
CLUBS_OPEN = env_bool("CLUBS_OPEN", False)
# DOMAIN.md "Bounded" (tournament.site.ratelimit's budgets): past them, 429 with Retry-After.
CLUB_INVITATIONS_PER_HOUR = int(env_str("CLUB_INVITATIONS_PER_HOUR", "20"))
CLUBS_PER_PERSON_PER_DAY = int(env_str("CLUBS_PER_PERSON_PER_DAY", "3"))
ACCOUNT_REQUESTS_PER_HOUR = int(env_str("ACCOUNT_REQUESTS_PER_HOUR", "5"))

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "django_tables2",
    "simple_history",
    "ninja",
    "tournament",
    "qualifying",
    "races",
    "races.games",
    "standings",
    "standings.leagues",
    "paddock",
    "axes",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "tournament.site.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "tournament.site.middleware.LanguageMiddleware",
    # Before anything reads a body, after the language is chosen (its page is translated).
    "tournament.site.middleware.BodySizeMiddleware",
    # A database or Redis that does not answer: a 503 in the user's language, not a 500.
    "tournament.site.unavailable.ServiceUnavailableMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # make venue: organisers act from the laptop only (its user is replaced elsewhere).
    "tournament.site.accounts.laptop.LaptopOnlyMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "simple_history.middleware.HistoryRequestMiddleware",
    "tournament.site.middleware.LinkReplacedMiddleware",
    # A registrant's pages, an organiser's and the API's answers to a token: no-store.
    "tournament.site.middleware.NoStoreMiddleware",
    # An event away (a check-out under way): its writes answer 409, its pages say so. Before
    # the keys of writes sent twice: a write refused while away is not an answer to replay.
    "tournament.away.guard.AwayGuardMiddleware",
    # Offline tables: a write sent again with its Idempotency-Key answers its first answer.
    "tournament.offline.middleware.OfflineMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into its 429 page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "paddock.urls"
WSGI_APPLICATION = "paddock.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "tournament.site.context.navigation",
                "tournament.offline.context.offline",
            ],
        },
    },
]

DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    # A connection kept between requests is checked first: a restarted PostgreSQL costs a
    # reconnection, not an error page.
    DATABASES = {
        "default": dj_database_url.parse(DATABASE_URL, conn_max_age=60, conn_health_checks=True)
    }
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": DATA_DIR / "db.sqlite3",
            "OPTIONS": {
                # Referees save from several phones at once; wait for the lock instead of failing.
                "timeout": 20,
                "transaction_mode": "IMMEDIATE",
                # Write-ahead log: the players' pages read while race control writes. FULL:
                # each commit is on the disk before the referee is told "saved", so that a
                # power cut loses no acknowledged result (NORMAL could lose the last ones;
                # a write costs one more flush, which a day's few thousand writes afford).
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;",
            },
        }
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

REDIS_URL = env_str("REDIS_URL")
if REDIS_URL:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": REDIS_URL,
            # The token limiter and the public pages (tournament.public.cache) use the cache,
            # and both let requests through when it fails: a Redis outage must cost a
            # second, not hang every page.
            "OPTIONS": {
                "socket_connect_timeout": 1,
                "socket_timeout": 1,
                # JSON, not Django's default pickle: whoever can write into this Redis must
                # not be able to run code in the web processes (README, "Run it for real").
                "serializer": "tournament.public.serializer.JSONSerializer",
            },
        }
    }
    CELERY_BROKER_URL = REDIS_URL
    CELERY_RESULT_BACKEND = REDIS_URL
    CELERY_TASK_ALWAYS_EAGER = False
    # A task's message is acknowledged once it is done, and given back to the queue if the
    # process running it dies (kill -9, out of memory): another process runs it again. Every
    # task here is safe to run twice (tests/faults/test_celery_worker_killed.py).
    CELERY_TASK_ACKS_LATE = True
    CELERY_TASK_REJECT_ON_WORKER_LOST = True
    CELERY_WORKER_PREFETCH_MULTIPLIER = 1
elif env_str("CACHE_DIR"):
    # make venue: one cache for gunicorn's workers, in the data folder. A page built once
    # (by the first phone, or ahead of them at a publication) serves every worker.
    # diskcache: SQLite files of its own (never the app's database), safe across processes;
    # an operation that would wait on a lock gives up (the cache then misses, never blocks).
    CACHES = {
        "default": {
            "BACKEND": "tournament.public.shared_cache.SharedCache",
            "LOCATION": str(Path(env_str("CACHE_DIR")).resolve()),
            "SHARDS": 4,
            "DATABASE_TIMEOUT": 0.05,
            "OPTIONS": {"size_limit": 256 * 2**20},
        }
    }
else:
    # One per process: public pages are cached under keys that change with the database
    # (tournament.public.freshness), so two processes never disagree, each builds its own.
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "OPTIONS": {"MAX_ENTRIES": 3000},
        }
    }
if not REDIS_URL:  # tasks run inline, in the process that asks for them
    CELERY_BROKER_URL = "memory://localhost/"  # a host named: kombu warns otherwise
    CELERY_RESULT_BACKEND = "cache+memory://"
    CELERY_TASK_ALWAYS_EAGER = True
CELERY_TASK_EAGER_PROPAGATES = True
# The task modules a worker loads at start-up: they live in the package of their concern,
# not in an app's top-level tasks.py where autodiscovery would look.
CELERY_IMPORTS = ("races.sheets.tasks", "tournament.public.tasks", "standings.ratings.tasks")
# Sign-up (issue 29): the outbox, and the daily work beat sends (reminders are messages).
CELERY_IMPORTS += ("tournament.signup.tasks", "tournament.signup.broadcast")
CELERY_IMPORTS += ("tournament.site.accounts.tasks",)  # account and password reset mails
# Celery beat (``celery -A paddock beat``, beside the worker: README) sends the tasks that
# run on a clock. Sign-up's daily work at 6 in the morning, in TIME_ZONE: the reminders two
# days before, the unconfirmed registrations older than 7 days deleted. Without Redis (make
# venue, eager tasks) nothing sends them: ``manage.py signup_daily`` does the same by hand.
CELERY_BEAT_SCHEDULE = {
    "signup-daily": {
        "task": "tournament.signup_daily",
        "schedule": crontab(hour=6, minute=0),
    },
}
# Progress and outcome live in the database (SheetBatch): no task result is ever read, and
# not storing one means sending a task never waits on the result backend.
CELERY_TASK_IGNORE_RESULT = True
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True

# Every form that sets a password (admin, password change and reset, createsuperuser).
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {
        "NAME": "django.contrib.auth.password_validation.MinimumLengthValidator",
        "OPTIONS": {"min_length": 10},
    },
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
    # The demo's published passwords, and a common one with digits added ("motdepasse1").
    {"NAME": "tournament.site.accounts.passwords.KnownPasswordValidator"},
]
# Mail: EMAIL_HOST (SMTP) or EMAIL_BACKEND. Without either nothing is sent, and the password
# reset pages do not exist (tournament.site.accounts.urls): they would promise a mail that
# never comes.
# Sign-up (issue 29): without EMAIL_HOST, `make run` (DEBUG) writes each mail to a file in
# MAIL_DIR; `make venue` (DEBUG off, no internet) keeps them in the outbox, and the desk hands
# each registrant their link.
EMAIL_HOST = env_str("EMAIL_HOST")
EMAIL_BACKEND = env_str(
    "EMAIL_BACKEND",
    "django.core.mail.backends.smtp.EmailBackend"
    if EMAIL_HOST
    else "tournament.site.mailfiles.EmailBackend"  # files, this account's only
    if DEBUG
    else "django.core.mail.backends.dummy.EmailBackend",
)
EMAIL_FILE_PATH = str(Path(env_str("MAIL_DIR") or DATA_DIR / "mails").resolve())
EMAIL_PORT = int(env_str("EMAIL_PORT", "587"))
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER")
EMAIL_HOST_PASSWORD = env_str("EMAIL_HOST_PASSWORD")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", True)
# Unset: the site's name at SITE_URL's host ("Paddock <noreply@paddock.example.org>"), not
# Django's webmaster@localhost, which a receiving server takes for spam.
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL") or (
    f"Paddock <noreply@{urlsplit(SITE_URL).hostname or 'localhost'}>"
)
# Mails written to a folder reach nobody: no reset pages either.
PASSWORD_RESET_ENABLED = EMAIL_BACKEND not in (
    "django.core.mail.backends.dummy.EmailBackend",
    "django.core.mail.backends.filebased.EmailBackend",
    "tournament.site.mailfiles.EmailBackend",
)
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # With DEBUG off, a demo password opens nothing (a demo database restored on a server).
    "tournament.site.accounts.passwords.NoDemoLoginBackend",
    "django.contrib.auth.backends.ModelBackend",
]
# How many proxies in front append to X-Forwarded-For (tournament.site.client_ip); 0: clients
# connect to gunicorn directly and REMOTE_ADDR is their address.
TRUSTED_PROXY_COUNT = int(env_str("TRUSTED_PROXY_COUNT", "0"))
# Failed logins (django-axes, database handler so that a Redis outage never blocks a login).
# Only failures count, per username *and* address: a room of referees behind one address
# is never locked out by the others' successes or typos, and a lockout at one address never
# blocks the right password from another. Across usernames, an address that failed
# LOGIN_ADDRESS_FAILURE_LIMIT times within the cool-off (password spraying) is locked as a
# whole (tournament.site.ratelimit.axes_lockout_parameters: axes has one limit for all).
AXES_FAILURE_LIMIT = int(env_str("AXES_FAILURE_LIMIT", "5"))
LOGIN_ADDRESS_FAILURE_LIMIT = int(env_str("LOGIN_ADDRESS_FAILURE_LIMIT", "30"))
AXES_COOLOFF_TIME = datetime.timedelta(minutes=int(env_str("AXES_COOLOFF_MINUTES", "15")))
AXES_LOCKOUT_PARAMETERS = "tournament.site.ratelimit.axes_lockout_parameters"
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "axes.handlers.database.AxesDatabaseHandler"
AXES_CLIENT_IP_CALLABLE = "tournament.site.client_ip.client_ip"
AXES_LOCKOUT_CALLABLE = "tournament.site.ratelimit.login_locked"
# Bad referee links and API tokens (tournament.site.ratelimit, on the cache): failures only.
TOKEN_FAILURE_LIMIT = int(env_str("TOKEN_FAILURE_LIMIT", "20"))
TOKEN_FAILURE_WINDOW = int(env_str("TOKEN_FAILURE_WINDOW", "600"))
LOGIN_URL = "login"
# "My clubs" for a club's person, the championships for anyone else (tournament.clubs).
LOGIN_REDIRECT_URL = "after-login"
LOGOUT_REDIRECT_URL = "home"

LANGUAGE_CODE = "fr"
LANGUAGES = [("fr", _("French")), ("en", _("English"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
TIME_ZONE = env_str("TIME_ZONE", "Europe/Paris")
CELERY_TIMEZONE = TIME_ZONE  # Celery beat's clock (CELERY_BEAT_SCHEDULE)
USE_I18N = True
# English dates as day month year, 24 h (tournament/formats/en), not the US form.
FORMAT_MODULE_PATH = ["tournament.formats"]
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# make venue collects them here; a test may point it at a folder of its own.
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles").resolve()
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if not DEBUG
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# Collecting compresses every file twice over (gzip and brotli): only the hashed names pages
# link to are kept and compressed, and neither the source maps (read by a developer's
# browser tools alone) nor the PDF fonts (reportlab reads them from static/fonts/) are worth
# it. make venue's first start, and every start after an upgrade, waits on this.
WHITENOISE_KEEP_ONLY_HASHED_FILES = True
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = (*Compressor.SKIP_COMPRESS_EXTENSIONS, "map", "ttf")

DJANGO_TABLES2_TEMPLATE = "django_tables2/table.html"

if not DEBUG:
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # Uptime monitors may ask over plain HTTP from inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^health/$"]
    SECURE_HSTS_SECONDS = int(env_str("SECURE_HSTS_SECONDS", "31536000"))
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    SECURE_HSTS_PRELOAD = True
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# make venue (paddock/venue/day.py sets VENUE): the hall's Wi-Fi is plain HTTP and its
# password is on the poster. The organiser's pages answer on the laptop itself only
# (tournament.site.accounts.laptop) unless the organiser starts it with ORGANISERS_ON_WIFI=1, and a
# session lasts the day: its cookie goes when the browser closes, and the session itself
# 12 hours after its last change (a day at a hall, where midnight would cut a late final).
# Hosted servers keep Django's sessions (14 days) and every page on the network.
VENUE = env_bool("VENUE", False)
ORGANISERS_LAPTOP_ONLY = VENUE and not env_bool("ORGANISERS_ON_WIFI", False)
if VENUE:
    SESSION_EXPIRE_AT_BROWSER_CLOSE = True
    SESSION_COOKIE_AGE = 12 * 60 * 60

# Backups of the whole database (manage.py backup; make venue takes one every
# BACKUP_MINUTES): the last BACKUP_KEEP, and before them the last of each hour.
BACKUP_DIR = Path(env_str("BACKUP_DIR") or DATA_DIR / "backups").resolve()
BACKUP_MINUTES = env_int("BACKUP_MINUTES", 5)
BACKUP_KEEP = env_int("BACKUP_KEEP", 12)
# The last backup's outcome, for race control's desk (tournament.site.backup_state): in the
# data folder, not beside the backups, whose disk may be the full one.
BACKUP_STATE_FILE = Path(env_str("BACKUP_STATE_FILE") or DATA_DIR / "backup-state.json").resolve()

# Photos of the signed sheets (races/photos/), stored re-encoded under the data folder and
# served only to organisers and the table's own link (never through the public cache).
MEDIA_ROOT = Path(env_str("MEDIA_ROOT") or DATA_DIR / "media").resolve()
# One photo as sent (a 12-megapixel phone photo is 3 to 8 MB; HEIC less).
PHOTO_MAX_BYTES = env_int("PHOTO_MAX_BYTES", 20 * 1024 * 1024)
# A request carrying photos (a referee's, or a pile at the desk) may be this large; any other
# body stays under DATA_UPLOAD_MAX_MEMORY_SIZE (tournament.site.middleware.BodySizeMiddleware).
PHOTO_REQUEST_MAX_BYTES = env_int("PHOTO_REQUEST_MAX_BYTES", 160 * 1024 * 1024)
# Writes sent twice (tournament/offline): keys kept this long (24 h at least); a key left
# running by a server killed mid-request is taken over after this many seconds.
IDEMPOTENCY_KEEP_HOURS = env_int("IDEMPOTENCY_KEEP_HOURS", 48)
IDEMPOTENCY_STALE_SECONDS = env_int("IDEMPOTENCY_STALE_SECONDS", 90)

# The paths that take photos (races/photos/urls.py, the API's photo uploads).
PHOTO_UPLOAD_PATHS = (
    r"^/(?:[rq]/[^/]+/photos/|e/[^/]+/results/photos/"
    r"|api/v1/events/[^/]+/(?:(?:qualifying-)?tables/[^/]+/)?photos$"
    # The return of an event away carries its photos (tournament/away/).
    r"|api/v1/events/[^/]+/return$|e/[^/]+/away/return/)"
)

# Each line once (Django's own console handler is replaced, not added to), and a refusal
# the site meant (403, 404, a wrong host) as one line, without its traceback.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {
        "client_errors": {"()": "tournament.site.logs.ClientErrorsWithoutTraceback"},
        "link_secrets": {"()": "tournament.site.logs.LinkSecretsRedacted"},
    },
    "formatters": {
        "plain": {"format": "{asctime} {levelname} {name}: {message}", "style": "{"},
        "django.server": {
            "()": "django.utils.log.ServerFormatter",
            "format": "[{server_time}] {message}",
            "style": "{",
        },
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "filters": ["client_errors", "link_secrets"],
            "formatter": "plain",
        },
        "django.server": {
            "class": "logging.StreamHandler",
            "filters": ["link_secrets"],
            "formatter": "django.server",
        },
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "django": {"handlers": ["console"], "level": "INFO", "propagate": False},
        "django.server": {"handlers": ["django.server"], "level": "INFO", "propagate": False},
    },
}

# Error reports (Sentry or a compatible service), off unless SENTRY_DSN is set. Without
# personal data: no cookies, no client addresses, no user names.
SENTRY_DSN = env_str("SENTRY_DSN")
if SENTRY_DSN:
    import sentry_sdk
    from sentry_sdk.integrations.django import DjangoIntegration

    sentry_sdk.init(
        dsn=SENTRY_DSN,
        integrations=[DjangoIntegration()],
        environment=env_str("SENTRY_ENVIRONMENT", "production"),
        send_default_pii=False,
        traces_sample_rate=0.0,
    )

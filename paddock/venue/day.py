"""The tournament day on one laptop (``make venue``, ``manage.py venue``): the pieces.

The laptop's address on the hall's network, the settings the server gets from it, the
organiser's account asked on first start. gunicorn on every interface and the backups
taken while it serves are in ``serving.py``. The command
(``paddock/management/commands/venue.py``) runs them in order.
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.hashers import UNUSABLE_PASSWORD_PREFIX
from django.contrib.auth.password_validation import validate_password
from django.contrib.staticfiles import finders
from django.core.exceptions import ValidationError
from django.db import models, transaction
from django.utils import timezone, translation
from django.utils.text import slugify

from paddock.venue.database_backup import private_folder
from tournament.clubs.models import Club, Membership, Role
from tournament.models import Event
from tournament.site.accounts.passwords import DEMO_LOGINS, DEMO_PASSWORDS, close_account

#: Addresses a UDP socket is "connected" to, to learn which interface routes outwards. No
#: packet is sent: connect() on UDP only picks the route.
PROBES = ("192.0.2.1", "10.255.255.255", "8.8.8.8")


def _usable(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.version == 4 and not (ip.is_loopback or ip.is_unspecified or ip.is_link_local)


def lan_address() -> str | None:
    """The laptop's IPv4 address on its network (the one phones reach), or None."""
    for probe in PROBES:
        try:
            with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
                sock.connect((probe, 9))
                address = sock.getsockname()[0]
        except OSError:
            continue
        if _usable(address):
            return address
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        return None
    for info in infos:
        address = str(info[4][0])
        if _usable(address):
            return address
    return None


@dataclass(frozen=True)
class Venue:
    address: str
    port: int
    hostname: str
    #: The organiser's choice (``ORGANISERS_ON_WIFI=1``): organiser pages from any device of
    #: the network, not the laptop alone (tournament.site.accounts.laptop).
    organisers_on_wifi: bool = False

    @property
    def site_url(self) -> str:
        return f"http://{self.address}:{self.port}"

    @property
    def laptop_url(self) -> str:
        """The address of the organiser's pages on the laptop itself."""
        return f"http://127.0.0.1:{self.port}"

    def environment(self) -> dict[str, str]:
        """What the server's settings are read from: DEBUG off, this address as the host
        and site URL, plain HTTP on the hall's network (no TLS to redirect to)."""
        hosts = [self.address, "127.0.0.1", "localhost"]
        if self.hostname:
            hosts += [self.hostname, f"{self.hostname}.local"]
        origins = [f"http://{host}:{self.port}" for host in hosts]
        env = {
            "DEBUG": "false",
            "ALLOWED_HOSTS": ",".join(hosts),
            "SITE_URL": self.site_url,
            "CSRF_TRUSTED_ORIGINS": ",".join(origins),
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_COOKIES": "false",
            "SECURE_HSTS_SECONDS": "0",
            "PADDOCK_DATA_DIR": str(settings.DATA_DIR),
            # The photos of the sheets, where the backups look for them (venue/media/).
            "MEDIA_ROOT": str(settings.MEDIA_ROOT),
            # Shared by gunicorn's workers (public pages built once); Redis when set.
            "CACHE_DIR": os.environ.get("CACHE_DIR") or str(settings.DATA_DIR / "cache"),
            "TRUSTED_PROXY_COUNT": "0",  # phones reach gunicorn directly
            # Sessions for the day, organiser pages on the laptop only unless chosen here
            # (tournament.site.accounts.laptop): never from the shell's environment by accident.
            "VENUE": "true",
            "ORGANISERS_ON_WIFI": "true" if self.organisers_on_wifi else "false",
        }
        if not os.environ.get("SECRET_KEY") and not os.environ.get("SECRET_KEY_FILE"):
            env["SECRET_KEY"] = settings.SECRET_KEY
        return env


def featured_event(slug: str = "") -> Event | None:
    """The event the poster points to: ``slug``, else the next one (today or later), else
    the latest."""
    events = Event.objects.select_related("championship")
    if slug:
        return events.filter(slug=slug).first()
    today = timezone.localdate()
    return (
        events.filter(date__gte=today).order_by("date", "pk").first()
        or events.order_by("-date", "-pk").first()
    )


def static_files_current() -> bool:
    """True when the collected static files (with their manifest and brotli/gzip copies)
    are newer than every source file: collecting and compressing again takes seconds on
    a laptop (more on a slow one), which a restart in the middle of the day should not
    wait for."""
    manifest = Path(settings.STATIC_ROOT) / "staticfiles.json"
    if not manifest.exists():
        return False
    built = manifest.stat().st_mtime
    for finder in finders.get_finders():
        for path, storage in finder.list([]):
            if os.stat(storage.path(path)).st_mtime > built:
                return False
    return True


# --- The organiser's account ------------------------------------------------------------------


class NoAnswer(Exception):
    """Standard input closed before the question was answered."""


def _read(prompt: str, stdin: IO[str], stdout: IO[str], *, secret: bool) -> str:
    if secret and stdin.isatty():
        return getpass.getpass(prompt)
    stdout.write(prompt)
    stdout.flush()
    line = stdin.readline()
    if not line:
        raise NoAnswer()
    if not stdin.isatty() and not secret:
        stdout.write("\n")
    return line.rstrip("\n")


def organiser_exists() -> bool:
    """True when an active superuser can log in (a closed demo login cannot)."""
    return (
        get_user_model()
        .objects.filter(is_superuser=True, is_active=True)
        .exclude(password="")
        .exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX)
        .exists()
    )


def ask_organiser(stdin: IO[str], stdout: IO[str], *, attempts: int = 3) -> Any:
    """Ask for the organiser's username, password (twice) and club, and create the account
    (a superuser: the laptop's operator too) as the owner of that club (DOMAIN.md "Clubs and
    who may do what"): its championships and circuits are made from its pages, never in
    the admin.

    Django's password validators apply (the demo's and the common passwords refused,
    ``tournament.site.accounts.passwords``): a refused password is asked again, up to ``attempts``
    times, like the username and the club's name. Raises ``NoAnswer`` when nobody answers.
    """
    User = get_user_model()
    username = ""
    for _attempt in range(attempts):
        username = _read("Organiser's username: ", stdin, stdout, secret=False).strip()
        if not username:
            stdout.write("A username is needed.\n")
        elif User.objects.filter(username=username).exists():
            stdout.write(f"{username} exists already: choose another name.\n")
        else:
            break
    else:
        raise NoAnswer()
    for _attempt in range(attempts):
        password = _read("Password: ", stdin, stdout, secret=True)
        again = _read("Password (again): ", stdin, stdout, secret=True)
        if password != again:
            stdout.write("The two passwords differ: once more.\n")
            continue
        # In the prompts' language (the words are read inside): a French refusal among
        # English questions misled.
        with translation.override("en"):
            try:
                validate_password(password, User(username=username))
                refused = ""
            except ValidationError as exc:
                refused = " ".join(exc.messages)
        if refused:
            stdout.write(refused + " Once more.\n")
            continue
        club = _ask_club(stdin, stdout, attempts=attempts)
        with transaction.atomic():
            user = User.objects.create_superuser(username=username, password=password, email="")
            Membership.objects.create(
                club=Club.objects.create(slug=_free_club_slug(club), name=club),
                user=user,
                role=Role.OWNER,
            )
        return user
    raise NoAnswer()


def _ask_club(stdin: IO[str], stdout: IO[str], *, attempts: int) -> str:
    for _attempt in range(attempts):
        name = " ".join(_read("Your club's name: ", stdin, stdout, secret=False).split())
        if not name:
            stdout.write("A name is needed: the club owns the championships made here.\n")
        elif len(name) > 200:
            stdout.write("200 characters at most.\n")
        else:
            return name
    raise NoAnswer()


def _free_club_slug(name: str) -> str:
    """The club's address: its name in lowercase letters, digits and hyphens, made unique."""
    base = slugify(name)[:50].strip("-") or "club"
    slug, n = base, 2
    while Club.objects.filter(slug=slug).exists():
        slug, n = f"{base}-{n}", n + 1
    return slug


def close_demo_logins() -> list[str]:
    """Close every login that still opens with a published demo password (a demo database
    restored into the venue, or one loaded with DEBUG on): its password becomes unusable,
    which ends its sessions too. Answers the usernames closed.

    Closed rather than refusing to serve: the hall keeps its pages and every result, and the
    organiser logs in with an account of their own (asked for at once if none is left).
    Checked: the demo's usernames and every superuser or staff account, against each demo
    password (a few hashes at start, a second at most).
    """
    User = get_user_model()
    suspects = (
        User.objects.filter(is_active=True)
        .filter(
            models.Q(username__in=list(DEMO_LOGINS))
            | models.Q(is_superuser=True)
            | models.Q(is_staff=True)
        )
        .exclude(password="")
        .exclude(password__startswith=UNUSABLE_PASSWORD_PREFIX)
        .order_by("pk")
    )
    closed = []
    for user in suspects:
        if any(user.check_password(password) for password in sorted(DEMO_PASSWORDS)):
            close_account(user)  # its API tokens too
            closed.append(user.get_username())
    return closed


def protect_data(data_dir: Path, base_dir: Path, database: Any) -> None:
    """The data folder readable by this account only (0700, like the backups'), and the live
    SQLite file with its journal (0600): they hold every result, e-mail and session of the
    day. The project's own folder (no data folder given) keeps its mode."""
    if data_dir.resolve() != base_dir.resolve():
        private_folder(data_dir)
    if database:
        for suffix in ("", "-wal", "-shm"):
            path = Path(f"{database}{suffix}")
            if path.exists():
                path.chmod(0o600)

from __future__ import annotations

import datetime
import re

import pytest
from django.utils import timezone

CONFIRM = re.compile(r"/registrations/confirm/([A-Za-z0-9_-]+)/")
OWN = re.compile(r"/registrations/(?!confirm/)([A-Za-z0-9_-]+)/")


@pytest.fixture
def open_event(make_event):
    """An event whose registration is open, first come first served, two seats."""
    from tournament.signup.models import Announcement

    def build(capacity: int | None = 2, **options):
        event = make_event(n_drivers=0, **options)
        Announcement.objects.create(
            event=event,
            capacity=capacity,
            opens_at=timezone.now() - datetime.timedelta(days=1),
            closes_at=timezone.now() + datetime.timedelta(days=10),
        )
        return event

    return build


def sent(mail) -> tuple[str, str]:
    """The text and HTML bodies of ``mail`` as they leave, the link written in (the row
    keeps it sealed apart: ``mails.bodies_as_sent``)."""
    from tournament.signup import mails

    bodies = mails.bodies_as_sent(mail)
    assert bodies is not None, "the mail's link does not unseal"
    return bodies


def sent_text(mail) -> str:
    return sent(mail)[0]


def last_token(email: str, pattern: re.Pattern = CONFIRM) -> str:
    """The token of the last mail to ``email`` carrying a link of ``pattern``."""
    from tournament.signup.models import Mail

    for mail in Mail.objects.filter(to=email).order_by("-pk"):
        found = pattern.search(sent_text(mail))
        if found:
            return found.group(1)
    raise AssertionError(f"no link mailed to {email}")


@pytest.fixture
def sign_up_confirmed():
    """Sign up and confirm ``email`` at ``event``; answers the registration and its link."""
    from tournament.signup import services

    def run(event, email: str, first_name: str = "Élodie", **extra):
        services.registration_sign_up(
            event=event, first_name=first_name, last_name="Lefèvre", email=email, **extra
        )
        return services.registration_confirm(token=last_token(email))

    return run


@pytest.fixture
def desk_member(django_user_model, championship):
    """A desk member of the club that owns the championship (DOMAIN.md "Clubs and who may do
    what": the day's counter only)."""
    from tournament.models import Club, Membership

    club = Club.objects.create(slug="club-coupe", name="Club de la Coupe")
    championship.club = club
    championship.save(update_fields=["club"])
    user = django_user_model.objects.create_user("guichet", password="guichet-password-1")
    Membership.objects.create(club=club, user=user, role="desk")
    return user

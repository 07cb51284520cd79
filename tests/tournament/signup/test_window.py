"""The registration window and the edit deadline at their boundary instants (DOMAIN.md
"Before the day"; issue 40, tests a deliberate bug must fail): a sign-up at ``opens_at``
is taken, a microsecond before it is not; a change or a cancellation a microsecond before
``edit_until`` is taken, at it not."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from tournament.errors import Conflict
from tournament.signup import services
from tournament.signup.models import Announcement, Registration

pytestmark = pytest.mark.django_db

TICK = datetime.timedelta(microseconds=1)
OPENS = timezone.now().replace(microsecond=500_000) + datetime.timedelta(days=3)


def sign_up(event, now: datetime.datetime, email: str) -> None:
    services.registration_sign_up(
        event=event, now=now, first_name="Élodie", last_name="Lefèvre", email=email
    )


def test_sign_up_opens_exactly_at_opens_at(open_event):
    event = open_event()
    Announcement.objects.filter(event=event).update(opens_at=OPENS, closes_at=None)
    with pytest.raises(Conflict, match="opens on"):
        sign_up(event, OPENS - TICK, "early@example.org")
    sign_up(event, OPENS, "on-time@example.org")
    assert list(Registration.objects.values_list("email", flat=True)) == ["on-time@example.org"]


def test_changes_and_cancellation_end_exactly_at_edit_until(open_event, sign_up_confirmed):
    event = open_event()
    registration, _link = sign_up_confirmed(event, "e@example.org")
    until = timezone.now().replace(microsecond=500_000) + datetime.timedelta(days=2)
    Announcement.objects.filter(event=event).update(edit_until=until)
    services.registration_edit(registration=registration, now=until - TICK, team="Rouge")
    with pytest.raises(Conflict, match="deadline"):
        services.registration_edit(registration=registration, now=until, team="Bleu")
    with pytest.raises(Conflict):
        services.registration_cancel(registration=registration, now=until)
    assert Registration.objects.get().status == "accepted"
    services.registration_cancel(registration=registration, now=until - TICK)
    assert Registration.objects.get().status == "cancelled"

"""The French words of sign-up (issue 51, item 12): the venue is « Lieu » in race control's
form too, « Pas d’e-mail », « cet e-mail », a counter's colon after its no-break space, and
the confirmation page names the event it confirms."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation
from django.utils.html import escape
from django.utils.translation import gettext

from tests.tournament.signup.conftest import last_token
from tournament.signup import services
from tournament.signup.forms import AnnouncementForm

pytestmark = pytest.mark.django_db


def test_the_catalogue_s_elisions_and_the_venue_in_the_form() -> None:
    with translation.override("fr"):
        assert str(AnnouncementForm().fields["place"].label) == "Lieu"
        late = gettext("No mail after a few minutes? Look in your spam folder, or sign up again.")
        assert late.startswith("Pas d’e-mail")
        ignore = gettext("The link works for 24 hours. If you did not sign up, ignore this mail.")
        assert "ignorez cet e-mail" in ignore


def test_the_desk_s_counts_put_a_no_break_space_before_the_colon(open_event, organiser):
    event = open_event()
    client = Client()
    client.force_login(organiser)
    html = client.get(f"/e/{event.slug}/desk/registrations/").content.decode()
    assert "Acceptés\xa0:" in html and "Acceptés:" not in html


def test_the_confirmation_page_names_the_event(open_event):
    event = open_event()
    services.registration_sign_up(event=event, first_name="A", last_name="B", email="a@example.org")
    page = Client().get(f"/registrations/confirm/{last_token('a@example.org')}/")
    assert page.status_code == 200 and escape(event.name) in page.content.decode()

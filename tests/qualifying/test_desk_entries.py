"""Race control's desk keeps its entries table (every entry and its check-in buttons, half
the desk's time at 300 drivers) built once per version of the entries, drivers and teams
(``qualifying.views._entries_table``): each organiser's forms still carry their own CSRF
token, and a check-in, a renamed driver or a language shows at once.

Committed for real (``transaction=True``): the change counters move at commit."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tournament.models import Driver

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.keeps_context]


@pytest.fixture
def event(make_event):
    return make_event(n_drivers=4)


def desk_client(user) -> Client:
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    client.cookies["django_language"] = "en"
    return client


def table_of(html: str) -> str:
    return html.split('<table class="striped entries">', 1)[1].split("</table>", 1)[0]


def forms_of(html: str) -> list[str]:
    return re.findall(r'<form method="post" action="/e/[^"]+/checkin/\d+/".*?</form>', html, re.S)


def test_the_entries_table_is_built_once_and_each_organiser_posts_with_their_own_token(
    event, organiser, django_user_model
):
    colleague = django_user_model.objects.create_user("pc2")
    event.championship.organisers.add(colleague)
    desk = reverse("event-desk", args=[event.slug])
    first, second = desk_client(organiser), desk_client(colleague)
    built_page = first.get(desk)
    again_page = second.get(desk)
    # Built for the first, stored: the second desk renders no row.
    assert "tournament/_checkin.html" in [t.name for t in built_page.templates]
    assert "tournament/_checkin.html" not in [t.name for t in again_page.templates]
    built, again = built_page.content.decode(), again_page.content.decode()
    assert len(forms_of(built)) == len(forms_of(again)) == 4
    # The same table but for the CSRF tokens (64 characters, masked anew for each page).
    assert re.sub(r"[A-Za-z0-9]{64}", "", table_of(built)) == re.sub(
        r"[A-Za-z0-9]{64}", "", table_of(again)
    )
    assert "csrf-token-of-this-visitor" not in again

    # The colleague checks driver 3 in with the token of their own page: accepted.
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', forms_of(again)[2])[1]
    checkin = reverse("desk-checkin", args=[event.slug, 3])
    answer = second.post(checkin, {"state": "present", "csrfmiddlewaretoken": token})
    assert answer.status_code == 302
    # At once on the other organiser's desk.
    row = forms_of(first.get(desk).content.decode())[2]
    assert "✓ Present" in row and 'value="none"' in row


def test_a_renamed_driver_and_another_language_show_at_once(event, organiser):
    desk = reverse("event-desk", args=[event.slug])
    client = desk_client(organiser)
    assert "Check in" in client.get(desk).content.decode()
    Driver.objects.filter(championship=event.championship, number=2).update(first_name="Zoé")
    assert "Zoé Lefèvre" in client.get(desk).content.decode()
    client.cookies["django_language"] = "fr"
    french = client.get(desk).content.decode()
    assert ">Pointer</button>" in french and ">Check in</button>" not in french

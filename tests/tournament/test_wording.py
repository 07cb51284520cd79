"""French words as the catalogue gives them: typography (a non-breaking space before
: ; ! ? and inside « »), plurals through ngettext (no "pilote(s)"), and the desk's lines
built around a colon ("Séance 1 :", "Tirage 1 :"). No database but the desk page's."""

from __future__ import annotations

import datetime
import gettext
import re
from pathlib import Path

import pytest
from django.conf import settings
from django.urls import reverse
from django.utils import formats, translation

from qualifying.services import session_create
from tournament.access import Actor


def french_catalogue() -> dict[object, str]:
    """Paddock's own French catalogue (Django's and the libraries' left out)."""
    (folder,) = settings.LOCALE_PATHS
    with open(Path(folder) / "fr" / "LC_MESSAGES" / "django.mo", "rb") as compiled:
        return dict(gettext.GNUTranslations(compiled)._catalog)  # type: ignore[attr-defined]


def test_french_punctuation_has_its_non_breaking_space() -> None:
    plain = {
        key: text for key, text in french_catalogue().items() if re.search(r" [:;!?»]|« ", text)
    }
    assert plain == {}


def test_french_plurals_go_through_ngettext() -> None:
    for key, text in french_catalogue().items():
        assert "pilote(s)" not in text, key
        assert "Personne trouvé" not in text, key
    with translation.override("fr"):
        assert (
            translation.ngettext("%(count)s table", "%(count)s tables", 1) % {"count": 1}
            == "1 table"
        )


@pytest.mark.django_db
def test_the_desk_writes_session_1_colon_the_french_way(client, organiser, make_event):
    event = make_event(n_drivers=2)
    session_create(actor=Actor(user=organiser), event=event, number=1, weather_roll=15)
    client.force_login(organiser)

    html = client.get(reverse("event-desk", args=[event.slug])).content.decode()

    assert "<strong>Séance 1</strong>\u00a0: d20 = 15" in html
    assert not re.search(r"\b1 étapes", html)
    assert not re.search(r"\b1 tables\b", html)


def test_dates_follow_the_locale_and_never_the_us_form() -> None:
    moment = datetime.datetime(2026, 7, 14, 15, 5)
    with translation.override("en"):
        assert formats.date_format(moment.date()) == "14 July 2026"
        assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "14/07/2026 15:05"
        assert formats.time_format(moment.time()) == "15:05"
    with translation.override("fr"):
        assert formats.date_format(moment.date()) == "14 juillet 2026"
        assert formats.date_format(moment, "SHORT_DATETIME_FORMAT") == "14/07/2026 15:05"

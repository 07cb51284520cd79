"""The admin in race control's words: every model named in French (its singular and its
plural are in the French catalogue), and the points scale edited as a list of numbers
("25 18 15"), not as raw JSON."""

from __future__ import annotations

import gettext
from pathlib import Path

import pytest
from django.apps import apps
from django.conf import settings
from django.urls import reverse

from tournament.models import Championship

APPS = ("tournament", "qualifying", "races")


def french() -> dict[object, str]:
    (folder,) = settings.LOCALE_PATHS
    with open(Path(folder) / "fr" / "LC_MESSAGES" / "django.mo", "rb") as compiled:
        return dict(gettext.GNUTranslations(compiled)._catalog)  # type: ignore[attr-defined]


def _models():
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            if not model.__name__.startswith("Historical"):
                yield model


def test_every_model_is_named_in_french() -> None:
    catalogue = french()
    missing = []
    for model in _models():
        for name in (model._meta.verbose_name, model._meta.verbose_name_plural):
            text = getattr(name, "_proxy____args", [str(name)])[0]
            if text not in catalogue:
                missing.append(f"{model._meta.label}: {text}")
    assert missing == []


@pytest.mark.django_db
def test_the_points_scale_is_a_list_of_numbers_in_the_admin(client, django_user_model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    championship = Championship.objects.create(
        slug="cf", name="Coupe", season="2026", points_scale=[10, 8, 6]
    )
    url = reverse("admin:tournament_championship_change", args=[championship.pk])

    page = client.get(url).content.decode()
    assert 'name="points_scale"' in page and 'value="10 8 6"' in page

    form = {
        "slug": "cf",
        "name": "Coupe",
        "season": "2026",
        "points_scale": "25 18 15 12",
        "points_mode": "per_table",
        "best_results": "",
    }
    refused = client.post(url, {**form, "points_scale": "25 dix"})
    assert refused.status_code == 200
    assert "dix\u00a0» n’est pas un nombre de points" in refused.content.decode()
    assert client.post(url, form).status_code == 302
    championship.refresh_from_db()
    assert championship.points_scale == [25, 18, 15, 12]

"""Every model of the three apps has its admin page, for data fixes (issue 2), and the
results are read-only there: they change through their workflow, never behind it."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib import admin
from django.urls import reverse

from races.models import RaceResult, ResultLine

APPS = ("tournament", "qualifying", "races")


def _models():
    for label in APPS:
        for model in apps.get_app_config(label).get_models():
            if not model.__name__.startswith("Historical"):
                yield model


@pytest.mark.parametrize("model", list(_models()), ids=lambda m: m._meta.label)
def test_every_model_is_in_the_admin(model):
    assert admin.site.is_registered(model), f"{model._meta.label} has no admin page"


@pytest.mark.django_db
@pytest.mark.parametrize("model", list(_models()), ids=lambda m: m._meta.label)
def test_every_admin_list_opens_for_a_superuser(client, django_user_model, model):
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
    assert client.get(url, {"q": "1"}).status_code == 200


@pytest.mark.parametrize("model", [RaceResult, ResultLine])
def test_results_cannot_be_edited_in_the_admin(rf, model):
    model_admin = admin.site._registry[model]
    request = rf.get("/")
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request)
    assert not model_admin.has_delete_permission(request)


@pytest.mark.django_db
def test_a_championship_slug_is_derived_from_its_name_in_the_admin(client, django_user_model):
    """Issue 32, item 8: the slug was typed by hand; the admin now derives it from the name
    and season as they are typed (Django's prepopulated fields)."""
    client.force_login(django_user_model.objects.create_superuser("root", password="x"))
    html = client.get(reverse("admin:tournament_championship_add")).content.decode()
    assert "prepopulated-fields" in html
    assert "&quot;#id_slug&quot;" in html and "&quot;#id_name&quot;" in html

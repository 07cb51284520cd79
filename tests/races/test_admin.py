"""The admin is no side door (DOMAIN.md, "What the day enforces, continued"): the race
weather, the table draws, a table's weather and start are read-only in the Django admin,
and so are the stands and configurations of a started table (§5-0-2: in ink)."""

from __future__ import annotations

import pytest
from django.contrib import admin
from django.urls import reverse

from races.grid.start import configurations_set, stands_set, table_start
from races.models import CarConfiguration, GridSlot, RaceTable, RaceWeather, WeatherDraw
from races.weather.services import race_weather_draw, table_weather_draw
from tests.races.conftest import VALID
from tournament.models import Event

pytestmark = pytest.mark.django_db


@pytest.fixture
def root(client, django_user_model):
    user = django_user_model.objects.create_superuser("root", password="x")
    client.force_login(user)
    return client


@pytest.fixture
def configured(allocated, actor):
    """Table 1 of a variable race with its stands and configurations, not started yet."""
    Event.objects.filter(pk=allocated.pk).update(use_configurations=True)
    race_weather_draw(actor=actor, event=allocated, roll=6)
    table = RaceTable.objects.get(event=allocated, number=1)
    stands_set(actor=actor, table=table, stands={4: 1, 2: 2, 5: 3})
    configurations_set(actor=actor, table=table, configurations=dict.fromkeys((4, 2, 5), VALID))
    return table


def change_url(obj) -> str:
    return reverse(f"admin:races_{obj._meta.model_name}_change", args=[obj.pk])


def test_the_race_weather_and_the_table_draws_are_read_only(root, configured, actor):
    table_start(actor=actor, table=configured)
    table_weather_draw(actor=actor, table=configured, roll=2)
    for model in (RaceWeather, WeatherDraw):
        obj = model.objects.get()
        assert root.get(change_url(obj)).status_code == 200  # shown, with its history
        assert root.post(change_url(obj), {"roll": "20"}).status_code == 403
    assert (RaceWeather.objects.get().roll, WeatherDraw.objects.get().roll) == (6, 2)


def test_a_tables_weather_and_start_are_read_only(rf, configured):
    request = rf.get("/")
    readonly = admin.site._registry[RaceTable].get_readonly_fields(request, configured)
    assert {"weather", "track", "weather_fixed", "started_at", "result_status"} <= set(readonly)


def test_a_started_tables_stands_and_configurations_are_read_only(root, configured, actor):
    configuration = CarConfiguration.objects.filter(slot__table=configured).first()
    slot = GridSlot.objects.get(table=configured, position=1)
    page = root.get(change_url(configuration)).content.decode()
    assert 'name="_save"' in page  # before the start, a data fix stays possible

    table_start(actor=actor, table=configured)

    for obj in (configuration, slot):
        assert 'name="_save"' not in root.get(change_url(obj)).content.decode()
        assert root.post(change_url(obj), {"tyres": "10", "stand": "9"}).status_code == 403
    assert CarConfiguration.objects.get(pk=configuration.pk).tyres == VALID["tyres"]
    assert GridSlot.objects.get(pk=slot.pk).stand == 1
    table_page = root.get(change_url(configured)).content.decode()
    assert 'name="slots-0-stand"' not in table_page  # the inline grid is read-only too

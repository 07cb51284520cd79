"""Reads of a career (standings/careers/selectors.py) beyond what the page and the API
tests show: merges followed to the survivor, a circle of merges stopped."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from standings.careers.selectors import career_for, survivor_of
from tournament.models import Player

pytestmark = pytest.mark.django_db


def players(count: int) -> list[Player]:
    return [Player.objects.create(first_name=f"J{i}", last_name="Dupont") for i in range(count)]


def test_a_merge_of_a_merge_leads_to_the_last_survivor():
    first, second, third = players(3)
    Player.objects.filter(pk=first.pk).update(merged_into=second)
    Player.objects.filter(pk=second.pk).update(merged_into=third)
    first.refresh_from_db()
    assert survivor_of(first) == third
    assert survivor_of(third) == third


def test_a_circle_of_merges_stops_and_its_page_is_a_404():
    """Never written by the services, but a hand-edited database must not loop."""
    one, two = players(2)
    Player.objects.filter(pk=one.pk).update(merged_into=two)
    Player.objects.filter(pk=two.pk).update(merged_into=one)
    one.refresh_from_db()
    assert survivor_of(one).merged_into_id is not None
    assert Client().get(reverse("career", args=[one.pk])).status_code == 404


def test_a_reader_who_organises_nothing_sees_the_published_seasons_only(seasons):
    career = career_for(player=seasons.player, organises=lambda championship: False)
    assert [len(s.events) for s in career.seasons] == [1, 1]
    assert not career.organiser and not any(s.is_organiser for s in career.seasons)
    organiser = career_for(
        player=seasons.player, organises=lambda championship: championship == seasons.second
    )
    assert [len(s.events) for s in organiser.seasons] == [2, 1]
    assert organiser.organiser

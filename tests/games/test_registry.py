"""The games' registry (``tournament.games.registry``): no module outside ``races/games/``
names another game than Formula Dé (ARCHITECTURE.md, "Where a new thing goes": a game is one
package), ``Event.game``'s values come from the registry, and ``GET /api/v1/games``."""

from __future__ import annotations

import io
import tokenize
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError

from tournament.games import registry
from tournament.models import Event

ROOT = Path(__file__).resolve().parents[2]
APPS = ("tournament", "qualifying", "races")
GAMES_PACKAGE = ROOT / "races" / "games"


def _other_games_words() -> dict[str, tuple[str, ...]]:
    return {
        spec.key: spec.names_of() for spec in registry.games() if spec.key != registry.MAIN_GAME
    }


def naming_lines(text: str, words: dict[str, tuple[str, ...]]) -> list[tuple[int, str]]:
    """``(line, game)`` of every name, text or comment of Python ``text`` naming a game."""
    found = []
    for token in tokenize.generate_tokens(io.StringIO(text).readline):
        if token.type not in (tokenize.NAME, tokenize.STRING, tokenize.COMMENT):
            continue
        folded = token.string.lower().replace("–", "-")
        for game, names in words.items():
            if any(name in folded for name in names):
                found.append((token.start[0], game))
    return sorted(set(found))


def test_naming_lines_finds_names_texts_and_comments() -> None:
    words = {"toy": ("toy", "toygame")}
    text = 'import x\nclass ToyGameOut:  # a toy\n    s = "Toy"\nboy = 1\n'
    assert naming_lines(text, words) == [(2, "toy"), (3, "toy")]


def test_no_module_outside_the_games_package_names_another_game() -> None:
    """The one exception is Formula Dé, the main game (ARCHITECTURE.md)."""
    words = _other_games_words()
    assert {"rallyman", "cannes_monaco", "racetrack", "finishing_order"} <= set(words)
    stray = [
        f"{path.relative_to(ROOT)}:{line} names {game}"
        for app in APPS
        for path in sorted((ROOT / app).rglob("*.py"))
        if "migrations" not in path.parts and GAMES_PACKAGE not in path.parents
        for line, game in naming_lines(path.read_text(), words)
    ]
    assert stray == []


def test_the_check_would_fail_on_a_module_naming_a_game(tmp_path: Path) -> None:
    module = tmp_path / "stray.py"
    module.write_text('if event.game == "racetrack":  # a game named in the core\n    pass\n')
    assert naming_lines(module.read_text(), _other_games_words()) == [(1, "racetrack")]


def test_event_game_values_come_from_the_registry() -> None:
    keys = [spec.key for spec in registry.games()]
    assert keys[0] == registry.MAIN_GAME == Event.Game.FORMULA_DE
    assert Event.Game.values == keys
    assert [key for key, _label in Event._meta.get_field("game").choices] == keys
    toy = registry.GameSpec(key="toy_race", name="Toy race", result="finish")
    with registry.registered(toy):
        assert "toy_race" in Event.Game.values
        assert Event.Game("toy_race").label == "Toy race"
        assert ("toy_race", "Toy race") in list(Event._meta.get_field("game").choices)
    assert "toy_race" not in Event.Game.values
    with pytest.raises(ValueError):
        Event.Game("toy_race")


def test_a_named_game_is_its_own_family() -> None:
    spec = registry.game("finishing_order")
    assert spec is not None and spec.named
    assert spec.family("Heat: Pedal to the Metal") == "heat-pedal-to-the-metal"
    assert spec.family("Flamme Rouge") == "flamme-rouge"
    assert registry.spec_of("rallyman").family("anything") == "rallyman"


def test_a_family_keeps_distinct_names_distinct_in_any_script() -> None:
    """DOMAIN.md "Every game's evening": no cut merges two names, Unicode letters stay."""
    spec = registry.spec_of("finishing_order")
    assert spec.family("Хит") == "хит"
    assert spec.family("Ηeat Ελλάς") == "ηeat-ελλάς"  # a Greek capital Eta, not an H
    long = "Heat: Pedal to the Metal, the club's own championship variant "
    one, two = spec.family(long + "A"), spec.family(long + "B")
    assert one != two and len(one) <= registry.FAMILY_MAX and one.startswith("heat-pedal")
    assert spec.family(long + "A") == one  # the same name, the same family


@pytest.mark.django_db
def test_a_name_in_another_script_is_a_game_of_its_own(make_event) -> None:
    event = make_event(2, slug="hit", game="finishing_order", game_name="Хит")
    event.circuit = None
    event.full_clean()
    event.game_name = "!!!"
    with pytest.raises(ValidationError) as refused:
        event.full_clean()
    assert "letter or digit" in str(refused.value)


def test_a_setting_of_another_game_is_refused_for_a_strict_game_only() -> None:
    assert registry.foreign_settings("finishing_order", {"crash_limit", "game_name"}) == [
        "crash_limit"
    ]
    # The older games accept what they always accepted, but a strict game's own settings.
    assert registry.foreign_settings("racetrack", {"qualifying_mode", "laps"}) == []
    assert registry.foreign_settings("formula_de", {"game_name", "grid"}) == ["game_name", "grid"]


@pytest.mark.django_db
def test_the_home_page_links_the_ranking_of_every_family_in_use(client, make_event):
    """The registry's games, then each named game of a public event (never a private one)."""
    make_event(
        2, slug="fr", game="finishing_order", game_name="Flamme Rouge", published_results=True
    )
    make_event(2, slug="secret", game="finishing_order", game_name="Secret <b>game</b>")
    client.cookies["django_language"] = "en"
    html = client.get("/").content.decode()
    for family in ("formula_de", "rallyman", "cannes_monaco", "racetrack", "flamme-rouge"):
        assert f'href="/ratings/{family}/"' in html
    assert ">Flamme Rouge</a>" in html and "Secret" not in html
    assert "/ratings/finishing_order/" not in html


@pytest.mark.django_db
def test_the_desk_links_a_game_s_own_pages_from_its_registry_entry(client, make_event, organiser):
    rally = make_event(2, slug="rally", game="rallyman", qualifying_mode="draw")
    make_event(2, slug="fd")
    client.force_login(organiser)
    assert registry.spec_of("rallyman").desk_pages[0][0] == "rally-desk"
    assert 'href="/e/rally/rally/"' in client.get(f"/e/{rally.slug}/desk/").content.decode()
    assert "/rally/" not in client.get("/e/fd/desk/").content.decode()

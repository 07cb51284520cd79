"""The house moved (ARCHITECTURE.md: the roof is ``paddock/``, the standings floor
``standings/``) without moving a table: a database or a backup made before the move migrates
and restores as it is, with the same rows.

No model changed app: ``standings`` and ``paddock`` have none, and no migration of theirs;
the migrations of the apps that hold the models still describe them exactly, so ``migrate``
on an older database has nothing to do. The restore of make venue's backups is tested in
``tests/paddock/venue/``.
"""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from django.apps import apps
from django.core.management import call_command

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("label", ["standings", "paddock"])
def test_the_new_apps_hold_no_model_and_no_migration(label: str) -> None:
    config = apps.get_app_config(label)
    assert list(config.get_models()) == []
    assert not (ROOT / label / "migrations").exists()


def test_the_models_tables_are_their_apps_own() -> None:
    """Each table keeps the name its app's migrations made (no ``db_table`` pointing at a
    table of another app, as a model moved with ``SeparateDatabaseAndState`` would)."""
    borrowed = [
        f"{model._meta.label}: {model._meta.db_table}"
        for model in apps.get_models()
        if model._meta.managed
        and not model._meta.db_table.startswith(f"{model._meta.app_label}_")
        and model._meta.app_label in {"tournament", "qualifying", "races", "games"}
    ]
    assert borrowed == []


@pytest.mark.django_db
def test_the_migrations_still_describe_every_model() -> None:
    """``makemigrations --check``: nothing to write, so a database of the old layout is
    already at the new layout's state."""
    out = io.StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out, stderr=out)
    assert "No changes detected" in out.getvalue()

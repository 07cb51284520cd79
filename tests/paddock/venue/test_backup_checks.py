"""The reference schema kept on disk (``backup_checks.cache_folder``): read only where no one
but this user could have written it, so that a planted reference never weakens the check of
a restore (tests/paddock/venue/test_restore_sqlite.py checks the refusals themselves)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from paddock.venue import backup_checks

#: What a planted reference would say: the red team's trigger is Paddock's.
PLANTED = json.dumps({"trigger leak": ["django_session", "CREATE TRIGGER leak ..."]})


@pytest.fixture
def kept(tmp_path: Path) -> Path:
    folder = tmp_path / "schemas"
    folder.mkdir(mode=0o700)
    path = folder / "schema-0.json"
    path.write_text(PLANTED)
    path.chmod(0o600)
    return path


def test_a_reference_of_this_user_alone_is_read(kept: Path) -> None:
    assert backup_checks.cached_schema(kept) == PLANTED


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o644])
def test_a_reference_others_may_use_is_not_read(kept: Path, mode: int) -> None:
    kept.chmod(mode)
    assert backup_checks.cached_schema(kept) is None


def test_a_reference_in_a_folder_others_may_write_is_not_read(kept: Path) -> None:
    kept.parent.chmod(0o733)
    assert backup_checks.cached_schema(kept) is None


def test_a_link_to_a_reference_is_not_followed(kept: Path) -> None:
    link = kept.parent / "schema-1.json"
    link.symlink_to(kept)
    assert backup_checks.cached_schema(link) is None


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file away takes root")
def test_a_reference_of_another_account_is_not_read(kept: Path) -> None:
    os.chown(kept, 65534, 65534)
    assert backup_checks.cached_schema(kept) is None


def test_a_damaged_reference_is_not_read(kept: Path) -> None:
    kept.write_text(PLANTED[:20])
    assert backup_checks.cached_schema(kept) is None


def test_the_reference_is_kept_private_and_named_by_what_it_follows_from() -> None:
    folder = backup_checks.cache_folder()
    assert folder is not None and folder.stat().st_mode & 0o777 == 0o700
    one, other = backup_checks._code_digest("[]"), backup_checks._code_digest('[["a", "b"]]')
    assert one != other and one == backup_checks._code_digest("[]")

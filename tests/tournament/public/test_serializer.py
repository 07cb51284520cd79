"""The Redis cache keeps JSON, never pickle (tournament.public.serializer, issue 20): a value
planted in Redis by whoever can write there is data at worst, never code run in Paddock."""

from __future__ import annotations

import os
import pickle
import secrets
from pathlib import Path

import pytest
from django.core.cache.backends.redis import RedisCache
from hypothesis import given
from hypothesis import strategies as st

from tournament.public.serializer import JSONSerializer


class Planted:
    """Unpickling this touches a file: the proof that a pickle ran."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (Path.touch, (Path(self.path),))


@pytest.fixture
def redis_cache() -> RedisCache:
    """Paddock's Redis cache as configured (OPTIONS included), on the test's Redis."""
    from django.conf import settings

    url = os.environ.get("REDIS_URL")
    if not url:
        pytest.skip("needs REDIS_URL (CI sets it)")
    options = settings.CACHES["default"].get("OPTIONS", {})
    assert options.get("serializer") == "tournament.public.serializer.JSONSerializer"
    return RedisCache(url, {"OPTIONS": options, "KEY_PREFIX": f"t{secrets.token_hex(4)}"})


def test_a_pickle_planted_in_redis_is_never_run(redis_cache: RedisCache, tmp_path: Path):
    proof = tmp_path / "pickle-ran"
    key = "paddock:page:planted"
    client = redis_cache._cache.get_client(key, write=True)
    client.set(redis_cache.make_and_validate_key(key), pickle.dumps(Planted(str(proof))))

    with pytest.raises(ValueError):  # not JSON: the page cache then builds the page anew
        redis_cache.get(key)
    assert not proof.exists()


def test_a_page_round_trips_through_the_real_redis(redis_cache: RedisCache):
    page = {"body": "Élodie <b>".encode(), "etag": '"ab"', "modified": 1_700_000_000, "br": b"\0"}
    redis_cache.set("paddock:page:x", page, 30)
    assert redis_cache.get("paddock:page:x") == page
    assert redis_cache.add("paddock:count", 1, 30) and redis_cache.incr("paddock:count") == 2
    redis_cache.delete_many(["paddock:page:x", "paddock:count"])


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text() | st.binary(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(JSON_VALUES)
def test_what_the_cache_keeps_comes_back_equal(value):
    serializer = JSONSerializer()
    assert serializer.loads(serializer.dumps(value)) == value

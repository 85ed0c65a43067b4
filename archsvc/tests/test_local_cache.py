"""Without Redis (one process, `make run`) the cache lives in the process: bounded in bytes,
not only in entries, so time travel through a big project cannot grow it without end."""

import os

import pytest
from django.core.cache import caches

from archsvc.cache import BoundedLocMemCache


@pytest.fixture
def small():
    cache = BoundedLocMemCache("bounded-test", {"OPTIONS": {"MAX_BYTES": 40_000}})
    cache.clear()
    yield cache
    cache.clear()


def test_it_keeps_within_its_bytes_dropping_the_least_recently_used(small):
    for index in range(10):
        small.set(f"render-{index}", b"x" * 8_000)
        assert small.stored_bytes() <= 40_000
        if index >= 1:
            assert small.get("render-0") is not None  # read each time: kept
    assert small.get("render-0") is not None
    assert small.get("render-9") is not None
    assert small.get("render-1") is None and small.get("render-2") is None  # oldest unread


def test_a_value_over_a_quarter_of_the_bound_is_not_kept(small):
    small.set("keep", b"k" * 100)
    small.set("huge", b"h" * 10_001)
    assert small.get("huge") is None
    assert small.get("keep") == b"k" * 100
    small.set("keep", b"k" * 20_000)  # an entry replaced by one too big is gone
    assert small.get("keep") is None and small.stored_bytes() == 0


def test_counters_deletes_and_replacements_keep_the_sum_true(small):
    small.set("a", b"1" * 1_000)
    small.set("a", b"1" * 2_000)
    assert small.add("lock", "worker-1") and not small.add("lock", "worker-2")
    small.set("hits", 9)
    assert small.incr("hits") == 10
    small.delete("a")
    small.delete("lock")
    remaining = small.stored_bytes()
    assert 0 < remaining < 100  # the counter alone
    small.delete("hits")
    assert small.stored_bytes() == 0


@pytest.mark.skipif(bool(os.environ.get("REDIS_URL")), reason="the shared cache is Redis")
def test_the_app_uses_it_without_redis():
    assert isinstance(caches["default"], BoundedLocMemCache)
    assert caches["default"]._max_bytes == 256 * 1024 * 1024

"""The cache backends: Django's Redis cache keeping one redis-py client per connection pool,
and, without Redis, Django's in-process cache bounded by bytes."""

from django.core.cache.backends.locmem import LocMemCache
from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _Client(RedisCacheClient):
    """Django's client, but one `redis.Redis` per pool instead of a new one every cache call: a
    client is a thin, thread-safe wrapper around its pool."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._clients = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ReusingRedisCache(RedisCache):
    def __init__(self, server, params):
        super().__init__(server, params)
        self._class = _Client


class _Sizes:
    """Bytes of each entry of one named cache, and their sum."""

    def __init__(self) -> None:
        self.of: dict[str, int] = {}
        self.total = 0

    def add(self, key: str, size: int) -> None:
        self.total += size - self.of.get(key, 0)
        self.of[key] = size

    def drop(self, key: str) -> None:
        self.total -= self.of.pop(key, 0)


_sizes: dict[str, _Sizes] = {}  # per cache name, as Django keeps its entries


class BoundedLocMemCache(LocMemCache):
    """Django's in-process cache bounded in bytes too (OPTIONS `MAX_BYTES`, least recently used
    out first), as renders are big; a value over a quarter of it is not kept at all."""

    def __init__(self, name, params):
        super().__init__(name, params)
        options = params.get("OPTIONS", {})
        self._max_bytes = int(options.get("MAX_BYTES", 256 * 1024 * 1024))
        self._sizes = _sizes.setdefault(name, _Sizes())

    def _set(self, key, value, timeout=None):
        self._delete(key)
        if len(value) > self._max_bytes // 4:
            return
        super()._set(key, value, timeout)
        self._sizes.add(key, len(value))
        while self._sizes.total > self._max_bytes and len(self._cache) > 1:
            oldest, _ = self._cache.popitem()  # the front holds the most recently used
            self._expire_info.pop(oldest, None)
            self._sizes.drop(oldest)

    def _delete(self, key):
        self._sizes.drop(key)
        return super()._delete(key)

    def _cull(self):
        super()._cull()
        for key in [key for key in self._sizes.of if key not in self._cache]:
            self._sizes.drop(key)

    def incr(self, key, delta=1, version=None):
        value = super().incr(key, delta, version)
        full = self.make_and_validate_key(key, version=version)
        with self._lock:  # a counter's new value may be a byte longer
            if full in self._cache:
                self._sizes.add(full, len(self._cache[full]))
        return value

    def clear(self):
        with self._lock:  # one section: a set between the two would go uncounted
            self._cache.clear()
            self._expire_info.clear()
            self._sizes.of.clear()
            self._sizes.total = 0

    def stored_bytes(self) -> int:
        return self._sizes.total

"""Django's Redis cache, keeping one redis-py client per connection pool.

Django's backend builds a new `redis.Redis` object for every cache call (about 0.1 ms of
Python each, more than the round trip to a local Redis); every read of the API makes at
least one cache call. A client is a thin, thread-safe wrapper around its pool, so one per
pool is enough. Everything else (pools, serialisation, options) is Django's own.
"""

from django.core.cache.backends.redis import RedisCache, RedisCacheClient


class _Client(RedisCacheClient):
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

"""While the cache that counts rate limits (Redis) is down, requests are let through (fail
open) and the log says so in one line at most every 10 s per process, with the reason and
how many went uncounted: a line with a traceback for every request was 3.7 KB a request."""

import json
import time

from archsvc.api.ratelimit import CACHE_DOWN_WARNING_SECONDS
from archsvc.tests.servers import AppServer, free_port


def test_redis_down_fails_open_with_one_warning_line_per_ten_seconds(tmp_path):
    env = {
        "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",  # nothing listens there
        "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}",  # refusals need none
        "RATE_LIMIT_READ": "2/h",
    }
    with AppServer(env=env) as server:
        # unauthenticated: each refusal is counted against the client IP's read budget
        burst = [server.request("GET", "/v1/limits")[0] for _ in range(6)]
        time.sleep(CACHE_DOWN_WARNING_SECONDS + 0.5)
        after = server.request("GET", "/v1/limits")[0]
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.strip()]
    assert burst == [401] * 6 and after == 401  # over the limit of 2, none refused: not counted
    warnings = [line for line in lines if line["logger"] == "archsvc.ratelimit"]
    assert [line["level"] for line in warnings] == ["WARNING", "WARNING"], warnings
    first, second = (line["message"] for line in warnings)
    assert first.startswith("rate limit cache unavailable; request allowed (1 uncounted")
    assert second.startswith("rate limit cache unavailable; request allowed (6 uncounted")
    for line in warnings:
        assert "Connection refused" in line["message"], line
        assert "exception" not in line and len(json.dumps(line)) < 400, line

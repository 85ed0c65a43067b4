"""gunicorn's own lines (error log on stderr, access lines on stdout) as JSON like the app's,
properly escaped: gunicorn's access_log_format fills its template without escaping."""

import json
import traceback
from datetime import UTC, datetime
from urllib.parse import unquote, urlsplit

from gunicorn.glogging import Logger

from archsvc.logging import JsonFormatter


class JsonLogger(Logger):
    """`logger_class` in gunicorn.conf.py."""

    def setup(self, cfg):
        super().setup(cfg)
        for handler in self.error_log.handlers:
            handler.setFormatter(JsonFormatter())

    def access(self, resp, req, environ, request_time):
        if not self.access_log_enabled:
            return
        try:
            status = resp.status
            if isinstance(status, str):
                status = status.split(None, 1)[0]
            request_id = "-"
            for name, value in resp.headers:
                if name.lower() == "x-request-id":
                    request_id = value
            # the path as sent, its %-escapes read as UTF-8; no query, and no scheme and host
            # when the request line gave a whole URL (GET http://host/path)
            raw = environ.get("RAW_URI", "")
            if raw[:8].lower().startswith(("http://", "https://")):
                raw = urlsplit(raw).path
            path = unquote(raw.split("?", 1)[0], errors="replace")
            entry = {
                "time": datetime.now(UTC).isoformat(),
                "level": "INFO",
                "logger": "gunicorn.access",
                "method": environ.get("REQUEST_METHOD", "-"),
                "path": path,
                "status": int(status),
                "bytes": resp.sent or 0,
                "ms": round(request_time.total_seconds() * 1000, 1),
                "request_id": request_id,
            }
            self.access_log.info(json.dumps(entry))
        except Exception:  # noqa: BLE001 - a log line never fails a request
            self.error(traceback.format_exc())

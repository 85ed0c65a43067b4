"""gunicorn settings for production: `gunicorn archsvc.wsgi -c gunicorn.conf.py`.
Every value can be set from the environment (docs/operations.md)."""

import multiprocessing
import os


def env_bool(name: str, default: bool) -> bool:
    """As archsvc/settings.py reads its booleans: 1, true, yes, on (any case) are true."""
    value = os.environ.get(name)
    if value is None or value == "":
        return default
    return value.strip().lower() in {"1", "true", "yes", "on"}


bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
# Recycling workers is off: worker memory stays flat under load (docs/benchmarks.md, soak),
# and each restart of a worker costs a Django start and its in-memory renders. With 2000,
# both workers of a busy server restarted within the same second every few seconds and
# requests waited up to 1.4 s (docs/operations.md). Set it to recycle anyway; the jitter of
# half the value keeps workers from restarting together.
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "0"))
max_requests_jitter = max_requests // 2
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
# gunicorn 25+ opens a control socket for `gunicornc`, by default in $HOME/.gunicorn: the image
# runs as nobody, with no home to write (a warning at every start), and servers sharing a
# user on one machine would share the one path. Off unless GUNICORN_CONTROL_SOCKET names one.
control_socket = os.environ.get("GUNICORN_CONTROL_SOCKET", "")
control_socket_disable = not control_socket
# One JSON object per line (archsvc/gunicorn_logging.py): access lines on stdout (ACCESS_LOG=0
# turns them off), gunicorn's own on stderr with the app's.
accesslog = "-" if env_bool("ACCESS_LOG", True) else None
errorlog = "-"
logger_class = "archsvc.gunicorn_logging.JsonLogger"

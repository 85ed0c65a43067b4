"""gunicorn settings for production: `gunicorn archsvc.wsgi -c gunicorn.conf.py`.
Every value can be set from the environment (docs/operations.md)."""

import multiprocessing
import os

bind = os.environ.get("BIND", "0.0.0.0:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", multiprocessing.cpu_count() * 2 + 1))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
graceful_timeout = 20
keepalive = 5
max_requests = int(os.environ.get("GUNICORN_MAX_REQUESTS", "2000"))
max_requests_jitter = 200  # workers recycle at different times
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-" if os.environ.get("ACCESS_LOG", "1") == "1" else None
access_log_format = ('{"time":"%(t)s","method":"%(m)s","path":"%(U)s","status":%(s)s,'
                     '"bytes":%(B)s,"ms":%(M)s,"request_id":"%({x-request-id}o)s"}')
errorlog = "-"

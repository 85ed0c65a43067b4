"""WSGI entry point (gunicorn archsvc.wsgi)."""

import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "archsvc.settings")
application = get_wsgi_application()

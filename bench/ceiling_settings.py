"""Bench-only settings: the app's settings with bench/ceiling_urls.py as the URLconf."""

from archsvc.settings import *  # noqa: F403

ROOT_URLCONF = "bench.ceiling_urls"

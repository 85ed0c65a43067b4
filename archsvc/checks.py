"""Deployment checks of our own (`manage.py check --deploy`): settings that would run in
production without complaint, and should not."""

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register


@register(Tags.security, deploy=True)
def secret_key_set(app_configs, **kwargs):
    from archsvc.settings import _DEV_SECRET  # the settings module itself, when checked

    if settings.SECRET_KEY == _DEV_SECRET:
        return [
            Error(
                "SECRET_KEY is not set: the built-in development key is public, so anyone "
                "could sign invitation, billing-portal and message tokens.",
                hint="Set SECRET_KEY in the environment to a long random value "
                "(python -c 'import secrets; print(secrets.token_urlsafe(50))').",
                id="archsvc.E001",
            )
        ]
    return []


@register(Tags.security, deploy=True)
def billing_provider_charges(app_configs, **kwargs):
    if settings.BILLING_PROVIDER == "local":
        return [
            Warning(
                "BILLING_PROVIDER is local: any organization's admin can choose any plan in "
                "the local portal without paying.",
                hint="Set BILLING_PROVIDER=paddle (docs/billing.md). Where plans are not sold, "
                "BILLING_LOCAL_IN_PRODUCTION=1 says so and silences this.",
                id="archsvc.W002",
            )
        ]
    return []


@register(Tags.caches, deploy=True)
def shared_cache_for_several_processes(app_configs, **kwargs):
    import os

    if not settings.REDIS_URL and os.environ.get("WEB_CONCURRENCY") != "1":
        return [
            Warning(
                "REDIS_URL is not set: rate limits, render budgets and cached renders are "
                "counted in each process alone, and gunicorn.conf.py starts several workers "
                "(docs/interface.md §11: several processes set REDIS_URL).",
                hint="Set REDIS_URL, or run one process (WEB_CONCURRENCY=1).",
                id="archsvc.W003",
            )
        ]
    return []


@register(Tags.caches, deploy=True)
def redis_url_readable(app_configs, **kwargs):
    """A REDIS_URL redis-py cannot read is an error: every cache call would fail, and only
    /healthz and the logs would say so."""
    if not settings.REDIS_URL:
        return []
    from redis.connection import parse_url

    try:
        parse_url(settings.REDIS_URL)
    except ValueError as error:
        return [
            Error(
                f"REDIS_URL cannot be read: {error}",
                hint="Write it as redis://host:6379/0 (rediss:// over TLS, unix:///path for a "
                "socket), the same on every app server.",
                id="archsvc.E004",
            )
        ]
    return []

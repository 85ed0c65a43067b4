"""`manage.py check --deploy` refuses what would run in production without complaint and
should not: the public development SECRET_KEY, the local billing provider (any admin could
choose any plan without paying) unless the deployment says it sells no plans, and several
processes without the shared cache that rate limits and render budgets are counted in."""

import os
import subprocess
import sys

PRODUCTION = {
    "DEBUG": "0",
    "HTTPS": "1",
    "SECRET_KEY": "y" * 20 + "production-secret-with-enough-entropy-0987654321",
    "ALLOWED_HOSTS": "archsvc.example.com",
    "BILLING_PROVIDER": "paddle",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
}


def check_deploy(**changes) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "DJANGO_ALLOW_ASYNC_UNSAFE"}
    env.update(PRODUCTION)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_production_settings():
    result = check_deploy()
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_the_public_development_key_is_an_error():
    result = check_deploy(SECRET_KEY=None)
    assert result.returncode != 0
    assert "archsvc.E001" in result.stderr and "SECRET_KEY is not set" in result.stderr


def test_the_local_billing_provider_is_a_warning_unless_no_plans_are_sold():
    result = check_deploy(BILLING_PROVIDER=None)
    assert result.returncode != 0
    assert "archsvc.W002" in result.stderr and "without paying" in result.stderr
    result = check_deploy(BILLING_PROVIDER=None, BILLING_LOCAL_IN_PRODUCTION="1")
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


def test_several_processes_without_a_shared_cache_are_a_warning():
    result = check_deploy(REDIS_URL=None)
    assert result.returncode != 0
    assert "archsvc.W003" in result.stderr and "REDIS_URL is not set" in result.stderr
    result = check_deploy(REDIS_URL=None, WEB_CONCURRENCY="1")  # one process: its own cache
    assert result.returncode == 0, result.stderr


def test_a_redis_url_redis_cannot_read_is_an_error():
    """`REDIS_URL=127.0.0.1:6379` (no scheme) passed the check, and no cache call ever worked."""
    result = check_deploy(REDIS_URL="127.0.0.1:6379")
    assert result.returncode != 0
    assert "archsvc.E004" in result.stderr and "REDIS_URL cannot be read" in result.stderr
    assert check_deploy(REDIS_URL="rediss://cache.internal:6380/2").returncode == 0


def test_the_billing_provider_is_read_in_any_case_and_a_mistyped_one_stops_the_server():
    """`BILLING_PROVIDER=Paddle` fell back to the local provider, whose portal gives any
    plan away, and the deploy check (which warns of `local` only) passed."""
    result = check_deploy(BILLING_PROVIDER=" Paddle ")
    assert result.returncode == 0, result.stderr
    env = {**os.environ, **PRODUCTION, "BILLING_PROVIDER": "Paddle"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
    chosen = subprocess.run(
        [
            sys.executable,
            "manage.py",
            "shell",
            "-c",
            "from billing.providers import provider_get; print(type(provider_get()).__name__)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert chosen.stdout.strip().splitlines()[-1] == "PaddleProvider", chosen.stderr
    result = check_deploy(BILLING_PROVIDER="stripe")
    assert result.returncode != 0
    assert "BILLING_PROVIDER must be local or paddle, not 'stripe'." in result.stderr

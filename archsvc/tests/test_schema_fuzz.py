"""Schema fuzzing (schemathesis) of every /v1 operation, in-process through the WSGI app
with an API key that may do everything and rate limits off: no input, valid or not, gets a
server error, and every answer is one the schema documents (its status, content type and
body). `make fuzz` runs it with 200 examples an operation (FUZZ_EXAMPLES)."""

import os

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from archsvc.wsgi import application

schema = schemathesis.openapi.from_wsgi("/v1/schema", application)


@pytest.fixture
def fuzz_key(factory, settings):  # noqa: F811 - pytest-django's settings fixture
    """An all-permission key; requests leave the test's database connection open, as
    Django's own test client does (else PostgreSQL's would close at each request's end)."""
    from django.core import signals
    from django.db import close_old_connections

    settings.RATE_LIMIT_ENABLED = False
    org = factory.org("fuzz")
    key = factory.key(org, "fuzz", ["projects:manage", "billing:manage"])
    signals.request_started.disconnect(close_old_connections)
    signals.request_finished.disconnect(close_old_connections)
    try:
        yield key
    finally:
        signals.request_started.connect(close_old_connections)
        signals.request_finished.connect(close_old_connections)


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("FUZZ_EXAMPLES", "8")),
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
@pytest.mark.django_db
def test_every_input_gets_a_documented_answer_never_a_server_error(case, fuzz_key):
    case.call_and_validate(
        headers={"Authorization": f"Bearer {fuzz_key}"},
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
        ],
    )

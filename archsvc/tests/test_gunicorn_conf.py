"""gunicorn.conf.py reads its switches as the settings read theirs: ACCESS_LOG=true kept the
access lines off, since only "1" counted."""

import json
import os
import runpy

import pytest

from archsvc.tests.servers import ROOT, AppServer


def test_access_log_true_writes_access_lines(tmp_path):
    env = {"ACCESS_LOG": "true", "DATABASE_URL": f"sqlite:///{tmp_path / 'unused.sqlite3'}"}
    with AppServer(env=env) as server:
        assert server.request("GET", "/accounts/login/")[0] == 200
        lines = [json.loads(line) for line in server.log_text().splitlines() if line.strip()]
    access = [line for line in lines if line["logger"] == "gunicorn.access"]
    assert any(line["path"] == "/accounts/login/" and line["status"] == 200 for line in access)


@pytest.mark.parametrize(
    "value, on",
    [("1", True), ("TRUE", True), ("yes", True), ("on", True), ("", True), (None, True)]
    + [("0", False), ("false", False), ("no", False), ("off", False)],
)
def test_access_log_is_read_as_every_boolean_setting(monkeypatch, value, on):
    if value is None:
        monkeypatch.delenv("ACCESS_LOG", raising=False)
    else:
        monkeypatch.setenv("ACCESS_LOG", value)
    config = runpy.run_path(os.fspath(ROOT / "gunicorn.conf.py"))
    assert config["accesslog"] == ("-" if on else None)

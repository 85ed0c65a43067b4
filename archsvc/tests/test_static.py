"""Static files as production serves them (STATIC_HASHED=1): pages link names holding the
content's hash, sent gzip-compressed and kept by browsers for a year; a name the manifest
lacks is linked plainly instead of failing the page."""

import gzip
import re
from pathlib import Path

from django.core.management import call_command
from django.test import Client

ROOT = Path(__file__).resolve().parents[2]


def test_hashed_static_files_are_linked_compressed_and_kept_a_year(db, settings, tmp_path):
    settings.STATIC_ROOT = str(tmp_path)
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "archsvc.static.HashedStaticStorage"},
    }
    settings.WHITENOISE_USE_FINDERS = False
    call_command("collectstatic", "--noinput", verbosity=0)
    page = Client().get("/accounts/login/").content.decode()
    css = re.search(r'href="(/static/css/app\.[0-9a-f]{12}\.css)"', page).group(1)
    script = re.search(r'src="(/static/js/forms\.[0-9a-f]{12}\.js)"', page).group(1)
    for url, source in ((css, "static/css/app.css"), (script, "static/js/forms.js")):
        response = Client().get(url, HTTP_ACCEPT_ENCODING="gzip")
        assert response.status_code == 200, url
        assert response["Content-Encoding"] == "gzip"
        assert "immutable" in response["Cache-Control"]
        assert "max-age=315360000" in response["Cache-Control"]
        sent = gzip.decompress(b"".join(response.streaming_content))
        assert sent == (ROOT / source).read_bytes()
    # a file collectstatic has not seen yet is linked by its plain name
    (tmp_path / "staticfiles.json").unlink()
    settings.STORAGES = {**settings.STORAGES}  # a fresh storage, without the manifest
    assert 'href="/static/css/app.css"' in Client().get("/accounts/login/").content.decode()

"""Static files in production (STATIC_HASHED=1, which the Dockerfile sets): collectstatic
writes each file also under a name holding its content's hash, with a gzip copy beside it;
pages link the hashed names, which WhiteNoise serves compressed and lets browsers keep for
a year (such a name never changes its content). Off by default: a manifest left by an
earlier collectstatic in a working copy would link the tests and `make run` to stale
copies of the scripts."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    def stored_name(self, name: str) -> str:
        """A name the manifest lacks (a file added since collectstatic last ran, or no
        collectstatic at all) is linked by its plain name, which WhiteNoise still serves,
        rather than failing every page that links it."""
        try:
            return super().stored_name(name)
        except ValueError:
            return name

"""Static files in production (STATIC_HASHED=1): content-hashed names with gzip copies, kept by
browsers for a year; off by default, lest a stale manifest link tests and `make run` to old ones."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class HashedStaticStorage(CompressedManifestStaticFilesStorage):
    def stored_name(self, name: str) -> str:
        """A name the manifest lacks (added since collectstatic, or none ran) is linked by its
        plain name, which WhiteNoise still serves, rather than failing every page linking it."""
        try:
            return super().stored_name(name)
        except ValueError:
            return name

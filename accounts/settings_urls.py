"""Organization settings pages (members, API keys, billing)."""

urlpatterns: list = []

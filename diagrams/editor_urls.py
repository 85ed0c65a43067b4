"""Service editor and history pages of a project."""

urlpatterns: list = []

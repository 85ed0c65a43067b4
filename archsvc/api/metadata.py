"""What an OPTIONS request answers: DRF's name and description, `renders` saying what the view
really sends (SVG and Mermaid bypass renderers), `parses` only where a method takes a body."""

from rest_framework.metadata import SimpleMetadata

BODY_METHODS = {"POST", "PUT", "PATCH"}


class ApiMetadata(SimpleMetadata):
    def determine_metadata(self, request, view):
        metadata = super().determine_metadata(request, view)
        renders = getattr(view, "renders", None)
        if renders:
            metadata["renders"] = list(renders)
        if BODY_METHODS & set(view.allowed_methods):
            metadata["parses"] = ["application/json"]
        else:
            metadata.pop("parses", None)
        return metadata

"""The API speaks JSON only: an Accept header never turns a request into a 406."""

from rest_framework.negotiation import BaseContentNegotiation


class IgnoreClientNegotiation(BaseContentNegotiation):
    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type

"""An Accept header never turns a request into a 406: when nothing the client accepts is
on offer, the view's first renderer (JSON for the API) answers."""

from rest_framework.negotiation import DefaultContentNegotiation


class IgnoreClientNegotiation(DefaultContentNegotiation):
    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        try:
            return super().select_renderer(request, renderers, format_suffix)
        except Exception:  # noqa: BLE001 - NotAcceptable, or a malformed Accept header
            return renderers[0], renderers[0].media_type

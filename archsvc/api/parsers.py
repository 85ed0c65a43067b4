"""Request bodies are JSON whatever Content-Type the client sent (scripts often forget it);
NaN, Infinity and nesting too deep for the decoder are a 400, not a RecursionError."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    media_type = "*/*"
    strict = True

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
        except ParseError as exc:
            if "integer string conversion" in str(exc.detail):  # Python's 4300-digit limit
                raise ParseError("JSON parse error - a number has more than 4300 digits.") from None
            raise

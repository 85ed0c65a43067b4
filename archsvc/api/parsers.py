"""Request bodies are JSON whatever Content-Type the client sent (scripts often forget it,
and curl -d says form-urlencoded); NaN and Infinity are refused."""

from rest_framework.parsers import JSONParser


class StrictJSONParser(JSONParser):
    media_type = "*/*"
    strict = True

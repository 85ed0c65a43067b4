"""Reading a request body into validated data with a strict serializer."""

from rest_framework import serializers


def read_body(request, serializer_class, *, required: bool = True) -> dict:
    """The validated body. A required body that is missing is a violation on `body`;
    an optional one may be absent (an empty object)."""
    if not request.body.strip():
        if required:
            raise serializers.ValidationError({"body": ["A JSON object is required."]})
        data = {}
    else:
        data = request.data
        if not isinstance(data, dict):  # said in JSON's words, not DRF's ("a dictionary")
            raise serializers.ValidationError(
                {"body": [f"A JSON object is required, not {_json_kind(data)}."]}
            )
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


def _json_kind(value) -> str:
    if isinstance(value, bool):
        return "true or false"
    if value is None:
        return "null"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    return "an array"

"""Serializer bases of the API: request objects reject unknown properties at every depth
(spec: "Request objects reject unknown properties"), a violation per property."""

from rest_framework import serializers


class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data):
        errors = {}
        if isinstance(data, dict):
            for key in data:
                if key not in self.fields or self.fields[key].read_only:
                    errors[str(key)] = ["Unknown property."]
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if isinstance(exc.detail, dict):
                exc.detail.update(errors)
            raise
        if errors:
            raise serializers.ValidationError(errors)
        return value


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else (DRF would turn 12 into "12")."""

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("invalid")
        if "\x00" in data:
            raise serializers.ValidationError("Text may not contain NUL characters.")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """JSON true or false only (DRF would accept "yes", "1", 1)."""

    default_error_messages = {"invalid": "Must be true or false."}

    def to_internal_value(self, data):
        if not isinstance(data, bool):
            self.fail("invalid")
        return data

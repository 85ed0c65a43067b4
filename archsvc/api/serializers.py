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

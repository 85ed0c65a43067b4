from rest_framework import serializers


class LimitsSerializer(serializers.Serializer):
    currentProjects = serializers.IntegerField(min_value=0)  # noqa: N815
    maxProjects = serializers.IntegerField(min_value=0)  # noqa: N815

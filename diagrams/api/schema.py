"""The diagrams' part of the OpenAPI schema: a drf-spectacular postprocessing hook
(SPECTACULAR_SETTINGS) for the limits of its request bodies."""

from diagrams.api.serializers import (
    EXTRAS_KEY_MAX,
    EXTRAS_MAX,
    MAX_TOPICS,
    AiChatRequestSerializer,
)


def request_limits(result, generator, request, public):
    """What drf-spectacular does not write of the diagrams' request serializers: a list of
    nested serializers' `max_length` (topics, chat turns), the extras' count and key length."""
    schemas = result.get("components", {}).get("schemas", {})
    topics_item = {"$ref": "#/components/schemas/MessagingTopicRequest"}
    history_max = AiChatRequestSerializer().fields["history"].max_length
    for name, schema in schemas.items():
        if not name.endswith("Request") or schema.get("type") != "object":
            continue
        for key, prop in schema.get("properties", {}).items():
            if key in ("consumes", "produces") and prop.get("items") == topics_item:
                prop["maxItems"] = MAX_TOPICS
            elif key == "extras":
                prop.update(
                    {"maxProperties": EXTRAS_MAX, "propertyNames": {"maxLength": EXTRAS_KEY_MAX}}
                )
            elif key == "history" and name == "AiChatRequest":
                prop["maxItems"] = history_max
    return result

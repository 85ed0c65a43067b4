from django.apps import AppConfig


class DiagramsConfig(AppConfig):
    name = "diagrams"
    default_auto_field = "django.db.models.BigAutoField"

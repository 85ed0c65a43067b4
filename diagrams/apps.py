from django.apps import AppConfig


class DiagramsConfig(AppConfig):
    name = "diagrams"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self):
        from django.db.backends.signals import connection_created

        from archsvc.hotpath import sqlite_casefold  # ready(): once every app is loaded

        connection_created.connect(sqlite_casefold, dispatch_uid="archsvc.sqlite_casefold")

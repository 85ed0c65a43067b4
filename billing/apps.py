from django.apps import AppConfig


class BillingConfig(AppConfig):
    name = "billing"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # the project's own deployment checks (archsvc is no app): the secret key, the
        # billing provider
        from archsvc import checks  # noqa: F401 - registers the deploy checks once apps load

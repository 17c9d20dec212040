from django.apps import AppConfig


class ConversionsConfig(AppConfig):
    name = "conversions"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_delete

        from conversions.models import ConversionSession, remove_session_files

        # Also on the admin's bulk delete, which never calls Model.delete().
        post_delete.connect(remove_session_files, sender=ConversionSession, dispatch_uid="remove_session_files")
        # Registers the Celery tasks in every process (web and worker): the outbox sends them by name.
        import conversions.workers.tasks  # noqa: F401

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nwbportal.settings")

app = Celery("nwbportal")
app.config_from_object("django.conf:settings", namespace="CELERY")
# The portal's tasks (conversions/workers/tasks.py) are registered when Django sets the app up (apps.py).

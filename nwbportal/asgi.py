"""ASGI entry point: HTTP through Django, websockets through Channels.

In the embedded mode this also starts the in-process Celery worker and re-runs the jobs the last
process left behind (the in-memory broker forgets them when the process exits).
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "nwbportal.settings")
django_asgi_app = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.conf import settings  # noqa: E402

from conversions.realtime.auth import OriginCheckMiddleware, TokenAuthMiddleware  # noqa: E402
from conversions.realtime.routing import websocket_urlpatterns  # noqa: E402

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": OriginCheckMiddleware(AuthMiddlewareStack(TokenAuthMiddleware(URLRouter(websocket_urlpatterns)))),
    }
)

if settings.EMBEDDED_WORKER:
    from nwbportal.embedded import start_embedded_worker, start_housekeeping

    start_embedded_worker(concurrency=settings.EMBEDDED_WORKER_CONCURRENCY)
    from conversions.services.attempts import recover_stalled_jobs

    recover_stalled_jobs(everything=True)
    start_housekeeping(interval_s=600.0)

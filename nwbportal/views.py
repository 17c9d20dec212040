"""What a request gets when the server fails it: the database out of reach (restarting, failing over)
is a 503 that says so and when to try again; anything else is Django's plain 500."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.defaults import server_error as plain_server_error

RETRY_AFTER_SECONDS = 30
_DATABASE_AWAY = (
    "The portal's database cannot be reached for a moment (it may be restarting). Nothing you sent "
    "before was lost; try again in a minute."
)


def server_error(request: HttpRequest) -> HttpResponse:
    """Django's handler500, called while the exception is being handled (so it can be looked at)."""
    if not isinstance(sys.exc_info()[1], OperationalError | InterfaceError):
        return plain_server_error(request)
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": _DATABASE_AWAY}, status=503)
    else:
        # No template: rendering one may need what is down (context processors read the session).
        response = HttpResponse(
            f"<!doctype html><title>nwbportal: try again in a minute</title><h1>Try again in a minute</h1>"
            f"<p>{_DATABASE_AWAY}</p>",
            status=503,
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response

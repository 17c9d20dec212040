"""Websocket authentication and origin checks.

Browsers authenticate with the session cookie (Channels' AuthMiddleware) and must come from an
allowed host; scripts send `Authorization: Token <key>` and no Origin.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlparse

from channels.db import database_sync_to_async
from channels.middleware import BaseMiddleware
from django.conf import settings
from django.http import HttpRequest
from django.http.request import validate_host

from conversions.services.authentication import user_for_key
from nwbportal.middleware import unstorable_character


@database_sync_to_async
def _user_for_key(scope: dict[str, Any], key: str) -> tuple[Any, bool]:
    """The key's user (or None), and whether the throttle locked the account or address out."""
    if unstorable_character(key):  # no key has one; the database could not even be asked
        return None, False
    request = _request_of(scope)
    user = user_for_key(request, key)
    return user, bool(getattr(request, "axes_locked_out", False))


def _request_of(scope: dict[str, Any]) -> HttpRequest:
    """The handshake as the HttpRequest the throttle reads (address, user agent, path)."""
    request = HttpRequest()
    request.method = "GET"
    request.path = request.path_info = scope.get("path", "")
    headers = dict(scope.get("headers", []))
    client = scope.get("client") or ("", 0)
    request.META = {
        "REMOTE_ADDR": client[0],
        "PATH_INFO": request.path,
        "HTTP_USER_AGENT": headers.get(b"user-agent", b"").decode("latin-1"),
        "HTTP_ACCEPT": headers.get(b"accept", b"").decode("latin-1"),
    }
    return request


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        scheme, _, key = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if scheme.lower() == "token" and key.strip():
            user, locked_out = await _user_for_key(scope, key.strip())
            if user is not None:
                scope = dict(scope, user=user)
            elif locked_out:
                scope = dict(scope, locked_out=True)
        return await super().__call__(scope, receive, send)


class OriginCheckMiddleware(BaseMiddleware):
    """Refuse cross-site websocket handshakes (a page on another site riding the user's cookie)."""

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        origin = headers.get(b"origin")
        if origin is not None:
            host = urlparse(origin.decode("latin-1")).hostname or ""
            allowed = list(settings.ALLOWED_HOSTS) + [urlparse(o).hostname or "" for o in settings.CSRF_TRUSTED_ORIGINS]
            if settings.DEBUG:
                allowed += ["localhost", "127.0.0.1", "[::1]"]
            if not validate_host(host, allowed):
                await send({"type": "websocket.close", "code": 4403})
                return None
        return await super().__call__(scope, receive, send)

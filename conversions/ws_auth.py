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
from django.http.request import validate_host

from conversions.models import ApiToken
from nwbportal.middleware import unstorable_character


@database_sync_to_async
def _user_for_token(key: str) -> Any:
    if unstorable_character(key):  # no token has one; the database could not even be asked
        return None
    token = ApiToken.objects.select_related("user").filter(key=key).first()
    return token.user if token and token.user.is_active else None


class TokenAuthMiddleware(BaseMiddleware):
    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        headers = dict(scope.get("headers", []))
        scheme, _, key = headers.get(b"authorization", b"").decode("latin-1").partition(" ")
        if scheme.lower() == "token" and key.strip():
            user = await _user_for_token(key.strip())
            if user is not None:
                scope = dict(scope, user=user)
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

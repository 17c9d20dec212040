"""Every way in, and the throttle on them: passwords (the login page, the admin) and API keys (the
API, the websocket) all go through Django's `authenticate`, so django-axes counts each failure, per
account and per address, logs it, and locks the account or the address out for AXES_COOLOFF_TIME
after AXES_FAILURE_LIMIT failures. Staff lift a lockout in the admin ("Access attempts") or with
`manage.py axes_reset_username USERNAME` / `axes_reset_ip ADDRESS`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate
from django.contrib.auth.backends import BaseBackend
from django.contrib.auth.forms import AuthenticationForm
from django.contrib.auth.models import User
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

from conversions.models import ApiToken


class AuthenticatedHttpRequest(HttpRequest):
    """The request a view behind a login (`login_required`, the staff check, the API's auth) is given:
    its `user` is a signed-in User, never the anonymous one. For the type checker only: the request
    is still Django's, whose user the middleware or the API's auth set."""

    user: User


class TokenBackend(BaseBackend):
    """Authenticates `token=<key>` credentials: the active user whose active API key it is."""

    def authenticate(self, request: HttpRequest | None, token: str | None = None, **credentials: Any) -> Any:
        if token is None:
            return None
        # The row user_for_key fetched to name the key's account serves here too: one query a request.
        named = getattr(request, "api_token", None)
        found = named if named is not None and named.lookup == ApiToken.lookup_of(token) else ApiToken.named_by(token)
        if found is None or not found.proven_by(token) or not found.user.is_active:
            return None
        found.mark_used()
        return found.user


def user_for_key(request: HttpRequest, key: str) -> Any:
    """The user whose API key `key` is, or None: a wrong key counts as a failed sign-in of the account
    the key's lookup names (if any) and of the address, and a locked-out one is refused even when
    right (`request.axes_locked_out` then says so)."""
    named = ApiToken.named_by(key)
    request.api_token = named  # type: ignore[attr-defined]  # read back by TokenBackend.authenticate
    return authenticate(request, username=named.user.get_username() if named else None, token=key)


def lockout_parameters(request: Any, credentials: dict[str, Any] | None) -> list[str]:
    """Count failures per account and per address; a key that names no account counts per address
    only (every such failure would otherwise land on one shared "no account")."""
    return ["username", "ip_address"] if credentials and credentials.get("username") else ["ip_address"]


def lockout_response(request: HttpRequest, original_response: HttpResponse | None, credentials: Any) -> HttpResponse:
    """429 with a plain message and Retry-After: JSON for the API, the login page for people."""
    minutes = round(settings.AXES_COOLOFF_TIME.total_seconds() / 60)
    message = (
        f"Too many failed sign-ins for this account or from this address: it is locked for {minutes} minutes. "
        "Ask a portal admin to lift the lock sooner."
    )
    if request.path.startswith("/api/"):
        response: HttpResponse = JsonResponse({"detail": message}, status=429)
    else:
        form = AuthenticationForm(request)
        response = render(request, "registration/login.html", {"form": form, "lockout": message}, status=429)
    response["Retry-After"] = str(int(settings.AXES_COOLOFF_TIME.total_seconds()))
    return response

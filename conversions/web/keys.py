"""The API keys page: a person makes, sees and revokes their own keys (conversions.services.keys)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_POST

from conversions.errors import BadRequest, Conflict
from conversions.models import ApiToken
from conversions.services import keys
from conversions.services.authentication import AuthenticatedHttpRequest

TEMPLATE = "conversions/keys.html"


def _page(
    request: AuthenticatedHttpRequest, *, new_key: str = "", error: str = "", name: str = "", status: int = 200
) -> HttpResponse:
    context = {
        "keys": keys.keys_of(request.user),
        "new_key": new_key,
        "error": error,
        "name": name,
        "name_max_length": keys.NAME_MAX_LENGTH,
        "max_active": ApiToken.MAX_ACTIVE_PER_USER,
    }
    return render(request, TEMPLATE, context, status=status)


@never_cache
@login_required
def keys_page(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET lists the keys; POST makes one and shows it, in this answer only (never cached)."""
    if request.method != "POST":
        return _page(request)
    name = request.POST.get("name", "")
    try:
        _, key = keys.make_key(request.user, name)
    except (BadRequest, Conflict) as refusal:
        return _page(request, error=refusal.user_message, name=name, status=refusal.status_code)
    return _page(request, new_key=key)


@require_POST
@login_required
def revoke(request: AuthenticatedHttpRequest, key_id: int) -> HttpResponse:
    token = keys.revoke_key(request.user, key_id)
    messages.success(request, f"The key “{token.name}” ({token.hint}) is revoked: it no longer works.")
    return redirect("keys")

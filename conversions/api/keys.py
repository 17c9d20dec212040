"""The caller's API keys: listed and revoked with a key or a login; made only by a logged-in person
(a key that could make keys would outlive its own revocation in a thief's hands)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.http import HttpResponse
from ninja import Query, Router, Schema, Status
from ninja.security import SessionAuth

from conversions.api.schemas import ErrorOut, Page, page_of
from conversions.models import ApiToken
from conversions.services import keys
from conversions.services.authentication import AuthenticatedHttpRequest

router = Router(tags=["keys"])


class KeyOut(Schema):
    id: int
    name: str
    # The key's start, to tell keys apart; the key itself is shown once, when it is made.
    hint: str
    created: datetime
    last_used: datetime | None
    revoked: datetime | None


class NewKeyOut(KeyOut):
    key: str


class KeyIn(Schema):
    name: str


@router.get("/keys", response=list[KeyOut], url_name="keys")
def list_keys(request: AuthenticatedHttpRequest, page: Query[Page], response: HttpResponse) -> list[ApiToken]:
    """Your API keys, newest first, a page at a time (at most ApiToken.MAX_ACTIVE_PER_USER active,
    and those revoked)."""
    return list(page_of(request, response, keys.keys_of(request.user).order_by("-created", "-id"), page))


@router.post(
    "/keys",
    auth=SessionAuth(),
    # 403: the CSRF token (the page's cookie and header) is missing or wrong.
    response={201: NewKeyOut, 400: ErrorOut, 403: ErrorOut, 409: ErrorOut},
    url_name="keys_make",
)
def make_key(request: AuthenticatedHttpRequest, payload: KeyIn) -> Status[dict[str, Any]]:
    """Make a key (logged in only, not with a key). `key` is in this answer only: keep it now."""
    token, key = keys.make_key(request.user, payload.name)
    return Status(201, {**KeyOut.model_validate(token).model_dump(), "key": key})


@router.delete("/keys/{key_id}", response={200: KeyOut, 404: ErrorOut}, url_name="key")
def revoke_key(request: AuthenticatedHttpRequest, key_id: int) -> ApiToken:
    """Revoke one of your keys: it stops working at once (a key may revoke itself)."""
    return keys.revoke_key(request.user, key_id)

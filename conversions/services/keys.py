"""A person's API keys: made (the key shown once), listed, revoked. Each person sees and revokes only
their own; staff revoke anyone's in the admin. Every key made or revoked is an audit event."""

from __future__ import annotations

from typing import cast

from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from conversions.errors import BadRequest, NotFound
from conversions.models import ApiToken, AuditEvent
from conversions.nwb.normalizers import unfit_characters

NAME_MAX_LENGTH = cast(int, ApiToken._meta.get_field("name").max_length)  # a CharField always has one


def keys_of(user: User) -> QuerySet[ApiToken]:
    """The user's keys, newest first, revoked ones included (they say when they stopped working)."""
    return ApiToken.objects.filter(user=user)


def clean_name(raw: str) -> str:
    name = " ".join(raw.split())
    if not name:
        raise BadRequest("Name the key after what will use it, e.g. “analysis server”.")
    if len(name) > NAME_MAX_LENGTH:
        raise BadRequest(f"The key's name is longer than {NAME_MAX_LENGTH} characters; shorten it.")
    if (problem := unfit_characters(name)) is not None:
        raise BadRequest(f"The key's name {problem}; give it as plain text.")
    return name


@transaction.atomic
def make_key(user: User, raw_name: str) -> tuple[ApiToken, str]:
    """A new key of `user`: the token and the key itself, which is not kept anywhere."""
    token, key = ApiToken.issue(user, clean_name(raw_name))
    _audit(user, "api_key_made", token)
    return token, key


@transaction.atomic
def revoke_key(user: User, token_id: int) -> ApiToken:
    """Revoke one of the user's own keys (revoking it again changes nothing)."""
    token = ApiToken.objects.select_for_update().filter(user=user, pk=token_id).first()
    if token is None:
        raise NotFound("You have no API key with this id.")
    if token.revoked is None:
        token.revoked = timezone.now()
        token.save(update_fields=["revoked"])
        _audit(user, "api_key_revoked", token)
    return token


def _audit(user: User, kind: str, token: ApiToken) -> None:
    AuditEvent.objects.create(
        session=None,
        actor=user,
        kind=kind,
        detail={"key": token.hint, "name": token.name, "owner": user.get_username()},
    )

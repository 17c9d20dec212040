"""The JSON API under /api/ (OpenAPI at /api/openapi.json): the root that authenticates, answers
domain errors (conversions.http_errors) and gathers one router per resource. Thin: every decision
is in services."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import NinjaAPI
from ninja.operation import Operation
from ninja.security import SessionAuth

from conversions import http_errors
from conversions.api import fields, keys, labs, reports, review, sessions, uploads
from conversions.errors import PortalError
from conversions.services.authentication import user_for_key


class TokenAuth:
    """`Authorization: Token <key>` for scripts; browsers use the session cookie (with CSRF)."""

    openapi_type = "apiKey"

    def __call__(self, request: HttpRequest) -> Any:
        header = request.headers.get("Authorization", "")
        scheme, _, key = header.partition(" ")
        if scheme.lower() != "token" or not key.strip():
            return None
        user = user_for_key(request, key.strip())
        if user is None:
            return None
        request.user = user
        return user


class _PortalAPI(NinjaAPI):
    """The API, whose OpenAPI document lists every answer a client can get: besides each operation's
    own, 401 where a token or a login is needed (429 when failed sign-ins locked it out), 400 for a
    request that cannot be read or holds a character that cannot be stored (nwbportal.middleware), and 422
    for a request that does not fit the schema (ninja's validation, with the fields that failed)."""

    def get_openapi_operation_id(self, operation: Operation) -> str:
        """The view's own name: a client generated from the document keeps its method names however
        the modules behind the API are arranged."""
        return operation.view_func.__name__

    def get_openapi_schema(self, **kwargs: Any) -> Any:
        schema = super().get_openapi_schema(**kwargs)
        for operations in schema["paths"].values():
            for operation in operations.values():
                # ninja keys an operation's own answers by int, these by str: one key per code, or the
                # JSON would name a code twice (which the API docs page refuses to read).
                responses = {str(code): answer for code, answer in operation.get("responses", {}).items()}
                operation["responses"] = responses
                responses.setdefault("422", _VALIDATION_ERROR)
                responses.setdefault("400", _UNREADABLE)
                if operation.get("security"):
                    responses.setdefault("401", _UNAUTHORIZED)
                    responses.setdefault("429", _LOCKED_OUT)
        return schema


_VALIDATION_ERROR = {
    "description": "The request does not fit the schema: `detail` lists each field that does not, and why.",
    "content": {"application/json": {"schema": {"type": "object", "properties": {"detail": {"type": "array"}}}}},
}
_UNREADABLE = {
    "description": "The body cannot be read (not JSON, or not the form it says it is), or a field holds a "
    "character that cannot be stored (NUL, a lone surrogate): `detail` says which.",
    "content": {"application/json": {"schema": {"type": "object", "properties": {"detail": {"type": "string"}}}}},
}
_UNAUTHORIZED = {
    "description": "No valid token (`Authorization: Token <key>`) and no login.",
    "content": {"application/json": {"schema": {"type": "object", "properties": {"detail": {"type": "string"}}}}},
}


_LOCKED_OUT = {
    "description": "Too many failed sign-ins for the key's account or from this address: locked for a while "
    "(`Retry-After`, in seconds); a portal admin can lift the lock.",
    "headers": {"Retry-After": {"schema": {"type": "integer"}}},
    "content": {"application/json": {"schema": {"type": "object", "properties": {"detail": {"type": "string"}}}}},
}


api = _PortalAPI(
    title="nwbportal",
    version="1",
    description="Convert neurophysiology recordings to DANDI-ready NWB files by conversation.",
    auth=[TokenAuth(), SessionAuth()],
    urls_namespace="api",
)


@api.exception_handler(PortalError)
def _portal_error(request: HttpRequest, exc: PortalError) -> HttpResponse:
    return http_errors.api_answer(api, request, exc)


for _resource in (sessions, uploads, fields, reports, labs, review, keys):
    api.add_router("", _resource.router)

"""Text that cannot be stored is refused before any view sees it.

A NUL character (U+0000) cannot go into a PostgreSQL text column, a file name or an HDF5 string, and a
lone surrogate (U+D800 to U+DFFF, half of a character that JSON's "\\ud83d" escapes can carry) cannot be
encoded at all. Either, in any field of any request, used to reach the database or the file system
and end as a server error. Every request is read once here: the JSON body, the form fields and the
names of uploaded files, the query string and the address. The first such character found is answered
with 400 and the field it is in, and nothing is stored.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")


def unstorable_character(text: str) -> str | None:
    """A description of the first character of `text` that cannot be stored, or None."""
    found = _UNSTORABLE.search(text)
    if found is None:
        return None
    code = ord(found.group())
    if code == 0:
        return "a NUL character (U+0000)"
    return f"an unpaired surrogate (U+{code:04X}), half of a character"


class RefuseUnstorableText:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        for where, text in _texts(request):
            problem = unstorable_character(text)
            if problem is not None:
                message = f"{where} contains {problem}, which cannot be stored. Remove it and send again."
                if request.path.startswith("/api/"):
                    return JsonResponse({"detail": message, "field": where}, status=400)
                return HttpResponseBadRequest(message, content_type="text/plain; charset=utf-8")
        return self.get_response(request)


def _texts(request: HttpRequest) -> Iterator[tuple[str, str]]:
    yield "The address", request.path
    yield "The Authorization header", request.headers.get("Authorization", "")
    for name, values in request.GET.lists():
        yield f"The query parameter “{_shown(name)}”", name
        for value in values:
            yield f"The query parameter “{_shown(name)}”", value
    content_type = request.content_type or ""
    if content_type == "application/json":
        try:
            body = json.loads(request.body or b"null")
        except (ValueError, UnicodeDecodeError):
            return  # not JSON: the view answers that
        yield from _json_texts(body, "")
    elif content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        try:
            fields, files = request.POST, request.FILES
        except Exception:  # too big, too many fields, broken: the view's parser answers that
            return
        for name, values in fields.lists():
            yield f"The field “{_shown(name)}”", name
            for value in values:
                yield f"The field “{_shown(name)}”", value
        for name, uploads in files.lists():
            for upload in uploads:
                yield f"The name of the file sent as “{_shown(name)}”", upload.name or ""


def _json_texts(value: Any, path: str) -> Iterator[tuple[str, str]]:
    if isinstance(value, str):
        yield f"The field “{path or 'body'}”", value
    elif isinstance(value, dict):
        for key, item in value.items():
            inner = f"{path}.{_shown(key)}" if path else _shown(key)
            yield f"The field “{inner}”", key
            yield from _json_texts(item, inner)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _json_texts(item, f"{path}[{index}]")


def _shown(name: str) -> str:
    """A field's name as the answer can show it: without the characters being refused."""
    return _UNSTORABLE.sub("\N{REPLACEMENT CHARACTER}", name)[:100]

"""The admin review queue: sessions that need a human, and what staff can do about them."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from ninja import Query, Router, Schema
from ninja.errors import HttpError

from conversions.api.schemas import Page, page_of
from conversions.services.review_queue import Reason, reason_counts, reasons_of, review_queue

router = Router(tags=["review"])


class ReasonOut(Schema):
    code: str
    label: str
    detail: str


class QueuedSessionOut(Schema):
    id: uuid.UUID
    title: str
    status: str
    owner: str
    lab: str
    format: str
    source_bytes: int
    queue_since: datetime
    updated: datetime
    reasons: list[ReasonOut]
    review_url: str


class QueueOut(Schema):
    counts: dict[str, int]
    sessions: list[QueuedSessionOut]


class ErrorOut(Schema):
    detail: str


@router.get("/review/queue", response={200: QueueOut, 400: ErrorOut, 403: ErrorOut}, url_name="review_queue")
def queue(
    request: HttpRequest, page: Query[Page], response: HttpResponse, reason: str | None = None, lab: int | None = None
) -> dict[str, Any]:
    """The conversions that need a human, longest waiting first (staff only), a page at a time
    (`X-Total-Count`, `Link`); `counts` counts the whole queue."""
    if not (request.user.is_active and request.user.is_staff):
        raise HttpError(403, "Only portal staff can see the review queue.")
    if reason and reason not in {r.value for r in Reason}:
        raise HttpError(400, f"“{reason}” is not a reason; use one of: {', '.join(r.value for r in Reason)}.")
    now = timezone.now()
    sessions = review_queue(now=now, reason=reason, lab_id=lab)
    return {
        "counts": reason_counts(now=now),
        "sessions": [
            {
                "id": s.id,
                "title": str(s),
                "status": s.status,
                "owner": s.owner.get_username(),
                "lab": s.lab.name,
                "format": s.format,
                "source_bytes": s.source_bytes,
                "queue_since": s.queue_since,
                "updated": s.updated,
                "reasons": [
                    {"code": r.code.value, "label": r.label, "detail": r.detail} for r in reasons_of(s, now=now)
                ],
                "review_url": reverse("review_session", args=[s.id]),
            }
            for s in page_of(request, response, sessions, page)
        ],
    }

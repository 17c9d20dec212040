"""What the API takes and answers: the schemas of its requests and answers, how a session is shown
(the session page embeds the same), and how a list is sent a page at a time."""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from typing import Any, Literal

from asgiref.sync import sync_to_async
from django.db.models import Exists, OuterRef, Q, QuerySet
from django.http import FileResponse, HttpRequest, HttpResponse
from django.urls import reverse
from ninja import Field, Schema
from ninja.responses import NinjaJSONEncoder

from conversions.models import ConversionAttempt, ConversionSession, Preview, SourceFile
from conversions.orchestrator.state import RUNNING_STATUSES, UserActionName
from conversions.orchestrator.state import Status as SessionStatus
from conversions.services import sessions


class FieldOut(Schema):
    value: Any
    source: str


class MessageOut(Schema):
    id: int
    role: str
    text: str
    card: str | None
    data: dict[str, Any]
    created: datetime


class IssueOut(Schema):
    check_name: str
    importance: str
    message: str
    location: str
    explanation: str


class BesideOut(Schema):
    """A file kept beside an NWB file, which the NWB file links to (a video)."""

    path: str = Field(description="Its path relative to the NWB file, as the file names it: <stem>_video/<name>")
    size_bytes: int
    url: str


class AttemptOut(Schema):
    number: int
    state: str
    streams: list[str]
    progress: float
    size_bytes: int | None
    queued_at: datetime
    started_at: datetime | None
    finished_at: datetime | None
    error: str
    validation: str
    output_url: str | None
    beside: list[BesideOut]
    # Form fixes applied from the files while converting: field, before, after, check_name, reason.
    fixes: list[dict[str, Any]]


class PreviewOut(Schema):
    number: int
    state: str
    streams: list[str]
    size_bytes: int | None
    error: str
    summary: dict[str, Any]
    url: str | None
    beside: list[BesideOut]


class ProgressOut(Schema):
    phase: str | None
    percent: float | None


class OutputOut(Schema):
    url: str
    size_bytes: int
    attempt: int
    beside: list[BesideOut]


class FileOut(Schema):
    path: str
    size_bytes: int


class SessionSummaryOut(Schema):
    id: uuid.UUID
    title: str
    status: str
    awaiting: str | None
    format: str
    owner: str
    lab: str
    created: datetime
    updated: datetime


class SessionOut(SessionSummaryOut):
    timezone: str
    needs_review: bool
    files: list[FileOut]
    metadata: dict[str, FieldOut]
    attempts: list[AttemptOut]
    previews: list[PreviewOut]
    issues: list[IssueOut]
    messages: list[MessageOut]
    progress: ProgressOut
    output: OutputOut | None


class SessionIn(Schema):
    title: str = ""
    lab: int | None = None


class MessageIn(Schema):
    text: str = ""


class ActionIn(Schema):
    action: UserActionName
    value: Any = None


class TurnOut(Schema):
    """The turn's new messages, and the session as GET /api/sessions/{id} shows it, except that its
    `messages` hold only the newest 10 (GET has them all)."""

    replies: list[MessageOut]
    session: SessionOut


class ErrorOut(Schema):
    detail: str


# What each status filter of a session list shows (the dashboard's and GET /api/sessions'). "failed"
# also shows sessions stuck in the admins' review queue, whatever their status.
STATUS_GROUPS: dict[str, frozenset[str]] = {
    "needs_answer": frozenset({SessionStatus.IDLE, SessionStatus.AWAITING_USER_INPUT, SessionStatus.AWAITING_APPROVAL}),
    "running": RUNNING_STATUSES,
    "done": frozenset({SessionStatus.COMPLETED, SessionStatus.COMPLETED_WITH_ISSUES}),
    "failed": frozenset({SessionStatus.FAILED}),
    "cancelled": frozenset({SessionStatus.CANCELLED}),
}
StatusGroup = Literal["all", "needs_answer", "running", "done", "failed", "cancelled"]


class SessionFilters(Schema):
    """Which of the sessions a user may see to list."""

    status: StatusGroup = Field(
        default="all",
        description="needs_answer (waiting for files, an answer or an approval), running, done, "
        "failed (or stuck in the admins' review queue), cancelled, or all",
    )
    lab: int | None = Field(None, description="Only this lab's sessions (a lab id)")
    q: str = Field("", max_length=200, description="Words that must each be in the title or in a file's name")

    @staticmethod
    def status_condition(group: str) -> Q:
        """The sessions a status filter shows."""
        if group == "all":
            return Q()
        if group == "failed":
            return Q(status__in=STATUS_GROUPS["failed"]) | Q(needs_review=True)
        return Q(status__in=STATUS_GROUPS[group])

    def apply(self, sessions: QuerySet[ConversionSession]) -> QuerySet[ConversionSession]:
        sessions = sessions.filter(self.status_condition(self.status))
        if self.lab is not None:
            sessions = sessions.filter(lab_id=self.lab)
        # Exists, not a join on the files, so a session with many matching files is listed once.
        for word in self.q.split():
            named = SourceFile.objects.filter(session=OuterRef("pk"), relative_path__icontains=word)
            sessions = sessions.filter(Q(title__icontains=word) | Exists(named))
        return sessions


# --- serialisation --------------------------------------------------------------------------------


def session_summary(session: ConversionSession) -> dict[str, Any]:
    return {
        "id": session.id,
        "title": session.title,
        "status": session.status,
        "awaiting": session.awaiting,
        "format": session.format,
        "owner": session.owner.get_username(),
        "lab": session.lab.name,
        "created": session.created,
        "updated": session.updated,
    }


def _output_url(session: ConversionSession, attempt: ConversionAttempt) -> str | None:
    if attempt.state != ConversionAttempt.State.SUCCEEDED:
        return None
    return reverse("api:session_output", kwargs={"session_id": session.id}) + f"?attempt={attempt.number}"


def _preview_url(session: ConversionSession, preview: Preview) -> str | None:
    if preview.state != Preview.State.SUCCEEDED:
        return None
    return reverse("api:session_preview", kwargs={"session_id": session.id, "number": preview.number})


def _beside(
    session: ConversionSession, kind: Literal["attempt", "preview"], number: int, output_path: str
) -> list[dict[str, Any]]:
    """What sits beside a delivered NWB file, each with the address that downloads it."""
    return [
        {
            "path": beside.relative_path,
            "size_bytes": beside.size_bytes,
            "url": reverse(
                f"api:session_{kind}_beside",
                kwargs={"session_id": session.id, "number": number, "relative_path": beside.relative_path},
            ),
        }
        for beside in sessions.files_beside(output_path)
    ]


# A chat turn answers with the session as GET shows it, but only its newest messages: the whole
# history on every turn would make a long conversation slower with each message. The replies of
# the turn are always among them; GET /api/sessions/{id} has every message.
TURN_MESSAGES = 10


def session_detail(session: ConversionSession, *, newest_messages: int | None = None) -> dict[str, Any]:
    attempts = list(session.attempts.all())
    latest = attempts[-1] if attempts else None
    done = [a for a in attempts if a.state == ConversionAttempt.State.SUCCEEDED]
    progress: dict[str, Any] = {"phase": None, "percent": None}
    if session.status == SessionStatus.CONVERTING and latest:
        progress = {"phase": "converting", "percent": latest.progress}
    elif session.status == SessionStatus.VALIDATING:
        progress = {"phase": "validating", "percent": None}
    beside = {a.number: _beside(session, "attempt", a.number, a.output_path) for a in done}
    output = None
    if done:
        output = {
            "url": _output_url(session, done[-1]),
            "size_bytes": done[-1].size_bytes or 0,
            "attempt": done[-1].number,
            "beside": beside[done[-1].number],
        }
    issues = list(latest.issues.all()) if latest else []
    return {
        **session_summary(session),
        "timezone": session.timezone,
        "needs_review": session.needs_review,
        "files": [{"path": f.relative_path, "size_bytes": f.size_bytes} for f in session.files.all()],
        "metadata": {f.name: {"value": f.value, "source": f.source} for f in session.metadata_fields.all()},
        "attempts": [
            {
                "number": a.number,
                "state": a.state,
                "streams": a.streams,
                "progress": a.progress,
                "size_bytes": a.size_bytes,
                "queued_at": a.queued_at,
                "started_at": a.started_at,
                "finished_at": a.finished_at,
                "error": a.error_message,
                "validation": a.validation,
                "output_url": _output_url(session, a),
                "beside": beside.get(a.number, []),
                "fixes": a.fixes,
            }
            for a in attempts
        ],
        "previews": [
            {
                "number": p.number,
                "state": p.state,
                "streams": p.streams,
                "size_bytes": p.size_bytes,
                "error": p.error_message,
                "summary": p.summary,
                "url": _preview_url(session, p),
                "beside": _beside(session, "preview", p.number, p.output_path)
                if p.state == Preview.State.SUCCEEDED
                else [],
            }
            for p in session.previews.all()
        ],
        "issues": [
            {
                "check_name": i.check_name,
                "importance": i.importance,
                "message": i.message,
                "location": i.location,
                "explanation": i.explanation,
            }
            for i in issues
        ],
        "messages": [sessions.message_payload(m) for m in _messages(session, newest_messages)],
        "progress": progress,
        "output": output,
    }


def _messages(session: ConversionSession, newest: int | None) -> list[Any]:
    if newest is None:
        return list(session.messages.all())
    return list(reversed(session.messages.order_by("-created", "-id")[:newest]))


def turn_detail(turn: sessions.Turn) -> dict[str, Any]:
    return {
        "replies": [sessions.message_payload(m) for m in turn.replies],
        "session": session_detail(turn.session, newest_messages=TURN_MESSAGES),
    }


class Page(Schema):
    """Which part of a list to send: a list is sent a page at a time."""

    limit: int = Field(100, ge=1, le=500, description="How many to send (at most 500)")
    # Bounded: the database refuses an offset past a 64-bit integer (a 500, not the client's answer).
    offset: int = Field(0, ge=0, le=1_000_000_000, description="How many to skip")


def page_of(request: HttpRequest, response: HttpResponse, listed: QuerySet[Any], page: Page) -> QuerySet[Any]:
    """One page of `listed` (ordered): `X-Total-Count` says how many there are in all, and `Link`
    gives the next page while there is one. Every list a user can grow is sent this way."""
    total = listed.count()
    response["X-Total-Count"] = str(total)
    if page.offset + page.limit < total:
        following = request.GET.copy()
        following["offset"] = str(page.offset + page.limit)
        following["limit"] = str(page.limit)
        response["Link"] = f'<{request.path}?{following.urlencode()}>; rel="next"'
    return listed[page.offset : page.offset + page.limit]


class FileDownload(FileResponse):
    """A file sent in blocks under ASGI too. Django's ASGI handler would read a plain FileResponse
    whole into memory first (it cannot iterate a file asynchronously); an NWB file can be many GB."""

    block_size = 1024 * 1024

    async def __aiter__(self) -> AsyncIterator[bytes]:
        read = sync_to_async(
            self.file_to_stream.read,  # type: ignore[union-attr]  # a FileDownload is always given a file
            thread_sensitive=False,
        )
        while chunk := await read(self.block_size):
            yield chunk


def json_answer(data: Any, *, status: int = 200) -> HttpResponse:
    """A JSON answer built by hand (to add headers), written as the API writes its own."""
    return HttpResponse(
        json.dumps(data, cls=NinjaJSONEncoder), status=status, content_type="application/json; charset=utf-8"
    )


def binary_answer(description: str, content_type: str) -> dict[str, Any]:
    """The OpenAPI entry of an operation that answers with a file rather than JSON."""
    return {
        "responses": {
            "200": {
                "description": description,
                "content": {content_type: {"schema": {"type": "string", "format": "binary"}}},
            }
        }
    }

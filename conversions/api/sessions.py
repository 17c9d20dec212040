"""The conversion sessions: create, list, read; their files, chat messages and actions; the NWB
files they produce."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from django.http import FileResponse, HttpResponse
from ninja import File, Form, Query, Router, Status
from ninja.files import UploadedFile

from conversions.api.schemas import (
    ActionIn,
    ErrorOut,
    FileDownload,
    MessageIn,
    Page,
    SessionFilters,
    SessionIn,
    SessionOut,
    SessionSummaryOut,
    TurnOut,
    binary_answer,
    page_of,
    session_detail,
    session_summary,
    turn_detail,
)
from conversions.errors import NotFound
from conversions.models import ConversionAttempt, Preview
from conversions.services import sessions
from conversions.services.authentication import AuthenticatedHttpRequest

router = Router()


@router.post("/sessions", response={201: SessionOut, 400: ErrorOut, 429: ErrorOut}, url_name="sessions_create")
def create_session(request: AuthenticatedHttpRequest, payload: SessionIn | None = None) -> Status[dict[str, Any]]:
    payload = payload or SessionIn()
    session = sessions.create_session(user=request.user, lab_id=payload.lab, title=payload.title)
    return Status(201, session_detail(session))


@router.get("/sessions", response=list[SessionSummaryOut], url_name="sessions_list")
def list_sessions(
    request: AuthenticatedHttpRequest, filters: Query[SessionFilters], page: Query[Page], response: HttpResponse
) -> list[dict[str, Any]]:
    """The sessions you may see, newest change first, a page at a time (see `page_of`)."""
    listed = filters.apply(sessions.sessions_visible_to(request.user)).order_by("-updated", "-created", "id")
    return [session_summary(s) for s in page_of(request, response, listed, page)]


@router.get("/sessions/{session_id}", response={200: SessionOut, 404: ErrorOut}, url_name="session_detail")
def get_session(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> dict[str, Any]:
    return session_detail(sessions.get_session(request.user, session_id))


@router.post(
    "/sessions/{session_id}/files",
    response={201: SessionOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut, 503: ErrorOut, 507: ErrorOut},
    url_name="session_files",
)
def upload_files(
    request: AuthenticatedHttpRequest,
    session_id: uuid.UUID,
    files: File[list[UploadedFile]] = None,  # type: ignore[assignment]  # ninja: None when not sent
    relative_paths: Form[list[str]] = None,  # type: ignore[assignment]  # ninja: None when not sent
) -> Status[dict[str, Any]]:
    session = sessions.get_session(request.user, session_id)
    sessions.add_files(session=session, user=request.user, uploads=files or [], relative_paths=relative_paths or [])
    session.refresh_from_db()
    return Status(201, session_detail(session))


@router.delete(
    "/sessions/{session_id}/files/{path:relative_path}",
    response={200: SessionOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    url_name="session_file",
)
def remove_file(request: AuthenticatedHttpRequest, session_id: uuid.UUID, relative_path: str) -> dict[str, Any]:
    session = sessions.get_session(request.user, session_id)
    sessions.remove_file(session=session, user=request.user, relative_path=relative_path)
    session.refresh_from_db()
    return session_detail(session)


@router.post(
    "/sessions/{session_id}/messages",
    response={200: TurnOut, 400: ErrorOut, 404: ErrorOut},
    url_name="session_messages",
)
def post_message(request: AuthenticatedHttpRequest, session_id: uuid.UUID, payload: MessageIn) -> dict[str, Any]:
    session = sessions.get_session(request.user, session_id)
    return turn_detail(sessions.post_message(session=session, user=request.user, text=payload.text))


@router.post(
    "/sessions/{session_id}/actions",
    response={200: TurnOut, 404: ErrorOut, 409: ErrorOut},
    url_name="session_actions",
)
def perform_action(request: AuthenticatedHttpRequest, session_id: uuid.UUID, payload: ActionIn) -> dict[str, Any]:
    session = sessions.get_session(request.user, session_id)
    turn = sessions.perform_action(session=session, user=request.user, action=payload.action, value=payload.value)
    return turn_detail(turn)


@router.get(
    "/sessions/{session_id}/output",
    response={404: ErrorOut},
    url_name="session_output",
    openapi_extra=binary_answer("The NWB file of the latest (or the given) successful attempt", "application/x-hdf5"),
)
def download_output(
    request: AuthenticatedHttpRequest, session_id: uuid.UUID, attempt: int | None = None
) -> FileResponse:
    session = sessions.get_session(request.user, session_id)
    attempts = session.attempts.filter(state=ConversionAttempt.State.SUCCEEDED)
    if attempt is not None:
        attempts = attempts.filter(number=attempt)
    chosen = attempts.order_by("-number").first()
    if chosen is None or not Path(chosen.output_path).is_file():
        raise NotFound("There is no NWB file to download yet: it appears once a conversion has finished.")
    path = Path(chosen.output_path)
    return FileDownload(path.open("rb"), as_attachment=True, filename=path.name, content_type="application/x-hdf5")


@router.get(
    "/sessions/{session_id}/previews/{number}/file",
    response={404: ErrorOut},
    url_name="session_preview",
    openapi_extra=binary_answer("The preview's stub NWB file", "application/x-hdf5"),
)
def download_preview(request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int) -> FileResponse:
    """A preview's stub NWB file: the first seconds only, never validated, never the result."""
    session = sessions.get_session(request.user, session_id)
    preview = session.previews.filter(number=number, state=Preview.State.SUCCEEDED).first()
    if preview is None or not Path(preview.output_path).is_file():
        raise NotFound("There is no such preview: ask for one with “preview”, then download it once it is ready.")
    path = Path(preview.output_path)
    return FileDownload(path.open("rb"), as_attachment=True, filename=path.name, content_type="application/x-hdf5")


@router.get(
    "/sessions/{session_id}/attempts/{number}/beside/{path:relative_path}",
    response={404: ErrorOut, 503: ErrorOut},
    url_name="session_attempt_beside",
    openapi_extra=binary_answer(
        "A file kept beside the attempt's NWB file, which the NWB file links to by `relative_path` "
        "(<stem>_video/<name>, as the attempt's `beside` lists it)",
        "application/octet-stream",
    ),
)
def download_attempt_beside(
    request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int, relative_path: str
) -> FileResponse:
    """A video the attempt's NWB file links to: keep it in the folder its path names, next to the NWB file."""
    session = sessions.get_session(request.user, session_id)
    return _download_beside(sessions.attempt_file_beside(session, number, relative_path))


@router.get(
    "/sessions/{session_id}/previews/{number}/beside/{path:relative_path}",
    response={404: ErrorOut, 503: ErrorOut},
    url_name="session_preview_beside",
    openapi_extra=binary_answer(
        "A file kept beside the preview's NWB file, which the preview links to by `relative_path`",
        "application/octet-stream",
    ),
)
def download_preview_beside(
    request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int, relative_path: str
) -> FileResponse:
    """A video the preview's NWB file links to (see download_attempt_beside)."""
    session = sessions.get_session(request.user, session_id)
    return _download_beside(sessions.preview_file_beside(session, number, relative_path))


def _download_beside(beside: sessions.FileBeside) -> FileResponse:
    # Its type follows from its name (video/mp4, ...); saved under its own name, for its folder.
    return FileDownload(beside.open(), as_attachment=True, filename=beside.path.name)

"""Resumable uploads in pieces and import from the lab's server storage."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from ninja import Field, Router, Schema, Status

from conversions.api.schemas import ErrorOut, SessionOut, session_detail
from conversions.models import ConversionSession, PendingUpload
from conversions.services import sessions, uploads
from conversions.services.authentication import AuthenticatedHttpRequest

router = Router(tags=["uploads"])


class FileDeclarationIn(Schema):
    path: str
    size_bytes: int = Field(ge=0)


class DeclarationIn(Schema):
    files: list[FileDeclarationIn]


class PendingOut(Schema):
    path: str
    size_bytes: int
    received_bytes: int
    missing_bytes: int
    # SHA-256 of the last (up to) 64 KiB received, so a client can check that the file it resumes
    # with is the one it started; null once the file is in place.
    tail_sha256: str | None


class UploadsOut(Schema):
    piece_bytes: int
    uploads: list[PendingOut]
    # True when this request completed the declared set and the recording is being looked at.
    detection_started: bool = False


class PieceOut(Schema):
    upload: PendingOut | None
    detection_started: bool


class PieceConflictOut(Schema):
    detail: str
    # Where the next piece must start, when that was the problem.
    expected_offset: int | None = None


class StorageEntryOut(Schema):
    name: str
    kind: str
    size_bytes: int | None
    modified: datetime


class StorageListingOut(Schema):
    path: str
    entries: list[StorageEntryOut]
    # The folder holds more entries than listed (STORAGE_BROWSE_MAX_ENTRIES).
    truncated: bool


class ImportIn(Schema):
    paths: list[str]


def _pending(session: ConversionSession, pending: PendingUpload) -> dict[str, Any]:
    return {
        "path": pending.relative_path,
        "size_bytes": pending.size_bytes,
        "received_bytes": pending.received_bytes,
        "missing_bytes": pending.size_bytes - pending.received_bytes,
        "tail_sha256": uploads.received_tail_sha256(session, pending),
    }


def _uploads(session: ConversionSession, *, detection_started: bool = False) -> dict[str, Any]:
    return {
        "piece_bytes": uploads.piece_bytes(),
        "uploads": [_pending(session, p) for p in uploads.pending_uploads(session)],
        "detection_started": detection_started,
    }


@router.post(
    "/sessions/{session_id}/uploads",
    response={201: UploadsOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut, 503: ErrorOut, 507: ErrorOut},
    url_name="session_uploads",
)
def declare_uploads(
    request: AuthenticatedHttpRequest, session_id: uuid.UUID, payload: DeclarationIn
) -> Status[dict[str, Any]]:
    """Name the files about to be sent in pieces. Files already declared with the same path and size
    keep what was received: the answer says how much is missing of each."""
    session = sessions.get_session(request.user, session_id)
    files = [uploads.FileDeclaration(path=f.path, size_bytes=f.size_bytes) for f in payload.files]
    _, started = uploads.declare_uploads(session=session, user=request.user, files=files)
    return Status(201, _uploads(session, detection_started=started))


@router.get("/sessions/{session_id}/uploads", response={200: UploadsOut, 404: ErrorOut})
def list_uploads(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> dict[str, Any]:
    """The uploads not finished yet, with what each still misses."""
    return _uploads(sessions.get_session(request.user, session_id))


@router.put(
    "/sessions/{session_id}/uploads/{path:relative_path}",
    response={
        200: PieceOut,
        400: ErrorOut,
        404: ErrorOut,
        409: PieceConflictOut,
        413: ErrorOut,
        503: ErrorOut,
        507: ErrorOut,
    },
    url_name="session_upload_piece",
)
def send_piece(request: AuthenticatedHttpRequest, session_id: uuid.UUID, relative_path: str, offset: int) -> Any:
    """One piece of a declared file, as the raw request body (application/octet-stream), starting
    at `offset`, which must be the number of bytes the server has. Otherwise the answer is 409 with
    `expected_offset`. The body is read in blocks, never whole."""
    session = sessions.get_session(request.user, session_id)
    length = request.headers.get("Content-Length")
    try:
        outcome = uploads.receive_piece(
            session=session,
            user=request.user,
            relative_path=relative_path,
            offset=offset,
            body=request,
            length=int(length) if length and length.isdigit() else None,
        )
    except uploads.OffsetMismatch as exc:
        return Status(409, {"detail": exc.user_message, "expected_offset": exc.expected_offset})
    return {
        "upload": _pending(session, outcome.upload) if outcome.upload else None,
        "detection_started": outcome.detection_started,
    }


@router.delete(
    "/sessions/{session_id}/uploads/{path:relative_path}",
    response={200: UploadsOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    url_name="session_upload",
)
def discard_upload(request: AuthenticatedHttpRequest, session_id: uuid.UUID, relative_path: str) -> dict[str, Any]:
    """Give up an unfinished upload (what was received of it is deleted)."""
    session = sessions.get_session(request.user, session_id)
    started = uploads.discard_upload(session=session, user=request.user, relative_path=relative_path)
    return _uploads(session, detection_started=started)


@router.get(
    "/labs/{lab_id}/storage",
    response={200: StorageListingOut, 400: ErrorOut, 404: ErrorOut, 503: ErrorOut},
    url_name="lab_storage",
)
def browse_storage(request: AuthenticatedHttpRequest, lab_id: int, path: str = "") -> dict[str, Any]:
    """A folder of the lab's server storage (`path` relative to its top), for the lab's members:
    folders first, then files, by name; hidden entries and links leading outside are left out."""
    lab = uploads.lab_for_member(request.user, lab_id)
    listing = uploads.browse_storage(lab=lab, path=path)
    return {
        "path": listing.path,
        "entries": [vars(entry) for entry in listing.entries],
        "truncated": listing.truncated,
    }


@router.post(
    "/sessions/{session_id}/storage-imports",
    response={
        201: SessionOut,
        400: ErrorOut,
        403: ErrorOut,
        404: ErrorOut,
        409: ErrorOut,
        503: ErrorOut,
        507: ErrorOut,
    },
    url_name="session_storage_import",
)
def import_from_storage(
    request: AuthenticatedHttpRequest, session_id: uuid.UUID, payload: ImportIn
) -> Status[dict[str, Any]]:
    """Copy files and folders (paths relative to the storage's top) into the session; a folder
    keeps its name, as in a folder upload. The recording is then looked at once for all of them."""
    session = sessions.get_session(request.user, session_id)
    uploads.import_from_storage(session=session, user=request.user, paths=payload.paths)
    session.refresh_from_db()
    return Status(201, session_detail(session))

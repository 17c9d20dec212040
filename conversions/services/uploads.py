"""Uploads in pieces that survive an interrupted connection, and imports from a lab's server storage.

Uploads in pieces. The client declares the files it will send (relative path and size), then sends
each file in pieces, each at the offset the server has reached. A piece at another offset is refused
with the offset expected, so a client that lost its connection resumes exactly where the server
stopped. Pieces go to a part file outside the session's source folder (`<session>/uploads/`), so
detection and conversion never see half a file; a complete file is moved into the source folder,
where add_files would have put it, and registered. When every declared file is in, the recording is
looked at again, once for the whole set.

Imports. `Lab.data_root` is a folder on the server that lab members may copy recordings from.
Nothing outside it is reachable: paths are cleaned as upload paths are, resolved, and must stay
inside the root; a file is checked again once opened, so a link swapped in between is caught.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import logging
import os
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import BinaryIO, Protocol

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction

from conversions.errors import (
    BadRequest,
    Conflict,
    InsufficientStorage,
    NotFound,
    PortalError,
    StorageProblem,
    storing_failed,
)
from conversions.models import AuditEvent, ConversionSession, Lab, Membership, PendingUpload, SourceFile
from conversions.services import sessions

logger = logging.getLogger(__name__)

# 8 MiB: a 2 GB file in ~240 requests, so the per-request cost (authentication, two queries) stays
# a few percent even on a fast network, while a broken connection loses at most one piece and
# progress moves at least every second on a slow one. Memory does not depend on it: Django's ASGI
# handler spools every request body to a temporary file beyond FILE_UPLOAD_MAX_MEMORY_SIZE, and the
# piece is copied from there in COPY_CHUNK blocks.
DEFAULT_PIECE_BYTES = 8 * 1024 * 1024
COPY_CHUNK = 1024 * 1024
# The page checks that a re-selected file is the one whose upload was interrupted by comparing the
# SHA-256 of the last bytes received (besides its path and size): recordings of the same length
# often share both.
TAIL_BYTES = 64 * 1024
DEFAULT_BROWSE_ENTRIES = 500
_WHILE_CONVERTING = (
    "A conversion is running on this session's files, so they cannot change now. Wait for it to finish "
    "(or cancel it), then resume the upload: nothing received so far is lost."
)
# Linux's "clone this file" ioctl (copy on write, on btrfs, XFS and similar): instant and independent.
_FICLONE = 0x40049409


class OffsetMismatch(Conflict):
    """A piece that does not start where the server stopped; the client resumes at `expected_offset`."""

    def __init__(self, user_message: str, *, expected_offset: int) -> None:
        super().__init__(user_message)
        self.expected_offset = expected_offset


class PieceTooLarge(PortalError):
    status_code = 413


class NotALabMember(PortalError):
    status_code = 403


def piece_bytes() -> int:
    return int(getattr(settings, "UPLOAD_PIECE_BYTES", DEFAULT_PIECE_BYTES))


def _max_files() -> int:
    return int(getattr(settings, "DATA_UPLOAD_MAX_NUMBER_FILES", 2000))


def _refuse_while_converting(session: ConversionSession) -> None:
    if session.status in sessions.CONVERSION_STATUSES:
        raise Conflict(_WHILE_CONVERTING)


def _audit(session: ConversionSession, user: User, kind: str, detail: dict[str, object]) -> None:
    AuditEvent.objects.create(session=session, actor=user if user.is_authenticated else None, kind=kind, detail=detail)


# --- uploads in pieces ----------------------------------------------------------------------------


@dataclass(frozen=True)
class FileDeclaration:
    path: str
    size_bytes: int


class PieceBody(Protocol):
    """What a piece is read from, in blocks: the request itself (Django reads its body as a stream)."""

    def read(self, size: int, /) -> bytes: ...


@dataclass(frozen=True)
class PieceOutcome:
    """Where a file stands after a piece; `upload` is None once its set went to detection."""

    upload: PendingUpload | None
    detection_started: bool


def staging_directory(session: ConversionSession) -> Path:
    return session.directory / "uploads"


def part_path(session: ConversionSession, pending: PendingUpload) -> Path:
    return staging_directory(session) / f"{pending.id}.part"


def declare_uploads(
    *, session: ConversionSession, user: User, files: Sequence[FileDeclaration]
) -> tuple[list[PendingUpload], bool]:
    """Pending uploads for these files, and whether the set went to detection at once (empty files
    only). A file already declared with the same path and size keeps what was received; with
    another size it is another file, and starts again."""
    if not files:
        raise BadRequest("No files were named. Choose the recording's files (or its folder) and send them again.")
    if len(files) > _max_files():
        raise BadRequest(f"That is {len(files)} files; at most {_max_files()} can be sent at once.")
    _refuse_while_converting(session)
    cleaned = [(sessions.clean_relative_path(f.path), f.size_bytes) for f in files]
    _check_paths_fit_together([relative for relative, _ in cleaned])
    sessions.refuse_too_many_files(session, (relative.as_posix() for relative, _ in cleaned))
    for relative, size in cleaned:
        if size < 0:
            raise BadRequest(f"{relative.name} was declared with a negative size.")
    with transaction.atomic():
        existing = {row.relative_path: row for row in session.pending_uploads.all()}
        missing = 0
        for relative, size in cleaned:
            row = existing.get(relative.as_posix())
            missing += size - (row.received_bytes if row is not None and row.size_bytes == size else 0)
        free = _free_bytes(session)
        if missing > free:
            raise InsufficientStorage(
                f"The server has {_size(free)} free and these files need {_size(missing)} more. Nothing was "
                "received; tell the portal's admins, or send fewer files."
            )
        rows = []
        for relative, size in cleaned:
            row = existing.get(relative.as_posix())
            if row is None:
                row = PendingUpload.objects.create(session=session, relative_path=relative.as_posix(), size_bytes=size)
                _start_part(session, row)
            elif row.size_bytes != size:
                row.size_bytes, row.received_bytes = size, 0
                row.save(update_fields=["size_bytes", "received_bytes", "updated"])
                _start_part(session, row)
            rows.append(row)
        _audit(session, user, "upload_declared", {"files": [r.relative_path for r in rows], "bytes": missing})
    detection_started = _finish(session, user)
    return rows, detection_started


def _check_paths_fit_together(paths: Sequence[PurePosixPath]) -> None:
    names = [p.as_posix() for p in paths]
    seen = set(names)
    if len(seen) != len(names):
        twice = next(n for n in names if names.count(n) > 1)
        raise BadRequest(f"“{twice}” was named twice; each file must have its own path.")
    for path in paths:
        for parent in path.parents:
            if parent.as_posix() in seen:
                raise BadRequest(f"“{parent}” cannot be both a file and the folder of “{path}”.")


def _start_part(session: ConversionSession, pending: PendingUpload) -> None:
    """An empty part file: a complete declaration (or an empty file) has its part until it is placed."""
    part = part_path(session, pending)
    try:
        part.parent.mkdir(parents=True, exist_ok=True)
        part.write_bytes(b"")
    except OSError as exc:
        raise _storage_problem(pending.relative_path, exc) from exc


def pending_uploads(session: ConversionSession) -> list[PendingUpload]:
    return list(session.pending_uploads.all())


def received_tail_sha256(session: ConversionSession, pending: PendingUpload) -> str | None:
    """SHA-256 of bytes [max(0, received - TAIL_BYTES), received) of the part file, or None once
    the file was placed (or its part is gone)."""
    start = max(0, pending.received_bytes - TAIL_BYTES)
    try:
        with part_path(session, pending).open("rb") as handle:
            handle.seek(start)
            tail = handle.read(pending.received_bytes - start)
    except OSError:
        return None
    if len(tail) != pending.received_bytes - start:
        return None
    return hashlib.sha256(tail).hexdigest()


def receive_piece(
    *,
    session: ConversionSession,
    user: User,
    relative_path: str,
    offset: int,
    body: PieceBody,
    length: int | None,
) -> PieceOutcome:
    """Append one piece, read from `body` in COPY_CHUNK blocks, if it starts where the server stopped."""
    relative = sessions.clean_relative_path(relative_path)
    _refuse_while_converting(session)
    if length is not None and length > piece_bytes():
        raise PieceTooLarge(f"A piece may hold at most {piece_bytes()} bytes; this one has {length}.")
    pending = _pending(session, relative)
    if pending.received_bytes == pending.size_bytes:
        if offset != pending.size_bytes:
            raise _mismatch(relative, offset, pending.size_bytes)
        # Everything is in: a piece of nothing asks again for the file to be placed (after a refusal).
        started = _finish(session, user)
        return PieceOutcome(upload=session.pending_uploads.filter(id=pending.id).first(), detection_started=started)
    part = part_path(session, pending)
    try:
        handle = part.open("r+b")
    except FileNotFoundError:
        raise NotFound(f"The upload of {relative.name} was discarded; declare it again to send it.") from None
    except OSError as exc:
        raise _storage_problem(relative.as_posix(), exc) from exc
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Conflict(
                f"Another piece of {relative.name} is being received right now; wait for it, then go on."
            ) from None
        received = _write_piece(session, pending, relative, handle, offset, body)
    if received < pending.size_bytes:
        pending.received_bytes = received
        return PieceOutcome(upload=pending, detection_started=False)
    started = _finish(session, user)
    return PieceOutcome(upload=session.pending_uploads.filter(id=pending.id).first(), detection_started=started)


def _pending(session: ConversionSession, relative: PurePosixPath) -> PendingUpload:
    pending = session.pending_uploads.filter(relative_path=relative.as_posix()).first()
    if pending is None:
        raise NotFound(
            f"No upload of “{relative.as_posix()}” is waiting in this session: declare the files before sending them."
        )
    return pending


def _write_piece(
    session: ConversionSession,
    pending: PendingUpload,
    relative: PurePosixPath,
    handle: BinaryIO,
    offset: int,
    body: PieceBody,
) -> int:
    """Bytes received after the piece. Called with the part file locked."""
    pending.refresh_from_db()
    on_disk = os.fstat(handle.fileno()).st_size
    if on_disk < pending.received_bytes:
        # The part lost bytes the database counted (a restored disk): resume from what is really there.
        PendingUpload.objects.filter(id=pending.id).update(received_bytes=on_disk)
        pending.received_bytes = on_disk
    if offset != pending.received_bytes:
        raise _mismatch(relative, offset, pending.received_bytes)
    room = pending.size_bytes - offset
    written = 0
    try:
        # Bytes past the counted ones were never acknowledged (a piece cut off mid-way).
        handle.truncate(offset)
        handle.seek(offset)
        while chunk := body.read(COPY_CHUNK):
            written += len(chunk)
            if written > room:
                handle.truncate(offset)
                raise BadRequest(
                    f"This piece goes past the end of {relative.name}: it was declared with "
                    f"{pending.size_bytes} bytes. Declare it again with its real size."
                )
            if written > piece_bytes():  # sent without a Content-Length (chunked), so only counted here
                handle.truncate(offset)
                raise PieceTooLarge(f"A piece may hold at most {piece_bytes()} bytes; this one has more.")
            handle.write(chunk)
        handle.flush()
    except OSError as exc:
        with contextlib.suppress(OSError):
            handle.truncate(offset)
        raise _storage_problem(relative.as_posix(), exc) from exc
    PendingUpload.objects.filter(id=pending.id, received_bytes=offset).update(received_bytes=offset + written)
    return offset + written


def _mismatch(relative: PurePosixPath, offset: int, expected: int) -> OffsetMismatch:
    return OffsetMismatch(
        f"The server has {expected} bytes of {relative.name}, so the next piece must start there, not at {offset}.",
        expected_offset=expected,
    )


def _finish(session: ConversionSession, user: User) -> bool:
    """Place every complete file that is not in the source folder yet; once every declared file is
    in, register the set and start detection once. True when detection was started."""
    with transaction.atomic():
        locked = ConversionSession.objects.select_for_update().get(id=session.id)
        rows = list(locked.pending_uploads.all())
        complete = [row for row in rows if row.received_bytes == row.size_bytes]
        unplaced = [row for row in complete if part_path(locked, row).exists()]
        set_complete = bool(rows) and len(complete) == len(rows)
        if not unplaced and not set_complete:
            return False
        _refuse_while_converting(locked)
        for row in unplaced:
            relative = PurePosixPath(row.relative_path)
            target = locked.source_directory.joinpath(*relative.parts)
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
                os.replace(part_path(locked, row), target)
            except OSError as exc:
                raise _storage_problem(row.relative_path, exc) from exc
            SourceFile.objects.update_or_create(
                session=locked, relative_path=row.relative_path, defaults={"size_bytes": row.size_bytes}
            )
        if not set_complete:
            return False
        sessions.register_placed_files(
            session=locked, user=user, relative_paths=[row.relative_path for row in rows], how="pieces"
        )
        PendingUpload.objects.filter(id__in=[row.id for row in rows]).delete()
    return True


def discard_upload(*, session: ConversionSession, user: User, relative_path: str) -> bool:
    """Give up a pending upload: its part file goes, files already placed stay. True when the files
    left complete the set, which then goes to detection."""
    relative = sessions.clean_relative_path(relative_path)
    pending = _pending(session, relative)
    part_path(session, pending).unlink(missing_ok=True)
    pending.delete()
    _audit(session, user, "upload_discarded", {"file": relative.as_posix(), "received": pending.received_bytes})
    if not session.pending_uploads.exists():
        return False
    return _finish(session, user)


def _storage_problem(relative_path: str, exc: OSError) -> PortalError:
    logger.error("could not store %s: %s", relative_path, exc)
    return storing_failed(relative_path, exc, kept="What was received is kept.")


def _free_bytes(session: ConversionSession) -> int:
    """Free space where the session's files go (its nearest folder that exists)."""
    folder = session.directory
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    return shutil.disk_usage(folder).free


def _size(n: int) -> str:
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} bytes"


# --- the lab's server storage ---------------------------------------------------------------------


@dataclass(frozen=True)
class StorageEntry:
    name: str
    kind: str  # "folder" or "file"
    size_bytes: int | None  # None for folders: their size would mean reading the whole tree
    modified: datetime


@dataclass(frozen=True)
class StorageListing:
    path: str  # relative to the root, "" for the root itself
    entries: list[StorageEntry]
    truncated: bool  # the folder holds more than the entries listed


def lab_for_member(user: User, lab_id: int) -> Lab:
    """The lab, if the user is one of its members or managers; otherwise NotFound."""
    membership = Membership.objects.select_related("lab").filter(user=user, lab_id=lab_id).first()
    if membership is None:
        raise NotFound("No such lab.")
    return membership.lab


def storage_root(lab: Lab) -> Path:
    if not lab.data_root.strip():
        raise NotFound(f"{lab.name} has no server storage to import from; a portal admin can set one.")
    root = Path(lab.data_root)
    try:
        resolved = root.resolve(strict=True)
    except OSError:
        resolved = None
    if resolved is None or not resolved.is_dir():
        logger.error("data root of lab %s is not a reachable folder: %s", lab.id, lab.data_root)
        raise StorageProblem(f"{lab.name}'s server storage cannot be reached right now; tell the portal's admins.")
    return resolved


def resolve_inside(root: Path, raw: str) -> tuple[Path, PurePosixPath]:
    """The real path of `raw` (relative to `root`, which is resolved) and its cleaned relative path,
    if it exists and stays inside the root. Whatever leads outside is answered as if it did not
    exist, so the storage's surroundings cannot be probed."""
    shown = raw if len(raw) <= 80 else raw[:77] + "..."
    if "\x00" in raw or raw.startswith(("/", "\\", "~")):
        raise BadRequest(f"“{shown}” is not a path inside the lab's storage: give one relative to its top folder.")
    if raw in ("", "."):
        return root, PurePosixPath()
    relative = sessions.clean_relative_path(raw)
    try:
        resolved = root.joinpath(*relative.parts).resolve(strict=True)
    except (OSError, RuntimeError):
        resolved = None
    if resolved is None or not resolved.is_relative_to(root):
        raise NotFound(f"There is no “{shown}” in the lab's storage.")
    return resolved, relative


def browse_storage(*, lab: Lab, path: str) -> StorageListing:
    root = storage_root(lab)
    folder, relative = resolve_inside(root, path)
    if not folder.is_dir():
        raise BadRequest(f"“{relative}” is a file, not a folder.")
    limit = int(getattr(settings, "STORAGE_BROWSE_MAX_ENTRIES", DEFAULT_BROWSE_ENTRIES))
    try:
        with os.scandir(folder) as scan:
            visible = [entry for entry in scan if not entry.name.startswith(".")]
    except OSError as exc:
        raise StorageProblem(f"The server could not read “{relative}” ({exc.strerror or 'storage error'}).") from exc
    # Sorted before anything is looked up, so only the entries shown cost a stat (slow on a share).
    visible.sort(key=lambda entry: (not _is_dir(entry), entry.name.casefold(), entry.name))
    shown = relative.as_posix() if relative.parts else ""
    entries: list[StorageEntry] = []
    for item in visible:
        if len(entries) == limit:
            return StorageListing(path=shown, entries=entries, truncated=True)
        described = _describe(root, item)
        if described is not None:
            entries.append(described)
    return StorageListing(path=shown, entries=entries, truncated=False)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _describe(root: Path, entry: os.DirEntry[str]) -> StorageEntry | None:
    """An entry as listed, or None for what cannot be imported: links that lead outside the root,
    broken links, devices, sockets and pipes."""
    try:
        if entry.is_symlink() and not Path(entry.path).resolve(strict=True).is_relative_to(root):
            return None
        info = entry.stat()
    except (OSError, RuntimeError):
        return None
    modified = datetime.fromtimestamp(info.st_mtime, tz=UTC)
    if stat.S_ISDIR(info.st_mode):
        return StorageEntry(name=entry.name, kind="folder", size_bytes=None, modified=modified)
    if stat.S_ISREG(info.st_mode):
        return StorageEntry(name=entry.name, kind="file", size_bytes=info.st_size, modified=modified)
    return None


@dataclass(frozen=True)
class _Copy:
    source: Path  # resolved, inside the root
    destination: PurePosixPath  # relative to the session's source folder
    size_bytes: int


def import_from_storage(*, session: ConversionSession, user: User, paths: Sequence[str]) -> list[SourceFile]:
    """Copy files and folders of the lab's storage into the session, as a folder upload would place
    them (a folder keeps its name), then look at the recording once for all of them."""
    if not Membership.objects.filter(user=user, lab_id=session.lab_id).exists():
        raise NotALabMember("Only members of this session's lab can import from its server storage.")
    root = storage_root(session.lab)
    if not paths:
        raise BadRequest("Choose the files or folders to import first.")
    _refuse_while_converting(session)
    copies = _plan_copies(root, paths)
    sessions.refuse_too_many_files(session, (copy.destination.as_posix() for copy in copies))
    total = sum(copy.size_bytes for copy in copies)
    free = _free_bytes(session)
    if total > free:
        raise InsufficientStorage(
            f"The server has {_size(free)} free and these files need {_size(total)}. Nothing was imported; "
            "tell the portal's admins, or import fewer files."
        )
    partials: list[tuple[Path, Path]] = []
    try:
        for copy in copies:
            target = session.source_directory.joinpath(*copy.destination.parts)
            partial = target.with_name(f".{target.name}.partial")
            try:
                target.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise _storage_problem(copy.destination.as_posix(), exc) from exc
            partials.append((partial, target))
            _copy_file(root, copy, partial)
        with transaction.atomic():
            locked = ConversionSession.objects.select_for_update().get(id=session.id)
            _refuse_while_converting(locked)
            for partial, target in partials:
                try:
                    os.replace(partial, target)
                except OSError as exc:
                    raise _storage_problem(target.name, exc) from exc
            stored = sessions.register_placed_files(
                session=locked,
                user=user,
                relative_paths=[copy.destination.as_posix() for copy in copies],
                how="storage import",
            )
    finally:
        for partial, _ in partials:
            partial.unlink(missing_ok=True)
    return stored


def _plan_copies(root: Path, paths: Sequence[str]) -> list[_Copy]:
    """Every file to copy, checked before anything is copied."""
    copies: list[_Copy] = []
    for raw in paths:
        source, relative = resolve_inside(root, raw)
        if not relative.parts:
            raise BadRequest("Choose files or folders inside the storage, not the whole storage.")
        top = PurePosixPath(relative.name)
        if source.is_dir():
            copies += _copies_in_folder(root, source, top)
        elif source.is_file():
            copies.append(_Copy(source=source, destination=top, size_bytes=source.stat().st_size))
        else:
            raise BadRequest(f"“{relative}” is neither a file nor a folder, so it cannot be imported.")
        if len(copies) > _max_files():
            raise BadRequest(f"That is more than {_max_files()} files; import fewer at once.")
    destinations = [copy.destination for copy in copies]
    _check_paths_fit_together(destinations)
    if not copies:
        raise BadRequest("The folders chosen hold no files to import.")
    return copies


def _copies_in_folder(root: Path, folder: Path, top: PurePosixPath) -> list[_Copy]:
    """The files under `folder`, hidden ones aside. Links to files are followed when they stay inside
    the root; links to folders are not followed (they can make loops)."""
    copies = []
    for current, folders, files in os.walk(folder, followlinks=False, onerror=_raise_unreadable):
        folders[:] = sorted(name for name in folders if not name.startswith("."))
        for name in sorted(files):
            if name.startswith("."):
                continue
            path = Path(current) / name
            inside = top / path.relative_to(folder).as_posix()
            try:
                resolved = path.resolve(strict=True)
            except (OSError, RuntimeError):
                raise BadRequest(f"“{inside}” is a broken link; nothing was imported.") from None
            if not resolved.is_relative_to(root):
                raise BadRequest(f"“{inside}” leads outside the lab's storage; nothing was imported.")
            info = resolved.stat()
            if stat.S_ISREG(info.st_mode):
                copies.append(_Copy(source=resolved, destination=inside, size_bytes=info.st_size))
    return copies


def _raise_unreadable(exc: OSError) -> None:
    raise StorageProblem(f"The server could not read a folder of the storage ({exc.strerror or 'storage error'}).")


def _copy_file(root: Path, copy: _Copy, partial: Path) -> None:
    with _opened_inside(root, copy) as source, partial.open("wb") as out:
        try:
            fcntl.ioctl(out.fileno(), _FICLONE, source.fileno())
            return
        except OSError:
            pass  # not the same file system, or one that cannot share blocks: copy the bytes
        try:
            shutil.copyfileobj(source, out, COPY_CHUNK)
        except OSError as exc:
            raise _storage_problem(copy.destination.as_posix(), exc) from exc


@contextlib.contextmanager
def _opened_inside(root: Path, copy: _Copy) -> Iterator[BinaryIO]:
    """The file opened for reading, after checking what was opened: a regular file inside the root.
    The path was resolved earlier; a link swapped in since is caught here. O_NONBLOCK keeps a pipe
    put in its place from blocking the request."""
    shown = copy.destination.as_posix()
    try:
        fd = os.open(copy.source, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        raise BadRequest(f"“{shown}” changed or disappeared in the lab's storage; nothing was imported.") from None
    try:
        opened = Path(os.readlink(f"/proc/self/fd/{fd}")) if Path("/proc/self/fd").is_dir() else copy.source
        if not stat.S_ISREG(os.fstat(fd).st_mode) or not opened.is_relative_to(root):
            raise BadRequest(f"“{shown}” is not a file inside the lab's storage; nothing was imported.")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    with os.fdopen(fd, "rb") as handle:
        yield handle

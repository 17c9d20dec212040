"""The only code that changes conversion sessions.

Each public function owns its transaction: it locks the session row, asks the orchestrator (a pure
function) for the next step, stores the step, and enqueues work only once the transaction commits.
"""

from __future__ import annotations

import contextlib
import errno
import logging
import os
import stat
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path, PurePosixPath
from typing import Any, BinaryIO, Protocol

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from conversions.errors import BadRequest, Conflict, NotFound, StorageProblem, TooMany, storing_failed
from conversions.language import llm
from conversions.language.rules import Intent, ParsedMessage, parse_message
from conversions.models import (
    AuditEvent,
    ChatMessage,
    ConversionAttempt,
    ConversionSession,
    Lab,
    LlmCall,
    Membership,
    MetadataField,
    Preview,
    SourceFile,
)
from conversions.nwb.fields import FIELDS
from conversions.nwb.naming import video_folder_name
from conversions.nwb.normalizers import normalize_field, unfit_characters
from conversions.orchestrator import policy
from conversions.orchestrator.state import (
    Awaiting,
    CancelJobs,
    DetectFormat,
    Event,
    FieldValue,
    FilesChanged,
    FlagForReview,
    FormatDetected,
    Memory,
    RecordingSummary,
    SessionView,
    Source,
    StartConversion,
    StartPreview,
    StartValidation,
    Status,
    Step,
    StreamSummary,
    UserAction,
    UserActionName,
    UserMessage,
)
from conversions.realtime import notify
from conversions.services import labs, outbox

logger = logging.getLogger(__name__)

MAX_MESSAGE_CHARS = 20_000
# What detection found describes files that just changed.
_FORGET_DETECTION = {"detection": None, "format": ""}
# Files may change while they are being recognised (the newer detection wins), not while converted.
CONVERSION_STATUSES = frozenset({Status.CONVERTING, Status.VALIDATING})


class Upload(Protocol):
    """An uploaded file as Django gives it (streamed from disk for large uploads)."""

    @property
    def name(self) -> str | None: ...

    @property
    def size(self) -> int | None: ...

    def chunks(self, chunk_size: int | None = None) -> Iterable[bytes]: ...


# --- who sees what --------------------------------------------------------------------------------


def sessions_visible_to(user: User) -> QuerySet[ConversionSession]:
    """The owner's sessions, every session of a lab the user manages, and everything for staff."""
    sessions = ConversionSession.objects.select_related("owner", "lab")
    if not user.is_authenticated:
        return sessions.none()
    if user.is_staff:
        return sessions.all()
    managed = Membership.objects.filter(user=user, role=Membership.Role.MANAGER).values("lab_id")
    return sessions.filter(Q(owner=user) | Q(lab_id__in=managed))


def get_session(user: User, session_id: uuid.UUID | str) -> ConversionSession:
    """The session if the user may see it; otherwise NotFound, so its existence is not revealed."""
    try:
        return sessions_visible_to(user).get(id=session_id)
    except (ConversionSession.DoesNotExist, ValueError, TypeError):
        raise NotFound("No such conversion session.") from None


# --- starting a session ---------------------------------------------------------------------------


def create_session(*, user: User, lab_id: int | None = None, title: str = "") -> ConversionSession:
    memberships = Membership.objects.filter(user=user).select_related("lab")
    if lab_id is not None:
        memberships = memberships.filter(lab_id=lab_id)
    membership = memberships.order_by("id").first()
    if membership is None:
        raise BadRequest(
            "You are not a member of any lab (or not of that one), so you cannot start a conversion. "
            "Ask a portal admin to add you to your lab."
        )
    lab: Lab = membership.lab
    if (problem := unfit_characters(title.strip())) is not None:
        raise BadRequest(f"The title {problem}; give it as plain text on one line.")
    # Sessions are kept (none is deleted), so what bounds them is how fast they can be made: far more
    # than a lab's day of recordings (a study of 80 sessions fits many times), far less than a loop.
    since = timezone.now() - timedelta(days=1)
    if ConversionSession.objects.filter(owner=user, created__gte=since).count() >= settings.SESSIONS_PER_DAY:
        raise TooMany(
            f"You started {settings.SESSIONS_PER_DAY} conversions in the last 24 hours, the most the portal takes "
            "in a day; continue one of them, or ask a portal admin if your study needs more."
        )
    with transaction.atomic():
        session = ConversionSession.objects.create(
            owner=user, lab=lab, title=title.strip()[:200], timezone=lab.timezone, state=Memory().model_dump()
        )
        defaults = {
            "institution": lab.institution,
            "lab": lab.lab_name,
            "keywords": lab.keywords,
            # Of several experimenters, which one recorded this session is asked, never guessed.
            "experimenter": lab.experimenters if len(lab.experimenters) == 1 else [],
        }
        MetadataField.objects.bulk_create(
            MetadataField(session=session, name=name, value=value, source=Source.LAB_DEFAULT)
            for name, value in defaults.items()
            if value
        )
        ChatMessage.objects.create(
            session=session,
            role=ChatMessage.Role.ASSISTANT,
            text=(
                "Hello! Upload a recording (for SpikeGLX: the .ap.bin file with its .ap.meta, or the "
                "whole run folder) and I'll recognise it, ask what's missing and convert it to NWB."
            ),
        )
        _audit(session, user, "session_created", {"lab": lab.name})
    return session


# --- files ----------------------------------------------------------------------------------------


def clean_relative_path(raw: str) -> PurePosixPath:
    """A user-given relative path, made safe: no absolute paths, no '..', no empty parts, nothing a
    file system would refuse."""
    parts = [part for part in raw.replace("\\", "/").split("/") if part not in ("", ".")]
    unusable = (
        not parts
        or any(part == ".." for part in parts)
        or ":" in parts[0]
        or len(raw) > 1024
        or any(len(part.encode()) > 255 for part in parts)
        or any(ord(char) < 32 for char in raw)
    )
    if unusable:
        shown = raw if len(raw) <= 80 else raw[:77] + "..."
        raise BadRequest(f"“{shown!s}” is not a usable file path: give a path inside the recording folder.")
    if any(part.startswith(".") and part.endswith(".partial") for part in parts):
        raise BadRequest(f"“{raw}” uses a name reserved for files being written.")
    return PurePosixPath(*parts)


def refuse_too_many_files(session: ConversionSession, new_paths: Iterable[str]) -> None:
    """A session holds at most SESSION_MAX_FILES files (stored, or on their way in pieces); a file
    sent again under the same path replaces itself and counts once."""
    held = set(session.files.values_list("relative_path", flat=True))
    held |= set(session.pending_uploads.values_list("relative_path", flat=True))
    total = len(held | set(new_paths))
    if total > settings.SESSION_MAX_FILES:
        raise BadRequest(
            f"This session would hold {total} files; a session holds at most {settings.SESSION_MAX_FILES}. "
            "Nothing was stored: send the recording's folder in a session of its own, or fewer files."
        )


def add_files(
    *,
    session: ConversionSession,
    user: User,
    uploads: Sequence[Upload],
    relative_paths: Sequence[str] = (),
) -> list[SourceFile]:
    if not uploads:
        raise BadRequest("No files arrived. Choose the recording's files (or its folder) and send them again.")
    if relative_paths and len(relative_paths) != len(uploads):
        raise BadRequest(
            f"{len(uploads)} files came with {len(relative_paths)} paths; send one relative path per file, or none."
        )
    if session.status in CONVERSION_STATUSES:
        raise Conflict("A conversion is running on this session's files; wait for it or cancel it, then upload.")
    paths = (
        [clean_relative_path(p) for p in relative_paths]
        if relative_paths
        else [clean_relative_path(PurePosixPath(u.name or "").name) for u in uploads]
    )
    refuse_too_many_files(session, (p.as_posix() for p in paths))
    root = session.source_directory
    stored: list[SourceFile] = []
    for upload, relative in zip(uploads, paths, strict=True):
        target = root.joinpath(*relative.parts)
        partial = target.with_name(f".{target.name}.partial")
        size = 0
        try:
            target.parent.mkdir(parents=True, exist_ok=True)  # fails where a file has the folder's name
            with open(partial, "wb") as out:
                for chunk in upload.chunks():
                    out.write(chunk)
                    size += len(chunk)
            partial.replace(target)
        except OSError as exc:
            with contextlib.suppress(OSError):  # its folder may be what failed
                partial.unlink(missing_ok=True)
            logger.exception("could not store %s for session %s", relative, session.id)
            raise storing_failed(relative.as_posix(), exc, kept="Files received before it are kept.") from exc
        source_file, _ = SourceFile.objects.update_or_create(
            session=session, relative_path=relative.as_posix(), defaults={"size_bytes": size}
        )
        stored.append(source_file)
    _dispatch(
        session.id,
        FilesChanged(added=len(stored), total=session.files.count()),
        session_updates=_FORGET_DETECTION,
        actor=user,
        audit=("files_added", {"files": [f.relative_path for f in stored], "bytes": sum(f.size_bytes for f in stored)}),
    )
    return stored


def remove_file(*, session: ConversionSession, user: User, relative_path: str) -> None:
    """Take a file out of the upload (e.g. a damaged copy next to the good one)."""
    if session.status in CONVERSION_STATUSES:
        raise Conflict("A conversion is running on this session's files; wait for it or cancel it first.")
    relative = clean_relative_path(relative_path)
    source_file = session.files.filter(relative_path=relative.as_posix()).first()
    if source_file is None:
        raise NotFound(f"There is no file “{relative_path}” in this session.")
    session.source_directory.joinpath(*relative.parts).unlink(missing_ok=True)
    source_file.delete()
    _dispatch(
        session.id,
        FilesChanged(removed=1, total=session.files.count()),
        session_updates=_FORGET_DETECTION,
        actor=user,
        audit=("file_removed", {"file": relative.as_posix()}),
    )


def register_placed_files(
    *, session: ConversionSession, user: User, relative_paths: Sequence[str], how: str
) -> list[SourceFile]:
    """Files already written into the session's source folder by other means (received in pieces,
    copied from the lab's storage) become part of the upload with their size on disk, and the
    recording is looked at again, once for all of them, as after add_files. `how` is recorded in
    the audit trail."""
    if session.status in CONVERSION_STATUSES:
        raise Conflict("A conversion is running on this session's files; wait for it or cancel it, then upload.")
    root = session.source_directory
    stored: list[SourceFile] = []
    for raw in relative_paths:
        relative = clean_relative_path(raw)
        try:
            size = root.joinpath(*relative.parts).stat().st_size
        except OSError as exc:
            raise StorageProblem(
                f"The server could not find {relative.name} where it was stored ({exc.strerror or 'storage error'}); "
                "send it again or tell the portal's admins."
            ) from exc
        source_file, _ = SourceFile.objects.update_or_create(
            session=session, relative_path=relative.as_posix(), defaults={"size_bytes": size}
        )
        stored.append(source_file)
    files = [f.relative_path for f in stored]
    _dispatch(
        session.id,
        FilesChanged(added=len(stored), total=session.files.count()),
        session_updates=_FORGET_DETECTION,
        actor=user,
        audit=("files_added", {"files": files, "bytes": sum(f.size_bytes for f in stored), "how": how}),
    )
    return stored


# --- conversation ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn:
    replies: list[ChatMessage]
    session: ConversionSession


def post_message(*, session: ConversionSession, user: User, text: str) -> Turn:
    text = (text or "").strip()
    if len(text) > MAX_MESSAGE_CHARS:
        raise BadRequest(f"That message is too long ({len(text)} characters; at most {MAX_MESSAGE_CHARS}).")
    memory = session.memory
    parsed = parse_message(text, asking_for=memory.asking_for)
    llm_fields: frozenset[str] = frozenset()
    within_limit = memory.turns < settings.ORCHESTRATOR_MAX_TURNS  # past it, messages are not read at all
    if (
        text
        and within_limit
        and _may_use_llm(session)
        and not llm.rules_understood(parsed, asking_for=memory.asking_for)
    ):
        reading = _llm_reading(session, text, asking_for=memory.asking_for)
        if reading is not None:
            parsed, llm_fields = llm.merge(parsed, reading, asking_for=memory.asking_for)
    event = UserMessage(text=text, parsed=parsed, llm_fields=llm_fields)
    step, replies, session = _apply(session.id, event, actor=user, user_text=text)
    if step.refused and not text:
        raise BadRequest(step.replies[0].text if step.replies else "That message was empty.")
    return Turn(replies=replies, session=session)


def _may_use_llm(session: ConversionSession) -> bool:
    """The portal has an API key and the session's lab agreed to send messages out."""
    return bool(settings.ANTHROPIC_API_KEY) and session.lab.llm_consent


def _llm_reading(session: ConversionSession, text: str, *, asking_for: Sequence[str]) -> ParsedMessage | None:
    """The language model's reading of a message the rules could not read; None when the session's
    budget is used up or the call failed, and the rules' reading stands alone.

    Every attempt is recorded (LlmCall). The session's row is locked only while the call is claimed
    against the budget, never during the call itself.
    """
    call = claim_llm_call(session.id, LlmCall.Purpose.UNDERSTAND)
    if call is None:
        return None
    model = call.model
    # Bounded in what is sent; the database keeps the whole conversation.
    limit = settings.LLM_HISTORY_MESSAGES
    recent = ChatMessage.objects.filter(session_id=session.id).order_by("-created", "-id")[:limit]
    result = llm.understand(
        text,
        asking_for=asking_for,
        history=[
            llm.HistoryEntry(role=m.role, text=m.text)  # type: ignore[arg-type]  # a ChatMessage.Role, as the Literal
            for m in reversed(recent)
        ],
        client=llm.client_factory(settings.ANTHROPIC_API_KEY, settings.LLM_TIMEOUT_SECONDS),
        model=model,
        timeout_s=settings.LLM_TIMEOUT_SECONDS,
        history_messages=settings.LLM_HISTORY_MESSAGES,
    )
    LlmCall.objects.filter(id=call.id).update(
        outcome=result.outcome.value,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        latency_ms=result.latency_ms,
        fields=sorted(result.parsed.fields),
        detail=result.detail,
    )
    return result.parsed if result.outcome == llm.Outcome.OK else None


def claim_llm_call(session_id: uuid.UUID, purpose: LlmCall.Purpose) -> LlmCall | None:
    """A pending LlmCall counted against the session's LLM_CALLS_PER_SESSION (shared by every
    purpose), or None, recorded as refused, when the budget is used up. The session's row is locked
    only while the call is claimed, never during the call itself."""
    model = settings.LLM_MODEL
    with transaction.atomic():
        ConversionSession.objects.select_for_update().get(id=session_id)
        used = LlmCall.objects.filter(session_id=session_id).exclude(outcome=LlmCall.Outcome.REFUSED_BY_BUDGET).count()
        if used >= settings.LLM_CALLS_PER_SESSION:
            LlmCall.objects.create(
                session_id=session_id, purpose=purpose, model=model, outcome=LlmCall.Outcome.REFUSED_BY_BUDGET
            )
            return None
        return LlmCall.objects.create(
            session_id=session_id, purpose=purpose, model=model, outcome=LlmCall.Outcome.PENDING
        )


def perform_action(*, session: ConversionSession, user: User, action: UserActionName, value: Any = None) -> Turn:
    event = UserAction(action=action, value=value)
    step, replies, session = _apply(session.id, event, actor=user, audit=("action", {"action": action}))
    if step.refused:
        raise Conflict(step.replies[0].text if step.replies else "That can't be done now.")
    return Turn(replies=replies, session=session)


def edit_field(*, session: ConversionSession, user: User, name: str, value: Any) -> Turn:
    """A value typed into the page's metadata panel. It reaches the orchestrator as the user's own
    correction in the chat ("Set the institution to “Stanford”."), so the chat and the panel never
    disagree and the orchestrator decides what follows (a new plan, a new attempt...)."""
    spec = FIELDS.get(name)
    if spec is None:
        known = ", ".join(f.label for f in FIELDS.values())
        raise BadRequest(f"“{name}” is not a metadata field the portal knows. The fields are: {known}.")
    raw = "; ".join(str(v) for v in value) if isinstance(value, list) else "" if value is None else str(value)
    raw = raw.strip()
    if len(raw) > MAX_MESSAGE_CHARS:
        raise BadRequest(f"That value is too long ({len(raw)} characters; at most {MAX_MESSAGE_CHARS}).")
    try:
        # The orchestrator normalises it again; checked here so a value it could not use is refused
        # before it enters the conversation, and the panel keeps what was typed.
        normalize_field(name, raw, timezone=session.timezone)
    except ValueError as exc:
        raise BadRequest(str(exc)) from None
    text = f"Set the {spec.label} to “{raw}”."
    parsed = ParsedMessage(
        intents=frozenset({Intent.PROVIDE_METADATA}),
        fields={name: raw},
        skipped=frozenset(),
        format_choice=None,
        corrections=frozenset({name}),
    )
    step, replies = _dispatch(
        session.id,
        UserMessage(text=text, parsed=parsed),
        actor=user,
        user_text=text,
        audit=("field_edited", {"field": name}),
    )
    if step.refused:
        raise Conflict(step.replies[0].text if step.replies else "That value can't be changed now.")
    session = ConversionSession.objects.select_related("owner", "lab").get(id=session.id)
    return Turn(replies=replies, session=session)


def record_detection(session_id: uuid.UUID | str, files_version: int, detection: dict[str, Any]) -> None:
    """Store what detection found and tell the orchestrator, unless the files changed meanwhile."""
    recording = recording_summary(detection)
    assert recording is not None
    event = FormatDetected(
        files_version=files_version, recording=recording, file_metadata=detection.get("file_metadata", {})
    )
    _dispatch(
        session_id,
        event,
        audit=(event.kind, {"format": detection["format"]}),
        session_updates={"detection": detection, "format": detection["format"]},
    )


def record_job_event(session_id: uuid.UUID | str, event: Event) -> Step | None:
    """Hand a finished job's outcome to the orchestrator (called by conversions.workers.jobs)."""
    try:
        step, _ = _dispatch(session_id, event, audit=(event.kind, {}))
    except ConversionSession.DoesNotExist:
        logger.info("session %s vanished before %s was recorded", session_id, event.kind)
        return None
    return step


# --- the one place a step is applied --------------------------------------------------------------


def view_of(session: ConversionSession) -> SessionView:
    metadata = {
        row.name: FieldValue(value=row.value, source=Source(row.source)) for row in session.metadata_fields.all()
    }
    return SessionView(
        status=Status(session.status),
        awaiting=Awaiting(session.awaiting) if session.awaiting else None,
        memory=session.memory,
        metadata=metadata,
        recording=recording_summary(session.detection),
        timezone=session.timezone,
        max_metadata_requests=settings.ORCHESTRATOR_MAX_METADATA_REQUESTS,
        max_clarifications=settings.ORCHESTRATOR_MAX_CLARIFICATIONS,
        max_turns=settings.ORCHESTRATOR_MAX_TURNS,
    )


def _with_registry(view: SessionView, session: ConversionSession, event: Event) -> SessionView:
    """The view with the lab's registry entry for a subject id the user names in this message (one
    query, only then), so the orchestrator can fill the subject's fields from it."""
    raw = event.parsed.fields.get("subject_id") if isinstance(event, UserMessage) else None
    if not raw:
        return view
    try:
        subject_id = str(normalize_field("subject_id", raw, timezone=view.timezone))
    except ValueError:
        return view
    facts = labs.subject_facts(session.lab, subject_id)
    return view.model_copy(update={"registry": {subject_id.casefold(): facts}}) if facts else view


def recording_summary(detection: dict[str, Any] | None) -> RecordingSummary | None:
    """The orchestrator's view of a stored detection (conversions.nwb.detection.Detection.to_json())."""
    if not detection:
        return None
    streams = tuple(
        StreamSummary(
            id=s["id"],
            label=s["label"],
            channel_count=s["channel_count"],
            sampling_rate_hz=s["sampling_rate_hz"],
            duration_s=s["duration_s"],
            size_bytes=s["size_bytes"],
            group=s.get("group", ""),
            kind=s.get("kind", "neural"),
        )
        for s in detection["streams"]
    )
    files = {f for s in detection["streams"] for f in s["files"]}
    return RecordingSummary(
        format=detection["format"],
        format_label=detection["format_label"],
        streams=streams,
        default_streams=tuple(detection["default_streams"]),
        file_count=len(files),
        notes=tuple(detection.get("notes", ())),
        detection=detection,
    )


def _dispatch(
    session_id: uuid.UUID | str,
    event: Event,
    *,
    actor: User | None = None,
    user_text: str | None = None,
    audit: tuple[str, dict[str, Any]] | None = None,
    session_updates: dict[str, Any] | None = None,
) -> tuple[Step, list[ChatMessage]]:
    """Apply one event: the orchestrator's step, and `session_updates` with it unless it is refused."""
    step, replies, _ = _apply(
        session_id, event, actor=actor, user_text=user_text, audit=audit, session_updates=session_updates
    )
    return step, replies


def _apply(
    session_id: uuid.UUID | str,
    event: Event,
    *,
    actor: User | None = None,
    user_text: str | None = None,
    audit: tuple[str, dict[str, Any]] | None = None,
    session_updates: dict[str, Any] | None = None,
) -> tuple[Step, list[ChatMessage], ConversionSession]:
    """`_dispatch`, also returning the session as it stands after the step (owner and lab loaded),
    so a chat turn answers without reading the row again."""
    with transaction.atomic():
        session = (
            ConversionSession.objects.select_for_update(of=("self",)).select_related("owner", "lab").get(id=session_id)
        )
        step = policy.handle(_with_registry(view_of(session), session, event), event)
        if step.refused and not user_text:
            return step, [], session
        new_messages: list[ChatMessage] = []
        if user_text:
            new_messages.append(ChatMessage.objects.create(session=session, role=ChatMessage.Role.USER, text=user_text))
        replies = [
            ChatMessage.objects.create(
                session=session, role=ChatMessage.Role.ASSISTANT, text=r.text, card=r.card or "", data=r.data
            )
            for r in step.replies
            if r.text
        ]
        new_messages += replies
        if step.refused:
            return step, replies, session
        if step.metadata_updates:
            # One statement for all the values of a step (an answer often gives seven at once).
            now = timezone.now()
            MetadataField.objects.bulk_create(
                [
                    MetadataField(session=session, name=name, value=entry.value, source=entry.source.value, updated=now)
                    for name, entry in step.metadata_updates.items()
                ],
                update_conflicts=True,
                unique_fields=["session", "name"],
                update_fields=["value", "source", "updated"],
            )
        previous = (session.status, session.awaiting)
        session_updates = dict(session_updates or {})
        if step.timezone:  # a zone the user named ("Tokyo time") is the session's from now on
            session_updates["timezone"] = step.timezone
        for name, value in session_updates.items():
            setattr(session, name, value)
        session.status = step.status.value
        session.awaiting = step.awaiting.value if step.awaiting else None
        session.state = step.memory.model_dump(mode="json")
        session.save(update_fields=["status", "awaiting", "state", "updated", *(session_updates or {})])
        if audit:
            _audit(session, actor, audit[0], audit[1])
        if previous != (session.status, session.awaiting):
            _audit(
                session,
                actor,
                "status_changed",
                {"from": previous[0], "to": session.status, "awaiting": session.awaiting},
            )
        for action in step.actions:
            _carry_out(session, action)
        events: list[notify.Event] = [notify.message_event(message_payload(m)) for m in new_messages]
        events.append(notify.status_event(status=session.status, awaiting=session.awaiting, format=session.format))
        transaction.on_commit(lambda: notify.publish_all(session_id, events))
    return step, replies, session


def _carry_out(session: ConversionSession, action: Any) -> None:
    match action:
        case DetectFormat(files_version=version, format_key=format_key):
            outbox.enqueue("detect_recording", str(session.id), version, format_key)
        case StartConversion(attempt=number, streams=streams):
            metadata = {row.name: row.value for row in session.metadata_fields.all()}
            task_id = str(uuid.uuid4())
            attempt = ConversionAttempt.objects.create(
                session=session, number=number, streams=list(streams), metadata=metadata, task_id=task_id
            )
            outbox.enqueue("convert_attempt", attempt.id, task_id=task_id)
        case StartPreview(number=number, streams=streams):
            metadata = {row.name: row.value for row in session.metadata_fields.all()}
            preview = Preview.objects.create(session=session, number=number, streams=list(streams), metadata=metadata)
            outbox.enqueue("preview_recording", preview.id)
        case StartValidation(attempt=number):
            attempt = session.attempts.get(number=number)
            # The conversion's worker has usually claimed it already, to validate its file at once.
            if attempt.validation == ConversionAttempt.Validation.PENDING:
                outbox.enqueue("validate_attempt", attempt.id)
        case CancelJobs():
            _cancel_jobs(session)
        case FlagForReview(reason=reason):
            session.needs_review = True
            session.review_reason = reason
            session.review_since = session.review_since or timezone.now()
            session.save(update_fields=["needs_review", "review_reason", "review_since"])
            _audit(session, None, "flagged_for_review", {"reason": reason})
            if session.review_notified_at is None:
                # Staff are emailed once per entry into the review queue, after the flag is committed.
                from conversions.services import review_queue

                flagged_id = session.id
                transaction.on_commit(lambda: review_queue.notify_staff(flagged_id))
        case _:
            raise TypeError(f"unknown action {action!r}")


def _cancel_jobs(session: ConversionSession) -> None:
    """Mark the session's jobs cancelled; a running worker sees it at its next progress update and
    stops, and a queued job finds nothing to do when it starts."""
    from conversions.nwb.naming import temporary_path_for

    now = timezone.now()
    active = session.attempts.filter(state__in=[ConversionAttempt.State.QUEUED, ConversionAttempt.State.RUNNING])
    for attempt in active:
        if attempt.output_path:
            temporary_path_for(Path(attempt.output_path)).unlink(missing_ok=True)
    active.update(state=ConversionAttempt.State.CANCELLED, finished_at=now, error_message="Cancelled by the user.")
    session.previews.filter(state__in=[Preview.State.QUEUED, Preview.State.RUNNING]).update(
        state=Preview.State.CANCELLED, finished_at=now, error_message="Cancelled by the user."
    )


def attempt_output_path(session: ConversionSession, attempt: ConversionAttempt) -> Path:
    """Where an attempt's NWB file goes: one folder per attempt, so earlier attempts are kept, and
    named as DANDI expects (sub-<id>_ses-<id>_<modality>.nwb) once the subject id is known."""
    from conversions.nwb.naming import dandi_file_name, session_label

    start = attempt.metadata.get("session_start_time")
    first = session.files.order_by("relative_path").first()
    name = dandi_file_name(
        subject_id=attempt.metadata.get("subject_id"),
        session_id=session_label(start) if start else None,
        modality=_modality(session, attempt.streams),
        fallback=PurePosixPath(first.relative_path).name.split(".")[0] if first else f"session-{session.id}",
    )
    return session.directory / f"attempt-{attempt.number}" / name


def preview_output_path(session: ConversionSession, preview: Preview) -> Path:
    """Where a preview's NWB file goes: beside the attempts, never mistaken for a result (DANDI's
    `desc-` entity marks it as a preview)."""
    from conversions.nwb.naming import dandi_file_name, session_label

    start = preview.metadata.get("session_start_time")
    first = session.files.order_by("relative_path").first()
    modality = _modality(session, preview.streams)
    name = dandi_file_name(
        subject_id=preview.metadata.get("subject_id"),
        session_id=session_label(start) if start else None,
        modality=modality,
        fallback=PurePosixPath(first.relative_path).name.split(".")[0] if first else f"session-{session.id}",
    )
    if name.endswith(f"_{modality}.nwb"):
        name = name.removesuffix(f"_{modality}.nwb") + f"_desc-preview_{modality}.nwb"
    else:
        name = name.removesuffix(".nwb") + "_preview.nwb"
    return session.directory / "previews" / f"preview-{preview.number}" / name


def _modality(session: ConversionSession, stream_ids: Sequence[str]) -> str:
    """The file name's modality for the chosen streams ("ecephys", "behavior+ecephys+image")."""
    from conversions.nwb.detection import Detection, format_handler, modality_for

    if session.detection:
        return modality_for(Detection.from_json(session.detection), list(stream_ids or ()))
    handler = format_handler(session.format) if session.format else None
    return handler.modality if handler else "ecephys"


# --- what sits beside an NWB file -----------------------------------------------------------------


@dataclass(frozen=True)
class FileBeside:
    """A file the conversion placed beside an NWB file, which the NWB file links to (a video)."""

    relative_path: str  # as the NWB file names it: "<stem>_video/<name>"
    path: Path
    size_bytes: int

    def open(self) -> BinaryIO:
        """The file to read; NotFound if it is gone, or has become a link, since it was listed."""
        try:
            return os.fdopen(os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW), "rb")
        except OSError as error:
            if error.errno in (errno.ENOENT, errno.ELOOP):
                raise NotFound(f"“{self.relative_path}” is no longer on the server.") from error
            raise StorageProblem(
                f"The server could not read “{self.relative_path}” ({error.strerror or 'storage error'}). Try "
                "again later or tell the portal's admins.",
                detail=str(self.path),
            ) from error


def files_beside(output_path: str) -> list[FileBeside]:
    """The files in the folder beside an NWB file (`<stem>_video/`), by name: plain files directly in
    it, as the conversion places them (hard links or copies). A link, which could point anywhere, or
    a folder is never listed, and so never served."""
    if not output_path:
        return []
    nwb = Path(output_path)
    folder = nwb.parent / video_folder_name(nwb)
    try:
        if not stat.S_ISDIR(folder.lstat().st_mode):
            return []
        with os.scandir(folder) as entries:
            found = [
                FileBeside(f"{folder.name}/{entry.name}", Path(entry.path), entry.stat(follow_symlinks=False).st_size)
                for entry in entries
                if entry.is_file(follow_symlinks=False)
            ]
    except OSError:
        # No folder (no video chosen), or one the disk cannot read: nothing to offer beside the file.
        return []
    return sorted(found, key=lambda beside: beside.relative_path)


def attempt_file_beside(session: ConversionSession, number: int, relative_path: str) -> FileBeside:
    """The file `relative_path` beside the NWB file of the session's converted attempt `number`."""
    attempt = session.attempts.filter(number=number, state=ConversionAttempt.State.SUCCEEDED).first()
    return _file_beside(attempt.output_path if attempt else "", relative_path, of=f"attempt {number}")


def preview_file_beside(session: ConversionSession, number: int, relative_path: str) -> FileBeside:
    """The file `relative_path` beside the NWB file of the session's finished preview `number`."""
    preview = session.previews.filter(number=number, state=Preview.State.SUCCEEDED).first()
    return _file_beside(preview.output_path if preview else "", relative_path, of=f"preview {number}")


def _file_beside(output_path: str, relative_path: str, *, of: str) -> FileBeside:
    """Only a name `files_beside` lists is ever served: another folder, `..`, an absolute path or a
    link is not one of them, and is not found."""
    for beside in files_beside(output_path):
        if beside.relative_path == relative_path:
            return beside
    raise NotFound(f"There is no file “{relative_path}” beside the NWB file of {of}.")


def delete_sessions(listed: QuerySet[ConversionSession]) -> int:
    """Delete sessions (staff, from the admin) with everything of theirs: rows, and files
    (models.remove_session_files, on each session's deletion). A job still running finds its
    attempt gone at its next check and stops."""
    _, deleted = listed.delete()
    return deleted.get(ConversionSession._meta.label, 0)


def message_payload(message: ChatMessage) -> notify.MessagePayload:
    return {
        "id": message.id,
        "role": message.role,
        "text": message.text,
        "card": message.card or None,
        "data": message.data,
        "created": message.created.isoformat(),
    }


def _audit(session: ConversionSession | None, actor: User | None, kind: str, detail: dict[str, Any]) -> None:
    AuditEvent.objects.create(
        session=session, actor=actor if actor is not None and actor.is_authenticated else None, kind=kind, detail=detail
    )

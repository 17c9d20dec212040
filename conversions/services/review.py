"""What staff do with a conversion that needs a human, and what they need to understand it.

The staff actions (a note the user sees, handing the session to another member of its lab, resolving
the review) each lock the session, are audited with the staff member as actor, and tell the pages
watching the session once committed. Retry, accept as is and cancel go through the orchestrator
(sessions.perform_action), like the user's own buttons.

The debug bundle is everything an expert needs in one JSON document: the conversation, every attempt
with its metadata, errors (tracebacks included) and issues, the detection, the files, the audit trail
and the versions of the tools.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from django.contrib.auth.models import User
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from conversions.errors import BadRequest
from conversions.models import AuditEvent, ChatMessage, ConversionSession, Membership
from conversions.orchestrator.state import UserActionName
from conversions.realtime import notify
from conversions.services import sessions
from conversions.services.review_queue import RESOLVED, reasons_of, review_queue

MAX_NOTE_CHARS = 5000
# The orchestrator's actions staff may take on a user's behalf.
STAFF_ACTIONS = (UserActionName.RETRY, UserActionName.ACCEPT_AS_IS, UserActionName.CANCEL)


def _require_staff(user: User) -> None:
    if not (user.is_authenticated and user.is_active and user.is_staff):
        raise PermissionDenied("Only portal staff review conversions.")


def _note_text(text: str, *, required: bool) -> str:
    text = (text or "").strip()
    if required and not text:
        raise BadRequest("Write the note first: it cannot be empty.")
    if len(text) > MAX_NOTE_CHARS:
        raise BadRequest(f"That note is too long ({len(text)} characters; at most {MAX_NOTE_CHARS}).")
    return text


def _tell_pages(session: ConversionSession, messages: list[ChatMessage]) -> None:
    """Once committed, push the new messages and the session's state to the pages watching it."""
    events: list[notify.Event] = [notify.message_event(sessions.message_payload(m)) for m in messages]
    events.append(notify.status_event(status=session.status, awaiting=session.awaiting, format=session.format))
    session_id = session.id
    transaction.on_commit(lambda: notify.publish_all(session_id, events))


def staff_action(*, session: ConversionSession, user: User, action: str) -> sessions.Turn:
    """Retry, accept as is or cancel for the user, through the orchestrator; a refusal raises
    Conflict with the orchestrator's reason."""
    _require_staff(user)
    if action not in STAFF_ACTIONS:
        raise BadRequest(f"“{action}” is not something staff can do here ({', '.join(STAFF_ACTIONS)}).")
    return sessions.perform_action(session=session, user=user, action=UserActionName(action))


def post_note(*, session: ConversionSession, user: User, text: str) -> ChatMessage:
    """A note from the reviewer, shown in the user's conversation."""
    _require_staff(user)
    text = _note_text(text, required=True)
    with transaction.atomic():
        locked = ConversionSession.objects.select_for_update().get(id=session.id)
        message = ChatMessage.objects.create(session=locked, role=ChatMessage.Role.REVIEWER, text=text)
        locked.save(update_fields=["updated"])
        AuditEvent.objects.create(session=locked, actor=user, kind="reviewer_note", detail={"message": message.id})
        _tell_pages(locked, [message])
    return message


def reassign(*, session: ConversionSession, user: User, new_owner_id: int | str, note: str = "") -> None:
    """Hand the session to another member of its lab (e.g. the owner left): only a member of the
    session's own lab can own it."""
    _require_staff(user)
    note = _note_text(note, required=False)
    try:
        new_owner = User.objects.get(pk=int(new_owner_id), is_active=True)
    except (ValueError, TypeError, User.DoesNotExist):
        raise BadRequest("Choose the new owner among the lab's members.") from None
    with transaction.atomic():
        locked = ConversionSession.objects.select_for_update().select_related("owner", "lab").get(id=session.id)
        if not Membership.objects.filter(user=new_owner, lab=locked.lab).exists():
            raise BadRequest(
                f"{new_owner.get_username()} is not a member of {locked.lab.name}; a conversion can only be "
                "handed to a member of its own lab."
            )
        previous = locked.owner
        if previous.pk == new_owner.pk:
            raise BadRequest(f"{new_owner.get_username()} already owns this conversion.")
        locked.owner = new_owner
        locked.save(update_fields=["owner", "updated"])
        text = (
            f"The portal's admins handed this conversion from {previous.get_username()} to {new_owner.get_username()}."
        )
        message = ChatMessage.objects.create(
            session=locked, role=ChatMessage.Role.REVIEWER, text=f"{text} {note}" if note else text
        )
        AuditEvent.objects.create(
            session=locked,
            actor=user,
            kind="reassigned",
            detail={"from": previous.get_username(), "to": new_owner.get_username()},
        )
        _tell_pages(locked, [message])
        owner = new_owner.get_username()
        transaction.on_commit(lambda: notify.publish(locked.id, notify.owner_event(owner)))


def resolve(*, session: ConversionSession, user: User, note: str, tell_user: bool = False) -> None:
    """Take the session out of the review queue: its flag is cleared, and reasons computed from its
    jobs that arose before now are dismissed (conversions.services.review_queue). The note says what was done;
    it is kept in the audit trail and, with `tell_user`, shown in the conversation."""
    _require_staff(user)
    note = _note_text(note, required=True)
    with transaction.atomic():
        locked = ConversionSession.objects.select_for_update().get(id=session.id)
        queued = review_queue().filter(id=locked.id).first()
        reasons = [r.code.value for r in reasons_of(queued)] if queued else []
        locked.needs_review = False
        locked.review_reason = ""
        locked.review_since = None
        locked.review_notified_at = None
        locked.save(update_fields=["needs_review", "review_reason", "review_since", "review_notified_at", "updated"])
        AuditEvent.objects.create(session=locked, actor=user, kind=RESOLVED, detail={"note": note, "reasons": reasons})
        messages = (
            [ChatMessage.objects.create(session=locked, role=ChatMessage.Role.REVIEWER, text=note)] if tell_user else []
        )
        _tell_pages(locked, messages)


_TOOLS = ("neuroconv", "pynwb", "hdmf", "nwbinspector", "dandi", "spikeinterface", "neo", "Django", "celery")


def debug_bundle(session: ConversionSession) -> dict[str, Any]:
    """Everything about `session` an expert needs, JSON-serialisable."""
    attempts = list(session.attempts.prefetch_related("issues"))
    return {
        "generated": timezone.now().isoformat(),
        "session": {
            "id": str(session.id),
            "title": session.title,
            "owner": session.owner.get_username(),
            "lab": session.lab.name,
            "status": session.status,
            "awaiting": session.awaiting,
            "format": session.format,
            "timezone": session.timezone,
            "needs_review": session.needs_review,
            "review_reason": session.review_reason,
            "created": session.created.isoformat(),
            "updated": session.updated.isoformat(),
            "memory": session.state,
        },
        "files": [{"path": f.relative_path, "size_bytes": f.size_bytes} for f in session.files.all()],
        "detection": session.detection,
        "metadata": {f.name: {"value": f.value, "source": f.source} for f in session.metadata_fields.all()},
        "attempts": [
            {
                "number": a.number,
                "state": a.state,
                "streams": a.streams,
                "metadata": a.metadata,
                "deliveries": a.deliveries,
                "worker": a.worker,
                "queued_at": _iso(a.queued_at),
                "started_at": _iso(a.started_at),
                "finished_at": _iso(a.finished_at),
                "progress": a.progress,
                "size_bytes": a.size_bytes,
                "output_path": a.output_path,
                "error_message": a.error_message,
                "error_detail": a.error_detail,
                "fixes": a.fixes,
                "validation": a.validation,
                "issues": [
                    {
                        "check_name": i.check_name,
                        "importance": i.importance,
                        "message": i.message,
                        "location": i.location,
                        "object_type": i.object_type,
                        "object_name": i.object_name,
                        "explanation": i.explanation,
                    }
                    for i in a.issues.all()
                ],
            }
            for a in attempts
        ],
        "previews": [
            {
                "number": p.number,
                "state": p.state,
                "streams": p.streams,
                "error_message": p.error_message,
                "error_detail": p.error_detail,
            }
            for p in session.previews.all()
        ],
        "messages": [
            {"role": m.role, "text": m.text, "card": m.card, "created": m.created.isoformat()}
            for m in session.messages.all()
        ],
        "audit": [
            {
                "kind": e.kind,
                "actor": e.actor.get_username() if e.actor else None,
                "detail": e.detail,
                "created": e.created.isoformat(),
            }
            for e in session.audit_events.select_related("actor")
        ],
        "llm_calls": [
            {
                "created": c.created.isoformat(),
                "purpose": c.purpose,
                "model": c.model,
                "outcome": c.outcome,
                "input_tokens": c.input_tokens,
                "output_tokens": c.output_tokens,
                "latency_ms": c.latency_ms,
                "fields": c.fields,
                "detail": c.detail,
            }
            for c in session.llm_calls.order_by("created")
        ],
        "versions": {tool: _version(tool) for tool in _TOOLS},
    }


def _iso(moment: Any) -> str | None:
    return moment.isoformat() if moment else None


def _version(package: str) -> str | None:
    try:
        return version(package)
    except PackageNotFoundError:
        return None

"""The validation report of a session: what was converted, with which metadata from where, every
attempt, what the inspector found in the latest validated file and the conversation that led there.

The metadata of each delivered file is the metadata its attempt was converted with (recorded on the
attempt when it was queued), not the session's values now, which may have changed since; what
changed is said beside it. The session's values now are listed as well (`metadata`).

One dictionary, served as JSON and rendered as a printable page (templates/conversions/report.html).
Read-only: it changes nothing.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import Prefetch
from django.urls import reverse
from django.utils import timezone

from conversions.models import AuditEvent, ChatMessage, ConversionAttempt, ConversionSession, ValidationIssue
from conversions.nwb.fields import FIELDS, FILE_FACTS
from conversions.nwb.validation import InspectionIssue, action_for, fields_for
from conversions.services.sessions import files_beside

# nwbinspector's importance levels, most serious first (its Importance enum, ERROR highest; schema
# violations are reported as ERROR by conversions.nwb.validation). Anything else comes after them.
IMPORTANCE_ORDER = ("ERROR", "CRITICAL", "BEST_PRACTICE_VIOLATION", "BEST_PRACTICE_SUGGESTION")
IMPORTANCE_WORDS = {
    "ERROR": "Errors: the file could not be checked, or breaks the NWB format",
    "CRITICAL": "Critical: DANDI would refuse the file",
    "BEST_PRACTICE_VIOLATION": "Best practice violations",
    "BEST_PRACTICE_SUGGESTION": "Best practice suggestions",
}
SOURCE_WORDS = {
    "file": "from file",
    "user": "you",
    "lab_default": "lab default",
    "llm": "LLM",
    "auto_fix": "auto-fix",
}
VALIDATED = (
    ConversionAttempt.Validation.PASSED,
    ConversionAttempt.Validation.PASSED_WITH_ISSUES,
    ConversionAttempt.Validation.FAILED,
)
_OUTCOME_WORDS = {
    "passed": "Passed: no issues",
    "passed_with_issues": "Passed with issues DANDI accepts",
    "failed": "Failed: DANDI would refuse the file",
}


def field_anchor(name: str) -> str:
    """The fragment that points at a metadata field on the session page and in the report."""
    return f"field-{name}"


def field_label(name: str) -> str:
    if name in FIELDS:
        return FIELDS[name].label
    return FILE_FACTS.get(name, name.replace("_", " "))


def value_in_words(value: Any) -> str:
    """A metadata value as the pages show it: lists joined, nothing left as Python syntax."""
    if isinstance(value, list | tuple):
        return "; ".join(str(item) for item in value)
    if value is None:
        return ""
    return str(value)


def build_report(session: ConversionSession) -> dict[str, Any]:
    """The report of `session` (see the module docstring); times are aware datetimes, ids UUIDs."""
    attempts = list(
        session.attempts.prefetch_related(Prefetch("issues", queryset=ValidationIssue.objects.order_by("id")))
    )
    validated = [attempt for attempt in attempts if attempt.validation in VALIDATED]
    validation = _validation(validated[-1] if validated else None)
    metadata = _metadata(session, validation)
    plans = list(session.messages.filter(card="plan"))
    return {
        "generated_at": timezone.now(),
        "session": _session(session),
        "recording": _recording(session),
        "metadata": metadata,
        "attempts": [_attempt(session, attempt, metadata, validation, plans) for attempt in attempts],
        # The attempts whose file was delivered; each one's metadata is in its "metadata".
        "delivered": [attempt.number for attempt in attempts if attempt.state == ConversionAttempt.State.SUCCEEDED],
        "validation": validation,
        "transcript": _transcript(session),
        "links": {
            "json": reverse("api:session_report_json", kwargs={"session_id": session.id}),
            "html": reverse("api:session_report_html", kwargs={"session_id": session.id}),
        },
    }


def _metadata(session: ConversionSession, validation: dict[str, Any]) -> list[dict[str, Any]]:
    """Every field with its value and where it came from; a field an issue asks for that has no
    value yet is listed as not set (source None), so the issue's link has somewhere to point."""
    rows = [
        {
            "name": row.name,
            "label": field_label(row.name),
            "value": row.value,
            "display": value_in_words(row.value),
            "source": row.source,
            "source_label": SOURCE_WORDS.get(row.source, row.source),
            "anchor": field_anchor(row.name),
        }
        for row in session.metadata_fields.all()
    ]
    present = {row["name"] for row in rows}
    wanted = [field["name"] for group in validation["groups"] for issue in group["issues"] for field in issue["fields"]]
    for name in dict.fromkeys(wanted):
        if name not in present:
            rows.append(
                {
                    "name": name,
                    "label": field_label(name),
                    "value": None,
                    "display": "not set",
                    "source": None,
                    "source_label": "missing",
                    "anchor": field_anchor(name),
                }
            )
    return rows


def _session(session: ConversionSession) -> dict[str, Any]:
    return {
        "id": session.id,
        "title": str(session),
        "status": session.status,
        "status_label": session.get_status_display(),
        "owner": session.owner.get_username(),
        "lab": session.lab.name,
        "timezone": session.timezone,
        "created": session.created,
        "updated": session.updated,
        "needs_review": session.needs_review,
        "review_reason": session.review_reason,
    }


def _recording(session: ConversionSession) -> dict[str, Any]:
    detection = session.detection or {}
    selected = set(session.memory.selected_streams or detection.get("default_streams", ()))
    return {
        "format": session.format,
        "format_label": detection.get("format_label", session.format),
        "files": [{"path": f.relative_path, "size_bytes": f.size_bytes} for f in session.files.all()],
        "streams": [
            {
                "id": stream["id"],
                "label": stream["label"],
                "channel_count": stream.get("channel_count"),
                "sampling_rate_hz": stream.get("sampling_rate_hz"),
                "duration_s": stream.get("duration_s"),
                "size_bytes": stream.get("size_bytes"),
                "kind": stream.get("kind", "neural"),
                "selected": stream["id"] in selected,
            }
            for stream in detection.get("streams", ())
        ],
        "notes": list(detection.get("notes", ())),
    }


def _attempt(
    session: ConversionSession,
    attempt: ConversionAttempt,
    now: list[dict[str, Any]],
    validation: dict[str, Any],
    plans: list[ChatMessage],
) -> dict[str, Any]:
    succeeded = attempt.state == ConversionAttempt.State.SUCCEEDED
    return {
        "number": attempt.number,
        "state": attempt.state,
        "streams": attempt.streams,
        "queued_at": attempt.queued_at,
        "started_at": attempt.started_at,
        "finished_at": attempt.finished_at,
        "duration_s": attempt.duration_s,
        "size_bytes": attempt.size_bytes,
        "error": attempt.error_message,
        "validation": attempt.validation,
        "validated_at": attempt.validated_at,
        "fixes": attempt.fixes,
        # What the delivered file holds; none for an attempt that delivered no file.
        "metadata": _file_metadata(attempt, now, validation, plans) if succeeded else [],
        "issue_count": len(attempt.issues.all()),
        # Where each converted stream was placed on the session's clock, and how its start was found.
        "timing": _timing(session, attempt),
        # The videos the file links to, kept beside it (downloaded on their own).
        "beside": [
            {
                "path": beside.relative_path,
                "size_bytes": beside.size_bytes,
                "url": reverse(
                    "api:session_attempt_beside",
                    kwargs={"session_id": session.id, "number": attempt.number, "relative_path": beside.relative_path},
                ),
            }
            for beside in (files_beside(attempt.output_path) if succeeded else [])
        ],
        "output_url": (
            reverse("api:session_output", kwargs={"session_id": session.id}) + f"?attempt={attempt.number}"
            if succeeded
            else None
        ),
    }


def _timing(session: ConversionSession, attempt: ConversionAttempt) -> list[dict[str, Any]]:
    """The alignment an attempt used, for sessions with parts (sorting, pose, video); [] otherwise."""
    from conversions.nwb.detection import Detection
    from conversions.nwb.parts import said_seconds, timing

    if not session.detection or not session.detection.get("file_metadata", {}).get("parts"):
        return []
    detection = Detection.from_json(session.detection)
    known = {stream.id for stream in detection.streams}
    chosen = [stream_id for stream_id in (attempt.streams or detection.default_streams) if stream_id in known]
    start = said_seconds(attempt.metadata.get("behaviour_start_s"))
    return [
        {
            "stream_id": item.stream_id,
            "label": item.label,
            "start_s": item.start_s,
            "duration_s": item.duration_s,
            "how": item.how,
        }
        for item in timing(detection, chosen, behaviour_start_s=start)
    ]


def _file_metadata(
    attempt: ConversionAttempt, now: list[dict[str, Any]], validation: dict[str, Any], plans: list[ChatMessage]
) -> list[dict[str, Any]]:
    """The values `attempt` was converted with, each with where it came from and, when the session's
    value is different now, that value ("now"). The file of the validated attempt also lists, as not
    in the file, the fields its issues ask for, so their links have somewhere to point.

    Where a value came from is what the plan approved for this attempt said; an attempt started
    without a plan (minimal mode, a retry after the check) takes it from the session's value now
    when that is still the same, and has none otherwise.
    """
    current = {row["name"]: row for row in now if row["source"] is not None}
    approved = _approved_sources(attempt, plans)
    names = list(attempt.metadata)
    if attempt.number == validation["attempt"]:
        wanted = [f["name"] for group in validation["groups"] for issue in group["issues"] for f in issue["fields"]]
        names += [name for name in wanted if name not in attempt.metadata]
    rows = []
    for name in sorted(dict.fromkeys(names), key=_catalogue_order):
        in_file = name in attempt.metadata and attempt.metadata[name] not in (None, "", [])
        value = attempt.metadata.get(name) if in_file else None
        row = current.get(name)
        value_now = row["value"] if row else None
        source = approved.get((name, repr(value))) or (row["source"] if row and value_now == value else None)
        rows.append(
            {
                "name": name,
                "label": field_label(name),
                "value": value,
                "display": value_in_words(value) if in_file else "not in the file",
                "source": source if in_file else None,
                "source_label": SOURCE_WORDS.get(source, source) if in_file and source else "",
                "now": (row["display"] if row else "removed") if value_now != value else None,
                "anchor": field_anchor(name),
            }
        )
    return rows


def _approved_sources(attempt: ConversionAttempt, plans: list[ChatMessage]) -> dict[tuple[str, str], str]:
    """(field, value) → source, as the last plan shown for `attempt` before it was queued said."""
    shown = [plan for plan in plans if plan.data.get("attempt") == attempt.number and plan.created <= attempt.queued_at]
    if not shown:
        return {}
    return {(f["name"], repr(f.get("value"))): f["source"] for f in shown[-1].data.get("metadata", ())}


_CATALOGUE = {name: index for index, name in enumerate([*FIELDS, *FILE_FACTS])}


def _catalogue_order(name: str) -> tuple[int, str]:
    return _CATALOGUE.get(name, len(_CATALOGUE)), name


def _validation(attempt: ConversionAttempt | None) -> dict[str, Any]:
    """The latest validated attempt's issues, grouped by importance in nwbinspector's order."""
    if attempt is None:
        return {
            "attempt": None,
            "outcome": None,
            "outcome_label": "Not validated yet",
            "validated_at": None,
            "counts": {},
            "groups": [],
        }
    issues = list(attempt.issues.all())
    present = {issue.importance for issue in issues}
    order = [*IMPORTANCE_ORDER, *sorted(present - set(IMPORTANCE_ORDER))]
    groups = [
        {
            "importance": importance,
            "label": IMPORTANCE_WORDS.get(importance, importance.replace("_", " ").capitalize()),
            "issues": [_issue(issue) for issue in issues if issue.importance == importance],
        }
        for importance in order
        if importance in present
    ]
    return {
        "attempt": attempt.number,
        "outcome": attempt.validation,
        "outcome_label": _OUTCOME_WORDS.get(attempt.validation, attempt.validation),
        "validated_at": attempt.validated_at,
        "counts": {group["importance"]: len(group["issues"]) for group in groups},
        "groups": groups,
    }


def _issue(row: ValidationIssue) -> dict[str, Any]:
    inspected = InspectionIssue(
        check_name=row.check_name,
        importance=row.importance,
        message=row.message,
        location=row.location,
        object_type=row.object_type,
        object_name=row.object_name,
    )
    return {
        "check_name": row.check_name,
        "message": row.message,
        "location": row.location,
        "object_type": row.object_type,
        "object_name": row.object_name,
        "explanation": row.explanation or row.message,
        "action": action_for(inspected),
        "fields": [
            {"name": name, "label": field_label(name), "anchor": field_anchor(name)} for name in fields_for(inspected)
        ],
    }


def _transcript(session: ConversionSession) -> list[dict[str, Any]]:
    """Messages and audit events in the order they happened (messages first at equal times: the
    event a message caused is recorded after it)."""
    entries: list[tuple[datetime, int, int, dict[str, Any]]] = []
    entries.extend((m.created, 0, m.id, _message(m)) for m in session.messages.all())
    entries.extend((e.created, 1, e.id, _event(e)) for e in session.audit_events.select_related("actor"))
    return [entry for *_, entry in sorted(entries, key=lambda item: item[:3])]


def _message(message: ChatMessage) -> dict[str, Any]:
    fixes = message.data.get("fixes", ()) if message.card == "fixes" else ()
    return {
        "kind": "message",
        "at": message.created,
        "role": message.role,
        "card": message.card or None,
        "text": message.text,
        # A fixes card says them in one line; each change is listed here, as the page's details do.
        "details": [_fix_words(fix) for fix in fixes],
    }


def _fix_words(fix: dict[str, Any]) -> str:
    """One automatic fix in a line: "subject id: “mouse/7” → “mouse-7” (why)"."""
    label = fix.get("label") or fix.get("field", "")
    before = value_in_words(fix.get("before"))
    change = f"“{before}” → “{value_in_words(fix.get('after'))}”" if before else f"“{value_in_words(fix.get('after'))}”"
    return f"{label}: {change}" + (f" ({fix['reason']})" if fix.get("reason") else "")


def _event(event: AuditEvent) -> dict[str, Any]:
    return {
        "kind": "event",
        "at": event.created,
        "event": event.kind,
        "actor": event.actor.get_username() if event.actor is not None else None,
        "detail": event.detail,
        "summary": _event_words(event.kind, event.detail),
    }


def _event_words(kind: str, detail: dict[str, Any]) -> str:
    """The event in one line for the printed page (the JSON keeps the detail as recorded)."""
    words = kind.replace("_", " ")
    shown = [f"{key.replace('_', ' ')}: {_short(value)}" for key, value in detail.items()]
    return f"{words} ({'; '.join(shown)})" if shown else words


def _short(value: Any) -> str:
    if isinstance(value, list | tuple):
        text = ", ".join(str(item) for item in value[:5])
        return text + (f" and {len(value) - 5} more" if len(value) > 5 else "")
    text = str(value)
    return text if len(text) <= 120 else text[:119] + "…"

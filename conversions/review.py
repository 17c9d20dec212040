"""What an admin needs to understand a session that got stuck, in one JSON document.

Seed 000's escape hatch "request help" hands the session to an expert with debug information; this
is that information: the conversation, every attempt with its metadata, errors (tracebacks
included) and issues, the detection, the files, the audit trail and the versions of the tools.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from typing import Any

from django.utils import timezone

from conversions.models import ConversionSession

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

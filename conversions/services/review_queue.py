"""The admin review queue: which conversions need a human, why, and telling staff when one does.

A session is in the queue for one or more reasons:

- flagged: the orchestrator flagged it (the user asked for help, no progress between attempts, a job
  lost on its last run, the message limit);
- failing: its latest attempt failed, and either REVIEW_FAILED_ATTEMPTS attempts have failed or that
  attempt failed after all its JOB_MAX_RUNS runs;
- running_long: its conversion job runs far longer than expected, because its worker has not reported
  for REVIEW_STALE_HEARTBEAT_SECONDS (job recovery should have caught it by then), or because it runs
  longer than REVIEW_RUNNING_FACTOR times what its size predicts at REVIEW_CONVERSION_BYTES_PER_SECOND,
  plus REVIEW_RUNNING_GRACE_SECONDS;
- waiting_long: its job has waited in the queue for a worker for more than REVIEW_QUEUED_SECONDS.

Resolving a session (conversions.services.review.resolve) clears its flag and dismisses the computed reasons
that arose before the resolution; a reason that arises afterwards brings it back.

Staff are emailed once each time a session enters the queue (`review_notified_at`): flagged sessions
at once (services, on commit), the computed reasons by the periodic `sweep`.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import TYPE_CHECKING, Any, TypedDict

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import send_mail
from django.db.models import (
    BooleanField,
    Case,
    Count,
    DateTimeField,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    Value,
    When,
)
from django.db.models.functions import Coalesce, Least
from django.urls import reverse
from django.utils import timezone

from conversions.models import AuditEvent, ConversionAttempt, ConversionSession, SourceFile

logger = logging.getLogger(__name__)

# The audit kind of a resolution: the moment it was made dismisses the reasons that arose before.
RESOLVED = "review_resolved"
# Stands in for "no such moment" where the earliest of several is taken.
_NEVER = datetime(9999, 1, 1, tzinfo=UTC)


class Reason(StrEnum):
    FLAGGED = "flagged"
    FAILING = "failing"
    RUNNING_LONG = "running_long"
    WAITING_LONG = "waiting_long"


REASON_LABELS = {
    Reason.FLAGGED: "Flagged",
    Reason.FAILING: "Failed several times",
    Reason.RUNNING_LONG: "Job running far too long",
    Reason.WAITING_LONG: "Job waiting too long for a worker",
}


def threshold(name: str) -> float:
    """A review threshold: the setting if the deployment sets one, else the default here."""
    defaults: dict[str, float] = {
        "REVIEW_FAILED_ATTEMPTS": 2,
        "REVIEW_STALE_HEARTBEAT_SECONDS": 3 * getattr(settings, "JOB_STALL_SECONDS", 600),
        "REVIEW_RUNNING_GRACE_SECONDS": 3600,
        "REVIEW_RUNNING_FACTOR": 3,
        "REVIEW_CONVERSION_BYTES_PER_SECOND": 5_000_000,
        "REVIEW_QUEUED_SECONDS": 1800,
    }
    return float(getattr(settings, name, defaults[name]))


# --- the queue ------------------------------------------------------------------------------------


class QueueAnnotations(TypedDict):
    """What `review_queue` adds to each session; the latest attempt's are None when it has none."""

    flagged: bool
    failing: bool
    running_long: bool
    waiting_long: bool
    queue_since: datetime
    failed_attempts: int
    source_bytes: int
    resolved_at: datetime | None
    latest_number: int | None
    latest_state: str | None
    latest_started: datetime | None
    latest_heartbeat: datetime | None
    latest_queued: datetime | None
    latest_finished: datetime | None
    latest_deliveries: int | None
    latest_error: str | None


if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

    QueuedSession = WithAnnotations[ConversionSession, QueueAnnotations]


def review_queue(
    *, now: datetime | None = None, reason: Reason | str | None = None, lab_id: int | None = None
) -> QuerySet[QueuedSession]:
    """The sessions that need a human, oldest in the queue first, each annotated with its reasons
    (`flagged`, `failing`, `running_long`, `waiting_long`), `queue_since`, `failed_attempts`,
    `source_bytes` and its latest attempt (`latest_number`, `latest_state`, `latest_started`,
    `latest_heartbeat`, `latest_queued`, `latest_deliveries`, `latest_error`)."""
    now = now or timezone.now()
    attempts = ConversionAttempt.objects.filter(session=OuterRef("pk")).order_by("-number")

    def latest(field: str) -> Subquery:
        return Subquery(attempts.values(field)[:1])

    failed = (
        ConversionAttempt.objects.filter(session=OuterRef("pk"), state=ConversionAttempt.State.FAILED)
        .order_by()
        .values("session")
        .annotate(n=Count("id"))
        .values("n")
    )
    source_bytes = (
        SourceFile.objects.filter(session=OuterRef("pk"))
        .order_by()
        .values("session")
        .annotate(total=Sum("size_bytes"))
        .values("total")
    )
    jobs = overdue_jobs(now=now)
    running_since = {
        sid: moments[Reason.RUNNING_LONG] for sid, moments in jobs.items() if Reason.RUNNING_LONG in moments
    }
    waiting_since = {
        sid: moments[Reason.WAITING_LONG] for sid, moments in jobs.items() if Reason.WAITING_LONG in moments
    }

    flagged = Q(needs_review=True)
    failing = (
        Q(latest_state=ConversionAttempt.State.FAILED)
        & (
            Q(failed_attempts__gte=threshold("REVIEW_FAILED_ATTEMPTS"))
            | Q(latest_deliveries__gte=settings.JOB_MAX_RUNS)
        )
        & (Q(resolved_at__isnull=True) | Q(latest_finished__gt=F("resolved_at")))
    )
    running_long = Q(pk__in=list(running_since))
    waiting_long = Q(pk__in=list(waiting_since))

    sessions = (
        ConversionSession.objects.select_related("owner", "lab")
        .annotate(
            resolved_at=Subquery(
                AuditEvent.objects.filter(session=OuterRef("pk"), kind=RESOLVED)
                .order_by("-created")
                .values("created")[:1]
            ),
            latest_number=latest("number"),
            latest_state=latest("state"),
            latest_queued=latest("queued_at"),
            latest_started=latest("started_at"),
            latest_heartbeat=latest("heartbeat_at"),
            latest_finished=latest("finished_at"),
            latest_deliveries=latest("deliveries"),
            latest_error=latest("error_message"),
            failed_attempts=Coalesce(Subquery(failed, output_field=IntegerField()), 0),
            source_bytes=Coalesce(Subquery(source_bytes, output_field=IntegerField()), 0),
        )
        .annotate(
            flagged=_flag(flagged),
            failing=_flag(failing),
            running_long=_flag(running_long),
            waiting_long=_flag(waiting_long),
        )
        .filter(flagged | failing | running_long | waiting_long)
        .annotate(
            queue_since=Least(
                _moment_if(flagged, Coalesce("review_since", "updated")),
                _moment_if(failing, Coalesce("latest_finished", "latest_queued")),
                _moment_by_session(running_since),
                _moment_by_session(waiting_since),
            )
        )
        .order_by("queue_since", "created")
    )
    if reason:
        sessions = sessions.filter(**{Reason(reason).value: True})
    if lab_id is not None:
        sessions = sessions.filter(lab_id=lab_id)
    return sessions


def _flag(condition: Q) -> Case:
    return Case(When(condition, then=Value(True)), default=Value(False), output_field=BooleanField())


def _moment_if(condition: Q, moment: Any) -> Coalesce:
    return Coalesce(
        Case(When(condition, then=moment), default=Value(None), output_field=DateTimeField()),
        Value(_NEVER),
        output_field=DateTimeField(),
    )


def _moment_by_session(moments: dict[uuid.UUID, datetime]) -> Any:
    if not moments:
        return Value(_NEVER, output_field=DateTimeField())
    return Case(
        *(When(pk=session_id, then=Value(moment)) for session_id, moment in moments.items()),
        default=Value(_NEVER),
        output_field=DateTimeField(),
    )


def reason_counts(*, now: datetime | None = None) -> dict[str, int]:
    """How many sessions are in the queue for each reason, and in all (`total`)."""
    flags = list(review_queue(now=now).values_list(*(r.value for r in Reason)))
    counts = {r.value: sum(1 for row in flags if row[i]) for i, r in enumerate(Reason)}
    return {"total": len(flags), **counts}


def overdue_jobs(*, now: datetime | None = None) -> dict[uuid.UUID, dict[Reason, datetime]]:
    """Sessions whose conversion job runs or waits far longer than expected, with the moment each
    became overdue, leaving out what a resolution made after that moment dismissed.

    Worked out here rather than in SQL because the expected time depends on each job's size; there
    are only as many such jobs as are queued or running."""
    now = now or timezone.now()
    active = list(
        ConversionAttempt.objects.filter(
            state__in=[ConversionAttempt.State.RUNNING, ConversionAttempt.State.QUEUED]
        ).select_related("session")
    )
    resolutions = dict(
        AuditEvent.objects.filter(session_id__in={a.session_id for a in active}, kind=RESOLVED)
        .order_by("session_id", "created")
        .values_list("session_id", "created")
    )
    overdue: dict[uuid.UUID, dict[Reason, datetime]] = {}
    for attempt in active:
        if attempt.state == ConversionAttempt.State.RUNNING:
            reason, moment = Reason.RUNNING_LONG, _running_overdue_at(attempt)
        else:
            # Waiting since it was queued, or, run again after a lost worker, since its last run (a run
            # starts with a heartbeat).
            waiting_from = attempt.heartbeat_at if attempt.started_at and attempt.heartbeat_at else attempt.queued_at
            reason, moment = Reason.WAITING_LONG, waiting_from + timedelta(seconds=threshold("REVIEW_QUEUED_SECONDS"))
        resolved = resolutions.get(attempt.session_id)
        if moment <= now and (resolved is None or resolved < moment):
            overdue.setdefault(attempt.session_id, {})[reason] = moment
    return overdue


def _running_overdue_at(attempt: ConversionAttempt) -> datetime:
    """When a running job became overdue: its worker silent for too long, or running far longer than
    its size predicts, whichever comes first."""
    started = attempt.started_at or attempt.queued_at
    silent_from = attempt.heartbeat_at or started
    by_heartbeat = silent_from + timedelta(seconds=threshold("REVIEW_STALE_HEARTBEAT_SECONDS"))
    expected_s = job_bytes(attempt) / threshold("REVIEW_CONVERSION_BYTES_PER_SECOND")
    by_size = started + timedelta(
        seconds=threshold("REVIEW_RUNNING_GRACE_SECONDS") + threshold("REVIEW_RUNNING_FACTOR") * expected_s
    )
    return min(by_heartbeat, by_size)


def job_bytes(attempt: ConversionAttempt) -> int:
    """The size of what the attempt converts: its streams as detection measured them, or all the
    session's files when the detection does not say."""
    streams = (attempt.session.detection or {}).get("streams", [])
    chosen = [s.get("size_bytes") or 0 for s in streams if s.get("id") in attempt.streams]
    if chosen:
        return int(sum(chosen))
    return int(attempt.session.files.aggregate(total=Sum("size_bytes"))["total"] or 0)


# --- what a queued session shows ------------------------------------------------------------------


@dataclass(frozen=True)
class QueueReason:
    code: Reason
    label: str
    detail: str


def reasons_of(session: QueuedSession, *, now: datetime | None = None) -> list[QueueReason]:
    """The reasons an annotated session (from `review_queue`) is in the queue, in words."""
    now = now or timezone.now()
    reasons: list[QueueReason] = []
    if session.flagged:
        reasons.append(QueueReason(Reason.FLAGGED, REASON_LABELS[Reason.FLAGGED], session.review_reason or "flagged"))
    if session.failing:
        count = session.failed_attempts
        detail = f"{count} failed attempt{'s' if count != 1 else ''}"
        if (session.latest_deliveries or 0) >= settings.JOB_MAX_RUNS:
            detail += f"; the latest failed after all its {session.latest_deliveries} runs"
        if session.latest_error:
            detail += f": {session.latest_error}"
        reasons.append(QueueReason(Reason.FAILING, REASON_LABELS[Reason.FAILING], detail))
    if session.running_long:
        started = session.latest_started
        heartbeat = session.latest_heartbeat
        detail = f"attempt {session.latest_number} running for {_ago(started, now)}"
        detail += f"; last sign of life {_ago(heartbeat, now)} ago" if heartbeat else "; its worker never reported"
        reasons.append(QueueReason(Reason.RUNNING_LONG, REASON_LABELS[Reason.RUNNING_LONG], detail))
    if session.waiting_long:
        queued = session.latest_queued
        detail = f"attempt {session.latest_number} queued {_ago(queued, now)} ago, no worker has taken it"
        reasons.append(QueueReason(Reason.WAITING_LONG, REASON_LABELS[Reason.WAITING_LONG], detail))
    return reasons


def _ago(moment: datetime | None, now: datetime) -> str:
    if moment is None:
        return "an unknown time"
    seconds = max(int((now - moment).total_seconds()), 0)
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


# --- telling staff --------------------------------------------------------------------------------


def staff_recipients() -> list[str]:
    users = get_user_model().objects.filter(is_staff=True, is_active=True).exclude(email="").order_by("id")
    return list(users.values_list("email", flat=True))


def notify_staff(session_id: uuid.UUID | str, *, now: datetime | None = None) -> bool:
    """Email the staff that the session entered the review queue, once per entry: the session is
    claimed by setting `review_notified_at`, so a flag and a sweep at the same time send one email.
    True if this call sent it. A failed send is forgotten, so the next sweep tries again."""
    now = now or timezone.now()
    session = review_queue(now=now).filter(id=session_id, review_notified_at__isnull=True).first()
    if session is None:
        return False
    claimed = ConversionSession.objects.filter(id=session_id, review_notified_at__isnull=True).update(
        review_notified_at=now,
        review_since=Coalesce("review_since", Value(session.queue_since)),
    )
    if not claimed:
        return False
    recipients = staff_recipients()
    if not recipients:
        logger.warning("session %s needs review, but no active staff user has an email address", session_id)
        return False
    reasons = reasons_of(session, now=now)
    subject = f"[nwbportal] Conversion needs review: {session} ({', '.join(r.label.lower() for r in reasons)})"
    subject = " ".join(subject.split())  # a header is one line, whatever a title held before titles were checked
    try:
        send_mail(subject, _email_body(session, reasons), None, recipients)
    except Exception:
        logger.exception("could not email staff about session %s; the next sweep tries again", session_id)
        ConversionSession.objects.filter(id=session_id, review_notified_at=now).update(review_notified_at=None)
        return False
    return True


def _email_body(session: ConversionSession, reasons: list[QueueReason]) -> str:
    link = getattr(settings, "PORTAL_URL", "").rstrip("/") + reverse("review_session", args=[session.id])
    lines = [
        f"The conversion “{session}” needs a human.",
        "",
        *(f"- {r.label}: {r.detail}" for r in reasons),
        "",
        f"Owner: {session.owner.get_username()}  Lab: {session.lab.name}",
        f"Status: {session.get_status_display()}  Format: {session.format or 'not recognised yet'}",
        "",
        f"Review it: {link}",
    ]
    return "\n".join(lines)


def sweep(*, now: datetime | None = None) -> int:
    """The periodic pass: email staff about each session that entered the queue since the last one,
    and forget the entry of those that left it by themselves (a retry that worked), so their next
    entry is told again. Returns the number of emails sent."""
    now = now or timezone.now()
    queued = list(review_queue(now=now).values_list("id", "review_notified_at"))
    sent = sum(notify_staff(session_id, now=now) for session_id, notified in queued if notified is None)
    ConversionSession.objects.filter(needs_review=False).filter(
        Q(review_notified_at__isnull=False) | Q(review_since__isnull=False)
    ).exclude(id__in=[session_id for session_id, _ in queued]).update(review_notified_at=None, review_since=None)
    return sent

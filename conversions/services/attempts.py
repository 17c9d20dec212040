"""Every change of an attempt's, a preview's and a validation's row while jobs run: claiming them
(an atomic status update, so a redelivered or duplicated job does nothing), their progress and
heartbeat, their success or failure with the orchestrator's step, running them again, and the
recovery of jobs whose worker vanished. The workers (conversions/workers/jobs.py) read files and
call these; they write no row themselves.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from conversions.models import ConversionAttempt, ConversionSession, Housekeeping, LlmCall, Preview, ValidationIssue
from conversions.orchestrator.state import (
    ConversionFailed,
    ConversionSucceeded,
    IssueSummary,
    JobLost,
    JobRetrying,
    PreviewFailed,
    PreviewReady,
    SessionIdle,
    Status,
    ValidationCompleted,
)
from conversions.services import outbox
from conversions.services.sessions import record_job_event

if TYPE_CHECKING:
    from conversions.language.phrasing import PhrasingResult
    from conversions.nwb.validation import InspectionIssue

logger = logging.getLogger(__name__)
T = TypeVar("T")

# What a database that is briefly out of reach (restarting, failing over) raises: a running job
# rides that out rather than failing for it (DATABASE_OUTAGE_SECONDS).
DATABASE_DOWN = (OperationalError, InterfaceError)
# A detection or a preview that has not answered in this long is lost: past their time limits (180 s
# and 360 s), their worker would have stopped them.
DETECTION_LOST_SECONDS = 240
PREVIEW_LOST_SECONDS = 420


# --- conversions ----------------------------------------------------------------------------------


def claim_attempt(attempt_id: int, worker: str) -> ConversionAttempt | None:
    """Take a queued attempt for this run, or a running one whose run was lost; None when this
    delivery has nothing to do (a copy, or the attempt finished, cancelled or out of runs)."""
    now = timezone.now()
    claimed = ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.QUEUED).update(
        state=ConversionAttempt.State.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=worker[:200],
        deliveries=F("deliveries") + 1,
        progress=0.0,
    )
    if not claimed and not take_over_lost_run(attempt_id, worker):
        return None
    return ConversionAttempt.objects.select_related("session").get(id=attempt_id)


def take_over_lost_run(attempt_id: int, worker: str) -> bool:
    """A job delivered again while its attempt is marked running. Celery hands back at once the job
    of a worker process that died (killed for lack of memory, say), and a broker that lost its
    connection hands out again what it had given: the run that holds the attempt may be dead or
    alive. Watch its heartbeat: while it goes on, this delivery is a copy and does nothing; once it
    has been silent for JOB_STALL_SECONDS, this delivery takes the attempt over as its next run."""
    stall = timedelta(seconds=settings.JOB_STALL_SECONDS)
    deadline = time.monotonic() + settings.JOB_STALL_SECONDS + 2 * settings.JOB_HEARTBEAT_SECONDS
    while time.monotonic() < deadline:
        attempt = ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.RUNNING).first()
        if attempt is None or attempt.deliveries >= settings.JOB_MAX_RUNS:
            return False  # finished, cancelled or requeued meanwhile; or out of runs (the recovery fails it)
        now = timezone.now()
        if attempt.heartbeat_at is None or attempt.heartbeat_at < now - stall:
            taken = ConversionAttempt.objects.filter(
                id=attempt_id,
                state=ConversionAttempt.State.RUNNING,
                deliveries=attempt.deliveries,
                heartbeat_at=attempt.heartbeat_at,
            ).update(
                started_at=now, heartbeat_at=now, worker=worker[:200], deliveries=F("deliveries") + 1, progress=0.0
            )
            if not taken:
                return False
            logger.warning("attempt %s: run %s was lost; this delivery takes it over", attempt_id, attempt.deliveries)
            record_job_event(
                attempt.session_id,
                JobRetrying(
                    attempt=attempt.number,
                    reason="the worker process running it stopped, as when a machine runs out of memory",
                    delay_s=0,
                    run=attempt.deliveries + 1,
                    runs=settings.JOB_MAX_RUNS,
                ),
            )
            return True
        time.sleep(min(settings.JOB_HEARTBEAT_SECONDS, max(deadline - time.monotonic(), 0.0)))
    return False


def holds(attempt_id: int, run: int) -> bool:
    """Whether run number `run` still holds the attempt (not cancelled, not taken over)."""
    return ConversionAttempt.objects.filter(
        id=attempt_id, state=ConversionAttempt.State.RUNNING, deliveries=run
    ).exists()


def reconnect_later(what: str, *args: object) -> None:
    logger.warning("the database is out of reach while " + what + "; going on", *args)
    # A connection that failed is not reused: the next query opens a new one.
    connection.close_if_unusable_or_obsolete()


def patiently(action: Callable[[], T], what: str) -> T:
    """Run one database step of a job, trying again while the database is out of reach, for up to
    DATABASE_OUTAGE_SECONDS: a finished conversion is not thrown away for a database restart."""
    deadline = time.monotonic() + settings.DATABASE_OUTAGE_SECONDS
    pause = 0.5
    while True:
        try:
            return action()
        except DATABASE_DOWN:
            if time.monotonic() + pause > deadline:
                raise
            logger.warning("the database is out of reach while %s; trying again in %.1f s", what, pause)
            connection.close()
            time.sleep(pause)
            pause = min(pause * 2, 5.0)


def note_output(attempt_id: int, output: Path) -> None:
    ConversionAttempt.objects.filter(id=attempt_id).update(output_path=str(output))


def store_progress(attempt_id: int, run: int, percent: float) -> None:
    """The percent of run `run`, and that it is alive; a database out of reach is ridden out."""
    try:
        ConversionAttempt.objects.filter(id=attempt_id, deliveries=run).update(
            progress=percent, heartbeat_at=timezone.now()
        )
    except DATABASE_DOWN:
        reconnect_later("storing the progress of attempt %s", attempt_id)


def mark_alive(attempt_id: int, run: int | None) -> None:
    """A heartbeat of the attempt (only while run `run` holds it, when given)."""
    rows = ConversionAttempt.objects.filter(id=attempt_id)
    if run is not None:
        rows = rows.filter(deliveries=run)
    try:
        rows.update(heartbeat_at=timezone.now())
    except DATABASE_DOWN:
        reconnect_later("marking attempt %s alive", attempt_id)


def record_success(attempt: ConversionAttempt, run: int, *, size_bytes: int, fixes: list[dict[str, Any]]) -> bool:
    """The attempt's success and the orchestrator's step, committed together, so a worker stopping in
    between cannot leave a session converting with a finished attempt (the session row is locked
    first, as every transition locks it before touching its attempts). The validation is claimed
    with the success: the worker that wrote the file validates it without a trip through the queue,
    and the orchestrator's StartValidation finds it taken and queues nothing. Should that worker stop
    before answering, recover_stalled_jobs hands the validation to another. A database out of reach
    at this moment is waited for (DATABASE_OUTAGE_SECONDS): the file is done.

    False when nobody wants the file any more (cancelled, deleted, or taken over by a later run)."""
    attempt_id = attempt.id

    def record() -> bool:
        now = timezone.now()
        with transaction.atomic():
            ConversionSession.objects.select_for_update().filter(id=attempt.session_id).exists()
            finished = ConversionAttempt.objects.filter(
                id=attempt_id, state=ConversionAttempt.State.RUNNING, deliveries=run
            ).update(
                state=ConversionAttempt.State.SUCCEEDED,
                size_bytes=size_bytes,
                finished_at=now,
                progress=100.0,
                fixes=fixes,
                validation=ConversionAttempt.Validation.RUNNING,
                validation_started_at=now,
                heartbeat_at=now,
            )
            if not finished:
                # A try whose commit reached the database before the connection broke.
                return ConversionAttempt.objects.filter(
                    id=attempt_id,
                    state=ConversionAttempt.State.SUCCEEDED,
                    deliveries=run,
                    validation=ConversionAttempt.Validation.RUNNING,
                ).exists()
            step = record_job_event(
                attempt.session_id,
                ConversionSucceeded(attempt=attempt.number, size_bytes=size_bytes, fixes=tuple(fixes)),
            )
            if step is None or step.refused:
                # Nobody waits for this file's validation any more (the session was cancelled or deleted).
                ConversionAttempt.objects.filter(id=attempt_id).update(
                    validation=ConversionAttempt.Validation.PENDING, validation_started_at=None
                )
                return False
        return True

    return patiently(record, f"recording the end of attempt {attempt_id}")


def taken_over(attempt_id: int, run: int) -> bool:
    """Whether a later run than `run` holds the attempt (its partial file is that run's now)."""
    return ConversionAttempt.objects.filter(id=attempt_id, deliveries__gt=run).exists()


def succeeded(attempt_id: int) -> bool:
    return ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.SUCCEEDED).exists()


def retry_delay_s(run: int) -> int:
    """Seconds to wait before run number `run` (2 for the first retry): doubling from the setting."""
    return int(settings.JOB_RETRY_BACKOFF_SECONDS * 2 ** max(run - 2, 0))


def run_again(attempt: ConversionAttempt, reason: str, *, immediately: bool = False) -> bool:
    """Queue a running attempt again after a failure that was not the data's, with backoff, unless it
    has had all its runs; the user is told why and when. False when no run is left."""
    if attempt.deliveries >= settings.JOB_MAX_RUNS:
        return False
    requeued = ConversionAttempt.objects.filter(
        id=attempt.id, state=ConversionAttempt.State.RUNNING, deliveries=attempt.deliveries
    ).update(state=ConversionAttempt.State.QUEUED, progress=0.0)
    if not requeued:
        return True  # cancelled or taken over meanwhile: nothing to run, nothing to fail
    run = attempt.deliveries + 1
    delay = 0 if immediately else retry_delay_s(run)
    record_job_event(
        attempt.session_id,
        JobRetrying(attempt=attempt.number, reason=reason, delay_s=delay, run=run, runs=settings.JOB_MAX_RUNS),
    )
    outbox.enqueue("convert_attempt", attempt.id, countdown=delay, task_id=attempt.task_id)
    return True


def fail_attempt(attempt: ConversionAttempt, user_message: str, detail: str) -> None:
    """Fail the attempt, if the run that read `attempt` still holds it."""

    def record() -> None:
        failed = ConversionAttempt.objects.filter(
            id=attempt.id, state=ConversionAttempt.State.RUNNING, deliveries=attempt.deliveries
        ).update(
            state=ConversionAttempt.State.FAILED,
            finished_at=timezone.now(),
            error_message=user_message,
            error_detail=detail,
        )
        if failed:
            record_job_event(attempt.session_id, ConversionFailed(attempt=attempt.number, user_message=user_message))

    patiently(record, f"recording the failure of attempt {attempt.id}")


# --- validations ----------------------------------------------------------------------------------


def claim_validation(attempt_id: int) -> bool:
    """Take a validation left to the queue (after a restart, or when the conversion's own worker
    stopped before validating)."""
    return bool(
        ConversionAttempt.objects.filter(
            id=attempt_id,
            state=ConversionAttempt.State.SUCCEEDED,
            validation__in=[ConversionAttempt.Validation.PENDING],
        ).update(
            validation=ConversionAttempt.Validation.RUNNING,
            validation_started_at=timezone.now(),
            heartbeat_at=timezone.now(),
        )
    )


def store_validation(
    attempt: ConversionAttempt,
    issues: Sequence[InspectionIssue],
    summaries: tuple[IssueSummary, ...],
    outcome: str,
) -> None:
    """Store the issues and the outcome; rides out a database out of reach (the checks are done)."""
    attempt_id = attempt.id

    def store() -> None:
        with transaction.atomic():
            ValidationIssue.objects.filter(attempt_id=attempt_id).delete()
            ValidationIssue.objects.bulk_create(
                ValidationIssue(
                    attempt_id=attempt_id,
                    check_name=i.check_name,
                    importance=i.importance,
                    message=i.message,
                    location=i.location,
                    object_type=i.object_type,
                    object_name=i.object_name,
                    explanation=summary.explanation,
                )
                for i, summary in zip(issues, summaries, strict=True)
            )
            ConversionAttempt.objects.filter(id=attempt_id).update(validation=outcome, validated_at=timezone.now())

    patiently(store, f"storing the validation of attempt {attempt_id}")


def report_validation(attempt: ConversionAttempt, summaries: tuple[IssueSummary, ...], outcome: str) -> None:
    """Tell the orchestrator the validation's outcome; rides out a database out of reach."""
    completed = ValidationCompleted(
        attempt=attempt.number,
        outcome=outcome,  # type: ignore[arg-type]  # an Outcome value, as the Literal spells them
        issues=summaries,
    )
    patiently(
        lambda: record_job_event(attempt.session_id, completed),
        f"reporting the validation of attempt {attempt.id}",
    )


def record_llm_call(call: LlmCall, result: PhrasingResult) -> None:
    LlmCall.objects.filter(id=call.id).update(
        outcome=result.outcome.value,
        input_tokens=result.input_tokens,
        output_tokens=result.output_tokens,
        latency_ms=result.latency_ms,
        detail=result.detail,
    )


def record_llm_error(call: LlmCall, exc: Exception) -> None:
    LlmCall.objects.filter(id=call.id).update(
        outcome=LlmCall.Outcome.ERROR, detail=f"{type(exc).__name__}: {exc}"[:500]
    )


# --- previews -------------------------------------------------------------------------------------


def claim_preview(preview_id: int, output_for: Callable[[Preview], Path]) -> Preview | None:
    """Take a queued preview and note where its file goes; None when another delivery has it."""
    claimed = Preview.objects.filter(id=preview_id, state=Preview.State.QUEUED).update(
        state=Preview.State.RUNNING, started_at=timezone.now(), deliveries=F("deliveries") + 1
    )
    if not claimed:
        return None
    preview = Preview.objects.select_related("session").get(id=preview_id)
    preview.output_path = str(output_for(preview))
    Preview.objects.filter(id=preview_id).update(output_path=preview.output_path)
    return preview


def preview_wanted(preview_id: int) -> bool:
    return Preview.objects.filter(id=preview_id, state=Preview.State.RUNNING).exists()


def record_preview(preview: Preview, *, size_bytes: int, summary: dict[str, Any], words: str) -> bool:
    """The preview's success and its step; False when nobody wants it any more."""
    finished = Preview.objects.filter(id=preview.id, state=Preview.State.RUNNING).update(
        state=Preview.State.SUCCEEDED, size_bytes=size_bytes, summary=summary, finished_at=timezone.now()
    )
    if finished:
        record_job_event(
            preview.session_id,
            PreviewReady(number=preview.number, summary=summary, words=words, size_bytes=size_bytes),
        )
    return bool(finished)


def fail_preview(preview: Preview, user_message: str, detail: str) -> None:
    failed = Preview.objects.filter(id=preview.id, state=Preview.State.RUNNING).update(
        state=Preview.State.FAILED, finished_at=timezone.now(), error_message=user_message, error_detail=detail
    )
    if failed:
        record_job_event(preview.session_id, PreviewFailed(number=preview.number, user_message=user_message))


# --- recovery and housekeeping ----------------------------------------------------------------


def recover_stalled_jobs(*, stall_seconds: int | None = None, everything: bool = False, on_start: bool = False) -> int:
    """Hand the queue the jobs it never took or lost (conversions.services.outbox); find jobs whose worker
    vanished and run them again, up to JOB_MAX_RUNS runs, then flag the session. Runs every
    RECOVERY_INTERVAL_SECONDS (celery beat), and when a worker starts (`on_start`).

    `everything`: this process just started with an in-memory broker (embedded mode), so every job
    that was running is known to be lost, however recent.
    """
    stall = stall_seconds if stall_seconds is not None else settings.JOB_STALL_SECONDS
    now = timezone.now()
    cutoff = now - timedelta(seconds=stall)
    recovered = outbox.flush()
    # A worker that starts judges at once: it is likely there because another stopped.
    if _recovery_was_away(now, stall) and not (everything or on_start):
        # The recovery itself could not run for longer than a job may stay silent (the database or
        # the broker was out of reach, or nothing was running): the jobs could not mark themselves
        # alive either. They get one stall time to do so before any is judged lost.
        logger.warning("job recovery had not run for over %s s; judging lost jobs at its next run", stall)
        return recovered

    running = ConversionAttempt.objects.filter(state=ConversionAttempt.State.RUNNING)
    if not everything:
        running = running.filter(Q(heartbeat_at__lt=cutoff) | Q(heartbeat_at__isnull=True, started_at__lt=cutoff))
    for attempt in running:
        if attempt.deliveries >= settings.JOB_MAX_RUNS:
            lost = ConversionAttempt.objects.filter(
                id=attempt.id, state=ConversionAttempt.State.RUNNING, deliveries=attempt.deliveries
            ).update(
                state=ConversionAttempt.State.FAILED,
                finished_at=timezone.now(),
                error_message=f"The worker running this job stopped {attempt.deliveries} times.",
                error_detail=f"last worker: {attempt.worker}",
            )
            if lost:
                record_job_event(attempt.session_id, JobLost(attempt=attempt.number))
            continue
        logger.warning("attempt %s: its worker %s stopped reporting", attempt.id, attempt.worker)
        # Another worker takes it at once: waiting would not bring the lost one back.
        if run_again(attempt, "the worker running it stopped", immediately=True):
            recovered += 1

    validations = ConversionAttempt.objects.filter(
        session__status=Status.VALIDATING,
        state=ConversionAttempt.State.SUCCEEDED,
        validation=ConversionAttempt.Validation.RUNNING,
    )
    if not everything:
        validations = validations.filter(
            Q(heartbeat_at__isnull=True) | Q(heartbeat_at__lt=cutoff),
            Q(validation_started_at__isnull=True) | Q(validation_started_at__lt=cutoff),
        )
    for attempt in validations:
        reset = ConversionAttempt.objects.filter(id=attempt.id, validation=ConversionAttempt.Validation.RUNNING).update(
            validation=ConversionAttempt.Validation.PENDING
        )
        if reset:
            outbox.enqueue("validate_attempt", attempt.id)
            recovered += 1

    # A preview takes seconds: one its worker left behind is not run again (the user may have moved
    # on), only reported, so the user can ask for it again. One still queued is the outbox's.
    if everything:
        previews = Preview.objects.filter(state=Preview.State.RUNNING)
    else:
        previews = Preview.objects.filter(
            state=Preview.State.RUNNING, started_at__lt=now - timedelta(seconds=max(stall, PREVIEW_LOST_SECONDS))
        )
    for preview in previews:
        _fail_preview_lost(preview)

    detecting = ConversionSession.objects.filter(status=Status.DETECTING_FORMAT)
    if not everything:
        detecting = detecting.filter(updated__lt=now - timedelta(seconds=max(stall, DETECTION_LOST_SECONDS)))
    for session in detecting:
        memory = session.memory
        outbox.enqueue("detect_recording", str(session.id), memory.files_version, memory.chosen_format)
        recovered += 1
    return recovered


def _recovery_was_away(now: datetime, stall: int) -> bool:
    """Note that the recovery runs now; say whether its last run was longer ago than `stall`."""
    mark, created = Housekeeping.objects.get_or_create(name="recover_stalled_jobs", defaults={"last_run": now})
    Housekeeping.objects.filter(id=mark.id).update(last_run=now)
    return not created and mark.last_run < now - timedelta(seconds=stall)


def _fail_preview_lost(preview: Preview) -> None:
    message = "it was interrupted (the server restarted while making it). Say “preview” to make it again."
    failed = Preview.objects.filter(id=preview.id, state__in=[Preview.State.QUEUED, Preview.State.RUNNING]).update(
        state=Preview.State.FAILED, finished_at=timezone.now(), error_message=message
    )
    if failed:
        record_job_event(preview.session_id, PreviewFailed(number=preview.number, user_message=message))


def close_idle_sessions(*, hours: int | None = None) -> int:
    """Close the sessions that have waited longer than SESSION_IDLE_HOURS for an answer."""
    hours = hours if hours is not None else settings.SESSION_IDLE_HOURS
    cutoff = timezone.now() - timedelta(hours=hours)
    idle = ConversionSession.objects.filter(
        status__in=[Status.AWAITING_USER_INPUT, Status.AWAITING_APPROVAL], updated__lt=cutoff
    ).values_list("id", flat=True)
    closed = 0
    for session_id in list(idle):
        step = record_job_event(session_id, SessionIdle(hours=hours))
        closed += bool(step and not step.refused)
    return closed

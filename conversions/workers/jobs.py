"""The work behind the Celery tasks: detection, conversion and validation of a session's files.

Runs in workers (the embedded thread or `celery worker` processes), which import neuroconv once.
Every job first claims its row with an atomic status update, so a redelivered or duplicated job
does nothing, and reports its outcome to the orchestrator through the services.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import InterfaceError, OperationalError, connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from conversions.models import (
    ConversionAttempt,
    ConversionSession,
    Housekeeping,
    LlmCall,
    Preview,
    ValidationIssue,
)
from conversions.nwb.errors import AmbiguousRecording, ConversionCancelled, ConversionFailed, RecordingProblem
from conversions.orchestrator.state import (
    ConversionFailed as ConversionFailedEvent,
)
from conversions.orchestrator.state import (
    ConversionSucceeded,
    DetectionFailed,
    FormatAmbiguous,
    FormatOption,
    IssueSummary,
    JobLost,
    JobRetrying,
    PreviewFailed,
    PreviewReady,
    SessionIdle,
    Status,
    ValidationCompleted,
)
from conversions.realtime import notify
from conversions.services import outbox, sessions

if TYPE_CHECKING:
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

UNEXPECTED = (
    "something unexpected went wrong on the server. The portal's admins can see the details; you can say “retry”."
)


def detect_recording(session_id: str, files_version: int, *, format_key: str | None = None) -> None:
    from conversions.nwb.detection import SUPPORTED_FORMATS, detect_format, format_handler

    session = ConversionSession.objects.filter(id=session_id, status=Status.DETECTING_FORMAT).first()
    if session is None:
        return
    if format_key is not None and format_handler(format_key) is None:
        message = (
            f"There is no format called “{format_key}”. Use one of: {', '.join(SUPPORTED_FORMATS)}, or "
            "“neuroconv:<InterfaceName>” for another neuroconv recording interface."
        )
        sessions.record_job_event(session_id, DetectionFailed(files_version=files_version, user_message=message))
        return
    try:
        detection = detect_format(session.source_directory, format_key=format_key)
    except AmbiguousRecording as ambiguous:
        options = tuple(FormatOption(key=key, label=SUPPORTED_FORMATS[key].label) for key in ambiguous.candidates)
        sessions.record_job_event(
            session_id,
            FormatAmbiguous(files_version=files_version, candidates=options, user_message=ambiguous.user_message),
        )
        return
    except RecordingProblem as problem:
        sessions.record_job_event(
            session_id, DetectionFailed(files_version=files_version, user_message=problem.user_message)
        )
        return
    except Exception:
        logger.exception("format detection crashed for session %s", session_id)
        sessions.record_job_event(
            session_id,
            DetectionFailed(files_version=files_version, user_message="I could not read these files: " + UNEXPECTED),
        )
        return
    sessions.record_detection(session_id, files_version, detection.to_json())


class _ProgressReporter:
    """Stores and publishes a running conversion's percent: at most every PROGRESS_INTERVAL_SECONDS
    and only for a gain of 1 % or more, and at least every 2 s as a heartbeat. A conversion reports
    after every chunk (about 200 a gigabyte); storing and announcing each of those cost more than
    a third of the conversion's own time on a 1 GB recording."""

    def __init__(self, attempt: ConversionAttempt) -> None:
        self.attempt_id = attempt.id
        self.session_id = attempt.session_id
        self.number = attempt.number
        self.run = attempt.deliveries
        self.last_percent = -1.0
        self.last_time = 0.0
        self.last_check = 0.0

    def __call__(self, percent: float) -> None:
        now = time.monotonic()
        since = now - self.last_time
        gained = percent - self.last_percent >= 1.0 and since >= settings.PROGRESS_INTERVAL_SECONDS
        if not gained and since < 2.0 and percent < 100.0:
            return
        self.last_percent, self.last_time = percent, now
        try:
            ConversionAttempt.objects.filter(id=self.attempt_id, deliveries=self.run).update(
                progress=percent, heartbeat_at=timezone.now()
            )
        except DATABASE_DOWN:
            _reconnect_later("storing the progress of attempt %s", self.attempt_id)
        notify.publish(
            self.session_id,
            {"type": "progress", "phase": "converting", "percent": round(percent, 1), "attempt": self.number},
        )

    def should_stop(self) -> bool:
        """Cancelled, the session deleted, or this run given up for lost and started again
        elsewhere: either way nobody wants this run's file any more. Asked after every chunk
        written, so the database is asked at most every 0.25 s; while it cannot be asked, the
        conversion goes on."""
        now = time.monotonic()
        if now - self.last_check < 0.25:
            return False
        self.last_check = now
        try:
            return not _holds(self.attempt_id, self.run)
        except DATABASE_DOWN:
            _reconnect_later("checking on attempt %s", self.attempt_id)
            return False


def _holds(attempt_id: int, run: int) -> bool:
    """Whether run number `run` still holds the attempt (not cancelled, not taken over)."""
    return ConversionAttempt.objects.filter(
        id=attempt_id, state=ConversionAttempt.State.RUNNING, deliveries=run
    ).exists()


def _reconnect_later(what: str, *args: object) -> None:
    logger.warning("the database is out of reach while " + what + "; going on", *args)
    # A connection that failed is not reused: the next query opens a new one.
    connection.close_if_unusable_or_obsolete()


def _patiently(action: Callable[[], T], what: str) -> T:
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


class _Heartbeat:
    """Marks an attempt alive every JOB_HEARTBEAT_SECONDS from a thread of its own, whatever the job
    is doing (a step that reports no progress for minutes, a validation), so that a run nobody marks
    any more is known lost within JOB_STALL_SECONDS. `run`: only while that run holds the attempt.
    A beat the database cannot take is tried again at the next one."""

    def __init__(self, attempt_id: int, run: int | None = None) -> None:
        self.attempt_id = attempt_id
        self.run = run
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name=f"heartbeat-{attempt_id}", daemon=True)

    def __enter__(self) -> _Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        try:
            while not self._stop.wait(settings.JOB_HEARTBEAT_SECONDS):
                rows = ConversionAttempt.objects.filter(id=self.attempt_id)
                if self.run is not None:
                    rows = rows.filter(deliveries=self.run)
                try:
                    rows.update(heartbeat_at=timezone.now())
                except DATABASE_DOWN:
                    _reconnect_later("marking attempt %s alive", self.attempt_id)
        finally:
            connection.close()  # this thread's own


def convert_attempt(attempt_id: int, *, worker: str = "") -> None:
    now = timezone.now()
    claimed = ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.QUEUED).update(
        state=ConversionAttempt.State.RUNNING,
        started_at=now,
        heartbeat_at=now,
        worker=worker[:200],
        deliveries=F("deliveries") + 1,
        progress=0.0,
    )
    if not claimed and not _take_over_lost_run(attempt_id, worker):
        return
    attempt = ConversionAttempt.objects.select_related("session").get(id=attempt_id)
    with _Heartbeat(attempt_id, attempt.deliveries):
        _convert_claimed(attempt)


def _take_over_lost_run(attempt_id: int, worker: str) -> bool:
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
            sessions.record_job_event(
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


def _convert_claimed(attempt: ConversionAttempt) -> None:
    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection
    from conversions.nwb.naming import temporary_path_for

    attempt_id = attempt.id
    run = attempt.deliveries
    session = attempt.session
    output = sessions.attempt_output_path(session, attempt)
    output.parent.mkdir(parents=True, exist_ok=True)
    # A previous delivery of this job may have left a partial file behind.
    temporary_path_for(output).unlink(missing_ok=True)
    ConversionAttempt.objects.filter(id=attempt_id).update(output_path=str(output))
    reporter = _ProgressReporter(attempt)
    reporter(0.0)
    try:
        result = convert_recording(
            source_root=session.source_directory,
            detection=Detection.from_json(session.detection or {}),
            stream_ids=attempt.streams,
            metadata=attempt.metadata,
            timezone=session.timezone,
            output_path=output,
            on_progress=reporter,
            should_stop=reporter.should_stop,
        )
    except ConversionCancelled:
        # A later run that took the attempt over writes the same partial file: it is its own now.
        if not ConversionAttempt.objects.filter(id=attempt_id, deliveries__gt=run).exists():
            temporary_path_for(output).unlink(missing_ok=True)
        return
    except (ConversionFailed, RecordingProblem) as exc:
        _fail(attempt, exc.user_message, exc.detail)
        return
    except SoftTimeLimitExceeded:
        temporary_path_for(output).unlink(missing_ok=True)
        # Not the data's fault as far as anyone can tell (a loaded machine, a slow disk): run again.
        if not _run_again(attempt, "it took longer than the portal's time limit"):
            _fail(
                attempt,
                "the conversion took longer than the portal's time limit, every time it ran.",
                "soft time limit exceeded",
            )
        return
    except Exception:
        logger.exception("conversion crashed for attempt %s", attempt_id)
        temporary_path_for(output).unlink(missing_ok=True)
        _fail(attempt, UNEXPECTED, traceback.format_exc())
        return
    fixes = [fix.to_json() for fix in result.applied_fixes]
    # The attempt's success and the orchestrator's step commit together, so a worker stopping in
    # between cannot leave a session converting with a finished attempt. The session row is locked
    # first, as every transition locks it before touching its attempts.
    # This worker then validates the file it has just written, without a trip through the queue: the
    # validation is claimed with the success, so the orchestrator's StartValidation finds it taken
    # and queues nothing. Should this worker stop before answering, recover_stalled_jobs hands the
    # validation to another.
    # A database out of reach at this moment is waited for (DATABASE_OUTAGE_SECONDS): the file is done.

    def record_success() -> bool:
        now = timezone.now()
        with transaction.atomic():
            ConversionSession.objects.select_for_update().filter(id=session.id).exists()
            finished = ConversionAttempt.objects.filter(
                id=attempt_id, state=ConversionAttempt.State.RUNNING, deliveries=run
            ).update(
                state=ConversionAttempt.State.SUCCEEDED,
                size_bytes=result.size_bytes,
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
            step = sessions.record_job_event(
                session.id,
                ConversionSucceeded(attempt=attempt.number, size_bytes=result.size_bytes, fixes=tuple(fixes)),
            )
            if step is None or step.refused:
                # Nobody waits for this file's validation any more (the session was cancelled or deleted).
                ConversionAttempt.objects.filter(id=attempt_id).update(
                    validation=ConversionAttempt.Validation.PENDING, validation_started_at=None
                )
                return False
        return True

    if not _patiently(record_success, f"recording the end of attempt {attempt_id}"):
        # Cancelled between the last progress report and the end: the file is not wanted. (Taken
        # over by a later run, the file is that run's to write.)
        kept = ConversionAttempt.objects.filter(id=attempt_id, state=ConversionAttempt.State.SUCCEEDED).exists()
        if not kept and not ConversionAttempt.objects.filter(id=attempt_id, deliveries__gt=run).exists():
            Path(output).unlink(missing_ok=True)
        return
    _validate_claimed(attempt_id)


def preview_recording(preview_id: int) -> None:
    """A stub conversion (a few seconds of each stream) and a description of the file it gives.

    Not a conversion attempt: it is not validated, not numbered with the attempts and never the
    session's result; a failure only says why, and the conversation goes on where it was."""
    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection
    from conversions.nwb.naming import temporary_path_for
    from conversions.nwb.preview import describe_in_words, describe_nwb

    claimed = Preview.objects.filter(id=preview_id, state=Preview.State.QUEUED).update(
        state=Preview.State.RUNNING, started_at=timezone.now(), deliveries=F("deliveries") + 1
    )
    if not claimed:
        return
    preview = Preview.objects.select_related("session").get(id=preview_id)
    session = preview.session
    output = sessions.preview_output_path(session, preview)
    Preview.objects.filter(id=preview_id).update(output_path=str(output))
    detection = Detection.from_json(session.detection or {})

    def still_wanted() -> bool:
        return Preview.objects.filter(id=preview_id, state=Preview.State.RUNNING).exists()

    try:
        result = convert_recording(
            source_root=session.source_directory,
            detection=detection,
            stream_ids=preview.streams,
            metadata=preview.metadata,
            timezone=session.timezone,
            output_path=output,
            should_stop=lambda: not still_wanted(),
            stub=True,
        )
        summary = describe_nwb(output)
    except ConversionCancelled:
        temporary_path_for(output).unlink(missing_ok=True)
        return
    except (ConversionFailed, RecordingProblem) as exc:
        _fail_preview(preview, exc.user_message, exc.detail)
        return
    except Exception:
        logger.exception("preview crashed for preview %s", preview_id)
        temporary_path_for(output).unlink(missing_ok=True)
        _fail_preview(preview, UNEXPECTED, traceback.format_exc())
        return
    full_duration = max((detection.stream(s).duration_s for s in result.streams), default=None)
    words = describe_in_words(summary, full_duration_s=full_duration)
    finished = Preview.objects.filter(id=preview_id, state=Preview.State.RUNNING).update(
        state=Preview.State.SUCCEEDED, size_bytes=result.size_bytes, summary=summary, finished_at=timezone.now()
    )
    if not finished:
        Path(output).unlink(missing_ok=True)
        return
    sessions.record_job_event(
        session.id,
        PreviewReady(number=preview.number, summary=summary, words=words, size_bytes=result.size_bytes),
    )


def _fail_preview(preview: Preview, user_message: str, detail: str) -> None:
    failed = Preview.objects.filter(id=preview.id, state=Preview.State.RUNNING).update(
        state=Preview.State.FAILED, finished_at=timezone.now(), error_message=user_message, error_detail=detail
    )
    if failed:
        sessions.record_job_event(preview.session_id, PreviewFailed(number=preview.number, user_message=user_message))


def retry_delay_s(run: int) -> int:
    """Seconds to wait before run number `run` (2 for the first retry): doubling from the setting."""
    return int(settings.JOB_RETRY_BACKOFF_SECONDS * 2 ** max(run - 2, 0))


def _run_again(attempt: ConversionAttempt, reason: str, *, immediately: bool = False) -> bool:
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
    sessions.record_job_event(
        attempt.session_id,
        JobRetrying(attempt=attempt.number, reason=reason, delay_s=delay, run=run, runs=settings.JOB_MAX_RUNS),
    )
    outbox.enqueue("convert_attempt", attempt.id, countdown=delay, task_id=attempt.task_id)
    return True


def close_idle_sessions(*, hours: int | None = None) -> int:
    """Close the sessions that have waited longer than SESSION_IDLE_HOURS for an answer."""
    hours = hours if hours is not None else settings.SESSION_IDLE_HOURS
    cutoff = timezone.now() - timedelta(hours=hours)
    idle = ConversionSession.objects.filter(
        status__in=[Status.AWAITING_USER_INPUT, Status.AWAITING_APPROVAL], updated__lt=cutoff
    ).values_list("id", flat=True)
    closed = 0
    for session_id in list(idle):
        step = sessions.record_job_event(session_id, SessionIdle(hours=hours))
        closed += bool(step and not step.refused)
    return closed


def _fail(attempt: ConversionAttempt, user_message: str, detail: str) -> None:
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
            sessions.record_job_event(
                attempt.session_id, ConversionFailedEvent(attempt=attempt.number, user_message=user_message)
            )

    _patiently(record, f"recording the failure of attempt {attempt.id}")


def validate_attempt(attempt_id: int) -> None:
    """A validation left to the queue: after a restart, or when the conversion's own worker stopped
    before validating (the conversion job normally validates its file itself)."""
    claimed = ConversionAttempt.objects.filter(
        id=attempt_id,
        state=ConversionAttempt.State.SUCCEEDED,
        validation__in=[ConversionAttempt.Validation.PENDING],
    ).update(
        validation=ConversionAttempt.Validation.RUNNING,
        validation_started_at=timezone.now(),
        heartbeat_at=timezone.now(),
    )
    if claimed:
        with _Heartbeat(attempt_id):
            _validate_claimed(attempt_id)


def _validate_claimed(attempt_id: int) -> None:
    from conversions.nwb.dandi_validation import check_nwb
    from conversions.nwb.validation import InspectionIssue, explain, fields_for, fields_to_ask, outcome_of

    attempt = ConversionAttempt.objects.get(id=attempt_id)
    notify.publish(
        attempt.session_id, {"type": "progress", "phase": "validating", "percent": 0.0, "attempt": attempt.number}
    )
    try:
        # nwbinspector and DANDI's own validator: what only DANDI finds (species it does not know, the
        # file's NWB version) is added to nwbinspector's findings.
        issues = check_nwb(Path(attempt.output_path))
    except Exception as exc:
        # A check that cannot run is reported like any other problem with the file, so the session
        # moves on (the user can retry or accept) instead of waiting for a validation that never ends.
        logger.exception("validation crashed for attempt %s", attempt_id)
        issues = [
            InspectionIssue(
                check_name="inspector_check_failed",
                importance="ERROR",
                message=f"The NWB Inspector could not check this file: {exc}",
                location="/",
                object_type="",
                object_name="",
            )
        ]
    outcome = outcome_of(issues)
    summaries = tuple(
        IssueSummary(
            check_name=i.check_name,
            importance=i.importance,
            explanation=explain(i),
            location=i.location,
            fields=tuple(fields_to_ask(i)),
            links=tuple(name for name in fields_for(i) if name not in fields_to_ask(i)),
        )
        for i in issues
    )
    # Before the issues are stored, and outside any lock: the call may take seconds.
    summaries = _in_plain_words(attempt, issues, summaries)

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
            ConversionAttempt.objects.filter(id=attempt_id).update(
                validation=outcome.value, validated_at=timezone.now()
            )

    _patiently(store, f"storing the validation of attempt {attempt_id}")
    notify.publish(
        attempt.session_id, {"type": "progress", "phase": "validating", "percent": 100.0, "attempt": attempt.number}
    )
    completed = ValidationCompleted(attempt=attempt.number, outcome=outcome.value, issues=summaries)  # type: ignore[arg-type]
    _patiently(
        lambda: sessions.record_job_event(attempt.session_id, completed),
        f"reporting the validation of attempt {attempt_id}",
    )


def _in_plain_words(
    attempt: ConversionAttempt, issues: Sequence[InspectionIssue], summaries: tuple[IssueSummary, ...]
) -> tuple[IssueSummary, ...]:
    """The issues' explanations as the language model phrases them, when the portal has an API key
    and the session's lab consented; otherwise, and wherever the model's words fail the checks of
    `phrasing.phrase`, the rule table's. Never raises: validation must not fail for the wording."""
    from conversions.language import llm, phrasing

    if not summaries or not settings.ANTHROPIC_API_KEY:
        return summaries
    call: LlmCall | None = None
    try:
        if not ConversionSession.objects.filter(id=attempt.session_id, lab__llm_consent=True).exists():
            return summaries
        call = sessions.claim_llm_call(attempt.session_id, LlmCall.Purpose.EXPLAIN)
        if call is None:
            return summaries
        result = phrasing.phrase(
            [
                phrasing.IssueToPhrase(
                    check_name=s.check_name,
                    importance=s.importance,
                    message=i.message,
                    location=s.location,
                    explanation=s.explanation,
                    fields=s.fields,
                )
                for i, s in zip(issues, summaries, strict=True)
            ],
            client=llm.client_factory(settings.ANTHROPIC_API_KEY, settings.LLM_TIMEOUT_SECONDS),
            model=call.model,
            timeout_s=settings.LLM_TIMEOUT_SECONDS,
        )
        LlmCall.objects.filter(id=call.id).update(
            outcome=result.outcome.value,
            input_tokens=result.input_tokens,
            output_tokens=result.output_tokens,
            latency_ms=result.latency_ms,
            detail=result.detail,
        )
    except Exception as exc:
        logger.exception("phrasing the issues of attempt %s failed", attempt.id)
        if call is not None:
            LlmCall.objects.filter(id=call.id).update(
                outcome=LlmCall.Outcome.ERROR, detail=f"{type(exc).__name__}: {exc}"[:500]
            )
        return summaries
    return tuple(
        summary.model_copy(update={"explanation": text})
        for summary, text in zip(summaries, result.explanations, strict=True)
    )


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
                sessions.record_job_event(attempt.session_id, JobLost(attempt=attempt.number))
            continue
        logger.warning("attempt %s: its worker %s stopped reporting", attempt.id, attempt.worker)
        # Another worker takes it at once: waiting would not bring the lost one back.
        if _run_again(attempt, "the worker running it stopped", immediately=True):
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
        sessions.record_job_event(preview.session_id, PreviewFailed(number=preview.number, user_message=message))

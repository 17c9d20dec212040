"""The work behind the Celery tasks: detection, conversion, preview and validation of a session's
files.

Runs in workers (the embedded thread or `celery worker` processes), which import neuroconv once. A
job reads and writes files through conversions/nwb and changes no row itself: it claims its row,
reports progress and outcome through conversions/services (attempts.py, sessions.py), which make
a redelivered or duplicated job do nothing.
"""

from __future__ import annotations

import logging
import threading
import time
import traceback
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings
from django.db import connection

from conversions.models import ConversionAttempt, ConversionSession, LlmCall
from conversions.nwb.errors import AmbiguousRecording, ConversionCancelled, ConversionFailed, RecordingProblem
from conversions.orchestrator.state import DetectionFailed, FormatAmbiguous, FormatOption, IssueSummary, Status
from conversions.realtime import notify
from conversions.services import attempts, sessions

if TYPE_CHECKING:
    from conversions.nwb.validation import InspectionIssue

logger = logging.getLogger(__name__)

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
        attempts.store_progress(self.attempt_id, self.run, percent)
        notify.publish(
            self.session_id,
            notify.progress_event("converting", round(percent, 1), self.number),
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
            return not attempts.holds(self.attempt_id, self.run)
        except attempts.DATABASE_DOWN:
            attempts.reconnect_later("checking on attempt %s", self.attempt_id)
            return False


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
                attempts.mark_alive(self.attempt_id, self.run)
        finally:
            connection.close()  # this thread's own


def convert_attempt(attempt_id: int, *, worker: str = "") -> None:
    attempt = attempts.claim_attempt(attempt_id, worker)
    if attempt is None:
        return
    with _Heartbeat(attempt_id, attempt.deliveries):
        _convert_claimed(attempt)


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
    attempts.note_output(attempt_id, output)
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
        if not attempts.taken_over(attempt_id, run):
            temporary_path_for(output).unlink(missing_ok=True)
        return
    except (ConversionFailed, RecordingProblem) as exc:
        attempts.fail_attempt(attempt, exc.user_message, exc.detail)
        return
    except SoftTimeLimitExceeded:
        temporary_path_for(output).unlink(missing_ok=True)
        # Not the data's fault as far as anyone can tell (a loaded machine, a slow disk): run again.
        if not attempts.run_again(attempt, "it took longer than the portal's time limit"):
            attempts.fail_attempt(
                attempt,
                "the conversion took longer than the portal's time limit, every time it ran.",
                "soft time limit exceeded",
            )
        return
    except Exception:
        logger.exception("conversion crashed for attempt %s", attempt_id)
        temporary_path_for(output).unlink(missing_ok=True)
        attempts.fail_attempt(attempt, UNEXPECTED, traceback.format_exc())
        return
    fixes = [fix.to_json() for fix in result.applied_fixes]
    if not attempts.record_success(attempt, run, size_bytes=result.size_bytes, fixes=fixes):
        # Cancelled between the last progress report and the end: the file is not wanted. (Taken
        # over by a later run, the file is that run's to write.)
        if not attempts.succeeded(attempt_id) and not attempts.taken_over(attempt_id, run):
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

    preview = attempts.claim_preview(preview_id, lambda p: sessions.preview_output_path(p.session, p))
    if preview is None:
        return
    session = preview.session
    output = Path(preview.output_path)
    detection = Detection.from_json(session.detection or {})

    try:
        result = convert_recording(
            source_root=session.source_directory,
            detection=detection,
            stream_ids=preview.streams,
            metadata=preview.metadata,
            timezone=session.timezone,
            output_path=output,
            should_stop=lambda: not attempts.preview_wanted(preview_id),
            stub=True,
        )
        summary = describe_nwb(output)
    except ConversionCancelled:
        temporary_path_for(output).unlink(missing_ok=True)
        return
    except (ConversionFailed, RecordingProblem) as exc:
        attempts.fail_preview(preview, exc.user_message, exc.detail)
        return
    except Exception:
        logger.exception("preview crashed for preview %s", preview_id)
        temporary_path_for(output).unlink(missing_ok=True)
        attempts.fail_preview(preview, UNEXPECTED, traceback.format_exc())
        return
    full_duration = max((detection.stream(s).duration_s for s in result.streams), default=None)
    words = describe_in_words(summary, full_duration_s=full_duration)
    if not attempts.record_preview(preview, size_bytes=result.size_bytes, summary=summary, words=words):
        Path(output).unlink(missing_ok=True)


def validate_attempt(attempt_id: int) -> None:
    """A validation left to the queue: after a restart, or when the conversion's own worker stopped
    before validating (the conversion job normally validates its file itself)."""
    if attempts.claim_validation(attempt_id):
        with _Heartbeat(attempt_id):
            _validate_claimed(attempt_id)


def _validate_claimed(attempt_id: int) -> None:
    from conversions.nwb.dandi_validation import check_nwb
    from conversions.nwb.validation import InspectionIssue, explain, fields_for, fields_to_ask, outcome_of

    attempt = ConversionAttempt.objects.get(id=attempt_id)
    notify.publish(attempt.session_id, notify.progress_event("validating", 0.0, attempt.number))
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

    attempts.store_validation(attempt, issues, summaries, outcome.value)
    notify.publish(attempt.session_id, notify.progress_event("validating", 100.0, attempt.number))
    attempts.report_validation(attempt, summaries, outcome.value)


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
        attempts.record_llm_call(call, result)
    except Exception as exc:
        logger.exception("phrasing the issues of attempt %s failed", attempt.id)
        if call is not None:
            attempts.record_llm_error(call, exc)
        return summaries
    return tuple(
        summary.model_copy(update={"explanation": text})
        for summary, text in zip(summaries, result.explanations, strict=True)
    )

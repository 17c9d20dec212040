"""The orchestrator as a table: every status (and `awaiting`) meets every event, without a database.

Each row of `TABLE` names an event and says, for every session state in `VIEWS`, what
`policy.handle` must do: refuse it, or move to which status/awaiting with which actions. The
specification is seed 000 and docs/design/orchestrator.md; rows where the policy disagrees are
marked xfail(strict) with the reason, so they turn into failures once the two agree. Invariants
that must hold for every pair (a refused step changes nothing, stale job events are refused,
running statuses come with their job, every reply says something) are checked over the whole table.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import pytest

from conversions.language.rules import parse_message
from conversions.orchestrator import policy
from conversions.orchestrator.state import (
    RUNNING_STATUSES,
    Awaiting,
    CancelJobs,
    ConversionFailed,
    ConversionSucceeded,
    DetectFormat,
    DetectionFailed,
    Event,
    FieldValue,
    FilesChanged,
    FormatAmbiguous,
    FormatDetected,
    FormatOption,
    IssueSummary,
    JobLost,
    JobRetrying,
    Memory,
    PreviewFailed,
    PreviewReady,
    RecordingSummary,
    SessionIdle,
    SessionView,
    Source,
    StartConversion,
    StartValidation,
    Status,
    Step,
    UserAction,
    UserActionName,
    UserMessage,
    ValidationCompleted,
)
from tests.orchestrator.test_policy import RECORDING

# --- what sessions look like ----------------------------------------------------------------------

CANDIDATES = [
    FormatOption(key="spikeglx", label="SpikeGLX"),
    FormatOption(key="openephys_binary", label="Open Ephys binary"),
]
SUBJECT_FIELDS = ["subject_id", "species", "sex", "age"]
CRITICAL_FIELDS = ["experimenter", "institution", "experiment_description"]
SUBJECT_ISSUE = IssueSummary(
    check_name="check_subject_exists",
    importance="CRITICAL",
    explanation="The file has no subject.",
    location="/",
    fields=tuple(SUBJECT_FIELDS),
)
KEYWORDS_ISSUE = IssueSummary(
    check_name="check_keywords",
    importance="BEST_PRACTICE_SUGGESTION",
    explanation="The file has no keywords.",
    location="/",
    fields=("keywords",),
)


def _values(source: Source, **values: Any) -> dict[str, FieldValue]:
    return {name: FieldValue(value=value, source=source) for name, value in values.items()}


FROM_FILES = _values(Source.FILE, session_start_time="2024-03-15T14:30:00", device="Neuropixels 1.0 probe")
CRITICAL = _values(
    Source.USER, experimenter=["Smith, Jane"], institution="MIT", experiment_description="V1 during gratings"
)
SUBJECT = _values(Source.USER, subject_id="mouse001", species="Mus musculus", sex="F", age="P90D")
EVERYTHING = {**FROM_FILES, **CRITICAL, **SUBJECT}
NO_SUBJECT = {**FROM_FILES, **CRITICAL}


def _view(
    status: Status,
    awaiting: Awaiting | None = None,
    *,
    metadata: dict[str, FieldValue] | None = None,
    recording: RecordingSummary | None = RECORDING,
    **memory: Any,
) -> SessionView:
    defaults: dict[str, Any] = {"files_version": 1, "metadata_requests": 1, "turns": 2}
    if recording is not None:
        defaults.update(selected_streams=list(recording.default_streams), previews=1)
    return SessionView(
        status=status,
        awaiting=awaiting,
        memory=Memory(**{**defaults, **memory}),
        metadata=EVERYTHING if metadata is None else metadata,
        recording=recording,
        timezone="Europe/Paris",
    )


_SKIPPED_SUBJECT: dict[str, Any] = {
    "metadata": NO_SUBJECT,
    "declined": SUBJECT_FIELDS,
    "previous_issue_keys": [SUBJECT_ISSUE.key],
}

VIEWS: dict[str, SessionView] = {
    "idle-new": _view(Status.IDLE, recording=None, metadata={}, files_version=0, metadata_requests=0, turns=0),
    "idle-unreadable-files": _view(Status.IDLE, recording=None, metadata={}, metadata_requests=0),
    "detecting": _view(Status.DETECTING_FORMAT, recording=None, metadata={}, metadata_requests=0),
    "format-selection": _view(
        Status.AWAITING_USER_INPUT,
        Awaiting.FORMAT_SELECTION,
        recording=None,
        metadata={},
        metadata_requests=0,
        format_candidates=CANDIDATES,
    ),
    "required-metadata": _view(
        Status.AWAITING_USER_INPUT,
        Awaiting.REQUIRED_METADATA,
        metadata=FROM_FILES,
        asking_for=CRITICAL_FIELDS + SUBJECT_FIELDS,
    ),
    "approval": _view(Status.AWAITING_APPROVAL, Awaiting.APPROVAL),
    "converting": _view(Status.CONVERTING, attempts=1),
    "validating": _view(Status.VALIDATING, attempts=1),
    "validating-3rd-same-issues": _view(Status.VALIDATING, attempts=3, **_SKIPPED_SUBJECT),
    "correction": _view(
        Status.AWAITING_USER_INPUT, Awaiting.CORRECTION, attempts=1, asking_for=SUBJECT_FIELDS, **_SKIPPED_SUBJECT
    ),
    "no-progress": _view(
        Status.AWAITING_USER_INPUT,
        Awaiting.NO_PROGRESS_DECISION,
        attempts=3,
        asking_for=SUBJECT_FIELDS,
        **_SKIPPED_SUBJECT,
    ),
    "completed": _view(Status.COMPLETED, attempts=1),
    "completed-with-issues": _view(
        Status.COMPLETED_WITH_ISSUES, attempts=1, metadata=NO_SUBJECT, declined=SUBJECT_FIELDS
    ),
    "failed": _view(Status.FAILED, attempts=1),
    "cancelled": _view(Status.CANCELLED, attempts=1),
}

# --- what can happen to them ----------------------------------------------------------------------


def _says(text: str) -> Callable[[SessionView], Event]:
    return lambda view: UserMessage(text=text, parsed=parse_message(text, asking_for=view.memory.asking_for))


def _presses(action: str, value: Any = None) -> Callable[[SessionView], Event]:
    return lambda view: UserAction(action=action, value=value)  # type: ignore[arg-type]


# A job's own number: the current one, and a wrong one (an earlier run, or one never started).
def _attempt(view: SessionView) -> int:
    return view.memory.attempts or 1


def _preview(view: SessionView) -> int:
    return view.memory.previews or 1


EVENTS: dict[str, Callable[[SessionView], Event]] = {
    "files-added": lambda view: FilesChanged(added=2, total=2),
    "last-file-removed": lambda view: FilesChanged(removed=1, total=0),
    "format-detected": lambda view: FormatDetected(
        files_version=view.memory.files_version,
        recording=RECORDING,
        file_metadata={"session_start_time": "2024-03-15T14:30:00"},
    ),
    "format-detected-stale": lambda view: FormatDetected(
        files_version=view.memory.files_version - 1, recording=RECORDING
    ),
    "format-ambiguous": lambda view: FormatAmbiguous(
        files_version=view.memory.files_version,
        candidates=tuple(CANDIDATES),
        user_message="These files hold recordings in more than one format.",
    ),
    "format-ambiguous-stale": lambda view: FormatAmbiguous(
        files_version=view.memory.files_version - 1, candidates=tuple(CANDIDATES), user_message="Two formats."
    ),
    "detection-failed": lambda view: DetectionFailed(
        files_version=view.memory.files_version, user_message="notes.txt is not a recording I know."
    ),
    "detection-failed-stale": lambda view: DetectionFailed(
        files_version=view.memory.files_version - 1, user_message="notes.txt is not a recording I know."
    ),
    "says-metadata": _says("institution: University of Oslo"),
    "says-approve": _says("go ahead"),
    "says-cancel": _says("cancel"),
    "says-status": _says("what's the status?"),
    "says-help": _says("help"),
    "says-hello": _says("Hi, I'd like to convert my data"),
    "says-hello-naming-a-format": _says("Hi! I'd like to convert my SpikeGLX recording."),
    "says-preview": _says("preview"),
    "says-stream-choice": _says("only the AP band"),
    "says-accept-as-is": _says("accept as is"),
    "says-retry": _says("retry"),
    "says-skip-all": _says("skip all the questions"),
    "says-frustrated": _says("This keeps failing!"),
    "says-ask-an-expert": _says("ask an expert"),
    "says-nothing": _says("   "),
    "action-approve": _presses("approve"),
    "action-reject": _presses("reject"),
    "action-accept-as-is": _presses("accept_as_is"),
    "action-cancel": _presses("cancel"),
    "action-retry": _presses("retry"),
    "action-select-format": _presses("select_format", "spikeglx"),
    "action-select-streams": _presses("select_streams", ["imec0.lf"]),
    "action-preview": _presses("preview"),
    "action-request-help": _presses("request_help"),
    "conversion-succeeded": lambda view: ConversionSucceeded(attempt=_attempt(view), size_bytes=15_000_000_000),
    "conversion-succeeded-stale": lambda view: ConversionSucceeded(
        attempt=view.memory.attempts - 1, size_bytes=15_000_000_000
    ),
    "conversion-failed": lambda view: ConversionFailed(attempt=_attempt(view), user_message="the .bin ended early."),
    "conversion-failed-stale": lambda view: ConversionFailed(
        attempt=view.memory.attempts - 1, user_message="the .bin ended early."
    ),
    "validation-passed": lambda view: ValidationCompleted(attempt=_attempt(view), outcome="passed", issues=()),
    "validation-passed-with-issues": lambda view: ValidationCompleted(
        attempt=_attempt(view), outcome="passed_with_issues", issues=(KEYWORDS_ISSUE,)
    ),
    "validation-failed": lambda view: ValidationCompleted(
        attempt=_attempt(view), outcome="failed", issues=(SUBJECT_ISSUE,)
    ),
    "validation-failed-stale": lambda view: ValidationCompleted(
        attempt=view.memory.attempts - 1, outcome="failed", issues=(SUBJECT_ISSUE,)
    ),
    "job-lost": lambda view: JobLost(attempt=_attempt(view)),
    "job-lost-stale": lambda view: JobLost(attempt=view.memory.attempts - 1),
    "job-retrying": lambda view: JobRetrying(
        attempt=_attempt(view), reason="its worker stopped", delay_s=30, run=2, runs=3
    ),
    "job-retrying-stale": lambda view: JobRetrying(
        attempt=view.memory.attempts - 1, reason="its worker stopped", delay_s=30, run=2, runs=3
    ),
    "session-idle": lambda view: SessionIdle(hours=48),
    "preview-ready": lambda view: PreviewReady(
        number=_preview(view), summary={"streams": 1}, words="One stream, 2 s.", size_bytes=4_000_000
    ),
    "preview-ready-stale": lambda view: PreviewReady(
        number=view.memory.previews - 1, summary={}, words="One stream, 2 s.", size_bytes=4_000_000
    ),
    "preview-failed": lambda view: PreviewFailed(number=_preview(view), user_message="the probe table is odd."),
    "preview-failed-stale": lambda view: PreviewFailed(
        number=view.memory.previews - 1, user_message="the probe table is odd."
    ),
}
STALE = [name for name in EVENTS if name.endswith("-stale")]

# --- what must come of it -------------------------------------------------------------------------

_UNCHANGED = "unchanged"


@dataclass(frozen=True)
class Outcome:
    refused: bool = False
    status: Status | None = None  # None: the status stays
    awaiting: Awaiting | str | None = _UNCHANGED
    actions: tuple[str, ...] = ()

    def __str__(self) -> str:
        if self.refused:
            return "refused"
        where = "stays" if self.status is None else f"{self.status}/{self.awaiting}"
        return where + "".join(f" +{a}" for a in self.actions)


REFUSED = Outcome(refused=True)
STAYS = Outcome()


def stays(*actions: str) -> Outcome:
    return Outcome(actions=actions)


def to(status: Status, awaiting: Awaiting | None = None, *actions: str) -> Outcome:
    return Outcome(status=status, awaiting=awaiting, actions=actions)


DETECTS = to(Status.DETECTING_FORMAT, None, "detect_format")
ASKS = to(Status.AWAITING_USER_INPUT, Awaiting.REQUIRED_METADATA)
PLAN = to(Status.AWAITING_APPROVAL, Awaiting.APPROVAL)
CONVERTS = to(Status.CONVERTING, None, "start_conversion")
CANCELS = to(Status.CANCELLED, None, "cancel_jobs")
ACCEPTED = to(Status.COMPLETED_WITH_ISSUES)
CORRECTION = to(Status.AWAITING_USER_INPUT, Awaiting.CORRECTION)

NO_RECORDING = ("idle-new", "idle-unreadable-files", "detecting", "format-selection")
CONVERTING_OR_VALIDATING = ("converting", "validating", "validating-3rd-same-issues")
DECIDING = ("correction", "no-progress")
AGAIN = ("completed-with-issues", "failed", "cancelled")  # "go ahead" or retry → the metadata step
WAITING = ("format-selection", "required-metadata", "approval", "correction", "no-progress")


def row(default: Outcome, **by_view: Outcome) -> dict[str, Outcome]:
    """`default` for every view, except those named (with `_` for `-`)."""
    named = {name.replace("_", "-"): outcome for name, outcome in by_view.items()}
    unknown = set(named) - set(VIEWS)
    assert not unknown, unknown
    return {name: named.get(name, default) for name in VIEWS}


def each(names: tuple[str, ...], outcome: Outcome) -> dict[str, Outcome]:
    return {name.replace("-", "_"): outcome for name in names}


CANCEL_ROW = row(CANCELS, completed=REFUSED, completed_with_issues=REFUSED, cancelled=REFUSED)
PREVIEW_ROW = row(stays("start_preview"), **each(NO_RECORDING, REFUSED), **each(CONVERTING_OR_VALIDATING, REFUSED))
RETRY_BY_WORDS = row(STAYS, **each(DECIDING, CONVERTS), **each(("completed", *AGAIN), PLAN))

TABLE: dict[str, dict[str, Outcome]] = {
    # Files may change in every status except while a conversion or its validation runs.
    "files-added": row(DETECTS, **each(CONVERTING_OR_VALIDATING, REFUSED)),
    "last-file-removed": row(to(Status.IDLE), **each(CONVERTING_OR_VALIDATING, REFUSED)),
    # A detection only counts while detecting the current files.
    "format-detected": row(REFUSED, detecting=ASKS),
    "format-detected-stale": row(REFUSED),
    "format-ambiguous": row(REFUSED, detecting=to(Status.AWAITING_USER_INPUT, Awaiting.FORMAT_SELECTION)),
    "format-ambiguous-stale": row(REFUSED),
    "detection-failed": row(REFUSED, detecting=to(Status.IDLE)),
    "detection-failed-stale": row(REFUSED),
    # A value is stored everywhere; it moves the conversation on where details are awaited.
    "says-metadata": row(STAYS, required_metadata=ASKS, approval=PLAN, **each(DECIDING, CONVERTS)),
    "says-approve": row(
        STAYS, required_metadata=CONVERTS, approval=CONVERTS, **each(DECIDING, CONVERTS), **each(AGAIN, PLAN)
    ),
    "says-cancel": CANCEL_ROW,
    "says-status": row(STAYS),
    "says-help": row(STAYS),
    # A greeting is answered with where things stand; at the format question, a format it names is the choice.
    "says-hello": row(STAYS),
    "says-hello-naming-a-format": row(STAYS, format_selection=DETECTS),
    "says-preview": PREVIEW_ROW,
    "says-stream-choice": row(
        PLAN, **each(NO_RECORDING, STAYS), required_metadata=ASKS, **each(CONVERTING_OR_VALIDATING, REFUSED)
    ),
    "says-accept-as-is": row(STAYS, **each(DECIDING, ACCEPTED)),
    "says-retry": RETRY_BY_WORDS,
    "says-skip-all": row(STAYS, required_metadata=CONVERTS, approval=CONVERTS),
    "says-frustrated": row(STAYS),
    "says-ask-an-expert": row(stays("flag_for_review")),
    "says-nothing": row(REFUSED),
    "action-approve": row(REFUSED, approval=CONVERTS),
    "action-reject": row(REFUSED, approval=STAYS),
    "action-accept-as-is": row(REFUSED, **each(DECIDING, ACCEPTED)),
    "action-cancel": CANCEL_ROW,
    "action-retry": row(REFUSED, **each(DECIDING, CONVERTS), **each(("completed", *AGAIN), PLAN)),
    # Design note: select_format "is accepted only while awaiting is format_selection".
    # Named explicitly, a format is read whenever files are there and no job runs (design note).
    "action-select-format": row(
        REFUSED,
        format_selection=DETECTS,
        idle_unreadable_files=DETECTS,
        required_metadata=DETECTS,
        approval=DETECTS,
        correction=DETECTS,
        no_progress=DETECTS,
        completed=DETECTS,
        completed_with_issues=DETECTS,
        failed=DETECTS,
        cancelled=DETECTS,
    ),
    "action-select-streams": row(
        PLAN, **each(NO_RECORDING, REFUSED), required_metadata=ASKS, **each(CONVERTING_OR_VALIDATING, REFUSED)
    ),
    "action-preview": PREVIEW_ROW,
    "action-request-help": row(stays("flag_for_review")),
    # Job outcomes apply only in their status and for the current attempt.
    "conversion-succeeded": row(REFUSED, converting=to(Status.VALIDATING, None, "start_validation")),
    "conversion-succeeded-stale": row(REFUSED),
    "conversion-failed": row(REFUSED, converting=to(Status.FAILED)),
    "conversion-failed-stale": row(REFUSED),
    "validation-passed": row(REFUSED, validating=to(Status.COMPLETED), validating_3rd_same_issues=to(Status.COMPLETED)),
    "validation-passed-with-issues": row(REFUSED, validating=CORRECTION, validating_3rd_same_issues=CORRECTION),
    "validation-failed": row(
        REFUSED,
        validating=CORRECTION,
        validating_3rd_same_issues=to(Status.AWAITING_USER_INPUT, Awaiting.NO_PROGRESS_DECISION, "flag_for_review"),
    ),
    "validation-failed-stale": row(REFUSED),
    "job-lost": row(REFUSED, converting=to(Status.FAILED, None, "flag_for_review")),
    "job-lost-stale": row(REFUSED),
    "job-retrying": row(REFUSED, converting=STAYS),
    "job-retrying-stale": row(REFUSED),
    "session-idle": row(REFUSED, **each(WAITING, to(Status.CANCELLED))),
    "preview-ready": row(STAYS, **each(NO_RECORDING, REFUSED)),
    "preview-ready-stale": row(REFUSED),
    "preview-failed": row(STAYS, **each(NO_RECORDING, REFUSED)),
    "preview-failed-stale": row(REFUSED),
}

XFAIL: dict[tuple[str, str], str] = {}


# --- running the table ----------------------------------------------------------------------------


@cache
def outcome_of(view_name: str, event_name: str) -> tuple[SessionView, Event, Step]:
    view = VIEWS[view_name]
    event = EVENTS[event_name](view)
    return view, event, policy.handle(view, event)


def _pairs(events: list[str] | None = None, *, xfail: dict[tuple[str, str], str] | None = None) -> list[Any]:
    marks = XFAIL if xfail is None else xfail
    return [
        pytest.param(
            view,
            event,
            id=f"{view}--{event}",
            marks=[pytest.mark.xfail(strict=True, reason=marks[(view, event)])] if (view, event) in marks else [],
        )
        for event in (events or list(EVENTS))
        for view in VIEWS
    ]


def _kinds(step: Step) -> tuple[str, ...]:
    return tuple(sorted(action.kind for action in step.actions))


def _seen(view: SessionView, step: Step) -> Outcome:
    if step.refused:
        return REFUSED
    return _normal(view, Outcome(status=step.status, awaiting=step.awaiting, actions=_kinds(step)))


def _normal(view: SessionView, outcome: Outcome) -> Outcome:
    """Moving to the status the session is already in is staying; actions in a fixed order."""
    actions = tuple(sorted(outcome.actions))
    if outcome.refused or outcome.status is None or (outcome.status, outcome.awaiting) == (view.status, view.awaiting):
        return Outcome(refused=outcome.refused, actions=actions)
    return Outcome(status=outcome.status, awaiting=outcome.awaiting, actions=actions)


@pytest.mark.parametrize(("view_name", "event_name"), _pairs())
def test_the_table(view_name: str, event_name: str) -> None:
    view, _, step = outcome_of(view_name, event_name)
    expected = _normal(view, TABLE[event_name][view_name])
    assert str(_seen(view, step)) == str(expected), [r.text for r in step.replies]


def test_no_pair_raises() -> None:
    for view_name in VIEWS:
        for event_name in EVENTS:
            outcome_of(view_name, event_name)


def test_the_table_covers_every_event_action_status_and_awaiting() -> None:
    sampled = {type(factory(VIEWS["approval"])) for factory in EVENTS.values()}
    assert set(typing.get_args(Event)) <= sampled, "an event type has no row"
    actions = {
        event.action for factory in EVENTS.values() if isinstance(event := factory(VIEWS["approval"]), UserAction)
    }
    assert set(UserActionName) <= actions, "an action has no row"
    assert {view.status for view in VIEWS.values()} == set(Status)
    assert {view.awaiting for view in VIEWS.values()} == {*Awaiting, None}
    assert set(TABLE) == set(EVENTS) and all(set(cells) == set(VIEWS) for cells in TABLE.values())


# --- invariants over the whole table --------------------------------------------------------------


def _refused_pairs() -> list[Any]:
    refused = [(view, event) for event in EVENTS for view in VIEWS if outcome_of(view, event)[2].refused]
    return [param for param in _pairs(xfail={}) if tuple(param.values) in refused]


@pytest.mark.parametrize(("view_name", "event_name"), _refused_pairs())
def test_a_refused_step_changes_nothing(view_name: str, event_name: str) -> None:
    view, _, step = outcome_of(view_name, event_name)
    assert (step.status, step.awaiting) == (view.status, view.awaiting)
    assert step.memory == view.memory
    assert step.metadata_updates == {} and step.actions == ()


@pytest.mark.parametrize(("view_name", "event_name"), _pairs(STALE))
def test_a_stale_job_event_is_refused(view_name: str, event_name: str) -> None:
    assert outcome_of(view_name, event_name)[2].refused


@pytest.mark.parametrize(("view_name", "event_name"), _pairs(xfail={}))
def test_a_running_status_comes_with_its_job(view_name: str, event_name: str) -> None:
    view, event, step = outcome_of(view_name, event_name)
    if step.refused:
        return
    started = {type(action) for action in step.actions}
    if step.status == Status.DETECTING_FORMAT and (view.status != step.status or isinstance(event, FilesChanged)):
        (detect,) = [a for a in step.actions if isinstance(a, DetectFormat)]
        assert detect.files_version == step.memory.files_version
    if step.status == Status.CONVERTING and view.status != Status.CONVERTING:
        (start,) = [a for a in step.actions if isinstance(a, StartConversion)]
        assert start.attempt == view.memory.attempts + 1 == step.memory.attempts
    if step.status == Status.VALIDATING and view.status != Status.VALIDATING:
        (validate,) = [a for a in step.actions if isinstance(a, StartValidation)]
        assert validate.attempt == view.memory.attempts
    # And the other way round: a job is only started by entering its status.
    for action, status in ((DetectFormat, Status.DETECTING_FORMAT), (StartConversion, Status.CONVERTING)):
        if action in started:
            assert step.status == status
    if StartValidation in started:
        assert step.status == Status.VALIDATING
    if CancelJobs in started:
        assert step.status == Status.CANCELLED
    if step.status not in RUNNING_STATUSES:
        assert not started & {DetectFormat, StartConversion, StartValidation}


@pytest.mark.parametrize(("view_name", "event_name"), _pairs(xfail={}))
def test_every_reply_says_something(view_name: str, event_name: str) -> None:
    _, event, step = outcome_of(view_name, event_name)
    if not step.refused:
        assert step.replies and all(reply.text.strip() for reply in step.replies)
    elif isinstance(event, UserMessage | UserAction):
        assert step.replies and step.replies[0].text.strip(), "a refusal tells the user why"


@pytest.mark.parametrize("view_name", list(VIEWS))
def test_a_value_given_is_stored_in_every_state(view_name: str) -> None:
    _, _, step = outcome_of(view_name, "says-metadata")
    assert step.metadata_updates["institution"] == FieldValue(value="University of Oslo", source=Source.USER)

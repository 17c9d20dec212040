"""What the orchestrator knows about a session, and what it can be told and can ask for.

Pure data (pydantic), no Django: the services build a `SessionView` from the database, hand it an
event, and apply the `Step` that comes back.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from conversions.language.rules import ParsedMessage


class Status(StrEnum):
    IDLE = "idle"
    DETECTING_FORMAT = "detecting_format"
    AWAITING_USER_INPUT = "awaiting_user_input"
    AWAITING_APPROVAL = "awaiting_approval"
    CONVERTING = "converting"
    VALIDATING = "validating"
    COMPLETED = "completed"
    COMPLETED_WITH_ISSUES = "completed_with_issues"
    FAILED = "failed"
    CANCELLED = "cancelled"


RUNNING_STATUSES = frozenset({Status.DETECTING_FORMAT, Status.CONVERTING, Status.VALIDATING})


class Awaiting(StrEnum):
    FORMAT_SELECTION = "format_selection"
    REQUIRED_METADATA = "required_metadata"
    APPROVAL = "approval"
    CORRECTION = "correction"
    NO_PROGRESS_DECISION = "no_progress_decision"


class Source(StrEnum):
    USER = "user"
    FILE = "file"
    LAB_DEFAULT = "lab_default"
    LLM = "llm"
    AUTO_FIX = "auto_fix"


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FieldValue(Frozen):
    value: Any
    source: Source


class FormatOption(Frozen):
    key: str
    label: str


class Memory(BaseModel):
    """The orchestrator's own memory of the conversation, stored as the session's JSON state."""

    model_config = ConfigDict(extra="forbid")

    metadata_requests: int = 0
    # Bumped on every change of the files; a detection of an older set of files is ignored.
    files_version: int = 0
    # When the files can be read as several formats: the candidates, until the user picks one.
    format_candidates: list[FormatOption] = Field(default_factory=list)
    chosen_format: str | None = None
    declined: list[str] = Field(default_factory=list)
    minimal: bool = False
    one_by_one: bool = False
    asking_for: list[str] = Field(default_factory=list)
    selected_streams: list[str] = Field(default_factory=list)
    attempts: int = 0
    # Stub previews asked for so far; a preview that finishes after a newer one was asked is ignored.
    previews: int = 0
    previous_issue_keys: list[str] = Field(default_factory=list)
    turns: int = 0
    # Messages in a row the portal could not understand (seed 001's clarification counter).
    misunderstood: int = 0
    # The session's time zone was named by the user ("Tokyo time"), not taken from the lab.
    timezone_said: bool = False


class StreamSummary(Frozen):
    id: str
    label: str
    channel_count: int
    sampling_rate_hz: float
    duration_s: float
    size_bytes: int
    # The experiment/block the stream belongs to when one folder holds several ("" otherwise), and
    # "neural" for the recording proper, "auxiliary" for analog/digital inputs and sync channels,
    # "spikes" for units sorted or detected online.
    group: str = ""
    kind: str = "neural"


class RecordingSummary(Frozen):
    format: str
    format_label: str
    streams: tuple[StreamSummary, ...]
    default_streams: tuple[str, ...]
    file_count: int
    notes: tuple[str, ...] = ()
    # The stored detection (conversions.nwb.detection.Detection.to_json()), from which a choice of
    # streams is checked and its facts (start time, channels, ...) derived; empty in unit tests
    # that build a summary by hand.
    detection: dict[str, Any] = Field(default_factory=dict)


class IssueSummary(Frozen):
    check_name: str
    importance: str
    explanation: str
    location: str = ""
    # What the portal asks for to settle the issue.
    fields: tuple[str, ...] = ()
    # Fields a value of which would settle it though nothing is asked for (a best-practice
    # suggestion): the page links to them as it does to `fields`.
    links: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.check_name}@{self.location}"


class SessionView(Frozen):
    status: Status
    awaiting: Awaiting | None
    memory: Memory
    metadata: dict[str, FieldValue]
    recording: RecordingSummary | None
    timezone: str
    max_metadata_requests: int = 2
    # Guards (seeds 001/002): messages in a row not understood before the portal stops asking the
    # same way, and messages per session before it reads no more.
    max_clarifications: int = 3
    max_turns: int = 200
    # The lab's subject registry, for the subject ids this event names (casefolded id → species,
    # sex, date_of_birth, strain as stored); looked up by the services, empty when none is named.
    registry: dict[str, dict[str, str]] = {}


# Events: what happened. The services produce them from requests and from finished jobs.


class FilesChanged(Frozen):
    """Files were uploaded to, or removed from, the session; `total` remain."""

    kind: Literal["files_changed"] = "files_changed"
    added: int = 0
    removed: int = 0
    total: int


class FormatDetected(Frozen):
    kind: Literal["format_detected"] = "format_detected"
    files_version: int
    recording: RecordingSummary
    file_metadata: dict[str, Any] = Field(default_factory=dict)


class FormatAmbiguous(Frozen):
    """The files can be read as several formats; the user picks one."""

    kind: Literal["format_ambiguous"] = "format_ambiguous"
    files_version: int
    candidates: tuple[FormatOption, ...]
    user_message: str


class DetectionFailed(Frozen):
    kind: Literal["detection_failed"] = "detection_failed"
    files_version: int
    user_message: str


class UserMessage(Frozen):
    kind: Literal["user_message"] = "user_message"
    text: str
    parsed: ParsedMessage
    # Fields of `parsed` whose values the language model found (conversions.language.llm), not the
    # rules; they are stored with source "llm".
    llm_fields: frozenset[str] = frozenset()

    model_config = ConfigDict(frozen=True, extra="forbid", arbitrary_types_allowed=True)


# The API documents these in this order (conversions/api/schemas.py, ActionIn).
class UserActionName(StrEnum):
    """What a user can do to a session besides writing a message: the page's buttons, and the
    actions the API takes."""

    APPROVE = "approve"
    REJECT = "reject"
    ACCEPT_AS_IS = "accept_as_is"
    CANCEL = "cancel"
    RETRY = "retry"
    SELECT_FORMAT = "select_format"
    SELECT_STREAMS = "select_streams"
    PREVIEW = "preview"
    REQUEST_HELP = "request_help"


class UserAction(Frozen):
    kind: Literal["user_action"] = "user_action"
    action: UserActionName
    value: Any = None


class ConversionSucceeded(Frozen):
    kind: Literal["conversion_succeeded"] = "conversion_succeeded"
    attempt: int
    size_bytes: int
    # Form fixes the conversion applied from the files (e.g. a device's description from its
    # model): [{"field", "before", "after", "check_name", "reason"}].
    fixes: tuple[dict[str, Any], ...] = ()


class PreviewReady(Frozen):
    """A stub conversion finished: `summary` describes the file (conversions.nwb.preview)."""

    kind: Literal["preview_ready"] = "preview_ready"
    number: int
    summary: dict[str, Any]
    words: str
    size_bytes: int


class PreviewFailed(Frozen):
    kind: Literal["preview_failed"] = "preview_failed"
    number: int
    user_message: str


class ConversionFailed(Frozen):
    kind: Literal["conversion_failed"] = "conversion_failed"
    attempt: int
    user_message: str


class ValidationCompleted(Frozen):
    kind: Literal["validation_completed"] = "validation_completed"
    attempt: int
    outcome: Literal["passed", "passed_with_issues", "failed"]
    issues: tuple[IssueSummary, ...]


class JobRetrying(Frozen):
    """A job failed for a reason that was not the data's (its worker vanished, it hit the time
    limit) and runs again by itself after `delay_s`."""

    kind: Literal["job_retrying"] = "job_retrying"
    attempt: int
    reason: str
    delay_s: int
    run: int  # which run this will be (2 for the first retry)
    runs: int  # how many runs at most


class SessionIdle(Frozen):
    """Nobody answered the portal's question for `hours`: the session is closed, nothing lost."""

    kind: Literal["session_idle"] = "session_idle"
    hours: int


class JobLost(Frozen):
    """A worker vanished and the job could not be run again: a human should look."""

    kind: Literal["job_lost"] = "job_lost"
    attempt: int


Event = (
    FilesChanged
    | FormatDetected
    | FormatAmbiguous
    | DetectionFailed
    | UserMessage
    | UserAction
    | ConversionSucceeded
    | ConversionFailed
    | ValidationCompleted
    | JobLost
    | JobRetrying
    | SessionIdle
    | PreviewReady
    | PreviewFailed
)


# Actions: what the services must do after applying a step.


class DetectFormat(Frozen):
    kind: Literal["detect_format"] = "detect_format"
    files_version: int
    # The format the user chose among several candidates; None lets detection decide.
    format_key: str | None = None


class StartConversion(Frozen):
    kind: Literal["start_conversion"] = "start_conversion"
    attempt: int
    streams: tuple[str, ...]


class StartPreview(Frozen):
    """A seconds-long stub conversion of the chosen streams with the metadata as it stands."""

    kind: Literal["start_preview"] = "start_preview"
    number: int
    streams: tuple[str, ...]


class StartValidation(Frozen):
    kind: Literal["start_validation"] = "start_validation"
    attempt: int


class CancelJobs(Frozen):
    kind: Literal["cancel_jobs"] = "cancel_jobs"


class FlagForReview(Frozen):
    kind: Literal["flag_for_review"] = "flag_for_review"
    reason: str


Action = DetectFormat | StartConversion | StartPreview | StartValidation | CancelJobs | FlagForReview


class Reply(Frozen):
    text: str
    # "plan" and "issues" replies carry a structured card for the page; plain text stays readable.
    card: Literal["plan", "issues", "options", "formats", "preview", "fixes"] | None = None
    data: dict[str, Any] = Field(default_factory=dict)


class Step(Frozen):
    status: Status
    awaiting: Awaiting | None
    memory: Memory
    metadata_updates: dict[str, FieldValue] = Field(default_factory=dict)
    replies: tuple[Reply, ...] = ()
    actions: tuple[Action, ...] = ()
    # True when the event could not be applied in this state (e.g. "approve" with nothing to
    # approve): nothing changed, the reply says why.
    refused: bool = False
    # The session's new time zone (an IANA name), when the user named one.
    timezone: str | None = None

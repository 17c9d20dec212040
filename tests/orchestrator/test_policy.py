"""The conversation policy, driven as whole dialogues without a database (seed 002's scripted user)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from conversions.language.rules import parse_message
from conversions.nwb.detection import SUPPORTED_FORMATS
from conversions.nwb.fields import FIELDS
from conversions.orchestrator import policy
from conversions.orchestrator.state import (
    Awaiting,
    CancelJobs,
    ConversionFailed,
    ConversionSucceeded,
    DetectFormat,
    DetectionFailed,
    Event,
    FieldValue,
    FilesChanged,
    FlagForReview,
    FormatAmbiguous,
    FormatDetected,
    FormatOption,
    IssueSummary,
    Memory,
    RecordingSummary,
    SessionView,
    Source,
    StartConversion,
    StartValidation,
    Status,
    Step,
    StreamSummary,
    UserAction,
    UserMessage,
    ValidationCompleted,
)

RECORDING = RecordingSummary(
    format="spikeglx",
    format_label="SpikeGLX",
    streams=(
        StreamSummary(
            id="imec0.ap",
            label="probe imec0, AP band",
            channel_count=384,
            sampling_rate_hz=30000.0,
            duration_s=60.0,
            size_bytes=1_385_000_000,
        ),
        StreamSummary(
            id="imec0.lf",
            label="probe imec0, LF band",
            channel_count=384,
            sampling_rate_hz=2500.0,
            duration_s=60.0,
            size_bytes=115_000_000,
        ),
    ),
    default_streams=("imec0.ap", "imec0.lf"),
    file_count=4,
)
SUBJECT_ISSUE = IssueSummary(
    check_name="check_subject_exists",
    importance="CRITICAL",
    explanation="The file has no subject.",
    location="/",
    fields=("subject_id", "species", "sex", "age"),
)
KEYWORDS_ISSUE = IssueSummary(
    check_name="check_keywords",
    importance="BEST_PRACTICE_SUGGESTION",
    explanation="No keywords.",
    location="/",
    fields=("keywords",),
)


@dataclass
class Dialogue:
    """Applies steps the way the services do, so a test reads as a conversation."""

    view: SessionView = field(
        default_factory=lambda: SessionView(
            status=Status.IDLE, awaiting=None, memory=Memory(), metadata={}, recording=None, timezone="Europe/Paris"
        )
    )
    steps: list[Step] = field(default_factory=list)

    def send(self, event: Event) -> Step:
        step = policy.handle(self.view, event)
        self.steps.append(step)
        if not step.refused:
            self.view = self.view.model_copy(
                update={
                    "status": step.status,
                    "awaiting": step.awaiting,
                    "memory": step.memory,
                    "metadata": {**self.view.metadata, **step.metadata_updates},
                }
            )
        return step

    def say(self, text: str) -> Step:
        parsed = parse_message(text, asking_for=self.view.memory.asking_for)
        return self.send(UserMessage(text=text, parsed=parsed))

    def act(self, action: str) -> Step:
        return self.send(UserAction(action=action))  # type: ignore[arg-type]

    def detected(self, start: str | None = "2024-03-15T14:30:00") -> Step:
        self.send(FilesChanged(added=4, total=4))
        step = self.send(
            FormatDetected(
                files_version=self.view.memory.files_version,
                recording=RECORDING,
                file_metadata={"session_start_time": start} if start else {},
            )
        )
        self.view = self.view.model_copy(update={"recording": RECORDING})
        return step

    def value(self, name: str) -> Any:
        return self.view.metadata[name].value

    @property
    def text(self) -> str:
        return "\n".join(r.text for r in self.steps[-1].replies)


def actions(step: Step, kind: type) -> list[Any]:
    return [a for a in step.actions if isinstance(a, kind)]


def test_upload_starts_detection() -> None:
    d = Dialogue()
    step = d.send(FilesChanged(added=2, total=2))
    assert step.status == Status.DETECTING_FORMAT
    assert actions(step, DetectFormat)


def test_detection_asks_for_critical_fields_and_subject_in_one_request() -> None:
    d = Dialogue()
    step = d.detected()
    assert (step.status, step.awaiting) == (Status.AWAITING_USER_INPUT, Awaiting.REQUIRED_METADATA)
    assert step.memory.asking_for == [
        "experimenter",
        "institution",
        "experiment_description",
        "subject_id",
        "species",
        "sex",
        "age",
    ]
    assert step.memory.metadata_requests == 1
    assert step.metadata_updates["session_start_time"] == FieldValue(value="2024-03-15T14:30:00", source=Source.FILE)
    assert "SpikeGLX" in d.text


def test_happy_path_takes_two_user_messages() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("Dr. Jane Smith, MIT, recording mouse V1 neurons, mouse001, mouse, male, 90 days")
    assert (step.status, step.awaiting) == (Status.AWAITING_APPROVAL, Awaiting.APPROVAL)
    assert d.value("experimenter") == ["Smith, Jane"]
    assert d.value("species") == "Mus musculus"
    assert d.value("age") == "P90D"
    plan = step.replies[-1]
    assert plan.card == "plan"
    assert "Europe/Paris" in plan.text and "attempt 1" in plan.text
    assert plan.data["size_bytes"] == 1_500_000_000
    step = d.say("yes, go ahead")
    assert step.status == Status.CONVERTING
    assert actions(step, StartConversion) == [StartConversion(attempt=1, streams=("imec0.ap", "imec0.lf"))]


def test_fields_given_over_several_messages_ask_only_for_what_is_missing() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("experimenter: Jane Smith")
    assert step.awaiting == Awaiting.REQUIRED_METADATA
    # DANDI's subject fields stay asked until given or declined (the second and last request).
    assert step.memory.asking_for == ["institution", "experiment_description", "subject_id", "species", "sex", "age"]
    assert step.memory.metadata_requests == 2
    step = d.say("institution: MIT; description: V1 recording")
    assert step.awaiting == Awaiting.APPROVAL


def test_at_most_two_metadata_requests_then_the_plan() -> None:
    d = Dialogue()
    d.detected()
    d.say("experimenter: Jane Smith")
    step = d.say("sex: female")
    assert step.awaiting == Awaiting.APPROVAL, "a third request is never made"
    assert "institution" in step.replies[-1].data["missing"]


def test_skipped_fields_are_never_asked_again() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("Jane Smith, MIT, V1 recording. Skip the subject.")
    assert step.awaiting == Awaiting.APPROVAL
    assert {"subject_id", "species", "sex", "age"} <= set(step.memory.declined)


def test_minimal_mode_converts_without_questions() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("just convert it, skip all the questions")
    assert step.status == Status.CONVERTING
    assert step.memory.minimal


def test_one_by_one_asks_a_single_field_at_a_time() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("ask me one by one")
    assert step.memory.asking_for == ["experimenter"]
    step = d.say("Jane Smith")
    assert d.value("experimenter") == ["Smith, Jane"]
    assert step.memory.asking_for == ["institution"]
    step = d.say("MIT")
    assert d.value("institution") == "MIT"


def test_a_correction_replaces_the_earlier_value_and_shows_the_plan_again() -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    step = d.say("change the institution to Stanford")
    assert d.value("institution") == "Stanford"
    assert step.awaiting == Awaiting.APPROVAL and step.replies[-1].card == "plan"


def test_a_value_that_cannot_be_used_is_explained_and_not_stored() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("experimenter: Jane Smith; institution: MIT; description: V1; age: adult")
    assert "age" not in d.view.metadata
    assert any("adult" in r.text for r in step.replies)


def test_reject_keeps_the_plan_waiting() -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    step = d.act("reject")
    assert step.awaiting == Awaiting.APPROVAL and not step.actions


def test_approve_with_nothing_to_approve_is_refused() -> None:
    d = Dialogue()
    step = d.act("approve")
    assert step.refused and step.replies[0].text


@pytest.mark.parametrize("words", ["cancel", "abort", "stop the conversion"])
def test_cancel_by_words_while_converting(words: str) -> None:
    d = Dialogue()
    d.detected()
    d.say("just convert it")
    step = d.say(words)
    assert step.status == Status.CANCELLED
    assert actions(step, CancelJobs)


def test_cancel_then_retry_starts_over_with_what_was_given() -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    d.act("cancel")
    step = d.act("retry")
    assert step.awaiting == Awaiting.APPROVAL
    assert d.value("institution") == "MIT"


def test_conversion_success_starts_validation() -> None:
    d = Dialogue()
    d.detected()
    d.say("just convert it")
    step = d.send(ConversionSucceeded(attempt=1, size_bytes=10_000_000))
    assert step.status == Status.VALIDATING
    assert actions(step, StartValidation) == [StartValidation(attempt=1)]


def test_outcome_of_an_old_attempt_is_ignored() -> None:
    d = Dialogue()
    d.detected()
    d.say("just convert it")
    d.act("cancel")
    assert d.send(ConversionSucceeded(attempt=1, size_bytes=1)).refused


def _converted(d: Dialogue) -> None:
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    d.act("approve")
    d.send(ConversionSucceeded(attempt=d.view.memory.attempts, size_bytes=1))


def test_validation_passed_completes() -> None:
    d = Dialogue()
    _converted(d)
    step = d.send(ValidationCompleted(attempt=1, outcome="passed", issues=()))
    assert step.status == Status.COMPLETED


def test_passed_with_issues_asks_fix_or_accept_and_accept_completes_with_issues() -> None:
    d = Dialogue()
    _converted(d)
    step = d.send(ValidationCompleted(attempt=1, outcome="passed_with_issues", issues=(KEYWORDS_ISSUE,)))
    assert step.awaiting == Awaiting.CORRECTION
    assert "accept" in d.text
    step = d.say("accept as is")
    assert step.status == Status.COMPLETED_WITH_ISSUES


def test_failed_validation_asks_for_the_missing_fields_then_reconverts_as_attempt_two() -> None:
    d = Dialogue()
    _converted(d)
    step = d.send(ValidationCompleted(attempt=1, outcome="failed", issues=(SUBJECT_ISSUE,)))
    assert step.awaiting == Awaiting.CORRECTION
    assert step.replies[0].card == "issues"
    assert "subject id" in d.text and "skipped" in d.text
    step = d.say("subject mouse001, Mus musculus, female, P60D")
    assert step.status == Status.CONVERTING
    assert actions(step, StartConversion)[0].attempt == 2
    assert d.value("sex") == "F"


def test_identical_issues_from_attempt_three_offer_three_ways_out() -> None:
    d = Dialogue()
    _converted(d)
    d.send(ValidationCompleted(attempt=1, outcome="failed", issues=(SUBJECT_ISSUE,)))
    for attempt in (2, 3):
        d.act("retry")
        d.send(ConversionSucceeded(attempt=attempt, size_bytes=1))
        step = d.send(ValidationCompleted(attempt=attempt, outcome="failed", issues=(SUBJECT_ISSUE,)))
    assert step.awaiting == Awaiting.NO_PROGRESS_DECISION
    assert actions(step, FlagForReview)
    assert "accept" in d.text and "expert" in d.text
    assert d.act("accept_as_is").status == Status.COMPLETED_WITH_ISSUES


def test_conversion_failure_is_explained_with_ways_forward() -> None:
    d = Dialogue()
    d.detected()
    d.say("just convert it")
    step = d.send(ConversionFailed(attempt=1, user_message="the .bin file ended early."))
    assert step.status == Status.FAILED
    assert "ended early" in d.text and "retry" in d.text
    assert d.act("retry").awaiting in (Awaiting.APPROVAL, None)


def test_detection_failure_leaves_the_session_usable() -> None:
    d = Dialogue()
    d.send(FilesChanged(added=1, total=1))
    step = d.send(
        DetectionFailed(files_version=d.view.memory.files_version, user_message="notes.txt is not a recording I know.")
    )
    assert step.status == Status.IDLE
    assert d.send(FilesChanged(added=2, total=2)).status == Status.DETECTING_FORMAT


@pytest.mark.parametrize("text", ["", "   "])
def test_empty_message_is_refused_with_help(text: str) -> None:
    d = Dialogue()
    d.detected()
    step = d.say(text)
    assert step.refused and "empty" in step.replies[0].text


@pytest.mark.parametrize("text", ["where are we?", "status"])
def test_status_question_changes_nothing(text: str) -> None:
    d = Dialogue()
    d.detected()
    before = d.view
    step = d.say(text)
    assert (step.status, step.awaiting) == (before.status, before.awaiting)
    assert step.replies


def test_help_says_what_is_needed_now() -> None:
    d = Dialogue()
    d.detected()
    d.say("help")
    assert "experimenter" in d.text


def test_a_greeting_before_any_upload_says_what_to_upload_for_every_format() -> None:
    d = Dialogue()
    step = d.say("Hi, I'd like to convert my data")
    assert (step.status, step.awaiting, step.actions, step.refused) == (Status.IDLE, None, (), False)
    assert "Upload the recording to begin" in d.text and "didn't understand" not in d.text
    for supported in SUPPORTED_FORMATS.values():
        assert f"• {supported.label}: {supported.needs}" in d.text


def test_a_greeting_that_names_a_format_says_what_that_format_needs() -> None:
    d = Dialogue()
    d.say("Hello! I want to convert my Open Ephys recordings")
    listed = [f.label for f in SUPPORTED_FORMATS.values() if f"• {f.label}:" in d.text]
    assert listed == ["Open Ephys binary", "Open Ephys (legacy format)"]


def test_a_greeting_while_details_are_asked_says_which_and_starts_nothing() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("I'd like to convert my data")
    assert (step.status, step.awaiting, step.actions) == (Status.AWAITING_USER_INPUT, Awaiting.REQUIRED_METADATA, ())
    assert not step.memory.minimal, "wishing to convert is not “just convert it”"
    assert "experimenter, institution, experiment description" in d.text


@pytest.mark.parametrize("text", ["hello", "how do I start?", "Good morning!"])
def test_a_greeting_at_the_plan_says_it_waits_for_approval(text: str) -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    step = d.say(text)
    assert (step.status, step.awaiting, step.actions) == (Status.AWAITING_APPROVAL, Awaiting.APPROVAL, ())
    assert "approve" in d.text


def test_a_start_time_given_in_a_sentence_replaces_the_one_from_the_files() -> None:
    d = Dialogue()
    d.detected(start="2024-03-15T14:30:00")
    d.say("Peter Novak recorded it, MIT, mouse V1 recording, started 2023-11-02 09:15")
    assert d.value("experimenter") == ["Novak, Peter"]
    assert d.view.metadata["session_start_time"] == FieldValue(value="2023-11-02T09:15:00+01:00", source=Source.USER)
    label = FIELDS["session_start_time"].label
    assert (
        f"{label}: 2024-03-15T14:30:00 → 2023-11-02T09:15:00+01:00 (the file says 2024-03-15T14:30:00; using yours)"
        in d.text
    )
    # Detecting the files again (another stream chosen, files re-read) keeps the user's correction.
    d.send(FilesChanged(added=1, total=5))
    d.send(
        FormatDetected(
            files_version=d.view.memory.files_version,
            recording=RECORDING,
            file_metadata={"session_start_time": "2024-03-15T14:30:00"},
        )
    )
    assert d.view.metadata["session_start_time"].value == "2023-11-02T09:15:00+01:00"


def test_uploads_while_converting_are_refused() -> None:
    d = Dialogue()
    d.detected()
    d.say("just convert it")
    assert d.send(FilesChanged(added=1, total=1)).refused


def test_removing_the_last_file_goes_back_to_waiting_for_an_upload() -> None:
    d = Dialogue()
    d.send(FilesChanged(added=1, total=1))
    d.send(DetectionFailed(files_version=d.view.memory.files_version, user_message="notes.txt is not a recording."))
    step = d.send(FilesChanged(removed=1, total=0))
    assert step.status == Status.IDLE and not step.actions


def test_removing_a_file_detects_again_what_is_left() -> None:
    d = Dialogue()
    d.send(FilesChanged(added=3, total=3))
    d.send(DetectionFailed(files_version=d.view.memory.files_version, user_message="x.bin is incomplete."))
    step = d.send(FilesChanged(removed=1, total=2))
    assert step.status == Status.DETECTING_FORMAT and actions(step, DetectFormat)


def test_a_recording_without_a_start_time_asks_for_it_even_in_minimal_mode() -> None:
    d = Dialogue()
    d.detected(start=None)
    assert "session_start_time" in d.view.memory.asking_for
    step = d.say("just convert it")
    assert step.awaiting == Awaiting.REQUIRED_METADATA
    assert step.memory.asking_for == ["session_start_time"]
    step = d.say("2024-03-15 14:30")
    assert step.status == Status.CONVERTING
    assert d.value("session_start_time").startswith("2024-03-15T14:30:00")


def test_skip_all_ends_one_by_one_questions() -> None:
    d = Dialogue()
    d.detected()
    d.say("ask me one by one")
    step = d.say("skip all the questions")
    assert step.status == Status.CONVERTING


def test_failed_validation_without_an_askable_field_says_so() -> None:
    d = Dialogue()
    _converted(d)
    odd = IssueSummary(check_name="check_data_orientation", importance="CRITICAL", explanation="Odd data.")
    step = d.send(ValidationCompleted(attempt=1, outcome="failed", issues=(odd,)))
    assert step.awaiting == Awaiting.CORRECTION
    assert "can be fixed with a value" in d.text and "accept" in d.text


def test_skipping_at_the_plan_is_acknowledged_and_the_plan_shown_again() -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording")
    step = d.say("mouse001, mouse, male")
    assert step.awaiting == Awaiting.APPROVAL, "two requests made: the plan, with the age not given"
    step = d.say("skip the age")
    assert step.awaiting == Awaiting.APPROVAL
    assert "leave out" in d.text and step.replies[-1].card == "plan"
    assert "age" in step.memory.declined


def _ambiguous(d: Dialogue) -> Step:
    d.send(FilesChanged(added=6, total=6))
    options = (
        FormatOption(key="spikeglx", label="SpikeGLX"),
        FormatOption(key="openephys_binary", label="Open Ephys binary"),
    )
    return d.send(
        FormatAmbiguous(
            files_version=d.view.memory.files_version,
            candidates=options,
            user_message="These files can be read as SpikeGLX or as Open Ephys binary.",
        )
    )


def test_several_candidate_formats_are_offered_by_name() -> None:
    d = Dialogue()
    step = _ambiguous(d)
    assert (step.status, step.awaiting) == (Status.AWAITING_USER_INPUT, Awaiting.FORMAT_SELECTION)
    assert step.replies[0].card == "formats" and "Open Ephys binary" in d.text


@pytest.mark.parametrize("words", ["it's Open Ephys", "open ephys binary", "the Open Ephys one"])
def test_the_format_is_chosen_by_words(words: str) -> None:
    d = Dialogue()
    _ambiguous(d)
    step = d.say(words)
    assert step.status == Status.DETECTING_FORMAT
    assert actions(step, DetectFormat)[0].format_key == "openephys_binary"
    assert step.memory.chosen_format == "openephys_binary"


def test_the_format_is_chosen_by_action_and_a_wrong_key_is_refused() -> None:
    d = Dialogue()
    _ambiguous(d)
    assert d.send(UserAction(action="select_format", value="intan")).refused
    step = d.send(UserAction(action="select_format", value="spikeglx"))
    assert actions(step, DetectFormat)[0].format_key == "spikeglx"


def test_an_unclear_answer_asks_again_which_format() -> None:
    d = Dialogue()
    _ambiguous(d)
    step = d.say("not sure")
    assert step.awaiting == Awaiting.FORMAT_SELECTION and "Which format" in d.text


def test_a_format_can_be_named_explicitly_after_detection_failed() -> None:
    d = Dialogue()
    d.send(FilesChanged(added=1, total=1))
    version = d.view.memory.files_version
    d.send(DetectionFailed(files_version=version, user_message="recording.sev is not a format I know."))
    step = d.send(UserAction(action="select_format", value="neuroconv:TdtRecordingInterface"))
    assert step.status == Status.DETECTING_FORMAT
    assert actions(step, DetectFormat)[0].format_key == "neuroconv:TdtRecordingInterface"


def test_no_format_can_be_chosen_before_anything_is_uploaded() -> None:
    assert Dialogue().send(UserAction(action="select_format", value="intan")).refused


def test_the_recording_is_named_with_the_right_article() -> None:
    d = Dialogue()
    d.send(FilesChanged(added=1, total=1))
    intan = RECORDING.model_copy(update={"format": "intan", "format_label": "Intan RHD/RHS"})
    d.send(FormatDetected(files_version=d.view.memory.files_version, recording=intan))
    assert "This is an Intan RHD/RHS recording" in d.text

"""The guards of seeds 000-002: never trapped, never a silent loop. Misunderstandings in a row, the
turn limit, a frustrated user, asking for an expert, jobs that run again, sessions left idle."""

from __future__ import annotations

from conversions.orchestrator.state import (
    Awaiting,
    ConversionSucceeded,
    FlagForReview,
    IssueSummary,
    JobRetrying,
    SessionIdle,
    StartConversion,
    Status,
    ValidationCompleted,
)
from tests.orchestrator.test_policy import Dialogue, actions

FULL = "Jane Smith, MIT, V1 recording, mouse001, Mus musculus, male, P90D"
SUBJECT = IssueSummary(
    check_name="check_subject_sex",
    importance="CRITICAL",
    explanation="The subject's sex is missing.",
    location="/general/subject",
    fields=("sex",),
)


def _guarded(**limits: int) -> Dialogue:
    d = Dialogue()
    d.view = d.view.model_copy(update=limits)
    return d


def _in_correction(d: Dialogue) -> None:
    d.detected()
    d.say(FULL)
    d.act("approve")
    d.send(ConversionSucceeded(attempt=1, size_bytes=10))
    d.send(ValidationCompleted(attempt=1, outcome="failed", issues=(SUBJECT,)))
    assert d.view.awaiting == Awaiting.CORRECTION


def test_messages_not_understood_in_a_row_end_the_questions_with_the_plan() -> None:
    d = _guarded(max_clarifications=3)
    d.detected()
    assert d.view.awaiting == Awaiting.REQUIRED_METADATA

    for _ in range(2):
        d.say("hmm")
        assert "I didn't understand that" in d.text
    d.say("hmm")

    assert d.view.awaiting == Awaiting.APPROVAL, "the third one moves on instead of asking again"
    assert "couldn't make sense of your last 3 messages" in d.text
    assert d.steps[-1].replies[-1].card == "plan"
    assert d.view.memory.misunderstood == 0


def test_an_understood_message_resets_the_count() -> None:
    d = _guarded(max_clarifications=3)
    d.detected()
    d.say("hmm")
    d.say("hmm")
    d.say("experimenter: Jane Smith")
    assert d.view.memory.misunderstood == 0
    d.say("hmm")
    assert "I didn't understand that" in d.text and d.view.awaiting == Awaiting.REQUIRED_METADATA


def test_a_greeting_is_understood_and_resets_the_count() -> None:
    d = _guarded(max_clarifications=3)
    d.detected()
    d.say("hmm")
    d.say("hmm")
    d.say("Hi! How do I start?")
    assert "I didn't understand" not in d.text and d.view.memory.misunderstood == 0
    assert d.view.awaiting == Awaiting.REQUIRED_METADATA


def test_misunderstandings_while_a_plan_waits_offer_the_buttons() -> None:
    d = _guarded(max_clarifications=2)
    d.detected()
    d.say(FULL)
    d.say("blorp")
    step = d.say("blorp")

    assert step.replies[-1].card == "options"
    assert step.replies[-1].data["options"] == ["approve", "preview", "cancel"]
    assert d.view.awaiting == Awaiting.APPROVAL


def test_past_the_turn_limit_messages_are_not_read_and_the_admins_are_told_once() -> None:
    d = _guarded(max_turns=3)
    d.detected()
    d.say("experimenter: Jane Smith")
    d.say("institution: MIT")
    d.say("experiment description: V1 recording")
    before = d.view.metadata

    first = d.say("species: mouse")
    second = d.say("sex: male")

    assert "limit of 3 messages" in d.text
    assert actions(first, FlagForReview) and not actions(second, FlagForReview)
    assert d.view.metadata == before, "nothing past the limit is taken as a value"
    assert actions(d.act("approve"), StartConversion), "the buttons still work"


def test_a_frustrated_user_in_the_correction_loop_is_offered_every_way_out() -> None:
    d = Dialogue()
    _in_correction(d)

    step = d.say("This keeps failing!")

    assert step.replies[-1].card == "options"
    assert step.replies[-1].data["options"] == ["accept_as_is", "retry", "request_help"]
    assert "accept the file as it is" in d.text and "ask an expert" in d.text
    assert d.view.awaiting == Awaiting.CORRECTION
    d.say("yes, just finish it")
    assert d.view.status == Status.COMPLETED_WITH_ISSUES


def test_a_frustrated_user_during_a_conversion_is_told_where_it_stands() -> None:
    d = Dialogue()
    d.detected()
    d.say(FULL)
    d.act("approve")

    d.say("ugh, why is this taking so long")

    assert "Converting (attempt 1)" in d.text and d.view.status == Status.CONVERTING


def test_asking_for_an_expert_flags_the_session_and_keeps_the_conversation() -> None:
    d = Dialogue()
    _in_correction(d)

    step = d.say("please ask an expert to look at this")

    (flag,) = actions(step, FlagForReview)
    assert "ask an expert" in flag.reason
    assert "admins" in d.text and d.view.awaiting == Awaiting.CORRECTION
    assert actions(d.act("request_help"), FlagForReview)


def test_a_job_that_runs_again_says_why_and_when() -> None:
    d = Dialogue()
    d.detected()
    d.say(FULL)
    d.act("approve")

    d.send(JobRetrying(attempt=1, reason="the worker running it stopped", delay_s=60, run=2, runs=3))

    assert "not a problem with your data" in d.text and "run 2 of at most 3" in d.text
    assert d.view.status == Status.CONVERTING
    assert d.send(JobRetrying(attempt=7, reason="x", delay_s=0, run=2, runs=3)).refused


def test_an_idle_session_is_closed_and_retry_resumes_it() -> None:
    d = Dialogue()
    d.detected()
    d.say(FULL)

    d.send(SessionIdle(hours=72))

    assert d.view.status == Status.CANCELLED and "waited 72 hours" in d.text
    d.say("retry")
    assert d.view.awaiting == Awaiting.APPROVAL, "everything given before is still there"
    assert d.value("experimenter") == ["Smith, Jane"]


def test_only_waiting_sessions_are_closed_for_idleness() -> None:
    d = Dialogue()
    d.detected()
    d.say(FULL)
    d.act("approve")
    assert d.send(SessionIdle(hours=72)).refused
    assert d.view.status == Status.CONVERTING


def test_a_remark_with_no_value_is_answered_as_a_remark_and_stores_nothing() -> None:
    d = _guarded(max_clarifications=3)
    d.detected()
    before = dict(d.view.metadata)

    d.say("the rig was acting up a bit that day")
    assert d.text.startswith("Noted — that doesn't change anything I store.")
    assert "I need the experimenter" in d.text  # and what is still wanted
    d.say("hmm")
    assert d.text.startswith("I didn't understand that.")

    assert d.view.metadata == before
    assert d.view.awaiting == Awaiting.REQUIRED_METADATA

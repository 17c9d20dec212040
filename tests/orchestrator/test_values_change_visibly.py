"""No value changes without the user seeing it: every change is shown as "X: A → B", a value
read only because a phrase fits the field never replaces one already set, and a time zone named
in words becomes the session's zone, visibly."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conversions.language.rules import Intent, ParsedMessage, parse_message
from conversions.orchestrator import policy
from conversions.orchestrator.state import Awaiting, FieldValue, Source, UserMessage
from tests.language.dialogues import CORPUS
from tests.language.heldout import HELD_OUT_SETS
from tests.orchestrator.test_policy import Dialogue

FULL = (
    "experimenter: Jane Smith; institution: MIT; description: V1 recording; subject id: mouse001; "
    "species: mouse; sex: male; age: P90D"
)


def plan_shown(start: str | None = "2024-03-15T14:30:00") -> Dialogue:
    conversation = Dialogue()
    conversation.detected(start)
    conversation.say(FULL)
    assert conversation.view.awaiting == Awaiting.APPROVAL
    return conversation


def test_a_labeled_change_is_shown_with_its_old_and_new_value() -> None:
    d = plan_shown()
    d.say("institution: Stanford")
    assert d.value("institution") == "Stanford"
    assert "institution: MIT → Stanford" in d.text


def test_a_value_given_for_the_first_time_is_shown_without_an_arrow() -> None:
    d = plan_shown()
    d.say("strain: C57BL/6J")
    assert "strain: C57BL/6J" in d.text and "→" not in d.text


def test_a_start_time_that_replaces_the_files_says_both() -> None:
    d = plan_shown()
    d.say("session start time: 2024-03-14 10:00")
    assert "(the file says 2024-03-15T14:30:00; using yours)" in d.text
    assert d.view.metadata["session_start_time"].source == Source.USER


def guess(text: str, **fields: str) -> UserMessage:
    parsed = ParsedMessage(
        intents=frozenset({Intent.PROVIDE_METADATA}),
        fields=fields,
        skipped=frozenset(),
        format_choice=None,
        corrections=frozenset(),
        guessed=frozenset(fields),
    )
    return UserMessage(text=text, parsed=parsed)


def test_a_guess_never_replaces_a_value_already_set() -> None:
    d = plan_shown()
    step = d.send(
        guess("the rig clock is two minutes fast", experiment_description="the rig clock is two minutes fast")
    )
    assert d.value("experiment_description") == "V1 recording"
    assert "experiment_description" not in step.metadata_updates
    assert "I kept the experiment description “V1 recording”" in d.text
    assert "say “experiment description: the rig clock is two minutes fast”" in d.text


def test_a_guess_fills_a_field_that_is_empty() -> None:
    d = plan_shown()
    d.send(guess("Smith Lab", lab="Smith Lab"))
    assert d.value("lab") == "Smith Lab"


def test_a_guess_answers_the_field_just_asked_for() -> None:
    d = Dialogue()
    d.detected()
    d.say("one by one")
    assert d.view.memory.asking_for == ["experimenter"]
    d.send(guess("Jane Smith", experimenter="Jane Smith"))
    assert d.value("experimenter") == ["Smith, Jane"]


def test_a_correction_replaces_a_value_and_shows_it() -> None:
    d = plan_shown()
    d.say("sorry, the sex is actually female")
    assert d.value("sex") == "F"
    assert "sex: M → F" in d.text


# --- time zones --------------------------------------------------------------------------------


def test_a_zone_named_in_words_becomes_the_sessions_zone() -> None:
    d = plan_shown()
    assert d.view.timezone == "Europe/Paris"
    step = d.say("it was recorded on 2024-05-03 at 09:30 Tokyo time")
    assert step.timezone == "Asia/Tokyo"
    assert d.view.metadata["session_start_time"] == FieldValue(value="2024-05-03T09:30:00+09:00", source=Source.USER)
    assert "Time zone: Europe/Paris → Asia/Tokyo" in d.text
    plan = step.replies[-1]
    assert plan.card == "plan" and plan.data["timezone"] == "Asia/Tokyo"
    assert "Times are in Asia/Tokyo (you named it)" in plan.text


def test_a_zone_alone_changes_the_zone_and_nothing_else() -> None:
    d = plan_shown()
    step = d.say("timezone: America/Chicago")
    assert step.timezone == "America/Chicago"
    assert not step.metadata_updates
    assert step.replies[-1].card == "plan"


def test_the_same_zone_again_changes_nothing() -> None:
    d = plan_shown()
    step = d.say("all times are Paris time")
    assert step.timezone is None and "Time zone:" not in d.text


def test_an_abbreviation_of_several_zones_is_asked_and_the_time_kept_back() -> None:
    d = plan_shown()
    step = d.say("session start time: 2024-05-03 09:30 IST")
    assert step.timezone is None
    assert d.value("session_start_time") == "2024-03-15T14:30:00"
    assert "India (Asia/Kolkata), Israel (Asia/Jerusalem) or Ireland (Europe/Dublin)" in d.text
    assert "I haven't used the start time “2024-05-03 09:30”" in d.text


def test_a_start_time_with_its_own_offset_is_not_shown_beside_another_zone() -> None:
    d = plan_shown()
    step = d.say("session start time: 2024-05-03T09:30:00+09:00")
    plan = step.replies[-1]
    assert "Times are in Europe/Paris (your lab's setting); the start time carries its own offset, +09:00" in plan.text


# --- the property: over any two messages ---------------------------------------------------------

MESSAGES = sorted({text for text, _asking, _gold in CORPUS} | {t for s in HELD_OUT_SETS.values() for t, _a, _g in s})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=st.sampled_from(MESSAGES), second=st.sampled_from(MESSAGES))
def test_no_pair_of_messages_changes_a_value_without_showing_it(first: str, second: str) -> None:
    d = Dialogue()
    d.detected()
    d.say(first)
    before = dict(d.view.metadata)
    asked = list(d.view.memory.asking_for)
    parsed = parse_message(second, asking_for=asked)
    step = d.send(UserMessage(text=second, parsed=parsed))
    reply = "\n".join(r.text for r in step.replies)
    for name, entry in step.metadata_updates.items():
        old = before.get(name)
        if old is None or old.value in (None, "", []) or old.value == entry.value:
            continue
        if entry.source == Source.AUTO_FIX:
            assert "Fixed automatically" in reply or "→" in reply, (first, second, name)
            continue
        assert policy.change_line(name, old.value, entry.value) in reply, (first, second, name)
        assert name in parsed.fields, (first, second, name)
        assert name not in parsed.guessed or name in asked or name in parsed.corrections, (first, second, name)


# --- two plausible readings: one short question naming both -------------------------------------


def test_two_species_in_one_message_are_asked_about_naming_both() -> None:
    d = Dialogue()
    d.detected()
    step = d.say("Jane Smith, MIT, tetrode recordings in rats and mice, subject R-7, male, P60")
    assert "species" not in d.view.metadata
    assert "You named Rattus norvegicus and Mus musculus: which is the species?" in d.text
    assert step.memory.asking_for and "species" in step.memory.asking_for


def test_two_ages_in_one_message_are_asked_about_naming_both() -> None:
    d = plan_shown()
    d.view = d.view.model_copy(update={"metadata": {k: v for k, v in d.view.metadata.items() if k != "age"}})
    d.say("she was P45 at surgery and 9 weeks old at the recording")
    assert "age" not in d.view.metadata
    assert "You named P45 and 9 weeks old: which is the age?" in d.text


def test_a_choice_is_not_asked_when_the_field_is_set() -> None:
    d = plan_shown()
    d.say("we also keep rats and mice in the same room")
    assert d.value("species") == "Mus musculus" and "which is the species" not in d.text

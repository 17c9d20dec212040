"""The rule-based reader of chat messages: what each kind of message yields, how often the fields
come out right on realistic answers, and that odd input (empty, huge, code-like) is harmless. The
messages themselves are in tests/language/dialogues.py (bench/dialogues.py reads them too)."""

from __future__ import annotations

import time

import pytest

from conversions.language.rules import Intent, ParsedMessage, parse_message
from tests.language.dialogues import (
    ALL_CASES,
    ASKED_FIRST,
    CORPUS,
    KNOWN_MISSES,
    REALISTIC_SETS,
    field_accuracy,
)


@pytest.mark.parametrize(
    ("text", "asking_for", "expected"),
    [pytest.param(*c, id=" ".join(c.text.split())[:70] or "empty") for c in ALL_CASES],
)
def test_message_is_read_as_expected(text: str, asking_for: tuple[str, ...], expected: ParsedMessage) -> None:
    assert parse_message(text, asking_for=asking_for) == expected


def test_there_are_at_least_sixty_table_cases() -> None:
    assert len(ALL_CASES) >= 60


# --- field accuracy on realistic answers -------------------------------------------------------


def test_field_accuracy_on_realistic_answers(capsys: pytest.CaptureFixture[str]) -> None:
    lines = []
    for name, corpus in REALISTIC_SETS.items():
        right, counted = field_accuracy(corpus)
        lines.append(f"{name} set: {right}/{counted} = {right / counted:.1%} ({len(corpus)} messages)")
    right, counted = field_accuracy(CORPUS)
    lines.append(f"field accuracy: {right}/{counted} = {right / counted:.1%}")
    with capsys.disabled():
        print("\n" + "\n".join(lines))
    assert right / counted >= 0.90


def test_every_realistic_answer_but_the_known_misses_is_read_exactly() -> None:
    for text, asking_for, gold in CORPUS:
        if text not in KNOWN_MISSES:
            assert parse_message(text, asking_for=asking_for).fields == gold, text


# --- invariants and robustness --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "asking_for"),
    [(c.text, c.asking) for c in ALL_CASES] + [(text, asking) for text, asking, _gold in CORPUS],
)
def test_result_is_consistent(text: str, asking_for: tuple[str, ...]) -> None:
    parsed = parse_message(text, asking_for=asking_for)
    assert parsed.corrections <= set(parsed.fields)
    assert not parsed.skipped & set(parsed.fields)
    assert (Intent.PROVIDE_METADATA in parsed.intents) == bool(parsed.fields)
    assert (Intent.SELECT_FORMAT in parsed.intents) == bool(parsed.format_choice)
    assert all(value == value.strip() and value for value in parsed.fields.values())


def test_a_pasted_abstract_becomes_the_description() -> None:
    sentence = "We recorded spiking activity of V1 neurons with Neuropixels probes during visual stimulation. "
    text = sentence * 110  # about 10 kB
    parsed = parse_message(text, asking_for=("experiment_description",))
    assert parsed.fields == {"experiment_description": text.strip().rstrip("."), "location": "V1"}


ADVERSARIAL = {
    "prose": "Dr. Jane Smith, MIT, recording mouse V1 neurons; skip the subject. ",
    "spaces": "2024-03-15" + " " * 50_000 + "x",
    "connectors": "experimenter: Jane" + " and" * 12_500,
    "hyphens": "a-" * 25_000 + " lab",
    "commas": "mouse001," * 5_500,
    "one word": "a" * 50_000,
    "digits": "P" + "1" * 50_000,
    "labels": "experimenter: " * 3_500,
    "labels without commas": "Tanaka name ",  # each label looked back to the start: 85 s, now under 2 s
}


@pytest.mark.parametrize("kind", ADVERSARIAL)
def test_a_50_kb_message_is_read(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    text = (ADVERSARIAL[kind] * (50_000 // len(ADVERSARIAL[kind]) + 1))[:50_000]
    started = time.perf_counter()
    parsed = parse_message(text, asking_for=ASKED_FIRST)
    elapsed = time.perf_counter() - started
    with capsys.disabled():
        print(f"\n50 kB of {kind}: {elapsed * 1000:.0f} ms")
    assert isinstance(parsed, ParsedMessage)

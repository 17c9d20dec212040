"""The held-out sets stay read as well as they were when this reader was last changed (bench/dialogues.py
prints the figures; the first-run ones are in tests/language/heldout.py)."""

from __future__ import annotations

import pytest

from tests.language.heldout import HELD_OUT_SETS, score

# What the reader reaches today; a change that reads fewer of these fields right is a regression.
FLOORS = {
    "A": 0.97,
    "B": 0.955,
    "C": 0.965,
    "D": 0.96,
    "E": 0.93,
    "F": 0.89,
    "G": 0.905,
    "H": 0.955,
    "I": 0.955,
    "J": 0.96,
    "K": 0.955,
    "L": 0.955,
    "M": 0.97,
    "N": 0.945,
    "O": 0.945,
    "P": 0.935,
    "Q": 0.925,
    "R": 0.925,
    "S": 0.945,
    "T": 0.955,
    "U": 0.92,
    "V": 0.945,
}


@pytest.mark.parametrize("name", list(HELD_OUT_SETS))
def test_held_out_set_is_read_as_well_as_before(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    result = score(HELD_OUT_SETS[name])
    with capsys.disabled():
        print(f"\nheld-out set {name}: {result.line()}")
    assert result.accuracy >= FLOORS[name]


def test_every_held_out_set_has_a_floor_and_a_first_run() -> None:
    from tests.language.heldout import FIRST_RUN

    assert set(FLOORS) == set(HELD_OUT_SETS) == set(FIRST_RUN)


def test_the_scorer_compares_ages_as_durations_and_leaves_out_the_age_reference() -> None:
    from conversions.language.rules import parse_message
    from tests.language.heldout import same_value, score

    assert same_value("age", "P10W3D", "P73D")
    assert same_value("age", "P8W/P10W", "P56D/P70D")
    assert not same_value("age", "P10W", "P73D")
    assert not same_value("age", "P1M", "P30D")  # a month is no fixed number of days
    assert "age__reference" in parse_message("larva ZL-2, 6 dpf").fields
    assert score([("larva ZL-2, 6 dpf", (), {"subject_id": "ZL-2", "age": "P6D"})]).extra == 0

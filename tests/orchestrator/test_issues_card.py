"""The issues card says each explanation once, most important first, with how many places it has."""

from __future__ import annotations

from conversions.orchestrator.policy import _issues_card
from conversions.orchestrator.state import IssueSummary

COLUMN = "A table column holds only two values; this is a storage suggestion and needs nothing from you."


def _issue(check: str, importance: str, explanation: str, location: str) -> IssueSummary:
    return IssueSummary(check_name=check, importance=importance, explanation=explanation, location=location)


def test_the_same_words_in_several_places_are_said_once_with_the_count() -> None:
    issues = [
        _issue("check_binary_columns", "BEST_PRACTICE_SUGGESTION", COLUMN, f"/general/extracellular_ephys/{n}")
        for n in ("electrodes", "units", "trials")
    ] + [_issue("check_subject_exists", "CRITICAL", "The file has no subject.", "/")]

    card = _issues_card(issues)

    lines = card.text.splitlines()
    assert lines == [
        "The check found 4 issues:",
        "• [must fix] The file has no subject.",
        f"• [suggestion] {COLUMN} (3 places)",
    ]
    assert len(card.data["issues"]) == 4, "the card's data keeps every issue, for the page and the report"

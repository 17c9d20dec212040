"""Replies kept short for the person reading them: automatic fixes in one line with the changes in
the card, and a rejected plan that is not offered for approval again."""

from __future__ import annotations

import pytest

from conversions.orchestrator.state import Awaiting, FieldValue, Source, Status
from tests.orchestrator.test_policy import Dialogue


def _with_lab_defaults(**values: object) -> Dialogue:
    d = Dialogue()
    d.view = d.view.model_copy(
        update={
            "metadata": {name: FieldValue(value=value, source=Source.LAB_DEFAULT) for name, value in values.items()}
        }
    )
    return d


def test_fixes_before_a_question_are_one_line_with_each_change_in_the_card() -> None:
    d = _with_lab_defaults(experimenter=["Jane Smith"], institution=" MIT ")

    step = d.detected()

    assert step.awaiting == Awaiting.REQUIRED_METADATA
    (fixes,) = [r for r in step.replies if r.card == "fixes"]
    assert "\n" not in fixes.text
    assert fixes.text == "Fixed automatically: 2 values written the way DANDI accepts (experimenter, institution)."
    assert [(f["label"], f["before"], f["after"]) for f in fixes.data["fixes"]] == [
        ("experimenter", ["Jane Smith"], ["Smith, Jane"]),
        ("institution", " MIT ", "MIT"),
    ]
    assert all(f["reason"] and f["check_name"] for f in fixes.data["fixes"])
    assert step.replies.index(fixes) < len(step.replies) - 1, "the question follows"
    # Nothing is hidden: the values are stored as automatic fixes, which the panel marks.
    assert d.view.metadata["experimenter"] == FieldValue(value=["Smith, Jane"], source=Source.AUTO_FIX)


def test_one_fix_is_said_in_the_singular() -> None:
    d = _with_lab_defaults(institution="MIT ")
    d.detected()

    d.say("Jane Smith, V1 recording, skip the subject")

    said = [r for step in d.steps for r in step.replies if r.card == "fixes"]
    assert [r.text for r in said] == ["Fixed automatically: 1 value written the way DANDI accepts (institution)."]


def test_values_already_right_bring_no_fixes_line() -> None:
    d = _with_lab_defaults(institution="MIT")
    d.detected()
    d.say("Jane Smith, V1 recording, skip the subject")

    assert not [r for step in d.steps for r in step.replies if r.card == "fixes" or "Fixed" in r.text]


@pytest.mark.parametrize("how", ["button", "words"])
def test_a_rejected_plan_is_not_offered_for_approval_again(how: str) -> None:
    d = Dialogue()
    d.detected()
    d.say("Jane Smith, MIT, V1 recording, skip the subject")
    assert d.steps[-1].replies[-1].card == "plan"

    step = d.act("reject") if how == "button" else d.say("reject")

    assert (step.status, step.awaiting) == (Status.AWAITING_APPROVAL, Awaiting.APPROVAL) and not step.actions
    (reply,) = step.replies
    assert reply.data == {"plan": "rejected"}, "the page stops offering the plan"
    assert "approve" not in reply.text.lower()
    assert reply.text.startswith("Not converting this plan.") and "metadata panel" in reply.text

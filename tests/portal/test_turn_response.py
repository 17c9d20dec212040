"""A chat turn answers with the session's newest messages only; GET has the whole conversation."""

from __future__ import annotations

import pytest

from conversions.api.schemas import TURN_MESSAGES
from tests.conftest import World

pytestmark = pytest.mark.django_db


def test_a_turn_carries_the_newest_messages_and_get_carries_all(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    for number in range(8):
        turn = client.post(
            f"/api/sessions/{session_id}/messages", {"text": f"help {number}"}, content_type="application/json"
        ).json()

    everything = client.get(f"/api/sessions/{session_id}").json()["messages"]
    carried = turn["session"]["messages"]
    assert len(everything) == 17, "a greeting, then eight questions with their answers"
    assert len(carried) == TURN_MESSAGES == 10
    assert [m["id"] for m in carried] == [m["id"] for m in everything[-TURN_MESSAGES:]]
    assert carried[-1]["id"] == turn["replies"][-1]["id"], "the turn's own reply is among them"

"""A time zone named in words in the chat ("09:30 Tokyo time", "New York time") is the one the NWB
file's start time is written in, the session's zone and the one the plan and the page show; an
abbreviation of several zones ("IST") is asked about and changes nothing. Through the API, on a real
recording and a real worker."""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from pynwb import NWBHDF5IO

from tests.conftest import World, real_data, wait_for_status
from tests.portal.test_end_to_end import _download, _upload

pytestmark = pytest.mark.django_db(transaction=True)

RECORDING = "spikeglx/Noise4Sam_g0"
# What Noise4Sam's .meta says (fileCreateTime), without a zone.
FILE_START = "2020-11-03T10:35:10"
ANSWER = "Jane Smith, MIT, V1 recording, mouse001, mouse, male, P90D"


def _say(client: Any, session_id: str, text: str) -> dict[str, Any]:
    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json")
    assert turn.status_code == 200, turn.content
    return turn.json()


def _asked_for_metadata(client: Any) -> str:
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    _upload(client, session_id, real_data(RECORDING))
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    assert body["timezone"] == "Europe/Paris", "the lab's zone until the user names another"
    return session_id


def _plan(turn: dict[str, Any]) -> dict[str, Any]:
    plan = turn["replies"][-1]
    assert plan["card"] == "plan", [r["text"] for r in turn["replies"]]
    return plan


def _approve_and_read_start(client: Any, session_id: str, tmp_path: Path) -> tuple[datetime, dict[str, Any]]:
    """The NWB file's start time, and the session when the check had finished (before any "accept
    as is" to a question about the suggestions)."""
    approved = client.post(
        f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
    )
    assert approved.status_code == 200 and approved.json()["session"]["status"] == "converting", approved.content
    body = wait_for_status(client, session_id, {"completed", "completed_with_issues", "awaiting_user_input", "failed"})
    assert body["status"] != "failed", body["messages"][-1]["text"]
    checked = body
    if body["status"] == "awaiting_user_input":
        assert all(i["importance"] not in ("CRITICAL", "ERROR") for i in body["issues"]), body["issues"]
        body = _say(client, session_id, "accept as is")["session"]
    with NWBHDF5IO(str(_download(client, body, tmp_path)), "r") as io:
        start = io.read().session_start_time
    return start, checked


def _page_session(live_world: World, session_id: str) -> dict[str, Any]:
    """The session as the page's script starts from it."""
    html = live_world.browser("ada").get(f"/sessions/{session_id}/").content.decode()
    found = re.search(r'<script id="initial-session" type="application/json">(.*?)</script>', html, re.S)
    assert found, "the page carries the session for its script"
    return json.loads(found.group(1))


def test_a_start_time_in_tokyo_time_is_written_at_tokyos_offset(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id = _asked_for_metadata(client)

    turn = _say(client, session_id, f"{ANSWER}, recorded 2024-05-03 at 09:30 Tokyo time")

    session = turn["session"]
    assert session["timezone"] == "Asia/Tokyo"
    assert session["metadata"]["session_start_time"] == {"value": "2024-05-03T09:30:00+09:00", "source": "user"}
    assert any("Time zone: Europe/Paris → Asia/Tokyo" in r["text"] for r in turn["replies"])
    plan = _plan(turn)
    assert plan["data"]["timezone"] == "Asia/Tokyo"
    assert "Times are in Asia/Tokyo (you named it)" in plan["text"]

    start, body = _approve_and_read_start(client, session_id, tmp_path)

    assert start.utcoffset() == timedelta(hours=9)
    assert (start.year, start.month, start.day, start.hour, start.minute) == (2024, 5, 3, 9, 30)
    assert client.get(f"/api/sessions/{session_id}").json()["timezone"] == "Asia/Tokyo"
    # The page shows the zone used: the session's and the plan's, never a zone of its own.
    page = _page_session(live_world, session_id)
    assert page["timezone"] == "Asia/Tokyo"
    assert [m["data"]["timezone"] for m in page["messages"] if m["card"] == "plan"] == ["Asia/Tokyo"]
    # "V1" is no Allen atlas term: the issue links to the location, and nothing is asked for it.
    (location,) = [
        issue
        for m in body["messages"]
        if m["card"] == "issues"
        for issue in m["data"]["issues"]
        if issue["check_name"] == "check_electrodes_location_allen_ccf"
    ]
    assert location["fields"] == [] and location["links"] == ["location"]
    assert "recording location" not in body["messages"][-1]["text"]


def test_a_zone_alone_reads_the_files_start_time_in_it(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id = _asked_for_metadata(client)
    assert "Europe/Paris" in _plan(_say(client, session_id, ANSWER))["text"]

    turn = _say(client, session_id, "all times are New York time")

    assert turn["session"]["timezone"] == "America/New_York"
    assert turn["session"]["metadata"]["session_start_time"] == {"value": FILE_START, "source": "file"}
    plan = _plan(turn)
    assert plan["data"]["timezone"] == "America/New_York"
    assert "Times are in America/New_York (you named it)" in plan["text"]

    start, _ = _approve_and_read_start(client, session_id, tmp_path)

    # The file's wall time, at New York's offset on that date (EST: summer time ended on 1 November).
    new_york = datetime.fromisoformat(FILE_START).replace(tzinfo=ZoneInfo("America/New_York"))
    assert new_york.utcoffset() == timedelta(hours=-5)
    assert start.utcoffset() == new_york.utcoffset()
    assert start.replace(tzinfo=None).isoformat() == FILE_START
    assert client.get(f"/api/sessions/{session_id}").json()["timezone"] == "America/New_York"
    assert _page_session(live_world, session_id)["timezone"] == "America/New_York"


def test_an_abbreviation_of_several_zones_is_asked_about_and_the_files_start_time_stays(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id = _asked_for_metadata(client)

    turn = _say(client, session_id, f"{ANSWER}, recorded 2024-05-03 at 09:30 IST")

    said = "\n".join(r["text"] for r in turn["replies"])
    assert "India (Asia/Kolkata), Israel (Asia/Jerusalem) or Ireland (Europe/Dublin)" in said
    assert "I haven't used the start time “2024-05-03 at 09:30”" in said
    session = turn["session"]
    assert session["timezone"] == "Europe/Paris"
    assert session["metadata"]["session_start_time"] == {"value": FILE_START, "source": "file"}
    plan = _plan(turn)
    assert plan["data"]["timezone"] == "Europe/Paris"
    assert "Times are in Europe/Paris (your lab's setting)" in plan["text"]

    start, _ = _approve_and_read_start(client, session_id, tmp_path)

    paris = datetime.fromisoformat(FILE_START).replace(tzinfo=ZoneInfo("Europe/Paris"))
    assert start.utcoffset() == paris.utcoffset() == timedelta(hours=1)
    assert start.replace(tzinfo=None).isoformat() == FILE_START
    assert client.get(f"/api/sessions/{session_id}").json()["timezone"] == "Europe/Paris"

"""A recording with its spike sorting, pose and video, through the API as a lab member would do it:
one upload, the question only they can answer, one NWB file named for every modality it holds, the
video beside it, and a report that says where each part was placed in time."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ConversionAttempt, ConversionSession
from tests.conftest import World, real_data, wait_for_status

TOLD = "Dr. Jane Smith, MIT, Neuropixels recording of V1 neurons, subject mouse001, Mus musculus, male, P90D"


def _upload(client: Any, session_id: str, folders: dict[str, Path]) -> None:
    uploads, paths = [], []
    for name, folder in folders.items():
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            uploads.append(SimpleUploadedFile(path.name, path.read_bytes()))
            paths.append(f"{name}/{path.relative_to(folder).as_posix()}")
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": paths})
    assert response.status_code == 201, response.content


def _say(client: Any, session_id: str, text: str) -> dict[str, Any]:
    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json")
    assert turn.status_code == 200, turn.content
    return turn.json()


@pytest.mark.django_db(transaction=True)
def test_a_recording_with_its_parts_converts_into_one_file_on_one_clock(
    live_world: World, celery_worker_thread: Any
) -> None:
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {"title": "Session with parts"}, content_type="application/json").json()[
        "id"
    ]
    _upload(
        client,
        session_id,
        {
            "Noise4Sam_g0": real_data("spikeglx/Noise4Sam_g0"),
            "kilosort4": real_data("kilosort/kilosort4"),
            "sleap": real_data("sleap/clip"),
        },
    )
    wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    detection = ConversionSession.objects.get(id=session_id).detection
    streams = {stream["id"]: stream["kind"] for stream in detection["streams"]}
    assert streams == {
        "imec0.ap": "neural",
        "sorting": "spikes",
        "pose:clip.predictions.slp": "pose",
        "video:clip.mp4": "video",
    }

    asked = _say(client, session_id, TOLD)
    assert asked["session"]["awaiting"] == "required_metadata"
    assert "When did the video start" in asked["replies"][-1]["text"]
    planned = _say(client, session_id, "the video started 2 s after the recording: video start 2")
    assert planned["session"]["awaiting"] == "approval", planned["replies"]
    print([r["text"] for r in planned["replies"]])
    print(asked["replies"][-1]["text"])
    plan = planned["replies"][-1]
    assert [item["start_s"] for item in plan["data"]["timeline"]] == [0.0, 0.0, 2.0, 2.0]

    client.post(f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json")
    body = wait_for_status(client, session_id, {"completed", "awaiting_user_input", "failed"})
    assert body["status"] != "failed", body["messages"][-1]["text"]
    attempt = ConversionAttempt.objects.get(session_id=session_id, number=1)
    output = Path(attempt.output_path)
    assert output.name == f"sub-mouse001_ses-{output.name.split('_ses-')[1].split('_')[0]}_behavior+ecephys+image.nwb"
    assert (output.parent / f"{output.stem}_video" / "clip.mp4").is_file()

    report = client.get(f"/api/sessions/{session_id}/report.json").json()
    timing = {item["stream_id"]: item for item in report["attempts"][0]["timing"]}
    assert timing["sorting"]["start_s"] == 0.0 and "samples of" in timing["sorting"]["how"]
    assert timing["video:clip.mp4"]["start_s"] == 2.0
    assert timing["video:clip.mp4"]["how"] == "the camera started 2 s after the recording"
    (video,) = report["attempts"][0]["beside"]
    assert video["path"] == f"{output.stem}_video/clip.mp4"
    assert client.get(video["url"]).status_code == 200
    page = live_world.browser("ada").get(f"/api/sessions/{session_id}/report.html")
    assert b"the camera started 2 s after the recording" in page.content
    assert f"{output.stem}_video/clip.mp4".encode() in page.content

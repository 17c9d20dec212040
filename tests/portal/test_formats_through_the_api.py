"""Other formats and ambiguous uploads, through the API on a real worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pynwb import NWBHDF5IO

from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, real_data, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)


def _upload(client: Any, session_id: str, folders: list[Path]) -> None:
    uploads, paths = [], []
    for folder in folders:
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            uploads.append(SimpleUploadedFile(path.name, path.read_bytes()))
            paths.append(path.relative_to(folder.parent).as_posix())
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": paths})
    assert response.status_code == 201, response.content


def test_an_open_ephys_recording_converts_sample_exact(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    from spikeinterface.extractors import read_openephys
    from spikeinterface.extractors.neoextractors import get_neo_streams

    folder = real_data("openephys_binary/DelayedRecording/Record Node 118")
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    _upload(client, session_id, [folder])
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["format"] == "openephys_binary", body["messages"][-1]["text"]
    client.post(
        f"/api/sessions/{session_id}/messages",
        {"text": "Jane Smith, MIT, tetrode test recording, mouse001, mouse, F, P60D"},
        content_type="application/json",
    )
    client.post(f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json")
    body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "failed"})
    assert body["status"] != "failed" and body["output"], body["messages"][-1]["text"]

    response = client.get(body["output"]["url"])
    target = tmp_path / "out.nwb"
    target.write_bytes(b"".join(response.streaming_content))
    with NWBHDF5IO(str(target), "r") as io:
        series = list(io.read().acquisition.values())
        assert len(series) == 2, "both neural streams go into one file"
        assert all(item.rate == 40000.0 for item in series)
        written = [item.data[:] for item in series]
    _, stream_ids = get_neo_streams("openephysbinary", folder)
    assert len(stream_ids) == 2
    for stream_id in stream_ids:
        source = read_openephys(folder, stream_id=stream_id).get_traces(return_in_uV=False)
        assert sum(np.array_equal(data, source) for data in written) == 1, stream_id


def test_files_that_fit_two_formats_let_the_user_choose(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    openephys = real_data("openephys_binary/DelayedRecording/Record Node 118")
    spikeglx = write_spikeglx(tmp_path / "sg", run="both", duration_s=0.2)["ap_bin"].parent
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    _upload(client, session_id, [openephys, spikeglx])
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["awaiting"] == "format_selection", body["messages"][-1]["text"]
    question = body["messages"][-1]
    assert question["card"] == "formats"
    assert {o["key"] for o in question["data"]["options"]} == {"spikeglx", "openephys_binary"}

    turn = client.post(
        f"/api/sessions/{session_id}/messages", {"text": "it's the SpikeGLX one"}, content_type="application/json"
    )
    assert turn.json()["session"]["status"] == "detecting_format"
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert (body["format"], body["awaiting"]) == ("spikeglx", "required_metadata"), body["messages"][-1]["text"]


def test_a_format_named_explicitly_is_used_and_an_unknown_one_explained(
    live_world: World, celery_worker_thread: Any
) -> None:
    rhd = real_data("intan/example_intan_file.rhd")
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.post(
        f"/api/sessions/{session_id}/files", {"files": [SimpleUploadedFile(rhd.name, rhd.read_bytes())]}
    )
    assert response.status_code == 201
    assert wait_for_status(client, session_id, {"awaiting_user_input", "idle"})["format"] == "intan"

    action = {"action": "select_format", "value": "neuroconv:NoSuchRecordingInterface"}
    assert (
        client.post(f"/api/sessions/{session_id}/actions", action, content_type="application/json").status_code == 200
    )
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["status"] == "idle" and "There is no format called" in body["messages"][-1]["text"]

    action = {"action": "select_format", "value": "neuroconv:IntanRecordingInterface"}
    assert (
        client.post(f"/api/sessions/{session_id}/actions", action, content_type="application/json").status_code == 200
    )
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["format"] == "neuroconv:IntanRecordingInterface", body["messages"][-1]["text"]
    assert body["awaiting"] == "required_metadata"

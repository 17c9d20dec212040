"""A lab member converts a SpikeGLX recording by conversation, through the API, on a real worker."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pynwb import NWBHDF5IO

from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, real_data, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)

FULL_METADATA = (
    "Dr. Jane Smith, MIT, Neuropixels recording of V1 neurons during passive viewing, "
    "subject mouse001, Mus musculus, male, P90D"
)


def _upload(client: Any, session_id: str, folder: Path) -> dict[str, Any]:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    uploads = [SimpleUploadedFile(p.name, p.read_bytes()) for p in files]
    paths = [p.relative_to(folder.parent).as_posix() for p in files]
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": paths})
    assert response.status_code == 201, response.content
    return response.json()


def _source_samples(bin_path: Path, channels: int) -> np.ndarray:
    """The neural channels of a SpikeGLX .bin (the last saved channel is SYNC)."""
    raw = np.fromfile(bin_path, dtype=np.int16)
    return raw.reshape(-1, channels + 1)[:, :channels]


def _converse_to_completion(client: Any, session_id: str) -> dict[str, Any]:
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["status"] == "awaiting_user_input", body["messages"][-1]["text"]
    assert body["awaiting"] == "required_metadata"
    asked = body["messages"][-1]["text"]
    assert "experimenter" in asked and "institution" in asked

    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": FULL_METADATA}, content_type="application/json")
    assert turn.status_code == 200, turn.content
    session = turn.json()["session"]
    assert session["awaiting"] == "approval", turn.json()["replies"]
    metadata = session["metadata"]
    assert metadata["experimenter"] == {"value": ["Smith, Jane"], "source": "user"}
    assert metadata["institution"]["value"] == "MIT"
    assert metadata["species"]["value"] == "Mus musculus"
    assert metadata["sex"]["value"] == "M"
    assert metadata["age"]["value"] == "P90D"
    assert metadata["session_start_time"]["source"] == "file"
    plan = turn.json()["replies"][-1]
    assert plan["card"] == "plan" and "Europe/Paris" in plan["text"]

    approved = client.post(
        f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
    )
    assert approved.status_code == 200, approved.content
    assert approved.json()["session"]["status"] == "converting"

    body = wait_for_status(client, session_id, {"completed", "awaiting_user_input", "failed"})
    assert body["status"] != "failed", body["messages"][-1]["text"]
    if body["status"] == "awaiting_user_input":
        assert body["awaiting"] == "correction"
        assert all(i["importance"] not in ("CRITICAL", "ERROR") for i in body["issues"]), body["issues"]
        accepted = client.post(
            f"/api/sessions/{session_id}/messages", {"text": "accept as is"}, content_type="application/json"
        )
        body = accepted.json()["session"]
        assert body["status"] == "completed_with_issues"
    attempt = body["attempts"][0]
    assert attempt["number"] == 1 and attempt["state"] == "succeeded" and attempt["progress"] == 100.0
    download = client.get(body["output"]["url"])
    assert "sub-mouse001_ses-" in download["Content-Disposition"] and "_ecephys.nwb" in download["Content-Disposition"]
    assert body["output"]["attempt"] == 1
    return body


def _download(client: Any, body: dict[str, Any], tmp_path: Path) -> Path:
    response = client.get(body["output"]["url"])
    assert response.status_code == 200
    target = tmp_path / "download.nwb"
    target.write_bytes(b"".join(response.streaming_content))
    assert target.stat().st_size == body["output"]["size_bytes"]
    return target


def test_generated_recording_from_upload_to_download(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    recording = write_spikeglx(tmp_path / "rec", run="vis", duration_s=0.5, n_channels=384, with_lf=True, seed=3)
    created = client.post("/api/sessions", {"title": "V1 day 3"}, content_type="application/json")
    assert created.status_code == 201
    session_id = created.json()["id"]

    uploaded = _upload(client, session_id, recording["ap_bin"].parent)
    assert uploaded["status"] == "detecting_format"
    body = _converse_to_completion(client, session_id)
    assert body["format"] == "spikeglx"

    # A correction afterwards converts again as attempt 2; attempt 1 stays downloadable.
    turn = client.post(
        f"/api/sessions/{session_id}/messages", {"text": "keywords: V1, Neuropixels"}, content_type="application/json"
    ).json()
    assert turn["session"]["status"] == "completed_with_issues" and "retry" in turn["replies"][-1]["text"]
    retried = client.post(f"/api/sessions/{session_id}/actions", {"action": "retry"}, content_type="application/json")
    assert retried.json()["replies"][-1]["card"] == "plan", "a new conversion is confirmed first"
    client.post(f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json")
    body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "completed_with_issues"})
    assert [a["number"] for a in body["attempts"]] == [1, 2] and body["output"]["attempt"] == 2
    first = client.get(body["attempts"][0]["output_url"])
    assert first.status_code == 200 and b"".join(first.streaming_content)[:8] == b"\x89HDF\r\n\x1a\n"

    nwb_path = _download(client, body, tmp_path)
    with NWBHDF5IO(str(nwb_path), "r") as io:
        nwbfile = io.read()
        assert list(nwbfile.keywords[:]) == ["V1", "Neuropixels"]
        assert nwbfile.experimenter == ("Smith, Jane",)
        assert nwbfile.subject.species == "Mus musculus"
        # The file's naive start time, read in the lab's time zone (NWB stores the UTC offset).
        start = nwbfile.session_start_time
        paris = start.replace(tzinfo=None).replace(tzinfo=ZoneInfo("Europe/Paris"))
        assert start.utcoffset() == paris.utcoffset()
        assert start.replace(tzinfo=None).isoformat() == body["metadata"]["session_start_time"]["value"]
        series = list(nwbfile.acquisition.values())
        assert len(series) == 2, "AP and LF streams go into one file"
        ap = next(s for s in series if s.rate == 30000.0)
        np.testing.assert_array_equal(ap.data[:], _source_samples(recording["ap_bin"], 384))


def test_real_noise4sam_recording_converts_sample_exact(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    folder = real_data("spikeglx/Noise4Sam_g0")
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    _upload(client, session_id, folder)
    body = _converse_to_completion(client, session_id)

    nwb_path = _download(client, body, tmp_path)
    with NWBHDF5IO(str(nwb_path), "r") as io:
        series = next(iter(io.read().acquisition.values()))
        source = _source_samples(folder / "Noise4Sam_g0_t0.imec0.ap.bin", 384)
        np.testing.assert_array_equal(series.data[:], source)

"""Choosing streams and asking for a stub preview in the conversation, through the API, on a real
worker: the preview is a real NWB file of the first seconds, never validated, and the full
conversion then writes exactly the chosen streams."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from pynwb import NWBHDF5IO

from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, wait_for, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)

METADATA = "Jane Smith, MIT, V1 recording during passive viewing, subject mouse-7, mouse, female, 12 weeks"


def _post(client: Any, path: str, body: dict[str, Any]) -> Any:
    return client.post(path, body, content_type="application/json")


def _start(client: Any, tmp_path: Path) -> tuple[str, dict[str, Path]]:
    recording = write_spikeglx(tmp_path / "rec", run="v1", duration_s=3.0, n_channels=16, with_lf=True, seed=5)
    session_id = _post(client, "/api/sessions", {"title": "streams"}).json()["id"]
    folder = recording["ap_bin"].parent
    files = sorted(p for p in folder.iterdir() if p.is_file())
    response = client.post(
        f"/api/sessions/{session_id}/files",
        {
            "files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files],
            "relative_paths": [p.name for p in files],
        },
    )
    assert response.status_code == 201, response.content
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    turn = _post(client, f"/api/sessions/{session_id}/messages", {"text": METADATA}).json()
    assert turn["session"]["awaiting"] == "approval", turn["replies"]
    return session_id, recording


def _series(path: Path) -> dict[str, tuple[int, int]]:
    with NWBHDF5IO(str(path), "r", load_namespaces=True) as io:
        nwbfile = io.read()
        return {name: tuple(series.data.shape) for name, series in nwbfile.acquisition.items()}


def _download(client: Any, url: str, target: Path) -> Path:
    response = client.get(url)
    assert response.status_code == 200, response.content
    target.write_bytes(b"".join(response.streaming_content))
    return target


def test_only_the_ap_band_then_a_preview_then_the_full_conversion(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id, _ = _start(client, tmp_path)
    base = f"/api/sessions/{session_id}"

    plan = _post(client, f"{base}/messages", {"text": "only the AP band"}).json()
    card = plan["replies"][-1]
    assert card["card"] == "plan"
    assert [s["id"] for s in card["data"]["streams"]] == ["imec0.ap"]
    assert {s["id"]: s["selected"] for s in card["data"]["all_streams"]} == {"imec0.ap": True, "imec0.lf": False}
    assert "Left out" in card["text"] and "LF" in card["text"]
    facts = plan["session"]["metadata"]
    assert facts["channel_count"] == {"value": 16, "source": "file"}
    assert facts["sampling_rate_hz"] == {"value": 30000.0, "source": "file"}

    asked = _post(client, f"{base}/actions", {"action": "preview"}).json()
    assert asked["session"]["status"] == "awaiting_approval", "a preview does not move the conversation"
    assert "first seconds" in asked["replies"][-1]["text"]

    def preview_card() -> dict[str, Any] | None:
        messages = client.get(base).json()["messages"]
        return next((m for m in messages if m["card"] == "preview"), None)

    card = wait_for(preview_card, timeout=120, what="the preview card")
    assert card["text"].startswith("Preview 1 is ready") and "Approve to convert the whole recording" in card["text"]
    summary = card["data"]["summary"]
    assert summary["subject"]["subject_id"] == "mouse-7"
    assert summary["subject"]["species"] == "Mus musculus"
    body = client.get(base).json()
    assert body["status"] == "awaiting_approval" and body["attempts"] == [], "a preview is not an attempt"
    (preview,) = body["previews"]
    assert preview["state"] == "succeeded" and preview["streams"] == ["imec0.ap"]
    stub = _series(_download(client, preview["url"], tmp_path / "preview.nwb"))
    assert "desc-preview" in client.get(preview["url"])["Content-Disposition"]
    assert len(stub) == 1
    ((_, (stub_samples, stub_channels)),) = stub.items()
    assert (stub_samples, stub_channels) == (60_000, 16), "the first 2 s of 3 s, every channel"

    _post(client, f"{base}/actions", {"action": "approve"})
    body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "failed"})
    assert body["status"] != "failed", body["messages"][-1]["text"]
    assert body["attempts"][0]["streams"] == ["imec0.ap"]
    full = _series(_download(client, body["output"]["url"], tmp_path / "full.nwb"))
    assert list(full.values()) == [(90_000, 16)], full
    assert "preview" not in body["output"]["url"]


def test_a_stream_that_does_not_exist_is_refused_with_the_list(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id, _ = _start(client, tmp_path)
    refused = _post(client, f"/api/sessions/{session_id}/actions", {"action": "select_streams", "value": ["imec9.ap"]})
    assert refused.status_code == 409
    assert "imec9.ap" in refused.json()["detail"] and "imec0.lf" in refused.json()["detail"]
    chosen = _post(client, f"/api/sessions/{session_id}/actions", {"action": "select_streams", "value": ["imec0.lf"]})
    assert chosen.status_code == 200
    assert [s["id"] for s in chosen.json()["replies"][-1]["data"]["streams"]] == ["imec0.lf"]


@pytest.mark.parametrize(("who", "status"), [("ada", 200), ("mia", 200), ("ben", 404), ("carl", 404), (None, 401)])
def test_who_may_download_a_preview(
    live_world: World, celery_worker_thread: Any, tmp_path: Path, who: str | None, status: int
) -> None:
    owner = live_world.client("ada")
    session_id, _ = _start(owner, tmp_path)
    _post(owner, f"/api/sessions/{session_id}/actions", {"action": "preview"})

    def ready() -> str | None:
        previews = owner.get(f"/api/sessions/{session_id}").json()["previews"]
        return previews[0]["url"] if previews and previews[0]["url"] else None

    url = wait_for(ready, timeout=120, what="the preview")
    assert live_world.client(who).get(url).status_code == status
    # Asking for a preview is as private as the session.
    asked = _post(live_world.client(who), f"/api/sessions/{session_id}/actions", {"action": "preview"})
    assert asked.status_code == (200 if status == 200 else status)
    if status == 200:
        # The second preview finishes before the test's database is emptied under the worker.
        def second_done() -> bool:
            previews = owner.get(f"/api/sessions/{session_id}").json()["previews"]
            return len(previews) == 2 and all(p["state"] not in ("queued", "running") for p in previews)

        wait_for(second_done, timeout=120, what="the second preview")


def test_a_species_dandi_knows_only_by_its_taxonomy_link_is_asked_for_again(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    recording = write_spikeglx(tmp_path / "rec", run="song", duration_s=0.2, n_channels=8, seed=9)
    session_id = _post(client, "/api/sessions", {"title": "finch"}).json()["id"]
    base = f"/api/sessions/{session_id}"
    files = sorted(p for p in recording["ap_bin"].parent.iterdir() if p.is_file())
    client.post(
        f"{base}/files",
        {
            "files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files],
            "relative_paths": [p.name for p in files],
        },
    )
    wait_for_status(client, session_id, {"awaiting_user_input"})
    said = "Jane Smith, MIT, HVC recording during song, subject bird-3, zebra finch, male, 120 days"
    turn = _post(client, f"{base}/messages", {"text": said}).json()
    assert turn["session"]["metadata"]["species"]["value"] == "Taeniopygia guttata"
    _post(client, f"{base}/actions", {"action": "approve"})

    body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "failed"})
    assert body["awaiting"] == "correction", body["messages"][-1]["text"]
    dandi = [i for i in body["issues"] if i["check_name"] == "dandi_upload_metadata_rejected"]
    assert dandi and dandi[0]["importance"] == "CRITICAL" and "NCBI Taxonomy link" in dandi[0]["explanation"]
    assert "species" in body["messages"][-1]["text"]

    link = "http://purl.obolibrary.org/obo/NCBITaxon_59729"
    _post(client, f"{base}/messages", {"text": f"species: {link}"})
    body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "failed"})
    assert [a["number"] for a in body["attempts"]] == [1, 2]
    assert body["metadata"]["species"]["value"] == link
    assert not [i for i in body["issues"] if i["check_name"].startswith("dandi")], body["issues"]

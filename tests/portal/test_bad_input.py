"""Bad input gets a plain answer, and the session stays usable afterwards."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)


def _send(client: Any, session_id: str, files: dict[str, bytes]) -> Any:
    uploads = [SimpleUploadedFile(Path(p).name, data) for p, data in files.items()]
    return client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": list(files)})


def _folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder.parent).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _detect_and_recover(client: Any, session_id: str, bad: dict[str, bytes], good: Path) -> str:
    """Upload `bad` and return the portal's answer; then take the bad files out, send a good
    recording, and check the same session goes on as if nothing had happened."""
    assert _send(client, session_id, bad).status_code == 201
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["status"] == "idle", "a bad upload must not be taken for a recording"
    answer = body["messages"][-1]["text"]
    assert "Traceback" not in answer and "Error:" not in answer

    for name in bad:
        response = client.delete(f"/api/sessions/{session_id}/files/{name}")
        assert response.status_code == 200, response.content
    assert client.get(f"/api/sessions/{session_id}").json()["files"] == []
    assert _send(client, session_id, _folder_bytes(good)).status_code == 201
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    return answer


@pytest.fixture
def good(tmp_path: Path) -> Path:
    return write_spikeglx(tmp_path / "good", run="good", duration_s=0.2)["ap_bin"].parent


@pytest.fixture
def session_id(live_world: World) -> str:
    return live_world.client("ada").post("/api/sessions", {}, content_type="application/json").json()["id"]


def test_a_file_that_is_not_a_recording(
    live_world: World, celery_worker_thread: Any, session_id: str, good: Path
) -> None:
    answer = _detect_and_recover(live_world.client("ada"), session_id, {"notes.txt": b"hello"}, good)
    assert "notes.txt" in answer and "SpikeGLX" in answer


def test_a_truncated_bin(
    live_world: World, celery_worker_thread: Any, session_id: str, good: Path, tmp_path: Path
) -> None:
    files = _folder_bytes(write_spikeglx(tmp_path / "cut", run="cut", duration_s=0.2)["ap_bin"].parent)
    bin_name = next(name for name in files if name.endswith(".bin"))
    complete = files[bin_name]
    files[bin_name] = complete[:-3]
    client = live_world.client("ada")
    assert _send(client, session_id, files).status_code == 201
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["status"] == "idle"
    assert Path(bin_name).name in body["messages"][-1]["text"] and "incomplete" in body["messages"][-1]["text"]

    # Sending the file again under the same name replaces the cut copy.
    assert _send(client, session_id, {bin_name: complete}).status_code == 201
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]


def test_removing_a_damaged_file_detects_the_rest_again(
    live_world: World, celery_worker_thread: Any, session_id: str, good: Path, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    broken = _folder_bytes(write_spikeglx(tmp_path / "cut", run="cut", duration_s=0.2)["ap_bin"].parent)
    broken = {name: data[:-3] if name.endswith(".bin") else data for name, data in broken.items()}
    assert _send(client, session_id, {**broken, **_folder_bytes(good)}).status_code == 201
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["status"] == "idle"
    for name in broken:
        assert client.delete(f"/api/sessions/{session_id}/files/{name}").status_code == 200
    body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    assert {f["path"] for f in body["files"]} == set(_folder_bytes(good))


def test_removing_a_file_that_is_not_there(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.delete(f"/api/sessions/{session_id}/files/nothing.bin")
    assert response.status_code == 404 and "nothing.bin" in response.json()["detail"]


def test_an_upload_with_no_files(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.post(f"/api/sessions/{session_id}/files", {})
    assert response.status_code == 400
    assert "No files" in response.json()["detail"]
    assert client.get(f"/api/sessions/{session_id}").json()["status"] == "idle"


@pytest.mark.parametrize(
    "path", ["../../etc/passwd", "/etc/passwd", "a/../../b", "C:/x.bin", "a\x00b.bin", "x" * 300 + ".bin", "\n"]
)
def test_paths_that_leave_the_upload_folder_are_refused(
    live_world: World, celery_worker_thread: Any, path: str, data_root: Path
) -> None:
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    upload = SimpleUploadedFile("x.bin", b"\0\0")
    response = client.post(f"/api/sessions/{session_id}/files", {"files": [upload], "relative_paths": [path]})
    if response.status_code == 201:
        stored = response.json()["files"][0]["path"]
        assert ".." not in stored and not stored.startswith("/")
        assert (data_root / "sessions" / session_id / "source" / stored).is_file()
        # Kept inside the session's folder, it is looked at like any other file, and answered plainly.
        body = wait_for_status(client, session_id, {"idle", "awaiting_user_input"})
        assert body["status"] == "idle" and stored in body["messages"][-1]["text"]
    else:
        assert response.status_code == 400


def test_paths_and_files_must_pair_up(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    upload = SimpleUploadedFile("x.bin", b"\0\0")
    response = client.post(
        f"/api/sessions/{session_id}/files", {"files": [upload], "relative_paths": ["a/x.bin", "a/y.bin"]}
    )
    assert response.status_code == 400 and "path" in response.json()["detail"]


@pytest.mark.parametrize("text", ["", "   \n "])
def test_an_empty_message(world: World, text: str) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    before = client.get(f"/api/sessions/{session_id}").json()["messages"]
    response = client.post(f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json")
    assert response.status_code == 400
    assert "empty" in response.json()["detail"]
    assert client.get(f"/api/sessions/{session_id}").json()["messages"] == before, "nothing was said"
    follow_up = client.post(f"/api/sessions/{session_id}/messages", {"text": "help"}, content_type="application/json")
    assert follow_up.status_code == 200 and follow_up.json()["replies"]


def test_an_action_that_makes_no_sense_now(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.post(
        f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
    )
    assert response.status_code == 409
    assert "nothing to approve" in response.json()["detail"]


def test_an_unknown_action(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.post(
        f"/api/sessions/{session_id}/actions", {"action": "explode"}, content_type="application/json"
    )
    assert response.status_code == 422


def test_downloading_before_any_conversion(world: World) -> None:
    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    response = client.get(f"/api/sessions/{session_id}/output")
    assert response.status_code == 404 and "no NWB file" in response.json()["detail"]


def test_what_detection_found_is_forgotten_when_the_files_change(world: World) -> None:
    from conversions.models import ConversionSession
    from conversions.services import sessions

    client = world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    assert _send(client, session_id, {"run/x.bin": b"\0\0"}).status_code == 201
    ConversionSession.objects.filter(id=session_id).update(
        status="failed",
        format="spikeglx",
        detection={
            "format": "spikeglx",
            "format_label": "SpikeGLX",
            "default_streams": ["imec0.ap"],
            "streams": [
                {
                    "id": "imec0.ap",
                    "label": "AP",
                    "channel_count": 1,
                    "sampling_rate_hz": 30000.0,
                    "duration_s": 0.0,
                    "size_bytes": 2,
                    "files": ["run/x.bin"],
                }
            ],
        },
    )
    session = sessions.get_session(world.users["ada"], session_id)
    sessions.remove_file(session=session, user=world.users["ada"], relative_path="run/x.bin")
    body = client.get(f"/api/sessions/{session_id}").json()
    assert (body["status"], body["format"]) == ("idle", "")
    retry = client.post(f"/api/sessions/{session_id}/actions", {"action": "retry"}, content_type="application/json")
    assert retry.status_code == 409 and "nothing to retry" in retry.json()["detail"]

"""Browsing a lab's server storage and importing from it: what is listed, that nothing outside the
root is reachable, a real recording imported and recognised, and who may do what."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote

import pytest
from django.test import Client

from conversions.errors import BadRequest
from conversions.models import AuditEvent, ConversionSession, Lab
from conversions.services import sessions, uploads
from tests.conftest import World, real_data, wait_for_status

SECRET = b"another lab's recording"


@pytest.fixture
def storage(tmp_path: Path) -> Path:
    """A lab's storage, with a secret file beside it and links that try to reach it."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.bin").write_bytes(SECRET)
    root = tmp_path / "lab-storage"
    (root / "mouse1" / "day1").mkdir(parents=True)
    (root / "mouse1" / "day1" / "notes.txt").write_bytes(b"good day")
    (root / "mouse1" / ".hidden").write_bytes(b"x")
    (root / "b-file.txt").write_bytes(b"12345")
    (root / "A-folder").mkdir()
    (root / ".DS_Store").write_bytes(b"x")
    (root / "link-out").symlink_to(outside / "secret.bin")
    (root / "link-out-folder").symlink_to(outside)
    (root / "link-in").symlink_to(root / "b-file.txt")
    (root / "broken-link").symlink_to(root / "nowhere")
    os.mkfifo(root / "a-pipe")
    (root / "loop").symlink_to(root / "loop")
    return root


@pytest.fixture
def lab(world: World, storage: Path) -> Lab:
    world.lab.data_root = str(storage)
    world.lab.save()
    return world.lab


@pytest.fixture
def session(world: World, lab: Lab) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"])


def _browse(client: Client, lab: Lab, path: str | None = None) -> Any:
    query = "" if path is None else f"?path={quote(path)}"
    return client.get(f"/api/labs/{lab.id}/storage{query}")


def _import(client: Client, session: ConversionSession, paths: list[str]) -> Any:
    return client.post(f"/api/sessions/{session.id}/storage-imports", {"paths": paths}, content_type="application/json")


# --- browsing ---------------------------------------------------------------------------------------


def test_a_folder_lists_folders_first_then_files_without_hidden_entries_or_links_out(world: World, lab: Lab) -> None:
    response = _browse(world.client("ada"), lab)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["path"] == "" and body["truncated"] is False
    assert [(e["name"], e["kind"], e["size_bytes"]) for e in body["entries"]] == [
        ("A-folder", "folder", None),
        ("mouse1", "folder", None),
        ("b-file.txt", "file", 5),
        ("link-in", "file", 5),
    ]
    assert all(e["modified"] for e in body["entries"])
    inner = _browse(world.client("ada"), lab, "mouse1/day1").json()
    assert inner["path"] == "mouse1/day1"
    assert [e["name"] for e in inner["entries"]] == ["notes.txt"]


def test_a_long_folder_is_listed_up_to_the_limit(world: World, lab: Lab, storage: Path, settings: Any) -> None:
    settings.STORAGE_BROWSE_MAX_ENTRIES = 2
    body = _browse(world.client("ada"), lab).json()
    assert [e["name"] for e in body["entries"]] == ["A-folder", "mouse1"]
    assert body["truncated"] is True


def test_a_lab_without_storage_or_with_an_unreachable_one_says_so(world: World, lab: Lab, tmp_path: Path) -> None:
    lab.data_root = ""
    lab.save()
    response = _browse(world.client("ada"), lab)
    assert response.status_code == 404 and "no server storage" in response.json()["detail"]
    lab.data_root = str(tmp_path / "unmounted")
    lab.save()
    response = _browse(world.client("ada"), lab)
    assert response.status_code == 503 and "cannot be reached" in response.json()["detail"]
    assert str(tmp_path) not in response.json()["detail"], "the server's paths are not shown"


TRAVERSALS = [
    "..",
    "../",
    "../outside",
    "mouse1/../../outside",
    "mouse1/../..",
    "./../outside",
    "/etc",
    "//etc",
    "/",
    "\\etc",
    "..\\outside",
    "mouse1\\..\\..\\outside",
    "~",
    "~/secret.bin",
    "C:/Windows",
    "link-out",
    "link-out-folder",
    "link-out-folder/secret.bin",
    "broken-link",
    "loop",
    "mouse1/\x00",
    "\x00",
    "mouse1%2F..%2F..",
    "%2e%2e/outside",
    "\u2025/outside",
    "mouse1/\n../..",
]


@pytest.mark.parametrize("path", TRAVERSALS)
def test_nothing_outside_the_root_can_be_browsed(world: World, lab: Lab, path: str) -> None:
    response = _browse(world.client("ada"), lab, path)
    assert response.status_code in (400, 404), (path, response.content)
    assert SECRET not in response.content and "entries" not in response.json()


@pytest.mark.parametrize("path", TRAVERSALS)
def test_nothing_outside_the_root_can_be_imported(
    world: World, session: ConversionSession, path: str, data_root: Path
) -> None:
    response = _import(world.client("ada"), session, ["b-file.txt", path])
    assert response.status_code in (400, 404), (path, response.content)
    assert not session.files.exists(), "nothing of the request is imported"
    copied = [p for p in data_root.rglob("*") if p.is_file()]
    assert all(p.read_bytes() != SECRET for p in copied)
    assert not any(p.name == "b-file.txt" for p in copied)


def test_a_folder_with_a_link_leading_out_is_refused_whole(
    world: World, session: ConversionSession, storage: Path
) -> None:
    (storage / "mouse1" / "day1" / "stolen.bin").symlink_to(storage.parent / "outside" / "secret.bin")
    response = _import(world.client("ada"), session, ["mouse1"])
    assert response.status_code == 400
    detail = response.json()["detail"]
    assert detail == "“mouse1/day1/stolen.bin” leads outside the lab's storage; nothing was imported."
    assert not session.source_directory.exists() or not any(session.source_directory.rglob("*"))


def test_a_file_swapped_for_a_link_after_the_check_is_caught_when_opened(storage: Path, tmp_path: Path) -> None:
    root = storage.resolve()
    outside = (storage.parent / "outside").resolve()
    # Checked as a file, then replaced by a link to the secret before it is opened.
    swapped = root / "b-file.txt"
    swapped.unlink()
    swapped.symlink_to(outside / "secret.bin")
    # Checked as a folder of the root, then replaced by a link to a folder outside.
    (root / "A-folder").rmdir()
    (root / "A-folder").symlink_to(outside)
    for source in (swapped, root / "A-folder" / "secret.bin"):
        plan = uploads._Copy(source=source, destination=PurePosixPath("x.bin"), size_bytes=5)
        with pytest.raises(BadRequest):
            uploads._copy_file(root, plan, tmp_path / "copy.partial")
        assert not (tmp_path / "copy.partial").exists() or (tmp_path / "copy.partial").read_bytes() != SECRET


# --- importing --------------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_real_recording_imported_from_storage_is_recognised(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    recording = real_data("spikeglx/Noise4Sam_g0")
    storage = tmp_path / "lab-storage"
    shutil.copytree(recording, storage / "2024" / recording.name)
    (storage / "2024" / "notes.txt").write_text("mouse 7")
    live_world.lab.data_root = str(storage)
    live_world.lab.save()
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]

    response = client.post(
        f"/api/sessions/{session_id}/storage-imports",
        {"paths": [f"2024/{recording.name}", "2024/notes.txt"]},
        content_type="application/json",
    )
    assert response.status_code == 201, response.content
    expected = sorted([*(f"{recording.name}/{p.name}" for p in recording.iterdir()), "notes.txt"])
    assert sorted(f["path"] for f in response.json()["files"]) == expected
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["format"] == "spikeglx", body["messages"][-1]["text"]
    session = ConversionSession.objects.get(id=session_id)
    for original in recording.iterdir():
        copy = session.source_directory / recording.name / original.name
        assert hashlib.sha256(copy.read_bytes()).digest() == hashlib.sha256(original.read_bytes()).digest()
        assert os.stat(copy).st_ino != os.stat(original).st_ino, "a copy, not the lab's file itself"
    assert not list(session.source_directory.rglob(".*.partial"))
    event = AuditEvent.objects.get(session=session, kind="files_added")
    assert event.detail["how"] == "storage import" and sorted(event.detail["files"]) == expected
    assert sum(m["text"].startswith("Received 3 files") for m in body["messages"]) == 1


def test_two_selections_with_the_same_name_are_refused(world: World, session: ConversionSession, storage: Path) -> None:
    (storage / "A-folder" / "b-file.txt").write_bytes(b"other")
    response = _import(world.client("ada"), session, ["b-file.txt", "A-folder/b-file.txt"])
    assert response.status_code == 400 and "named twice" in response.json()["detail"]


def test_an_empty_choice_the_whole_storage_and_an_empty_folder_are_refused(
    world: World, session: ConversionSession
) -> None:
    client = world.client("ada")
    assert "Choose the files" in _import(client, session, []).json()["detail"]
    assert "not the whole storage" in _import(client, session, [""]).json()["detail"]
    assert "hold no files" in _import(client, session, ["A-folder"]).json()["detail"]
    assert "neither a file nor a folder" in _import(client, session, ["a-pipe"]).json()["detail"]


def test_hidden_files_stay_behind_and_links_inside_are_followed(world: World, session: ConversionSession) -> None:
    response = _import(world.client("ada"), session, ["mouse1", "link-in"])
    assert response.status_code == 201, response.content
    assert sorted(f["path"] for f in response.json()["files"]) == ["link-in", "mouse1/day1/notes.txt"]
    assert (session.source_directory / "link-in").read_bytes() == b"12345"
    assert not (session.source_directory / "link-in").is_symlink()


def test_no_import_while_a_conversion_runs(world: World, session: ConversionSession) -> None:
    ConversionSession.objects.filter(id=session.id).update(status="converting")
    response = _import(world.client("ada"), session, ["b-file.txt"])
    assert response.status_code == 409 and "A conversion is running" in response.json()["detail"]
    assert not session.files.exists()


# --- who may do what --------------------------------------------------------------------------------

BROWSE = {"ada": 200, "ben": 200, "mia": 200, "carl": 404, "staff": 404, None: 401}
IMPORT = {"ada": 201, "ben": 404, "mia": 201, "carl": 404, "staff": 403, None: 401}


@pytest.mark.parametrize("person", list(BROWSE))
def test_who_may_browse(world: World, lab: Lab, person: str | None) -> None:
    response = _browse(world.client(person), lab)
    assert response.status_code == BROWSE[person]
    assert (b"mouse1" in response.content) is (response.status_code == 200)


@pytest.mark.parametrize("person", list(BROWSE))
def test_who_may_browse_the_other_lab(world: World, lab: Lab, storage: Path, person: str | None) -> None:
    world.other_lab.data_root = str(storage)
    world.other_lab.save()
    response = _browse(world.client(person), world.other_lab)
    expected = {"carl": 200, None: 401}.get(person, 404)  # type: ignore[arg-type]
    assert response.status_code == expected


@pytest.mark.parametrize("person", list(IMPORT))
def test_who_may_import(world: World, session: ConversionSession, person: str | None) -> None:
    response = _import(world.client(person), session, ["b-file.txt"])
    assert response.status_code == IMPORT[person], response.content
    assert session.files.count() == (1 if response.status_code == 201 else 0)
    if person == "staff":
        assert "Only members of this session's lab" in response.json()["detail"]


def test_the_page_part_offers_server_storage_only_when_the_lab_has_one(
    world: World, session: ConversionSession, lab: Lab
) -> None:
    from django.template.loader import render_to_string

    with_storage = render_to_string("conversions/_upload.html", {"session": session})
    assert "From server storage" in with_storage and f'data-lab-id="{lab.id}"' in with_storage
    assert str(lab.data_root) not in with_storage, "the server's path is not shown"
    lab.data_root = ""
    lab.save()
    session.refresh_from_db()
    without = render_to_string("conversions/_upload.html", {"session": session})
    assert "From server storage" not in without and 'id="uploader-files"' in without
    for control in ("uploader-files", "uploader-folder", "uploader-overall-bar"):
        assert f'<label for="{control}"' in without, f"{control} has a label"

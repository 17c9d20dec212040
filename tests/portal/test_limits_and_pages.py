"""What a user can grow is bounded and what can grow long is sent a page at a time: the files of a
session (every way in: a folder upload, uploads in pieces, an import from the lab's storage), the
subjects of a lab's registry (one by one and by CSV), API keys, the review queue; and a storage
import larger than the disk is the server's capacity (507), not its failure."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ApiToken, ConversionSession, Subject
from conversions.services import sessions
from tests.conftest import World
from tests.factories import SubjectFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(world: World, data_root: Path) -> ConversionSession:
    return sessions.create_session(user=world.users["ada"])


def _upload(world: World, session: ConversionSession, names: list[str]) -> Any:
    files = [SimpleUploadedFile(name, b"x") for name in names]
    return world.client("ada").post(f"/api/sessions/{session.id}/files", {"files": files})


def test_a_session_holds_at_most_session_max_files_by_every_way_in(
    world: World, session: ConversionSession, settings: Any, tmp_path: Path
) -> None:
    settings.SESSION_MAX_FILES = 3
    assert _upload(world, session, ["a.bin", "b.bin"]).status_code == 201
    assert _upload(world, session, ["a.bin"]).status_code == 201, "a file sent again replaces itself"
    refused = _upload(world, session, ["c.bin", "d.bin"])
    assert refused.status_code == 400 and "at most 3" in refused.json()["detail"]
    assert sorted(session.files.values_list("relative_path", flat=True)) == ["a.bin", "b.bin"]
    assert not (session.source_directory / "c.bin").exists(), "nothing was stored"

    declared = world.client("ada").post(
        f"/api/sessions/{session.id}/uploads",
        {"files": [{"path": "p.bin", "size_bytes": 10}, {"path": "q.bin", "size_bytes": 10}]},
        content_type="application/json",
    )
    assert declared.status_code == 400 and "at most 3" in declared.json()["detail"]

    storage = tmp_path / "storage"
    (storage / "folder").mkdir(parents=True)
    for name in ("x.bin", "y.bin"):
        (storage / "folder" / name).write_bytes(b"12")
    world.lab.data_root = str(storage)
    world.lab.save()
    imported = world.client("ada").post(
        f"/api/sessions/{session.id}/storage-imports", {"paths": ["folder"]}, content_type="application/json"
    )
    assert imported.status_code == 400 and "at most 3" in imported.json()["detail"]
    assert session.files.count() == 2


def test_a_storage_import_larger_than_the_disk_is_507(
    world: World, session: ConversionSession, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conversions.services import uploads

    storage = tmp_path / "storage"
    storage.mkdir()
    (storage / "big.bin").write_bytes(b"0" * 1000)
    world.lab.data_root = str(storage)
    world.lab.save()
    monkeypatch.setattr(uploads, "_free_bytes", lambda _session: 10)  # the disk as it would be
    answer = world.client("ada").post(
        f"/api/sessions/{session.id}/storage-imports", {"paths": ["big.bin"]}, content_type="application/json"
    )
    assert answer.status_code == 507 and "free" in answer.json()["detail"]
    assert session.files.count() == 0


def test_a_registry_holds_at_most_lab_max_subjects(world: World, settings: Any) -> None:
    settings.LAB_MAX_SUBJECTS = 3
    mia = world.client("mia")
    url = f"/api/labs/{world.lab.id}/subjects"
    for number in range(3):
        assert mia.post(url, {"subject_id": f"m{number}"}, content_type="application/json").status_code == 201
    full = mia.post(url, {"subject_id": "m3"}, content_type="application/json")
    assert full.status_code == 409 and "more than 3 subjects" in full.json()["detail"]

    Subject.objects.filter(lab=world.lab, subject_id="m2").delete()
    csv = b"subject_id,species\nm0,mouse\nm5,mouse\nm6,mouse\n"
    browser = world.browser("mia")
    browser.get(f"/labs/{world.lab.id}/settings")
    page = browser.post(
        f"/labs/{world.lab.id}/subjects/import",
        {"file": SimpleUploadedFile("s.csv", csv), "csrfmiddlewaretoken": browser.cookies["csrftoken"].value},
    )
    assert "more than 3 subjects" in page.content.decode()
    assert sorted(Subject.objects.filter(lab=world.lab).values_list("subject_id", flat=True)) == ["m0", "m1"]
    assert Subject.objects.get(lab=world.lab, subject_id="m0").species == "", "all or nothing"


def test_the_lists_page_with_a_total_and_a_link_to_the_next(world: World, data_root: Path) -> None:
    for number in range(4):
        ApiToken.issue(world.users["ada"], f"key {number}")
        SubjectFactory(lab=world.lab, subject_id=f"s{number}")
    ada = world.client("ada")
    keys = ada.get("/api/keys?limit=2")
    assert keys["X-Total-Count"] == "5" and "offset=2" in keys["Link"] and len(keys.json()) == 2
    last = ada.get("/api/keys?limit=2&offset=4")
    assert len(last.json()) == 1 and not last.has_header("Link")
    subjects = ada.get(f"/api/labs/{world.lab.id}/subjects?limit=3&offset=0")
    assert subjects["X-Total-Count"] == "4" and [s["subject_id"] for s in subjects.json()] == ["s0", "s1", "s2"]
    assert ada.get("/api/keys?offset=100000000000").status_code == 422, "an offset past the bound is refused"

    for _ in range(3):
        flagged = sessions.create_session(user=world.users["ada"])
        ConversionSession.objects.filter(id=flagged.id).update(needs_review=True, review_reason="test")
    queue = world.client("staff").get("/api/review/queue?limit=2")
    assert queue.status_code == 200 and queue["X-Total-Count"] == "3" and len(queue.json()["sessions"]) == 2
    assert queue.json()["counts"]["total"] == 3, "the counts are of the whole queue"


def test_the_registry_and_the_queue_pages_show_a_page_at_a_time(
    world: World, data_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from conversions.web import labs as lab_views
    from conversions.web import review as review_views

    Subject.objects.bulk_create(
        Subject(lab=world.lab, subject_id=f"mouse{number:04d}") for number in range(lab_views.SUBJECTS_PER_PAGE + 5)
    )
    lab_page = world.browser("mia").get(f"/labs/{world.lab.id}/settings").content.decode()
    assert "mouse0000" in lab_page and f"mouse{lab_views.SUBJECTS_PER_PAGE:04d}" not in lab_page
    assert "Page 1 of 2" in lab_page
    second = world.browser("mia").get(f"/labs/{world.lab.id}/settings?page=2").content.decode()
    assert f"mouse{lab_views.SUBJECTS_PER_PAGE:04d}" in second and "mouse0000" not in second

    monkeypatch.setattr(review_views, "QUEUE_PER_PAGE", 2)
    for _ in range(3):
        flagged = sessions.create_session(user=world.users["ada"])
        ConversionSession.objects.filter(id=flagged.id).update(needs_review=True, review_reason="test")
    queue = world.browser("staff").get("/review/?page=2").content.decode()
    assert "Page 2 of 2 (3 in all)" in queue


def test_sessions_a_user_starts_in_a_day_are_bounded(world: World, data_root: Path, settings: Any) -> None:
    settings.SESSIONS_PER_DAY = 2
    ada = world.client("ada")
    assert [ada.post("/api/sessions", {}, content_type="application/json").status_code for _ in range(2)] == [201] * 2
    refused = ada.post("/api/sessions", {}, content_type="application/json")
    assert refused.status_code == 429 and "last 24 hours" in refused.json()["detail"]
    assert world.client("ben").post("/api/sessions", {}, content_type="application/json").status_code == 201
    browser = world.browser("ada")
    browser.get("/")
    form = {"title": "one more", "csrfmiddlewaretoken": browser.cookies["csrftoken"].value}
    page = browser.post("/sessions/new", form, follow=True)
    assert (
        "last 24 hours" in page.content.decode()
        and ConversionSession.objects.filter(owner=world.users["ada"]).count() == 2
    )

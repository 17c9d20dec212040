"""The validation report (JSON and page) and the tree and plot of converted files, through the API:
real recordings converted by conversation on a real worker, and who may see what."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.models import ConversionAttempt, ConversionSession
from conversions.nwb.conversion import convert_recording
from conversions.nwb.dandi_validation import merge_findings, validate_with_dandi
from conversions.nwb.detection import detect_format
from conversions.nwb.validation import inspect_nwb
from conversions.orchestrator.state import Status
from conversions.services import sessions
from conversions.services.reports import IMPORTANCE_ORDER
from conversions.workers import jobs
from tests.conftest import World, real_data, wait_for_status
from tests.factories import AttemptFactory, PreviewFactory

SVG = "{http://www.w3.org/2000/svg}"
ABF1 = "05210017_vc_abf1.abf"
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Recordings to test the report.",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
}
ALLOWED = {"ada": True, "ben": False, "mia": True, "carl": False, "staff": True}
PEOPLE = [*ALLOWED, None]


def _expected(person: str | None, ok: int) -> int:
    if person is None:
        return 401
    return ok if ALLOWED[person] else 404


def _abf_upload(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / ABF1).symlink_to(real_data(f"abf/{ABF1}"))
    return root


def _lanes(svg: bytes) -> list[ET.Element]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root.findall(f".//{SVG}g[@class='lane']")


def _find(node: dict[str, Any], path: str) -> dict[str, Any]:
    for name in path.strip("/").split("/"):
        node = next(child for child in node["children"] if child["name"] == name)
    return node


# --- a real conversion by conversation, then its report -------------------------------------------------


def _upload(client: Any, session_id: str, files: list[Path], base: Path) -> None:
    uploads = [SimpleUploadedFile(path.name, path.read_bytes()) for path in files]
    paths = [path.relative_to(base).as_posix() for path in files]
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": paths})
    assert response.status_code == 201, response.content


def _converse(client: Any, session_id: str, text: str) -> dict[str, Any]:
    body = wait_for_status(client, session_id, {"awaiting_user_input", "idle"})
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    turn = client.post(f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json")
    assert turn.json()["session"]["awaiting"] == "approval", turn.json()["replies"]
    client.post(f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json")
    body = wait_for_status(client, session_id, {"completed", "awaiting_user_input", "failed"})
    assert body["status"] != "failed", body["messages"][-1]["text"]
    if body["status"] == "awaiting_user_input":
        accepted = client.post(
            f"/api/sessions/{session_id}/messages", {"text": "accept as is"}, content_type="application/json"
        )
        body = accepted.json()["session"]
    return body


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(
    ("recording", "series_path", "lanes", "told"),
    [
        (
            "spikeglx/Noise4Sam_g0",
            "acquisition/ElectricalSeriesAP",
            8,
            "Dr. Jane Smith, MIT, Neuropixels recording of V1 neurons, subject mouse001, Mus musculus, male, P90D",
        ),
        (
            f"abf/{ABF1}",
            "acquisition/VoltageClampSeries05210017VcAbf1Voltage0",
            2,
            "Dr. Jane Smith, MIT, patch-clamp recording of layer 5 neurons, subject mouse001, Mus musculus, male, P90D",
        ),
    ],
)
def test_report_tree_and_plot_of_a_real_conversion(
    live_world: World, celery_worker_thread: Any, recording: str, series_path: str, lanes: int, told: str
) -> None:
    source = real_data(recording)
    files = sorted(p for p in source.rglob("*") if p.is_file()) if source.is_dir() else [source]
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {"title": "Report check"}, content_type="application/json").json()["id"]
    _upload(client, session_id, files, source.parent)
    body = _converse(client, session_id, told)
    attempt = ConversionAttempt.objects.get(session_id=session_id, number=body["output"]["attempt"])

    report = client.get(f"/api/sessions/{session_id}/report.json").json()

    assert report["session"]["owner"] == "ada" and report["session"]["lab"] == "Visual Lab"
    assert report["session"]["status"] == body["status"]
    assert report["recording"]["format"] == body["format"] and any(
        s["selected"] for s in report["recording"]["streams"]
    )
    metadata = {field["name"]: field for field in report["metadata"]}
    assert metadata["experimenter"]["value"] == ["Smith, Jane"] and metadata["experimenter"]["source_label"] == "you"
    assert metadata["session_start_time"]["source"] == "file"
    (reported_attempt,) = report["attempts"]
    assert reported_attempt["state"] == "succeeded" and reported_attempt["size_bytes"] == attempt.size_bytes
    assert reported_attempt["validation"] == attempt.validation

    # The issues are those the inspectors report on the file, grouped by importance in their order.
    validation = report["validation"]
    assert validation["attempt"] == attempt.number and validation["outcome"] == attempt.validation
    found = merge_findings(inspect_nwb(Path(attempt.output_path)), validate_with_dandi(Path(attempt.output_path)))
    assert found, "a real file has at least a suggestion or two"
    importances = [group["importance"] for group in validation["groups"]]
    assert importances == [level for level in IMPORTANCE_ORDER if any(i.importance == level for i in found)]
    for group in validation["groups"]:
        expected = [(i.check_name, i.object_name, i.location) for i in found if i.importance == group["importance"]]
        assert [(i["check_name"], i["object_name"], i["location"]) for i in group["issues"]] == expected
    assert sum(validation["counts"].values()) == len(found)
    keywords = next(i for g in validation["groups"] for i in g["issues"] if i["check_name"] == "check_keywords")
    assert keywords["fields"] == [{"name": "keywords", "label": "keywords", "anchor": "field-keywords"}]
    assert metadata["keywords"]["display"] == "not set", "the field an issue links to is listed"

    # The conversation with its audit events, in time order.
    transcript = report["transcript"]
    assert [entry["at"] for entry in transcript] == sorted(entry["at"] for entry in transcript)
    assert {"kind": "message", "role": "user", "text": told} in [
        {key: entry.get(key) for key in ("kind", "role", "text")} for entry in transcript
    ]
    assert any(
        e["kind"] == "event" and e["detail"] == {"action": "approve"} and e["actor"] == "ada" for e in transcript
    )

    page = client.get(f"/api/sessions/{session_id}/report.html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert told in html and "Conversation and audit trail" in html
    assert 'href="#field-keywords"' in html and 'id="field-keywords"' in html
    assert "<script" not in html and "<link" not in html, "the page holds everything it needs"
    for group in validation["groups"]:
        assert f"{group['label']} ({len(group['issues'])})" in html

    tree = client.get(f"/api/sessions/{session_id}/attempts/{attempt.number}/tree").json()
    data = _find(tree["root"], f"{series_path}/data")
    assert data["shape"][0] > 0 and data["unit"] in ("volts", "amperes")
    plot = client.get(f"/api/sessions/{session_id}/attempts/{attempt.number}/plot.svg")
    assert plot.status_code == 200 and plot["Content-Type"].startswith("image/svg+xml")
    assert len(_lanes(plot.content)) == lanes


# --- the report's parts, on files converted once for this module -------------------------------------


@pytest.fixture(scope="module")
def abf_nwb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = _abf_upload(tmp_path_factory.mktemp("abf") / "upload")
    output = root.parent / "abf1.nwb"
    convert_recording(
        source_root=root,
        detection=detect_format(root),
        stream_ids=[],
        metadata=METADATA,
        timezone="Europe/Paris",
        output_path=output,
    )
    return output


@pytest.fixture(scope="module")
def preview_nwb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A stub conversion of the real Noise4Sam recording, as a preview makes it."""
    folder = real_data("spikeglx/Noise4Sam_g0")
    output = tmp_path_factory.mktemp("preview") / "preview.nwb"
    convert_recording(
        source_root=folder,
        detection=detect_format(folder),
        stream_ids=[],
        metadata=METADATA,
        timezone="Europe/Paris",
        output_path=output,
        stub=True,
    )
    return output


@pytest.fixture
def session(world: World, abf_nwb: Path, preview_nwb: Path) -> ConversionSession:
    """Ada's session with a converted attempt 1 (the ABF file) and a preview 1 (Noise4Sam's stub)."""
    session = sessions.create_session(user=world.users["ada"], title="Patch clamp, cell 3")
    AttemptFactory(
        session=session, number=1, state="succeeded", output_path=str(abf_nwb), size_bytes=abf_nwb.stat().st_size
    )
    PreviewFactory(session=session, number=1, state="succeeded", output_path=str(preview_nwb), size_bytes=1)
    return session


ENDPOINTS = [
    ("report.json", "application/json"),
    ("report.html", "text/html"),
    ("attempts/1/tree", "application/json"),
    ("attempts/1/plot.svg", "image/svg+xml"),
    ("previews/1/tree", "application/json"),
    ("previews/1/plot.svg", "image/svg+xml"),
]


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.parametrize(("endpoint", "content_type"), ENDPOINTS)
def test_who_may_see_reports_trees_and_plots(
    world: World, session: ConversionSession, person: str | None, endpoint: str, content_type: str
) -> None:
    response = world.client(person).get(f"/api/sessions/{session.id}/{endpoint}")

    assert response.status_code == _expected(person, 200)
    if response.status_code == 200:
        assert response["Content-Type"].startswith(content_type)
    elif person is not None:
        assert response.json() == {"detail": "No such conversion session."}, "nothing about the session leaks"


def test_the_logged_in_browser_sees_the_report_too(world: World, session: ConversionSession) -> None:
    assert world.browser("ada").get(f"/api/sessions/{session.id}/report.html").status_code == 200
    assert world.browser("ben").get(f"/api/sessions/{session.id}/report.html").status_code == 404


def test_issues_are_grouped_most_important_first(world: World, session: ConversionSession) -> None:
    attempt = session.attempts.get(number=1)
    jobs.validate_attempt(attempt.id)  # the portal's own validation job: nwbinspector and DANDI's validator
    stored = list(attempt.issues.order_by("id"))
    assert [i.importance for i in stored] != sorted((i.importance for i in stored), key=IMPORTANCE_ORDER.index), (
        "the inspector's own order mixes importances, so the grouping is tested"
    )

    validation = world.client("ada").get(f"/api/sessions/{session.id}/report.json").json()["validation"]

    assert [g["importance"] for g in validation["groups"]] == ["BEST_PRACTICE_VIOLATION", "BEST_PRACTICE_SUGGESTION"]
    assert validation["counts"] == dict(Counter(i.importance for i in stored))
    violations = validation["groups"][0]["issues"]
    assert {i["check_name"] for i in violations} == {"check_intracellular_electrode_cell_id_exists"}
    assert all("cell id" in i["explanation"] and i["action"] == "ask" for i in violations)
    assert all([f["name"] for f in i["fields"]] == ["cell_id"] for i in violations)
    assert validation["groups"][0]["label"] == "Best practice violations"


def test_a_report_of_a_session_before_any_conversion(world: World) -> None:
    fresh = sessions.create_session(user=world.users["ada"], title="Nothing yet")

    report = world.client("ada").get(f"/api/sessions/{fresh.id}/report.json").json()
    page = world.client("ada").get(f"/api/sessions/{fresh.id}/report.html").content.decode()

    assert report["attempts"] == [] and report["validation"]["groups"] == []
    assert report["validation"]["outcome_label"] == "Not validated yet"
    assert [e["event"] for e in report["transcript"] if e["kind"] == "event"] == ["session_created"]
    assert "No conversion has been validated yet." in page and "Nothing yet" in page


def test_the_report_downloads_as_a_file(world: World, session: ConversionSession) -> None:
    client = world.client("ada")

    page = client.get(f"/api/sessions/{session.id}/report.html", {"download": 1})
    data = client.get(f"/api/sessions/{session.id}/report.json", {"download": 1})

    assert page["Content-Disposition"] == 'attachment; filename="nwbportal-report-patch-clamp-cell-3.html"'
    assert data["Content-Disposition"] == 'attachment; filename="nwbportal-report-patch-clamp-cell-3.json"'
    assert "Content-Disposition" not in client.get(f"/api/sessions/{session.id}/report.html")
    assert data.json()["session"]["title"] == "Patch clamp, cell 3"


def test_user_text_in_the_report_page_is_escaped(world: World, session: ConversionSession) -> None:
    sessions.post_message(session=session, user=world.users["ada"], text="<script>alert('x')</script> & co")

    html = world.client("ada").get(f"/api/sessions/{session.id}/report.html").content.decode()

    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in html
    assert "<script>" not in html


@pytest.mark.parametrize(
    ("state", "said"),
    [
        ("queued", "Attempt 2 has no NWB file yet: it is still waiting to start."),
        ("running", "Attempt 2 has no NWB file yet: it is still converting."),
        ("failed", "Attempt 2 has no NWB file yet: it failed."),
        ("cancelled", "Attempt 2 has no NWB file yet: it was cancelled."),
    ],
)
def test_an_attempt_without_a_file_says_why(world: World, session: ConversionSession, state: str, said: str) -> None:
    AttemptFactory(session=session, number=2, state=state)

    for endpoint in ("tree", "plot.svg"):
        response = world.client("ada").get(f"/api/sessions/{session.id}/attempts/2/{endpoint}")
        assert (response.status_code, response.json()) == (404, {"detail": said})


def test_missing_attempts_previews_and_files_are_named(world: World, session: ConversionSession) -> None:
    client = world.client("mia")
    base = f"/api/sessions/{session.id}"
    PreviewFactory(session=session, number=2, state="running")
    AttemptFactory(session=session, number=3, state="succeeded", output_path="/nonexistent/x.nwb")

    assert client.get(f"{base}/attempts/9/tree").json() == {"detail": "This session has no conversion attempt 9."}
    assert client.get(f"{base}/previews/7/plot.svg").json()["detail"].startswith("This session has no preview 7")
    assert client.get(f"{base}/previews/2/tree").json() == {
        "detail": "Preview 2 has no NWB file yet: it is still converting."
    }
    gone = client.get(f"{base}/attempts/3/plot.svg")
    assert (gone.status_code, gone.json()) == (404, {"detail": "The NWB file of attempt 3 is no longer on the server."})


def test_the_plot_takes_a_window_and_refuses_nonsense(world: World, session: ConversionSession) -> None:
    client = world.client("ada")
    base = f"/api/sessions/{session.id}/previews/1/plot.svg"

    channels = client.get(base, {"first_channel": 100, "series": "acquisition/ElectricalSeriesAP"})
    too_long = client.get(base, {"seconds": 3600})
    negative = client.get(base, {"first_channel": -1})
    no_series = client.get(base, {"series": "acquisition/Missing"})

    assert [lane.get("data-channel") for lane in _lanes(channels.content)] == [f"AP{i}" for i in range(100, 108)]
    assert (too_long.status_code, too_long.json()["detail"]) == (
        400,
        "The plot shows between 0 and 10 seconds; 3600 is outside that.",
    )
    assert negative.status_code == 400 and "counted from 0" in negative.json()["detail"]
    assert (no_series.status_code, no_series.json()) == (
        404,
        {"detail": "The file has no series at “acquisition/Missing”."},
    )


def test_an_unreadable_file_is_reported_not_crashed_on(
    world: World, session: ConversionSession, tmp_path: Path
) -> None:
    broken = tmp_path / "broken.nwb"
    broken.write_bytes(b"not HDF5 at all")
    AttemptFactory(session=session, number=2, state="succeeded", output_path=str(broken))

    response = world.client("ada").get(f"/api/sessions/{session.id}/attempts/2/tree")

    assert response.status_code == 503
    assert response.json()["detail"].startswith("The NWB file could not be read: broken.nwb cannot be opened")


def test_a_session_status_does_not_change_by_reading_its_report(world: World, session: ConversionSession) -> None:
    before = (session.status, session.messages.count(), session.audit_events.count())

    for endpoint, _ in ENDPOINTS:
        world.client("mia").get(f"/api/sessions/{session.id}/{endpoint}")

    session.refresh_from_db()
    assert (session.status, session.messages.count(), session.audit_events.count()) == before
    assert session.status == Status.IDLE

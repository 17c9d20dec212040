"""The language-model path through the real API: when the portal asks the model, what it does with
the answer, and what it records. Only the Anthropic API is replaced, at its HTTP transport, by
recorded responses (tests/language/llm_responses/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.language import llm
from conversions.models import ChatMessage, ConversionSession, LlmCall
from conversions.nwb.synthetic import write_spikeglx
from conversions.workers import jobs
from tests.conftest import World
from tests.language.llm_responses import TIMEOUT, RecordedApi

MESSY = (
    "ok so the person who did the recording is my postdoc jane smith and we are the wellcome crick lot, "
    "mice watching drifting gratings while we poked V1"
)


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> RecordedApi:
    """The Anthropic API, answering with a good reading unless a test scripts something else."""
    recorded = RecordedApi("messy_answer")
    monkeypatch.setattr(llm, "client_factory", recorded.client)
    return recorded


@pytest.fixture
def llm_on(settings: Any, world: World) -> World:
    """A portal with an API key, and Ada's lab consenting."""
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    settings.LLM_TIMEOUT_SECONDS = 6.0
    world.lab.llm_consent = True
    world.lab.save()
    return world


def _asking_for_metadata(world: World, tmp_path: Path, person: str = "ada") -> str:
    """A session whose recording was recognised and which now asks for the metadata: uploaded
    through the API, and detected by the job a worker would run."""
    client = world.client(person)
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    folder = write_spikeglx(tmp_path / f"rec-{session_id[:8]}", run="rec", duration_s=0.1)["ap_bin"].parent
    files = {p.relative_to(folder.parent).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}
    uploads = [SimpleUploadedFile(Path(name).name, data) for name, data in files.items()]
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": list(files)})
    assert response.status_code == 201, response.content
    session = ConversionSession.objects.get(id=session_id)
    jobs.detect_recording(session_id, session.memory.files_version)
    body = client.get(f"/api/sessions/{session_id}").json()
    assert body["awaiting"] == "required_metadata", body["messages"][-1]["text"]
    return session_id


def _say(world: World, session_id: str, text: str, person: str = "ada") -> dict[str, Any]:
    response = world.client(person).post(
        f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def _replies(turn: dict[str, Any]) -> list[str]:
    return [reply["text"] for reply in turn["replies"]]


def test_a_message_the_rules_cannot_read_gets_its_fields_from_the_model(
    llm_on: World, api: RecordedApi, tmp_path: Path
) -> None:
    session_id = _asking_for_metadata(llm_on, tmp_path)
    turn = _say(llm_on, session_id, MESSY)
    metadata = turn["session"]["metadata"]
    assert metadata["experimenter"] == {"value": ["Smith, Jane"], "source": "llm"}
    assert metadata["institution"] == {"value": "wellcome crick", "source": "llm"}
    assert metadata["experiment_description"] == {
        "value": "mice watching drifting gratings while we poked V1",
        "source": "llm",
    }
    # The rules' guess (the whole first sentence as a description) was not kept.
    assert "session_description" not in metadata
    assert not any("didn't understand" in text for text in _replies(turn))
    assert api.made == [("sk-ant-test-key", 6.0)]
    # What the model was shown: the question just asked, the conversation, the message as data.
    prompt = api.prompt()
    assert "The portal just asked for: experimenter, institution, experiment_description" in prompt
    assert f"<user_message>\n{MESSY}\n</user_message>" in prompt
    assert "Before converting I need the" in prompt.split("<conversation_history>")[1]


def test_each_call_is_recorded_with_its_tokens_latency_and_outcome(
    llm_on: World, api: RecordedApi, tmp_path: Path
) -> None:
    session_id = _asking_for_metadata(llm_on, tmp_path)
    _say(llm_on, session_id, MESSY)
    [call] = LlmCall.objects.filter(session_id=session_id)
    assert call.purpose == "understand"
    assert call.model == "claude-haiku-5-5"
    assert call.outcome == "ok"
    assert (call.input_tokens, call.output_tokens) == (1342, 87)
    assert call.latency_ms is not None and call.latency_ms >= 0
    assert call.fields == ["experiment_description", "experimenter", "institution"]


def test_without_the_labs_consent_nothing_is_sent(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    llm_on.lab.llm_consent = False
    llm_on.lab.save()
    session_id = _asking_for_metadata(llm_on, tmp_path)
    turn = _say(llm_on, session_id, MESSY)
    assert api.requests == []
    assert not LlmCall.objects.exists()
    metadata = turn["session"]["metadata"]
    assert "experimenter" not in metadata
    assert {entry["source"] for entry in metadata.values()} <= {"user", "file", "lab_default"}


def test_without_an_api_key_nothing_is_sent(llm_on: World, api: RecordedApi, settings: Any, tmp_path: Path) -> None:
    settings.ANTHROPIC_API_KEY = ""
    session_id = _asking_for_metadata(llm_on, tmp_path)
    _say(llm_on, session_id, MESSY)
    assert api.requests == [] and not LlmCall.objects.exists()


def test_a_message_the_rules_understand_is_not_sent(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    session_id = _asking_for_metadata(llm_on, tmp_path)
    turn = _say(llm_on, session_id, "Jane Smith, MIT, V1 recording")
    assert api.requests == [] and not LlmCall.objects.exists()
    assert turn["session"]["metadata"]["experimenter"] == {"value": ["Smith, Jane"], "source": "user"}


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (TIMEOUT, "timeout"),
        ((529, "error_529"), "error"),
        ("malformed_approve", "malformed"),
        ("text_only", "malformed"),
    ],
)
def test_a_failed_call_gives_the_rules_reply_with_no_error_shown(
    llm_on: World, api: RecordedApi, tmp_path: Path, answer: Any, outcome: str
) -> None:
    api.answers = [answer]
    with_llm = _asking_for_metadata(llm_on, tmp_path)
    turn = _say(llm_on, with_llm, MESSY)

    # The same message in a session of Carl's lab, which did not consent: the rules alone.
    rules_only = _asking_for_metadata(llm_on, tmp_path, person="carl")
    expected = _say(llm_on, rules_only, MESSY, person="carl")

    assert len(api.requests) == 1
    assert _replies(turn) == _replies(expected)
    assert turn["session"]["status"] == "awaiting_user_input"
    metadata = {name: entry for name, entry in turn["session"]["metadata"].items() if entry["source"] != "file"}
    assert {name: entry["source"] for name, entry in metadata.items()} == {name: "user" for name in metadata}
    assert LlmCall.objects.get(session_id=with_llm).outcome == outcome


def test_the_budget_stops_calls_after_the_limit(llm_on: World, api: RecordedApi, settings: Any, tmp_path: Path) -> None:
    settings.LLM_CALLS_PER_SESSION = 2
    api.answers = ["nothing_to_read"]
    session_id = _asking_for_metadata(llm_on, tmp_path)
    for _ in range(3):
        turn = _say(llm_on, session_id, "hmm, let me think")
    assert len(api.requests) == 2
    outcomes = list(LlmCall.objects.filter(session_id=session_id).values_list("outcome", flat=True))
    assert outcomes == ["ok", "ok", "refused_by_budget"]
    assert turn["replies"], "the portal still answers, by the rules"

    # The budget is per session: another session of the same lab still gets its calls.
    fresh = _asking_for_metadata(llm_on, tmp_path)
    _say(llm_on, fresh, "hmm, let me think")
    assert len(api.requests) == 3


def test_the_history_sent_is_bounded_but_the_database_keeps_all(
    llm_on: World, api: RecordedApi, settings: Any, tmp_path: Path
) -> None:
    settings.LLM_HISTORY_MESSAGES = 3
    api.answers = ["nothing_to_read"]
    session_id = _asking_for_metadata(llm_on, tmp_path)
    for number in range(1, 5):
        _say(llm_on, session_id, f"hmm number {number}, let me think")
    prompt = api.prompt()
    history = prompt.split("<conversation_history>")[1].split("</conversation_history>")[0]
    assert history.count("<turn ") == 3
    assert "hmm number 3" in history and "hmm number 2" not in history
    stored = ChatMessage.objects.filter(session_id=session_id, role="user").values_list("text", flat=True)
    assert [text for text in stored if text.startswith("hmm number")] == [
        f"hmm number {n}, let me think" for n in range(1, 5)
    ]


def test_calls_are_seen_only_in_the_admin(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    session_id = _asking_for_metadata(llm_on, tmp_path)
    _say(llm_on, session_id, MESSY)
    call = LlmCall.objects.get(session_id=session_id)

    detail = llm_on.client("ada").get(f"/api/sessions/{session_id}").json()
    assert "llm_calls" not in detail and "1342" not in str(detail)
    for person in ("ben", "carl"):
        assert llm_on.client(person).get(f"/api/sessions/{session_id}").status_code == 404

    admin_url = f"/admin/conversions/llmcall/{call.id}/change/"
    assert llm_on.browser("ada").get(admin_url).status_code == 302  # to the admin's login
    boss = get_user_model().objects.create_superuser("root", password="root-password")
    llm_on.users["root"] = boss
    browser = llm_on.browser("root")
    page = browser.get(admin_url)
    assert page.status_code == 200 and b"1342" in page.content
    assert browser.get("/admin/conversions/llmcall/add/").status_code == 403
    assert b'name="outcome"' not in page.content  # read-only: shown, not editable

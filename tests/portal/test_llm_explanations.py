"""The language model phrases the explanations of the issues a real validation finds, when the
portal may use it; the rule table's words stand otherwise, and wherever the model's fail the checks.

Real recordings are converted by neuroconv and checked by nwbinspector, in the worker's own code;
only the Anthropic API is replaced, at its HTTP transport, by recorded responses
(tests/language/llm_responses/)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from conversions.language import llm
from conversions.models import ChatMessage, ConversionAttempt, ConversionSession, LlmCall, ValidationIssue
from conversions.nwb import validation
from conversions.nwb.synthetic import write_spikeglx
from conversions.workers import jobs
from tests.conftest import World, wait_for_status
from tests.language.llm_responses import TIMEOUT, RecordedApi

# The subject is declined, so nwbinspector finds three issues, ranked: the missing subject
# (CRITICAL), no keywords and a table column with two values (suggestions).
METADATA = "Jane Smith, MIT, Neuropixels recording of V1"
RULES = {
    "check_subject_exists": "The file has no subject: DANDI needs the animal's id, species, sex and age.",
    "check_keywords": "The file has no keywords; a few help others find the data on DANDI.",
    "check_column_binary_capability": (
        "A table column holds only two values; this is a storage suggestion and needs nothing from you."
    ),
}
PHRASED = {
    "check_subject_exists": (
        "DANDI will not take the file until it describes the animal that was recorded: give its id, species, sex "
        "and age."
    ),
    "check_keywords": "Adding a few keywords would help other scientists find your data on DANDI.",
    "check_column_binary_capability": (
        "One column of a table only ever holds two values, so it could be stored more compactly. You don't need "
        "to do anything about it."
    ),
}


@pytest.fixture
def api(monkeypatch: pytest.MonkeyPatch) -> RecordedApi:
    """The Anthropic API, answering with a good phrasing unless a test scripts something else."""
    recorded = RecordedApi("explanations_good")
    monkeypatch.setattr(llm, "client_factory", recorded.client)
    return recorded


def _llm_on(settings: Any, world: World) -> World:
    """A portal with an API key, and Ada's lab consenting (Carl's does not)."""
    settings.ANTHROPIC_API_KEY = "sk-ant-test-key"
    settings.LLM_TIMEOUT_SECONDS = 6.0
    world.lab.llm_consent = True
    world.lab.save()
    return world


@pytest.fixture
def llm_on(settings: Any, world: World) -> World:
    return _llm_on(settings, world)


def _say(world: World, session_id: str, text: str, person: str = "ada") -> dict[str, Any]:
    response = world.client(person).post(
        f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json"
    )
    assert response.status_code == 200, response.content
    return response.json()


def _approved(
    world: World, tmp_path: Path, person: str, *, first_message: str = METADATA, on_worker: bool = False
) -> str:
    """A session of `person` whose recording is uploaded through the API, detected (by the Celery
    worker when `on_worker`, else by its job code here), described with the subject declined, and
    approved."""
    client = world.client(person)
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    folder = write_spikeglx(tmp_path / f"rec-{session_id[:8]}", run="rec", duration_s=0.1, n_channels=8)
    run = folder["ap_bin"].parent
    files = {p.relative_to(run.parent).as_posix(): p.read_bytes() for p in sorted(run.rglob("*")) if p.is_file()}
    uploads = [SimpleUploadedFile(Path(name).name, data) for name, data in files.items()]
    response = client.post(f"/api/sessions/{session_id}/files", {"files": uploads, "relative_paths": list(files)})
    assert response.status_code == 201, response.content
    if on_worker:
        wait_for_status(client, session_id, {"awaiting_user_input"})
    else:
        jobs.detect_recording(session_id, ConversionSession.objects.get(id=session_id).memory.files_version)
    _say(world, session_id, first_message, person)
    turn = _say(world, session_id, "skip the rest", person)
    assert turn["session"]["awaiting"] == "approval", turn["replies"][-1]["text"]
    approved = client.post(
        f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
    )
    assert approved.status_code == 200, approved.content
    return session_id


def _converted_and_validated(world: World, tmp_path: Path, person: str = "ada", **kwargs: Any) -> str:
    """Approved, then converted and validated by the worker's own job code, in this thread."""
    session_id = _approved(world, tmp_path, person, **kwargs)
    attempt = ConversionAttempt.objects.get(session_id=session_id)
    jobs.convert_attempt(attempt.id)
    jobs.validate_attempt(attempt.id)
    return session_id


def _explanations(session_id: str) -> dict[str, str]:
    stored = ValidationIssue.objects.filter(attempt__session_id=session_id)
    return {issue.check_name: issue.explanation for issue in stored}


def _issues_card(session_id: str) -> ChatMessage:
    return ChatMessage.objects.filter(session_id=session_id, card="issues").last()  # type: ignore[return-value]


def _conversation_after_validation(world: World, session_id: str, person: str) -> list[str]:
    """The portal's messages from the issues card on, the card itself left out."""
    messages = world.client(person).get(f"/api/sessions/{session_id}").json()["messages"]
    card = max(i for i, m in enumerate(messages) if m["card"] == "issues")
    return [m["text"] for m in messages[card + 1 :]]


# --- the model's words are shown --------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_a_real_validation_on_the_worker_shows_the_models_phrasing(
    live_world: World, celery_worker_thread: Any, api: RecordedApi, settings: Any, tmp_path: Path
) -> None:
    world = _llm_on(settings, live_world)
    session_id = _approved(world, tmp_path, "ada", on_worker=True)
    body = wait_for_status(world.client("ada"), session_id, {"awaiting_user_input", "failed"})
    assert body["awaiting"] == "correction", body["messages"][-1]["text"]

    # Stored, served by the API, and in the issues card, text and data.
    assert _explanations(session_id) == PHRASED
    assert {i["check_name"]: i["explanation"] for i in body["issues"]} == PHRASED
    card = _issues_card(session_id)
    assert card.text.splitlines() == [
        "The check found 3 issues:",
        f"• [must fix] {PHRASED['check_subject_exists']}",
        f"• [suggestion] {PHRASED['check_keywords']}",
        f"• [suggestion] {PHRASED['check_column_binary_capability']}",
    ]
    assert [i["explanation"] for i in card.data["issues"]] == [
        PHRASED[name] for name in ("check_subject_exists", "check_keywords", "check_column_binary_capability")
    ]
    # What decides the next step is the rule table's: the fields to ask for are unchanged.
    assert [i["fields"] for i in card.data["issues"]] == [["subject_id", "species", "sex", "age"], ["keywords"], []]
    assert "I need the keywords, subject id, species, sex and age" in body["messages"][-1]["text"]

    [call] = LlmCall.objects.filter(session_id=session_id)
    assert (call.purpose, call.outcome, call.model) == ("explain", "ok", "claude-haiku-5-5")
    assert (call.input_tokens, call.output_tokens) == (1687, 142)
    assert call.latency_ms is not None and call.detail == "phrased 3 of 3"
    assert api.made == [("sk-ant-test-key", 6.0)]

    # What the model was shown: the issues as data, with nwbinspector's own message and the rule's words.
    prompt = api.prompt()
    issues = prompt.split("<issues>")[1].split("</issues>")[0]
    assert "<inspector_message>Subject is missing.</inspector_message>" in issues
    assert f"<portal_explanation>{RULES['check_keywords']}</portal_explanation>" in issues
    assert "Column 'adc_group' uses 'integers' but has binary values [0 1]." in issues

    # The lab's manager sees the same words; nobody else sees the session.
    managed = world.client("mia").get(f"/api/sessions/{session_id}").json()
    assert {i["check_name"]: i["explanation"] for i in managed["issues"]} == PHRASED
    for person in ("ben", "carl", None):
        assert world.client(person).get(f"/api/sessions/{session_id}").status_code in (401, 404)
    assert "llm_calls" not in body and "1687" not in str(body)


def test_the_next_step_is_the_same_as_with_the_rules_words(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    with_llm = _converted_and_validated(llm_on, tmp_path, "ada")
    rules_only = _converted_and_validated(llm_on, tmp_path, "carl")  # Carl's lab did not consent

    assert _explanations(with_llm) == PHRASED and _explanations(rules_only) == RULES
    assert len(api.requests) == 1
    assert _conversation_after_validation(llm_on, with_llm, "ada") == _conversation_after_validation(
        llm_on, rules_only, "carl"
    )
    phrased, plain = (ConversionSession.objects.get(id=session_id) for session_id in (with_llm, rules_only))
    assert (phrased.status, phrased.memory.asking_for) == (plain.status, plain.memory.asking_for)
    assert ConversionAttempt.objects.get(session_id=with_llm).validation == "failed"
    card, plain_card = _issues_card(with_llm).data["issues"], _issues_card(rules_only).data["issues"]
    assert [{**i, "explanation": ""} for i in card] == [{**i, "explanation": ""} for i in plain_card]


# --- the model's words are rejected ---------------------------------------------------------------


def test_phrasings_that_invent_values_keep_the_rules_words(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    api.answers = ["explanations_invented"]
    session_id = _converted_and_validated(llm_on, tmp_path)

    assert _explanations(session_id) == {
        # "species (Mus musculus), sex and age (P90D)": values nobody gave.
        "check_subject_exists": RULES["check_subject_exists"],
        "check_keywords": "A few keywords would help others find your data on DANDI.",
        # "you could give the subject's strain": a field the rules do not ask for.
        "check_column_binary_capability": RULES["check_column_binary_capability"],
    }
    card = _issues_card(session_id)
    assert f"• [must fix] {RULES['check_subject_exists']}" in card.text
    assert "Mus musculus" not in card.text and "strain" not in card.text
    call = LlmCall.objects.get(session_id=session_id)
    assert (call.purpose, call.outcome) == ("explain", "ok")
    assert call.detail == (
        "phrased 1 of 3; kept the rule's words for issue 1 (mentions “Mus”, not in its input), "
        "issue 3 (names the field strain, not in its input)"
    )


@pytest.mark.parametrize(
    ("answer", "outcome"),
    [
        (TIMEOUT, "timeout"),
        ((529, "error_529"), "error"),
        ("explanations_malformed", "malformed"),
        ("explanations_unknown_issue", "malformed"),
        ("text_only", "malformed"),
    ],
)
def test_a_failed_call_keeps_every_rule_text_and_validation_goes_on(
    llm_on: World, api: RecordedApi, tmp_path: Path, answer: Any, outcome: str
) -> None:
    api.answers = [answer]
    session_id = _converted_and_validated(llm_on, tmp_path)

    assert _explanations(session_id) == RULES
    assert _issues_card(session_id).text.splitlines()[1] == f"• [must fix] {RULES['check_subject_exists']}"
    body = llm_on.client("ada").get(f"/api/sessions/{session_id}").json()
    assert (body["status"], body["awaiting"]) == ("awaiting_user_input", "correction")
    assert not any("language model" in m["text"] or "timed out" in m["text"] for m in body["messages"])
    call = LlmCall.objects.get(session_id=session_id)
    assert (call.purpose, call.outcome) == ("explain", outcome)
    assert len(api.requests) == 1  # not retried


# --- when the model is not asked ------------------------------------------------------------------


def test_without_the_labs_consent_nothing_is_sent(llm_on: World, api: RecordedApi, tmp_path: Path) -> None:
    llm_on.lab.llm_consent = False
    llm_on.lab.save()
    session_id = _converted_and_validated(llm_on, tmp_path)
    assert _explanations(session_id) == RULES
    assert api.requests == [] and not LlmCall.objects.exists()


def test_without_an_api_key_nothing_is_sent(llm_on: World, api: RecordedApi, settings: Any, tmp_path: Path) -> None:
    settings.ANTHROPIC_API_KEY = ""
    session_id = _converted_and_validated(llm_on, tmp_path)
    assert _explanations(session_id) == RULES
    assert api.requests == [] and not LlmCall.objects.exists()


def test_the_budget_is_shared_with_reading_messages(
    llm_on: World, api: RecordedApi, settings: Any, tmp_path: Path
) -> None:
    """A message the rules cannot read uses the session's one call; the validation then has none."""
    settings.LLM_CALLS_PER_SESSION = 1
    api.answers = ["messy_answer", "explanations_good"]
    messy = (
        "ok so the person who did the recording is my postdoc jane smith and we are the wellcome crick lot, "
        "mice watching drifting gratings while we poked V1"
    )
    session_id = _converted_and_validated(llm_on, tmp_path, first_message=messy)

    # The rules read the animal ("mice") and the area ("V1") from that message, so the file has a subject
    # and a location: its issues are those of a subject without id, sex and age. Each keeps its rule's text.
    explanations = _explanations(session_id)
    assert {"check_subject_id_exists", "check_subject_sex", "check_subject_age", "check_keywords"} <= set(explanations)
    for check, text in explanations.items():
        rule_text = validation.RULES[check].text
        assert text == rule_text if isinstance(rule_text, str) else text not in PHRASED.values(), check
    assert len(api.requests) == 1
    calls = list(LlmCall.objects.filter(session_id=session_id).values_list("purpose", "outcome"))
    assert calls == [("understand", "ok"), ("explain", "refused_by_budget")]

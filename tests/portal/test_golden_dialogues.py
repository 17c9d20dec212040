"""Seed 000's workflow scenarios and user patterns as golden dialogues.

A scripted scientist talks to the real API (uploads, chat messages, buttons) while a real Celery
worker detects, converts and validates small generated recordings (a real Intan file where a second
format is needed). Every dialogue ends in the status seed 000 names, and what the scientist said is
read back from the downloaded NWB file.

Generated recordings always keep a few best-practice suggestions nobody can answer with a value
(e.g. electrode locations "unknown"), so a validated file waits for "accept as is" (seed 000:
PASSED_WITH_ISSUES → ask to fix or accept) before the session is closed. The file can be downloaded
as soon as it has been validated; the happy path is counted up to that point.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from pynwb import NWBHDF5IO

from conversions.models import ConversionAttempt, ConversionSession
from conversions.nwb.fields import FIELDS
from conversions.nwb.synthetic import write_neuralynx, write_spikeglx
from tests.conftest import World, real_data, wait_for, wait_for_status

pytestmark = pytest.mark.django_db(transaction=True)

SETTLED = {
    "idle",
    "awaiting_user_input",
    "awaiting_approval",
    "completed",
    "completed_with_issues",
    "failed",
    "cancelled",
}
MUST_FIX = {"CRITICAL", "ERROR"}
# The start time every generated recording's files carry (read in the lab's time zone).
FILE_START = datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Paris"))


def spikeglx_run(tmp_path: Path, run: str, *, seed: int, channels: int = 4, duration_s: float = 0.25) -> Path:
    """A small generated SpikeGLX run folder (AP band only)."""
    return write_spikeglx(tmp_path / run, run=run, n_channels=channels, duration_s=duration_s, seed=seed)[
        "ap_bin"
    ].parent


@dataclass
class Scientist:
    """A user of the portal, driving one session through the API; `interactions` counts every upload,
    message and button press, as seed 000 counts a user's messages."""

    client: Client
    session_id: str
    interactions: list[str] = field(default_factory=list)

    @classmethod
    def opens_session(cls, world: World, title: str, *, who: str = "ada") -> Scientist:
        client = world.client(who)
        created = client.post("/api/sessions", {"title": title}, content_type="application/json")
        assert created.status_code == 201, created.content
        return cls(client=client, session_id=created.json()["id"])

    @property
    def base(self) -> str:
        return f"/api/sessions/{self.session_id}"

    def uploads(self, *folders: Path) -> dict[str, Any]:
        """Every file of each folder, keeping the folder's own name in the relative path."""
        uploads, paths = [], []
        for folder in folders:
            files = [folder] if folder.is_file() else sorted(p for p in folder.rglob("*") if p.is_file())
            for path in files:
                uploads.append(SimpleUploadedFile(path.name, path.read_bytes()))
                paths.append(path.relative_to(folder.parent).as_posix())
        response = self.client.post(f"{self.base}/files", {"files": uploads, "relative_paths": paths})
        assert response.status_code == 201, response.content
        self.interactions.append(f"upload {len(uploads)} files")
        return response.json()

    def says(self, text: str) -> dict[str, Any]:
        response = self.client.post(f"{self.base}/messages", {"text": text}, content_type="application/json")
        assert response.status_code == 200, response.content
        self.interactions.append(text)
        return response.json()

    def presses(self, action: str, value: Any = None, *, expect: int = 200) -> dict[str, Any]:
        response = self.client.post(
            f"{self.base}/actions", {"action": action, "value": value}, content_type="application/json"
        )
        assert response.status_code == expect, response.content
        if response.status_code == 200:
            self.interactions.append(f"[{action}]")
        return response.json()

    def session(self) -> dict[str, Any]:
        return self.client.get(self.base).json()

    def waits(self) -> dict[str, Any]:
        """Until no job runs: what the portal then says or asks."""
        return wait_for_status(self.client, self.session_id, SETTLED)

    def downloads(self, tmp_path: Path, *, attempt: int | None = None) -> Path:
        body = self.session()
        url = body["output"]["url"] if attempt is None else body["attempts"][attempt - 1]["output_url"]
        response = self.client.get(url)
        assert response.status_code == 200, response.content
        target = tmp_path / f"{self.session_id}-{attempt or 'latest'}.nwb"
        target.write_bytes(b"".join(response.streaming_content))
        return target

    def directory(self) -> Path:
        return ConversionSession.objects.get(id=self.session_id).directory


@dataclass(frozen=True)
class NwbFile:
    """What a downloaded NWB file says about the session, for comparison with the dialogue."""

    experimenter: tuple[str, ...] | None
    institution: str | None
    experiment_description: str | None
    session_description: str
    session_start_time: datetime
    subject: dict[str, str | None] | None
    series: dict[str, tuple[float, int]]  # name → (rate, channels)


def read_nwb(path: Path) -> NwbFile:
    with NWBHDF5IO(str(path), "r", load_namespaces=True) as io:
        nwbfile = io.read()
        subject = nwbfile.subject
        return NwbFile(
            experimenter=tuple(nwbfile.experimenter) if nwbfile.experimenter is not None else None,
            institution=nwbfile.institution,
            experiment_description=nwbfile.experiment_description,
            session_description=nwbfile.session_description,
            session_start_time=nwbfile.session_start_time,
            subject=None
            if subject is None
            else {
                "subject_id": subject.subject_id,
                "species": subject.species,
                "sex": subject.sex,
                "age": subject.age,
            },
            series={
                name: (float(series.rate), int(series.data.shape[1]))
                for name, series in nwbfile.acquisition.items()
                if series.data.ndim == 2
            },
        )


def last_words(body: dict[str, Any]) -> str:
    """What the portal said last in a session body."""
    return body["messages"][-1]["text"]


def must_fix(body: dict[str, Any]) -> list[str]:
    return [i["check_name"] for i in body["issues"] if i["importance"] in MUST_FIX]


def cards(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [m for m in body["messages"] if m["card"] == kind]


def not_given(plan: str) -> str:
    """The plan's line listing the critical and subject fields nobody gave."""
    return next((line for line in plan.splitlines() if line.startswith("• Not given:")), "")


def nwb_files(folder: Path) -> list[Path]:
    """Every NWB file under `folder`, finished or partial (".<name>.partial.nwb")."""
    return sorted(folder.rglob("*.nwb")) if folder.exists() else []


# --- Scenario 1: happy path ----------------------------------------------------------------------


def test_scenario_1_happy_path_needs_three_interactions(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "V1 gratings, day 2")
    user.uploads(spikeglx_run(tmp_path, "grat", seed=11))
    asked = user.waits()
    assert (asked["status"], asked["awaiting"], asked["format"]) == (
        "awaiting_user_input",
        "required_metadata",
        "spikeglx",
    ), last_words(asked)
    question = last_words(asked)
    assert all(word in question for word in ("experimenter", "institution", "experiment description"))

    turn = user.says(
        "Dr. Maria Gomez, University of Edinburgh, Neuropixels recording of V1 neurons while the mouse "
        "watched drifting gratings, subject VG-031, Mus musculus, female, P84D"
    )
    assert turn["session"]["status"] == "awaiting_approval", [r["text"] for r in turn["replies"]]
    assert turn["replies"][-1]["card"] == "plan"
    user.presses("approve")
    validated = user.waits()

    # Upload, one message with the details, approve: the validated file is ready to download.
    assert len(user.interactions) == 3, user.interactions
    assert (validated["status"], validated["awaiting"]) == ("awaiting_user_input", "correction"), last_words(validated)
    assert must_fix(validated) == [], "DANDI would accept the file"
    assert [(a["number"], a["state"], a["validation"]) for a in validated["attempts"]] == [
        (1, "succeeded", "passed_with_issues")
    ]
    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Gomez, Maria",)
    assert nwb.institution == "University of Edinburgh"
    assert nwb.experiment_description == (
        "Neuropixels recording of V1 neurons while the mouse watched drifting gratings"
    )
    assert nwb.session_description, "a session description is always written"
    assert nwb.subject == {"subject_id": "VG-031", "species": "Mus musculus", "sex": "F", "age": "P84D"}
    assert nwb.session_start_time == FILE_START
    assert list(nwb.series.values()) == [(30000.0, 4)]

    # Closing the session is the decision seed 000 asks for on best-practice issues.
    closed = user.says("Good enough, I'll take it.")["session"]
    assert closed["status"] == "completed_with_issues" and not closed["needs_review"]
    assert closed["output"]["attempt"] == 1


def test_scenario_1_a_file_with_every_detail_given_is_ready_without_a_decision(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "V1 gratings, day 3")
    user.uploads(spikeglx_run(tmp_path, "all", seed=29))
    user.waits()
    user.says(
        "Dr. Maria Gomez, University of Edinburgh, V1 responses to drifting gratings, subject VG-032, "
        "Mus musculus, male, P90D; keywords: V1, gratings"
    )
    user.presses("approve")
    done = user.waits()
    # Seed 000 reports success here. What nwbinspector still suggests (the electrodes' brain area
    # "unknown", a two-valued column, a subject description) is nothing a value the portal asks for
    # would settle, so no decision is asked: the file is ready, its suggestions listed. (Plain
    # `completed` would need a brain-area field, which the portal does not collect yet.)
    assert (done["status"], done["awaiting"], len(user.interactions)) == ("completed_with_issues", None, 3), [
        i["check_name"] for i in done["issues"]
    ]
    assert must_fix(done) == [] and "ready to download" in last_words(done)
    assert done["output"]["attempt"] == 1


# --- Scenario 2: ambiguous format ----------------------------------------------------------------


def test_scenario_2_ambiguous_upload_the_user_names_the_intan_recording(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    """A generated SpikeGLX run and a real Intan .rhd in one upload: the portal cannot tell which
    one to convert and asks; the Intan file gives no start time, so that is asked for too."""
    rhd = real_data("intan/example_intan_file.rhd")
    user = Scientist.opens_session(live_world, "mixed upload")
    user.uploads(spikeglx_run(tmp_path, "stray", seed=12), rhd)
    asked = user.waits()
    assert (asked["status"], asked["awaiting"]) == ("awaiting_user_input", "format_selection"), last_words(asked)
    offered = asked["messages"][-1]
    assert offered["card"] == "formats"
    assert {o["key"] for o in offered["data"]["options"]} == {"spikeglx", "intan"}

    chosen = user.says("the .rhd file is what I want converted, it's Intan")
    assert chosen["session"]["status"] == "detecting_format"
    asked = user.waits()
    assert (asked["format"], asked["awaiting"]) == ("intan", "required_metadata"), last_words(asked)
    assert "session start time" in last_words(asked), "the .rhd does not say when it started"

    turn = user.says(
        "Dr. Lin Chen, Stanford University, cortical surface recording with an Intan headstage, recorded on "
        "2023-11-02 09:15; rat R-12, male, 12 weeks"
    )
    assert turn["session"]["status"] == "awaiting_approval", [r["text"] for r in turn["replies"]]
    user.presses("approve")
    validated = user.waits()
    assert len(user.interactions) == 4, "one clarification more than the happy path"
    assert validated["status"] in ("awaiting_user_input", "completed"), last_words(validated)
    assert must_fix(validated) == [], validated["issues"]

    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Chen, Lin",)
    assert nwb.institution == "Stanford University"
    assert nwb.subject == {"subject_id": "R-12", "species": "Rattus norvegicus", "sex": "M", "age": "P12W"}
    assert nwb.session_start_time == datetime(2023, 11, 2, 9, 15, tzinfo=ZoneInfo("Europe/Paris"))
    assert list(nwb.series.values()) == [(20000.0, 2)], "the Intan amplifier channels, no SpikeGLX data"


def test_scenario_2_ambiguous_upload_the_format_picked_with_the_button(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    """Generated SpikeGLX and Neuralynx recordings together; the user picks Neuralynx on the card."""
    user = Scientist.opens_session(live_world, "tetrodes")
    cheetah = tmp_path / "cheetah"
    write_neuralynx(cheetah, n_channels=2, duration_s=0.3, seed=13)
    user.uploads(spikeglx_run(tmp_path, "other", seed=14), cheetah)
    asked = user.waits()
    assert asked["awaiting"] == "format_selection", last_words(asked)
    assert user.presses("select_format", "openephys_binary", expect=409)["detail"], "not a candidate"
    user.presses("select_format", "neuralynx")
    asked = user.waits()
    assert (asked["format"], asked["awaiting"]) == ("neuralynx", "required_metadata"), last_words(asked)
    assert any("left out" in m["text"] for m in asked["messages"]), "the SpikeGLX files are named as left out"

    user.says(
        "Yusuf Ali, Koç University, hippocampal sharp-wave ripples during sleep, subject R-3, "
        "Rattus norvegicus, male, 10 weeks"
    )
    user.presses("approve")
    validated = user.waits()
    assert validated["status"] in ("awaiting_user_input", "completed") and must_fix(validated) == [], last_words(
        validated
    )
    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Ali, Yusuf",) and nwb.institution == "Koç University"
    assert nwb.subject == {"subject_id": "R-3", "species": "Rattus norvegicus", "sex": "M", "age": "P10W"}
    assert nwb.session_start_time == FILE_START
    assert sorted(nwb.series.values()) == [(32000.0, 2)]


# --- Scenario 3: missing metadata ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("second_answer", "institution", "description"),
    [
        pytest.param(
            "Charles University; experiment: thalamic spindles under urethane anaesthesia",
            "Charles University",
            "thalamic spindles under urethane anaesthesia",
            id="gives-the-rest",
        ),
        pytest.param("I don't have those, skip them", None, None, id="skips-the-rest"),
    ],
)
def test_scenario_3_partial_details_then_the_rest_or_a_skip(
    live_world: World,
    celery_worker_thread: Any,
    tmp_path: Path,
    second_answer: str,
    institution: str | None,
    description: str | None,
) -> None:
    user = Scientist.opens_session(live_world, "thalamus")
    user.uploads(spikeglx_run(tmp_path, "thal", seed=15))
    assert user.waits()["awaiting"] == "required_metadata"

    turn = user.says("Recorded by Peter Novak; the animal is rat TH-2, male, 9 weeks")
    assert turn["session"]["awaiting"] == "required_metadata", "the critical fields still missing are asked for"
    follow_up = turn["replies"][-1]["text"]
    assert "institution" in follow_up and "experiment description" in follow_up
    assert "subject" not in follow_up.split("need the")[1].split(".")[0], "only what is still missing"

    turn = user.says(second_answer)
    plan = turn["replies"][-1]
    assert (turn["session"]["status"], plan["card"]) == ("awaiting_approval", "plan"), "never a third request"
    if institution is None:
        assert "institution and experiment description" in not_given(plan["text"])
    user.presses("approve")
    validated = user.waits()
    assert len(user.interactions) == 4
    assert validated["status"] in ("awaiting_user_input", "completed") and must_fix(validated) == [], validated[
        "issues"
    ]
    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Novak, Peter",)
    assert nwb.institution == institution
    assert nwb.subject == {"subject_id": "TH-2", "species": "Rattus norvegicus", "sex": "M", "age": "P9W"}
    if description is not None:
        assert nwb.experiment_description == description
    assert user.says("accept as is")["session"]["status"] == "completed_with_issues"


# --- Scenario 4: validation fails, a correction, attempt 2 passes --------------------------------


def _skip_the_subject_and_fail_validation(user: Scientist, tmp_path: Path, run: str, seed: int) -> dict[str, Any]:
    """Upload, give the critical fields but no subject, approve: DANDI's subject checks fail."""
    user.uploads(spikeglx_run(tmp_path, run, seed=seed))
    assert user.waits()["awaiting"] == "required_metadata"
    turn = user.says(
        "Dr. Ana Ruiz, University of Edinburgh, auditory cortex recording during tone presentation. No subject info."
    )
    assert turn["session"]["status"] == "awaiting_approval", [r["text"] for r in turn["replies"]]
    user.presses("approve")
    failed = user.waits()
    assert (failed["status"], failed["awaiting"]) == ("awaiting_user_input", "correction"), last_words(failed)
    assert "check_subject_exists" in must_fix(failed)
    return failed


def test_scenario_4_a_failed_validation_is_corrected_and_attempt_2_passes(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "A1 tones")
    failed = _skip_the_subject_and_fail_validation(user, tmp_path, "tones", seed=16)
    issues_card, prompt = failed["messages"][-2], failed["messages"][-1]
    assert issues_card["card"] == "issues" and any(i["importance"] == "CRITICAL" for i in issues_card["data"]["issues"])
    assert "subject id" in prompt["text"] and "skipped" in prompt["text"], "it says the skipped fields are needed"
    assert prompt["card"] == "options" and "accept_as_is" in prompt["data"]["options"]
    # What the portal put right by itself (descriptions from the files) is shown, not asked.
    assert failed["attempts"][0]["fixes"], "the conversion filled in descriptions from the files"
    assert cards(failed, "fixes")

    turn = user.says("mouse M-77, Mus musculus, male, 16 weeks")
    assert turn["session"]["status"] == "converting", "a correction converts again at once, without a plan"
    assert turn["session"]["attempts"][-1]["number"] == 2
    passed = user.waits()
    assert [(a["number"], a["validation"]) for a in passed["attempts"]] == [(1, "failed"), (2, "passed_with_issues")]
    assert must_fix(passed) == [] and passed["status"] in ("awaiting_user_input", "completed")

    second = read_nwb(user.downloads(tmp_path, attempt=2))
    assert second.subject == {"subject_id": "M-77", "species": "Mus musculus", "sex": "M", "age": "P16W"}
    assert second.experimenter == ("Ruiz, Ana",) and second.institution == "University of Edinburgh"
    assert second.experiment_description == "auditory cortex recording during tone presentation"
    first = read_nwb(user.downloads(tmp_path, attempt=1))
    assert first.subject is None, "attempt 1 is kept as it was"

    done = user.says("I'll accept the file as it is")["session"]
    assert done["status"] == "completed_with_issues" and done["output"]["attempt"] == 2


# --- Scenario 5: stuck in a loop, accept as is ---------------------------------------------------


def test_scenario_5_identical_issues_at_attempt_3_offer_three_ways_out_and_accept_flags_the_session(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "stuck")
    _skip_the_subject_and_fail_validation(user, tmp_path, "loop", seed=17)

    user.says("give it another try")
    second = user.waits()
    assert (second["awaiting"], second["needs_review"]) == ("correction", False), "attempt 2 is not yet a loop"
    user.presses("retry")
    third = user.waits()
    assert (third["status"], third["awaiting"]) == ("awaiting_user_input", "no_progress_decision"), last_words(third)
    assert [a["validation"] for a in third["attempts"]] == ["failed", "failed", "failed"]
    assert third["needs_review"], "a loop going nowhere is flagged for the admins"
    options = third["messages"][-1]
    assert options["card"] == "options" and {"retry", "accept_as_is", "cancel"} <= set(options["data"]["options"])
    assert all(way in options["text"] for way in ("different approach", "accept the file as it is", "expert"))

    done = user.says("yes, accept it as is")["session"]
    assert done["status"] == "completed_with_issues"
    assert done["needs_review"], "the flag stays for the admins"
    assert done["output"]["attempt"] == 3
    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.subject is None and nwb.experimenter == ("Ruiz, Ana",)
    assert "check_subject_exists" in must_fix(done), "the issues stay in the report"


# --- Scenario 6: the user aborts -----------------------------------------------------------------


def _files_are_kept(user: Scientist, uploaded: dict[str, Any]) -> None:
    """The uploaded files are still listed and on disk, byte for byte."""
    body = user.session()
    assert body["files"] == uploaded["files"]
    source = user.directory() / "source"
    assert all((source / f["path"]).stat().st_size == f["size_bytes"] for f in body["files"])


def test_scenario_6_cancel_while_details_are_asked_for(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "wrong animal")
    uploaded = user.uploads(spikeglx_run(tmp_path, "wrong", seed=18))
    user.waits()
    user.says("Recorded by Peter Novak")
    turn = user.says("Hold on, cancel this please")
    assert turn["session"]["status"] == "cancelled" and turn["session"]["awaiting"] is None
    assert "Cancelled" in turn["replies"][-1]["text"] and "kept" in turn["replies"][-1]["text"]
    assert turn["session"]["attempts"] == [] and nwb_files(user.directory()) == []
    _files_are_kept(user, uploaded)
    assert user.presses("approve", expect=409)["detail"], "nothing waits for approval any more"

    # Starting again keeps what was given; both requests for details were used, so the plan says
    # what is missing instead of asking a third time.
    again = user.presses("retry")
    assert again["session"]["awaiting"] == "approval"
    assert again["session"]["metadata"]["experimenter"]["value"] == ["Novak, Peter"]
    missing = not_given(again["replies"][-1]["text"])
    assert "institution" in missing and "experiment description" in missing and "experimenter" not in missing


def test_scenario_6_cancel_at_the_plan(live_world: World, celery_worker_thread: Any, tmp_path: Path) -> None:
    user = Scientist.opens_session(live_world, "cancel at the plan")
    uploaded = user.uploads(spikeglx_run(tmp_path, "plan", seed=19))
    user.waits()
    user.says("Dr. Ana Ruiz, University of Edinburgh, auditory cortex recording. Skip the subject.")
    cancelled = user.presses("cancel")["session"]
    assert (cancelled["status"], cancelled["awaiting"], cancelled["attempts"]) == ("cancelled", None, [])
    assert user.presses("approve", expect=409)["detail"], "the plan no longer waits for approval"
    assert user.presses("cancel", expect=409)["detail"], "cancelling twice is refused with a reason"
    assert nwb_files(user.directory()) == []
    _files_are_kept(user, uploaded)


def test_scenario_6_cancel_at_the_format_question_then_retry_asks_it_again(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "cancel the question")
    cheetah = tmp_path / "nlx"
    write_neuralynx(cheetah, n_channels=2, duration_s=0.2, seed=20)
    uploaded = user.uploads(spikeglx_run(tmp_path, "nlx-too", seed=21), cheetah)
    assert user.waits()["awaiting"] == "format_selection"
    assert user.says("abort")["session"]["status"] == "cancelled"
    _files_are_kept(user, uploaded)
    user.presses("retry")
    assert user.waits()["awaiting"] == "format_selection"


def test_scenario_6_cancel_during_attempt_2_keeps_attempt_1_and_leaves_no_partial_file(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    """Big enough (384 channels, 4 s) that the second conversion is caught while it writes."""
    user = Scientist.opens_session(live_world, "cancel attempt 2")
    uploaded = user.uploads(spikeglx_run(tmp_path, "long", seed=22, channels=384, duration_s=4.0))
    user.waits()
    user.says("just convert it")
    first = user.waits()
    assert first["attempts"][0]["state"] == "succeeded", last_words(first)
    finished = nwb_files(user.directory())
    assert len(finished) == 1 and not finished[0].name.startswith(".")

    corrected = user.says("species: Mus musculus; subject id: L-1; sex: F; age: P70D")
    assert corrected["session"]["status"] == "converting", corrected["replies"][-1]["text"]
    running = wait_for(
        lambda: ConversionAttempt.objects.filter(
            session_id=user.session_id, number=2, state="running", progress__gt=0
        ).first(),
        what="attempt 2 to be writing",
    )
    turn = user.says("stop the conversion, I forgot something")
    assert turn["session"]["status"] == "cancelled"
    said = turn["replies"][-1]["text"]

    attempt_2 = Path(running.output_path).parent
    body = user.session()
    assert body["status"] == "cancelled", "the stopped job reports nothing back"
    if "partial file removed" in said:  # caught while it wrote, as a 4 s recording nearly always is
        wait_for(lambda: nwb_files(attempt_2) == [], what="attempt 2's partial file to be removed")
        running.refresh_from_db()
        assert running.state == "cancelled"
        assert nwb_files(user.directory()) == finished, "only attempt 1's file is left"
        assert body["output"]["attempt"] == 1 and user.client.get(body["output"]["url"]).status_code == 200
    else:  # the conversion ended just before the cancel: the message must say its file stays
        assert "had already finished: its file is kept" in said and "not validated" in said, said
        running.refresh_from_db()
        assert running.state == "succeeded"
        assert [p for p in nwb_files(attempt_2) if p.name.startswith(".")] == [], "no partial file"
    _files_are_kept(user, uploaded)


# --- Pattern 1: power user -----------------------------------------------------------------------


def test_pattern_1_power_user_says_everything_before_uploading(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "barrel cortex")
    first = user.says(
        "Convert vis_g0_t0.imec0.ap.bin, SpikeGLX, Dr. Grace Hopper, Yale University, barrel cortex recording "
        "during whisker stimulation, BC-04, Mus musculus, P120D, F"
    )
    assert first["session"]["status"] == "idle" and "upload" in first["replies"][-1]["text"].lower()
    user.uploads(spikeglx_run(tmp_path, "whisk", seed=23))
    planned = user.waits()
    assert planned["status"] == "awaiting_approval", "nothing left to ask: straight to the plan"
    assert not any(m["role"] == "assistant" and "Before converting I need" in m["text"] for m in planned["messages"]), (
        "no question was asked"
    )
    user.presses("approve")
    validated = user.waits()
    assert len(user.interactions) == 3 and must_fix(validated) == [], last_words(validated)

    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Hopper, Grace",) and nwb.institution == "Yale University"
    assert nwb.experiment_description == "barrel cortex recording during whisker stimulation"
    assert nwb.subject == {"subject_id": "BC-04", "species": "Mus musculus", "sex": "F", "age": "P120D"}


def test_pattern_1_power_user_answers_everything_in_the_first_reply(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "one message")
    user.uploads(spikeglx_run(tmp_path, "fast", seed=24))
    user.waits()
    turn = user.says(
        "Experimenter: Hopper, Grace; institution: Yale University; description: whisker deflection mapping; "
        "subject id: BC-05; species: house mouse; sex: M; age: 15 weeks. Go ahead."
    )
    assert turn["session"]["status"] == "awaiting_approval", "the plan is shown for the values given"
    user.presses("approve")
    assert len(user.interactions) == 3
    assert must_fix(user.waits()) == []
    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.subject == {"subject_id": "BC-05", "species": "Mus musculus", "sex": "M", "age": "P15W"}
    assert nwb.experiment_description == "whisker deflection mapping"


# --- Pattern 2: minimal user ---------------------------------------------------------------------


def test_pattern_2_minimal_user_converts_without_questions_or_plan(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "no time")
    user.uploads(spikeglx_run(tmp_path, "quick", seed=25))
    user.waits()
    turn = user.says("Just convert it, skip all the questions")
    assert turn["session"]["status"] == "converting"
    assert "without a plan" in " ".join(r["text"] for r in turn["replies"])
    validated = user.waits()
    assert len(user.interactions) == 2
    assert cards(validated, "plan") == [], "no plan was shown"
    assert validated["attempts"][0]["state"] == "succeeded"

    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter is None and nwb.institution is None and nwb.subject is None
    assert nwb.session_start_time == FILE_START, "what the files say is still used"
    # DANDI needs a subject: the validation says so, and the user may still keep the file.
    assert (validated["awaiting"], "check_subject_exists" in must_fix(validated)) == ("correction", True)
    assert user.says("fine, keep it as is")["session"]["status"] == "completed_with_issues"


# --- Pattern 3: interactive user -----------------------------------------------------------------


def test_pattern_3_interactive_user_is_asked_one_field_at_a_time(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "place cells")
    hello = user.says("Hi, I'd like to convert my data")
    assert hello["session"]["status"] == "idle" and "Upload" in hello["replies"][-1]["text"]
    user.uploads(spikeglx_run(tmp_path, "track", seed=26))
    user.waits()

    turn = user.says("Could you ask me one by one?")
    answers = [
        ("experimenter", "Dr. Katherine Johnson"),
        ("institution", "Janelia Research Campus"),
        ("experiment_description", "Tetrode recording of CA1 place cells on a linear track"),
        ("subject_id", "KJ-7"),
        ("species", "rat"),
        ("sex", "female"),
        ("age", "no idea, skip"),
    ]
    for name, answer in answers:
        session = turn["session"]
        assert session["awaiting"] == "required_metadata", turn["replies"][-1]["text"]
        question = turn["replies"][-1]["text"]
        assert FIELDS[name].question in question and "say “skip” to leave it out" in question, question
        turn = user.says(answer)
    assert turn["session"]["status"] == "awaiting_approval" and turn["replies"][-1]["card"] == "plan"
    assert not_given(turn["replies"][-1]["text"]) == "• Not given: age."
    user.presses("approve")
    validated = user.waits()
    assert validated["attempts"][0]["state"] == "succeeded", last_words(validated)

    nwb = read_nwb(user.downloads(tmp_path))
    assert nwb.experimenter == ("Johnson, Katherine",) and nwb.institution == "Janelia Research Campus"
    assert nwb.experiment_description == "Tetrode recording of CA1 place cells on a linear track"
    assert nwb.subject == {"subject_id": "KJ-7", "species": "Rattus norvegicus", "sex": "F", "age": None}


# --- Pattern 4: frustrated user ------------------------------------------------------------------


def _stuck_at_attempt_2(user: Scientist, tmp_path: Path, run: str, seed: int) -> None:
    _skip_the_subject_and_fail_validation(user, tmp_path, run, seed)
    user.says("try again")
    again = user.waits()
    assert again["awaiting"] == "correction"
    assert [a["validation"] for a in again["attempts"]] == ["failed", "failed"], "the same issues came back"


def test_pattern_4_a_frustrated_user_is_offered_the_ways_out_and_takes_accept_as_is(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    user = Scientist.opens_session(live_world, "frustrating")
    _stuck_at_attempt_2(user, tmp_path, "angry", seed=27)
    turn = user.says("This keeps failing!")
    assert turn["session"]["status"] == "awaiting_user_input", "no conversion is started on a complaint"
    assert len(turn["session"]["attempts"]) == 2
    offer = turn["replies"][-1]
    assert not offer["text"].startswith("I didn't understand"), offer["text"]
    assert "accept" in offer["text"] and "as it is" in offer["text"], offer["text"]
    assert offer["card"] == "options" and "accept_as_is" in offer["data"]["options"], offer

    done = user.says("Yes, just finish it")["session"]
    assert done["status"] == "completed_with_issues" and done["output"]["attempt"] == 2

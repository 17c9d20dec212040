"""Choosing streams, previews and automatic fixes in the conversation, without a database, on the
detections of real recordings (the policy checks a choice and derives its facts from them)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from conversions.nwb.detection import detect_format
from conversions.orchestrator.state import (
    Awaiting,
    ConversionSucceeded,
    FieldValue,
    PreviewFailed,
    PreviewReady,
    RecordingSummary,
    Source,
    StartConversion,
    StartPreview,
    Status,
    StreamSummary,
)
from tests.conftest import real_data
from tests.orchestrator.test_policy import Dialogue, actions

FULL = "Jane Smith, MIT, V1 recording, subject mouse001, mouse, male, P90D"


@cache
def _summary(relative: str) -> RecordingSummary:
    return summary_of(real_data(relative))


def summary_of(upload: Path) -> RecordingSummary:
    """The recording summary the services give the policy for an upload's detection."""
    detection = detect_format(upload).to_json()
    return RecordingSummary(
        format=detection["format"],
        format_label=detection["format_label"],
        streams=tuple(
            StreamSummary(**{key: s[key] for key in StreamSummary.model_fields if key in s})
            for s in detection["streams"]
        ),
        default_streams=tuple(detection["default_streams"]),
        file_count=len({f for s in detection["streams"] for f in s["files"]}),
        detection=detection,
    )


def _dialogue(relative: str) -> Dialogue:
    from conversions.orchestrator.state import FilesChanged, FormatDetected

    recording = _summary(relative)
    d = Dialogue()
    d.send(FilesChanged(added=3, total=3))
    d.send(
        FormatDetected(
            files_version=d.view.memory.files_version,
            recording=recording,
            file_metadata=recording.detection["file_metadata"],
        )
    )
    d.view = d.view.model_copy(update={"recording": recording})
    return d


MULTI = "openephys_binary/aind_v0.6_multiexp_multistream"


def test_detection_stores_what_the_files_say_with_provenance_file() -> None:
    d = _dialogue(MULTI)
    facts = {name: d.view.metadata[name] for name in ("channel_count", "sampling_rate_hz", "device", "probe")}
    assert facts["channel_count"] == FieldValue(value=768, source=Source.FILE)
    assert facts["sampling_rate_hz"] == FieldValue(value=30000.0, source=Source.FILE)
    assert all(entry.source == Source.FILE for entry in facts.values())
    assert "ProbeB" in facts["probe"].value
    assert d.view.metadata["session_start_time"].source == Source.FILE
    # The streams left out are said, with how to add them.
    assert "also hold" in d.text and "NI-DAQ" in d.text


def test_another_experiment_brings_its_own_start_time_into_the_plan() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    first_start = d.value("session_start_time")
    assert d.view.awaiting == Awaiting.APPROVAL

    step = d.say("experiment 3 instead")

    assert d.view.awaiting == Awaiting.APPROVAL
    assert d.view.memory.selected_streams == [
        "Record Node 101/experiment3/Neuropix-PXI-100.ProbeB",
        "Record Node 101/experiment3/Neuropix-PXI-100.ProbeC",
    ]
    assert d.value("session_start_time") != first_start
    assert d.value("session_start_time").startswith(first_start[:10])
    assert "Start time, from these files" in d.text
    plan = step.replies[-1]
    assert plan.card == "plan" and [s["id"] for s in plan.data["streams"]] == d.view.memory.selected_streams
    approved = d.act("approve")
    assert actions(approved, StartConversion)[0].streams == tuple(d.view.memory.selected_streams)


def test_streams_of_two_experiments_together_are_refused_and_nothing_changes() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    before = d.view.memory.selected_streams

    from conversions.orchestrator.state import UserAction

    step = d.send(
        UserAction(
            action="select_streams",
            value=[
                "Record Node 101/experiment1/Neuropix-PXI-100.ProbeB",
                "Record Node 101/experiment3/Neuropix-PXI-100.ProbeB",
            ],
        )
    )

    assert step.refused
    assert "different experiments" in step.replies[0].text
    assert d.view.memory.selected_streams == before and d.view.awaiting == Awaiting.APPROVAL


def test_a_preview_leaves_the_conversation_where_it_was() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    step = d.say("can I see a preview first?")

    (preview,) = actions(step, StartPreview)
    assert preview.number == 1 and list(preview.streams) == d.view.memory.selected_streams
    assert (d.view.status, d.view.awaiting) == (Status.AWAITING_APPROVAL, Awaiting.APPROVAL)

    ready = d.send(PreviewReady(number=1, summary={"acquisition": []}, words="• 2 series", size_bytes=2_000_000))
    assert ready.replies[0].card == "preview" and "• 2 series" in ready.replies[0].text
    assert (d.view.status, d.view.awaiting) == (Status.AWAITING_APPROVAL, Awaiting.APPROVAL)


def test_an_older_preview_that_finishes_late_is_not_shown() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    d.act("preview")
    d.act("preview")

    assert d.send(PreviewReady(number=1, summary={}, words="old", size_bytes=1)).refused
    assert not d.send(PreviewReady(number=2, summary={}, words="new", size_bytes=1)).refused


def test_a_failed_preview_is_explained_and_approval_still_works() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    d.act("preview")
    failed = d.send(PreviewFailed(number=1, user_message="the files changed."))

    assert "could not be made: the files changed." in failed.replies[0].text
    assert actions(d.act("approve"), StartConversion)


def test_a_preview_without_a_start_time_asks_for_it_instead() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    d.view = d.view.model_copy(
        update={"metadata": {k: v for k, v in d.view.metadata.items() if k != "session_start_time"}}
    )

    step = d.act("preview")

    assert not actions(step, StartPreview)
    assert "start time" in d.text


def test_form_fixes_are_stored_as_automatic_and_said() -> None:
    # The user's own words are normalised as they arrive; values from elsewhere (an assistant, an
    # older session) may still have a form DANDI refuses, and are fixed before the plan.
    d = _dialogue(MULTI)
    d.say(FULL)
    d.view = d.view.model_copy(
        update={
            "metadata": {
                **d.view.metadata,
                "subject_id": FieldValue(value="mouse/7", source=Source.LLM),
                "species": FieldValue(value="house mouse", source=Source.LLM),
            }
        }
    )

    d.say("keywords: V1")

    assert d.view.metadata["subject_id"] == FieldValue(value="mouse-7", source=Source.AUTO_FIX)
    assert d.view.metadata["species"] == FieldValue(value="Mus musculus", source=Source.AUTO_FIX)
    # One short line for the person; each change (before, after, why) in the card, for the page's
    # details and the report.
    (said,) = [r for r in d.steps[-1].replies if r.card == "fixes"]
    assert said.text == "Fixed automatically: 2 values written the way DANDI accepts (subject id, species)."
    changes = {fix["field"]: fix for fix in said.data["fixes"]}
    assert changes["subject_id"]["before"] == "mouse/7" and changes["subject_id"]["after"] == "mouse-7"
    assert changes["subject_id"]["label"] == "subject id" and "'/' replaced by '-'" in changes["subject_id"]["reason"]
    assert changes["species"]["before"] == "house mouse" and changes["species"]["after"] == "Mus musculus"
    plan = d.steps[-1].replies[-1]
    assert {f["name"]: f["source"] for f in plan.data["metadata"]}["subject_id"] == "auto_fix"


def test_fixes_made_while_converting_are_shown() -> None:
    d = _dialogue(MULTI)
    d.say(FULL)
    d.act("approve")
    fix = {
        "field": "device description 'NeuropixelsProbeB'",
        "before": "",
        "after": "Neuropixels 1.0 probe (imec PRB_1_4_0480_1)",
        "check_name": "check_description",
        "reason": "described from the model read from the file",
    }

    group = {**fix, "field": "electrode group description 'imec0'", "after": "Neuropixels shank 0"}

    step = d.send(ConversionSucceeded(attempt=1, size_bytes=10, fixes=(fix, group)))

    # One short line; each change (before, after, why) in the card's data, behind the page's details.
    said = step.replies[0]
    assert said.card == "fixes"
    assert said.text == (
        "Fixed automatically while converting: 2 values written from what the files say "
        "(device description, electrode group description)."
    )
    assert [(f["label"], f["before"], f["after"], f["reason"]) for f in said.data["fixes"]] == [
        (fix["field"], "", fix["after"], fix["reason"]),
        (group["field"], "", group["after"], group["reason"]),
    ]


def test_a_single_stream_recording_offers_no_choice(tmp_path: Path) -> None:
    d = _dialogue("spikeglx/Noise4Sam_g0")
    d.say(FULL)
    plan = d.steps[-1].replies[-1]
    assert plan.card == "plan" and len(plan.data["all_streams"]) == 1
    assert "Left out" not in plan.text

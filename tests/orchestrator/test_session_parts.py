"""A recording with its parts in the conversation: what only the user can say to place them in time is
asked before the plan, and the plan shows each part on the session's clock."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from conversions.orchestrator.state import (
    Awaiting,
    FilesChanged,
    FormatDetected,
    RecordingSummary,
    StartConversion,
)
from tests.conftest import real_data
from tests.orchestrator.test_policy import Dialogue, actions
from tests.orchestrator.test_streams_previews_fixes import summary_of

FULL = "Jane Smith, MIT, V1 recording, subject mouse001, mouse, male, P90D"


def _detected(d: Dialogue, recording: RecordingSummary) -> None:
    d.send(FilesChanged(added=3, total=3))
    d.send(
        FormatDetected(
            files_version=d.view.memory.files_version,
            recording=recording,
            file_metadata=recording.detection["file_metadata"],
        )
    )
    d.view = d.view.model_copy(update={"recording": recording})


def _link(root: Path, **folders: str) -> Path:
    root.mkdir(exist_ok=True)
    for name, relative in folders.items():
        shutil.copytree(real_data(relative), root / name, copy_function=os.symlink)
    return root


@pytest.fixture
def dialogue(tmp_path: Path) -> Dialogue:
    root = _link(
        tmp_path / "upload", Noise4Sam_g0="spikeglx/Noise4Sam_g0", kilosort4="kilosort/kilosort4", sleap="sleap/clip"
    )
    d = Dialogue()
    _detected(d, summary_of(root))
    return d


def test_when_the_camera_started_is_asked_then_every_part_is_placed_in_the_plan(dialogue: Dialogue) -> None:
    dialogue.say(FULL)
    assert dialogue.view.awaiting == Awaiting.REQUIRED_METADATA
    assert "When did the video start, in seconds after the recording started" in dialogue.text

    step = dialogue.say("video start: 2.5 s later")

    assert dialogue.view.awaiting == Awaiting.APPROVAL
    assert dialogue.value("behaviour_start_s") == 2.5
    plan = step.replies[-1]
    starts = {item["stream_id"]: item["start_s"] for item in plan.data["timeline"]}
    assert starts == {"imec0.ap": 0.0, "sorting": 0.0, "pose:clip.predictions.slp": 2.5, "video:clip.mp4": 2.5}
    assert "spike sorting (Kilosort 4, 403 units: 253 good, 150 mua): from 0 s" in plan.text
    assert "the camera started 2.5 s after the recording" in plan.text
    approved = dialogue.act("approve")
    assert actions(approved, StartConversion)[0].streams == tuple(dialogue.view.recording.default_streams)


def test_an_answer_that_is_not_a_time_is_refused_and_nothing_is_stored(dialogue: Dialogue) -> None:
    dialogue.say(FULL)
    dialogue.say("video start: whenever")
    assert dialogue.view.metadata.get("behaviour_start_s") is None
    assert "holds no time after the recording's start" in dialogue.text
    assert dialogue.view.awaiting == Awaiting.REQUIRED_METADATA  # asked again, never a plan without it


def test_without_the_video_and_pose_nothing_about_the_camera_is_asked(dialogue: Dialogue) -> None:
    from conversions.orchestrator.state import UserAction

    dialogue.send(UserAction(action="select_streams", value=["imec0.ap", "sorting"]))
    dialogue.say(FULL)
    assert dialogue.view.awaiting == Awaiting.APPROVAL
    assert "video start" not in dialogue.text.lower()


def test_a_user_who_cannot_say_when_the_camera_started_gets_the_plan_without_video_and_pose(
    dialogue: Dialogue,
) -> None:
    dialogue.say(FULL)
    step = dialogue.say("skip")
    assert dialogue.view.awaiting == Awaiting.APPROVAL
    assert dialogue.view.memory.selected_streams == ["imec0.ap", "sorting"]
    assert "Leaving out pose" in dialogue.text and "when the camera started is not known" in dialogue.text
    assert [s["id"] for s in step.replies[-1].data["streams"]] == ["imec0.ap", "sorting"]


def test_the_detection_names_the_recording_then_what_comes_with_it(dialogue: Dialogue) -> None:
    said = "\n".join(reply.text for step in dialogue.steps for reply in step.replies)
    assert (
        "This is a SpikeGLX recording: Neuropixels probe imec0, action potential band (AP). With it: spike sorting "
        "(Kilosort 4, 403 units: 253 good, 150 mua), pose (SLEAP," in said
    )


def test_parts_uploaded_after_a_conversion_make_a_new_attempt_with_everything(tmp_path: Path) -> None:
    from conversions.orchestrator.state import ConversionSucceeded, Status, ValidationCompleted

    root = _link(tmp_path / "upload", Noise4Sam_g0="spikeglx/Noise4Sam_g0")
    d = Dialogue()
    _detected(d, summary_of(root))
    d.say(FULL)
    d.act("approve")
    d.send(ConversionSucceeded(attempt=1, size_bytes=1))
    d.send(ValidationCompleted(attempt=1, outcome="passed", issues=()))
    assert d.view.status == Status.COMPLETED

    _link(root, kilosort4="kilosort/kilosort4", sleap="sleap/clip")
    _detected(d, summary_of(root))
    assert "When did the video start" in d.text
    step = d.say("they started together")
    assert d.value("behaviour_start_s") == 0.0
    assert step.replies[-1].data["attempt"] == 2
    approved = d.act("approve")
    (start,) = actions(approved, StartConversion)
    assert start.attempt == 2
    assert start.streams == ("imec0.ap", "sorting", "pose:clip.predictions.slp", "video:clip.mp4")


@pytest.fixture
def pose_without_rate(tmp_path: Path) -> Dialogue:
    """A recording with a DeepLabCut output whose pickle and video are not in the upload."""
    root = _link(tmp_path / "upload", Noise4Sam_g0="spikeglx/Noise4Sam_g0")
    dlc = "golden_mouseDLC_dlcrnetms5_golden_mouseOct19shuffle1_2000.h5"
    os.symlink(real_data("deeplabcut/golden_mouse-shaokai-2022-10-19/videos") / dlc, root / dlc)
    d = Dialogue()
    _detected(d, summary_of(root))
    return d


def test_a_pose_without_a_frame_rate_has_it_asked_with_the_cameras_start(pose_without_rate: Dialogue) -> None:
    d = pose_without_rate
    d.say(FULL)
    assert "At how many frames per second was the video filmed" in d.text
    d.say("video start: 0; frame rate: 30 fps")
    assert (d.value("behaviour_start_s"), d.value("pose_rate_hz")) == (0.0, 30.0)
    assert d.view.awaiting == Awaiting.APPROVAL


def test_a_pose_whose_rate_is_declined_is_left_out(pose_without_rate: Dialogue) -> None:
    d = pose_without_rate
    d.say(FULL)
    d.say("video start: 0")
    assert "At how many frames per second" in d.text
    d.say("skip")
    assert d.view.awaiting == Awaiting.APPROVAL
    assert d.view.memory.selected_streams == ["imec0.ap"]
    assert "the frame rate of the pose is not known" in d.text

"""Which streams a user's words choose, against the streams real recordings have."""

from __future__ import annotations

import pytest

from conversions.language.streams import Change, StreamOption, parse_stream_choice

SPIKEGLX = (
    StreamOption("imec0.ap", "Neuropixels probe imec0, action potential band (AP)"),
    StreamOption("imec0.lf", "Neuropixels probe imec0, local field potential band (LF)"),
    StreamOption("nidq", "NI-DAQ analog and digital inputs (nidq.bin, 9 channels)", kind="auxiliary"),
)
SPIKEGLX_DEFAULT = ("imec0.ap", "imec0.lf")


def _openephys() -> tuple[StreamOption, ...]:
    streams = []
    for number in (1, 3, 6):
        folder = f"Record Node 101/experiment{number}"
        group = f"experiment {number}"
        streams += [
            StreamOption(f"{folder}/Neuropix-PXI-100.ProbeB", f"Neuropixels ProbeB (384 channels), {group}", group),
            StreamOption(f"{folder}/Neuropix-PXI-100.ProbeC", f"Neuropixels ProbeC (384 channels), {group}", group),
            StreamOption(
                f"{folder}/NI-DAQmx-103.PXIe-6341",
                f"NI-DAQ PXIe-6341 analog inputs (8 channels), {group}",
                group,
                "auxiliary",
            ),
        ]
    return tuple(streams)


OPENEPHYS = _openephys()
OPENEPHYS_DEFAULT = (OPENEPHYS[0].id, OPENEPHYS[1].id)


def _short(ids: tuple[str, ...]) -> list[str]:
    return [stream_id.split("/", 1)[1] if "/" in stream_id else stream_id for stream_id in ids]


@pytest.mark.parametrize(
    ("text", "change", "expected"),
    [
        ("only the AP band", Change.ONLY, ["imec0.ap"]),
        ("just LF please", Change.ONLY, ["imec0.lf"]),
        ("I want the action potentials only", Change.ONLY, ["imec0.ap"]),
        ("without the LFP", Change.REMOVE, ["imec0.ap"]),
        ("drop the lf", Change.REMOVE, ["imec0.ap"]),
        ("also the NI-DAQ", Change.ADD, ["imec0.ap", "imec0.lf", "nidq"]),
        ("add nidq", Change.ADD, ["imec0.ap", "imec0.lf", "nidq"]),
        ("I want the LF too", Change.ADD, ["imec0.ap", "imec0.lf"]),
        ("all streams", Change.ALL, ["imec0.ap", "imec0.lf", "nidq"]),
        ("AP and LF", Change.ONLY, ["imec0.ap", "imec0.lf"]),
        ("convert the nidq only", Change.ONLY, ["nidq"]),
    ],
)
def test_spikeglx_words(text: str, change: Change, expected: list[str]) -> None:
    choice = parse_stream_choice(text, SPIKEGLX, SPIKEGLX_DEFAULT)
    assert choice is not None
    assert choice.change is change
    assert list(choice.stream_ids) == expected


@pytest.mark.parametrize(
    ("text", "change", "expected"),
    [
        ("only probe B", Change.ONLY, ["experiment1/Neuropix-PXI-100.ProbeB"]),
        ("without ProbeC", Change.REMOVE, ["experiment1/Neuropix-PXI-100.ProbeB"]),
        (
            "experiment 3 instead",
            Change.ONLY,
            ["experiment3/Neuropix-PXI-100.ProbeB", "experiment3/Neuropix-PXI-100.ProbeC"],
        ),
        (
            "convert experiment 6",
            Change.ONLY,
            ["experiment6/Neuropix-PXI-100.ProbeB", "experiment6/Neuropix-PXI-100.ProbeC"],
        ),
        ("ProbeC only, experiment 3", Change.ONLY, ["experiment3/Neuropix-PXI-100.ProbeC"]),
        (
            "include the NI-DAQ",
            Change.ADD,
            [
                "experiment1/Neuropix-PXI-100.ProbeB",
                "experiment1/Neuropix-PXI-100.ProbeC",
                "experiment1/NI-DAQmx-103.PXIe-6341",
            ],
        ),
        (
            "all streams of experiment 3",
            Change.ALL,
            [
                "experiment3/Neuropix-PXI-100.ProbeB",
                "experiment3/Neuropix-PXI-100.ProbeC",
                "experiment3/NI-DAQmx-103.PXIe-6341",
            ],
        ),
        # "Both probes" means the recording proper, not the analog inputs.
        (
            "both probes",
            Change.ALL,
            ["experiment1/Neuropix-PXI-100.ProbeB", "experiment1/Neuropix-PXI-100.ProbeC"],
        ),
    ],
)
def test_open_ephys_words_stay_in_the_chosen_experiment(text: str, change: Change, expected: list[str]) -> None:
    choice = parse_stream_choice(text, OPENEPHYS, OPENEPHYS_DEFAULT)
    assert choice is not None
    assert choice.change is change
    assert _short(choice.stream_ids) == expected


@pytest.mark.parametrize(
    "text",
    [
        "approve",
        "the weather is nice",
        "convert everything",  # approval, not a choice of streams
        "Jane Smith, MIT",
        "the AP band was noisy near the end of the session, we think because of the cable",
        "I don't know the probe",
    ],
)
def test_messages_that_choose_no_streams(text: str) -> None:
    assert parse_stream_choice(text, SPIKEGLX, SPIKEGLX_DEFAULT) is None


def test_a_recording_with_one_stream_has_nothing_to_choose() -> None:
    assert parse_stream_choice("only the AP band", SPIKEGLX[:1], ("imec0.ap",)) is None


# A recording with its parts, as detection labels them (nwb/parts.combine).
SESSION = (
    StreamOption("imec0.ap", "Neuropixels probe imec0, action potential band (AP)"),
    StreamOption("sorting", "spike sorting (Kilosort 4, 403 units: 253 good, 150 mua)", kind="spikes"),
    StreamOption("pose:clip.predictions.slp", "pose (SLEAP, 2 body parts, 1500 frames at 25 frames/s)", kind="pose"),
    StreamOption("video:clip.mp4", "video clip.mp4 (1024×1024, 1500 frames at 25 frames/s)", kind="video"),
)


@pytest.mark.parametrize(
    ("text", "change", "expected"),
    [
        ("add the spike sorting", Change.ADD, ["imec0.ap", "sorting"]),
        ("also convert the units", Change.ADD, ["imec0.ap", "sorting"]),
        ("add the kilosort output", Change.ADD, ["imec0.ap", "sorting"]),
        ("include the DLC tracking too", Change.ADD, ["imec0.ap", "pose:clip.predictions.slp"]),
        ("add the pose and the video", Change.ADD, ["imec0.ap", "pose:clip.predictions.slp", "video:clip.mp4"]),
        ("the camera as well", Change.ADD, ["imec0.ap", "video:clip.mp4"]),
    ],
)
def test_a_sessions_parts_are_named_by_what_they_are(text: str, change: Change, expected: list[str]) -> None:
    choice = parse_stream_choice(text, SESSION, ("imec0.ap",))
    assert choice is not None and choice.change == change and list(choice.stream_ids) == expected


@pytest.mark.parametrize("text", ["without the video", "no video please", "leave out the behaviour video"])
def test_a_part_is_left_out_in_words(text: str) -> None:
    choice = parse_stream_choice(text, SESSION, ("imec0.ap", "video:clip.mp4"))
    assert choice is not None and choice.change == Change.REMOVE and choice.stream_ids == ("imec0.ap",)

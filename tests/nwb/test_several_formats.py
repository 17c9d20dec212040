"""detect_format when more than one format claims an upload, and when the user names the format."""

from __future__ import annotations

from pathlib import Path

import pytest

from conversions.nwb.detection import SUPPORTED_FORMATS, detect_format
from conversions.nwb.errors import AmbiguousRecording, RecordingProblem
from conversions.nwb.formats.base import SupportedFormat
from conversions.nwb.synthetic import write_neuralynx, write_spikeglx

from .conftest import CHANNELS, DURATION_S, START, real_recording

OPEN_EPHYS = "openephys_binary/DelayedRecording/Record Node 118"


def _link_open_ephys(target: Path, *, without: str = "") -> None:
    """The real Open Ephys node under `target`, as symlinks (nothing copied), less files named `without`."""
    source = real_recording(OPEN_EPHYS)
    for path in source.rglob("*"):
        if path.is_file() and path.name != without:
            link = target / source.name / path.relative_to(source)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)


@pytest.fixture
def mixed_upload(tmp_path: Path) -> Path:
    """A SpikeGLX recording and an Open Ephys recording side by side, both complete."""
    write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)
    _link_open_ephys(tmp_path)
    return tmp_path


def test_two_readable_formats_are_offered_to_the_user(mixed_upload: Path) -> None:
    with pytest.raises(AmbiguousRecording) as caught:
        detect_format(mixed_upload)

    assert caught.value.candidates == ("spikeglx", "openephys_binary")
    assert "SpikeGLX and Open Ephys binary" in caught.value.user_message
    assert "Say which one to convert" in caught.value.user_message
    assert isinstance(caught.value, RecordingProblem)  # callers that only know RecordingProblem still answer


@pytest.mark.parametrize(
    ("format_key", "left_out"),
    [("openephys_binary", "synthetic_g0/synthetic_g0_t0.imec0.ap.bin"), ("spikeglx", "Record Node 118/experiment1/")],
)
def test_the_chosen_format_is_inspected_alone(mixed_upload: Path, format_key: str, left_out: str) -> None:
    detection = detect_format(mixed_upload, format_key=format_key)

    assert detection.format == format_key
    assert any("left out" in note and left_out in note for note in detection.notes)


def _link_real(target: Path, *relatives: str) -> None:
    """Real recordings' files (a file, or every file of a folder) side by side in `target`, as symlinks."""
    for relative in relatives:
        source = real_recording(relative)
        for path in [source] if source.is_file() else sorted(source.iterdir()):
            (target / path.name).symlink_to(path)


def _spikeglx_and_neuralynx(target: Path) -> None:
    write_spikeglx(target, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)
    write_neuralynx(target / "cheetah", n_channels=2, duration_s=DURATION_S, start_time=START)


# Two recordings a user might upload together: how to build them, the two formats (in registry
# order), and from each format's point of view a file of the other, which it leaves out.
MIXTURES = {
    "intan and blackrock": (
        lambda root: _link_real(root, "intan/example_intan_file.rhd", "blackrock/example"),
        ("intan", "blackrock"),
        "Intan RHD/RHS and Blackrock",
        {"intan": "example_2.ns2", "blackrock": "example_intan_file.rhd"},
    ),
    "edf and axon": (
        lambda root: _link_real(root, "edf/test.edf", "abf/14o16001_vc_pair_step.abf"),
        ("axon", "edf"),
        "Axon ABF (patch clamp) and EDF",
        {"axon": "test.edf", "edf": "14o16001_vc_pair_step.abf"},
    ),
    "spike2 and plexon": (
        lambda root: _link_real(root, "spike2/motor_units.smr", "plexon/explore1.plx"),
        ("plexon", "spike2"),
        "Plexon PLX (sorted spikes) and CED Spike2",
        {"plexon": "motor_units.smr", "spike2": "explore1.plx"},
    ),
    "spikeglx and neuralynx": (
        _spikeglx_and_neuralynx,
        ("spikeglx", "neuralynx"),
        "SpikeGLX and Neuralynx",
        {"spikeglx": "cheetah/CSC1.ncs", "neuralynx": "synthetic_g0_t0.imec0.ap.bin"},
    ),
}


@pytest.mark.parametrize("mixture", MIXTURES)
def test_two_recordings_in_two_formats_are_offered_to_the_user(tmp_path: Path, mixture: str) -> None:
    build, candidates, labels, _ = MIXTURES[mixture]
    build(tmp_path)

    with pytest.raises(AmbiguousRecording) as caught:
        detect_format(tmp_path)

    assert caught.value.candidates == candidates
    assert caught.value.user_message == (
        f"These files hold recordings in more than one format: {labels}. Say which one to convert, or upload "
        "each recording on its own."
    )


@pytest.mark.parametrize("mixture", MIXTURES)
def test_each_format_of_a_mixture_can_be_chosen(tmp_path: Path, mixture: str) -> None:
    build, candidates, _, left_out = MIXTURES[mixture]
    build(tmp_path)

    for format_key in candidates:
        detection = detect_format(tmp_path, format_key=format_key)

        assert detection.format == format_key
        assert detection.streams and set(detection.default_streams) <= {stream.id for stream in detection.streams}
        assert any("left out" in note and left_out[format_key] in note for note in detection.notes), detection.notes


def test_a_claimant_that_fails_is_noted_when_another_succeeds(tmp_path: Path) -> None:
    write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)
    _link_open_ephys(tmp_path, without="settings.xml")

    detection = detect_format(tmp_path)

    assert detection.format == "spikeglx"
    (note,) = [note for note in detection.notes if "Open Ephys binary format" in note]
    assert "could not be read" in note and "settings.xml" in note


def test_when_every_claimant_fails_each_says_why(tmp_path: Path) -> None:
    paths = write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)
    paths["ap_meta"].unlink()
    _link_open_ephys(tmp_path, without="settings.xml")

    with pytest.raises(RecordingProblem) as caught:
        detect_format(tmp_path)

    message = caught.value.user_message
    assert message.startswith("These files look like SpikeGLX or Open Ephys binary")
    assert "As SpikeGLX: synthetic_g0/synthetic_g0_t0.imec0.ap.bin has no matching" in message
    assert "As Open Ephys binary:" in message and "settings.xml" in message
    assert not isinstance(caught.value, AmbiguousRecording)


def test_a_chosen_format_that_cannot_read_the_files_says_why(tmp_path: Path) -> None:
    write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)

    with pytest.raises(RecordingProblem, match=r"The upload has no structure\.oebin"):
        detect_format(tmp_path, format_key="openephys_binary")


def test_an_unknown_format_key_is_a_programming_error(mixed_upload: Path) -> None:
    with pytest.raises(ValueError, match="unknown format 'betamax'"):
        detect_format(mixed_upload, format_key="betamax")


def test_every_registered_format_is_complete() -> None:
    assert list(SUPPORTED_FORMATS) == [
        "spikeglx",
        "openephys_binary",
        "intan",
        "blackrock",
        "openephys_legacy",
        "neuroscope",
        "axon",
        "plexon",
        "neuralynx",
        "spike2",
        "edf",
        "sorting",
        "pose",
        "video",
    ]
    for key, supported in SUPPORTED_FORMATS.items():
        assert isinstance(supported, SupportedFormat)
        assert supported.key == key
        assert supported.label and supported.needs
        assert not supported.claims(["notes.txt", "photo.png"])

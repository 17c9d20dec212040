"""detect_format when more than one format claims an upload, and when the user names the format."""

from __future__ import annotations

from pathlib import Path

import pytest

from conversions.nwb.detection import SUPPORTED_FORMATS, detect_format
from conversions.nwb.errors import AmbiguousRecording, RecordingProblem
from conversions.nwb.formats.base import SupportedFormat
from conversions.nwb.synthetic import write_spikeglx

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
    ]
    for key, supported in SUPPORTED_FORMATS.items():
        assert isinstance(supported, SupportedFormat)
        assert supported.key == key
        assert supported.label and supported.needs
        assert not supported.claims(["notes.txt", "photo.png"])

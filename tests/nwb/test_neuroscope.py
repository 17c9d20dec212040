"""NeuroScope (.dat + .xml): detection and conversion of generated sessions (no real file is available)."""

from __future__ import annotations

import json
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionFailed, RecordingProblem
from conversions.nwb.formats.neuroscope import FORMAT
from conversions.nwb.synthetic import write_neuroscope
from conversions.nwb.validation import CRITICAL, ERROR, inspect_nwb

from .conftest import bytes_read_during, convert_upload
from .test_conversion import FULL_METADATA

CHANNELS = 16
RATE = 20000.0
DURATION_S = 0.5
SESSION = "mouse12_day3"
NDMANAGER_VOLTS_PER_BIT = 20 / 2**16 / 1000


@pytest.fixture(scope="session")
def session_upload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A read-only-by-convention NeuroScope session: 16 channels in 2 groups of 8, 0.5 s at 20 kHz."""
    root = tmp_path_factory.mktemp("neuroscope")
    write_neuroscope(root, name=SESSION, n_channels=CHANNELS, sampling_rate_hz=RATE, duration_s=DURATION_S, seed=4)
    return root


@pytest.fixture
def upload(tmp_path: Path, session_upload: Path) -> Path:
    """A private copy a test may change."""
    root = tmp_path / "upload"
    shutil.copytree(session_upload, root)
    return root


def _xml(root: Path) -> Path:
    return root / SESSION / f"{SESSION}.xml"


def _dat(root: Path) -> Path:
    return root / SESSION / f"{SESSION}.dat"


def _edit_xml(root: Path, old: str, new: str) -> None:
    text = _xml(root).read_text()
    assert old in text
    _xml(root).write_text(text.replace(old, new))


def _problem(root: Path, **kwargs: Any) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root, **kwargs)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(
        root, detection, output, {"metadata": FULL_METADATA, "timezone": "America/New_York"}, **overrides
    )


# --- detection -----------------------------------------------------------------------------------


def test_a_session_is_one_stream(session_upload: Path) -> None:
    detection = detect_format(session_upload)

    assert (detection.format, detection.format_label) == ("neuroscope", "NeuroScope")
    (stream,) = detection.streams
    assert detection.default_streams == (SESSION,)
    assert stream.label == f"wide-band signals of {SESSION}.dat (16 channels in 2 anatomical groups)"
    assert (stream.channel_count, stream.sampling_rate_hz, stream.duration_s) == (CHANNELS, RATE, DURATION_S)
    assert stream.files == (f"{SESSION}/{SESSION}.dat", f"{SESSION}/{SESSION}.xml")
    assert stream.size_bytes == _dat(session_upload).stat().st_size + _xml(session_upload).stat().st_size
    assert detection.file_metadata["session_start_time"] == "2024-03-15T00:00:00"
    assert detection.file_metadata["uv_per_bit"] == pytest.approx(NDMANAGER_VOLTS_PER_BIT * 1e6)
    (gain,) = [note for note in detection.notes if note.startswith("Amplitudes")]
    assert "0.3052 µV per bit: NDManager's default" in gain and "0.195 µV per bit" in gain
    assert any("but not the time, so the start time is that day at midnight" in note for note in detection.notes)


def test_detection_round_trips_through_json(session_upload: Path) -> None:
    detection = detect_format(session_upload)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    write_neuroscope(tmp_path, name="big", n_channels=64, duration_s=0.01)
    dat = tmp_path / "big" / "big.dat"
    with dat.open("r+b") as handle:  # 20 GB, sparse: reading it would take minutes
        handle.truncate((20 * 10**9 // 128) * 128)
    detect_format(tmp_path)  # imports neuroconv and the readers, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(tmp_path))

    assert read < 64 * 2**20  # the .dat holds 20 GB
    assert detection.streams[0].duration_s == pytest.approx(20 * 10**9 // 128 / 20000)


def test_a_bare_dat_is_not_claimed(upload: Path) -> None:
    """Raw int16 .dat files come from many systems; without the .xml nothing says it is NeuroScope's."""
    _xml(upload).unlink()

    assert not FORMAT.claims([f"{SESSION}/{SESSION}.dat"])
    with pytest.raises(RecordingProblem, match="not a recording format this portal can convert"):
        detect_format(upload)
    chosen = _problem(upload, format_key="neuroscope")
    assert chosen.user_message.startswith(f"{SESSION}/{SESSION}.dat has no {SESSION}.xml next to it")


def test_other_files_of_the_session_are_noted(upload: Path) -> None:
    (upload / SESSION / f"{SESSION}.lfp").write_bytes(b"\x00" * 64)
    (upload / SESSION / "notes.txt").write_text("day 3")

    detection = detect_format(upload)

    assert any(
        note.startswith(f"{SESSION}/{SESSION}.lfp (downsampled from the .dat) is not converted")
        for note in detection.notes
    )
    assert any("left out: " + f"{SESSION}/notes.txt" in note for note in detection.notes)


def test_two_sessions_in_one_upload(upload: Path) -> None:
    write_neuroscope(upload, name="other_session", n_channels=4, duration_s=0.1)

    problem = _problem(upload)

    assert "several NeuroScope recordings" in problem.user_message
    assert "other_session/other_session.dat" in problem.user_message


def test_spike_detection_groups_leave_auxiliary_channels_out(upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    # neuroconv keeps only the channels of the spike-detection groups when the .xml has them.
    groups = "".join(f"<channel>{channel}</channel>" for channel in range(12))
    _edit_xml(
        upload,
        "</anatomicalDescription>",
        f"</anatomicalDescription><spikeDetection><channelGroups><group><channels>{groups}</channels>"
        "</group></channelGroups></spikeDetection>",
    )

    detection = detect_format(upload)

    assert detection.streams[0].channel_count == 12
    assert any("Only the 12 channels of the spike-detection groups" in note for note in detection.notes)
    nwbfile = read_nwb(_convert(upload, detection, tmp_path / "x.nwb"))
    raw = np.fromfile(_dat(upload), dtype="<i2").reshape(-1, CHANNELS)
    assert np.array_equal(nwbfile.acquisition["ElectricalSeries"].data[:], raw[:, :12])


# --- conversion ----------------------------------------------------------------------------------


def test_converts_sample_for_sample(session_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_neuroscope_recording

    detection = detect_format(session_upload)

    output = _convert(session_upload, detection, tmp_path / "session.nwb")

    nwbfile = read_nwb(output)
    series = nwbfile.acquisition["ElectricalSeries"]
    raw = np.fromfile(_dat(session_upload), dtype="<i2").reshape(-1, CHANNELS)
    assert series.data.shape == (10000, CHANNELS)
    assert series.rate == RATE
    assert np.array_equal(series.data[:], raw)
    source = read_neuroscope_recording(_dat(session_upload), xml_file_path=_xml(session_upload))
    assert np.array_equal(series.data[:], source.get_traces(return_in_uV=False))
    assert series.conversion == pytest.approx(NDMANAGER_VOLTS_PER_BIT)  # from the .xml's range and amplification
    assert list(nwbfile.electrode_groups) == ["Group1", "Group2"]
    assert list(nwbfile.electrodes["group_name"][:]) == ["Group1"] * 8 + ["Group2"] * 8
    assert nwbfile.electrode_groups["Group2"].device is nwbfile.devices["NeuroScope"]
    assert nwbfile.session_start_time == datetime(2024, 3, 15, tzinfo=ZoneInfo("America/New_York"))
    assert nwbfile.subject.subject_id == "mouse001"
    assert not [issue for issue in inspect_nwb(output) if issue.importance in (ERROR, CRITICAL)]


@pytest.mark.parametrize("date", ["<date>sometime in spring</date>", "<date></date>", ""])
def test_without_a_readable_date_the_start_time_is_asked_for(
    upload: Path, tmp_path: Path, read_nwb: Any, date: str
) -> None:
    _edit_xml(upload, "<date>2024-03-15</date>", date)
    detection = detect_format(upload)
    assert detection.file_metadata["session_start_time"] is None
    assert any("you will be asked for" in note for note in detection.notes)

    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(upload, detection, tmp_path / "x.nwb")
    output = _convert(upload, detection, tmp_path / "x.nwb", metadata={"session_start_time": "2024-03-15T09:30:00"})

    assert read_nwb(output).session_start_time == datetime(2024, 3, 15, 9, 30, tzinfo=ZoneInfo("America/New_York"))


# --- files the reader would fail on ----------------------------------------------------------------


def test_dat_not_a_whole_number_of_samples(upload: Path) -> None:
    with _dat(upload).open("r+b") as handle:
        handle.truncate(_dat(upload).stat().st_size - 6)  # 3 samples short of a whole frame of 16

    problem = _problem(upload)

    assert problem.user_message.startswith(f"{SESSION}/{SESSION}.dat is 319,994 bytes")
    assert "not a whole number of samples for the 16 channels" in problem.user_message
    assert "incomplete" in problem.user_message


def test_xml_without_the_channel_count(upload: Path) -> None:
    _edit_xml(upload, f"<nChannels>{CHANNELS}</nChannels>", "")

    problem = _problem(upload)

    assert problem.user_message.startswith(f"{SESSION}/{SESSION}.xml lacks settings the reader needs (nChannels")


def test_xml_that_is_not_a_parameter_file(upload: Path) -> None:
    _xml(upload).write_text("<config><colour>blue</colour></config>")

    problem = _problem(upload)

    assert problem.user_message.startswith(f"{SESSION}/{SESSION}.xml is not a NeuroScope parameter file")


def test_channel_in_no_anatomical_group(upload: Path) -> None:
    _edit_xml(upload, '<channel skip="0">15</channel>', "")

    problem = _problem(upload)

    assert f"{SESSION}/{SESSION}.xml places channel 15 in no anatomical group" in problem.user_message


def test_file_changed_after_detection(upload: Path, tmp_path: Path) -> None:
    detection = detect_format(upload)
    with _dat(upload).open("r+b") as handle:
        handle.truncate(CHANNELS * 2 * 100)

    with pytest.raises(ConversionFailed) as caught:
        _convert(upload, detection, tmp_path / "out" / "x.nwb")

    assert f"{SESSION}/{SESSION}.dat" in caught.value.user_message
    assert "changed or disappeared" in caught.value.user_message
    assert not any((tmp_path / "out").glob("*.nwb"))

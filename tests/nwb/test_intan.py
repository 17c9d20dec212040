"""Intan RHD: detection and conversion of the real files in ../shared/data/real/, and damaged copies.

The real files are read in place; tests that damage one work on a copy in tmp_path.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionFailed, RecordingProblem
from conversions.nwb.validation import ERROR, inspect_nwb

from .conftest import bytes_read_during, convert_upload, real_recording

EXAMPLE = "intan/example_intan_file.rhd"
OLD_VERSION = "broken/intan_rhd_v1.5/sampledata.rhd"
# The example's layout (RHD version 2.0, 2 amplifier + 3 auxiliary + 1 supply channel).
HEADER_BYTES = 5938
BLOCK_BYTES = 1218
BLOCKS = 155
METADATA = {
    "session_start_time": "2024-03-15T14:30:00",
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Intan recording converted to test the portal.",
    "subject_id": "rat7",
    "species": "Rattus norvegicus",
    "sex": "M",
    "age": "P60D",
}


def _source(path: Path, stream_name: str, *, folder: bool = False) -> np.ndarray:
    """What spikeinterface (neo) reads from the original file(s): raw samples."""
    from spikeinterface.extractors import read_intan, read_split_intan_files

    recording = (
        read_split_intan_files(path, stream_name=stream_name) if folder else read_intan(path, stream_name=stream_name)
    )
    traces: np.ndarray = recording.get_traces(return_in_uV=False)
    return traces


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _copy(tmp_path: Path, name: str = "example_intan_file.rhd") -> Path:
    root = tmp_path / "upload"
    root.mkdir()
    shutil.copyfile(real_recording(EXAMPLE), root / name)
    return root


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": METADATA, "timezone": "Europe/Berlin"}, **overrides)


# --- detection -----------------------------------------------------------------------------------


def test_the_amplifier_channels_are_the_default_stream() -> None:
    root = real_recording(EXAMPLE).parent

    detection = detect_format(root)

    assert detection.format == "intan"
    assert detection.format_label == "Intan RHD/RHS"
    assert [stream.id for stream in detection.streams] == ["amplifier", "auxiliary", "supply_voltage"]
    assert detection.default_streams == ("amplifier",)
    amplifier = detection.stream("amplifier")
    assert amplifier.label == "Amplifier channels, headstage port A (2 channels)"
    assert (amplifier.channel_count, amplifier.sampling_rate_hz) == (2, 20000.0)
    assert amplifier.duration_s == pytest.approx(0.992)
    assert amplifier.files == ("example_intan_file.rhd",)
    assert amplifier.size_bytes == (root / "example_intan_file.rhd").stat().st_size
    auxiliary = detection.stream("auxiliary")
    assert (auxiliary.channel_count, auxiliary.sampling_rate_hz) == (3, 5000.0)
    assert detection.stream("supply_voltage").sampling_rate_hz == 156.25
    assert detection.file_metadata == {
        "session_start_time": None,
        "device": "Intan RHD recording system",
        "channel_count": 2,
        "sampling_rate_hz": 20000.0,
        "duration_s": pytest.approx(0.992),
        "size_bytes": amplifier.size_bytes,
        "file_version": "2.0",
    }
    assert any("does not say when the recording started" in note for note in detection.notes)
    (not_default,) = [note for note in detection.notes if "not brain signals" in note]
    assert "Headstage auxiliary inputs" in not_default and "supply voltage" in not_default


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(EXAMPLE).parent)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    """A 20 GB file (sparse): neo's own check reads every block's sample counter, seconds per GB."""
    root = tmp_path / "upload"
    root.mkdir()
    source = real_recording(EXAMPLE).read_bytes()
    blocks = 20 * 10**9 // BLOCK_BYTES
    path = root / "long.rhd"
    with path.open("wb") as handle:
        handle.write(source[: HEADER_BYTES + BLOCK_BYTES])
        last = bytearray(source[HEADER_BYTES : HEADER_BYTES + BLOCK_BYTES])
        first_sample = int(np.frombuffer(last[:4], dtype="<i4")[0])
        counters = np.arange(128, dtype="<i4") + first_sample + (blocks - 1) * 128
        last[: counters.nbytes] = counters.tobytes()
        handle.seek(HEADER_BYTES + (blocks - 1) * BLOCK_BYTES)
        handle.write(last)
    detect_format(root)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(root))

    # The .rhd holds 20 GB. ~30 MB is expected: neo's header parser, run four times, reads the first
    # kilobytes of the file (or of its copy) thousands of times, 4 KB at a time.
    assert read < 256 * 2**20
    assert detection.stream("amplifier").duration_s == pytest.approx(blocks * 128 / 20000)


def test_the_file_name_hints_at_the_start_time(tmp_path: Path) -> None:
    root = _copy(tmp_path, "mouse3_240315_143000.rhd")

    detection = detect_format(root)

    assert detection.file_metadata["session_start_time"] is None  # a hint only: the user is asked
    assert any("its name suggests 2024-03-15 14:30:00" in note for note in detection.notes)


# --- conversion ----------------------------------------------------------------------------------


def test_amplifier_channels_convert_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    source = real_recording(EXAMPLE)
    detection = detect_format(source.parent)

    output = _convert(source.parent, detection, tmp_path / "intan.nwb")

    nwbfile = read_nwb(output)
    assert list(nwbfile.acquisition) == ["ElectricalSeries"]
    series = nwbfile.acquisition["ElectricalSeries"]
    assert series.data.shape == (19840, 2)
    assert series.rate == 20000.0
    assert np.array_equal(series.data[:], _source(source, "RHD2000 amplifier channel"))
    # Intan's amplifiers: 0.195 uV per bit around 32768.
    assert series.conversion == pytest.approx(0.195e-6)
    assert series.offset == pytest.approx(-32768 * 0.195e-6)
    assert len(nwbfile.electrodes) == 2
    assert list(nwbfile.electrode_groups) == ["A"]
    assert nwbfile.devices["Intan"].description == "RHD Recording System"
    assert nwbfile.session_start_time == datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in (ERROR, "CRITICAL")]


def test_auxiliary_and_supply_streams_are_written_as_time_series(tmp_path: Path, read_nwb: Any) -> None:
    source = real_recording(EXAMPLE)
    detection = detect_format(source.parent)
    chosen = ["amplifier", "auxiliary", "supply_voltage"]

    nwbfile = read_nwb(_convert(source.parent, detection, tmp_path / "all.nwb", stream_ids=chosen))

    assert set(nwbfile.acquisition) == {"ElectricalSeries", "TimeSeriesIntanAuxiliary", "TimeSeriesIntanSupplyVoltage"}
    auxiliary = nwbfile.acquisition["TimeSeriesIntanAuxiliary"]
    assert (auxiliary.data.shape, auxiliary.rate) == ((4960, 3), 5000.0)
    assert np.array_equal(auxiliary.data[:], _source(source, "RHD2000 auxiliary input channel"))
    supply = nwbfile.acquisition["TimeSeriesIntanSupplyVoltage"]
    assert (supply.data.shape, supply.rate) == ((155, 1), 156.25)
    assert np.array_equal(supply.data[:], _source(source, "RHD2000 supply voltage channel"))
    assert len(nwbfile.electrodes) == 2  # the time series add no electrodes


def test_without_a_start_time_the_conversion_asks_for_one(tmp_path: Path) -> None:
    root = real_recording(EXAMPLE).parent
    detection = detect_format(root)
    metadata = {key: value for key, value in METADATA.items() if key != "session_start_time"}

    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(root, detection, tmp_path / "x.nwb", metadata=metadata)


def test_a_recording_saved_in_parts_converts_as_one(tmp_path: Path, read_nwb: Any) -> None:
    source = real_recording(EXAMPLE)
    raw = source.read_bytes()
    root = tmp_path / "upload"
    (root / "session").mkdir(parents=True)
    cut = HEADER_BYTES + 80 * BLOCK_BYTES
    (root / "session" / "rat7_240315_143000.rhd").write_bytes(raw[:cut])
    (root / "session" / "rat7_240315_143100.rhd").write_bytes(raw[:HEADER_BYTES] + raw[cut:])

    detection = detect_format(root)

    amplifier = detection.stream("amplifier")
    assert amplifier.files == ("session/rat7_240315_143000.rhd", "session/rat7_240315_143100.rhd")
    assert amplifier.duration_s == pytest.approx(0.992)
    assert any("saved in 2 files" in note for note in detection.notes)
    assert any("its name suggests 2024-03-15 14:30:00" in note for note in detection.notes)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "parts.nwb"))
    assert np.array_equal(nwbfile.acquisition["ElectricalSeries"].data[:], _source(source, "RHD2000 amplifier channel"))


# --- files that cannot be converted --------------------------------------------------------------


def test_an_old_file_version_the_reader_cannot_open() -> None:
    root = real_recording(OLD_VERSION).parent

    problem = _problem(root)

    assert problem.user_message.startswith("sampledata.rhd (Intan RHD file version 1.5) could not be read")
    assert "custom_channel_name" in problem.user_message
    assert "save it again" in problem.user_message and "RHX" in problem.user_message


def test_a_file_that_is_not_intan(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    path = root / "example_intan_file.rhd"
    path.write_bytes(b"\x00\x01\x02\x03" + path.read_bytes()[4:])

    problem = _problem(root)

    assert "example_intan_file.rhd is not an Intan file" in problem.user_message


def test_an_rhs_file_named_rhd(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    path = root / "example_intan_file.rhd"
    path.write_bytes((0xD69127AC).to_bytes(4, "little") + path.read_bytes()[4:])

    problem = _problem(root)

    assert "example_intan_file.rhd is an Intan .rhs file named .rhd" in problem.user_message


@pytest.mark.parametrize("cut", [7, BLOCK_BYTES + 100])
def test_a_truncated_file(tmp_path: Path, cut: int) -> None:
    root = _copy(tmp_path)
    path = root / "example_intan_file.rhd"
    os.truncate(path, path.stat().st_size - cut)

    problem = _problem(root)

    assert "example_intan_file.rhd is incomplete" in problem.user_message
    assert "Upload it again" in problem.user_message


def test_a_file_with_settings_but_no_samples(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    os.truncate(root / "example_intan_file.rhd", HEADER_BYTES)

    problem = _problem(root)

    assert "example_intan_file.rhd holds the recording's settings but no samples" in problem.user_message


def test_a_file_cut_inside_its_header(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    os.truncate(root / "example_intan_file.rhd", 1000)

    problem = _problem(root)

    assert "example_intan_file.rhd starts like an Intan file, but its header" in problem.user_message


def test_lost_samples_are_refused(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    path = root / "example_intan_file.rhd"
    raw = bytearray(path.read_bytes())
    last_block = HEADER_BYTES + (BLOCKS - 1) * BLOCK_BYTES
    counters = np.frombuffer(raw[last_block : last_block + 512], dtype="<i4") + 1000
    raw[last_block : last_block + 512] = counters.tobytes()
    path.write_bytes(bytes(raw))

    problem = _problem(root)

    assert "example_intan_file.rhd has gaps in its sample counter (about 1,000 samples are missing)" in (
        problem.user_message
    )


def test_parts_with_samples_missing_between_them(tmp_path: Path) -> None:
    raw = real_recording(EXAMPLE).read_bytes()
    root = tmp_path / "upload"
    root.mkdir()
    (root / "rat7_240315_143000.rhd").write_bytes(raw[: HEADER_BYTES + 50 * BLOCK_BYTES])
    (root / "rat7_240315_143100.rhd").write_bytes(raw[:HEADER_BYTES] + raw[HEADER_BYTES + 80 * BLOCK_BYTES :])

    problem = _problem(root)

    assert "rat7_240315_143100.rhd does not continue rat7_240315_143000.rhd" in problem.user_message


def test_two_unrelated_files_are_two_recordings(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    shutil.copyfile(root / "example_intan_file.rhd", root / "another.rhd")

    problem = _problem(root)

    assert "several Intan files (another.rhd, example_intan_file.rhd)" in problem.user_message
    assert "Upload one recording at a time" in problem.user_message


def test_an_upper_case_file_name(tmp_path: Path, read_nwb: Any) -> None:
    root = _copy(tmp_path, "EXAMPLE.RHD")

    detection = detect_format(root)

    assert detection.stream("amplifier").files == ("EXAMPLE.RHD",)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "upper.nwb"))
    source = _source(real_recording(EXAMPLE), "RHD2000 amplifier channel")
    assert np.array_equal(nwbfile.acquisition["ElectricalSeries"].data[:], source)

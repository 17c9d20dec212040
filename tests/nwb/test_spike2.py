"""CED Spike2 (.smr): detection and conversion of the real recording in ../shared/data/real/spike2/.

The real file is read in place; tests that need a damaged or changed file work on a copy in tmp_path.
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
from conversions.nwb.validation import CRITICAL, ERROR, inspect_nwb

from .conftest import convert_upload, real_recording

SPIKE2 = "spike2/motor_units.smr"
EMG, CO2, VOLUME, FLOW = "3", "0", "1", "2"  # neo's stream ids
HUMAN = {
    "experimenter": ["Smith, Jane"],
    "institution": "Neuroscience Research Australia",
    "experiment_description": "Diaphragm motor units during quiet breathing.",
    "session_description": "Inspiratory motor units, subject seated.",
    "keywords": "EMG, motor units",
    "subject_id": "P01",
    "species": "Homo sapiens",
    "sex": "M",
    "age": "P35Y",
}


def _source_traces(path: Path, stream_id: str) -> np.ndarray:
    """What spikeinterface (neo) reads from the original file: raw int16 samples."""
    from spikeinterface.extractors import read_spike2

    traces: np.ndarray = read_spike2(path, stream_id=stream_id).get_traces(return_in_uV=False)
    return traces


def _copy(tmp_path: Path, name: str = "motor_units.smr") -> Path:
    copy = tmp_path / "upload" / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(real_recording(SPIKE2), copy)
    os.chmod(copy, 0o644)
    return copy


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": HUMAN, "timezone": "Australia/Sydney"}, **overrides)


# --- detection -----------------------------------------------------------------------------------


def test_each_waveform_channel_is_a_stream_and_the_emg_is_the_default() -> None:
    root = real_recording(SPIKE2).parent

    detection = detect_format(root)

    assert (detection.format, detection.format_label) == ("spike2", "CED Spike2")
    assert [stream.id for stream in detection.streams] == [EMG, FLOW, VOLUME, CO2]  # in Spike2's channel order
    assert detection.default_streams == (EMG,)  # the only channel in volts
    emg = detection.stream(EMG)
    assert emg.label == "Electrode channel DIA SMU (channel 1), uV, 25000 Hz"
    assert (emg.channel_count, emg.sampling_rate_hz, emg.files) == (1, 25000.0, ("motor_units.smr",))
    assert emg.duration_s == pytest.approx(327858 / 25000)
    assert emg.size_bytes == real_recording(SPIKE2).stat().st_size
    assert detection.stream(FLOW).label == "Analog channel flow (channel 6), L/s, 1000 Hz"
    assert detection.stream(CO2).duration_s == pytest.approx(13.114)
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2017-04-06T10:04:19.180000"
    assert (metadata["channel_count"], metadata["sampling_rate_hz"]) == (1, 25000.0)
    (not_default,) = [note for note in detection.notes if "Not converted unless chosen" in note]
    assert "CO2 (channel 8), %, 1000 Hz" in not_default and "flow (channel 6), L/s" in not_default
    assert any("spike (WaveMark) channels MU2, MU1" in note for note in detection.notes)


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(SPIKE2).parent)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


# --- conversion ----------------------------------------------------------------------------------


def test_the_emg_converts_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(SPIKE2).parent
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "emg.nwb")

    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeriesDIASMU"}
    series = nwbfile.acquisition["ElectricalSeriesDIASMU"]
    assert series.data.shape == (327858, 1)
    assert series.data.dtype == np.int16
    assert np.array_equal(series.data[:], _source_traces(real_recording(SPIKE2), EMG))
    assert series.rate == pytest.approx(25000.0)
    assert series.starting_time == pytest.approx(10e-6)  # Spike2's first sample of this channel
    assert series.conversion == pytest.approx(0.0762939453125e-6)  # the channel's scale, in volts
    assert nwbfile.electrodes["channel_name"][:] == ["DIA SMU"]
    assert list(nwbfile.electrode_groups) == ["DIASMU"]
    assert nwbfile.electrode_groups["DIASMU"].device is nwbfile.devices["Spike2"]
    assert nwbfile.session_start_time == datetime(2017, 4, 6, 10, 4, 19, 180000, tzinfo=ZoneInfo("Australia/Sydney"))
    assert nwbfile.subject.species == "Homo sapiens"
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in (ERROR, CRITICAL)]


def test_every_channel_converts_into_one_file(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(SPIKE2).parent
    detection = detect_format(root)
    progress: list[float] = []

    output = _convert(
        root, detection, tmp_path / "all.nwb", stream_ids=[EMG, FLOW, VOLUME, CO2], on_progress=progress.append
    )

    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeriesDIASMU", "TimeSeriesFlow", "TimeSeriesVolume", "TimeSeriesCO2"}
    for name, stream_id, unit, starting_time in (
        ("TimeSeriesFlow", FLOW, "L/s", 0.70e-3),
        ("TimeSeriesVolume", VOLUME, "L", 0.71e-3),
        ("TimeSeriesCO2", CO2, "%", 0.72e-3),
    ):
        series = nwbfile.acquisition[name]
        assert series.data.shape == (13114, 1)
        assert np.array_equal(series.data[:], _source_traces(real_recording(SPIKE2), stream_id))
        assert (series.unit, series.rate) == (unit, 1000.0)
        assert series.starting_time == pytest.approx(starting_time)
    # Only the EMG has electrodes; the respiratory signals are not electrode signals.
    assert len(nwbfile.electrodes) == 1
    assert progress[0] == 0.0 and progress[-1] == 100.0
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in (ERROR, CRITICAL)]


def test_a_file_without_a_start_time_asks_for_one(tmp_path: Path, read_nwb: Any) -> None:
    copy = _copy(tmp_path)
    with copy.open("r+b") as handle:  # the start date and time, as files before Spike2 6 leave them
        handle.seek(52)
        handle.write(bytes(8))
    detection = detect_format(copy.parent)
    assert detection.file_metadata["session_start_time"] is None
    assert any("does not say when the recording started" in note for note in detection.notes)

    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(copy.parent, detection, tmp_path / "x.nwb")
    output = _convert(
        copy.parent, detection, tmp_path / "x.nwb", metadata={**HUMAN, "session_start_time": "2017-04-06T10:00:00"}
    )

    assert read_nwb(output).session_start_time == datetime(2017, 4, 6, 10, 0, tzinfo=ZoneInfo("Australia/Sydney"))


# --- files that cannot be converted --------------------------------------------------------------


def test_smrx_is_refused_with_what_to_do(tmp_path: Path) -> None:
    (tmp_path / "session.smrx").write_bytes(b"S64" + bytes(1000))

    problem = _problem(tmp_path)

    assert problem.user_message == (
        "session.smrx: Spike2 .smrx files (version 9+) can't be read here; save as .smr "
        "(Spike2: File > Export As > .smr) and upload that."
    )


def test_an_smrx_next_to_the_smr_is_left_out(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    (copy.parent / "motor_units.smrx").write_bytes(bytes(1000))

    detection = detect_format(copy.parent)

    assert detection.default_streams == (EMG,)
    assert any(
        "motor_units.smrx: Spike2 .smrx files" in note and "Only motor_units.smr" in note for note in detection.notes
    )


def test_a_truncated_file_is_refused_before_conversion(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    os.truncate(copy, 800_000)

    problem = _problem(copy.parent)

    assert problem.user_message.startswith("motor_units.smr could not be read as a Spike2 recording")
    assert "incomplete" in problem.user_message and "upload it again" in problem.user_message


def test_a_file_cut_inside_its_channel_list_is_incomplete(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    os.truncate(copy, 600)

    problem = _problem(copy.parent)

    assert problem.user_message.startswith("motor_units.smr is incomplete")


def test_a_file_that_is_not_spike2(tmp_path: Path) -> None:
    (tmp_path / "notes.smr").write_bytes(b"just some text, not a recording\n" * 100)

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("notes.smr is not a Spike2 .smr file")


def test_two_recordings_are_uploaded_one_at_a_time(tmp_path: Path) -> None:
    copy = _copy(tmp_path)
    shutil.copyfile(copy, copy.with_name("second.smr"))

    problem = _problem(copy.parent)

    assert "several Spike2 files (motor_units.smr, second.smr)" in problem.user_message

"""Axon ABF (patch clamp): detection and conversion of the real files in ../shared/data/real/abf/.

The real files are read in place; a test that needs an upload of several files links them into
tmp_path, and only a test that damages a file copies it.
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

from conversions.nwb.conversion import temporary_path_for
from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionCancelled, RecordingProblem
from conversions.nwb.validation import InspectionIssue, explain, fields_for, inspect_nwb, outcome_of

from .conftest import convert_upload, real_recording

ABF1 = "05210017_vc_abf1.abf"  # ABF 1.83, 2 channels, 20 kHz, 6 sweeps of 3 s, 60 s apart
PAIR = "14o16001_vc_pair_step.abf"  # ABF 2.0, paired recording, MultiClamp 700, 13 sweeps of 4 s
PCLAMP11 = "2018_12_09_pCLAMP11_0001.abf"  # ABF 2.9, 1 channel, 10 sweeps of 200 ms
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Patch-clamp recordings to test the portal.",
    "keywords": "patch clamp",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
}


def _upload(tmp_path: Path, *names: str) -> Path:
    """An upload of real ABF files, as symlinks (nothing copied)."""
    root = tmp_path / "upload"
    root.mkdir(exist_ok=True)
    for name in names:
        (root / name).symlink_to(real_recording(f"abf/{name}"))
    return root


def _damaged_copy(tmp_path: Path, name: str) -> Path:
    root = tmp_path / "damaged"
    root.mkdir()
    shutil.copyfile(real_recording(f"abf/{name}"), root / name)
    os.chmod(root / name, 0o644)
    return root / name


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": METADATA, "timezone": "Europe/Paris"}, **overrides)


def _source(path: Path, channel_index: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, str]:
    """What neo reads from the original file for one channel, all sweeps one after another:
    raw samples (AxonRawIO), values in SI units and sample times (AxonIO), and the SI unit."""
    import neo
    from neo.rawio import AxonRawIO

    raw_reader = AxonRawIO(filename=str(path))
    raw_reader.parse_header()
    raw = np.concatenate(
        [
            raw_reader.get_analogsignal_chunk(0, sweep, channel_indexes=[channel_index]).ravel()
            for sweep in range(raw_reader.header["nb_segment"][0])
        ]
    )
    block = neo.AxonIO(filename=str(path)).read_block()
    signals = [segment.analogsignals[0][:, channel_index] for segment in block.segments]
    unit = "A" if str(signals[0].units.dimensionality).endswith("A") else "V"
    values = np.concatenate([signal.rescale(unit).magnitude.ravel() for signal in signals])
    times = np.concatenate([signal.times.rescale("s").magnitude for signal in signals])
    return raw, values, times, unit


def _series_times(series: Any) -> np.ndarray:
    if series.timestamps is not None:
        return np.asarray(series.timestamps[:])
    return np.asarray(series.starting_time + np.arange(series.data.shape[0]) / series.rate)


# --- detection -------------------------------------------------------------------------------------


def test_abf1_file_with_two_channels(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, ABF1))

    assert (detection.format, detection.format_label) == ("axon", "Axon ABF (patch clamp)")
    assert [stream.id for stream in detection.streams] == [f"{ABF1}#Voltage0", f"{ABF1}#Current1"]
    assert detection.default_streams == (f"{ABF1}#Voltage0", f"{ABF1}#Current1")
    first = detection.streams[0]
    assert first.label == f"{ABF1}, channel Voltage 0 (pA): voltage clamp, 6 sweeps of 3 s"
    assert (first.channel_count, first.sampling_rate_hz) == (1, 20000.0)
    assert first.duration_s == pytest.approx(303.0)  # sweeps start 60 s apart: 5 x 60 s + 3 s
    assert first.files == (ABF1,)
    assert first.size_bytes == real_recording(f"abf/{ABF1}").stat().st_size
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2005-02-10T15:52:55.328000"
    assert metadata["abf_versions"] == {ABF1: "1.83"}
    assert metadata["channel_count"] == 2
    assert metadata["device"] == "Patch-clamp amplifier (model not named in the file)"
    assert any("as voltage clamp" in note and "stimulus waveforms" in note for note in detection.notes)


def test_paired_recording_names_its_amplifier(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, PAIR))

    assert [stream.label for stream in detection.streams] == [
        f"{PAIR}, channel IN 0 (pA): voltage clamp, 13 sweeps of 4 s",
        f"{PAIR}, channel IN 1 (pA): voltage clamp, 13 sweeps of 4 s",
    ]
    assert detection.file_metadata["device"] == "Axon MultiClamp 700 amplifier"
    assert detection.file_metadata["session_start_time"] == "2014-10-16T10:01:35.078000"
    assert detection.file_metadata["duration_s"] == pytest.approx(52.0)


def test_pclamp11_file(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, PCLAMP11))

    (stream,) = detection.streams
    assert stream.label == f"{PCLAMP11}, channel IN 0 (A): voltage clamp, 10 sweeps of 200 ms"
    assert (stream.sampling_rate_hz, stream.duration_s) == (10000.0, pytest.approx(2.0))
    assert detection.file_metadata["abf_versions"] == {PCLAMP11: "2.90"}


def test_files_of_different_days_are_not_combined_by_default(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, PAIR, PCLAMP11))

    assert len(detection.streams) == 3
    assert detection.default_streams == (f"{PAIR}#IN0", f"{PAIR}#IN1")
    (note,) = [note for note in detection.notes if "several ABF files" in note]
    assert "recorded on different days (2014-10-16, 2018-12-09)" in note
    assert f"Only {PAIR} is converted by default" in note


def test_an_abf1_file_is_never_combined(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, ABF1, PAIR))

    assert detection.default_streams == (f"{ABF1}#Voltage0", f"{ABF1}#Current1")
    assert any(f"{ABF1} is an ABF version 1 file" in note for note in detection.notes)


def test_a_file_without_patch_clamp_channels_is_left_out(tmp_path: Path) -> None:
    root = _upload(tmp_path, PAIR)
    # The pCLAMP 11 file with its channel's unit changed from amperes to coulombs: not an electrode's response.
    relabelled = _damaged_copy(tmp_path, PCLAMP11)
    relabelled.write_bytes(relabelled.read_bytes().replace(b"IN 0\x00A\x00Cmd 0", b"IN 0\x00C\x00Cmd 0", 1))
    (root / "0_charge.abf").symlink_to(relabelled)

    detection = detect_format(root)

    assert [stream.id for stream in detection.streams] == [f"{PAIR}#IN0", f"{PAIR}#IN1"]
    assert detection.default_streams == (f"{PAIR}#IN0", f"{PAIR}#IN1")
    assert "Not converted, as they hold neither a current nor a voltage: 0_charge.abf channel IN 0 (C)." in (
        detection.notes
    )


def test_detection_round_trips_through_json(tmp_path: Path) -> None:
    detection = detect_format(_upload(tmp_path, ABF1, PAIR, PCLAMP11))

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


# --- conversion ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "series_names", "sweeps"),
    [
        (ABF1, ["VoltageClampSeries05210017VcAbf1Voltage0", "VoltageClampSeries05210017VcAbf1Current1"], 6),
        (PAIR, ["VoltageClampSeries14o16001VcPairStepIN0", "VoltageClampSeries14o16001VcPairStepIN1"], 13),
        (PCLAMP11, ["VoltageClampSeries20181209Pclamp110001IN0"], 10),
    ],
)
def test_each_channel_converts_sample_for_sample(
    tmp_path: Path, read_nwb: Any, name: str, series_names: list[str], sweeps: int
) -> None:
    root = _upload(tmp_path, name)
    detection = detect_format(root)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "out.nwb"))

    assert set(nwbfile.acquisition) == set(series_names)
    for index, series_name in enumerate(series_names):
        series = nwbfile.acquisition[series_name]
        raw, values, times, unit = _source(root / name, index)
        assert type(series).__name__ == "VoltageClampSeries" and unit == "A"
        assert series.unit == "amperes"
        assert np.array_equal(series.data[:], raw)  # the file's own int16 samples, untouched
        # In amperes, as written (data x conversion + offset) and as neo scales them (float32).
        assert np.allclose(series.data[:] * series.conversion + series.offset, values, rtol=1e-6, atol=0)
        assert np.allclose(_series_times(series), times, rtol=0, atol=1e-9)
    assert len(nwbfile.intracellular_recordings) == sweeps * len(series_names)
    assert len(nwbfile.icephys_electrodes) == len(series_names)


def test_sweeps_seconds_apart_keep_their_times(tmp_path: Path, read_nwb: Any) -> None:
    root = _upload(tmp_path, ABF1)

    nwbfile = read_nwb(_convert(root, detect_format(root), tmp_path / "out.nwb"))

    series = nwbfile.acquisition["VoltageClampSeries05210017VcAbf1Voltage0"]
    assert series.timestamps[60000] == pytest.approx(60.0)  # the second sweep starts a minute later
    assert nwbfile.session_start_time == datetime(2005, 2, 10, 15, 52, 55, 328000, tzinfo=ZoneInfo("Europe/Paris"))


def test_devices_and_electrodes_are_described(tmp_path: Path, read_nwb: Any) -> None:
    root = _upload(tmp_path, ABF1, PAIR)
    detection = detect_format(root)

    unnamed = read_nwb(_convert(root, detection, tmp_path / "abf1.nwb", stream_ids=[f"{ABF1}#Current1"]))
    named = read_nwb(_convert(root, detection, tmp_path / "pair.nwb", stream_ids=[f"{PAIR}#IN0"]))

    (electrode,) = unnamed.icephys_electrodes.values()
    assert electrode.description == f"Patch-clamp electrode recorded on channel Current 1 of {ABF1}."
    assert electrode.device.name == "Amplifier"
    assert "does not name its model" in electrode.device.description
    (electrode,) = named.icephys_electrodes.values()
    assert electrode.device.name == "MultiClamp 700"
    assert electrode.device.description


def test_two_abf2_files_convert_into_one_session(tmp_path: Path, read_nwb: Any) -> None:
    root = _upload(tmp_path, PAIR, PCLAMP11)
    detection = detect_format(root)
    chosen = [stream.id for stream in detection.streams]

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "both.nwb", stream_ids=chosen))

    assert len(nwbfile.acquisition) == 3
    assert len(nwbfile.intracellular_recordings) == 13 * 2 + 10
    assert nwbfile.session_start_time == datetime(2014, 10, 16, 10, 1, 35, 78000, tzinfo=ZoneInfo("Europe/Paris"))
    later = nwbfile.acquisition["VoltageClampSeries20181209Pclamp110001IN0"]
    shift = (datetime(2018, 12, 9, 1, 31, 38, 436999) - datetime(2014, 10, 16, 10, 1, 35, 78000)).total_seconds()
    assert later.starting_time == pytest.approx(shift, abs=1e-3)


def test_an_abf1_file_with_another_file_is_refused(tmp_path: Path) -> None:
    root = _upload(tmp_path, ABF1, PAIR)
    detection = detect_format(root)
    output = tmp_path / "out.nwb"

    with pytest.raises(RecordingProblem) as caught:
        _convert(root, detection, output, stream_ids=[f"{ABF1}#Voltage0", f"{PAIR}#IN0"])

    assert caught.value.user_message.startswith(f"{ABF1} cannot be converted together with other files")
    assert not output.exists() and not temporary_path_for(output).exists()


def test_progress_goes_from_0_to_100_around_the_write(tmp_path: Path) -> None:
    root = _upload(tmp_path, PAIR)
    progress: list[float] = []

    _convert(root, detect_format(root), tmp_path / "out.nwb", on_progress=progress.append)

    assert progress == [0.0, 100.0]


@pytest.mark.parametrize("stop_at_check", [2, 3])  # just before the write, just after it
def test_cancel_around_the_write_leaves_nothing(tmp_path: Path, stop_at_check: int) -> None:
    root = _upload(tmp_path, PAIR)
    checks: list[int] = []

    def should_stop() -> bool:
        checks.append(1)
        return len(checks) >= stop_at_check

    output = tmp_path / "out" / "x.nwb"
    with pytest.raises(ConversionCancelled):
        _convert(root, detect_format(root), output, should_stop=should_stop)

    assert len(checks) == stop_at_check
    assert not any((tmp_path / "out").iterdir())


# --- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [ABF1, PAIR, PCLAMP11])
def test_converted_file_passes_nwbinspector(tmp_path: Path, name: str) -> None:
    root = _upload(tmp_path, name)

    issues = inspect_nwb(_convert(root, detect_format(root), tmp_path / "out.nwb"))

    assert not [issue for issue in issues if issue.importance in ("ERROR", "CRITICAL")]
    assert outcome_of(issues).value == "passed_with_issues"
    names = {issue.check_name for issue in issues}
    # No electrode or device lacks a description; neuroconv leaves the cell id to the user, whom the
    # portal asks for it (the chat reads "cell c3").
    assert names <= {"check_intracellular_electrode_cell_id_exists", "check_single_row", "check_description"}
    assert all(issue.object_type == "Subject" for issue in issues if issue.check_name == "check_description")
    cell = next(issue for issue in issues if issue.check_name == "check_intracellular_electrode_cell_id_exists")
    assert "which cell it recorded" in explain(cell) and cell.object_name in explain(cell)
    assert fields_for(cell) == ("cell_id",)
    single_row = next(issue for issue in issues if issue.check_name == "check_single_row")
    assert "needs nothing from you" in explain(single_row)


def test_a_check_nobody_explained_falls_back_to_the_inspector_message() -> None:
    issue = InspectionIssue(
        check_name="check_icephys_something_new",
        importance="BEST_PRACTICE_SUGGESTION",
        message="The sweep is odd. More detail follows here.",
        location="/acquisition",
        object_type="VoltageClampSeries",
        object_name="VoltageClampSeriesIN0",
    )

    assert explain(issue) == "The sweep is odd."
    assert fields_for(issue) == ()


# --- files the reader would fail on -----------------------------------------------------------------


def test_truncated_file_says_it_is_incomplete(tmp_path: Path) -> None:
    path = _damaged_copy(tmp_path, PAIR)
    os.truncate(path, path.stat().st_size - 1000)

    with pytest.raises(RecordingProblem) as caught:
        detect_format(path.parent)

    message = caught.value.user_message
    assert message.startswith(f"{PAIR} could not be read as an Axon ABF file")
    assert "incomplete" in message and "Traceback" not in message


def test_file_cut_inside_the_header(tmp_path: Path) -> None:
    path = _damaged_copy(tmp_path, ABF1)
    os.truncate(path, 300)

    with pytest.raises(RecordingProblem, match=f"^{ABF1} could not be read as an Axon ABF file"):
        detect_format(path.parent)


def test_a_file_that_is_not_abf(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    (root / "cell3.abf").write_bytes(b"ATF\t1.0\n" + b"0" * 1000)  # a text export named .abf

    with pytest.raises(RecordingProblem, match=r"^cell3\.abf is not an Axon Binary Format file"):
        detect_format(root)


def test_an_empty_file(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    (root / "cell3.abf").touch()

    with pytest.raises(RecordingProblem, match=r"^cell3\.abf is empty"):
        detect_format(root)

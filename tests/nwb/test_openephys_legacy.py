"""Open Ephys legacy format (.continuous files): detection and conversion of the real recordings.

Two real folders: a GUI 0.6.7 recording, and a GUI 0.5 one (listed as broken in the manifest: neo
cannot open it). The real folders are read in place; tests that need a changed folder build one in
tmp_path from symlinks to the real files, replacing only the files they change.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.conversion import temporary_path_for
from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionFailed, RecordingProblem
from conversions.nwb.validation import CRITICAL, ERROR, inspect_nwb

from .conftest import bytes_read_during, convert_upload, real_recording
from .test_conversion import FULL_METADATA

GUI06 = "openephys_legacy/v0.6.7/Record Node 101"
GUI05 = "broken/openephys_legacy_gui05_spikes/Record Node 119"
STREAM06 = "experiment1/100_example-data"
# The .continuous record: timestamp, sample count, recording number, 1,024 big-endian samples, marker.
RECORD = np.dtype(
    [("timestamp", "<i8"), ("n", "<u2"), ("recording", "<u2"), ("samples", ">i2", 1024), ("marker", "u1", 10)]
)


def _records(path: Path) -> np.ndarray:
    return np.memmap(path, dtype=RECORD, offset=1024, mode="r")


def _raw_samples(files: list[Path]) -> np.ndarray:
    """Each file's samples, straight from its records (no reader involved), channels as columns."""
    return np.stack([_records(path)["samples"].reshape(-1) for path in files], axis=1)


def _source_traces(folder: Path) -> np.ndarray:
    """What spikeinterface (neo) reads from the original folder: raw int16 samples."""
    from spikeinterface.extractors import read_openephys

    traces: np.ndarray = read_openephys(folder).get_traces(return_in_uV=False)
    return traces


def _linked_copy(source: Path, target: Path, *, skip: Callable[[Path], bool] = lambda path: False) -> Path:
    """`target` laid out like `source`, each file a symlink to the real one (none copied)."""
    target.mkdir(parents=True, exist_ok=True)
    for path in source.iterdir():
        if path.is_file() and not skip(path):
            (target / path.name).symlink_to(path)
    return target


def _replace_with_copy(link: Path) -> Path:
    real = link.resolve()
    link.unlink()
    shutil.copyfile(real, link)
    return link


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(
        root, detection, output, {"metadata": FULL_METADATA, "timezone": "Europe/Berlin"}, **overrides
    )


# --- detection -----------------------------------------------------------------------------------


def test_gui_06_recording() -> None:
    root = real_recording(GUI06)

    detection = detect_format(root)

    assert (detection.format, detection.format_label) == ("openephys_legacy", "Open Ephys (legacy format)")
    (stream,) = detection.streams
    assert detection.default_streams == (STREAM06,)
    assert stream.id == STREAM06
    assert stream.label == "File Reader 100, stream example_data (16 channels), experiment 1"
    assert (stream.channel_count, stream.sampling_rate_hz) == (16, 40000.0)
    assert stream.duration_s == pytest.approx(130 * 1024 / 40000)  # 130 records of 1,024 samples
    assert stream.files[0] == "100_example-data_CH1.continuous"
    assert stream.files[-1] == "settings.xml" and len(stream.files) == 17
    assert stream.size_bytes == sum((root / name).stat().st_size for name in stream.files)
    metadata = detection.file_metadata
    # From the files' creation date, with its time (neuroconv alone keeps only the date).
    assert metadata["session_start_time"] == "2025-04-03T13:38:45"
    assert metadata["gui_version"] == "0.6.7"
    assert metadata["channel_count"] == 16
    assert any("spikes detected by Open Ephys are not converted" in note for note in detection.notes)


def test_gui_05_recording_that_neo_cannot_open() -> None:
    root = real_recording(GUI05)

    detection = detect_format(root)

    assert [stream.id for stream in detection.streams] == ["experiment1/106", "experiment1/114"]
    assert detection.default_streams == ("experiment1/106", "experiment1/114")
    assert detection.stream("experiment1/114").label == "File Reader 114 (16 channels), experiment 1"
    assert detection.stream("experiment1/114").files[:2] == ("114_1.continuous", "114_2.continuous")
    assert detection.stream("experiment1/106").duration_s == pytest.approx(113 * 1024 / 40000)
    assert detection.file_metadata["session_start_time"] == "2021-03-22T20:18:52"
    assert detection.file_metadata["channel_count"] == 32
    assert any("spikes detected by Open Ephys are not converted" in note for note in detection.notes)


def test_neo_fails_on_gui_05_names_with_or_without_the_spikes_files(tmp_path: Path) -> None:
    """Leaving out the .spikes files does not help: neo reads GUI 0.5's names ("114_17.continuous")
    as experiment 17 of an unnamed channel. The portal's reader view renames the files, so it reads them."""
    from neo.rawio import OpenEphysRawIO

    original = real_recording(GUI05)
    without_spikes = _linked_copy(original, tmp_path / "node", skip=lambda path: path.suffix == ".spikes")
    for folder in (original, without_spikes):
        with pytest.raises((KeyError, IndexError, FileNotFoundError)):
            OpenEphysRawIO(dirname=str(folder)).parse_header()

    assert detect_format(without_spikes).default_streams == ("experiment1/106", "experiment1/114")


def test_the_folder_above_the_node_works_too() -> None:
    root = real_recording(GUI06).parent

    detection = detect_format(root)

    (stream,) = detection.streams
    assert stream.files[0] == "Record Node 101/100_example-data_CH1.continuous"
    assert stream.files[-1] == "Record Node 101/settings.xml"


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(GUI05))

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    """16 files of 2.5 GB each (sparse): neo's own opening scans every record, the portal reads two."""
    source = real_recording(GUI06)
    root = _linked_copy(source, tmp_path / "node")
    records = 2_500_000_000 // RECORD.itemsize
    for path in sorted(root.glob("*.continuous")):
        head = (source / path.name).read_bytes()[: 1024 + 2 * RECORD.itemsize]  # the header and first records
        last = np.frombuffer(head[1024:], dtype=RECORD)[:1].copy()
        last["timestamp"] += (records - 1) * 1024
        path.unlink()
        with path.open("wb") as handle:
            handle.write(head)
            handle.seek(1024 + (records - 1) * RECORD.itemsize)
            handle.write(last.tobytes())
    detect_format(root)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(root))

    assert read < 64 * 2**20  # the 16 .continuous files hold 40 GB
    assert detection.stream(STREAM06).duration_s == pytest.approx(records * 1024 / 40000)


def test_several_experiments(tmp_path: Path, read_nwb: Any) -> None:
    root = _linked_copy(real_recording(GUI06), tmp_path / "node")
    for path in sorted(root.glob("*.continuous")):  # the same files again, as experiment 2
        (root / f"{path.stem}_2.continuous").symlink_to(path.resolve())

    detection = detect_format(root)

    assert [stream.id for stream in detection.streams] == [STREAM06, "experiment2/100_example-data"]
    assert detection.default_streams == (STREAM06,)
    assert detection.file_metadata["experiment_start_times"] == {"1": "2025-04-03T13:38:45", "2": "2025-04-03T13:38:45"}
    (note,) = [note for note in detection.notes if "2 experiments" in note]
    assert "Experiment 1 is converted by default" in note
    output = tmp_path / "mixed.nwb"
    with pytest.raises(RecordingProblem, match="different experiments"):
        _convert(root, detection, output, stream_ids=[STREAM06, "experiment2/100_example-data"])
    assert not output.exists() and not temporary_path_for(output).exists()

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "second.nwb", stream_ids=["experiment2/100_example-data"]))

    # Experiment 2's files are experiment 1's, linked again.
    assert np.array_equal(
        nwbfile.acquisition["ElectricalSeriesExampleData"].data[:], _source_traces(real_recording(GUI06))
    )


def test_auxiliary_channels_are_named_and_left_out(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(GUI06), tmp_path / "node")
    (root / "100_example-data_AUX1.continuous").symlink_to(real_recording(GUI06) / "100_example-data_CH1.continuous")

    detection = detect_format(root)

    assert detection.default_streams == (STREAM06,) and len(detection.streams) == 1
    assert any(
        "Not converted, as they are not brain signals: the auxiliary (AUX) channels of File Reader 100" in note
        for note in detection.notes
    )


# --- conversion ----------------------------------------------------------------------------------


def test_gui_06_converts_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(GUI06)
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "gui06.nwb")

    nwbfile = read_nwb(output)
    (series,) = nwbfile.acquisition.values()
    assert series.name == "ElectricalSeriesExampleData"
    assert series.data.shape == (133120, 16)
    assert series.rate == 40000.0
    assert series.conversion == pytest.approx(0.05e-6)  # bitVolts is in microvolts
    assert np.array_equal(series.data[:], _source_traces(root))
    files = [root / f"100_example-data_CH{number}.continuous" for number in range(1, 17)]
    assert np.array_equal(series.data[:2048], _raw_samples(files)[:2048])
    assert list(nwbfile.electrodes["channel_name"][:3]) == ["CH1", "CH2", "CH3"]
    assert list(nwbfile.electrode_groups) == ["ExampleData"]
    assert "Open Ephys GUI 0.6.7" in nwbfile.devices["OpenEphys"].description
    assert nwbfile.session_start_time == datetime(2025, 4, 3, 13, 38, 45, tzinfo=ZoneInfo("Europe/Berlin"))
    assert nwbfile.subject.subject_id == "mouse001"
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in (ERROR, CRITICAL)]


def test_gui_05_streams_convert_into_one_file_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(GUI05)
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "gui05.nwb")

    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeriesFileReader106", "ElectricalSeriesFileReader114"}
    for processor, numbers in (("106", range(17, 33)), ("114", range(1, 17))):
        series = nwbfile.acquisition[f"ElectricalSeriesFileReader{processor}"]
        assert series.data.shape == (115712, 16)
        assert series.rate == 40000.0
        expected = _raw_samples([root / f"{processor}_{number}.continuous" for number in numbers])
        assert np.array_equal(series.data[:], expected)
        rows = series.electrodes.data[:]
        assert {series.electrodes.table["group_name"][row] for row in rows} == {f"FileReader{processor}"}
        # The channel names the GUI gave (Continuous_Data.openephys, the headers), not the file numbers.
        assert [series.electrodes.table["channel_name"][row] for row in rows[:2]] == ["CH0", "CH1"]
    assert len(nwbfile.electrodes) == 32
    assert nwbfile.session_start_time == datetime(2021, 3, 22, 20, 18, 52, tzinfo=ZoneInfo("Europe/Berlin"))
    assert not [issue for issue in inspect_nwb(output) if issue.importance in (ERROR, CRITICAL)]


def test_one_stream_can_be_chosen(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(GUI05)
    detection = detect_format(root)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "x.nwb", stream_ids=["experiment1/114"]))

    assert set(nwbfile.acquisition) == {"ElectricalSeriesFileReader114"}
    assert len(nwbfile.electrodes) == 16


# --- files the reader would fail on ----------------------------------------------------------------


def test_truncated_file_says_the_upload_is_incomplete(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(GUI06), tmp_path / "Record Node 101")
    data = _replace_with_copy(root / "100_example-data_CH7.continuous")
    with data.open("r+b") as handle:
        handle.truncate(data.stat().st_size - 1000)

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("Record Node 101/100_example-data_CH7.continuous is 269,124 bytes")
    assert "2,070-byte records" in problem.user_message
    assert "incomplete" in problem.user_message and "Upload it again" in problem.user_message


def test_damaged_header(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(GUI05), tmp_path / "node")
    data = _replace_with_copy(root / "114_3.continuous")
    with data.open("r+b") as handle:
        handle.write(b"\x00" * 200)

    problem = _problem(root)

    assert problem.user_message.startswith("114_3.continuous is not an Open Ephys .continuous file")


def test_a_missing_channel_file(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(GUI05), tmp_path / "node", skip=lambda path: path.name == "106_20.continuous")

    problem = _problem(root)

    assert "Continuous_Data.openephys lists 1 .continuous file that is not in the upload (106_20.continuous)" in (
        problem.user_message
    )


def test_only_auxiliary_channels(tmp_path: Path) -> None:
    root = tmp_path / "node"
    root.mkdir()
    (root / "100_AUX1.continuous").symlink_to(real_recording(GUI06) / "100_example-data_CH1.continuous")

    problem = _problem(root)

    assert "hold no electrode (CH) channels" in problem.user_message


def test_file_changed_after_detection(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(GUI06), tmp_path / "node")
    detection = detect_format(root)
    data = _replace_with_copy(root / "100_example-data_CH2.continuous")
    with data.open("r+b") as handle:
        handle.truncate(1024 + 10 * RECORD.itemsize)

    with pytest.raises(ConversionFailed) as caught:
        _convert(root, detection, tmp_path / "out" / "x.nwb")

    assert "changed or disappeared" in caught.value.user_message
    assert "100_example-data_CH2.continuous" in caught.value.user_message
    assert not any((tmp_path / "out").glob("*.nwb"))

"""Neuralynx: detection and conversion of generated Cheetah sessions (no real recording is at hand).

`write_neuralynx` writes what Cheetah 6.4 writes; the first tests check neo reads it as such, so the
rest test the portal against the reader, not against the generator's own idea of the format.
"""

from __future__ import annotations

import json
import os
import shutil
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.synthetic import write_neuralynx
from conversions.nwb.validation import inspect_nwb

from .conftest import START, bytes_read_during, convert_upload

RATE = 32000.0
DURATION_S = 0.5  # 16,000 samples: 31 full records and one of 128 samples
SAMPLES = 16000
STREAM = "stream0_32000Hz_1mVRange_DSPFilter0"
SUBJECT = {
    "subject_id": "rat7",
    "species": "Rattus norvegicus",
    "sex": "M",
    "age": "P120D",
    "experimenter": ["Lovelace, Ada"],
    "institution": "Test Institute",
    "session_description": "Generated Neuralynx session.",
}


# What Cheetah 6.4 writes at the top of Events.nev.
_EVENTS_HEADER = (
    b"######## Neuralynx Data File Header\r\n-FileType Event\r\n-FileVersion 3.4\r\n"
    b"-TimeCreated 2024/03/15 14:30:00\r\n-TimeClosed 2024/03/15 14:30:01\r\n-RecordSize 184\r\n"
    b'-ApplicationName Cheetah "6.4.1"\r\n-AcquisitionSystem AcqSystem1 DigitalLynxSX\r\n-AcqEntName Events\r\n'
)


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An upload holding one Cheetah session folder: 4 channels, an events file and Cheetah's log."""
    root = tmp_path_factory.mktemp("neuralynx")
    folder = root / "2024-03-15_14-30-00"
    write_neuralynx(folder, n_channels=4, sampling_rate_hz=RATE, duration_s=DURATION_S, start_time=START)
    (folder / "Events.nev").write_bytes(_EVENTS_HEADER.ljust(16384, b"\x00"))  # no events recorded
    (folder / "CheetahLogFile.txt").write_text("-* NOTICE  *-  14:30:00.000 - Acquisition started\n")
    return root


@pytest.fixture
def upload(tmp_path: Path, session: Path) -> Path:
    """A private copy of `session` that a test may damage."""
    root = tmp_path / "upload"
    shutil.copytree(session, root)
    return root


def _source(folder: Path, stream_name: str | None = None) -> Any:
    """The recording as spikeinterface (neo) reads it from the original folder, as neuroconv does."""
    from spikeinterface.extractors import read_neuralynx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return read_neuralynx(folder, stream_name=stream_name)


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": SUBJECT, "timezone": "Europe/Berlin"}, **overrides)


def _problem(root: Path) -> RecordingProblem:
    """The problem detection reports (with Events.nev present, Blackrock's .nev rule claims the upload too, and
    its refusal is part of the message)."""
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


# --- the generator ---------------------------------------------------------------------------------


def test_neo_reads_the_generated_session_as_cheetah_wrote_it(tmp_path: Path) -> None:
    from neo.rawio import NeuralynxRawIO

    paths = write_neuralynx(tmp_path, n_channels=3, sampling_rate_hz=30000.0, duration_s=0.1, start_time=START)

    assert [path.name for path in paths] == ["CSC1.ncs", "CSC2.ncs", "CSC3.ncs"]
    assert all((path.stat().st_size - 16384) % 1044 == 0 for path in paths)
    reader = NeuralynxRawIO(dirname=str(tmp_path))
    reader.parse_header()  # neo's own default: strict about pauses, so the timestamps run at the stated rate
    assert list(reader.header["signal_channels"]["name"]) == ["CSC1", "CSC2", "CSC3"]
    assert reader.get_signal_size(0, 0, 0) == 3000
    assert reader.get_signal_sampling_rate(0) == 30000.0
    assert reader.header["signal_channels"]["gain"][0] == pytest.approx(-1000 / 32767)  # input inverted
    header = reader.file_headers[str(paths[0])]
    assert header["recording_opened"] == START
    assert str(header["ApplicationVersion"]) == "6.4.1"
    assert header["AcquisitionSystem"] == "AcqSystem1 DigitalLynxSX"


# --- detection -----------------------------------------------------------------------------------


def test_a_session_folder_is_detected(session: Path) -> None:
    detection = detect_format(session)

    assert (detection.format, detection.format_label) == ("neuralynx", "Neuralynx")
    (stream,) = detection.streams
    assert stream.id == STREAM
    assert stream.label == "4 continuous channels (CSC1–CSC4) at 32000 Hz"
    assert (stream.channel_count, stream.sampling_rate_hz, stream.duration_s) == (4, RATE, SAMPLES / RATE)
    assert stream.files == tuple(f"2024-03-15_14-30-00/CSC{number}.ncs" for number in range(1, 5))
    assert stream.size_bytes == sum((session / name).stat().st_size for name in stream.files)
    assert detection.default_streams == (STREAM,)
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2024-03-15T14:30:00"
    assert metadata["device"] == "Neuralynx AcqSystem1 DigitalLynxSX, recorded with Cheetah 6.4.1"
    assert (metadata["channel_count"], metadata["sampling_rate_hz"]) == (4, RATE)
    assert detection.notes[0] == "Not converted, only the continuous channels (.ncs): events."


def test_channels_with_different_input_ranges_are_two_streams(tmp_path: Path) -> None:
    write_neuralynx(tmp_path, n_channels=6, duration_s=0.1, input_range_uv=[1000] * 4 + [3000] * 2)

    detection = detect_format(tmp_path)

    assert [stream.id for stream in detection.streams] == [STREAM, "stream1_32000Hz_3mVRange_DSPFilter0"]
    assert [stream.label for stream in detection.streams] == [
        "4 continuous channels (CSC1–CSC4) at 32000 Hz, ±1000 µV input range",
        "2 continuous channels (CSC5, CSC6) at 32000 Hz, ±3000 µV input range",
    ]
    assert detection.default_streams == tuple(stream.id for stream in detection.streams)
    assert detection.file_metadata["channel_count"] == 6


def test_channels_sort_as_cheetah_numbers_them(tmp_path: Path) -> None:
    write_neuralynx(tmp_path, n_channels=12, duration_s=0.05)

    (stream,) = detect_format(tmp_path).streams

    assert stream.files[:3] == ("CSC1.ncs", "CSC2.ncs", "CSC3.ncs") and stream.files[-1] == "CSC12.ncs"
    assert stream.label == "12 continuous channels (CSC1–CSC12) at 32000 Hz"


def test_a_paused_recording_is_noted_and_its_parts_counted(tmp_path: Path) -> None:
    write_neuralynx(tmp_path, n_channels=2, duration_s=0.6, pause_after_s=0.2, pause_s=2.0)

    detection = detect_format(tmp_path)

    (stream,) = detection.streams
    assert stream.duration_s == pytest.approx(0.6)  # recorded time, without the pause
    (note,) = detection.notes
    assert note.startswith("Recording was paused once during 2 continuous channels")
    assert "each of the 2 parts (192.0 ms, 408.0 ms) is written as its own series" in note


def test_header_only_files_are_left_out(upload: Path) -> None:
    empty = upload / "2024-03-15_14-30-00" / "CSC9.ncs"
    empty.write_bytes((upload / "2024-03-15_14-30-00" / "CSC1.ncs").read_bytes()[:16384])

    detection = detect_format(upload)

    assert detection.streams[0].channel_count == 4
    assert "These .ncs files hold no samples (only a header) and were left out: 2024-03-15_14-30-00/CSC9.ncs." in (
        detection.notes
    )


def test_detection_round_trips_through_json(session: Path) -> None:
    detection = detect_format(session)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_detection_does_not_read_the_samples(tmp_path: Path) -> None:
    """Each file 4 GB, sparse, with only its first and last records written: reading would take minutes.

    (neo 0.14.6 overflows on an .ncs of 2**32 samples or more, ~9 GB: such files get a plain message.)
    """
    write_neuralynx(tmp_path / "small", n_channels=2, duration_s=0.05)
    records = 4 * 10**9 // 1044
    (tmp_path / "big").mkdir()
    for source in sorted((tmp_path / "small").iterdir()):
        raw = source.read_bytes()
        first_record = bytearray(raw[16384 : 16384 + 1044])
        last_record = bytearray(first_record)
        timestamp = int.from_bytes(first_record[:8], "little") + round((records - 1) * 512 * 1e6 / RATE)
        last_record[:8] = timestamp.to_bytes(8, "little")
        with (tmp_path / "big" / source.name).open("wb") as handle:
            handle.write(raw[:16384] + bytes(first_record))
            handle.seek(16384 + (records - 1) * 1044)
            handle.write(bytes(last_record))
    detect_format(tmp_path / "big")  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(tmp_path / "big"))

    assert read < 64 * 2**20  # the two files hold 8 GB
    assert detection.streams[0].duration_s == pytest.approx(records * 512 / RATE)
    assert detection.file_metadata["size_bytes"] == 2 * (16384 + records * 1044)


# --- conversion ----------------------------------------------------------------------------------


def test_the_session_converts_sample_for_sample(session: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(session)

    output = _convert(session, detection, tmp_path / "session.nwb")

    nwbfile = read_nwb(output)
    series = nwbfile.acquisition["ElectricalSeries"]
    source = _source(session / "2024-03-15_14-30-00")
    assert series.data.shape == (SAMPLES, 4)
    assert series.rate == RATE
    assert np.array_equal(series.data[:], source.get_traces(return_in_uV=False))
    # Written in volts: the same voltages neo reads, whatever sign Cheetah stored them with.
    window = series.data[100:200] * series.conversion * 1e6
    assert np.allclose(window, source.get_traces(start_frame=100, end_frame=200, return_in_uV=True), atol=1e-3)
    assert nwbfile.session_start_time == datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Berlin"))
    assert list(nwbfile.electrodes["channel_name"][:]) == ["CSC1", "CSC2", "CSC3", "CSC4"]
    (device,) = nwbfile.devices.values()
    assert device.description == "Neuralynx AcqSystem1 DigitalLynxSX, recorded with Cheetah 6.4.1"
    assert nwbfile.subject.subject_id == "rat7"
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in ("ERROR", "CRITICAL")]
    assert not [issue for issue in issues if "placeholder" in issue.message]  # every column described


def test_two_streams_convert_into_one_file(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    write_neuralynx(root, n_channels=3, duration_s=0.1, input_range_uv=[1000, 1000, 3000])
    detection = detect_format(root)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "both.nwb"))

    assert set(nwbfile.acquisition) == {"ElectricalSeries32000HzRange1000uV", "ElectricalSeries32000HzRange3000uV"}
    wide = nwbfile.acquisition["ElectricalSeries32000HzRange3000uV"]
    source = _source(root, stream_name="stream1_32000Hz_3mVRange_DSPFilter0")
    assert np.array_equal(wide.data[:], source.get_traces(return_in_uV=False))
    assert wide.conversion == pytest.approx(3000e-6 / 32767)
    assert len(nwbfile.electrodes) == 3


def test_only_the_chosen_stream_is_written(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    write_neuralynx(root, n_channels=3, duration_s=0.1, input_range_uv=[1000, 1000, 3000])
    detection = detect_format(root)

    chosen = ["stream1_32000Hz_3mVRange_DSPFilter0"]
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "one.nwb", stream_ids=chosen))

    assert list(nwbfile.acquisition) == ["ElectricalSeries"]
    assert list(nwbfile.electrodes["channel_name"][:]) == ["CSC3"]


def test_each_part_of_a_paused_recording_is_its_own_series(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    write_neuralynx(root, n_channels=2, duration_s=0.6, pause_after_s=0.2, pause_s=2.0)
    detection = detect_format(root)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "paused.nwb"))

    first, second = nwbfile.acquisition["ElectricalSeries0"], nwbfile.acquisition["ElectricalSeries1"]
    assert (first.data.shape[0], second.data.shape[0]) == (6144, 13056)  # 12 and 25.5 records
    assert second.starting_time == pytest.approx(6144 / RATE + 2.0)


# --- files the reader would fail on ------------------------------------------------------------------


def test_a_truncated_file_is_named(upload: Path) -> None:
    data = upload / "2024-03-15_14-30-00" / "CSC3.ncs"
    os.truncate(data, data.stat().st_size - 100)

    problem = _problem(upload)

    assert "2024-03-15_14-30-00/CSC3.ncs is 49,692 bytes" in problem.user_message
    assert "not a whole number of records" in problem.user_message
    assert "incomplete" in problem.user_message and "Upload it again" in problem.user_message


def test_a_file_shorter_than_its_header(upload: Path) -> None:
    data = upload / "2024-03-15_14-30-00" / "CSC2.ncs"
    os.truncate(data, 5000)

    problem = _problem(upload)

    assert "2024-03-15_14-30-00/CSC2.ncs is only 5,000 bytes" in problem.user_message


def test_a_file_that_is_not_neuralynx(upload: Path) -> None:
    (upload / "2024-03-15_14-30-00" / "CSC2.ncs").write_bytes(b"\x00" * (16384 + 1044))

    problem = _problem(upload)

    assert "2024-03-15_14-30-00/CSC2.ncs is not a Neuralynx file" in problem.user_message


def test_a_header_without_a_start_time(upload: Path) -> None:
    data = upload / "2024-03-15_14-30-00" / "CSC4.ncs"
    raw = bytearray(data.read_bytes())
    at = raw.index(b"-TimeCreated")
    raw[at : at + 12] = b"-TimeXreated"
    data.write_bytes(bytes(raw))

    problem = _problem(upload)

    assert "The header of 2024-03-15_14-30-00/CSC4.ncs could not be read" in problem.user_message


def test_two_copies_of_a_channel(upload: Path) -> None:
    folder = upload / "2024-03-15_14-30-00"
    shutil.copyfile(folder / "CSC1.ncs", folder / "CSC1 (copy).ncs")

    problem = _problem(upload)

    assert "CSC1 (copy).ncs" in problem.user_message and "hold the same channel (CSC1" in problem.user_message


def test_files_of_different_lengths_in_one_stream(upload: Path) -> None:
    folder = upload / "2024-03-15_14-30-00"
    os.truncate(folder / "CSC2.ncs", 16384 + 10 * 1044)

    problem = _problem(upload)

    assert (
        "2024-03-15_14-30-00/CSC2.ncs holds 10 records (5,120 samples) where the other files of its stream "
        "hold 32 (16,000 samples)"
    ) in problem.user_message


def test_files_of_one_stream_that_start_at_different_times(upload: Path) -> None:
    data = upload / "2024-03-15_14-30-00" / "CSC4.ncs"
    raw = bytearray(data.read_bytes())
    for record in range(32):  # every timestamp one second later: another session's file
        at = 16384 + record * 1044
        raw[at : at + 8] = (int.from_bytes(raw[at : at + 8], "little") + 10**6).to_bytes(8, "little")
    data.write_bytes(bytes(raw))

    problem = _problem(upload)

    assert "2024-03-15_14-30-00/CSC4.ncs does not cover the same stretch of time" in problem.user_message


def test_sessions_in_two_folders(tmp_path: Path) -> None:
    write_neuralynx(tmp_path / "day1", n_channels=1, duration_s=0.05)
    write_neuralynx(tmp_path / "day2", n_channels=1, duration_s=0.05)

    problem = _problem(tmp_path)

    assert "in 2 folders (day1, day2)" in problem.user_message
    assert "upload one session folder at a time" in problem.user_message

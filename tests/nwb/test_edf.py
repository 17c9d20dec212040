"""EDF: detection and conversion of the real files in ../shared/data/real/ (a BioSemi recording exported to
EDF+ and a clinical export whose channels have different offsets), and of small files written here.

Real files are read in place; tests that damage one work on a copy in tmp_path.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pyedflib
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.validation import CRITICAL, ERROR, inspect_nwb

from .conftest import bytes_read_during, convert_upload, real_recording

BIOSEMI = "edf/test.edf"
OFFSETS = "broken/edf_channel_offsets/test_edf_stim_channel.edf"
SUBJECT = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "EEG recorded to test the portal.",
    "session_description": "Resting state.",
    "keywords": "EEG",
    "subject_id": "P01",
    "species": "Homo sapiens",
    "sex": "F",
    "age": "P30Y",
}


def _physical(path: Path) -> np.ndarray:
    """Every signal in physical units as pyedflib computes them (the EDF specification), time x channel."""
    reader = pyedflib.EdfReader(str(path))
    try:
        return np.array([reader.readSignal(index) for index in range(reader.signals_in_file)]).T
    finally:
        reader.close()


def _digital(path: Path) -> np.ndarray:
    reader = pyedflib.EdfReader(str(path))
    try:
        return np.array([reader.readSignal(index, digital=True) for index in range(reader.signals_in_file)]).T
    finally:
        reader.close()


def _write_edf(path: Path, signals: Sequence[dict[str, Any]], records: int, *, start: datetime) -> None:
    """A plain EDF file (no EDF+ annotations) with a ramp in each signal, written by pyedflib."""
    writer = pyedflib.EdfWriter(str(path), len(signals), file_type=pyedflib.FILETYPE_EDF)
    try:
        writer.setSignalHeaders([dict(signal) for signal in signals])
        writer.setStartdatetime(start)
        data = [
            (np.arange(int(signal["sample_frequency"]) * records) % 1000 - 500).astype(np.int32) for signal in signals
        ]
        writer.writeSamples(data, digital=True)
    finally:
        writer.close()


def _signal(label: str, unit: str, rate: int, physical: tuple[float, float] = (-3200.0, 3200.0)) -> dict[str, Any]:
    return {
        "label": label,
        "dimension": unit,
        "sample_frequency": rate,
        "physical_min": physical[0],
        "physical_max": physical[1],
        "digital_min": -32768,
        "digital_max": 32767,
    }


def _copy(tmp_path: Path, relative: str) -> Path:
    copy = tmp_path / "upload" / Path(relative).name
    copy.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(real_recording(relative), copy)
    os.chmod(copy, 0o644)
    return copy


def _patch(path: Path, offset: int, text: bytes) -> None:
    with path.open("r+b") as handle:
        handle.seek(offset)
        handle.write(text)


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _no_errors(output: Path) -> None:
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in (ERROR, CRITICAL)], issues


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": SUBJECT, "timezone": "Europe/Amsterdam"}, **overrides)


# --- detection -----------------------------------------------------------------------------------


def test_electrodes_are_one_stream_and_the_status_channel_another() -> None:
    root = real_recording(BIOSEMI).parent

    detection = detect_format(root)

    assert (detection.format, detection.format_label) == ("edf", "EDF")
    assert [stream.id for stream in detection.streams] == ["electrodes_512Hz", "channel139"]
    assert detection.default_streams == ("electrodes_512Hz",)
    electrodes = detection.stream("electrodes_512Hz")
    assert electrodes.label == "Electrode signals at 512 Hz (138 channels: A1, A2, A3, A4, A5 and 133 more)"
    assert (electrodes.channel_count, electrodes.sampling_rate_hz, electrodes.duration_s) == (138, 512.0, 6.0)
    assert electrodes.files == ("test.edf",)
    assert detection.stream("channel139").label == "Status (uV, 512 Hz), not an electrode signal"
    assert detection.file_metadata["session_start_time"] == "2014-04-29T22:19:44"
    assert detection.file_metadata["channel_count"] == 138
    assert any("Not converted unless chosen" in note and "Status (uV, 512 Hz)" in note for note in detection.notes)


def test_the_clinical_export_is_found_convertible_with_its_stim_channel_apart() -> None:
    root = real_recording(OFFSETS).parent

    detection = detect_format(root)

    assert detection.default_streams == ("electrodes_128Hz",)
    assert detection.stream("electrodes_128Hz").channel_count == 24
    assert detection.stream("channel25").label == "DIG DTRIG (uV, 128 Hz), not an electrode signal"
    assert detection.file_metadata["session_start_time"] == "2015-06-02T10:41:57"
    assert any("own physical range, hence their own offset" in note for note in detection.notes)
    assert any("patient details" in note for note in detection.notes)


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(OFFSETS).parent)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    path = tmp_path / "long.edf"
    _write_edf(path, [_signal(f"EEG C{n}", "uV", 1000) for n in range(64)], 1, start=datetime(2023, 5, 1, 9))
    records = 20_000  # 5.5 hours, 2.6 GB, sparse: reading it would take minutes
    _patch(path, 236, f"{records:<8}".encode())
    with path.open("r+b") as handle:
        handle.truncate(64 * 256 + 256 + records * 64 * 1000 * 2)
    detect_format(tmp_path)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(tmp_path))

    assert read < 64 * 2**20  # the file holds 2.6 GB
    assert detection.stream("electrodes_1000Hz").duration_s == records


# --- conversion ----------------------------------------------------------------------------------


def test_the_biosemi_export_converts_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    path = real_recording(BIOSEMI)
    detection = detect_format(path.parent)

    output = _convert(path.parent, detection, tmp_path / "eeg.nwb")

    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeries"}
    series = nwbfile.acquisition["ElectricalSeries"]
    assert series.data.shape == (3072, 138)
    assert series.data.dtype == np.int16
    assert series.rate == 512.0
    assert np.array_equal(series.data[:], _digital(path)[:, :138])
    # The header's ranges (0..100 both) make one step 1 uV; neo's own scaling would give 0.990099 uV.
    assert (series.conversion, series.offset) == (pytest.approx(1e-6), 0.0)
    assert np.allclose(series.data[:] * series.conversion * 1e6 + series.offset, _physical(path)[:, :138])
    assert list(nwbfile.electrodes["channel_name"][:3]) == ["A1", "A2", "A3"]
    assert nwbfile.electrodes["channel_name"][-1] == "Ergo-Right"
    assert nwbfile.session_start_time == datetime(2014, 4, 29, 22, 19, 44, tzinfo=ZoneInfo("Europe/Amsterdam"))
    _no_errors(output)


def test_the_clinical_export_converts_with_physical_values(tmp_path: Path, read_nwb: Any) -> None:
    path = real_recording(OFFSETS)
    detection = detect_format(path.parent)

    output = _convert(path.parent, detection, tmp_path / "clinical.nwb", stream_ids=["electrodes_128Hz", "channel25"])

    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeries", "TimeSeriesDIGDTRIG"}
    eeg = nwbfile.acquisition["ElectricalSeries"]
    assert eeg.data.shape == (1228, 24)
    assert eeg.data.dtype == np.float32  # microvolts: each channel has its own offset (~ +-200 mV, DC-coupled)
    assert (eeg.conversion, eeg.offset) == (pytest.approx(1e-6), 0.0)
    physical = _physical(path)
    assert np.allclose(eeg.data[:], physical[:, :24], rtol=1e-7, atol=0.02)  # float32 at 2e5 uV: steps of 0.016 uV
    assert {nwbfile.electrodes["group_name"][row] for row in range(24)} == {"EEG", "EOG", "ECG", "Electrodes"}
    trigger = nwbfile.acquisition["TimeSeriesDIGDTRIG"]
    assert trigger.data.dtype == np.int16
    assert np.array_equal(trigger.data[:, 0], _digital(path)[:, 24])
    assert trigger.unit == "uV"
    assert np.allclose(trigger.data[:, 0] * trigger.conversion + trigger.offset, physical[:, 24])
    # The header's patient fields ("-1", born 30-DEC-1899) are not written; the user's subject is.
    assert (nwbfile.subject.subject_id, nwbfile.subject.date_of_birth) == ("P01", None)
    _no_errors(output)


def test_several_sampling_rates_and_a_non_voltage_signal(tmp_path: Path, read_nwb: Any) -> None:
    path = tmp_path / "upload" / "sleep.edf"
    path.parent.mkdir()
    signals = [
        _signal("EEG C3", "uV", 256),
        _signal("EEG C4", "uV", 256),
        _signal("EMG chin", "uV", 128, physical=(-500.0, 500.0)),
        _signal("SaO2", "%", 1, physical=(0.0, 100.0)),
    ]
    _write_edf(path, signals, 30, start=datetime(2022, 11, 3, 23, 15, 2))

    detection = detect_format(path.parent)

    assert [stream.id for stream in detection.streams] == ["electrodes_256Hz", "electrodes_128Hz", "channel4"]
    assert detection.default_streams == ("electrodes_256Hz", "electrodes_128Hz")
    assert detection.file_metadata["session_start_time"] == "2022-11-03T23:15:02"
    output = _convert(path.parent, detection, tmp_path / "sleep.nwb", stream_ids=[s.id for s in detection.streams])
    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeries256Hz", "ElectricalSeries128Hz", "TimeSeriesSaO2"}
    assert nwbfile.acquisition["ElectricalSeries256Hz"].data.shape == (256 * 30, 2)
    emg = nwbfile.acquisition["ElectricalSeries128Hz"]
    assert (emg.data.shape, emg.rate, emg.data.dtype) == ((128 * 30, 1), 128.0, np.int16)
    reader = pyedflib.EdfReader(str(path))
    expected = reader.readSignal(2)
    reader.close()
    assert np.allclose(emg.data[:, 0] * emg.conversion * 1e6 + emg.offset * 1e6, expected)
    saturation = nwbfile.acquisition["TimeSeriesSaO2"]
    assert (saturation.unit, saturation.rate, saturation.data.shape) == ("%", 1.0, (30, 1))
    assert {nwbfile.electrodes["group_name"][row] for row in range(3)} == {"EEG", "EMG"}
    _no_errors(output)


def test_an_anonymised_start_date_is_asked_for(tmp_path: Path) -> None:
    copy = _copy(tmp_path, OFFSETS)
    _patch(copy, 168, b"01.01.8500.00.00")
    _patch(copy, 88, b"Startdate X".ljust(80))

    detection = detect_format(copy.parent)

    assert detection.file_metadata["session_start_time"] is None
    assert any("does not say when the recording started" in note for note in detection.notes)


# --- BDF (BioSemi, 24-bit) -------------------------------------------------------------------------

# BioSemi's own ranges: 24-bit digital values over +-262 mV, one step 1/32 uV.
_BIOSEMI_RANGE = {"physical_min": -262144, "physical_max": 262143, "digital_min": -8388608, "digital_max": 8388607}
# The Status channel's triggers (bits 0-15) and acquisition state (bits 16-23: new epoch, CMS in range...).
_STATUS_RANGE = {"physical_min": -8388608, "physical_max": 8388607, "digital_min": -8388608, "digital_max": 8388607}


def _write_bdf(path: Path, electrodes: int, records: int, *, plus: bool = True, rate: int = 256) -> None:
    """A BDF(+) file written by pyedflib: electrode signals over the whole 24-bit range (far past the
    +-32767 of 16 bits, the extremes included) and a BioSemi Status channel using its upper bits."""
    signals = [
        {"label": f"A{n}", "dimension": "uV", "sample_frequency": rate, **_BIOSEMI_RANGE}
        for n in range(1, electrodes + 1)
    ]
    signals.append({"label": "Status", "dimension": "Boolean", "sample_frequency": rate, **_STATUS_RANGE})
    samples = rate * records
    rng = np.random.default_rng(7)
    data = [rng.integers(-8_000_000, 8_000_000, samples, endpoint=True).astype(np.int32) for _ in range(electrodes)]
    data[0][:2] = (-8388608, 8388607)
    status = (np.arange(samples) % 256) | (1 << 20) | ((np.arange(samples) // rate % 2) << 16)
    data.append(status.astype(np.int32))
    writer = pyedflib.EdfWriter(
        str(path), len(signals), file_type=pyedflib.FILETYPE_BDFPLUS if plus else pyedflib.FILETYPE_BDF
    )
    try:
        writer.setSignalHeaders(signals)
        writer.setStartdatetime(datetime(2023, 4, 5, 6, 7, 8))
        writer.writeSamples(data, digital=True)
    finally:
        writer.close()


def test_bdf_converts_at_its_full_24_bits_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    path = tmp_path / "upload" / "session.bdf"
    path.parent.mkdir()
    _write_bdf(path, electrodes=4, records=3)
    digital = _digital(path)
    assert np.abs(digital[:, :4]).max() > 2**23 - 2  # well past what 16 bits hold

    detection = detect_format(path.parent)

    assert (detection.format, detection.format_label) == ("edf", "BDF")
    assert [stream.id for stream in detection.streams] == ["electrodes_256Hz", "channel5"]
    assert detection.default_streams == ("electrodes_256Hz",)
    assert detection.stream("channel5").label == "Status (Boolean, 256 Hz), not an electrode signal"
    assert detection.file_metadata["session_start_time"] == "2023-04-05T06:07:08"
    assert "BDF+ annotations (events and their texts), if any, are not converted." in detection.notes
    output = _convert(path.parent, detection, tmp_path / "bdf.nwb", stream_ids=["electrodes_256Hz", "channel5"])
    nwbfile = read_nwb(output)
    series = nwbfile.acquisition["ElectricalSeries"]
    assert (series.data.dtype, series.data.shape, series.rate) == (np.int32, (768, 4), 256.0)
    assert np.array_equal(series.data[:], digital[:, :4])
    # The EDF specification's scaling, as pyedflib computes physical values: one step is 524287/16777215 uV.
    assert series.conversion == pytest.approx(524287 / 16777215 * 1e-6, rel=1e-12)
    assert np.allclose(
        series.data[:] * series.conversion * 1e6 + series.offset * 1e6, _physical(path)[:, :4], atol=1e-6
    )
    status = nwbfile.acquisition["TimeSeriesStatus"]
    assert (status.data.dtype, status.unit, status.conversion, status.offset) == (np.int32, "Boolean", 1.0, 0.0)
    assert np.array_equal(status.data[:, 0], digital[:, 4])
    assert nwbfile.devices["BDFRecordingSystem"].description == (
        "The BDF file does not name the recording system or the electrodes."
    )
    _no_errors(output)


def test_a_bdf_file_named_edf_converts_as_bdf(tmp_path: Path, read_nwb: Any) -> None:
    path = tmp_path / "upload" / "session.edf"
    path.parent.mkdir()
    _write_bdf(path, electrodes=2, records=2, plus=False)

    detection = detect_format(path.parent)
    nwbfile = read_nwb(_convert(path.parent, detection, tmp_path / "x.nwb"))

    assert detection.format_label == "BDF"
    assert np.array_equal(nwbfile.acquisition["ElectricalSeries"].data[:], _digital(path)[:, :2])


def test_a_long_bdf_file_is_read_a_window_at_a_time(tmp_path: Path) -> None:
    from conversions.nwb.formats.edf import FORMAT

    path = tmp_path / "long.bdf"
    _write_bdf(path, electrodes=64, records=1, plus=False, rate=2048)
    records = 4_000  # 65 channels for 67 minutes, 1.6 GB, sparse: reading it would take minutes
    _patch(path, 236, f"{records:<8}".encode())
    with path.open("r+b") as handle:
        handle.truncate(65 * 256 + 256 + records * 65 * 2048 * 3)
    detect_format(tmp_path)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(tmp_path))

    assert read < 64 * 2**20
    assert detection.stream("electrodes_2048Hz").duration_s == records
    with FORMAT.open_for_reading(tmp_path, detection, ["electrodes_2048Hz"]) as view:
        recording = (
            FORMAT.build_converter(view, ["electrodes_2048Hz"])
            .data_interface_objects["electrodes_2048Hz"]
            .recording_extractor
        )
        window, read = bytes_read_during(
            lambda: recording.get_traces(start_frame=1000, end_frame=3000, channel_ids=["A3", "A1"], return_in_uV=False)
        )
    assert read < 16 * 2**20  # the window is 2 channels x 2000 samples of 1.6 GB
    assert window.dtype == np.int32
    reader = pyedflib.EdfReader(str(path))
    try:
        expected = np.array([reader.readSignal(index, 1000, 2000, digital=True) for index in (2, 0)]).T
    finally:
        reader.close()
    assert np.array_equal(window, expected)


def test_a_truncated_bdf_file_counts_its_records_in_24_bit_samples(tmp_path: Path) -> None:
    path = tmp_path / "session.bdf"
    _write_bdf(path, electrodes=2, records=4, plus=False)
    record_bytes = 3 * 256 * 3  # 3 signals of 256 three-byte samples
    os.truncate(path, 256 * 4 + 2 * record_bytes + 100)

    problem = _problem(tmp_path)

    assert problem.user_message.startswith(
        "session.bdf is incomplete: its header announces 4 data records (4 s) but it holds 2 complete ones"
    )


# --- files that cannot be converted --------------------------------------------------------------


def test_a_truncated_file_names_the_records_it_misses(tmp_path: Path) -> None:
    copy = _copy(tmp_path, BIOSEMI)
    os.truncate(copy, 700_000)

    problem = _problem(copy.parent)

    assert problem.user_message.startswith(
        "test.edf is incomplete: its header announces 6 data records (6 s) but it holds 4 complete ones "
        "(700,000 of 896,256 bytes)."
    )
    assert "upload the file again" in problem.user_message


def test_a_file_longer_than_its_header_says(tmp_path: Path) -> None:
    copy = _copy(tmp_path, OFFSETS)
    with copy.open("ab") as handle:
        handle.write(bytes(100))

    problem = _problem(copy.parent)

    assert problem.user_message.startswith("test_edf_stim_channel.edf is damaged: it is 100 bytes longer")


def test_a_file_that_is_not_bdf(tmp_path: Path) -> None:
    (tmp_path / "session.bdf").write_text("not a recording\n" * 100)

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("session.bdf is not a BDF file: it does not start with the BDF header")


def test_a_bdf_header_without_sizes_is_damaged(tmp_path: Path) -> None:
    (tmp_path / "session.bdf").write_bytes(b"\xffBIOSEMI" + bytes(500))

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("session.bdf is damaged: the header's sizes are not numbers")


def test_a_file_that_is_not_edf(tmp_path: Path) -> None:
    (tmp_path / "notes.edf").write_text("not a recording\n" * 100)

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("notes.edf is not an EDF file")


def test_discontinuous_edf_plus_is_refused(tmp_path: Path) -> None:
    copy = _copy(tmp_path, BIOSEMI)
    _patch(copy, 192, b"EDF+D")

    problem = _problem(copy.parent)

    assert problem.user_message.startswith("test.edf is a discontinuous EDF+ file (EDF+D")


def test_repeated_signal_names_are_refused(tmp_path: Path) -> None:
    copy = _copy(tmp_path, BIOSEMI)
    _patch(copy, 256 + 16, b"A1".ljust(16))  # signal 2's label, A2, becomes A1

    problem = _problem(copy.parent)

    assert "several signals with the same name (A1)" in problem.user_message


def test_an_unfinished_header_is_refused(tmp_path: Path) -> None:
    copy = _copy(tmp_path, OFFSETS)
    _patch(copy, 236, b"-1      ")

    problem = _problem(copy.parent)

    assert "does not say how many data records it holds" in problem.user_message

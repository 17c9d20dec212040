"""Blackrock: the real .ns2 + .nev in ../shared/data/real/, and generated NEURALCD files.

The real example is file spec 2.1 (the oldest); newer files (2.2 to 3.0, "NEURALCD") are written
here with neo's own header layouts: electrodes in uV, analog inputs in mV, pauses, PTP clocks.
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
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.validation import ERROR, inspect_nwb

from .conftest import START, bytes_read_during, convert_upload, real_recording

EXAMPLE = "blackrock/example"
NS2, NEV = "example_2.ns2", "example_1.nev"
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Blackrock recording converted to test the portal.",
    "subject_id": "monkey1",
    "species": "Macaca mulatta",
    "sex": "M",
    "age": "P5Y",
}
ELECTRODES = ("elec1", "elec2", "elec3", "elec4")


def write_nsx(
    path: Path,
    *,
    rate_hz: int = 30000,
    labels: Sequence[str] = ELECTRODES,
    parts: Sequence[tuple[int, int]] = ((0, 600),),
    spec: str = "2.3",
    ptp: bool = False,
    start: datetime = START,
    seed: int = 0,
) -> np.ndarray:
    """A NEURALCD file with `parts` as (first timestamp, samples); returns the samples written, in order.

    Channels labelled "ainp<n>" are analog inputs in mV (+-5 V), the others electrodes in uV.
    """
    from neo.rawio.blackrockrawio import NSX_BASIC_HEADER_TYPES, NSX_DATA_HEADER_TYPES, NSX_EXT_HEADER_TYPES

    rng = np.random.default_rng(seed)
    basic = np.zeros(1, dtype=NSX_BASIC_HEADER_TYPES[spec])
    ext = np.zeros(len(labels), dtype=NSX_EXT_HEADER_TYPES[spec])
    basic["file_id"] = b"NEURALCD"
    basic["ver_major"], basic["ver_minor"] = (int(part) for part in spec.split("."))
    basic["bytes_in_headers"] = basic.itemsize + ext.itemsize * len(labels)
    basic["label"] = f"{rate_hz // 1000} kS/s".encode()
    basic["period"] = 30000 // rate_hz
    basic["timestamp_resolution"] = 10**9 if ptp else 30000
    for field in ("year", "month", "day", "hour", "minute", "second"):
        basic[field] = getattr(start, field)
    basic["channel_count"] = len(labels)
    for index, label in enumerate(labels):
        analog = label.startswith("ainp")
        entry = ext[index]
        entry["type"] = b"CC"
        entry["electrode_id"] = 128 + int(label[4:]) if analog else index + 1
        entry["electrode_label"] = label.encode()
        entry["physical_connector"], entry["connector_pin"] = (5 if analog else 1), index + 1
        entry["min_digital_val"], entry["max_digital_val"] = -32764, 32764
        entry["min_analog_val"], entry["max_analog_val"] = (-5000, 5000) if analog else (-8191, 8191)
        entry["units"] = b"mV" if analog else b"uV"
    chunks = [basic.tobytes(), ext.tobytes()]
    written = []
    for first, samples in parts:
        data = rng.integers(-2000, 2000, size=(samples, len(labels)), dtype=np.int16)
        written.append(data)
        if ptp:
            packets = np.zeros(samples, dtype=NSX_DATA_HEADER_TYPES["3.0-ptp"](len(labels)))
            packets["reserved"], packets["num_data_points"] = 1, 1
            packets["timestamps"] = first + np.arange(samples) * (10**9 // rate_hz)
            packets["samples"] = data
            chunks.append(packets.tobytes())
        else:
            header = np.zeros(1, dtype=NSX_DATA_HEADER_TYPES[spec])
            header["header_flag"], header["timestamp"], header["nb_data_points"] = 1, first, samples
            chunks += [header.tobytes(), data.tobytes()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(chunks))
    return np.concatenate(written)


def _source(path: Path) -> list[np.ndarray]:
    """What spikeinterface (neo) reads from the original file, per part: raw samples."""
    from spikeinterface.extractors import read_blackrock

    recording = read_blackrock(path)
    return [
        recording.get_traces(segment_index=index, return_in_uV=False) for index in range(recording.get_num_segments())
    ]


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _copy(tmp_path: Path, *names: str) -> Path:
    root = tmp_path / "upload"
    root.mkdir()
    for name in names:
        shutil.copyfile(real_recording(EXAMPLE) / name, root / name)
    return root


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": METADATA, "timezone": "America/Chicago"}, **overrides)


def _no_errors(path: Path) -> None:
    assert not [issue for issue in inspect_nwb(path) if issue.importance in (ERROR, "CRITICAL")]


# --- the real recording: spec 2.1 analog inputs and the .nev ---------------------------------------


def test_real_recording_detection() -> None:
    root = real_recording(EXAMPLE)

    detection = detect_format(root)

    assert detection.format == "blackrock"
    assert [stream.id for stream in detection.streams] == ["ns2", "spikes"]
    # Channels 137-143 are the NSP's analog inputs 9-15, not electrodes: still converted by default.
    assert detection.default_streams == ("ns2",)
    ns2 = detection.stream("ns2")
    assert ns2.label == "Analog inputs at 1 kHz (example_2.ns2: ainp9, ainp10, ainp11 and 3 more), 6 channels"
    assert (ns2.channel_count, ns2.sampling_rate_hz, ns2.duration_s) == (6, 1000.0, 3.64)
    assert ns2.files == (NS2, NEV)  # the .nev holds the spec 2.1 file's scaling
    spikes = detection.stream("spikes")
    assert spikes.files == (NEV,)
    assert spikes.duration_s == pytest.approx(3.6407)
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2010-12-10T10:50:10.156000"
    assert (metadata["sampling_rate_hz"], metadata["duration_s"], metadata["file_spec"]) == (1000.0, 3.64, "2.1")
    assert metadata["device"] == "Blackrock neural signal processor, files written by File Dialog v4.15.0.0"
    assert metadata["size_bytes"] == sum((root / name).stat().st_size for name in (NS2, NEV))
    assert any("do not share one name (example_2.ns2, example_1.nev)" in note for note in detection.notes)
    assert any("oldest file format (2.1)" in note for note in detection.notes)
    assert any("Not converted unless chosen: Spikes detected online" in note for note in detection.notes)


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(EXAMPLE))

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


@pytest.mark.filterwarnings("ignore:Cannot rescale to voltage")  # neo reading the source without its .nev
def test_analog_inputs_convert_in_volts(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(EXAMPLE)
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "ns2.nwb")

    nwbfile = read_nwb(output)
    assert list(nwbfile.acquisition) == ["TimeSeriesAnalogInputsNs2"]
    series = nwbfile.acquisition["TimeSeriesAnalogInputsNs2"]
    assert (series.data.shape, series.rate) == ((3640, 6), 1000.0)
    (source,) = _source(root / NS2)
    assert np.array_equal(series.data[:], source)
    # From the .nev's digitization factor (the Cerebus bug's 21516 read as 152592.547 nV per bit).
    assert (series.unit, series.conversion) == ("volts", pytest.approx(152592.547e-9))
    assert len(nwbfile.electrodes or []) == 0
    assert nwbfile.session_start_time == datetime(2010, 12, 10, 10, 50, 10, 156000, tzinfo=ZoneInfo("America/Chicago"))
    _no_errors(output)


def test_spikes_convert_alongside_the_signals(tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_blackrock_sorting

    root = real_recording(EXAMPLE)
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "both.nwb", stream_ids=["ns2", "spikes"])

    nwbfile = read_nwb(output)
    assert list(nwbfile.acquisition) == ["TimeSeriesAnalogInputsNs2"]
    units = nwbfile.units.to_dataframe()
    assert len(units) == 324
    sorting = read_blackrock_sorting(root / NEV, sampling_frequency=30000.0)
    for index, unit_id in enumerate(sorting.get_unit_ids()):
        expected = sorting.get_unit_spike_train(unit_id, return_times=True)
        assert np.allclose(units["spike_times"].iloc[index], expected)
    assert sum(len(times) for times in units["spike_times"]) == 14210
    assert (units["channel_id"].iloc[0], units["unit_class"].iloc[0]) == (1, 0)
    assert set(units["unit_class"]) <= {0, 1, 2, 3, 4, 5, 255}
    assert "Blackrock system" in nwbfile.units.description
    _no_errors(output)


def test_the_spikes_alone(tmp_path: Path, read_nwb: Any) -> None:
    root = _copy(tmp_path, NEV)
    detection = detect_format(root)
    assert [stream.id for stream in detection.streams] == ["spikes"]
    assert detection.default_streams == ("spikes",)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "spikes.nwb"))

    assert len(nwbfile.units) == 324
    assert nwbfile.session_start_time.replace(tzinfo=None) == datetime(2010, 12, 10, 10, 50, 10, 156000)


def test_an_old_file_without_its_nev(tmp_path: Path) -> None:
    root = _copy(tmp_path, NS2)

    problem = _problem(root)

    assert "example_2.ns2 is in Blackrock's oldest file format (2.1)" in problem.user_message
    assert "Upload the .nev file together with it" in problem.user_message


def test_a_truncated_old_file(tmp_path: Path) -> None:
    root = _copy(tmp_path, NS2, NEV)
    os.truncate(root / NS2, (root / NS2).stat().st_size - 5)

    problem = _problem(root)

    assert "example_2.ns2 is incomplete" in problem.user_message
    assert "Upload it again" in problem.user_message


def test_files_that_are_not_blackrock(tmp_path: Path) -> None:
    root = _copy(tmp_path, NS2, NEV)
    (root / NS2).write_bytes(b"RIFF" + (root / NS2).read_bytes()[4:])
    (root / NEV).write_bytes(b"\x00" * 400)

    problem = _problem(root)

    assert "example_2.ns2 is not a Blackrock data file" in problem.user_message
    assert "example_1.nev is not a Blackrock event file" in problem.user_message


# --- newer files (NEURALCD), generated --------------------------------------------------------------


def test_two_sampling_groups_convert_together_and_share_electrodes(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    lfp = write_nsx(root / "session001.ns2", rate_hz=1000, parts=((0, 100),), seed=1)
    raw = write_nsx(root / "session001.ns6", rate_hz=30000, parts=((0, 3000),), seed=2)

    detection = detect_format(root)

    assert detection.default_streams == ("ns2", "ns6")
    assert detection.stream("ns6").label == "Electrode signals at 30 kHz (session001.ns6), 4 channels"
    assert detection.file_metadata["session_start_time"] == "2024-03-15T14:30:00"
    assert detection.file_metadata["channel_count"] == 4  # the same electrodes, counted once
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "cd.nwb"))
    assert set(nwbfile.acquisition) == {"ElectricalSeriesNs2", "ElectricalSeriesNs6"}
    assert np.array_equal(nwbfile.acquisition["ElectricalSeriesNs2"].data[:], lfp)
    assert np.array_equal(nwbfile.acquisition["ElectricalSeriesNs6"].data[:], raw)
    assert nwbfile.acquisition["ElectricalSeriesNs6"].conversion == pytest.approx(0.25e-6)
    assert len(nwbfile.electrodes) == 4
    assert list(nwbfile.electrode_groups) == ["Blackrock"]
    assert "Blackrock neural signal processor" in nwbfile.devices["Blackrock"].description
    assert nwbfile.session_start_time == START.replace(tzinfo=ZoneInfo("America/Chicago"))
    _no_errors(tmp_path / "cd.nwb")


def test_analog_inputs_are_offered_but_not_converted_by_default(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    write_nsx(root / "s.ns5", parts=((0, 300),))
    inputs = write_nsx(root / "s.ns3", rate_hz=2000, labels=("ainp1", "ainp2"), parts=((0, 20),))

    detection = detect_format(root)

    assert detection.default_streams == ("ns5",)
    assert detection.stream("ns3").label == "Analog inputs at 2 kHz (s.ns3: ainp1, ainp2), 2 channels"
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "x.nwb", stream_ids=["ns5", "ns3"]))
    series = nwbfile.acquisition["TimeSeriesAnalogInputsNs3"]
    assert np.array_equal(series.data[:], inputs)
    assert series.conversion == pytest.approx(10 / 65528)  # +-5000 mV over +-32764


def test_a_recording_paused_once_is_written_in_two_parts(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    written = write_nsx(root / "paused.ns5", parts=((0, 30), (30000, 600)))

    detection = detect_format(root)

    assert detection.stream("ns5").duration_s == pytest.approx(630 / 30000)
    assert any("paused.ns5 was paused during the recording: its 2 parts" in note for note in detection.notes)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "paused.nwb"))
    first, second = (nwbfile.acquisition[f"ElectricalSeriesNs5{index}"] for index in (0, 1))
    assert np.array_equal(np.concatenate([first.data[:], second.data[:]]), written)
    assert second.starting_time == pytest.approx(1.0)


def test_precision_time_protocol_files(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    written = write_nsx(root / "gemini.ns6", spec="3.0", ptp=True, parts=((10**9, 3000),))

    detection = detect_format(root)

    assert detection.stream("ns6").duration_s == pytest.approx(0.1)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "ptp.nwb"))
    assert np.array_equal(nwbfile.acquisition["ElectricalSeriesNs6"].data[:], written)


def test_precision_time_protocol_files_with_gaps(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    write_nsx(root / "gemini.ns6", spec="3.0", ptp=True, parts=((0, 300), (10**9, 300)))

    problem = _problem(root)

    assert "gemini.ns6 has gaps in time" in problem.user_message


@pytest.mark.parametrize("cut", [5, 2 * 4 * 100])
def test_a_truncated_file(tmp_path: Path, cut: int) -> None:
    root = tmp_path / "upload"
    write_nsx(root / "session.ns5")
    os.truncate(root / "session.ns5", (root / "session.ns5").stat().st_size - cut)

    problem = _problem(root)

    assert "session.ns5 is incomplete (its last data packet is cut off (600 samples announced))" in (
        problem.user_message
    )


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    path = root / "long.ns6"
    write_nsx(path, parts=((0, 10),))
    samples = 20 * 10**9 // 8  # 20 GB of 4 channels, announced in the packet's header and sparse on disk
    raw = bytearray(path.read_bytes())
    header_end = len(raw) - 10 * 8 - 9
    raw[header_end + 5 : header_end + 9] = np.array([samples], dtype="<u4").tobytes()
    path.write_bytes(bytes(raw[: header_end + 9]))
    os.truncate(path, header_end + 9 + samples * 8)
    detect_format(root)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(root))

    assert read < 64 * 2**20  # the .ns6 holds 20 GB
    assert detection.stream("ns6").duration_s == pytest.approx(samples / 30000)


def test_several_recordings_in_one_upload(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    write_nsx(root / "session001.ns5")
    write_nsx(root / "session002.ns5")

    problem = _problem(root)

    assert "several Blackrock recordings" in problem.user_message
    assert "session001.ns5, session002.ns5" in problem.user_message


def test_a_start_time_removed_from_the_file_is_asked_for(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    write_nsx(root / "anonymous.ns5", start=datetime(1970, 1, 1))

    detection = detect_format(root)

    assert detection.file_metadata["session_start_time"] is None
    assert any("do not say when the recording started" in note for note in detection.notes)


def test_electrodes_and_analog_inputs_in_one_file(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    written = write_nsx(root / "mixed.ns5", labels=("elec1", "elec2", "ainp1"))

    detection = detect_format(root)

    assert detection.default_streams == ("ns5",)
    assert detection.file_metadata["channel_count"] == 2
    assert any("mixed.ns5 holds 1 analog input channel beside its electrodes" in note for note in detection.notes)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "mixed.nwb"))
    series = nwbfile.acquisition["ElectricalSeriesNs5"]
    assert np.array_equal(series.data[:], written)
    # Each channel keeps its own scaling: 0.25 uV per bit for electrodes, 0.15 mV for the analog input.
    scale = series.conversion * series.channel_conversion[:]
    assert scale == pytest.approx([0.25e-6, 0.25e-6, 10 / 65528])


def test_upper_case_file_names(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    written = write_nsx(root / "SESSION001.NS5")

    detection = detect_format(root)

    assert detection.stream("ns5").files == ("SESSION001.NS5",)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "upper.nwb"))
    assert np.array_equal(nwbfile.acquisition["ElectricalSeriesNs5"].data[:], written)


def test_the_nev_gives_the_start_time_a_file_lacks(tmp_path: Path, read_nwb: Any) -> None:
    root = _copy(tmp_path, NEV)
    write_nsx(root / "example_1.ns5", start=datetime(1970, 1, 1))

    detection = detect_format(root)

    assert detection.file_metadata["session_start_time"] == "2010-12-10T10:50:10.156000"
    assert detection.stream("ns5").files == ("example_1.ns5", NEV)
    nwbfile = read_nwb(_convert(root, detection, tmp_path / "x.nwb"))
    assert nwbfile.session_start_time.replace(tzinfo=None) == datetime(2010, 12, 10, 10, 50, 10, 156000)


def test_neuralynx_events_are_not_claimed() -> None:
    from conversions.nwb.formats.blackrock import FORMAT

    assert not FORMAT.claims(["session/CSC1.ncs", "session/Events.nev"])
    assert FORMAT.claims(["Events.nev"])  # alone, it may be Blackrock's: the header decides
    assert FORMAT.claims(["session001.ns5", "session001.nev"])

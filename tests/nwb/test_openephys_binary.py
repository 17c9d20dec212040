"""Open Ephys binary: detection and conversion of the real recordings in ../shared/data/real/.

The real folders are read in place. Tests that need a changed folder build one in tmp_path from
symlinks to the real files (so nothing is copied), replacing only the files they change.
"""

from __future__ import annotations

import json
import os
import re
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
from conversions.nwb.formats import openephys_binary

from .conftest import bytes_read_during, convert_upload, real_recording

DELAYED = "openephys_binary/DelayedRecording/Record Node 118"
AIND = "openephys_binary/aind_v0.6_multiexp_multistream/Record Node 101"
PROBE_B, PROBE_C, NIDAQ = "Neuropix-PXI-100.ProbeB", "Neuropix-PXI-100.ProbeC", "NI-DAQmx-103.PXIe-6341"
READER_A, READER_B = "File_Reader-106.0", "File_Reader-114.0"


def _source_traces(node: Path, stream_folder: str, block_index: int = 0) -> np.ndarray:
    """What spikeinterface (neo) reads from the original folder: raw int16 samples."""
    from spikeinterface.extractors import read_openephys

    recording = read_openephys(node, stream_name=f"{node.name}#{stream_folder}", block_index=block_index)
    traces: np.ndarray = recording.get_traces(return_in_uV=False)  # spikeinterface 0.105: no return_scaled
    return traces


def _linked_copy(source: Path, target: Path, *, skip: Callable[[Path], bool] = lambda path: False) -> Path:
    """`target` laid out like `source`, each file a symlink to the real one (none copied)."""
    for path in source.rglob("*"):
        if path.is_file() and not skip(path.relative_to(source)):
            link = target / path.relative_to(source)
            link.parent.mkdir(parents=True, exist_ok=True)
            link.symlink_to(path)
    return target


def _replace_with_copy(link: Path) -> Path:
    """Turn one symlink of a linked copy into a private copy a test may change."""
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
    return convert_upload(root, detection, output, {"metadata": {}, "timezone": "Europe/Berlin"}, **overrides)


# --- detection -----------------------------------------------------------------------------------


def test_two_streams_of_one_node() -> None:
    root = real_recording(DELAYED)

    detection = detect_format(root)

    assert detection.format == "openephys_binary"
    assert detection.format_label == "Open Ephys binary"
    assert [stream.id for stream in detection.streams] == [f"experiment1/{READER_A}", f"experiment1/{READER_B}"]
    assert detection.default_streams == (f"experiment1/{READER_A}", f"experiment1/{READER_B}")
    first = detection.stream(f"experiment1/{READER_A}")
    assert first.label == "File Reader 106 (16 channels), experiment 1"
    assert (first.channel_count, first.sampling_rate_hz) == (16, 40000.0)
    assert first.duration_s == pytest.approx(122496 / 40000)
    assert first.files == (
        f"experiment1/recording1/continuous/{READER_A}/continuous.dat",
        f"experiment1/recording1/continuous/{READER_A}/timestamps.npy",
        "experiment1/recording1/structure.oebin",
        "settings.xml",
    )
    assert first.size_bytes == sum((root / name).stat().st_size for name in first.files)
    assert detection.file_metadata["session_start_time"] == "2021-03-22T20:05:30"
    assert detection.file_metadata["channel_count"] == 32
    assert detection.file_metadata["experiment_start_times"] == {"1": "2021-03-22T20:05:30"}
    assert any("spikes detected by Open Ephys are not converted" in note for note in detection.notes)


def test_several_experiments_and_streams() -> None:
    root = real_recording(AIND)

    detection = detect_format(root)

    assert len(detection.streams) == 9  # 3 experiments x (ProbeB, ProbeC, NI-DAQ)
    assert detection.default_streams == (f"experiment1/{PROBE_B}", f"experiment1/{PROBE_C}")
    probe_b = detection.stream(f"experiment1/{PROBE_B}")
    assert probe_b.label == "Neuropixels ProbeB (384 channels), experiment 1"
    assert (probe_b.channel_count, probe_b.sampling_rate_hz, probe_b.duration_s) == (384, 30000.0, 100 / 30000)
    nidaq = detection.stream(f"experiment3/{NIDAQ}")
    assert nidaq.label == "NI-DAQ PXIe-6341 analog inputs (8 channels), experiment 3"
    assert nidaq.channel_count == 8
    assert "settings_3.xml" in nidaq.files
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2022-05-03T10:52:24"
    assert metadata["experiment_start_times"] == {
        "1": "2022-05-03T10:52:24",
        "3": "2022-05-03T11:09:55",
        "6": "2022-05-03T11:25:28",
    }
    assert metadata["probe"] == "ProbeB: NP2000 (serial 20403311724); ProbeC: NP2000 (serial 20403311714)"
    assert metadata["channel_count"] == 768
    (experiments,) = [note for note in detection.notes if "3 experiments" in note]
    assert "Experiment 1 is converted by default" in experiments
    (not_default,) = [note for note in detection.notes if "not brain signals" in note]
    assert "NI-DAQ PXIe-6341 analog inputs (8 channels), experiment 1" in not_default


def test_the_folder_above_the_node_works_too() -> None:
    root = real_recording(DELAYED).parent

    detection = detect_format(root)

    assert detection.default_streams == (
        f"Record Node 118/experiment1/{READER_A}",
        f"Record Node 118/experiment1/{READER_B}",
    )
    assert detection.stream(f"Record Node 118/experiment1/{READER_A}").files[-1] == "Record Node 118/settings.xml"


def test_two_recordings_in_one_upload() -> None:
    real_recording(AIND)
    root = real_recording(DELAYED).parents[1]  # openephys_binary/: both real recordings

    problem = _problem(root)

    assert "several Open Ephys recordings" in problem.user_message
    assert "DelayedRecording/Record Node 118" in problem.user_message


def test_detection_round_trips_through_json() -> None:
    detection = detect_format(real_recording(AIND))

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_many_experiments_open_the_interfaces_of_the_first_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Opening a stream's neuroconv interface costs ~30 ms: detection opens the first experiment's only."""
    source = real_recording(AIND)
    root = tmp_path / "Record Node 101"
    for number in range(1, 13):  # experiment 1's files again as experiments 1-12, as symlinks
        _linked_copy(source / "experiment1", root / f"experiment{number}", skip=lambda path: "events" in path.parts)
        (root / ("settings.xml" if number == 1 else f"settings_{number}.xml")).symlink_to(source / "settings.xml")
    opened: list[str] = []
    open_interface = openephys_binary._interface

    def recording_interface(view: Path, node: str, folder: str, *args: Any, **kwargs: Any) -> Any:
        opened.append(folder)
        return open_interface(view, node, folder, *args, **kwargs)

    monkeypatch.setattr(openephys_binary, "_interface", recording_interface)

    detection = detect_format(root)

    assert len(detection.streams) == 36
    assert sorted(opened) == sorted([PROBE_B, PROBE_C, NIDAQ])  # experiment 1's three streams, not all 36


def test_detection_does_not_read_the_data(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(DELAYED), tmp_path / "node")
    data = root / "experiment1" / "recording1" / "continuous" / READER_A / "continuous.dat"
    data.unlink()
    with data.open("wb") as handle:  # 40 GB, sparse: reading it would take minutes
        handle.truncate((40 * 10**9 // 32) * 32)
    detect_format(root)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(root))

    assert read < 64 * 2**20  # continuous.dat holds 40 GB
    assert detection.stream(f"experiment1/{READER_A}").duration_s > 30000
    assert any("timestamps.npy lists 122,496" in note for note in detection.notes)


# --- conversion ----------------------------------------------------------------------------------


def test_both_streams_convert_into_one_file_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(DELAYED)
    detection = detect_format(root)

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "delayed.nwb"))

    assert set(nwbfile.acquisition) == {"ElectricalSeriesFileReader106", "ElectricalSeriesFileReader114"}
    for name, folder in (("FileReader106", READER_A), ("FileReader114", READER_B)):
        series = nwbfile.acquisition[f"ElectricalSeries{name}"]
        assert series.data.shape == (122496, 16)
        assert series.rate == 40000.0
        assert series.conversion == pytest.approx(0.05e-6)  # bit_volts is in microvolts
        assert np.array_equal(series.data[:], _source_traces(root, folder))
        # Each stream has its own electrodes and group; neither borrows the other's.
        assert {series.electrodes.table["group_name"][row] for row in series.electrodes.data[:]} == {name}
    assert len(nwbfile.electrodes) == 32
    assert list(nwbfile.devices) == ["OpenEphys"]
    assert "Open Ephys GUI 0.5.3.1" in nwbfile.devices["OpenEphys"].description
    assert nwbfile.session_start_time == datetime(2021, 3, 22, 20, 5, 30, tzinfo=ZoneInfo("Europe/Berlin"))


def test_two_probes_and_the_nidaq_convert_without_colliding(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(AIND)
    detection = detect_format(root)
    chosen = [f"experiment1/{PROBE_B}", f"experiment1/{PROBE_C}", f"experiment1/{NIDAQ}"]

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "aind.nwb", stream_ids=chosen))

    assert set(nwbfile.acquisition) == {"ElectricalSeriesProbeB", "ElectricalSeriesProbeC", "TimeSeriesPXIe6341"}
    for probe, folder in (("ProbeB", PROBE_B), ("ProbeC", PROBE_C)):
        series = nwbfile.acquisition[f"ElectricalSeries{probe}"]
        assert series.data.shape == (100, 384)
        assert series.rate == 30000.0
        assert np.array_equal(series.data[:], _source_traces(root, folder))
        group = nwbfile.electrode_groups[probe]
        assert group.device is nwbfile.devices[f"Neuropixels{probe}"]
        assert {series.electrodes.table["group_name"][row] for row in series.electrodes.data[:]} == {probe}
    assert len(nwbfile.electrodes) == 768
    assert nwbfile.devices["NeuropixelsProbeB"].serial_number == "20403311724"
    assert nwbfile.devices["NeuropixelsProbeC"].serial_number == "20403311714"
    nidaq = nwbfile.acquisition["TimeSeriesPXIe6341"]
    assert np.array_equal(nidaq.data[:], _source_traces(root, NIDAQ))
    # The NI-DAQ's bit_volts is in volts (10 V over 16 bits), not microvolts as neo assumes.
    assert (nidaq.unit, nidaq.conversion) == ("volts", pytest.approx(0.0003051850944757462))


def test_a_later_experiment_converts_with_its_own_start_time(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording(AIND)
    detection = detect_format(root)

    output = _convert(root, detection, tmp_path / "exp3.nwb", stream_ids=[f"experiment3/{PROBE_B}"])

    nwbfile = read_nwb(output)
    series = nwbfile.acquisition["ElectricalSeriesProbeB"]
    assert np.array_equal(series.data[:], _source_traces(root, PROBE_B, block_index=1))
    # From settings_3.xml: neuroconv alone would take settings.xml's (experiment 1's) date.
    assert nwbfile.session_start_time == datetime(2022, 5, 3, 11, 9, 55, tzinfo=ZoneInfo("Europe/Berlin"))


def test_streams_of_two_experiments_are_not_mixed(tmp_path: Path) -> None:
    root = real_recording(AIND)
    detection = detect_format(root)
    output = tmp_path / "mixed.nwb"

    with pytest.raises(RecordingProblem, match="different experiments"):
        _convert(root, detection, output, stream_ids=[f"experiment1/{PROBE_B}", f"experiment3/{PROBE_B}"])

    assert not output.exists() and not temporary_path_for(output).exists()


def test_a_node_folder_with_another_name(tmp_path: Path, read_nwb: Any) -> None:
    # neo names streams after the node folder only when it starts with "Record".
    upload = tmp_path / "upload"
    _linked_copy(real_recording(DELAYED), upload / "mouse12 session")
    detection = detect_format(upload)
    chosen = [f"mouse12 session/experiment1/{READER_B}"]

    nwbfile = read_nwb(_convert(upload, detection, tmp_path / "x.nwb", stream_ids=chosen))

    series = nwbfile.acquisition["ElectricalSeriesFileReader114"]
    assert np.array_equal(series.data[:], _source_traces(real_recording(DELAYED), READER_B))


# --- files the reader would fail on ------------------------------------------------------------------


def test_truncated_data_file_says_the_upload_is_incomplete(tmp_path: Path) -> None:
    root = tmp_path / "Record Node 101"
    shutil.copytree(real_recording(AIND), root)
    data = root / "experiment3" / "recording1" / "continuous" / PROBE_C / "continuous.dat"
    os.chmod(data, 0o644)
    os.truncate(data, data.stat().st_size - 7)

    problem = _problem(tmp_path)

    assert f"Record Node 101/experiment3/recording1/continuous/{PROBE_C}/continuous.dat" in problem.user_message
    assert "incomplete" in problem.user_message and "Upload it again" in problem.user_message


def test_data_cut_at_a_sample_boundary_is_noted(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(AIND), tmp_path / "node")
    data = _replace_with_copy(root / "experiment1" / "recording1" / "continuous" / PROBE_B / "continuous.dat")
    os.truncate(data, 384 * 2 * 60)

    detection = detect_format(root)

    assert detection.stream(f"experiment1/{PROBE_B}").duration_s == pytest.approx(60 / 30000)
    assert any("holds 60 samples but sample_numbers.npy lists 100" in note for note in detection.notes)


def test_missing_settings_xml(tmp_path: Path) -> None:
    _linked_copy(real_recording(DELAYED), tmp_path / "Record Node 118", skip=lambda path: path.name == "settings.xml")

    problem = _problem(tmp_path)

    assert problem.user_message.startswith("Record Node 118 has no settings.xml")
    assert "Upload the whole Record Node folder" in problem.user_message


def test_missing_sample_numbers(tmp_path: Path) -> None:
    root = _linked_copy(
        real_recording(AIND),
        tmp_path / "node",
        skip=lambda path: path.name == "sample_numbers.npy" and PROBE_B in str(path) and "experiment1" in str(path),
    )

    problem = _problem(root)

    assert f"experiment1/recording1/continuous/{PROBE_B} has no sample_numbers.npy" in problem.user_message


def test_damaged_structure_oebin(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(DELAYED), tmp_path / "node")
    oebin = _replace_with_copy(root / "experiment1" / "recording1" / "structure.oebin")
    oebin.write_bytes(oebin.read_bytes()[:500])

    problem = _problem(root)

    assert "experiment1/recording1/structure.oebin is damaged" in problem.user_message


@pytest.mark.filterwarnings("ignore:Could not fetch session start time")  # the view hides the date on purpose
def test_unreadable_start_date_is_asked_for(tmp_path: Path, read_nwb: Any) -> None:
    root = _linked_copy(real_recording(DELAYED), tmp_path / "node")
    settings = _replace_with_copy(root / "settings.xml")
    settings.write_bytes(settings.read_bytes().replace(b"22 Mar 2021", b"22 mars 2021"))  # a French Windows
    detection = detect_format(root)
    assert detection.file_metadata["session_start_time"] is None
    assert any("does not say when experiment 1 started" in note for note in detection.notes)

    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(root, detection, tmp_path / "x.nwb")
    output = _convert(root, detection, tmp_path / "x.nwb", metadata={"session_start_time": "2021-03-22T20:05:30"})

    assert read_nwb(output).session_start_time == datetime(2021, 3, 22, 20, 5, 30, tzinfo=ZoneInfo("Europe/Berlin"))


@pytest.mark.filterwarnings("ignore:Could not fetch session start time")
def test_experiment_without_its_own_settings_file_has_no_start_time(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(AIND), tmp_path / "node", skip=lambda path: path.name == "settings_3.xml")
    detection = detect_format(root)
    assert detection.file_metadata["experiment_start_times"]["3"] is None
    assert any("settings_3.xml is missing" in note for note in detection.notes)

    # Not experiment 1's date, which is all settings.xml could give.
    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(root, detection, tmp_path / "x.nwb", stream_ids=[f"experiment3/{PROBE_B}"])


def test_file_changed_after_detection(tmp_path: Path) -> None:
    root = _linked_copy(real_recording(DELAYED), tmp_path / "node")
    detection = detect_format(root)
    data = _replace_with_copy(root / "experiment1" / "recording1" / "continuous" / READER_B / "continuous.dat")
    os.truncate(data, 32 * 1000)

    with pytest.raises(ConversionFailed) as caught:
        _convert(root, detection, tmp_path / "out" / "x.nwb")

    assert f"experiment1/recording1/continuous/{READER_B}/continuous.dat" in caught.value.user_message
    assert "changed or disappeared" in caught.value.user_message
    assert not any((tmp_path / "out").glob("*.nwb"))


# --- probes the probe reader cannot parse ------------------------------------------------------------

# The real AIND folder holds two Neuropixels 2.0 probes (NP2000) recorded by the Neuropix-PXI plugin,
# whose settings.xml keeps each probe as an NP_PROBE element in the processor's EDITOR, where
# probeinterface looks for a GUI 0.6. Folders of Neuropixels 2.0 probes were refused with
# "AttributeError: 'NoneType' object has no attribute 'findall'" from probeinterface 0.4.2; the two
# layouts below are the two ways its reader ends in that error: for a GUI before 0.9 it reads the
# probes from the EDITOR, here absent (the probes are in the processor's CUSTOM_PARAMETERS); from
# 0.9 on it reads them from the EDITOR's own CUSTOM_PARAMETERS, absent when they are in the EDITOR.
_NEUROPIX_EDITOR = re.compile(
    rb'(<PROCESSOR name="Neuropix-PXI".*?)<CUSTOM_PARAMETERS/>\s*<EDITOR.*?</NEUROPIXELS_EDITOR>(.*?)</EDITOR>', re.S
)


def _probes_outside_the_editor(settings: bytes) -> bytes:
    match = _NEUROPIX_EDITOR.search(settings)
    assert match is not None
    probes = b"<CUSTOM_PARAMETERS>" + match[2] + b"</CUSTOM_PARAMETERS>"
    return settings[: match.start()] + match[1] + probes + settings[match.end() :]


def _saved_by_a_later_gui(settings: bytes) -> bytes:
    assert b"<VERSION>0.6.0</VERSION>" in settings
    return settings.replace(b"<VERSION>0.6.0</VERSION>", b"<VERSION>1.0.0</VERSION>")


_UNPARSED_LAYOUTS = {"probes outside the editor": _probes_outside_the_editor, "GUI 1.0": _saved_by_a_later_gui}


def _np2_node(tmp_path: Path, layout: str) -> Path:
    """The real AIND node with every settings file rewritten in `layout`."""
    root = _linked_copy(real_recording(AIND), tmp_path / "Record Node 101")
    for name in ("settings.xml", "settings_3.xml", "settings_6.xml"):
        settings = _replace_with_copy(root / name)
        settings.write_bytes(_UNPARSED_LAYOUTS[layout](settings.read_bytes()))
    return root


@pytest.mark.parametrize("layout", _UNPARSED_LAYOUTS)
def test_probes_that_cannot_be_read_leave_the_streams_detected(tmp_path: Path, layout: str) -> None:
    import probeinterface

    root = _np2_node(tmp_path, layout)
    has_neuropixels_probes = probeinterface.has_neuropixels_probes
    with pytest.raises(AttributeError, match="'NoneType' object has no attribute 'findall'"):
        probeinterface.read_openephys_neuropixels(root / "settings.xml", stream_name="ProbeB")

    detection = detect_format(root)

    assert detection.default_streams == (f"experiment1/{PROBE_B}", f"experiment1/{PROBE_C}")
    assert detection.stream(f"experiment1/{PROBE_B}").channel_count == 384
    assert detection.file_metadata["probe"] == ""
    assert detection.file_metadata["device"] == "Neuropixels ProbeB; Neuropixels ProbeC"
    (note,) = [note for note in detection.notes if "electrode positions" in note]
    assert note == (
        "The electrode positions of Neuropixels ProbeB and Neuropixels ProbeC could not be read from settings.xml: "
        "it describes these probes in a way the probe reader cannot parse (AttributeError: 'NoneType' object has "
        "no attribute 'findall'). The signals are still converted, but the NWB file will have no electrode "
        "geometry for them: no positions of the channels on the probe, and no probe model."
    )
    # The reader was made to skip these probes only while the streams opened.
    assert probeinterface.has_neuropixels_probes is has_neuropixels_probes


def test_probes_that_cannot_be_read_convert_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = _np2_node(tmp_path, "probes outside the editor")
    detection = detect_format(root)
    chosen = [f"experiment1/{PROBE_B}", f"experiment1/{PROBE_C}", f"experiment1/{NIDAQ}"]

    nwbfile = read_nwb(_convert(root, detection, tmp_path / "np2.nwb", stream_ids=chosen))

    for probe, folder in (("ProbeB", PROBE_B), ("ProbeC", PROBE_C)):
        series = nwbfile.acquisition[f"ElectricalSeries{probe}"]
        assert series.data.shape == (100, 384)
        assert np.array_equal(series.data[:], _source_traces(real_recording(AIND), folder))
        assert series.conversion == pytest.approx(0.195e-6)
        group = nwbfile.electrode_groups[probe]
        assert "positions on the probe are not in this file" in group.description
        assert group.device is nwbfile.devices["OpenEphys"]
    assert "rel_x" not in nwbfile.electrodes.colnames  # no geometry, rather than a wrong one
    assert "probes described in settings.xml could not be read" in nwbfile.devices["OpenEphys"].description
    nidaq = nwbfile.acquisition["TimeSeriesPXIe6341"]
    assert np.array_equal(nidaq.data[:], _source_traces(real_recording(AIND), NIDAQ))
    assert nwbfile.session_start_time == datetime(2022, 5, 3, 10, 52, 24, tzinfo=ZoneInfo("Europe/Berlin"))


def test_a_reader_failure_outside_the_probe_is_not_passed_over(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from spikeinterface.extractors.neoextractors.openephys import OpenEphysBinaryRecordingExtractor

    def fail(*args: Any, **kwargs: Any) -> None:
        raise ValueError("unexpected block")

    monkeypatch.setattr(OpenEphysBinaryRecordingExtractor, "__init__", fail)

    problem = _problem(_np2_node(tmp_path, "probes outside the editor"))

    assert "could not be read as an Open Ephys recording (ValueError: unexpected block)" in problem.user_message

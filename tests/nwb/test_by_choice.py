"""Any neuroconv recording interface by the user's explicit choice ("neuroconv:<InterfaceName>").

Real files (Intan, Blackrock) and a generated Neuralynx session are opened through the explicit path
only, whether or not detection knows their format, so the path works on its own.
"""

from __future__ import annotations

import json
import warnings
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.conversion import convert_recording
from conversions.nwb.detection import SUPPORTED_FORMATS, Detection, detect_format, format_handler
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.formats.by_choice import choosable_formats, choosable_interfaces, detect_as
from conversions.nwb.synthetic import write_neuralynx
from conversions.nwb.validation import inspect_nwb

from .conftest import START, real_recording

INTAN = "intan/example_intan_file.rhd"
BLACKROCK = "blackrock/example"
SUBJECT = {
    "subject_id": "m12",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
    "experimenter": ["Curie, Marie"],
    "institution": "Test Institute",
    "session_description": "Chosen by hand.",
}


def _convert(root: Path, detection: Detection, output: Path, **metadata: Any) -> Path:
    convert_recording(
        source_root=root,
        detection=detection,
        stream_ids=[],
        metadata={**SUBJECT, **metadata},
        timezone="Europe/Paris",
        output_path=output,
    )
    return output


def _chosen(root: Path, interface: str) -> Detection:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # deprecations inside the readers
        return detect_format(root, format_key=f"neuroconv:{interface}")


def _problem(root: Path, interface: str) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        _chosen(root, interface)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _no_errors(output: Path) -> None:
    issues = inspect_nwb(output)
    assert not [issue for issue in issues if issue.importance in ("ERROR", "CRITICAL")], issues


# --- what can be chosen ----------------------------------------------------------------------------


def test_every_neuroconv_recording_interface_can_be_chosen() -> None:
    import neuroconv.datainterfaces as datainterfaces

    named = {
        name
        for name in dir(datainterfaces)
        if name.endswith("RecordingInterface") and ".ecephys." in getattr(datainterfaces, name).__module__
    }

    choices = choosable_interfaces()

    assert named <= set(choices)
    assert {"NeuroScopeLFPInterface", "PlexonLFPInterface", "CellExplorerLFPInterface"} <= set(choices)
    intan = choices["IntanRecordingInterface"]
    assert (intan.key, intan.label, intan.source, intan.suffixes) == (
        "neuroconv:IntanRecordingInterface",
        "Intan Amplifier",
        "file_path",
        (".rhd", ".rhs"),
    )
    assert choices["NeuralynxRecordingInterface"].source == "folder_path"
    assert choices["NeuralynxRecordingInterface"].stream_argument == "stream_name"
    assert choices["TdtRecordingInterface"].required_options == ("gain",)
    assert choices["Spike2RecordingInterface"].missing_packages == ("sonpy",)
    assert "not available here: needs sonpy" in choices["Spike2RecordingInterface"].needs


def test_choices_are_never_claimed_by_detection() -> None:
    formats = choosable_formats()

    assert not any(key.startswith("neuroconv:") for key in SUPPORTED_FORMATS)
    assert not any(supported.claims(["example.rhd", "CSC1.ncs", "x.ns2"]) for supported in formats.values())
    assert format_handler("neuroconv:IntanRecordingInterface") is formats["neuroconv:IntanRecordingInterface"]
    assert format_handler("neuroconv:NoSuchInterface") is None


def test_an_unknown_interface_is_a_caller_error(tmp_path: Path) -> None:
    (tmp_path / "x.bin").write_bytes(b"\x00" * 10)

    with pytest.raises(ValueError, match="unknown format"):
        detect_format(tmp_path, format_key="neuroconv:NoSuchInterface")


# --- real and generated recordings ---------------------------------------------------------------


def test_intan_by_choice(tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_intan

    path = real_recording(INTAN)
    root = path.parent

    detection = _chosen(root, "IntanRecordingInterface")

    assert (detection.format, detection.format_label) == ("neuroconv:IntanRecordingInterface", "Intan Amplifier")
    (stream,) = detection.streams
    assert (stream.id, stream.files) == ("example_intan_file.rhd", ("example_intan_file.rhd",))
    assert stream.label == "example_intan_file.rhd (2 channels at 20000 Hz)"
    assert (stream.channel_count, stream.sampling_rate_hz, stream.duration_s) == (2, 20000.0, 0.992)
    assert detection.file_metadata["session_start_time"] is None  # an .rhd holds no start time
    assert "you will be asked for it" in detection.notes[-1]
    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection

    output = _convert(root, detection, tmp_path / "intan.nwb", session_start_time="2024-03-15T14:30:00")

    series = read_nwb(output).acquisition["ElectricalSeries"]
    source = read_intan(path, stream_name="RHD2000 amplifier channel")
    assert series.data.shape == (19840, 2) and series.rate == 20000.0
    assert np.array_equal(series.data[:], source.get_traces(return_in_uV=False))
    _no_errors(output)


@pytest.mark.filterwarnings("ignore:Cannot rescale to voltage")  # neo, on this .ns2's header
def test_blackrock_by_choice(tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_blackrock

    root = real_recording(BLACKROCK)

    detection = _chosen(root, "BlackrockRecordingInterface")

    (stream,) = detection.streams
    assert stream.id == "example_2.ns2"
    assert stream.files == ("example_2.ns2", "example_1.nev")  # the partner files a reader may open
    assert (stream.channel_count, stream.sampling_rate_hz, stream.duration_s) == (6, 1000.0, 3.64)

    output = _convert(root, detection, tmp_path / "blackrock.nwb", session_start_time="2024-03-15T14:30:00")

    series = read_nwb(output).acquisition["ElectricalSeries"]
    source = read_blackrock(root / "example_2.ns2")
    assert series.data.shape == (3640, 6)
    assert np.array_equal(series.data[:], source.get_traces(return_in_uV=False))


def test_neuralynx_by_choice(tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_neuralynx

    root = tmp_path / "upload"
    write_neuralynx(root / "session", n_channels=3, duration_s=0.2, start_time=START)

    detection = _chosen(root, "NeuralynxRecordingInterface")

    (stream,) = detection.streams
    assert stream.id == "session::stream0_32000Hz_1mVRange_DSPFilter0"  # the folder holding the .ncs files
    assert stream.files == ("session/CSC1.ncs", "session/CSC2.ncs", "session/CSC3.ncs")
    assert (stream.channel_count, stream.sampling_rate_hz, stream.duration_s) == (3, 32000.0, 0.2)
    assert detection.file_metadata["session_start_time"] == "2024-03-15T14:30:00"

    output = _convert(root, detection, tmp_path / "neuralynx.nwb")

    nwbfile = read_nwb(output)
    series = nwbfile.acquisition["ElectricalSeries"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        source = read_neuralynx(root / "session")
    assert np.array_equal(series.data[:], source.get_traces(return_in_uV=False))
    assert nwbfile.session_start_time == datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Paris"))
    _no_errors(output)


def test_several_streams_get_their_own_series(tmp_path: Path, read_nwb: Any) -> None:
    root = tmp_path / "upload"
    write_neuralynx(root, n_channels=3, duration_s=0.1, input_range_uv=[1000, 1000, 3000])

    detection = _chosen(root, "NeuralynxRecordingInterface")
    output = _convert(root, detection, tmp_path / "both.nwb")

    assert [stream.channel_count for stream in detection.streams] == [2, 1]
    assert set(read_nwb(output).acquisition) == {
        "ElectricalSeriesStream032000Hz1mVRangeDSPFilter0",
        "ElectricalSeriesStream132000Hz3mVRangeDSPFilter0",
    }


def test_options_the_files_do_not_hold(tmp_path: Path, read_nwb: Any) -> None:
    """WhiteMatter files are an 8-byte header and bare samples: the rate and channel count come from the user."""
    samples = np.arange(4 * 2500, dtype="<i2").reshape(2500, 4)
    (tmp_path / "recording.bin").write_bytes(bytes(8) + samples.tobytes())

    with pytest.raises(RecordingProblem, match="needs sampling_frequency, num_channels, which the files do not hold"):
        _chosen(tmp_path, "WhiteMatterRecordingInterface")
    options = {"sampling_frequency": 25000.0, "num_channels": 4}
    detection = detect_as(tmp_path, "WhiteMatterRecordingInterface", options=options)

    assert (detection.streams[0].channel_count, detection.streams[0].duration_s) == (4, 0.1)
    assert detection.file_metadata["interface_options"] == options
    output = _convert(tmp_path, detection, tmp_path / "out" / "wm.nwb", session_start_time="2024-03-15T14:30:00")
    series = read_nwb(output).acquisition["ElectricalSeries"]
    assert series.rate == 25000.0 and np.array_equal(series.data[:], samples)


# --- what cannot be read -------------------------------------------------------------------------------


def test_a_missing_package_is_said_plainly() -> None:
    root = real_recording("spike2")

    problem = _problem(root, "Spike2RecordingInterface")

    assert problem.user_message.startswith("Reading Spike2 Recording files needs the Python package sonpy")
    assert "Ask the portal's administrator" in problem.user_message


def test_files_of_another_format_are_named() -> None:
    root = real_recording(INTAN).parent

    problem = _problem(root, "BlackrockRecordingInterface")

    assert problem.user_message.startswith(
        "The upload could not be read as Blackrock Recording (example_intan_file.rhd:"
    )
    assert "choose another format" in problem.user_message


def test_a_file_the_reader_cannot_open_is_named() -> None:
    root = real_recording("broken/intan_rhd_v1.5")

    problem = _problem(root, "IntanRecordingInterface")

    assert "sampledata.rhd" in problem.user_message and "Intan Amplifier" in problem.user_message


def test_a_file_without_continuous_signals() -> None:
    root = real_recording("plexon")

    problem = _problem(root, "PlexonRecordingInterface")

    assert "explore1.plx: the reader finds no continuous signals in it" in problem.user_message


def test_no_file_with_the_format_s_name(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    (tmp_path / "b.txt").write_text("b")

    problem = _problem(tmp_path, "IntanRecordingInterface")

    assert problem.user_message.startswith(
        "None of the files has a name Intan Amplifier files have (ending in .rhd, .rhs)"
    )

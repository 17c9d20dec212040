"""Choosing streams other than the defaults: what each stream is (kind, group), the facts of any
choice, the choices refused before a job is queued, and real conversions of non-default choices.

Nothing here opens the data to check a choice: `validate_stream_choice` and `facts_for_streams`
take the stored detection only.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from conversions.nwb.detection import Detection, detect_format, facts_for_streams, validate_stream_choice
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.formats.base import FACT_KEYS
from conversions.nwb.synthetic import write_neuralynx, write_neuroscope

from .conftest import CHANNELS, DURATION_S, START, bytes_read_during, convert_upload, real_recording

AIND = "openephys_binary/aind_v0.6_multiexp_multistream/Record Node 101"
PROBE_B, PROBE_C, NIDAQ = "Neuropix-PXI-100.ProbeB", "Neuropix-PXI-100.ProbeC", "NI-DAQmx-103.PXIe-6341"
GUI06 = "openephys_legacy/v0.6.7/Record Node 101"
LEGACY_STREAM = "100_example-data"
ABF1, PAIR, PCLAMP11 = "05210017_vc_abf1.abf", "14o16001_vc_pair_step.abf", "2018_12_09_pCLAMP11_0001.abf"
TIMEZONE = "Europe/Berlin"


def _neuralynx(root: Path) -> Path:
    write_neuralynx(
        root, n_channels=4, duration_s=DURATION_S, start_time=START, input_range_uv=[1000, 1000, 2000, 2000]
    )
    return root


def _neuroscope(root: Path) -> Path:
    return write_neuroscope(root, duration_s=DURATION_S)["dat"].parent


def _legacy_with_two_experiments(root: Path) -> Path:
    """The real GUI 0.6.7 node, its files linked again as experiment 2 (as Open Ephys names them)."""
    for path in real_recording(GUI06).iterdir():
        (root / path.name).symlink_to(path)
        if path.suffix == ".continuous":
            (root / f"{path.stem}_2.continuous").symlink_to(path)
    return root


# Every format, on a real recording where one exists, otherwise on generated files: how to get the
# upload, and each stream's (kind, group).
RECORDINGS: dict[str, tuple[str | Callable[[Path], Path], dict[str, tuple[str, str]] | None]] = {
    "spikeglx": ("spikeglx/Noise4Sam_g0", {"imec0.ap": ("neural", "")}),
    "openephys_binary": (
        AIND,
        {
            f"experiment{number}/{folder}": (kind, f"experiment {number}")
            for number in (1, 3, 6)
            for folder, kind in ((PROBE_B, "neural"), (PROBE_C, "neural"), (NIDAQ, "auxiliary"))
        },
    ),
    "openephys_legacy": (GUI06, {f"experiment1/{LEGACY_STREAM}": ("neural", "")}),
    "openephys_legacy_two_experiments": (
        _legacy_with_two_experiments,
        {f"experiment{number}/{LEGACY_STREAM}": ("neural", f"experiment {number}") for number in (1, 2)},
    ),
    "intan": (
        "intan",
        {"amplifier": ("neural", ""), "auxiliary": ("auxiliary", ""), "supply_voltage": ("auxiliary", "")},
    ),
    "blackrock": ("blackrock/example", {"ns2": ("auxiliary", ""), "spikes": ("spikes", "")}),
    "axon": (
        "abf",
        {
            f"{ABF1}#Voltage0": ("neural", ABF1),
            f"{ABF1}#Current1": ("neural", ABF1),
            f"{PAIR}#IN0": ("neural", PAIR),
            f"{PAIR}#IN1": ("neural", PAIR),
            f"{PCLAMP11}#IN0": ("neural", PCLAMP11),
        },
    ),
    "plexon": ("plexon", {"explore1.plx": ("spikes", "")}),
    "spike2": ("spike2", {"3": ("neural", ""), "2": ("auxiliary", ""), "1": ("auxiliary", ""), "0": ("auxiliary", "")}),
    "edf": ("edf", {"electrodes_512Hz": ("neural", ""), "channel139": ("auxiliary", "")}),
    # Generated: stream ids name the files' settings, so only the kinds are checked.
    "neuralynx": (_neuralynx, None),
    "neuroscope": (_neuroscope, None),
}


@pytest.fixture(scope="module", params=list(RECORDINGS))
def recording(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Detection]:
    source, _ = RECORDINGS[request.param]
    root = real_recording(source) if isinstance(source, str) else source(tmp_path_factory.mktemp(request.param))
    return request.param, detect_format(root)


@pytest.fixture(scope="module")
def aind() -> Detection:
    return detect_format(real_recording(AIND))


def _refusal(detection: Detection, stream_ids: list[str]) -> str:
    with pytest.raises(RecordingProblem) as caught:
        validate_stream_choice(detection, stream_ids)
    return caught.value.user_message


# --- what each stream is -----------------------------------------------------------------------------


def test_every_stream_says_what_it_is_and_where_it_belongs(recording: tuple[str, Detection]) -> None:
    name, detection = recording
    expected = RECORDINGS[name][1]

    kinds = {stream.id: (stream.kind, stream.group) for stream in detection.streams}

    if expected is None:
        assert set(kinds.values()) == {("neural", "")}
    else:
        assert kinds == expected


def test_kinds_and_groups_survive_storage_and_old_detections_still_load(aind: Detection) -> None:
    stored = json.loads(json.dumps(aind.to_json()))
    assert Detection.from_json(stored) == aind

    for stream in stored["streams"]:  # as stored before streams had kinds and groups
        del stream["kind"], stream["group"]
    old = Detection.from_json(stored)

    assert {(stream.kind, stream.group) for stream in old.streams} == {("neural", "")}
    validate_stream_choice(old, [f"experiment1/{PROBE_B}"])
    with pytest.raises(RecordingProblem, match="different experiments"):  # told apart by their ids
        validate_stream_choice(old, [f"experiment1/{PROBE_B}", f"experiment3/{PROBE_B}"])


# --- facts of a choice ----------------------------------------------------------------------------


def test_the_facts_of_the_default_streams_are_the_file_metadata(recording: tuple[str, Detection]) -> None:
    _, detection = recording

    facts = facts_for_streams(detection, [])

    assert set(facts) == set(FACT_KEYS)
    assert facts == facts_for_streams(detection, detection.default_streams)
    for key in FACT_KEYS:
        assert facts[key] == detection.file_metadata.get(key, "" if key == "probe" else None), key


def test_the_facts_of_every_single_stream_are_its_own(recording: tuple[str, Detection]) -> None:
    _, detection = recording

    for stream in detection.streams:
        facts = facts_for_streams(detection, [stream.id])

        assert (facts["channel_count"], facts["sampling_rate_hz"]) == (stream.channel_count, stream.sampling_rate_hz)
        assert (facts["duration_s"], facts["size_bytes"]) == (stream.duration_s, stream.size_bytes)


def test_a_later_experiment_has_its_own_start_time(aind: Detection) -> None:
    facts = facts_for_streams(aind, [f"experiment3/{PROBE_B}", f"experiment3/{PROBE_C}"])

    assert facts == {
        "session_start_time": "2022-05-03T11:09:55",  # experiment 1 started at 10:52:24
        "device": "Neuropixels probe (imec NP2000)",
        "probe": "ProbeB: NP2000 (serial 20403311724); ProbeC: NP2000 (serial 20403311714)",
        "channel_count": 768,
        "sampling_rate_hz": 30000.0,
        "duration_s": 100 / 30000,
        "size_bytes": sum(aind.stream(f"experiment3/{folder}").size_bytes for folder in (PROBE_B, PROBE_C)),
    }


def test_the_nidaq_alone_has_no_probe(aind: Detection) -> None:
    facts = facts_for_streams(aind, [f"experiment6/{NIDAQ}"])

    assert facts["session_start_time"] == "2022-05-03T11:25:28"
    assert (facts["device"], facts["probe"], facts["channel_count"]) == ("NI-DAQ PXIe-6341 analog inputs", "", 8)


def test_the_lf_band_alone(ap_lf_upload: Path) -> None:
    detection = detect_format(ap_lf_upload)
    lf = detection.stream("imec0.lf")

    facts = facts_for_streams(detection, ["imec0.lf"])

    assert facts == {
        "session_start_time": "2024-03-15T14:30:00",
        "device": "Neuropixels 1.0 probe",
        "probe": "imec0: NP1000 (serial 18005102171)",
        "channel_count": CHANNELS,
        "sampling_rate_hz": 2500.0,
        "duration_s": pytest.approx(DURATION_S),
        "size_bytes": lf.size_bytes,
    }
    # AP and LF read the same electrodes: together they are still CHANNELS channels.
    assert facts_for_streams(detection, ["imec0.ap", "imec0.lf"])["channel_count"] == CHANNELS


def test_abf_files_together_start_with_the_first_and_span_to_the_end_of_the_last() -> None:
    detection = detect_format(real_recording("abf"))

    facts = facts_for_streams(detection, [f"{PAIR}#IN0", f"{PCLAMP11}#IN0"])

    assert facts["session_start_time"] == "2014-10-16T10:01:35.078000"
    later = (datetime(2018, 12, 9, 1, 31, 38, 436999) - datetime(2014, 10, 16, 10, 1, 35, 78000)).total_seconds()
    assert facts["duration_s"] == pytest.approx(later + detection.stream(f"{PCLAMP11}#IN0").duration_s, abs=1e-3)
    assert facts["channel_count"] == 2
    assert facts["device"] == "Axon MultiClamp 700 amplifier; Patch-clamp amplifier (model not named in the file)"


def test_blackrock_spikes_alone_count_their_channels_and_clock() -> None:
    detection = detect_format(real_recording("blackrock/example"))
    spikes = detection.stream("spikes")

    facts = facts_for_streams(detection, ["spikes"])
    with_signals = facts_for_streams(detection, ["ns2", "spikes"])

    assert (facts["channel_count"], facts["sampling_rate_hz"], facts["size_bytes"]) == (
        spikes.channel_count,
        30000.0,
        spikes.size_bytes,
    )
    # With the signals, the rate and duration are the signals'; the .nev both need is counted once.
    assert (with_signals["sampling_rate_hz"], with_signals["duration_s"]) == (1000.0, 3.64)
    assert with_signals["size_bytes"] == detection.stream("ns2").size_bytes


# --- choices refused before a job is queued ----------------------------------------------------------


def test_every_stream_alone_and_the_defaults_are_accepted(recording: tuple[str, Detection]) -> None:
    _, detection = recording

    validate_stream_choice(detection, [])
    validate_stream_choice(detection, detection.default_streams)
    for stream in detection.streams:
        validate_stream_choice(detection, [stream.id])


def test_streams_of_two_experiments_are_refused(aind: Detection) -> None:
    chosen = [f"experiment1/{PROBE_B}", f"experiment3/{PROBE_B}", f"experiment3/{NIDAQ}"]

    message = _refusal(aind, chosen)

    assert message == (
        "The chosen streams come from different experiments (experiment 1 and experiment 3). Open Ephys started "
        "each experiment separately (a new one each time acquisition is restarted), each with its own start time "
        "and clock, so one NWB file cannot hold them together. Choose the streams of one experiment only (for "
        "example those of experiment 1), and convert each other experiment into its own NWB file."
    )
    with pytest.raises(RecordingProblem, match="different experiments"):
        facts_for_streams(aind, chosen)  # two start times: no facts to give


def test_all_streams_of_one_experiment_are_accepted(aind: Detection) -> None:
    validate_stream_choice(aind, [f"experiment6/{folder}" for folder in (PROBE_B, PROBE_C, NIDAQ)])


def test_legacy_streams_of_two_experiments_are_refused(tmp_path: Path) -> None:
    detection = detect_format(_legacy_with_two_experiments(tmp_path))

    message = _refusal(detection, [f"experiment2/{LEGACY_STREAM}", f"experiment1/{LEGACY_STREAM}"])

    assert message.startswith(
        "The chosen streams come from different experiments (experiment 2 and experiment 1). Open Ephys started "
        "each experiment separately"
    )
    assert message.endswith(
        "(for example those of experiment 2), and convert each other experiment into its own NWB file."
    )


def test_an_abf1_file_with_another_file_is_refused() -> None:
    detection = detect_format(real_recording("abf"))

    message = _refusal(detection, [f"{PAIR}#IN0", f"{ABF1}#Voltage0"])

    assert message == (
        f"{ABF1} cannot be converted together with other files (it is an ABF version 1 file), so the files cannot "
        f"be placed on one timeline. Convert the channels of {ABF1} on their own (choose only them), and the other "
        "files' channels into another NWB file."
    )
    validate_stream_choice(detection, [f"{ABF1}#Voltage0", f"{ABF1}#Current1"])  # one file: one timeline
    validate_stream_choice(detection, [f"{PAIR}#IN0", f"{PCLAMP11}#IN0"])  # ABF 2 files with start times


def test_a_stream_the_recording_does_not_have(ap_lf_upload: Path) -> None:
    detection = detect_format(ap_lf_upload)

    message = _refusal(detection, ["imec0.ap", "nidq"])

    assert message == (
        "This SpikeGLX recording has no stream nidq. Choose among its streams: imec0.ap (Neuropixels probe imec0, "
        "action potential band (AP)); imec0.lf (Neuropixels probe imec0, local field potential band (LF))."
    )


def test_a_stream_named_twice(ap_lf_upload: Path) -> None:
    detection = detect_format(ap_lf_upload)

    message = _refusal(detection, ["imec0.lf", "imec0.ap", "imec0.lf"])

    assert message == "The choice names imec0.lf more than once; name each stream once."


def test_checking_a_choice_reads_no_file(aind: Detection) -> None:
    chosen = [f"experiment3/{PROBE_C}", f"experiment3/{NIDAQ}"]
    facts_for_streams(aind, chosen)  # imports what the check needs, so the call measured reads only files
    _, measuring = bytes_read_during(lambda: None)  # what reading the counter itself adds

    facts, read = bytes_read_during(lambda: facts_for_streams(aind, chosen))

    assert read <= measuring
    assert facts["channel_count"] == 392


# --- conversions of choices other than the defaults ------------------------------------------------------


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": {}, "timezone": TIMEZONE}, **overrides)


def test_a_probe_and_the_nidaq_of_a_later_experiment(tmp_path: Path, read_nwb: Any, aind: Detection) -> None:
    from spikeinterface.extractors import read_openephys

    root = real_recording(AIND)
    chosen = [f"experiment6/{PROBE_C}", f"experiment6/{NIDAQ}"]
    facts = facts_for_streams(aind, chosen)

    nwbfile = read_nwb(_convert(root, aind, tmp_path / "exp6.nwb", stream_ids=chosen))

    assert set(nwbfile.acquisition) == {"ElectricalSeriesProbeC", "TimeSeriesPXIe6341"}
    for name, folder in (("ElectricalSeriesProbeC", PROBE_C), ("TimeSeriesPXIe6341", NIDAQ)):
        # Experiment 6 is the third block neo finds in the folder.
        source = read_openephys(root, stream_name=f"{root.name}#{folder}", block_index=2)
        series = nwbfile.acquisition[name]
        assert series.data.shape == (source.get_num_samples(), source.get_num_channels())
        assert series.rate == source.get_sampling_frequency()
    assert len(nwbfile.electrodes) == facts["channel_count"] - 8  # the NI-DAQ's inputs are not electrodes
    # The probe detection named (read for experiment 1) is the one the conversion read from settings_6.xml.
    assert facts["probe"] == f"ProbeC: NP2000 (serial {nwbfile.devices['NeuropixelsProbeC'].serial_number})"
    assert nwbfile.session_start_time == datetime.fromisoformat(facts["session_start_time"]).replace(
        tzinfo=ZoneInfo(TIMEZONE)
    )


def test_the_lf_band_alone_converts(tmp_path: Path, read_nwb: Any, ap_lf_upload: Path) -> None:
    from spikeinterface.extractors import read_spikeglx

    detection = detect_format(ap_lf_upload)
    facts = facts_for_streams(detection, ["imec0.lf"])

    nwbfile = read_nwb(_convert(ap_lf_upload, detection, tmp_path / "lf.nwb", stream_ids=["imec0.lf"]))

    (series,) = nwbfile.acquisition.values()
    source = read_spikeglx(next(ap_lf_upload.iterdir()), stream_id="imec0.lf")
    assert series.data.shape == (source.get_num_samples(), facts["channel_count"])
    assert series.rate == source.get_sampling_frequency() == facts["sampling_rate_hz"]
    assert len(nwbfile.electrodes) == facts["channel_count"]


def test_intan_inputs_without_the_amplifier_channels(tmp_path: Path, read_nwb: Any) -> None:
    from spikeinterface.extractors import read_intan

    root = real_recording("intan")
    detection = detect_format(root)
    chosen = ["auxiliary", "supply_voltage"]
    facts = facts_for_streams(detection, chosen)

    output = _convert(
        root, detection, tmp_path / "inputs.nwb", stream_ids=chosen, metadata={"session_start_time": "2024-03-15T14:30"}
    )

    nwbfile = read_nwb(output)
    assert len(nwbfile.acquisition) == 2 and len(nwbfile.electrodes or []) == 0
    by_rate = {series.rate: series for series in nwbfile.acquisition.values()}
    for stream_name in ("RHD2000 auxiliary input channel", "RHD2000 supply voltage channel"):
        source = read_intan(root / "example_intan_file.rhd", stream_name=stream_name)
        series = by_rate[source.get_sampling_frequency()]
        assert series.data.shape == (source.get_num_samples(), source.get_num_channels())
    assert sum(series.data.shape[1] for series in by_rate.values()) == facts["channel_count"]
    assert max(by_rate) == facts["sampling_rate_hz"]


# The reader notices the other file beside each: it may be a part of the same recording, not here.
@pytest.mark.filterwarnings("ignore:IntanRecordingInterface. detected 1 other .rhd file")
def test_files_read_by_a_chosen_interface_are_separate_recordings(tmp_path: Path, read_nwb: Any) -> None:
    upload = tmp_path / "upload"
    upload.mkdir()
    for name in ("a.rhd", "b.rhd"):
        (upload / name).symlink_to(real_recording("intan/example_intan_file.rhd"))

    detection = detect_format(upload, format_key="neuroconv:IntanRecordingInterface")

    assert [(stream.id, stream.kind, stream.group) for stream in detection.streams] == [
        ("a.rhd", "neural", "a.rhd"),
        ("b.rhd", "neural", "b.rhd"),
    ]
    assert detection.default_streams == ("a.rhd",)
    assert facts_for_streams(detection, []) == {key: detection.file_metadata[key] for key in FACT_KEYS}
    assert _refusal(detection, ["a.rhd", "b.rhd"]) == (
        "The chosen streams come from different files (a.rhd and b.rhd). The files were read as separate "
        "recordings, each with its own start time and clock, so one NWB file cannot hold them together. Choose the "
        "streams of one file only (for example those of a.rhd), and convert each other file into its own NWB file."
    )
    facts = facts_for_streams(detection, ["b.rhd"])
    output = _convert(
        upload, detection, tmp_path / "b.nwb", stream_ids=["b.rhd"], metadata={"session_start_time": "2024-03-15T14:30"}
    )
    (series,) = read_nwb(output).acquisition.values()
    assert series.data.shape == (round(facts["duration_s"] * facts["sampling_rate_hz"]), facts["channel_count"])

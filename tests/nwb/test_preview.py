"""describe_nwb and describe_in_words: the preview card's account of an NWB file, read from the
file's structure and metadata, never from its recorded samples.

Files are built with pynwb in tmp_path; the real SpikeGLX and ABF recordings are converted once per
module with the portal's own conversion.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import h5py
import numpy as np
import pytest
from hdmf.common import DynamicTable
from pynwb import NWBHDF5IO, NWBFile, TimeSeries
from pynwb.ecephys import LFP, ElectricalSeries
from pynwb.file import Subject
from pynwb.icephys import CurrentClampSeries, CurrentClampStimulusSeries

from conversions.nwb.detection import detect_format
from conversions.nwb.preview import describe_in_words, describe_nwb

from .conftest import bytes_read_during, convert_upload, real_recording

START = datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Paris"))
METADATA = {
    "experimenter": ["Smith, Jane", "Lee, Bob"],
    "institution": "MIT",
    "lab": "Smith Lab",
    "experiment_description": "Noise recorded to test the preview.",
    "session_description": "Day 3, passive viewing.",
    "keywords": "V1, Neuropixels",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
    "strain": "C57BL/6J",
}
# The real SpikeGLX .meta states the size of the recording it was cut from: 121,625,350 bytes of
# 385 int16 channels at 30 kHz.
SPIKEGLX_FULL_S = 121_625_350 / (385 * 2) / 30_000


def _nwbfile(**fields: Any) -> NWBFile:
    return NWBFile(
        **{
            "session_description": "Day 3, passive viewing.",
            "identifier": "preview-test-1",
            "session_start_time": START,
            **fields,
        }
    )


def _write(nwbfile: NWBFile, path: Path) -> Path:
    with NWBHDF5IO(str(path), "w") as io:
        io.write(nwbfile)
    return path


def _with_electrodes(nwbfile: NWBFile, count: int) -> None:
    model = nwbfile.create_device_model(name="NP1", manufacturer="imec", model_number="PRB_1_4_0480_1")
    device = nwbfile.create_device(name="Probe0", description="Neuropixels 1.0 probe", model=model)
    group = nwbfile.create_electrode_group(name="shank0", description="the only shank", location="CA1", device=device)
    for _ in range(count):
        nwbfile.add_electrode(group=group, location="CA1")


def _ecephys_file(path: Path) -> Path:
    nwbfile = _nwbfile(
        session_id="day3",
        experiment_description="Noise recorded to test the preview.",
        experimenter=["Smith, Jane", "Lee, Bob"],
        institution="MIT",
        lab="Smith Lab",
        keywords=["V1", "Neuropixels"],
        subject=Subject(
            subject_id="mouse001",
            species="Mus musculus",
            sex="F",
            age="P90D",
            date_of_birth=datetime(2023, 12, 16, tzinfo=ZoneInfo("Europe/Paris")),
            strain="C57BL/6J",
            description="head-fixed",
        ),
    )
    _with_electrodes(nwbfile, 4)
    nwbfile.add_acquisition(
        ElectricalSeries(
            name="ElectricalSeriesAP",
            data=np.arange(1200, dtype=np.int16).reshape(300, 4),
            electrodes=nwbfile.create_electrode_table_region(list(range(4)), "all four"),
            rate=30_000.0,
            starting_time=2.5,
        )
    )
    return _write(nwbfile, path)


def _series(summary: dict[str, Any], path: str) -> dict[str, Any]:
    objects = summary["acquisition"] + summary["stimulus"] + summary["processing"]
    return next(entry for entry in objects if entry["path"] == path)


# --- what the summary holds ------------------------------------------------------------------------


def test_an_ecephys_file_is_described_in_full(tmp_path: Path) -> None:
    path = _ecephys_file(tmp_path / "ecephys.nwb")

    summary = describe_nwb(path)

    assert summary["session"] == {
        "identifier": "preview-test-1",
        "session_id": "day3",
        "session_start_time": "2024-03-15T14:30:00+01:00",
        "session_description": "Day 3, passive viewing.",
        "experiment_description": "Noise recorded to test the preview.",
        "experimenter": ["Smith, Jane", "Lee, Bob"],
        "institution": "MIT",
        "lab": "Smith Lab",
        "keywords": ["V1", "Neuropixels"],
    }
    assert summary["subject"] == {
        "subject_id": "mouse001",
        "species": "Mus musculus",
        "sex": "F",
        "age": "P90D",
        "date_of_birth": "2023-12-16T00:00:00+01:00",
        "strain": "C57BL/6J",
        "description": "head-fixed",
    }
    assert summary["devices"] == [
        {
            "name": "Probe0",
            "description": "Neuropixels 1.0 probe",
            "manufacturer": "imec",
            "model": "PRB_1_4_0480_1",
        }
    ]
    assert summary["electrode_groups"] == [
        {"name": "shank0", "description": "the only shank", "location": "CA1", "device": "Probe0"}
    ]
    assert summary["electrodes"] == {"rows": 4, "columns": ["location", "group", "group_name"]}
    assert summary["acquisition"] == [
        {
            "path": "acquisition/ElectricalSeriesAP",
            "type": "ElectricalSeries",
            "shape": [300, 4],
            "rate": 30000.0,
            "unit": "volts",
            "starting_time": 2.5,
            "duration_s": 0.01,
            "dtype": "int16",
            "electrodes": 4,
        }
    ]
    assert (summary["stimulus"], summary["processing"], summary["units"], summary["icephys"]) == ([], [], None, None)
    assert summary["file_size_bytes"] == path.stat().st_size
    assert json.loads(json.dumps(summary)) == summary


def test_the_words_say_channels_rate_length_devices_electrodes_subject_and_metadata(tmp_path: Path) -> None:
    summary = describe_nwb(_ecephys_file(tmp_path / "ecephys.nwb"))

    words = describe_in_words(summary, full_duration_s=600.0)

    lines = words.splitlines()
    assert all(line.startswith("• ") for line in lines)
    assert len(lines) <= 10
    assert (
        "• ElectricalSeriesAP (ElectricalSeries): 4 channels at 30 kHz, 300 samples (10.0 ms), int16 in volts" in lines
    )
    assert "• This preview holds 10.0 ms; the full recording is 10.0 min" in lines
    assert "• Devices: Probe0 (imec PRB_1_4_0480_1)" in lines
    assert "• Electrodes: 4 in 1 group: shank0 (location: CA1)" in lines
    assert (
        "• Subject: mouse001, Mus musculus, sex F, age P90D, born 2023-12-16T00:00:00+01:00, strain C57BL/6J" in lines
    )
    assert "• Session started 2024-03-15T14:30:00+01:00: Day 3, passive viewing." in lines
    assert (
        "• Experimenter: Smith, Jane and Lee, Bob; Institution: MIT; Lab: Smith Lab; Keywords: V1, Neuropixels" in lines
    )
    assert "• Experiment: Noise recorded to test the preview." in lines
    assert "Not set" not in words


def test_without_a_subject_or_attribution_the_words_say_what_is_not_set(tmp_path: Path) -> None:
    nwbfile = _nwbfile()
    nwbfile.add_acquisition(TimeSeries(name="pressure", data=np.zeros(50), unit="Pa", rate=10.0))
    summary = describe_nwb(_write(nwbfile, tmp_path / "bare.nwb"))

    words = describe_in_words(summary)

    assert summary["subject"] is None
    assert summary["session"]["experimenter"] == [] and summary["session"]["institution"] is None
    assert "• Subject: not set" in words
    assert "• Not set: experimenter, institution, experiment description" in words
    assert "• This preview holds 5.0 s" in words.splitlines()
    assert "• pressure (TimeSeries): 1 channel at 10 Hz, 50 samples (5.0 s), float64 in Pa" in words


def test_patch_clamp_series_stimuli_and_sweeps(tmp_path: Path) -> None:
    nwbfile = _nwbfile()
    amplifier = nwbfile.create_device(name="Amplifier", description="MultiClamp 700B")
    electrode = nwbfile.create_icephys_electrode(name="pipette", description="whole cell", device=amplifier)
    for sweep in range(3):
        response = CurrentClampSeries(
            name=f"response{sweep}",
            data=np.zeros(2000, dtype=np.float32),
            electrode=electrode,
            gain=0.02,
            rate=20_000.0,
            starting_time=sweep * 1.0,
            sweep_number=np.uint64(sweep),
        )
        stimulus = CurrentClampStimulusSeries(
            name=f"stimulus{sweep}",
            data=np.zeros(2000, dtype=np.float32),
            electrode=electrode,
            gain=1.0,
            rate=20_000.0,
            starting_time=sweep * 1.0,
            sweep_number=np.uint64(sweep),
        )
        nwbfile.add_acquisition(response)
        nwbfile.add_stimulus(stimulus)
        nwbfile.add_intracellular_recording(electrode=electrode, stimulus=stimulus, response=response)

    summary = describe_nwb(_write(nwbfile, tmp_path / "icephys.nwb"))

    assert summary["icephys"] == {"electrodes": 1, "sweeps": 3, "intracellular_recordings": 3}
    assert [entry["path"] for entry in summary["acquisition"]] == [f"acquisition/response{n}" for n in range(3)]
    assert [entry["path"] for entry in summary["stimulus"]] == [f"stimulus/presentation/stimulus{n}" for n in range(3)]
    assert _series(summary, "acquisition/response2") == {
        "path": "acquisition/response2",
        "type": "CurrentClampSeries",
        "shape": [2000],
        "rate": 20000.0,
        "unit": "volts",
        "starting_time": 2.0,
        "duration_s": 0.1,
        "dtype": "float32",
    }
    assert _series(summary, "stimulus/presentation/stimulus0")["type"] == "CurrentClampStimulusSeries"
    assert _series(summary, "stimulus/presentation/stimulus0")["unit"] == "amperes"
    assert "• Patch clamp: 1 electrode, 3 sweeps, 3 recordings" in describe_in_words(summary)


def test_a_units_table_is_counted_with_its_columns(tmp_path: Path) -> None:
    nwbfile = _nwbfile()
    nwbfile.add_unit_column(name="quality", description="curation label")
    for spikes, quality in (([0.1, 0.5], "good"), ([0.2], "mua"), ([0.3, 0.4, 0.9], "good")):
        nwbfile.add_unit(spike_times=spikes, quality=quality)

    summary = describe_nwb(_write(nwbfile, tmp_path / "units.nwb"))

    assert summary["units"] == {"count": 3, "columns": ["quality", "spike_times"]}
    assert summary["acquisition"] == [] and summary["electrodes"] is None
    assert "• Units: 3 sorted units" in describe_in_words(summary)
    assert "• No recorded series" in describe_in_words(summary)


def test_processing_modules_are_walked_to_their_series_and_tables(tmp_path: Path) -> None:
    nwbfile = _nwbfile()
    _with_electrodes(nwbfile, 4)
    lfp = LFP()
    nwbfile.create_processing_module(name="ecephys", description="LFP").add(lfp)
    lfp.add_electrical_series(
        ElectricalSeries(
            name="ElectricalSeriesLFP",
            data=np.zeros((1000, 4), dtype=np.float32),
            electrodes=nwbfile.create_electrode_table_region([0, 1, 2, 3], "all four"),
            rate=1000.0,
        )
    )
    behavior = nwbfile.create_processing_module(name="behavior", description="running")
    behavior.add(TimeSeries(name="speed", data=np.ones(50), unit="m/s", timestamps=1.0 + np.arange(50) * 0.1))
    trials = DynamicTable(name="laps", description="laps run")
    trials.add_column(name="length", description="in m")
    for length in (1.0, 2.0):
        trials.add_row(length=length)
    behavior.add(trials)

    summary = describe_nwb(_write(nwbfile, tmp_path / "lfp.nwb"))

    assert summary["processing"] == [
        {
            "path": "processing/behavior/laps",
            "type": "DynamicTable",
            "rows": 2,
            "columns": ["length"],
        },
        {
            "path": "processing/behavior/speed",
            "type": "TimeSeries",
            "shape": [50],
            "rate": None,
            "unit": "m/s",
            "starting_time": 1.0,
            "duration_s": pytest.approx(4.9),
            "dtype": "float64",
        },
        {
            "path": "processing/ecephys/LFP/ElectricalSeriesLFP",
            "type": "ElectricalSeries",
            "shape": [1000, 4],
            "rate": 1000.0,
            "unit": "volts",
            "starting_time": 0.0,
            "duration_s": 1.0,
            "dtype": "float32",
            "electrodes": 4,
        },
    ]
    words = describe_in_words(summary)
    assert "• ElectricalSeriesLFP (ElectricalSeries): 4 channels at 1 kHz, 1,000 samples (1.0 s)" in words
    assert "• speed (TimeSeries): 1 channel timed by timestamps, 50 samples spanning 4.9 s" in words
    assert "• This preview holds 4.9 s" in words.splitlines()  # the longest series


# --- real recordings converted by the portal -------------------------------------------------------


@pytest.fixture(scope="module")
def spikeglx_nwb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = real_recording("spikeglx/Noise4Sam_g0")
    output = tmp_path_factory.mktemp("spikeglx") / "session.nwb"
    return convert_upload(root, detect_format(root), output, {"metadata": METADATA, "timezone": "Europe/Paris"})


def test_a_real_spikeglx_conversion_is_described(spikeglx_nwb: Path) -> None:
    summary = describe_nwb(spikeglx_nwb)

    assert summary["acquisition"] == [
        {
            "path": "acquisition/ElectricalSeriesAP",
            "type": "ElectricalSeries",
            "shape": [1155, 384],  # the SYNC channel is not converted
            "rate": 30000.0,
            "unit": "volts",
            "starting_time": pytest.approx(5.9128333),
            "duration_s": pytest.approx(0.0385),
            "dtype": "int16",
            "electrodes": 384,
        }
    ]
    assert summary["electrodes"]["rows"] == 384
    assert {"location", "group", "group_name", "channel_name"} <= set(summary["electrodes"]["columns"])
    assert [(device["name"], device["manufacturer"]) for device in summary["devices"]] == [("NeuropixelsImec0", "imec")]
    assert [group["device"] for group in summary["electrode_groups"]] == ["NeuropixelsImec0"]
    # The .meta's naive start time, read in the zone the conversion was given.
    assert summary["session"]["session_start_time"] == "2020-11-03T10:35:10+01:00"
    assert summary["session"]["experimenter"] == ["Smith, Jane", "Lee, Bob"]
    assert summary["session"]["keywords"] == ["V1", "Neuropixels"]
    assert summary["subject"] is not None
    assert (summary["subject"]["subject_id"], summary["subject"]["species"], summary["subject"]["strain"]) == (
        "mouse001",
        "Mus musculus",
        "C57BL/6J",
    )
    assert summary["file_size_bytes"] == spikeglx_nwb.stat().st_size


def test_the_words_for_a_real_spikeglx_conversion(spikeglx_nwb: Path) -> None:
    words = describe_in_words(describe_nwb(spikeglx_nwb), full_duration_s=SPIKEGLX_FULL_S)

    assert words.startswith(
        "• ElectricalSeriesAP (ElectricalSeries): 384 channels at 30 kHz, 1,155 samples (38.5 ms), int16 in volts\n"
    )
    assert "• This preview holds 38.5 ms; the full recording is 5.3 s" in words
    assert "• Devices: NeuropixelsImec0 (imec PRB_1_4_0480_1)" in words
    assert "• Electrodes: 384 in 1 group: NeuropixelsImec0" in words
    assert "• Subject: mouse001, Mus musculus, sex F, age P90D, strain C57BL/6J" in words
    assert "• Session started 2020-11-03T10:35:10+01:00: Day 3, passive viewing." in words


def test_a_real_abf_conversion_counts_sweeps_from_the_icephys_tables(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    (root / "05210017_vc_abf1.abf").symlink_to(real_recording("abf/05210017_vc_abf1.abf"))
    output = convert_upload(root, detect_format(root), tmp_path / "abf.nwb", {"metadata": {}, "timezone": "UTC"})

    summary = describe_nwb(output)

    # 2 channels x 6 sweeps of 3 s at 20 kHz, one series per channel timed by timestamps; sweeps 60 s apart.
    assert summary["icephys"] == {"electrodes": 2, "sweeps": 6, "intracellular_recordings": 12}
    assert [(entry["type"], entry["shape"], entry["rate"]) for entry in summary["acquisition"]] == [
        ("VoltageClampSeries", [360_000], None)
    ] * 2
    assert [entry["duration_s"] for entry in summary["acquisition"]] == [pytest.approx(303.0, abs=1e-3)] * 2
    assert "• Patch clamp: 2 electrodes, 6 sweeps, 12 recordings" in describe_in_words(summary)


# --- what cannot be read --------------------------------------------------------------------------


def _series_without_timing(path: Path) -> None:
    """An NWB file whose one series has neither a rate nor timestamps: pynwb refuses the whole file."""
    nwbfile = _nwbfile()
    nwbfile.add_acquisition(TimeSeries(name="pressure", data=np.zeros(5), unit="Pa", rate=10.0))
    _write(nwbfile, path)
    with h5py.File(path, "a") as file:
        del file["acquisition/pressure/starting_time"]


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda path: path.write_text("channel,value\n1,2\n"), r"^notes\.nwb is not an NWB file: it is not in HDF5"),
        (
            lambda path: h5py.File(path, "w").close(),
            r"^notes\.nwb cannot be read as an NWB file: .*Missing NWB version",
        ),
        (
            _series_without_timing,
            r"^notes\.nwb cannot be read as an NWB file: root/acquisition/pressure: .*either 'timestamps' or 'rate'",
        ),
        (lambda path: None, r"^notes\.nwb cannot be previewed: the file does not exist"),
    ],
    ids=["text", "plain-hdf5", "series-without-timing", "missing"],
)
def test_a_file_that_is_not_nwb_is_refused_with_a_clear_message(
    tmp_path: Path, make: Callable[[Path], None], message: str
) -> None:
    path = tmp_path / "notes.nwb"
    make(path)

    with pytest.raises(ValueError, match=message) as caught:
        describe_nwb(path)

    assert "GroupBuilder" not in str(caught.value)


@pytest.mark.filterwarnings("ignore::hdmf.backends.warnings.BrokenLinkWarning")  # pynwb's own note on the link
def test_an_object_that_cannot_be_described_is_named_and_the_rest_still_described(tmp_path: Path) -> None:
    nwbfile = _nwbfile()
    for name in ("kept", "linked"):
        nwbfile.add_acquisition(TimeSeries(name=name, data=np.zeros((20, 2)), unit="V", rate=10.0))
    path = _write(nwbfile, tmp_path / "links.nwb")
    # A series whose data lives in another file that was not uploaded with this one.
    with h5py.File(path, "a") as file:
        del file["acquisition/linked/data"]
        file["acquisition/linked/data"] = h5py.ExternalLink("raw_data.h5", "/samples")

    summary = describe_nwb(path)

    assert summary["acquisition"][0]["path"] == "acquisition/kept"
    assert summary["acquisition"][0]["shape"] == [20, 2]
    assert summary["acquisition"][1] == {
        "path": "acquisition/linked",
        "unreadable": "its data is a link to /samples in raw_data.h5, which cannot be opened here",
    }
    words = describe_in_words(summary)
    assert "• kept (TimeSeries): 2 channels at 10 Hz" in words
    assert "• Could not be described: acquisition/linked (its data is a link to /samples in raw_data.h5" in words


# --- the data stays unread ------------------------------------------------------------------------

_40_GB_SAMPLES = 52_083_334  # x 384 int16 channels = 40 GB


@pytest.fixture
def dataset_reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the datasets of over a million elements read through h5py during the test; each
    such read also fails."""
    reads: list[str] = []

    def guarded(method: Callable[..., Any]) -> Callable[..., Any]:
        def read(self: h5py.Dataset, *args: Any, **kwargs: Any) -> Any:
            if self.size > 1_000_000:
                reads.append(self.name)
                raise AssertionError(f"{self.name} was read")
            return method(self, *args, **kwargs)

        return read

    for name in ("__getitem__", "read_direct", "__array__"):
        monkeypatch.setattr(h5py.Dataset, name, guarded(getattr(h5py.Dataset, name)))
    return reads


def test_a_40_gb_recording_is_described_from_its_shape_in_well_under_a_second(
    tmp_path: Path, dataset_reads: list[str]
) -> None:
    path = _ecephys_file(tmp_path / "huge.nwb")
    # The same series declared at 40 GB: HDF5 allocates no chunk until one is written, so the file
    # stays small while any read of the data would have to produce 40 GB.
    with h5py.File(path, "a") as file:
        attributes = dict(file["acquisition/ElectricalSeriesAP/data"].attrs)
        del file["acquisition/ElectricalSeriesAP/data"]
        data = file.create_dataset(
            "acquisition/ElectricalSeriesAP/data", shape=(_40_GB_SAMPLES, 4), dtype="int16", chunks=(65_536, 4)
        )
        data.attrs.update(attributes)
    summary = describe_nwb(path)

    assert dataset_reads == []
    series = summary["acquisition"][0]
    assert (series["shape"], series["rate"]) == ([_40_GB_SAMPLES, 4], 30000.0)
    assert series["duration_s"] == pytest.approx(_40_GB_SAMPLES / 30_000)


def test_describing_reads_none_of_the_recorded_samples(tmp_path: Path) -> None:
    """On disk for real (unlike the unallocated 40 GB): 20 MB of noise and 8 MB of timestamps."""
    rng = np.random.default_rng(0)
    nwbfile = _nwbfile()
    _with_electrodes(nwbfile, 32)
    nwbfile.add_acquisition(
        ElectricalSeries(
            name="ElectricalSeries",
            data=rng.integers(-2000, 2000, size=(312_500, 32), dtype=np.int16),
            electrodes=nwbfile.create_electrode_table_region(list(range(32)), "all"),
            rate=30_000.0,
        )
    )
    nwbfile.add_acquisition(
        TimeSeries(name="events", data=np.ones(1_000_000, dtype=np.int8), unit="n.a.", timestamps=np.arange(1e6) / 1e3)
    )
    path = _write(nwbfile, tmp_path / "noise.nwb")
    describe_nwb(path)  # imports read source files: not counted

    summary, read = bytes_read_during(lambda: describe_nwb(path))

    assert _series(summary, "acquisition/events")["duration_s"] == pytest.approx(999.999)
    assert path.stat().st_size > 29_000_000
    assert read < 2_000_000, f"{read:,} bytes read to describe a {path.stat().st_size:,}-byte file"

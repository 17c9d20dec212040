"""The tree and the plot of converted files: real recordings converted with real neuroconv, then
what is listed and drawn checked against the file as h5py reads it."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest
from pynwb import NWBHDF5IO, NWBFile

from conversions.nwb.detection import detect_format
from conversions.nwb.plot import MAX_CHANNELS, NothingToPlot, plot_nwb
from conversions.nwb.tree import UnreadableFile, nwb_tree

from .conftest import bytes_read_during, convert_upload, real_recording

SVG = "{http://www.w3.org/2000/svg}"
ABF1 = "05210017_vc_abf1.abf"
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Recordings to test the tree and the plot.",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
}


def _convert(root: Path, output: Path) -> Path:
    return convert_upload(root, detect_format(root), output, {"metadata": METADATA, "timezone": "Europe/Paris"})


@pytest.fixture(scope="module")
def ecephys_nwb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real Noise4Sam SpikeGLX recording (384 channels, 1,155 samples) as NWB."""
    folder = real_recording("spikeglx/Noise4Sam_g0")
    return _convert(folder, tmp_path_factory.mktemp("ecephys") / "noise4sam.nwb")


@pytest.fixture(scope="module")
def icephys_nwb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real ABF1 patch-clamp file (2 channels, 6 sweeps of 3 s at 20 kHz) as NWB."""
    root = tmp_path_factory.mktemp("icephys")
    (root / ABF1).symlink_to(real_recording(f"abf/{ABF1}"))
    return _convert(root, root.parent / "abf1.nwb")


def _child(node: dict[str, Any], *names: str) -> dict[str, Any]:
    for name in names:
        node = next(child for child in node["children"] if child["name"] == name)
    return node


def _lanes(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root.findall(f".//{SVG}g[@class='lane']")


def _plot_area(svg: str) -> ET.Element:
    area = ET.fromstring(svg).find(f".//{SVG}g[@class='plot']")
    assert area is not None
    return area


def _points(path: ET.Element) -> np.ndarray:
    return np.array([[float(x), float(y)] for x, y in re.findall(r"[ML](-?[\d.]+),(-?[\d.]+)", path.get("d", ""))])


def _to_values(lane: ET.Element, area: ET.Element, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The (time, value) each drawn point stands for, from the mapping the SVG states."""
    y_top, y_bottom = float(lane.get("data-y-top", "")), float(lane.get("data-y-bottom", ""))
    v_top, v_bottom = float(lane.get("data-value-top", "")), float(lane.get("data-value-bottom", ""))
    x_left, x_right = float(area.get("data-x-left", "")), float(area.get("data-x-right", ""))
    t_left, t_right = float(area.get("data-t-left", "")), float(area.get("data-t-right", ""))
    times = t_left + (points[:, 0] - x_left) / (x_right - x_left) * (t_right - t_left)
    values = v_bottom + (y_bottom - points[:, 1]) / (y_bottom - y_top) * (v_top - v_bottom)
    return times, values


def _value_per_pixel(lane: ET.Element) -> float:
    spread = float(lane.get("data-value-top", "")) - float(lane.get("data-value-bottom", ""))
    return spread / (float(lane.get("data-y-bottom", "")) - float(lane.get("data-y-top", "")))


# --- the tree ----------------------------------------------------------------------------------------


def test_the_tree_lists_the_electrical_series_as_written(ecephys_nwb: Path) -> None:
    tree = nwb_tree(ecephys_nwb)

    series = _child(tree["root"], "acquisition", "ElectricalSeriesAP")
    data = _child(series, "data")
    with h5py.File(ecephys_nwb) as h5file:
        written = h5file["acquisition/ElectricalSeriesAP/data"]
        assert data["shape"] == list(written.shape) == [1155, 384]
        assert data["dtype"] == "int16" and data["compression"] == written.compression == "gzip"
        assert data["conversion"] == pytest.approx(float(written.attrs["conversion"]))
    assert series["neurodata_type"] == "ElectricalSeries"
    assert data["unit"] == series["series"]["unit"] == "volts"
    assert series["series"]["rate"] == 30000.0
    assert series["series"]["conversion"] == data["conversion"]
    assert _child(tree["root"], "general", "subject", "species")["value"] == "Mus musculus"
    assert _child(tree["root"], "general", "experimenter")["value"] == ["Smith, Jane"]
    schema = _child(tree["root"], "specifications")
    assert schema["children"] == [] and schema["more"] > 0, "the cached schema is named, not listed"
    assert tree["truncated"] is False and tree["file_size_bytes"] == ecephys_nwb.stat().st_size


def test_the_tree_lists_patch_clamp_series_timed_by_timestamps(icephys_nwb: Path) -> None:
    acquisition = _child(nwb_tree(icephys_nwb)["root"], "acquisition")

    names = sorted(child["name"] for child in acquisition["children"])
    assert names == ["VoltageClampSeries05210017VcAbf1Current1", "VoltageClampSeries05210017VcAbf1Voltage0"]
    series = _child(acquisition, names[0])
    assert series["neurodata_type"] == "VoltageClampSeries"
    assert series["series"]["unit"] == "amperes"
    assert series["series"]["rate"] is None and series["series"]["timestamps"] == 6 * 60000
    assert _child(series, "data")["shape"] == [6 * 60000]


def test_a_tree_is_bounded(ecephys_nwb: Path) -> None:
    tree = nwb_tree(ecephys_nwb, max_nodes=12, max_children=3)

    def count(node: dict[str, Any]) -> int:
        return 1 + sum(count(child) for child in node.get("children", ()))

    assert tree["truncated"] is True
    assert count(tree["root"]) == tree["nodes"] <= 12
    assert tree["root"]["more"] > 0, "the root's children past the third are counted, not listed"


def test_a_file_that_is_not_hdf5_is_refused_in_words(tmp_path: Path) -> None:
    text = tmp_path / "notes.nwb"
    text.write_text("not an NWB file")

    with pytest.raises(UnreadableFile, match=r"notes\.nwb cannot be opened as an NWB"):
        nwb_tree(text)
    with pytest.raises(UnreadableFile, match=r"missing\.nwb does not exist"):
        plot_nwb(tmp_path / "missing.nwb")


# --- the plot -----------------------------------------------------------------------------------------


def test_the_plot_draws_the_first_channels_sample_for_sample(ecephys_nwb: Path) -> None:
    svg = plot_nwb(ecephys_nwb)

    lanes = _lanes(svg)
    area = _plot_area(svg)
    assert len(lanes) == MAX_CHANNELS
    with h5py.File(ecephys_nwb) as h5file:
        dataset = h5file["acquisition/ElectricalSeriesAP/data"]
        conversion, offset = float(dataset.attrs["conversion"]), float(dataset.attrs["offset"])
        data = dataset[:, :MAX_CHANNELS] * conversion + offset
        names = [name.decode() for name in h5file["general/extracellular_ephys/electrodes/channel_name"][:8]]
        start = float(h5file["acquisition/ElectricalSeriesAP/starting_time"][()])
    assert [lane.get("data-channel") for lane in lanes] == names == [f"AP{i}" for i in range(8)]
    for channel, lane in enumerate(lanes):
        assert lane.get("data-unit") == "volts"
        (path,) = lane.findall(f"{SVG}path")
        points = _points(path)
        # 38.5 ms fit in the plot's columns: one point per sample, none dropped.
        assert len(points) == data.shape[0] == 1155
        times, values = _to_values(lane, area, points)
        tolerance = 0.01 * _value_per_pixel(lane)  # coordinates are written to 0.01 px
        for sample in (0, 1, 400, 777, 1154):
            assert values[sample] == pytest.approx(data[sample, channel], abs=tolerance)
            assert times[sample] == pytest.approx(start + sample / 30000.0, abs=1e-5)
        assert float(lane.get("data-value-top", "")) == pytest.approx(data[:, channel].max())
    assert "µV" in svg, "values are labelled in a unit that suits them"


def test_another_series_and_channels_can_be_asked_for(ecephys_nwb: Path) -> None:
    svg = plot_nwb(ecephys_nwb, series="acquisition/ElectricalSeriesAP", first_channel=380)

    assert [lane.get("data-channel") for lane in _lanes(svg)] == ["AP380", "AP381", "AP382", "AP383"]
    with pytest.raises(NothingToPlot, match="no series at “acquisition/Nothing”"):
        plot_nwb(ecephys_nwb, series="acquisition/Nothing")


def test_the_plot_of_a_patch_clamp_file_is_its_first_sweep(icephys_nwb: Path) -> None:
    svg = plot_nwb(icephys_nwb)

    lanes = _lanes(svg)
    area = _plot_area(svg)
    with h5py.File(icephys_nwb) as h5file:
        table = h5file["general/intracellular_ephys/intracellular_recordings"]
        rows = h5file["general/intracellular_ephys/simultaneous_recordings/recordings"][:2]
        responses = [table["responses/response"][row] for row in rows]
        expected = []
        for start, count, reference in responses:
            series = h5file[reference]
            values = series["data"][start : start + count] * float(series["data"].attrs["conversion"])
            expected.append((series.name.rsplit("/", 1)[-1], values, series["timestamps"][start : start + count]))
        assert all(start < 0 for start, _, _ in (table["stimuli/stimulus"][row] for row in rows)), "no stimulus"
    assert [lane.get("data-channel") for lane in lanes] == [name for name, _, _ in expected]
    for lane, (_, values, times) in zip(lanes, expected, strict=True):
        assert lane.get("data-unit") == "amperes"
        (path,) = lane.findall(f"{SVG}path")
        drawn_times, drawn = _to_values(lane, area, _points(path))
        tolerance = 0.01 * _value_per_pixel(lane)
        # 60,000 samples in ~750 columns: each column's minimum and maximum, so the extremes survive.
        assert len(drawn) < len(values)
        assert drawn.max() == pytest.approx(values.max(), abs=tolerance)
        assert drawn.min() == pytest.approx(values.min(), abs=tolerance)
        assert drawn_times.min() >= times[0] - 1e-3 and drawn_times.max() <= times[-1] + 1e-3
        # Every drawn value is one the sweep holds near that time.
        for when, value in list(zip(drawn_times, drawn, strict=True))[::97]:
            near = values[np.abs(times - when) <= 3.0 / 750]
            assert near.min() - tolerance <= value <= near.max() + tolerance
    assert "response" in svg and "pA" in svg


def test_a_long_recording_is_read_only_where_it_is_plotted(long_upload: Path, tmp_path: Path) -> None:
    nwb = _convert(long_upload, tmp_path / "long.nwb")
    plot_nwb(nwb, seconds=0.1)  # the first call imports what it needs; only the second is measured

    svg, read = bytes_read_during(lambda: plot_nwb(nwb, seconds=0.1))

    assert len(_lanes(svg)) == MAX_CHANNELS
    assert read < nwb.stat().st_size / 4, f"{read:,} bytes read of a {nwb.stat().st_size:,}-byte file"


def test_a_file_without_signals_says_there_is_nothing_to_plot(tmp_path: Path) -> None:
    nwbfile = NWBFile(
        session_description="sorted units only",
        identifier="units-only",
        session_start_time=datetime(2024, 3, 15, 14, 30).astimezone(),
    )
    nwbfile.add_unit(spike_times=[0.1, 0.2, 0.3])
    path = tmp_path / "units.nwb"
    with NWBHDF5IO(str(path), "w") as io:
        io.write(nwbfile)

    with pytest.raises(NothingToPlot, match="no recorded signal to plot"):
        plot_nwb(path)
    assert _child(nwb_tree(path)["root"], "units")["neurodata_type"] == "Units"

"""The recording's own fields (location, cell id, slice id) land on the electrodes, where NWB has a place.

A location goes on every electrode group and into the electrodes table for extracellular recordings,
and on the patch-clamp electrode with its cell and slice; a location the recording states is kept.
Real recordings from ../shared/data/real/, the smallest there: SpikeGLX (38.5 ms) and pCLAMP 11 (60 kB).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import h5py
import pytest

from conversions.nwb.conversion import _electrode_recordings, _locate_channels, _neuroconv_metadata
from conversions.nwb.detection import detect_format, format_handler
from conversions.nwb.validation import Outcome, action_for, explain, fields_for, fields_to_ask, inspect_nwb, outcome_of

from .conftest import convert_upload, real_recording

SPIKEGLX = "spikeglx/Noise4Sam_g0"
PCLAMP11 = "2018_12_09_pCLAMP11_0001.abf"
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Recordings to test the portal.",
    "keywords": "test",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
}
RECORDING_FIELDS = {"location": "CA1", "cell_id": "c3", "slice_id": "S2"}
# The writers and the preview: each must carry the same values.
WAYS = [
    pytest.param({"writer": "fast"}, id="fast"),
    pytest.param({"writer": "neuroconv"}, id="neuroconv"),
    pytest.param({"writer": "fast", "stub": True}, id="preview"),
]


def _abf_upload(tmp_path: Path) -> Path:
    root = tmp_path / "upload"
    root.mkdir()
    (root / PCLAMP11).symlink_to(real_recording(f"abf/{PCLAMP11}"))
    return root


def _convert(root: Path, output: Path, metadata: dict[str, Any], **overrides: Any) -> Path:
    return convert_upload(
        root, detect_format(root), output, {"metadata": metadata, "timezone": "Europe/Paris"}, **overrides
    )


def _names_in(path: Path) -> list[str]:
    names: list[str] = []
    with h5py.File(path, "r") as file:
        file.visit(names.append)
    return names


# --- where the values go ---------------------------------------------------------------------------


@pytest.mark.parametrize("way", WAYS)
def test_a_spikeglx_recording_has_the_location_in_its_groups_and_electrodes(
    tmp_path: Path, read_nwb: Any, way: dict[str, Any]
) -> None:
    output = _convert(real_recording(SPIKEGLX), tmp_path / "x.nwb", {**METADATA, **RECORDING_FIELDS}, **way)

    nwbfile = read_nwb(output)
    assert [group.location for group in nwbfile.electrode_groups.values()] == ["CA1"]
    assert len(nwbfile.electrodes) == 384
    assert set(nwbfile.electrodes["location"][:]) == {"CA1"}
    # Extracellular electrodes have no cell or slice in NWB: nothing of them is written.
    assert not nwbfile.icephys_electrodes
    assert not [name for name in _names_in(output) if name.rpartition("/")[2] in ("cell_id", "slice")]


@pytest.mark.parametrize("way", WAYS)
def test_a_patch_clamp_electrode_has_the_location_cell_and_slice(
    tmp_path: Path, read_nwb: Any, way: dict[str, Any]
) -> None:
    output = _convert(_abf_upload(tmp_path), tmp_path / "x.nwb", {**METADATA, **RECORDING_FIELDS}, **way)

    (electrode,) = read_nwb(output).icephys_electrodes.values()
    assert (electrode.location, electrode.cell_id, electrode.slice) == ("CA1", "c3", "S2")


def test_without_recording_fields_nothing_is_made_up(tmp_path: Path, read_nwb: Any) -> None:
    spikeglx = read_nwb(_convert(real_recording(SPIKEGLX), tmp_path / "spikeglx.nwb", METADATA))
    abf = read_nwb(_convert(_abf_upload(tmp_path), tmp_path / "abf.nwb", METADATA))

    assert [group.location for group in spikeglx.electrode_groups.values()] == ["unknown"]
    assert set(spikeglx.electrodes["location"][:]) == {"unknown"}
    (electrode,) = abf.icephys_electrodes.values()
    assert (electrode.location, electrode.cell_id, electrode.slice) == (None, None, None)


# --- validation ------------------------------------------------------------------------------------


@pytest.mark.parametrize("source", ["spikeglx", "abf"])
def test_the_fields_add_no_validation_issue(tmp_path: Path, source: str) -> None:
    root = real_recording(SPIKEGLX) if source == "spikeglx" else _abf_upload(tmp_path)

    without = inspect_nwb(_convert(root, tmp_path / "without.nwb", METADATA))
    given = inspect_nwb(_convert(root, tmp_path / "with.nwb", {**METADATA, **RECORDING_FIELDS}))

    assert outcome_of(given) == outcome_of(without)
    assert not [issue for issue in given if issue.importance in ("ERROR", "CRITICAL")]
    assert {issue.check_name for issue in given} <= {issue.check_name for issue in without}
    if source == "abf":
        # The cell id nwbinspector asks for is now there.
        (missing,) = [issue for issue in without if issue.check_name == "check_intracellular_electrode_cell_id_exists"]
        # The user can give it in the chat, so it is asked for.
        assert action_for(missing) == "ask" and fields_to_ask(missing) == ("cell_id",)
        assert "check_intracellular_electrode_cell_id_exists" not in {issue.check_name for issue in given}


def test_a_location_that_is_not_an_atlas_term_is_only_explained(tmp_path: Path) -> None:
    metadata = {**METADATA, "location": "primary visual cortex"}

    issues = inspect_nwb(_convert(real_recording(SPIKEGLX), tmp_path / "x.nwb", metadata))

    (issue,) = [issue for issue in issues if issue.check_name == "check_electrodes_location_allen_ccf"]
    assert action_for(issue) == "explain"
    # The page links the issue to the recording location, but the portal does not ask for it.
    assert fields_for(issue) == ("location",) and fields_to_ask(issue) == ()
    assert "('primary visual cortex') is not a term of the Allen Mouse Brain Atlas" in explain(issue)
    assert outcome_of(issues) == Outcome.PASSED_WITH_ISSUES


# --- a location the recording states is kept --------------------------------------------------------

_START = datetime(2024, 3, 15, 14, 30)


def _metadata_for(base: dict[str, Any], values: dict[str, Any]) -> dict[str, Any]:
    merged, _ = _neuroconv_metadata(
        {"NWBFile": {"session_start_time": _START}, **base},
        values,
        zone=ZoneInfo("Europe/Paris"),
        default_description="A recording.",
    )
    return merged


def test_electrode_groups_keep_the_location_their_reader_states() -> None:
    base = {
        "Ecephys": {
            "ElectrodeGroups": {
                "a": {"name": "a", "location": "CA3"},
                "b": {"name": "b", "location": "unknown"},
                "c": {"name": "c", "location": ""},
                "d": {"name": "d"},
            },
            # The list form some readers chosen by name still give.
            "ElectrodeGroup": [{"name": "e", "location": "VISp"}, {"name": "f", "location": "unknown"}],
        }
    }

    merged = _metadata_for(base, RECORDING_FIELDS)

    groups = merged["Ecephys"]["ElectrodeGroups"]
    assert {key: group["location"] for key, group in groups.items()} == {"a": "CA3", "b": "CA1", "c": "CA1", "d": "CA1"}
    assert [group["location"] for group in merged["Ecephys"]["ElectrodeGroup"]] == ["VISp", "CA1"]
    assert not any("cell_id" in group or "slice" in group for group in groups.values())


def test_a_patch_clamp_electrode_keeps_what_its_reader_states() -> None:
    base = {
        "Icephys": {
            "IntracellularElectrodes": {
                "stated": {"name": "E0", "description": "d", "location": "VISp", "cell_id": "cell 7"},
                "silent": {"name": "E1", "description": "d"},
            }
        }
    }

    electrodes = _metadata_for(base, RECORDING_FIELDS)["Icephys"]["IntracellularElectrodes"]

    assert {key: (e["location"], e["cell_id"], e["slice"]) for key, e in electrodes.items()} == {
        "stated": ("VISp", "cell 7", "S2"),
        "silent": ("CA1", "c3", "S2"),
    }


def test_channels_keep_the_brain_area_the_recording_states(tmp_path: Path) -> None:
    """The real SpikeGLX recording, its first channels given a brain area as a reader that knows one would."""
    root = real_recording(SPIKEGLX)
    detection = detect_format(root)
    supported = format_handler(detection.format)
    assert supported is not None
    with supported.open_for_reading(root, detection, detection.default_streams) as view:
        converter = supported.build_converter(view, detection.default_streams)
        (recording,) = _electrode_recordings(converter)
        areas = ["CA3"] * 10 + ["unknown"] * (recording.get_num_channels() - 10)
        recording.set_property("brain_area", areas)

        _locate_channels([recording], converter.get_metadata(), "CA1")

        assert list(recording.get_property("brain_area")) == ["CA3"] * 10 + ["CA1"] * 374
        # A group whose location the reader states speaks for its channels: they are left as they are.
        recording.set_property("brain_area", ["unknown"] * recording.get_num_channels())
        stated = {"Ecephys": {"ElectrodeGroups": {"g": {"name": "NeuropixelsImec0", "location": "CA3"}}}}

        _locate_channels([recording], stated, "CA1")

        assert set(recording.get_property("brain_area")) == {"unknown"}

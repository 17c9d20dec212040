"""The schema pynwb validates against, built once per distinct cached specification."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py
import pynwb
import pynwb.validation
import pytest

from conversions.nwb import namespaces
from tests.nwb.test_dandi_validation import MOUSE, _write_nwb


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The cache installed, empty, over a pynwb function that records each file it builds a schema for."""
    namespaces.install()
    original = namespaces._original
    built: list[str] = []

    def counting(**kwargs: Any) -> Any:
        built.append(Path(kwargs["path"]).name)
        return original(**kwargs)

    monkeypatch.setattr(namespaces, "_original", counting)
    namespaces.clear()
    yield built
    namespaces.clear()


@pytest.fixture(scope="module")
def no_unit_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """pynwb's schema requires the data's `unit`; this file has none."""
    path = _write_nwb(tmp_path_factory.mktemp("namespaces") / "no_unit.nwb", MOUSE)
    with h5py.File(path, "r+") as file:
        del file["acquisition/noise/data"].attrs["unit"]
    return path


def _without_unit_requirement(source: Path, target: Path) -> Path:
    """A copy of `source` whose own cached core schema makes `unit` optional."""
    shutil.copy(source, target)
    with h5py.File(target, "r+") as file:
        (version,) = file["specifications/core"].keys()
        name = f"specifications/core/{version}/nwb.base"
        spec = json.loads(file[name][()])
        series = next(group for group in spec["groups"] if group.get("neurodata_type_def") == "TimeSeries")
        data = next(item for item in series["datasets"] if item["name"] == "data")
        next(attribute for attribute in data["attributes"] if attribute["name"] == "unit")["required"] = False
        del file[name]
        file.create_dataset(name, data=json.dumps(spec), dtype=h5py.string_dtype())
    return target


def _violations(path: Path) -> list[tuple[str, str]]:
    return sorted((str(error.name), str(error.reason)) for error in pynwb.validate(path=str(path)))


def test_files_with_the_same_schema_share_one_build(builds: list[str], tmp_path: Path, no_unit_file: Path) -> None:
    first = _write_nwb(tmp_path / "first.nwb", MOUSE)
    second = _write_nwb(tmp_path / "second.nwb", {**MOUSE, "subject_id": "mouse2"})

    assert _violations(first) == []
    assert _violations(second) == []
    assert _violations(no_unit_file) == [("TimeSeries/data/unit", "argument missing")]
    assert _violations(first) == []

    assert builds == ["first.nwb"]


def test_a_file_whose_own_schema_differs_is_validated_against_its_own(
    builds: list[str], tmp_path: Path, no_unit_file: Path
) -> None:
    relaxed = _without_unit_requirement(no_unit_file, tmp_path / "relaxed.nwb")
    assert namespaces.specification_digest(relaxed) != namespaces.specification_digest(no_unit_file)

    assert _violations(no_unit_file) == [("TimeSeries/data/unit", "argument missing")]
    assert _violations(relaxed) == []  # the unit is optional in this file's own schema
    assert _violations(no_unit_file) == [("TimeSeries/data/unit", "argument missing")]

    assert builds == ["no_unit.nwb", "relaxed.nwb"]


def test_the_same_findings_as_pynwb_building_the_schema_each_time(no_unit_file: Path, tmp_path: Path) -> None:
    namespaces.install()
    namespaces.clear()
    relaxed = _without_unit_requirement(no_unit_file, tmp_path / "relaxed.nwb")
    files = [no_unit_file, relaxed, no_unit_file, relaxed]
    cached = [_violations(path) for path in files]
    installed = pynwb.validation.get_cached_namespaces_to_validate
    try:
        pynwb.validation.get_cached_namespaces_to_validate = namespaces._original
        uncached = [_violations(path) for path in files]
    finally:
        pynwb.validation.get_cached_namespaces_to_validate = installed

    assert installed is namespaces.cached_namespaces_to_validate
    assert cached == uncached
    assert cached[0] != cached[1]


def test_what_it_cannot_key_goes_to_pynwb(builds: list[str], tmp_path: Path) -> None:
    not_hdf5 = tmp_path / "broken.nwb"
    not_hdf5.write_bytes(b"not an HDF5 file")
    no_schema = tmp_path / "no_schema.nwb"
    with h5py.File(no_schema, "w") as file:
        file.create_dataset("x", data=[1, 2, 3])

    assert namespaces.specification_digest(not_hdf5) is None
    assert namespaces.specification_digest(no_schema) is None
    for path in (not_hdf5, no_schema, no_schema):
        with pytest.raises(ValueError, match="Could not find an IO"):  # pynwb's own answer, each time
            namespaces.cached_namespaces_to_validate(path=str(path))

    assert builds == ["broken.nwb", "no_schema.nwb", "no_schema.nwb"]


def test_each_call_gets_its_own_build_manager(builds: list[str], no_unit_file: Path) -> None:
    _, first, _ = namespaces.cached_namespaces_to_validate(path=str(no_unit_file))
    _, second, _ = namespaces.cached_namespaces_to_validate(path=str(no_unit_file))

    assert first is not second
    assert first.type_map is second.type_map
    assert builds == ["no_unit.nwb"]

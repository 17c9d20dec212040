"""validate_with_dandi / merge_findings, on small NWB files written here with pynwb."""

from __future__ import annotations

import json
import logging
import os
import shutil
import socket
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import h5py
import numpy as np
import pynwb
import pynwb.validation
import pytest
from pynwb import NWBHDF5IO, NWBFile, TimeSeries
from pynwb.file import Subject

from conversions.nwb import namespaces
from conversions.nwb.dandi_validation import (
    DANDI_FAILED,
    UPLOAD_METADATA_REJECTED,
    check_nwb,
    merge_findings,
    validate_with_dandi,
)
from conversions.nwb.validation import InspectionIssue, inspect_nwb

PROJECT_ROOT = Path(__file__).resolve().parents[2]
GOOD_NAME = "sub-mouse1_ses-20240315T143000_ecephys.nwb"
MOUSE = {"subject_id": "mouse1", "species": "Mus musculus", "sex": "M", "age": "P90D"}
# A species nwbinspector accepts (a Latin binomial) that is not in dandi's table of 13.
ZEBRA_FINCH = "Taeniopygia guttata"
# The zebra finch again, as the NCBITaxon URL dandi asks for; dandi would look its name up online.
ZEBRA_FINCH_URL = "http://purl.obolibrary.org/obo/NCBITaxon_59729"


def _write_nwb(path: Path, subject: dict[str, str] | None) -> Path:
    nwbfile = NWBFile(
        session_description="Noise recorded to test the portal.",
        identifier="3f1c2a9e-4d7b-4f60-9a51-2b8e0c6d7a11",
        session_start_time=datetime(2024, 3, 15, 14, 30, tzinfo=ZoneInfo("Europe/Paris")),
        session_id="20240315T143000",
        experimenter=["Smith, Jane"],
        institution="MIT",
        lab="Smith Lab",
        experiment_description="Noise recorded to test the portal.",
        keywords=["V1", "noise"],
        subject=Subject(description="A wild-type mouse.", **subject) if subject is not None else None,
    )
    nwbfile.add_acquisition(
        TimeSeries(name="noise", description="White noise.", data=np.zeros((100, 2)), unit="volts", rate=1000.0)
    )
    with NWBHDF5IO(str(path), "w") as io:
        io.write(nwbfile)
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("dandi")


@pytest.fixture(scope="module")
def complete_file(folder: Path) -> Path:
    return _write_nwb(folder / GOOD_NAME, MOUSE)


@pytest.fixture(scope="module")
def no_subject_file(folder: Path) -> Path:
    return _write_nwb(folder / "no_subject.nwb", None)


@pytest.fixture(scope="module")
def common_words_file(folder: Path) -> Path:
    return _write_nwb(folder / "common_words.nwb", {**MOUSE, "species": "mouse", "age": "90 days"})


@pytest.fixture(scope="module")
def zebra_finch_file(folder: Path) -> Path:
    return _write_nwb(folder / "zebra_finch.nwb", {**MOUSE, "species": ZEBRA_FINCH})


@pytest.fixture(scope="module")
def zebra_finch_url_file(folder: Path) -> Path:
    return _write_nwb(folder / "zebra_finch_url.nwb", {**MOUSE, "species": ZEBRA_FINCH_URL})


@pytest.fixture(scope="module")
def schema_violation_file(folder: Path, complete_file: Path) -> Path:
    """pynwb still reads it, but the series' data has lost its required `unit`."""
    path = shutil.copy(complete_file, folder / "no_unit.nwb")
    with h5py.File(path, "r+") as file:
        del file["acquisition/noise/data"].attrs["unit"]
    return Path(path)


@pytest.fixture(scope="module")
def unreadable_file(folder: Path, complete_file: Path) -> Path:
    """The subject's age stored as a number: pynwb refuses to build the file."""
    path = shutil.copy(complete_file, folder / "numeric_age.nwb")
    with h5py.File(path, "r+") as file:
        del file["general/subject/age"]
        file["general/subject"].create_dataset("age", data=90)
    return Path(path)


@pytest.fixture(scope="module")
def old_version_file(folder: Path, complete_file: Path) -> Path:
    path = Path(shutil.copy(complete_file, folder / "old_style_version.nwb"))
    with h5py.File(path, "r+") as file:
        file.attrs["nwb_version"] = "NWB-2.9"
    return path


@pytest.fixture(scope="module")
def not_hdf5_file(folder: Path) -> Path:
    path = folder / "broken.nwb"
    path.write_bytes(b"not an HDF5 file at all")
    return path


def _names(issues: list[InspectionIssue]) -> list[tuple[str, str]]:
    return sorted((issue.check_name, issue.importance) for issue in issues)


def test_complete_file_has_no_findings(complete_file: Path) -> None:
    assert validate_with_dandi(complete_file) == []


def test_dandiset_layout_findings_are_left_out(complete_file: Path, tmp_path: Path) -> None:
    from dandi.validate._core import validate

    outside = Path(shutil.copy(complete_file, tmp_path / "recording.nwb"))

    assert validate_with_dandi(outside) == []
    # `dandi validate` itself: the file lies in no dandiset (and its name is not one `dandi organize` gives).
    assert [result.id for result in validate(outside)] == ["DANDI.NO_DANDISET_FOUND"]


def test_no_subject_is_critical_and_already_said_by_nwbinspector(no_subject_file: Path) -> None:
    dandi = validate_with_dandi(no_subject_file)

    assert dandi == [
        InspectionIssue(
            check_name="dandi:NWBI.check_subject_exists",
            importance="CRITICAL",
            message="Subject is missing.",
            location="/",
            object_type="NWBFile",
            object_name="root",
        )
    ]
    inspector = inspect_nwb(no_subject_file)
    assert ("check_subject_exists", "CRITICAL") in _names(inspector)
    assert merge_findings(inspector, dandi) == inspector


def test_common_species_and_age_words(common_words_file: Path) -> None:
    dandi = validate_with_dandi(common_words_file)

    # dandi's upload reads "mouse" as Mus musculus and "90 days" as P90D; only nwbinspector objects.
    assert _names(dandi) == [
        ("dandi:NWBI.check_subject_age", "CRITICAL"),
        ("dandi:NWBI.check_subject_species_form", "CRITICAL"),
    ]
    assert {(issue.location, issue.object_type) for issue in dandi} == {("/general/subject", "Subject")}
    inspector = inspect_nwb(common_words_file)
    assert {"check_subject_age", "check_subject_species_form"} <= {issue.check_name for issue in inspector}
    assert merge_findings(inspector, dandi) == inspector


def test_species_dandi_does_not_know_is_refused(zebra_finch_file: Path) -> None:
    dandi = validate_with_dandi(zebra_finch_file)

    assert _names(dandi) == [(UPLOAD_METADATA_REJECTED, "CRITICAL")]
    assert dandi[0].message.startswith(f"Cannot interpret species field: {ZEBRA_FINCH}.")
    inspector = inspect_nwb(zebra_finch_file)
    assert not [issue for issue in inspector if "species" in issue.check_name]
    assert merge_findings(inspector, dandi) == [*inspector, *dandi]


def test_schema_violation_is_kept_once(schema_violation_file: Path) -> None:
    dandi = validate_with_dandi(schema_violation_file)

    assert dandi == [
        InspectionIssue(
            check_name="dandi:pynwb",
            importance="CRITICAL",
            message="argument missing",
            location="acquisition/noise/data",
            object_type="TimeSeries/data/unit",
            object_name="",
        )
    ]
    inspector = inspect_nwb(schema_violation_file)
    assert ("nwb_schema_violation", "ERROR") in _names(inspector)
    assert merge_findings(inspector, dandi) == inspector


def test_unreadable_file_dandi_says_why(unreadable_file: Path) -> None:
    dandi = validate_with_dandi(unreadable_file)

    assert _names(dandi) == [
        ("dandi:pynwb", "CRITICAL"),
        (DANDI_FAILED, "BEST_PRACTICE_SUGGESTION"),  # reading its metadata failed too
    ]
    (violation,) = [issue for issue in dandi if issue.check_name == "dandi:pynwb"]
    assert (violation.location, violation.object_type) == ("general/subject/age", "Subject/age")
    assert violation.message == "incorrect type - expected 'text', got 'int64'"
    inspector = inspect_nwb(unreadable_file)
    assert _names(inspector) == [("nwb_file_unreadable", "ERROR")]
    # nwbinspector stops at "cannot read"; dandi's schema check says what is wrong.
    assert _names(merge_findings(inspector, dandi)) == _names([*inspector, *dandi])


def test_nwb_version_is_checked(old_version_file: Path) -> None:
    dandi = validate_with_dandi(old_version_file)

    assert _names(dandi) == [("dandi:pynwb.GENERIC", "CRITICAL"), ("dandi:pynwb.GENERIC", "CRITICAL")]
    assert any("not a proper semantic version" in issue.message for issue in dandi)


def test_file_that_is_not_hdf5(not_hdf5_file: Path) -> None:
    dandi = validate_with_dandi(not_hdf5_file)

    assert _names(dandi) == [(DANDI_FAILED, "BEST_PRACTICE_SUGGESTION")]
    assert "DANDI's validator could not run" in dandi[0].message


def test_a_crash_of_dandi_is_a_suggestion_and_logged(
    complete_file: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    import dandi.files

    def crash(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("dandi broke")

    monkeypatch.setattr(dandi.files, "dandi_file", crash)

    with caplog.at_level(logging.WARNING, logger="conversions.nwb.dandi_validation"):
        issues = validate_with_dandi(complete_file)

    assert _names(issues) == [(DANDI_FAILED, "BEST_PRACTICE_SUGGESTION")]
    assert "RuntimeError: dandi broke" in issues[0].message
    assert any(record.exc_info for record in caplog.records)


def test_dandi_not_importable(complete_file: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "dandi.files", None)

    issues = validate_with_dandi(complete_file)

    assert _names(issues) == [(DANDI_FAILED, "BEST_PRACTICE_SUGGESTION")]
    assert "ModuleNotFoundError" in issues[0].message


def _tools_run_whole(path: Path) -> list[InspectionIssue]:
    """What check_nwb must equal: nwbinspector and `dandi validate` each run whole, with pynwb building
    the cached schema every time as it does on its own."""
    namespaces.install()
    installed = pynwb.validation.get_cached_namespaces_to_validate
    pynwb.validation.get_cached_namespaces_to_validate = namespaces._original
    try:
        return merge_findings(inspect_nwb(path), validate_with_dandi(path))
    finally:
        pynwb.validation.get_cached_namespaces_to_validate = installed


EVERY_KIND = [
    "complete_file",
    "no_subject_file",
    "common_words_file",
    "zebra_finch_file",
    "zebra_finch_url_file",
    "schema_violation_file",
    "unreadable_file",
    "old_version_file",
    "not_hdf5_file",
]


@pytest.mark.parametrize("kind", EVERY_KIND)
def test_check_nwb_finds_what_both_tools_find_run_whole(kind: str, request: pytest.FixtureRequest) -> None:
    path = request.getfixturevalue(kind)

    expected = _tools_run_whole(path)

    assert check_nwb(path) == expected
    assert check_nwb(path) == expected  # and again, with the schema kept from the first time
    assert expected or kind in ("complete_file", "zebra_finch_url_file")


def test_check_nwb_validates_and_inspects_once(
    schema_violation_file: Path, zebra_finch_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import nwbinspector

    calls: list[str] = []

    def counted(name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls.append(name)
            return function(*args, **kwargs)

        return call

    monkeypatch.setattr(pynwb, "validate", counted("schema", pynwb.validate))
    monkeypatch.setattr(nwbinspector, "inspect_nwbfile", counted("inspector", nwbinspector.inspect_nwbfile))

    for path in (schema_violation_file, zebra_finch_file):
        assert check_nwb(path)
    assert calls == ["schema", "inspector"] * 2

    calls.clear()
    merge_findings(inspect_nwb(zebra_finch_file), validate_with_dandi(zebra_finch_file))
    assert sorted(calls) == ["inspector", "inspector", "schema", "schema"]  # what check_nwb saves


def test_check_nwb_runs_the_tools_whole_where_dandi_moved_its_function(
    schema_violation_file: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from conversions.nwb import dandi_validation

    def moved(path: Path) -> None:
        raise ImportError("cannot import name 'validate' from 'dandi.pynwb_utils'")

    expected = _tools_run_whole(schema_violation_file)
    monkeypatch.setattr(dandi_validation, "_version_and_schema", moved)

    with caplog.at_level(logging.WARNING, logger="conversions.nwb.dandi_validation"):
        assert check_nwb(schema_violation_file) == expected
    assert "running each tool whole" in caplog.text


def _issue(check_name: str, **fields: str) -> InspectionIssue:
    values = {
        "importance": "CRITICAL",
        "message": "Subject is missing.",
        "location": "/",
        "object_type": "NWBFile",
        "object_name": "root",
        **fields,
    }
    return InspectionIssue(check_name=check_name, **values)


def test_merge_drops_only_what_nwbinspector_said_of_the_same_object() -> None:
    inspector = [_issue("check_subject_exists"), _issue("check_description", object_type="Device", object_name="a")]
    dandi = [
        _issue("dandi:NWBI.check_subject_exists"),
        _issue("dandi:NWBI.check_description", object_type="Device", object_name="b"),
        _issue("dandi:pynwb", message="argument missing"),
        _issue(UPLOAD_METADATA_REJECTED),
    ]

    merged = merge_findings(inspector, dandi)

    assert [(issue.check_name, issue.object_name) for issue in merged] == [
        ("check_subject_exists", "root"),
        ("check_description", "a"),
        ("dandi:NWBI.check_description", "b"),
        ("dandi:pynwb", "root"),
        (UPLOAD_METADATA_REJECTED, "root"),
    ]


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Refuse, and record, every name look-up and connection this process tries."""
    attempts: list[str] = []

    def refuse(what: str) -> Callable[..., Any]:
        def refused(*args: Any, **kwargs: Any) -> Any:
            attempts.append(f"{what}{args}")
            raise OSError(f"network refused in a test: {what}")

        return refused

    monkeypatch.setattr(socket, "getaddrinfo", refuse("getaddrinfo"))
    monkeypatch.setattr(socket.socket, "connect", refuse("connect"))
    monkeypatch.setattr(socket.socket, "connect_ex", refuse("connect_ex"))
    yield attempts


def test_species_url_is_accepted_without_looking_it_up(zebra_finch_url_file: Path, network_attempts: list[str]) -> None:
    # dandi's table lacks this taxon; dandi would ask ontobee.org for its name.
    assert validate_with_dandi(zebra_finch_url_file) == []
    assert network_attempts == []


_OFFLINE_WORKER = textwrap.dedent(
    """
    import json, socket, sys
    attempts = []
    def refused(*args, **kwargs):
        attempts.append(repr(args))
        raise OSError("network refused in a test")
    socket.getaddrinfo = socket.socket.connect = socket.socket.connect_ex = refused
    from pathlib import Path
    from conversions.nwb.dandi_validation import validate_with_dandi
    findings = {path: [issue.to_json() for issue in validate_with_dandi(Path(path))] for path in sys.argv[1:]}
    print(json.dumps({"findings": findings, "attempts": attempts}))
    """
)


def test_a_fresh_worker_imports_and_validates_without_the_network(
    complete_file: Path, common_words_file: Path, zebra_finch_file: Path, zebra_finch_url_file: Path, tmp_path: Path
) -> None:
    paths = [complete_file, common_words_file, zebra_finch_file, zebra_finch_url_file]
    # Without the variables this test process already has from importing the module: the fresh
    # worker must get them from the module itself.
    env = {name: value for name, value in os.environ.items() if name not in {"DANDI_NO_ET", "NO_ET", "DANDI_CACHE"}}
    cache = tmp_path / "cache"
    env["XDG_CACHE_HOME"] = str(cache)
    result = subprocess.run(
        [sys.executable, "-c", _OFFLINE_WORKER, *map(str, paths)],
        cwd=PROJECT_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )

    offline = json.loads(result.stdout.strip().splitlines()[-1])
    assert offline["attempts"] == []
    online = {str(path): [issue.to_json() for issue in validate_with_dandi(path)] for path in paths}
    assert offline["findings"] == online
    assert any(offline["findings"].values())  # the comparison covers findings, not only empty lists
    # dandi keeps no results of its own on disk (it would under fscacher/dandi-validate/).
    assert not list(cache.rglob("output.pkl"))

"""inspect_nwb / outcome_of / explain / fields_for, on files the conversion really writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conversions.nwb.conversion import convert_recording
from conversions.nwb.detection import detect_format
from conversions.nwb.fields import FIELDS, SUBJECT_FIELDS
from conversions.nwb.normalizers import normalize_field
from conversions.nwb.validation import InspectionIssue, Outcome, explain, fields_for, inspect_nwb, outcome_of

# Typed by a user, normalised as the portal does before converting.
TYPED = {
    "experimenter": "Dr. Jane Smith and Bob Lee",
    "institution": "MIT",
    "lab": "Smith Lab",
    "experiment_description": "Noise recorded to test the portal.",
    "keywords": "V1; Neuropixels",
    "subject_id": "mouse/001",
    "species": "mice",
    "sex": "female",
    "age": "12 weeks",
    "strain": "C57BL/6J",
}


def _convert(upload: Path, output: Path, metadata: dict[str, object]) -> Path:
    convert_recording(
        source_root=upload,
        detection=detect_format(upload),
        stream_ids=[],
        metadata=metadata,
        timezone="Europe/Paris",
        output_path=output,
    )
    return output


@pytest.fixture(scope="module")
def full_file(ap_lf_upload: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    metadata = {name: normalize_field(name, value) for name, value in TYPED.items()}
    return _convert(ap_lf_upload, tmp_path_factory.mktemp("full") / "full.nwb", metadata)


@pytest.fixture(scope="module")
def minimal_file(ap_lf_upload: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _convert(ap_lf_upload, tmp_path_factory.mktemp("minimal") / "minimal.nwb", {})


def _issue(check_name: str, importance: str = "CRITICAL", **fields: str) -> InspectionIssue:
    values = {"message": "", "location": "/", "object_type": "NWBFile", "object_name": "root", **fields}
    return InspectionIssue(check_name=check_name, importance=importance, **values)


def test_full_normalised_metadata_passes(full_file: Path) -> None:
    issues = inspect_nwb(full_file)

    assert outcome_of(issues) is Outcome.PASSED_WITH_ISSUES
    assert {issue.importance for issue in issues} <= {"BEST_PRACTICE_VIOLATION", "BEST_PRACTICE_SUGGESTION"}
    names = {issue.check_name for issue in issues}
    # A mouse recording whose electrodes' brain area nobody has named yet.
    assert "check_electrodes_location_allen_ccf" in names
    assert not names & {"check_experimenter_form", "check_subject_species_form", "check_subject_age"}


def test_no_subject_fails(minimal_file: Path) -> None:
    issues = inspect_nwb(minimal_file)

    assert outcome_of(issues) is Outcome.FAILED
    (missing_subject,) = [issue for issue in issues if issue.check_name == "check_subject_exists"]
    assert missing_subject.importance == "CRITICAL"
    assert missing_subject.object_type == "NWBFile"
    assert fields_for(missing_subject) == SUBJECT_FIELDS
    assert "subject" in explain(missing_subject)
    names = {issue.check_name for issue in issues}
    assert {"check_experimenter_exists", "check_institution", "check_keywords"} <= names
    # Device descriptions are filled from the probe model, so the inspector does not ask for them.
    assert not any(issue.check_name == "check_description" and issue.object_type == "Device" for issue in issues)


def test_file_that_is_not_nwb(tmp_path: Path) -> None:
    path = tmp_path / "broken.nwb"
    path.write_bytes(b"not an HDF5 file at all")

    issues = inspect_nwb(path)

    assert [issue.importance for issue in issues] == ["ERROR"]
    assert issues[0].check_name == "nwb_file_unreadable"
    assert outcome_of(issues) is Outcome.FAILED
    assert "could not be opened" in explain(issues[0])


def test_issues_round_trip_through_json(minimal_file: Path) -> None:
    for issue in inspect_nwb(minimal_file):
        assert InspectionIssue.from_json(issue.to_json()) == issue


@pytest.mark.parametrize(
    ("importances", "outcome"),
    [
        ([], Outcome.PASSED),
        (["BEST_PRACTICE_SUGGESTION"], Outcome.PASSED_WITH_ISSUES),
        (["BEST_PRACTICE_VIOLATION", "BEST_PRACTICE_SUGGESTION"], Outcome.PASSED_WITH_ISSUES),
        (["BEST_PRACTICE_SUGGESTION", "CRITICAL"], Outcome.FAILED),
        (["ERROR"], Outcome.FAILED),
        (["CRITICAL", "ERROR"], Outcome.FAILED),
    ],
)
def test_outcome_of(importances: list[str], outcome: Outcome) -> None:
    issues = [_issue(f"check_{number}", importance) for number, importance in enumerate(importances)]
    assert outcome_of(issues) is outcome


@pytest.mark.parametrize(
    ("check_name", "fields"),
    [
        ("check_subject_exists", ("subject_id", "species", "sex", "age")),
        ("check_subject_id_exists", ("subject_id",)),
        ("check_subject_id_no_slashes", ("subject_id",)),
        ("check_subject_species_exists", ("species",)),
        ("check_subject_species_form", ("species",)),
        ("check_subject_sex", ("sex",)),
        ("check_subject_age", ("age",)),
        ("check_experimenter_exists", ("experimenter",)),
        ("check_experimenter_form", ("experimenter",)),
        ("check_institution", ("institution",)),
        ("check_keywords", ("keywords",)),
        ("check_experiment_description", ("experiment_description",)),
        ("check_session_start_time_future_date", ("session_start_time",)),
        ("check_electrodes_location_allen_ccf", ()),
        ("check_description", ()),
        ("some_check_nobody_knows", ()),
    ],
)
def test_fields_for(check_name: str, fields: tuple[str, ...]) -> None:
    assert fields_for(_issue(check_name)) == fields
    assert set(fields) <= set(FIELDS)


def test_every_dandi_critical_check_has_plain_words() -> None:
    from nwbinspector import load_config

    for check_name in load_config("dandi")["CRITICAL"]:
        text = explain(_issue(check_name, message="Inspector's own words. More."))
        assert text and text != "Inspector's own words."


@pytest.mark.parametrize(
    ("issue", "words"),
    [
        (_issue("check_subject_sex", message="Subject.sex is missing."), "sex is missing"),
        (_issue("check_subject_sex", message="Subject.sex should be one of: 'M'"), "must be written M"),
        (_issue("check_subject_age", message="Subject is missing age and date_of_birth."), "age is missing"),
        (_issue("check_subject_age", message="Subject age, '90 days', does not follow"), "P90D"),
        (
            _issue("check_description", object_type="Device", object_name="NeuropixelsImec0"),
            "The device 'NeuropixelsImec0' has no description",
        ),
        (_issue("check_description", object_type="Subject", object_name="subject"), "The subject has no"),
        (_issue("check_experimenter_form"), "'Last, First'"),
    ],
)
def test_explain(issue: InspectionIssue, words: str) -> None:
    assert words in explain(issue)


def test_explain_falls_back_to_the_inspectors_first_sentence() -> None:
    issue = _issue("check_new_thing", message="Something is odd. Details follow here.")
    assert explain(issue) == "Something is odd."

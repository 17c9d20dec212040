"""inspect_nwb / outcome_of / explain / fields_for and the rule table, on files the conversion really writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conversions.nwb.conversion import convert_recording
from conversions.nwb.detection import detect_format
from conversions.nwb.fields import FIELDS, SUBJECT_FIELDS
from conversions.nwb.normalizers import normalize_field
from conversions.nwb.validation import (
    LEFT_OUT_NEURODATA_TYPES,
    RULES,
    InspectionIssue,
    Outcome,
    Rule,
    action_for,
    explain,
    fields_for,
    fields_to_ask,
    inspect_nwb,
    outcome_of,
    rule_for,
)

from .conftest import real_recording

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
        ("check_electrodes_location_allen_ccf", ("location",)),
        ("check_intracellular_electrode_location_allen_ccf", ("location",)),
        ("check_intracellular_electrode_cell_id_exists", ("cell_id",)),
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


# --- the rule table --------------------------------------------------------------------------------


def _registry() -> list[object]:
    from nwbinspector import available_checks

    return list(available_checks)


def _type_name(check: object) -> str:
    neurodata_type = getattr(check, "neurodata_type", None)
    return neurodata_type.__name__ if neurodata_type is not None else ""


def test_every_check_that_can_fire_on_the_portals_files_has_a_rule() -> None:
    # Iterates nwbinspector's registry, so a check added by a new nwbinspector version fails here
    # until someone decides what the portal does about it.
    missing = [
        check.__name__  # type: ignore[attr-defined]
        for check in _registry()
        if _type_name(check) not in LEFT_OUT_NEURODATA_TYPES and check.__name__ not in RULES  # type: ignore[attr-defined]
    ]
    assert missing == []


def test_left_out_types_are_types_nwbinspector_checks_and_none_the_portal_writes() -> None:
    checked_types = {_type_name(check) for check in _registry()}
    assert checked_types >= LEFT_OUT_NEURODATA_TYPES
    # Every family the portal writes stays covered.
    assert not LEFT_OUT_NEURODATA_TYPES & {
        "",
        "NWBFile",
        "Subject",
        "NWBContainer",
        "DynamicTable",
        "DynamicTableRegion",
        "TimeIntervals",
        "TimeSeries",
        "ElectricalSeries",
        "Units",
        "SpatialSeries",
        "ImageSeries",
        "IntracellularElectrode",
        "SweepTable",
        "ProcessingModule",
    }


def test_rules_name_only_known_fields_and_say_what_they_do() -> None:
    for check_name, rule in RULES.items():
        assert isinstance(rule, Rule)
        assert set(rule.fields) <= set(FIELDS), check_name
        if rule.action == "ask":
            assert rule.fields, f"{check_name}: an 'ask' rule must name what to ask for"
        if rule.action == "fix":
            assert rule.how, f"{check_name}: a 'fix' rule must say what fixes it and where"
        else:
            assert not rule.fixes_only, check_name


def test_every_rule_has_plain_words_for_any_object() -> None:
    for check_name in RULES:
        for object_type in ("NWBFile", "Subject", "Device", "ElectrodeGroup", "VectorData", "ElectricalSeries", ""):
            issue = _issue(check_name, object_type=object_type, object_name="x", message="Inspector's 'words'. More.")
            text = explain(issue)
            assert text and text != "Inspector's 'words'.", check_name


@pytest.mark.parametrize(
    ("issue", "action"),
    [
        (_issue("check_subject_exists"), "ask"),
        (_issue("check_subject_age", object_type="Subject"), "ask"),
        (_issue("check_experimenter_form"), "ask"),
        (_issue("check_subject_id_no_slashes", object_type="Subject"), "fix"),
        (_issue("check_session_id_no_slashes"), "fix"),
        (_issue("check_description", object_type="Device", object_name="NeuropixelsImec0"), "fix"),
        (_issue("check_description", object_type="ElectrodeGroup", object_name="A"), "fix"),
        # Not something the conversion describes: only explained.
        (_issue("check_description", object_type="Subject", object_name="subject"), "explain"),
        (_issue("check_description", object_type="VectorData", object_name="mystery"), "explain"),
        (_issue("check_electrodes_location_allen_ccf"), "explain"),
        (_issue("check_intracellular_electrode_cell_id_exists", object_type="IntracellularElectrode"), "ask"),
        (_issue("check_intracellular_electrode_location_allen_ccf", object_type="IntracellularElectrode"), "explain"),
        (_issue("check_data_orientation", object_type="ElectricalSeries"), "explain"),
        (_issue("nwb_file_unreadable", "ERROR"), "explain"),
        (_issue("some_check_nobody_knows"), "explain"),
    ],
)
def test_action_for(issue: InspectionIssue, action: str) -> None:
    assert action_for(issue) == action


@pytest.mark.parametrize(
    ("check_name", "asked"),
    [
        ("check_subject_exists", ("subject_id", "species", "sex", "age")),
        ("check_intracellular_electrode_cell_id_exists", ("cell_id",)),
        ("check_subject_id_no_slashes", ("subject_id",)),
        # A suggestion a value could settle is linked, never asked for.
        ("check_electrodes_location_allen_ccf", ()),
        ("check_intracellular_electrode_location_allen_ccf", ()),
        ("some_check_nobody_knows", ()),
    ],
)
def test_fields_to_ask(check_name: str, asked: tuple[str, ...]) -> None:
    assert fields_to_ask(_issue(check_name)) == asked


def test_explained_issues_ask_for_nothing() -> None:
    for check_name, rule in RULES.items():
        if rule.action == "explain":
            assert fields_to_ask(_issue(check_name)) == (), check_name


def test_rule_for() -> None:
    rule = rule_for("check_subject_species_form")
    assert rule is not None and rule.action == "ask" and rule.fields == ("species",)
    assert "Latin name" in rule.how
    assert rule_for("check_made_up") is None


def test_a_real_recording_without_a_subject_asks_for_the_subject(tmp_path: Path) -> None:
    root = real_recording("spikeglx/Noise4Sam_g0")

    session = {name: normalize_field(name, TYPED[name]) for name in ("experimenter", "institution", "keywords")}
    session["experiment_description"] = TYPED["experiment_description"]

    issues = inspect_nwb(_convert(root, tmp_path / "real.nwb", session))

    asked = [issue for issue in issues if action_for(issue) == "ask"]
    assert [issue.check_name for issue in asked] == ["check_subject_exists"]
    assert fields_for(asked[0]) == SUBJECT_FIELDS
    assert outcome_of(issues) is Outcome.FAILED
    # Nothing the portal fixes itself (here: the probe's description) is left in the file.
    assert all(action_for(issue) != "fix" for issue in issues)


@pytest.mark.parametrize(
    ("message", "fields", "words"),
    [
        (
            "Cannot interpret species field: Taeniopygia guttata. Please contact help@dandiarchive.org",
            ("species",),
            "NCBI Taxonomy link",
        ),
        ("Cannot interpret sex field: 7", ("sex",), "could not read the subject's sex"),
        ("Something else entirely. More.", (), "could not read the file's metadata"),
    ],
)
def test_dandi_upload_refusals_ask_for_the_field_they_name(message: str, fields: tuple[str, ...], words: str) -> None:
    issue = _issue("dandi_upload_metadata_rejected", message=message)

    assert fields_for(issue) == fields
    assert words in explain(issue)

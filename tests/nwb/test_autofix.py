"""fix_metadata: form fixes only, each tied to the check it prevents; facts are never guessed or added."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

import pytest

from conversions.nwb.autofix import AppliedFix, fix_metadata
from conversions.nwb.fields import FIELDS
from conversions.nwb.validation import SCHEMA_VIOLATION, rule_for

TIMEZONE = "Europe/Paris"


@pytest.mark.parametrize(
    ("field", "before", "after", "check_name"),
    [
        # subject id: nwbinspector refuses "/"; "\" separates folders too.
        ("subject_id", "mouse/001", "mouse-001", "check_subject_id_no_slashes"),
        ("subject_id", "cage3\\m1", "cage3-m1", "check_subject_id_no_slashes"),
        ("subject_id", " mouse001 ", "mouse001", "check_subject_id_no_slashes"),
        # age: words and loose forms → ISO 8601 durations, through the age normalizer.
        ("age", "90 days", "P90D", "check_subject_age"),
        ("age", "12 weeks", "P12W", "check_subject_age"),
        ("age", "p90d", "P90D", "check_subject_age"),
        ("age", "P90", "P90D", "check_subject_age"),
        ("age", "8-10 weeks", "P8W/P10W", "check_subject_age"),
        ("age", "1.5 years", "P18M", "check_subject_age"),
        # species: common names and wrong case → the Latin binomial.
        ("species", "mouse", "Mus musculus", "check_subject_species_form"),
        ("species", "mus musculus", "Mus musculus", "check_subject_species_form"),
        ("species", "Rat", "Rattus norvegicus", "check_subject_species_form"),
        ("species", "C57BL/6J mice", "Mus musculus", "check_subject_species_form"),
        # sex words → NWB's codes.
        ("sex", "female", "F", "check_subject_sex"),
        ("sex", "m", "M", "check_subject_sex"),
        ("sex", "Unknown", "U", "check_subject_sex"),
        ("sex", " F ", "F", "check_subject_sex"),
        # experimenter → "Last, First", only when the normalizer can tell the parts apart.
        ("experimenter", "Jane Smith", ["Smith, Jane"], "check_experimenter_form"),
        ("experimenter", "Dr. Jane Smith and Bob Lee", ["Smith, Jane", "Lee, Bob"], "check_experimenter_form"),
        ("experimenter", "Smith, Jane; Lee, Bob", ["Smith, Jane", "Lee, Bob"], "check_experimenter_form"),
        ("experimenter", ["Jane Smith", "Lee, Bob"], ["Smith, Jane", "Lee, Bob"], "check_experimenter_form"),
        ("experimenter", ["Smith, Jane", " Smith,  Jane "], ["Smith, Jane"], "check_experimenter_form"),
        # keywords: a string → a list; in a list, spaces and repeats go.
        ("keywords", "V1, Neuropixels", ["V1", "Neuropixels"], "check_keywords"),
        ("keywords", "V1", ["V1"], "check_keywords"),
        ("keywords", [" V1 ", "v1", "", "Neuropixels"], ["V1", "Neuropixels"], "check_keywords"),
        # whitespace around free text.
        ("institution", "  MIT ", "MIT", "check_institution"),
        (
            "experiment_description",
            "Visual responses in V1.\n",
            "Visual responses in V1.",
            "check_experiment_description",
        ),
        # only spaces: no value, so the validation asks for it (nothing is invented in its place).
        ("institution", "   ", "", "check_institution"),
        ("subject_id", " ", "", "check_subject_id_no_slashes"),
        # dates written in other forms → ISO 8601, naive times in the lab's timezone.
        ("session_start_time", "15.03.2024 14:30", "2024-03-15T14:30:00+01:00", SCHEMA_VIOLATION),
        ("session_start_time", "March 15, 2024 2:30 pm", "2024-03-15T14:30:00+01:00", SCHEMA_VIOLATION),
        ("session_start_time", " 2024-03-15T14:30:00 ", "2024-03-15T14:30:00", SCHEMA_VIOLATION),
        ("date_of_birth", "10 Jan 2024", "2024-01-10", SCHEMA_VIOLATION),
    ],
)
def test_form_is_fixed(field: str, before: Any, after: Any, check_name: str) -> None:
    fixed, applied = fix_metadata({field: before}, timezone=TIMEZONE)

    assert fixed == {field: after}
    (fix,) = applied
    assert (fix.field, fix.before, fix.after, fix.check_name) == (field, before, after, check_name)
    assert fix.reason


@pytest.mark.parametrize(
    ("field", "value"),
    [
        # Already right: nothing to record.
        ("subject_id", "mouse001"),
        ("age", "P90D"),
        ("age", "P8W/P10W"),
        ("species", "Mus musculus"),
        ("species", "http://purl.obolibrary.org/obo/NCBITaxon_10090"),
        ("sex", "F"),
        ("sex", "XX"),
        ("experimenter", "Smith, Jane"),
        ("experimenter", ["Smith, Jane", "Lee, Bob"]),
        ("experimenter", ["García López, María José", "Ruiz, Pablo"]),  # family names of two words
        ("keywords", ["V1", "Neuropixels"]),
        ("institution", "MIT"),
        ("session_start_time", "2024-03-15T14:30:00"),
        ("session_start_time", "2024-03-15T14:30:00+09:00"),
        ("session_start_time", datetime(2024, 3, 15, 14, 30)),
        ("date_of_birth", "2024-01-10"),
        ("date_of_birth", date(2024, 1, 10)),
        # DANDI rewrites "_", "." and spaces only in its file names (sub-mouse-001), which nothing refuses.
        ("subject_id", "mouse_001"),
        ("subject_id", "M1.2"),
        # Fields no check reads are kept exactly as typed.
        ("lab", " Smith Lab "),
        ("strain", "C57BL/6J"),
        ("session_description", "Day 3 "),
        # Cannot be fixed without guessing: left for the validation to ask.
        ("age", "adult"),
        ("age", "young adult"),
        ("age", "E15"),
        ("age", "90"),
        ("age", "P90D/P60D"),
        ("species", "monkey"),
        ("species", "spiny mouse"),
        ("species", "unicorn"),
        ("sex", "maybe"),
        ("experimenter", "Smith"),
        ("experimenter", "Smith, Jane, Bob Lee"),
        ("session_start_time", "03/04/2024 10:00"),
        ("session_start_time", "yesterday at 10"),
        ("date_of_birth", "spring 2023"),
        # Values of another type are not text to fix.
        ("age", 90),
        ("keywords", [1, 2]),
        # Empty is "not given" already.
        ("institution", ""),
    ],
)
def test_values_that_are_right_or_cannot_be_fixed_stay(field: str, value: Any) -> None:
    fixed, applied = fix_metadata({field: value}, timezone=TIMEZONE)

    assert fixed == {field: value}
    assert applied == []


def test_an_adult_is_not_given_an_age() -> None:
    fixed, applied = fix_metadata({"age": "adult", "sex": "female"}, timezone=TIMEZONE)

    assert fixed["age"] == "adult"
    assert [fix.field for fix in applied] == ["sex"]


def test_absent_values_are_never_added() -> None:
    values = {"subject_id": "mouse/1", "experimenter": None}

    fixed, applied = fix_metadata(values, timezone=TIMEZONE)

    # No placeholder experimenter, species, sex or anything else appears.
    assert fixed == {"subject_id": "mouse-1", "experimenter": None}
    assert [fix.field for fix in applied] == ["subject_id"]
    assert fix_metadata({}, timezone=TIMEZONE) == ({}, [])


def test_keys_that_are_not_fields_pass_through_untouched() -> None:
    fixed, applied = fix_metadata({"timezone": " Europe/Paris ", "notes": "mouse/1"}, timezone=TIMEZONE)

    assert fixed == {"timezone": " Europe/Paris ", "notes": "mouse/1"}
    assert applied == []


def test_the_input_is_not_changed() -> None:
    values = {"species": "mouse", "keywords": [" V1 "]}

    fix_metadata(values, timezone=TIMEZONE)

    assert values == {"species": "mouse", "keywords": [" V1 "]}


MESSY = {
    "experimenter": "Dr. Jane Smith and Bob Lee",
    "institution": " MIT ",
    "experiment_description": "Noise. ",
    "keywords": "V1; Neuropixels; v1",
    "session_start_time": "15.03.2024 14:30",
    "subject_id": "mouse/001",
    "species": "mice",
    "sex": "female",
    "age": "12 weeks",
    "date_of_birth": "10 Jan 2024",
    "strain": "C57BL/6J",
}


def test_one_fix_per_field_and_fixing_again_changes_nothing() -> None:
    fixed, applied = fix_metadata(MESSY, timezone=TIMEZONE)

    assert sorted(fix.field for fix in applied) == sorted(set(MESSY) - {"strain"})
    assert fix_metadata(fixed, timezone=TIMEZONE) == (fixed, [])


def test_fixed_values_are_what_the_conversion_and_nwbinspector_accept() -> None:
    fixed, _ = fix_metadata(MESSY, timezone=TIMEZONE)

    assert fixed == {
        "experimenter": ["Smith, Jane", "Lee, Bob"],
        "institution": "MIT",
        "experiment_description": "Noise.",
        "keywords": ["V1", "Neuropixels"],
        "session_start_time": "2024-03-15T14:30:00+01:00",
        "subject_id": "mouse-001",
        "species": "Mus musculus",
        "sex": "F",
        "age": "P12W",
        "date_of_birth": "2024-01-10",
        "strain": "C57BL/6J",
    }


def test_every_fix_names_a_check_the_validation_knows() -> None:
    _, applied = fix_metadata(MESSY, timezone=TIMEZONE)

    for fix in applied:
        assert fix.field in FIELDS
        assert rule_for(fix.check_name) is not None, fix.check_name


@pytest.mark.parametrize(
    "fix",
    [
        AppliedFix("age", "90 days", "P90D", "check_subject_age", "written as an ISO 8601 duration"),
        AppliedFix("keywords", "V1, NP", ["V1", "NP"], "check_keywords", "split"),
        AppliedFix("device description 'NeuropixelsImec0'", "", "Neuropixels 1.0 probe", "check_description", "x"),
    ],
)
def test_applied_fix_round_trips_through_json(fix: AppliedFix) -> None:
    import json

    assert AppliedFix.from_json(json.loads(json.dumps(fix.to_json()))) == fix

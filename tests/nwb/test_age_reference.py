"""An age counted from fertilisation ("6 dpf") is written as NWB 2.6 keeps it: Subject.age "P6D" with
age__reference "gestational"; without one, the reference stays NWB's default, "birth"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from conversions.nwb.detection import detect_format
from conversions.nwb.normalizers import normalize_field, post_fertilisation_age
from conversions.nwb.validation import inspect_nwb

from .conftest import convert_upload, real_recording

SPIKEGLX = "spikeglx/Noise4Sam_g0"
LARVA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Recordings to test the portal.",
    "subject_id": "larva-3",
    "species": "Danio rerio",
    "sex": "U",
    "age": "P6D",
}


def _convert(tmp_path: Path, metadata: dict[str, Any], **way: Any) -> Path:
    root = real_recording(SPIKEGLX)
    return convert_upload(
        root, detect_format(root), tmp_path / "x.nwb", {"metadata": metadata, "timezone": "Europe/Paris"}, **way
    )


@pytest.mark.parametrize("way", [{"writer": "fast"}, {"writer": "neuroconv"}], ids=["fast", "neuroconv"])
def test_an_age_from_fertilisation_is_written_with_the_gestational_reference(
    tmp_path: Path, read_nwb: Any, way: dict[str, Any]
) -> None:
    output = _convert(tmp_path, {**LARVA, "age__reference": "gestational"}, **way)

    subject = read_nwb(output).subject
    assert (subject.age, subject.age__reference) == ("P6D", "gestational")
    assert not [issue for issue in inspect_nwb(output) if "age" in issue.check_name]


def test_without_a_reference_the_age_counts_from_birth(tmp_path: Path, read_nwb: Any) -> None:
    subject = read_nwb(_convert(tmp_path, LARVA, writer="fast")).subject
    assert (subject.age, subject.age__reference) == ("P6D", "birth")


@pytest.mark.parametrize(
    ("said", "duration"),
    [("6 dpf", "P6D"), ("6dpf", "P6D"), ("36 hpf", "PT36H"), ("5 days post fertilization", "P5D"), ("6 weeks", None)],
)
def test_ages_from_fertilisation_read_as_durations(said: str, duration: str | None) -> None:
    assert post_fertilisation_age(said) == duration


@pytest.mark.parametrize(
    ("said", "reference"),
    [
        ("gestational", "gestational"),
        ("from fertilisation", "gestational"),
        ("birth", "birth"),
        ("after hatching", "birth"),
    ],
)
def test_the_age_reference_in_words(said: str, reference: str) -> None:
    assert normalize_field("age__reference", said) == reference


def test_an_age_in_dpf_typed_as_the_age_says_how_to_give_it() -> None:
    with pytest.raises(ValueError, match="gestational"):
        normalize_field("age", "7 dpf")
    with pytest.raises(ValueError, match="birth or gestational"):
        normalize_field("age__reference", "yesterday")

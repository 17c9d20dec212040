"""Output names as DANDI expects them."""

from __future__ import annotations

from datetime import datetime

import pytest

from conversions.nwb.naming import dandi_file_name, label, session_label


@pytest.mark.parametrize(
    ("subject_id", "session_id", "modality", "name"),
    [
        ("mouse001", "20240315T143000", "ecephys", "sub-mouse001_ses-20240315T143000_ecephys.nwb"),
        ("mouse_01/a", None, "ecephys", "sub-mouse-01-a_ecephys.nwb"),
        ("R7", "day 3", "icephys", "sub-R7_ses-day-3_icephys.nwb"),
        (None, "20240315T143000", "ecephys", "Noise4Sam_g0.nwb"),
        ("///", None, "ecephys", "Noise4Sam_g0.nwb"),
    ],
)
def test_dandi_file_name(subject_id: str | None, session_id: str | None, modality: str, name: str) -> None:
    assert (
        dandi_file_name(subject_id=subject_id, session_id=session_id, modality=modality, fallback="Noise4Sam_g0")
        == name
    )


def test_labels_keep_only_letters_digits_and_hyphens() -> None:
    assert label(" M-12 (left) ") == "M-12-left"


def test_session_label_from_the_start_time() -> None:
    assert session_label("2024-03-15T14:30:00") == "20240315T143000"
    assert session_label(datetime(2024, 3, 15, 14, 30)) == "20240315T143000"

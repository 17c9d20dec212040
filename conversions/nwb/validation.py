"""Check a converted file the way DANDI does (nwbinspector, "dandi" configuration) and explain
what it finds in words a scientist can act on."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)

# nwbinspector's importance levels we report; its PYNWB_VALIDATION (schema) is folded into ERROR.
CRITICAL = "CRITICAL"
BEST_PRACTICE_VIOLATION = "BEST_PRACTICE_VIOLATION"
BEST_PRACTICE_SUGGESTION = "BEST_PRACTICE_SUGGESTION"
ERROR = "ERROR"

# check_name of the issues this module makes itself, for failures nwbinspector reports without one.
UNREADABLE_FILE = "nwb_file_unreadable"
SCHEMA_VIOLATION = "nwb_schema_violation"
CHECK_CRASHED = "inspector_check_failed"


@dataclass(frozen=True)
class InspectionIssue:
    check_name: str
    importance: str  # CRITICAL | BEST_PRACTICE_VIOLATION | BEST_PRACTICE_SUGGESTION | ERROR
    message: str
    location: str
    object_type: str
    object_name: str

    def to_json(self) -> dict[str, str]:
        return {
            "check_name": self.check_name,
            "importance": self.importance,
            "message": self.message,
            "location": self.location,
            "object_type": self.object_type,
            "object_name": self.object_name,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InspectionIssue:
        return cls(
            check_name=str(data["check_name"]),
            importance=str(data["importance"]),
            message=str(data["message"]),
            location=str(data.get("location", "")),
            object_type=str(data.get("object_type", "")),
            object_name=str(data.get("object_name", "")),
        )


class Outcome(StrEnum):
    PASSED = "passed"
    PASSED_WITH_ISSUES = "passed_with_issues"
    FAILED = "failed"


def inspect_nwb(path: Path) -> list[InspectionIssue]:
    """Run nwbinspector with DANDI's configuration (and pynwb's schema validation) on `path`.

    A file that cannot be opened, a schema violation or a check that crashes becomes an ERROR
    issue rather than an exception: the answer is always a list.
    """
    from nwbinspector import Importance, inspect_nwbfile, load_config

    try:
        messages = list(inspect_nwbfile(nwbfile_path=path, config=load_config("dandi")))
    except Exception as error:  # e.g. a backend nwbinspector cannot open at all
        logger.warning("nwbinspector could not inspect %s", path, exc_info=True)
        return [_error_issue(UNREADABLE_FILE, f"The file could not be inspected: {type(error).__name__}: {error}")]

    issues: list[InspectionIssue] = []
    for message in messages:
        name = str(message.check_function_name or "")
        if message.importance is Importance.ERROR:
            logger.warning("nwbinspector error on %s: %s\n%s", path, name, message.message)
            if name.startswith("During io.read()"):
                issues.append(
                    _error_issue(UNREADABLE_FILE, f"PyNWB could not read the file: {_last_line(message.message)}")
                )
            else:
                issues.append(_error_issue(CHECK_CRASHED, f"{name}: {_last_line(message.message)}"))
            continue
        if message.importance is Importance.PYNWB_VALIDATION:
            # For schema errors nwbinspector puts the offending type's name where the check name goes.
            issues.append(
                InspectionIssue(
                    check_name=SCHEMA_VIOLATION,
                    importance=ERROR,
                    message=str(message.message),
                    location=str(message.location or ""),
                    object_type=name,
                    object_name="",
                )
            )
            continue
        issues.append(
            InspectionIssue(
                check_name=name,
                importance=message.importance.name,
                message=str(message.message),
                location=str(message.location or ""),
                object_type=str(message.object_type or ""),
                object_name=str(message.object_name or ""),
            )
        )
    return issues


def outcome_of(issues: Iterable[InspectionIssue]) -> Outcome:
    """CRITICAL or ERROR → FAILED (DANDI would refuse the file); other issues → PASSED_WITH_ISSUES."""
    importances = {issue.importance for issue in issues}
    if importances & {CRITICAL, ERROR}:
        return Outcome.FAILED
    if importances:
        return Outcome.PASSED_WITH_ISSUES
    return Outcome.PASSED


def explain(issue: InspectionIssue) -> str:
    """One plain sentence for a scientist; the inspector's own message when the check is not known."""
    guidance = _GUIDANCE.get(issue.check_name)
    if guidance is None:
        return _first_sentence(issue.message)
    return guidance.text(issue) if callable(guidance.text) else guidance.text


def fields_for(issue: InspectionIssue) -> tuple[str, ...]:
    """The metadata fields (names from `fields.py`) whose values would resolve `issue`."""
    guidance = _GUIDANCE.get(issue.check_name)
    return guidance.fields if guidance else ()


@dataclass(frozen=True)
class _Guidance:
    text: str | Callable[[InspectionIssue], str]
    fields: tuple[str, ...] = ()


def _describe_missing_description(issue: InspectionIssue) -> str:
    what = {"Device": "device", "Subject": "subject", "ElectrodeGroup": "electrode group"}.get(
        issue.object_type, issue.object_type or "an object"
    )
    name = f" '{issue.object_name}'" if issue.object_name and issue.object_type != "Subject" else ""
    return f"The {what}{name} has no description; a short one helps others understand the data."


def _describe_sex(issue: InspectionIssue) -> str:
    if "missing" in issue.message:
        return "The subject's sex is missing; give M (male), F (female), U (unknown) or O (other)."
    if "elegans" in issue.message:
        return "For C. elegans the sex must be XO (male) or XX (hermaphrodite)."
    return "The subject's sex must be written M (male), F (female), U (unknown) or O (other)."


def _describe_age(issue: InspectionIssue) -> str:
    if "missing" in issue.message:
        return "The subject's age is missing; give it (e.g. 90 days) or a date of birth."
    return "The subject's age is not in a form NWB accepts; give it in days, weeks or months (e.g. P90D for 90 days)."


def _describe_missing_cell_id(issue: InspectionIssue) -> str:
    name = f" '{issue.object_name}'" if issue.object_name else ""
    return (
        f"The patch-clamp electrode{name} does not say which cell it recorded; a cell id (as in your notes) lets "
        "others find every recording of one cell."
    )


_GUIDANCE: dict[str, _Guidance] = {
    "check_subject_exists": _Guidance(
        "The file has no subject: DANDI needs the animal's id, species, sex and age.",
        ("subject_id", "species", "sex", "age"),
    ),
    "check_subject_id_exists": _Guidance(
        "The subject has no id; give the animal's id as your lab records it.", ("subject_id",)
    ),
    "check_subject_id_no_slashes": _Guidance(
        "The subject id contains a slash (/), which DANDI cannot use in file names; use a dash instead.",
        ("subject_id",),
    ),
    "check_session_id_no_slashes": _Guidance(
        "The session id contains a slash (/), which DANDI cannot use in file names; use a dash instead."
    ),
    "check_subject_sex": _Guidance(_describe_sex, ("sex",)),
    "check_subject_species_exists": _Guidance(
        "The subject's species is missing; give its Latin name, e.g. Mus musculus.", ("species",)
    ),
    "check_subject_species_form": _Guidance(
        "The species must be a Latin name such as Mus musculus, not a common name.", ("species",)
    ),
    "check_subject_age": _Guidance(_describe_age, ("age",)),
    "check_subject_proper_age_range": _Guidance(
        "The subject's age range is the wrong way round; put the lower bound first (e.g. P60D/P90D).",
        ("age",),
    ),
    "check_subject_weight": _Guidance("The subject's weight needs a number and a unit, e.g. 0.025 kg."),
    "check_experimenter_exists": _Guidance(
        "No experimenter is named; say who recorded the session.", ("experimenter",)
    ),
    "check_experimenter_form": _Guidance(
        "Experimenter names should be written 'Last, First' (e.g. Smith, Jane).", ("experimenter",)
    ),
    "check_institution": _Guidance("The institution where the data was recorded is missing.", ("institution",)),
    "check_keywords": _Guidance("The file has no keywords; a few help others find the data on DANDI.", ("keywords",)),
    "check_experiment_description": _Guidance(
        "The experiment is not described; a sentence on what was studied helps others reuse the data.",
        ("experiment_description",),
    ),
    "check_description": _Guidance(_describe_missing_description),
    "check_electrodes_location_allen_ccf": _Guidance(
        "The electrodes' brain area is 'unknown'; name it with an Allen Mouse Brain Atlas term (e.g. VISp) if known."
    ),
    "check_session_start_time_future_date": _Guidance(
        "The session start time is in the future; check the date and time.", ("session_start_time",)
    ),
    "check_session_start_time_old_date": _Guidance(
        "The session start time is before 1980, which is likely wrong; check the date.",
        ("session_start_time",),
    ),
    "check_column_binary_capability": _Guidance(
        "A table column holds only two values; this is a storage suggestion and needs nothing from you."
    ),
    "check_data_orientation": _Guidance("A data array seems to be stored with time along the wrong axis."),
    "check_intracellular_electrode_cell_id_exists": _Guidance(_describe_missing_cell_id),
    "check_single_row": _Guidance("A table has only one row; this is a storage suggestion and needs nothing from you."),
    UNREADABLE_FILE: _Guidance("The NWB file could not be opened; the conversion needs to be run again."),
    SCHEMA_VIOLATION: _Guidance("The file does not follow the NWB format's rules; the conversion needs fixing."),
    CHECK_CRASHED: _Guidance("One of the inspector's checks could not run on this file."),
}


def _error_issue(check_name: str, message: str) -> InspectionIssue:
    return InspectionIssue(
        check_name=check_name, importance=ERROR, message=message, location="", object_type="", object_name=""
    )


def _last_line(text: str) -> str:
    lines = [line for line in str(text).strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def _first_sentence(text: str) -> str:
    text = " ".join(str(text).split())
    end = text.find(". ")
    return text[: end + 1] if end != -1 else text

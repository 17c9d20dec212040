"""Check a converted file the way DANDI does (nwbinspector, "dandi" configuration) and explain
what it finds in words a scientist can act on."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

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


def inspect_nwb(path: Path, *, schema_errors: Sequence[Any] | None = None) -> list[InspectionIssue]:
    """Run nwbinspector with DANDI's configuration (and pynwb's schema validation) on `path`.

    A file that cannot be opened, a schema violation or a check that crashes becomes an ERROR
    issue rather than an exception: the answer is always a list.

    `schema_errors`: pynwb's validation of this file, when the caller has it already (pynwb's
    `ValidationError`s); nwbinspector then skips its own run of the same validation and they are
    reported first, as nwbinspector reports its own.
    """
    from nwbinspector import Importance, inspect_nwbfile, load_config

    try:
        messages = list(
            inspect_nwbfile(nwbfile_path=path, config=load_config("dandi"), skip_validate=schema_errors is not None)
        )
    except Exception as error:  # e.g. a backend nwbinspector cannot open at all
        logger.warning("nwbinspector could not inspect %s", path, exc_info=True)
        return [_error_issue(UNREADABLE_FILE, f"The file could not be inspected: {type(error).__name__}: {error}")]

    issues: list[InspectionIssue] = []
    unreadable = any(
        message.importance is Importance.ERROR and str(message.check_function_name).startswith("During io.read()")
        for message in messages
    )
    if schema_errors and not unreadable:  # nwbinspector validates only a file it could read
        issues += [_schema_violation(error.name, error.reason, error.location) for error in schema_errors]
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
            issues.append(_schema_violation(name, message.message, message.location))
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


def _schema_violation(type_name: Any, reason: Any, location: Any) -> InspectionIssue:
    return InspectionIssue(
        check_name=SCHEMA_VIOLATION,
        importance=ERROR,
        message=str(reason),
        location=str(location or ""),
        object_type=str(type_name or ""),
        object_name="",
    )


def outcome_of(issues: Iterable[InspectionIssue]) -> Outcome:
    """CRITICAL or ERROR → FAILED (DANDI would refuse the file); other issues → PASSED_WITH_ISSUES."""
    importances = {issue.importance for issue in issues}
    if importances & {CRITICAL, ERROR}:
        return Outcome.FAILED
    if importances:
        return Outcome.PASSED_WITH_ISSUES
    return Outcome.PASSED


def rule_for(check_name: str) -> Rule | None:
    """The portal's rule for an nwbinspector check (or for this module's own issue names), if any."""
    return RULES.get(check_name)


def action_for(issue: InspectionIssue) -> str:
    """ "fix", "ask" or "explain": what the portal does about `issue` ("explain" for unknown checks,
    and for a "fix" rule's issue about an object its fix does not cover)."""
    rule = RULES.get(issue.check_name)
    if rule is None:
        return "explain"
    if rule.action == "fix" and rule.fixes_only and issue.object_type not in rule.fixes_only:
        return "explain"
    return rule.action


def explain(issue: InspectionIssue) -> str:
    """One plain sentence for a scientist; the inspector's own message when the check is not known."""
    rule = RULES.get(issue.check_name)
    if rule is None:
        return _first_sentence(issue.message)
    return rule.text(issue) if callable(rule.text) else rule.text


def fields_for(issue: InspectionIssue) -> tuple[str, ...]:
    """The metadata fields (names from `fields.py`) whose values would resolve `issue`: where the page
    and the report link to. Only `fields_to_ask` are asked for."""
    rule = RULES.get(issue.check_name)
    if rule is None:
        return ()
    return rule.fields_from(issue) if rule.fields_from is not None else rule.fields


def fields_to_ask(issue: InspectionIssue) -> tuple[str, ...]:
    """The fields the portal asks the user for about `issue`: none for an "explain" rule, whose
    fields are only linked (a suggestion must not hold up a file DANDI would accept)."""
    rule = RULES.get(issue.check_name)
    if rule is None or rule.action == "explain":
        return ()
    return fields_for(issue)


@dataclass(frozen=True)
class Rule:
    """What the portal does about one check.

    "fix": the portal prevents it itself; `how` says what does it and where, and `fields` the metadata
    fields it rewrites, if any. "ask": only the user knows the answer; `fields` (names from
    `fields.py`) are what to ask for and `text` the words. "explain": there is nothing to ask for;
    `text` says what it means and what, if anything, the user can do, and `fields`, if any, are where
    a value the user may give settles it: linked from the issue, never asked for (`fields_to_ask`).
    """

    action: Literal["fix", "ask", "explain"]
    text: str | Callable[[InspectionIssue], str]
    fields: tuple[str, ...] = ()
    how: str = ""
    # For a "fix" rule, the object types its fix covers (empty: all). An issue about another object
    # cannot be fixed by the portal, so it is only explained.
    fixes_only: tuple[str, ...] = ()
    # For checks whose field depends on the message (DANDI's upload check names the field it could
    # not read): the fields for one issue, instead of `fields`.
    fields_from: Callable[[InspectionIssue], tuple[str, ...]] | None = None


# Checks of modalities the portal never writes are left out of RULES: ophys (ImagingPlane,
# OpticalChannel, PlaneSegmentation, RoiResponseSeries), compass directions, image collections
# (Images, IndexSeries) and optogenetics (OptogeneticStimulusSite). The portal converts ecephys and
# icephys recordings, sorted units, pose (ndx-pose's series are SpatialSeries) and behaviour videos
# (external ImageSeries), which hold none of these types, so those checks cannot fire on its files.
# Listed by neurodata type so that a new check on any other type (tests iterate nwbinspector's
# registry) needs a rule.
LEFT_OUT_NEURODATA_TYPES = frozenset(
    {
        "ImagingPlane",
        "OpticalChannel",
        "PlaneSegmentation",
        "RoiResponseSeries",
        "CompassDirection",
        "Images",
        "IndexSeries",
        "OptogeneticStimulusSite",
    }
)

_DESCRIBED_BY_CONVERSION = ("Device", "DeviceModel", "ElectrodeGroup")
_OBJECT_WORDS = {
    "NWBFile": "file",
    "Device": "device",
    "DeviceModel": "device model",
    "ElectrodeGroup": "electrode group",
    "Subject": "subject",
    "ElectricalSeries": "recording",
    "TimeSeries": "signal",
    "Units": "table of sorted units",
    "IntracellularElectrode": "patch-clamp electrode",
}
# Said of problems in the recorded data itself, which the conversion copies as the reader gives them.
_FROM_THE_RECORDING = (
    "The conversion writes what the recording software saved, so check the original files (or export "
    "them again); if they look right, tell the portal's maintainers."
)


def _named(issue: InspectionIssue) -> str:
    what = _OBJECT_WORDS.get(issue.object_type, issue.object_type or "object")
    if issue.object_type in ("NWBFile", "Subject"):  # one per file; their names ("root", "subject") say nothing
        return f"The {what}"
    return f"The {what} '{issue.object_name}'" if issue.object_name else f"A {what}"


def _quoted(message: str, quote: str = "'") -> str:
    """The first value the inspector quotes in its message ('...'), or ""."""
    found = re.search(f"{quote}([^{quote}]*){quote}", message)
    return found.group(1) if found else ""


def _describe_missing_description(issue: InspectionIssue) -> str:
    missing = "has only a placeholder description" if "placeholder" in issue.message else "has no description"
    if issue.object_type == "Subject":
        return (
            "The subject has no description. It is optional: a sentence about the animal beyond its species, sex "
            "and age (genotype, surgery, housing) helps others reuse the data."
        )
    if issue.object_type in ("VectorData", "DynamicTableRegion", "VectorIndex"):
        return (
            f"The table column '{issue.object_name}' {missing}: the recording software saved it without saying "
            "what it holds, and the portal does not know. It needs nothing from you."
        )
    return f"{_named(issue)} {missing}; a short one helps others understand the data."


def _describe_sex(issue: InspectionIssue) -> str:
    if "missing" in issue.message:
        return "The subject's sex is missing; give M (male), F (female), U (unknown) or O (other)."
    if "elegans" in issue.message:
        return "For C. elegans the sex must be XO (male) or XX (hermaphrodite)."
    return "The subject's sex must be written M (male), F (female), U (unknown) or O (other)."


def _describe_age(issue: InspectionIssue) -> str:
    if "missing" in issue.message:
        return "The subject's age is missing; give it (e.g. 90 days) or a date of birth."
    given = _quoted(issue.message)
    return (
        f"The subject's age{f' ({given!r})' if given else ''} is not in a form NWB accepts and could not be "
        "rewritten without guessing; give it in days, weeks or months (e.g. 90 days, which NWB writes P90D)."
    )


def _describe_missing_cell_id(issue: InspectionIssue) -> str:
    name = f" '{issue.object_name}'" if issue.object_name else ""
    return (
        f"The patch-clamp electrode{name} does not say which cell it recorded; give the cell id as in your notes "
        "(e.g. c3): it lets others find every recording of one cell."
    )


def _describe_experimenter_form(issue: InspectionIssue) -> str:
    name = _quoted(issue.message)
    given = f" ('{name}')" if name else ""
    return (
        f"The experimenter's name{given} is not written 'Last, First' (e.g. Smith, Jane), and the portal could not "
        "tell which part is the family name; give the full name in that form."
    )


def _describe_empty_optional_text(issue: InspectionIssue) -> str:
    attribute = _quoted(issue.message, quote='"')
    return (
        f"{_named(issue)} has an optional text ('{attribute}') left empty: the recording does not give it. This is "
        "only a suggestion and needs nothing from you."
    )


def _describe_location(issue: InspectionIssue) -> str:
    where = _quoted(issue.message) or "unknown"
    what = "patch-clamp electrode's" if issue.object_type == "IntracellularElectrode" else "electrodes'"
    return (
        f"The {what} brain area ('{where}') is not a term of the Allen Mouse Brain Atlas; if you know where they "
        "were, give the recording location as an Atlas term (e.g. VISp). DANDI accepts the file without it."
    )


_SUBJECT_ID_FIX = "before converting, `autofix.fix_metadata` replaces '/' (and '\\') in the subject id by '-'"

RULES: dict[str, Rule] = {
    # --- the session ---------------------------------------------------------------------------------
    "check_session_start_time_future_date": Rule(
        "ask", "The session start time is in the future; check the date, time and timezone.", ("session_start_time",)
    ),
    "check_session_start_time_old_date": Rule(
        "ask",
        "The session start time is before 1980, which usually means the recording computer's clock was not set; "
        "give the real date and time.",
        ("session_start_time",),
    ),
    "check_experimenter_exists": Rule(
        "ask", "No experimenter is named; say who recorded the session.", ("experimenter",)
    ),
    "check_experimenter_form": Rule(
        "ask",
        _describe_experimenter_form,
        ("experimenter",),
        how="before converting, `autofix.fix_metadata` rewrites names it can read unambiguously ('Jane Smith' "
        "becomes 'Smith, Jane'); only the others reach the user",
    ),
    "check_experiment_description": Rule(
        "ask",
        "The experiment is not described; a sentence on what was studied helps others reuse the data.",
        ("experiment_description",),
    ),
    "check_institution": Rule("ask", "The institution where the data was recorded is missing.", ("institution",)),
    "check_keywords": Rule("ask", "The file has no keywords; a few help others find the data on DANDI.", ("keywords",)),
    "check_doi_publications": Rule(
        "explain",
        "A related publication is not written as a DOI (e.g. doi:10.1234/abcd or https://doi.org/10.1234/abcd); "
        "the portal does not write publications, so this comes from elsewhere and is only a suggestion.",
    ),
    "check_session_id_no_slashes": Rule(
        "fix",
        "The session id contains a slash (/), which DANDI cannot use in file names; use a dash instead.",
        how="conversion sets the session id from the start time (e.g. 20240315T143000), which has no slash",
    ),
    "check_file_extension": Rule(
        "fix",
        "The file's name does not end in .nwb.",
        how="the portal names every file it writes '<name>.nwb'",
    ),
    "check_processing_module_name": Rule(
        "explain",
        "A processing module has a name other than NWB's usual ones (ecephys, icephys, behavior...); this is a "
        "naming suggestion and needs nothing from you.",
    ),
    # --- the subject ---------------------------------------------------------------------------------
    "check_subject_exists": Rule(
        "ask",
        "The file has no subject: DANDI needs the animal's id, species, sex and age.",
        ("subject_id", "species", "sex", "age"),
    ),
    "check_subject_id_exists": Rule(
        "ask", "The subject has no id; give the animal's id as your lab records it.", ("subject_id",)
    ),
    "check_subject_id_no_slashes": Rule(
        "fix",
        "The subject id contains a slash (/), which DANDI cannot use in file names; use a dash instead.",
        ("subject_id",),
        how=_SUBJECT_ID_FIX,
    ),
    "check_subject_sex": Rule(
        "ask",
        _describe_sex,
        ("sex",),
        how="before converting, `autofix.fix_metadata` writes words such as 'female' as F",
    ),
    "check_subject_species_exists": Rule(
        "ask", "The subject's species is missing; give its Latin name, e.g. Mus musculus.", ("species",)
    ),
    "check_subject_species_form": Rule(
        "ask",
        "The species must be a Latin name such as Mus musculus, and the portal could not tell which species "
        "was meant; give the Latin name.",
        ("species",),
        how="before converting, `autofix.fix_metadata` writes common names it knows ('mouse') as the Latin name",
    ),
    "check_subject_age": Rule(
        "ask",
        _describe_age,
        ("age",),
        how="before converting, `autofix.fix_metadata` writes ages such as '90 days' as P90D; words without a "
        "number ('adult') are left for the user",
    ),
    "check_subject_proper_age_range": Rule(
        "ask",
        "The subject's age range is the wrong way round; put the lower bound first (e.g. P60D/P90D).",
        ("age",),
    ),
    "check_subject_weight": Rule(
        "explain",
        "The subject's weight needs a number and a unit, e.g. 0.025 kg; the portal does not ask for weight, so "
        "this value came from elsewhere.",
    ),
    # --- any object ----------------------------------------------------------------------------------
    "check_description": Rule(
        "fix",
        _describe_missing_description,
        how="conversion describes each device and device model from the model, maker and serial number read "
        "from the file, electrode groups the reader leaves undescribed from the recording system, and the "
        "electrodes-table columns whose meaning it knows (Intan header fields, Neuropixels sampling shift)",
        fixes_only=_DESCRIBED_BY_CONVERSION,
    ),
    "check_name_slashes": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} has a '/' or '\\' in its name, which NWB reserves for paths inside the "
            "file. The name comes from the recording (a stream, channel group or device name); tell the portal's "
            "maintainers."
        ),
    ),
    "check_name_colons": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} has a ':' in its name, which some tools handle badly. The name comes from "
            "the recording; this is only a suggestion and needs nothing from you."
        ),
    ),
    "check_empty_string_for_optional_attribute": Rule("explain", _describe_empty_optional_text),
    "check_small_dataset_compression": Rule(
        "fix",
        "A large array in the file is stored without compression.",
        how="conversion writes every array with neuroconv's default compression (gzip), see "
        "`conversion.build_backend_configuration`",
    ),
    "check_large_dataset_compression": Rule(
        "fix",
        "A very large array in the file is stored without compression.",
        how="conversion writes every array with neuroconv's default compression (gzip), see "
        "`conversion.build_backend_configuration`",
    ),
    # --- extracellular recordings and sorted units ----------------------------------------------------
    "check_electrodes_location_allen_ccf": Rule("explain", _describe_location, ("location",)),
    "check_electrical_series_dims": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} has a different number of channels than electrodes listed for it, so "
            "the data may be stored the wrong way round. This is a conversion error; tell the portal's maintainers."
        ),
    ),
    "check_electrical_series_reference_electrodes_table": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} does not point to the file's electrodes table. This is a conversion "
            "error; tell the portal's maintainers."
        ),
    ),
    "check_electrical_series_unscaled_data": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} is stored as raw numbers without the factor that turns them into volts: "
            "the file does not give the gain. The data are intact; if you know the gain, the recording can be "
            "converted again with it."
        ),
    ),
    "check_units_table_has_spikes": Rule(
        "explain",
        "The table of sorted units has no spike times. " + _FROM_THE_RECORDING,
    ),
    "check_negative_spike_times": Rule(
        "explain",
        "Some spike times are before the session start. " + _FROM_THE_RECORDING,
    ),
    "check_ascending_spike_times": Rule(
        "explain",
        "Some units' spike times are out of order or repeated, which a sorting should not produce. "
        + _FROM_THE_RECORDING,
    ),
    "check_spike_times_not_in_samples": Rule(
        "explain",
        "The spike times are whole numbers, as if they counted samples rather than seconds. " + _FROM_THE_RECORDING,
    ),
    # --- the behaviour video and the pose tracked in it ------------------------------------------------
    "check_image_series_external_file_valid": Rule(
        "explain",
        "The NWB file links to a video that is not beside it. The portal keeps each video in the folder "
        "named after the NWB file (<name>_video); keep that folder next to the NWB file when you move or upload it.",
    ),
    "check_image_series_external_file_relative": Rule(
        "fix",
        "The video is linked by an absolute path, which breaks as soon as the files are moved.",
        how="formats/video.py links each video by its path relative to the NWB file (<name>_video/<file>)",
    ),
    "check_image_series_data_size": Rule(
        "fix",
        "The video's frames are stored inside the NWB file, which makes it very large; DANDI asks for videos to "
        "stay video files beside it.",
        how="formats/video.py never stores frames inside the file: every video is linked as an external file",
    ),
    "check_image_series_starting_frame_without_external_file": Rule(
        "fix",
        "A video series says where each file starts without linking any file.",
        how="formats/video.py writes starting_frame only together with the external file it counts in",
    ),
    "check_spatial_series_dims": Rule(
        "explain",
        "A pose series holds more than three coordinates per frame; body parts are tracked in x and y (and z). "
        "This comes from the pose file as the tracking software wrote it.",
    ),
    "check_spatial_series_unit": Rule(
        "explain",
        "A pose or position series names a unit that is not a length, an angle, pixels or 'n.a.'. This comes "
        "from the pose file as the tracking software wrote it.",
    ),
    "check_spatial_series_degrees_magnitude": Rule(
        "explain",
        "A series in degrees holds values beyond ±360, which angles in degrees do not reach. This comes from the "
        "tracking software's output.",
    ),
    "check_spatial_series_radians_magnitude": Rule(
        "explain",
        "A series in radians holds values beyond ±2π, which angles in radians do not reach. This comes from the "
        "tracking software's output.",
    ),
    "check_units_table_duration": Rule(
        "explain",
        "The spike times span more than a year, which suggests they are not in seconds. " + _FROM_THE_RECORDING,
    ),
    "check_spike_times_not_in_unobserved_interval": Rule(
        "explain",
        "Some spikes fall outside the periods the units are said to have been observed. " + _FROM_THE_RECORDING,
    ),
    "check_units_resolution_is_set": Rule(
        "explain",
        "The table of sorted units does not say how precise its spike times are (one sample of the recording "
        "system). It needs nothing from you.",
    ),
    "check_units_resolution_is_valid": Rule(
        "explain",
        "The precision given for the spike times is over 10 ms, as if the sampling rate had been given instead. "
        + _FROM_THE_RECORDING,
    ),
    # --- patch clamp -----------------------------------------------------------------------------------
    "check_intracellular_electrode_cell_id_exists": Rule("ask", _describe_missing_cell_id, ("cell_id",)),
    "check_intracellular_electrode_location_allen_ccf": Rule("explain", _describe_location, ("location",)),
    "check_sweeptable_deprecated": Rule(
        "fix",
        "The file uses NWB's old table of sweeps (SweepTable).",
        how="conversion writes sweeps into NWB's intracellular recordings tables (neuroconv's "
        "AxonIntracellularConverter), never the old SweepTable",
    ),
    # --- tables ------------------------------------------------------------------------------------------
    "check_single_row": Rule(
        "explain", "A table has only one row; this is a storage suggestion and needs nothing from you."
    ),
    "check_column_binary_capability": Rule(
        "explain",
        "A table column holds only two values; this is a storage suggestion and needs nothing from you.",
    ),
    "check_empty_table": Rule("explain", lambda issue: f"{_named(issue)} is empty. It needs nothing from you."),
    "check_col_not_nan": Rule(
        "explain",
        "A table column holds no values (only NaN): the recording did not give them. It needs nothing from you.",
    ),
    "check_table_values_for_dict": Rule(
        "explain",
        "A table column holds structured text (a dictionary written as a string) where separate columns would be "
        "clearer. It comes from the recording's settings and needs nothing from you.",
    ),
    "check_ids_unique": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} lists the same row id twice. This is a conversion error; tell the portal's maintainers."
        ),
    ),
    "check_dynamic_table_region_data_validity": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} points to rows that do not exist. This is a conversion error; tell the "
            "portal's maintainers."
        ),
    ),
    "check_table_time_columns_are_not_negative": Rule(
        "explain", "Some times in a table are before the session start. " + _FROM_THE_RECORDING
    ),
    "check_time_intervals_start_time_not_constant": Rule(
        "explain", "Every interval in a table starts at the same time. " + _FROM_THE_RECORDING
    ),
    "check_time_interval_time_columns": Rule(
        "explain", "The intervals of a table are not in time order. " + _FROM_THE_RECORDING
    ),
    "check_time_intervals_stop_after_start": Rule(
        "explain", "Some intervals end before they start. " + _FROM_THE_RECORDING
    ),
    "check_time_intervals_duration": Rule(
        "explain", "The intervals of a table span more than a year. " + _FROM_THE_RECORDING
    ),
    # --- signals (time series) -------------------------------------------------------------------------
    "check_data_orientation": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} has more channels than samples, so it looks stored the wrong way round. "
            "That is expected for a recording this short (a preview, or a file of a few samples) and needs nothing "
            "from you; on a long recording, tell the portal's maintainers."
        ),
    ),
    "check_timestamps_match_first_dimension": Rule(
        "explain",
        lambda issue: f"{_named(issue)} has a different number of time stamps than samples. " + _FROM_THE_RECORDING,
    ),
    "check_timestamps_ascending": Rule(
        "explain", lambda issue: f"{_named(issue)} has time stamps out of order. " + _FROM_THE_RECORDING
    ),
    "check_timestamps_without_nans": Rule(
        "explain", lambda issue: f"{_named(issue)} has missing time stamps (NaN). " + _FROM_THE_RECORDING
    ),
    "check_timestamp_of_the_first_sample_is_not_negative": Rule(
        "explain", lambda issue: f"{_named(issue)} starts before the session start. " + _FROM_THE_RECORDING
    ),
    "check_regular_timestamps": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} stores a time stamp for every sample although they are evenly spaced; a "
            "start time and a rate would be smaller. This is a storage suggestion and needs nothing from you."
        ),
    ),
    "check_missing_unit": Rule(
        "explain",
        lambda issue: f"{_named(issue)} does not say its unit (volts, amperes...): the recording does not give it.",
    ),
    "check_resolution": Rule(
        "explain",
        lambda issue: f"{_named(issue)} gives an impossible resolution (zero or negative). " + _FROM_THE_RECORDING,
    ),
    "check_rate_is_not_zero": Rule(
        "explain", lambda issue: f"{_named(issue)} has a sampling rate of 0 Hz. " + _FROM_THE_RECORDING
    ),
    "check_rate_is_positive": Rule(
        "explain", lambda issue: f"{_named(issue)} has a negative sampling rate. " + _FROM_THE_RECORDING
    ),
    "check_rate_not_below_threshold": Rule(
        "explain",
        lambda issue: (
            f"{_named(issue)} has a sampling rate below 0.01 Hz, as if the sampling period had been "
            "given instead. " + _FROM_THE_RECORDING
        ),
    ),
    "check_time_series_duration": Rule(
        "explain", lambda issue: f"{_named(issue)} seems to last more than a year. " + _FROM_THE_RECORDING
    ),
    "check_time_series_data_is_not_empty": Rule(
        "explain", lambda issue: f"{_named(issue)} holds no samples. " + _FROM_THE_RECORDING
    ),
    # --- this module's own issues --------------------------------------------------------------------
    UNREADABLE_FILE: Rule("explain", "The NWB file could not be opened; the conversion needs to be run again."),
    SCHEMA_VIOLATION: Rule("explain", "The file does not follow the NWB format's rules; the conversion needs fixing."),
    CHECK_CRASHED: Rule("explain", "One of the inspector's checks could not run on this file."),
    # --- DANDI's own validator (conversions.nwb.dandi_validation) ---------------------------------------
    "dandi_upload_metadata_rejected": Rule(
        "ask",
        lambda issue: _describe_dandi_metadata(issue),
        fields=("species", "sex", "age"),  # those it may name; fields_from says which one
        fields_from=lambda issue: _dandi_metadata_fields(issue),
    ),
    "dandi:pynwb": Rule(
        "explain",
        lambda issue: (
            "DANDI's validator found a part of the file that does not follow the NWB format: "
            + _first_sentence(issue.message)
        ),
    ),
    "dandi:pynwb.GENERIC": Rule(
        "explain", lambda issue: "DANDI's validator questions the file's NWB version: " + _first_sentence(issue.message)
    ),
    "dandi_validation_failed": Rule(
        "explain", "DANDI's own validator could not run on this file; nwbinspector's checks above still apply."
    ),
}

_DANDI_FIELD_RE = re.compile(r"Cannot interpret (\w+) field", re.IGNORECASE)


def _dandi_metadata_fields(issue: InspectionIssue) -> tuple[str, ...]:
    match = _DANDI_FIELD_RE.search(issue.message)
    field = match.group(1).lower() if match else ""
    return (field,) if field in ("species", "sex", "age") else ()


def _describe_dandi_metadata(issue: InspectionIssue) -> str:
    fields = _dandi_metadata_fields(issue)
    if fields == ("species",):
        value = issue.message.split("field:", 1)[-1].split(".")[0].strip() if "field:" in issue.message else ""
        named = f" “{value}”" if value else ""
        return (
            f"DANDI does not know the species{named} by name, so it would refuse the file. Give the species as its "
            "NCBI Taxonomy link instead (look it up at https://www.ncbi.nlm.nih.gov/taxonomy), e.g. "
            "http://purl.obolibrary.org/obo/NCBITaxon_9606 for Homo sapiens."
        )
    if fields:
        return f"DANDI could not read the subject's {fields[0]}, so it would refuse the file. " + _first_sentence(
            issue.message
        )
    return "DANDI could not read the file's metadata, so it would refuse the file: " + _first_sentence(issue.message)


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

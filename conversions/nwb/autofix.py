"""Form fixes the portal makes to the user's metadata itself, each recorded so the user sees it.

`fix_metadata` runs on the values (keyed by the names in `fields.py`) before a conversion. Each fix
changes only how a value is written, never what it says, and each is tied to the nwbinspector check
it prevents (`AppliedFix.check_name`). It never adds a value that was absent and never guesses one
("adult" is not an age; "monkey" is not a species): a value it cannot fix stays as it is, and the
validation of the converted file asks for it. Fixing fixed values changes nothing, so running it
twice records nothing new.

Fixes the conversion makes to what a reader leaves undescribed (devices, electrode groups) are
recorded as `AppliedFix` too (see `conversion.py`). The orchestrator stores each fixed value with
provenance `auto_fix` (`orchestrator.state.Source.AUTO_FIX`), shown as "auto-fix" on the pages.
Pure: no Django, no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .normalizers import (
    normalize_age,
    normalize_date,
    normalize_datetime,
    normalize_experimenter,
    normalize_keywords,
    normalize_sex,
    normalize_species,
    normalize_subject_id,
)
from .validation import SCHEMA_VIOLATION


@dataclass(frozen=True)
class AppliedFix:
    """One change of form: `field` is a name from `fields.py`, or for fixes the conversion makes in
    the file, what was changed in words (e.g. "device description 'NeuropixelsImec0'")."""

    field: str
    before: Any
    after: Any
    check_name: str  # the nwbinspector check the fix prevents
    reason: str  # plain words for the user

    def to_json(self) -> dict[str, Any]:
        return {
            "field": self.field,
            "before": self.before,
            "after": self.after,
            "check_name": self.check_name,
            "reason": self.reason,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> AppliedFix:
        return cls(
            field=str(data["field"]),
            before=data.get("before"),
            after=data.get("after"),
            check_name=str(data["check_name"]),
            reason=str(data.get("reason", "")),
        )


def fix_metadata(values: Mapping[str, Any], *, timezone: str) -> tuple[dict[str, Any], list[AppliedFix]]:
    """The values with their form fixed, and one `AppliedFix` per field changed.

    `timezone` is the zone a date and time written without one is in, as for the conversion. Fields
    that are absent stay absent; keys that are not metadata fields pass through untouched.
    """
    fixed = dict(values)
    applied: list[AppliedFix] = []
    for name, (check_name, fix) in _FIXERS.items():
        if name not in values or values[name] is None:
            continue
        change = fix(values[name], timezone)
        if change is None:
            continue
        after, reason = change
        fixed[name] = after
        applied.append(AppliedFix(field=name, before=values[name], after=after, check_name=check_name, reason=reason))
    return fixed, applied


# A fix: (value, timezone) -> (fixed value, reason), or None when the value is already right or
# cannot be fixed.
_Fix = Callable[[Any, str], tuple[Any, str] | None]

_TRIMMED = "spaces around the text removed"
_BLANK = "only spaces: treated as not given, so the portal asks for it"


def _text_fix(normalize: Callable[[str], Any] | None, reason: str) -> _Fix:
    """A fix for a text field: trim, then `normalize` (a normalizer from `normalizers.py`, which
    raises ValueError on what it cannot read: the trimmed text is kept then)."""

    def fix(value: Any, timezone: str) -> tuple[Any, str] | None:
        if not isinstance(value, str):
            return None
        trimmed = value.strip()
        if not trimmed:
            return ("", _BLANK) if value else None
        try:
            normalized = normalize(trimmed) if normalize else trimmed
        except ValueError:
            normalized = trimmed
        if normalized == value:
            return None
        return normalized, reason if normalized != trimmed else _TRIMMED

    return fix


def _subject_id(text: str) -> str:
    # nwbinspector refuses "/" (CRITICAL for DANDI); "\" separates folders on Windows and is refused in
    # object names alike. Other characters DANDI rewrites only in its file names ("_", ".", spaces...
    # become "-" in sub-<id>), as `naming.label` does here, so the id itself keeps them.
    return normalize_subject_id(text).replace("\\", "-")


def _experimenter(value: Any, timezone: str) -> tuple[Any, str] | None:
    """ "Jane Smith" → ["Smith, Jane"]; a list is fixed name by name. A name the normalizer finds
    ambiguous is kept as given."""
    reason = "written as DANDI credits people: 'Last, First' (e.g. Smith, Jane), one person each, without titles"
    if isinstance(value, str):
        fixed = _text_fix(normalize_experimenter, reason)(value, timezone)
        if fixed is not None and fixed[0] == [value]:
            return None  # one name, already right; only the container differs
        return fixed
    if not isinstance(value, list | tuple) or not all(isinstance(name, str) for name in value):
        return None
    names: list[str] = []
    for name in value:
        try:
            names.extend(normalize_experimenter(name, one_person=True))
        except ValueError:
            if name.strip():
                names.append(name.strip())
    names = list(dict.fromkeys(names))
    if names == list(value):
        return None
    return names, reason


def _keywords(value: Any, timezone: str) -> tuple[Any, str] | None:
    """ "V1, Neuropixels" → ["V1", "Neuropixels"]; in a list, spaces and repeats are removed."""
    if isinstance(value, str):
        return _text_fix(normalize_keywords, "split into separate keywords")(value, timezone)
    if not isinstance(value, list | tuple) or not all(isinstance(word, str) for word in value):
        return None
    unique: dict[str, str] = {}
    for word in value:
        if word.strip():
            unique.setdefault(word.strip().lower(), word.strip())
    words = list(unique.values())
    if words == list(value):
        return None
    return words, "spaces, empty and repeated keywords removed"


def _moment_fix(normalize: Callable[[str, str], str], reason: str) -> _Fix:
    """Dates and times: ISO 8601 text is already right (the conversion reads it, naive ones in the
    lab's timezone); other written forms are rewritten by `normalize`, which refuses ambiguous dates."""

    def fix(value: Any, timezone: str) -> tuple[Any, str] | None:
        if not isinstance(value, str):
            return None  # a date or datetime object
        trimmed = value.strip()
        try:
            datetime.fromisoformat(trimmed)
        except ValueError:
            try:
                return normalize(trimmed, timezone), reason
            except ValueError:
                pass
        return _text_fix(None, _TRIMMED)(value, timezone)

    return fix


_FIXERS: dict[str, tuple[str, _Fix]] = {
    "experimenter": ("check_experimenter_form", _experimenter),
    "institution": ("check_institution", _text_fix(None, _TRIMMED)),
    "experiment_description": ("check_experiment_description", _text_fix(None, _TRIMMED)),
    "keywords": ("check_keywords", _keywords),
    # neuroconv refuses a start time or birth date it cannot read, before nwbinspector sees the file.
    "session_start_time": (
        SCHEMA_VIOLATION,
        _moment_fix(normalize_datetime, "written as an ISO 8601 date and time with its UTC offset, as NWB requires"),
    ),
    "subject_id": (
        "check_subject_id_no_slashes",
        _text_fix(_subject_id, "'/' replaced by '-': DANDI puts the subject id in folder names, where '/' cannot be"),
    ),
    "species": (
        "check_subject_species_form",
        _text_fix(normalize_species, "written as the Latin name (genus and species), the form DANDI requires"),
    ),
    "sex": (
        "check_subject_sex",
        _text_fix(normalize_sex, "written as NWB's code: M (male), F (female), U (unknown) or O (other)"),
    ),
    "age": (
        "check_subject_age",
        _text_fix(normalize_age, "written as an ISO 8601 duration (P90D is 90 days), the form NWB requires"),
    ),
    "date_of_birth": (
        SCHEMA_VIOLATION,
        _moment_fix(lambda text, timezone: normalize_date(text), "written as an ISO 8601 date (YYYY-MM-DD)"),
    ),
}
# Left as typed: lab, strain and session_description, which no check reads, so nothing to prevent.

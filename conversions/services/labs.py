"""A lab's own records: the defaults its new sessions start with, and its subject registry.

Any member of a lab may read them; only its managers (and portal staff) change them, from the lab
settings page or the API. Values are stored in the form NWB and DANDI expect (the metadata
normalizers of conversions.nwb), so a session can use them as they are. Every change is kept as an
AuditEvent without a session.
"""

from __future__ import annotations

import csv
import functools
import io
import re
import zoneinfo
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import transaction
from django.db.models import QuerySet

from conversions.errors import BadRequest, Conflict, NotFound, PortalError
from conversions.models import AuditEvent, Lab, Membership, Subject
from conversions.nwb.normalizers import (
    MAX_KEYWORDS,
    normalize_date,
    normalize_experimenter,
    normalize_institution,
    normalize_sex,
    normalize_species,
    normalize_subject_id,
    unfit_characters,
)

TEXT_LIMIT = 200
# The lab's experimenters are offered in every new session; a list this long is already a directory.
MAX_EXPERIMENTERS = 100
# The lab's own settings a manager may change. `data_root` is not among them: it opens a folder of
# the portal's server, which only portal admins decide.
SETTINGS_FIELDS = ("institution", "lab_name", "timezone", "keywords", "experimenters", "llm_consent")
SUBJECT_COLUMNS = ("subject_id", "species", "sex", "date_of_birth", "strain", "description")
MAX_IMPORT_BYTES = 2 * 1024 * 1024
MAX_IMPORT_ROWS = 5000


class NotAllowed(PortalError):
    """The user sees the lab but may not change it."""

    status_code = 403


class InvalidValues(BadRequest):
    """Values refused, each with what to give instead, keyed by field."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(" ".join(f"{_FIELD_LABELS.get(name, name)}: {message}" for name, message in errors.items()))
        self.errors = errors


_FIELD_LABELS = {
    "institution": "Institution",
    "lab_name": "Lab name",
    "timezone": "Time zone",
    "keywords": "Keywords",
    "experimenters": "Experimenters",
    "llm_consent": "LLM consent",
    "subject_id": "Subject id",
    "species": "Species",
    "sex": "Sex",
    "date_of_birth": "Date of birth",
    "strain": "Strain",
    "description": "Description",
}


# --- who may do what ------------------------------------------------------------------------------


def lab_for(user: User, lab_id: int, *, to_change: bool = False) -> Lab:
    """The lab if the user may read it (to change it: manage it). A lab the user is not in is
    NotFound, so its existence is not revealed; a member who is not a manager is NotAllowed."""
    lab = Lab.objects.filter(id=lab_id).first() if user.is_authenticated else None
    if lab is None:
        raise NotFound("No such lab.")
    if user.is_staff:
        return lab
    role = Membership.objects.filter(user=user, lab=lab).values_list("role", flat=True).first()
    if role is None:
        raise NotFound("No such lab.")
    if to_change and role != Membership.Role.MANAGER:
        raise NotAllowed(f"Only the managers of {lab.name} can change its settings and subject registry.")
    return lab


def may_change(user: User, lab: Lab) -> bool:
    return user.is_staff or Membership.objects.filter(user=user, lab=lab, role=Membership.Role.MANAGER).exists()


def labs_changeable_by(user: User) -> QuerySet[Lab]:
    if not user.is_authenticated:
        return Lab.objects.none()
    if user.is_staff:
        return Lab.objects.all()
    return Lab.objects.filter(memberships__user=user, memberships__role=Membership.Role.MANAGER)


def managers_of(lab: Lab) -> list[str]:
    return [m.user.get_username() for m in lab.memberships.filter(role=Membership.Role.MANAGER).select_related("user")]


# --- settings -------------------------------------------------------------------------------------


@functools.cache
def timezone_names() -> dict[str, str]:
    """Every IANA time zone name, keyed by its lower-case form."""
    return {name.lower(): name for name in sorted(zoneinfo.available_timezones())}


def clean_timezone(text: str) -> str:
    name = (text or "").strip()
    if not name:
        raise ValueError("Choose the lab's time zone, e.g. Europe/Paris or UTC.")
    if name.lower() not in timezone_names():
        raise ValueError(f"“{name}” is not a time zone name; choose one from the list, e.g. Europe/Paris or UTC.")
    return timezone_names()[name.lower()]


def clean_keywords(value: str | Iterable[str]) -> list[str]:
    """Keywords from "V1, Neuropixels" or a list, without blanks and without repeats (any case)."""
    items = re.split(r"[,;\n]", value) if isinstance(value, str) else list(value)
    unique: dict[str, str] = {}
    for item in items:
        if (problem := unfit_characters(str(item).strip())) is not None:
            raise ValueError(f"The keyword “{_shown(item)}” {problem}.")
        word = " ".join(str(item).split())
        if len(word) > TEXT_LIMIT:
            raise ValueError(f"“{word[:40]}…” is longer than {TEXT_LIMIT} characters; keywords are short.")
        if word:
            unique.setdefault(word.lower(), word)
    if len(unique) > MAX_KEYWORDS:
        raise ValueError(f"That is {len(unique)} keywords; give at most {MAX_KEYWORDS}, the ones that best find it.")
    return list(unique.values())


def clean_experimenters(value: str | Iterable[str]) -> list[str]:
    """Names, one a line (or a list), as DANDI wants them: "Jane Smith" → "Smith, Jane"."""
    lines = value.splitlines() if isinstance(value, str) else [str(item) for item in value]
    names: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        if (problem := unfit_characters(line.strip())) is not None:
            raise ValueError(f"“{_shown(line)}” {problem}.")
        try:
            names.extend(normalize_experimenter(line))
        except ValueError as error:
            raise ValueError(f"“{line.strip()}”: {error}") from None
    names = list(dict.fromkeys(names))
    if len(names) > MAX_EXPERIMENTERS:
        raise ValueError(f"That is {len(names)} people; a lab lists at most {MAX_EXPERIMENTERS} who record.")
    return names


def _text(value: Any) -> str:
    """A short value (a name, an id, a place) on one line, without markup or control characters."""
    raw = str(value or "")
    if (problem := unfit_characters(raw.strip())) is not None:
        raise ValueError(f"This {problem}; give it as plain text.")
    text = " ".join(raw.split())
    if len(text) > TEXT_LIMIT:
        raise ValueError(f"Keep it under {TEXT_LIMIT} characters (this is {len(text)}).")
    return text


def _institution(value: Any) -> str:
    return normalize_institution(_text(value))


def _consent(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ValueError("Give true or false.")
    return value


_SETTING_CLEANERS = {
    "institution": _institution,
    "lab_name": _text,
    "timezone": clean_timezone,
    "keywords": clean_keywords,
    "experimenters": clean_experimenters,
    "llm_consent": _consent,
}


def clean_settings(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The given settings in their stored form; InvalidValues names every one refused."""
    cleaned: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        try:
            cleaned[name] = _SETTING_CLEANERS[name](value)
        except ValueError as error:
            errors[name] = str(error)
    if errors:
        raise InvalidValues(errors)
    return cleaned


def settings_of(lab: Lab) -> dict[str, Any]:
    return {name: getattr(lab, name) for name in SETTINGS_FIELDS}


def change_settings(*, lab: Lab, actor: User, values: Mapping[str, Any]) -> list[str]:
    """Store clean settings (see `clean_settings`); the names of those that changed, audited."""
    with transaction.atomic():
        locked = Lab.objects.select_for_update().get(id=lab.id)
        changes = {
            name: {"before": getattr(locked, name), "after": value}
            for name, value in values.items()
            if name in SETTINGS_FIELDS and getattr(locked, name) != value
        }
        if changes:
            for name, change in changes.items():
                setattr(locked, name, change["after"])
            locked.save(update_fields=list(changes))
            _audit(actor, "lab_settings_changed", {"lab_id": lab.id, "lab": lab.name, "changed": changes})
    lab.refresh_from_db()
    return list(changes)


# --- the subject registry -------------------------------------------------------------------------


def _subject_id(value: Any) -> str:
    text = normalize_subject_id(_text(value))
    if not text:
        raise ValueError("Give the subject's id, e.g. mouse001.")
    return text


def _species(value: Any) -> str:
    text = _text(value)
    return normalize_species(text) if text else ""


def _sex(value: Any) -> str:
    text = _text(value)
    if not text:
        return ""
    sex = normalize_sex(text)
    if sex not in Subject.Sex.values:
        raise ValueError(f"“{text}” cannot be registered; say male, female, unknown or other.")
    return sex


def _date_of_birth(value: Any) -> date | None:
    if isinstance(value, date):
        value = value.isoformat()
    text = _text(value)
    return date.fromisoformat(normalize_date(text)) if text else None


def _description(value: Any) -> str:
    text = str(value or "").strip()
    if (problem := unfit_characters(text, lines=True, markup=True)) is not None:
        raise ValueError(f"This {problem}.")
    return text


def _shown(text: Any) -> str:
    """A refused value as an answer can quote it: printable, and short."""
    printable = "".join(char if char.isprintable() else "\N{REPLACEMENT CHARACTER}" for char in str(text).strip())
    return printable[:40] + ("…" if len(printable) > 40 else "")


_SUBJECT_CLEANERS = {
    "subject_id": _subject_id,
    "species": _species,
    "sex": _sex,
    "date_of_birth": _date_of_birth,
    "strain": _text,
    "description": _description,
}


def clean_subject(raw: Mapping[str, Any]) -> dict[str, Any]:
    """The given subject fields in their stored form ("mouse" → "Mus musculus", "male" → "M", a
    date → ISO); InvalidValues names every one refused."""
    cleaned: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for name, value in raw.items():
        try:
            cleaned[name] = _SUBJECT_CLEANERS[name](value)
        except ValueError as error:
            errors[name] = str(error)
    if errors:
        raise InvalidValues(errors)
    return cleaned


def _matching(subject_id: str) -> str:
    return normalize_subject_id(subject_id.strip())


def find_subject(lab: Lab, subject_id: str) -> Subject | None:
    """The registered subject with this id, whatever its case and surrounding spaces."""
    return lab.subjects.filter(subject_id__iexact=_matching(subject_id)).first()


def subject_facts(lab: Lab, subject_id: str) -> dict[str, str]:
    """What the registry knows of a subject, as session metadata values (species, sex, date of
    birth in ISO form, strain; only those given); {} for an unregistered id."""
    subject = find_subject(lab, subject_id) if subject_id and subject_id.strip() else None
    if subject is None:
        return {}
    facts = {
        "species": subject.species,
        "sex": subject.sex,
        "date_of_birth": subject.date_of_birth.isoformat() if subject.date_of_birth else "",
        "strain": subject.strain,
    }
    return {name: value for name, value in facts.items() if value}


def add_subject(*, lab: Lab, actor: User, values: Mapping[str, Any]) -> Subject:
    """Register a subject from clean values; Conflict if its id is already registered."""
    with transaction.atomic():
        Lab.objects.select_for_update().get(id=lab.id)
        if lab.subjects.count() >= settings.LAB_MAX_SUBJECTS:
            raise Conflict(_full(lab))
        subject = _add(lab, values)
        _audit(actor, "subject_registered", {"lab_id": lab.id, "lab": lab.name, "subject_id": subject.subject_id})
    return subject


def change_subject(*, subject: Subject, actor: User, values: Mapping[str, Any]) -> list[str]:
    """Change a registered subject with clean values; the names of the fields that changed."""
    with transaction.atomic():
        Lab.objects.select_for_update().get(id=subject.lab_id)
        changes = _change(subject, values)
        if changes:
            _audit(
                actor,
                "subject_changed",
                {
                    "lab_id": subject.lab_id,
                    "lab": subject.lab.name,
                    "subject_id": subject.subject_id,
                    "changed": changes,
                },
            )
    return list(changes)


def remove_subject(*, subject: Subject, actor: User) -> None:
    with transaction.atomic():
        _audit(
            actor,
            "subject_removed",
            {
                "lab_id": subject.lab_id,
                "lab": subject.lab.name,
                "subject_id": subject.subject_id,
                "was": {name: _jsonable(getattr(subject, name)) for name in SUBJECT_COLUMNS},
            },
        )
        subject.delete()


def _full(lab: Lab) -> str:
    return (
        f"{lab.name}'s registry would hold more than {settings.LAB_MAX_SUBJECTS} subjects, the most a lab's "
        "registry holds; nothing was added. Remove subjects the lab no longer uses first."
    )


def _add(lab: Lab, values: Mapping[str, Any]) -> Subject:
    if find_subject(lab, values["subject_id"]) is not None:
        raise Conflict(f"“{values['subject_id']}” is already in the registry; change it instead of adding it again.")
    return Subject.objects.create(lab=lab, **values)


def _change(subject: Subject, values: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    new_id = values.get("subject_id")
    if new_id is not None:
        other = find_subject(subject.lab, new_id)
        if other is not None and other.pk != subject.pk:
            raise Conflict(f"“{new_id}” is already another subject in the registry.")
    changes = {
        name: {"before": _jsonable(getattr(subject, name)), "after": _jsonable(value)}
        for name, value in values.items()
        if getattr(subject, name) != value
    }
    if changes:
        for name in changes:
            setattr(subject, name, values[name])
        subject.save()
    return changes


# --- importing a table of subjects ----------------------------------------------------------------


@dataclass
class ImportReport:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    # One line per problem, naming the row as a spreadsheet numbers it (the header is row 1).
    errors: list[str] = field(default_factory=list)

    def summary(self) -> str:
        if self.errors:
            return (
                f"Nothing was imported: {len(self.errors)} problem{'s' if len(self.errors) != 1 else ''} "
                "to fix in the file first."
            )
        return (
            f"Imported: {len(self.added)} added, {len(self.updated)} updated, {len(self.unchanged)} already up to date."
        )


def import_subjects(*, lab: Lab, actor: User, content: bytes) -> ImportReport:
    """Add or update subjects from a CSV file (columns: SUBJECT_COLUMNS, subject_id required).

    All or nothing: if any row is refused, nothing is stored, and the report says what to fix in
    which row. A column the file lacks leaves that field of existing subjects as it is; an empty
    cell clears it.
    """
    report = ImportReport()
    rows = _read_rows(content, report)
    cleaned: list[tuple[int, dict[str, Any]]] = []
    seen: dict[str, int] = {}
    for number, row in rows:
        try:
            values = clean_subject(row)
        except InvalidValues as error:
            who = f" ({row['subject_id'].strip()})" if row.get("subject_id", "").strip() else ""
            report.errors.extend(
                f"Row {number}{who}: {_FIELD_LABELS[name].lower()}: {message}" for name, message in error.errors.items()
            )
            continue
        key = values["subject_id"].lower()
        if key in seen:
            report.errors.append(f"Row {number}: subject “{values['subject_id']}” is already in row {seen[key]}.")
            continue
        seen[key] = number
        cleaned.append((number, values))
    if report.errors:
        return report
    with transaction.atomic():
        Lab.objects.select_for_update().get(id=lab.id)
        changed: dict[str, Any] = {}
        for _, values in cleaned:
            existing = find_subject(lab, values["subject_id"])
            if existing is None:
                report.added.append(_add(lab, values).subject_id)
                continue
            # The registered spelling of the id stays: the file's matches it, whatever the case.
            changes = _change(existing, {name: value for name, value in values.items() if name != "subject_id"})
            if changes:
                report.updated.append(existing.subject_id)
                changed[existing.subject_id] = changes
            else:
                report.unchanged.append(existing.subject_id)
        if lab.subjects.count() > settings.LAB_MAX_SUBJECTS:
            # All or nothing, as for a refused row: what was added is taken back.
            transaction.set_rollback(True)
            report.errors.append(_full(lab))
            report.added, report.updated, report.unchanged = [], [], []
            return report
        if report.added or report.updated:
            _audit(
                actor,
                "subjects_imported",
                {"lab_id": lab.id, "lab": lab.name, "added": report.added, "changed": changed},
            )
    return report


def _read_rows(content: bytes, report: ImportReport) -> list[tuple[int, dict[str, str]]]:
    if len(content) > MAX_IMPORT_BYTES:
        report.errors.append(f"The file is larger than {MAX_IMPORT_BYTES // (1024 * 1024)} MB; split it.")
        return []
    try:
        text = content.decode("utf-8-sig")
    except UnicodeDecodeError:
        report.errors.append("The file is not UTF-8 text: save it from the spreadsheet as “CSV UTF-8”.")
        return []
    if not text.strip():
        report.errors.append("The file is empty.")
        return []
    reader = csv.DictReader(io.StringIO(text), dialect=_dialect(text))
    header = [(name or "").strip().lower() for name in reader.fieldnames or []]
    unknown = [name for name in header if name not in SUBJECT_COLUMNS]
    if unknown or "subject_id" not in header or len(set(header)) != len(header):
        report.errors.append(
            f"Row 1 (the header) must name the columns, each once, from: {', '.join(SUBJECT_COLUMNS)} "
            f"(subject_id is required). It has: {', '.join(header) or 'nothing'}."
        )
        return []
    reader.fieldnames = header
    rows: list[tuple[int, dict[str, str]]] = []
    try:
        for row in reader:
            if None in row:
                report.errors.append(f"Row {reader.line_num}: more cells than the header has columns.")
                continue
            if not any((value or "").strip() for value in row.values()):
                continue
            rows.append((reader.line_num, {name: value or "" for name, value in row.items()}))
            if len(rows) > MAX_IMPORT_ROWS:
                report.errors.append(f"The file has more than {MAX_IMPORT_ROWS} subjects; split it.")
                return []
    except csv.Error as error:
        report.errors.append(f"Row {reader.line_num}: the file is not valid CSV ({error}).")
    if not rows and not report.errors:
        report.errors.append("The file has a header but no subjects.")
    return rows


def _dialect(text: str) -> type[csv.Dialect] | csv.Dialect:
    """Commas, or the semicolons or tabs some spreadsheets write instead."""
    try:
        return csv.Sniffer().sniff(text.splitlines()[0], delimiters=",;\t")
    except csv.Error:
        return csv.excel


# --- the record -----------------------------------------------------------------------------------


def _jsonable(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _audit(actor: User, kind: str, detail: dict[str, Any]) -> None:
    AuditEvent.objects.create(session=None, actor=actor if actor.is_authenticated else None, kind=kind, detail=detail)

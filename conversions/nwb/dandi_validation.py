"""Check a converted file with DANDI's own validator (the `dandi` package), beside nwbinspector.

`check_nwb` is what the portal runs on a converted file: both tools' findings, merged, each piece of
their work done once. `validate_with_dandi` runs `dandi validate` whole, as described below.

What `dandi validate` does with one NWB file (dandi 0.81), as this module reports it:
- runs nwbinspector again, with DANDI's configuration and without its suggestions
  (`dandi:NWBI.<check>`). These repeat `inspect_nwb` word for word, and `merge_findings` drops them;
  nwbinspector's own failures (it could not read the file, a check crashed) are left out altogether,
  since `inspect_nwb` reports them from its own run of the same code.
- runs pynwb's schema validation (`dandi:pynwb`). nwbinspector reports the same violations when it
  can read the file; when it cannot, dandi's are the ones that say why.
- checks the file's `nwb_version` string (`dandi:pynwb.GENERIC`).
It does not turn the subject into DANDI's metadata. `dandi upload` does: it reads species, sex and
age into DANDI's terms and refuses the file when that fails, so this module does the same
(`dandi_upload_metadata_rejected`). It catches what nwbinspector lets through: dandi knows 13 species
by name, and any other (e.g. "Taeniopygia guttata", a valid Latin binomial) must be given as an
NCBITaxon URL.

Left out: dandi's checks of where a file sits in a dandiset (`DANDI.NO_DANDISET_FOUND` for any file
outside a folder holding a dandiset.yaml; `DANDI.NON_DANDI_FILENAME`/`NON_DANDI_FOLDERNAME` for names
other than those `dandi organize` gives). They judge a dandiset folder, not the file, and the portal
hands over single files; validating the file without a dandiset path makes dandi skip them.

dandi's severities become importances: ERROR → CRITICAL (DANDI refuses the upload), WARNING →
BEST_PRACTICE_VIOLATION, HINT/INFO → BEST_PRACTICE_SUGGESTION. A failure of the tool itself is only a
suggestion (`dandi_validation_failed`): whether the file can be read at all is `inspect_nwb`'s call.
"""

from __future__ import annotations

import logging
import os
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from conversions.nwb import namespaces
from conversions.nwb.validation import (
    BEST_PRACTICE_SUGGESTION,
    BEST_PRACTICE_VIOLATION,
    CRITICAL,
    SCHEMA_VIOLATION,
    InspectionIssue,
    inspect_nwb,
)

if TYPE_CHECKING:
    from dandi.validate import Severity, ValidationResult

logger = logging.getLogger(__name__)

# Read by dandi and etelemetry when they are imported or called, so set before dandi's first import.
# dandi asks etelemetry's server (rig.mit.edu) whether newer dandi or nwbinspector releases exist. In
# 0.81 only its command line and archive client do, not validation, but workers must not come to
# depend on the network: DANDI_NO_ET stops dandi's check, NO_ET any call through etelemetry.
os.environ.setdefault("DANDI_NO_ET", "1")
os.environ.setdefault("NO_ET", "1")
# Otherwise dandi keeps every file's pynwb validation as a pickle under ~/.cache/fscacher, growing
# with each file validated and answering from it when a path and its size and mtime repeat.
os.environ.setdefault("DANDI_CACHE", "ignore")

# check_name of the issues this module makes itself; dandi's own findings are "dandi:<dandi's id>".
DANDI_FAILED = "dandi_validation_failed"
UPLOAD_METADATA_REJECTED = "dandi_upload_metadata_rejected"

_DANDI = "dandi:"
_NWBI = "NWBI."
# dandi's id for a pynwb schema violation embeds the whole message; one name is kept for them all.
_PYNWB_VIOLATION = "pynwb"
# The longest failure detail put in an issue's message; the whole of it goes to the log.
_DETAIL_LIMIT = 300


def validate_with_dandi(path: Path) -> list[InspectionIssue]:
    """DANDI's findings on the NWB file at `path`, meant to be merged with `inspect_nwb`'s.

    Offline. Never raises: if dandi cannot be imported or crashes, the answer is one
    `dandi_validation_failed` suggestion and the traceback is logged.
    """
    try:
        return _validate(path)
    except Exception as error:
        logger.warning("DANDI's validator could not run on %s", path, exc_info=True)
        return [_tool_failure(f"{type(error).__name__}: {error}")]


def merge_findings(inspector: Sequence[InspectionIssue], dandi: Sequence[InspectionIssue]) -> list[InspectionIssue]:
    """nwbinspector's issues, then those of DANDI's that nwbinspector did not already report.

    dandi re-reports nwbinspector's checks as `dandi:NWBI.<check>` and pynwb's schema violations as
    `dandi:pynwb`; one of those is a repeat when nwbinspector's issue has the same check, place and
    message.
    """
    reported = {_identity(issue.check_name, issue) for issue in inspector}
    return [
        *inspector,
        *(issue for issue in dandi if _identity(_inspector_check_name(issue.check_name), issue) not in reported),
    ]


def check_nwb(path: Path) -> list[InspectionIssue]:
    """Everything nwbinspector and DANDI's validator find in the NWB file at `path`: what
    `merge_findings(inspect_nwb(path), validate_with_dandi(path))` gives, with each piece of work done
    once instead of twice. This is how converted files are validated.

    Run separately, the two tools repeat each other: `dandi validate` runs pynwb's schema validation
    and nwbinspector (DANDI's configuration, suggestions left out) again, and everything that second
    run of nwbinspector finds is already in `inspect_nwb`'s run of the same checks at a lower
    threshold, so `merge_findings` drops it. Here pynwb's validation runs once, in dandi's own
    function, which also checks the file's `nwb_version`; nwbinspector reuses its result instead of
    validating again; dandi's second nwbinspector run is left out; the cached schema is built once
    per process (`namespaces`). The findings are the same (tests compare the two on real and broken
    files); on a 1 GB recording's file this takes ~0.15 s instead of ~0.6 s.

    If dandi's validation function cannot be called (a dandi release that moved it), the two tools
    run whole, as `validate_with_dandi` runs dandi.
    """
    from dandi.validate import OriginType, Validator

    namespaces.install()
    try:
        results = _version_and_schema(path)
    except Exception:
        logger.warning(
            "DANDI's schema validation could not be called on %s; running each tool whole", path, exc_info=True
        )
        return merge_findings(inspect_nwb(path), validate_with_dandi(path))
    schema_ran = not any(result.origin.type is OriginType.INTERNAL for result in results)
    schema_errors = [result.origin_result for result in results if result.origin.validator is Validator.pynwb]
    inspector = inspect_nwb(path, schema_errors=schema_errors if schema_ran else None)
    return merge_findings(inspector, _findings(results, path))


def warm_up() -> None:
    """Import what `check_nwb` calls and run it once on a small file written here, as a worker does
    when it starts: otherwise the first validation in a process pays ~0.5 s of imports and first-use
    set-up (the cached schema built, nwbinspector's configuration read, dandi's models) while its
    user waits. Never raises: a worker must start even if this fails."""
    try:
        from datetime import UTC, datetime

        import numpy as np
        from pynwb import NWBHDF5IO, NWBFile, TimeSeries

        nwbfile = NWBFile(session_description="warm-up", identifier="warm-up", session_start_time=datetime.now(UTC))
        nwbfile.add_acquisition(TimeSeries(name="warm_up", data=np.zeros((10, 2)), unit="volts", rate=1.0))
        with tempfile.TemporaryDirectory(prefix="nwbportal-warm-up-") as folder:
            path = Path(folder) / "warm-up.nwb"
            with NWBHDF5IO(str(path), "w") as io:
                io.write(nwbfile)
            check_nwb(path)
    except Exception:
        logger.warning("warming up the validators failed; the first validation will be slower", exc_info=True)


def _version_and_schema(path: Path) -> list[ValidationResult]:
    """dandi's check of the file's `nwb_version` and pynwb's schema validation, as `dandi validate`
    runs them."""
    from dandi.pynwb_utils import validate

    return cast("list[ValidationResult]", validate(path))


def _validate(path: Path) -> list[InspectionIssue]:
    from dandi.files import dandi_file

    # No dandiset path: dandi then checks the file alone and skips the dandiset-layout checks.
    return _findings(dandi_file(path).get_validation_errors(), path)


def _findings(results: Sequence[ValidationResult], path: Path) -> list[InspectionIssue]:
    """dandi's validation results as issues, then what `dandi upload` would refuse in the metadata."""
    _keep_species_lookup_offline()
    issues = [issue for result in results if (issue := _to_issue(result, path)) is not None]
    if any(issue.check_name == DANDI_FAILED for issue in issues):
        return issues  # reading the metadata would fail again and say so twice
    return issues + _upload_metadata_issues(path)


def _to_issue(result: ValidationResult, path: Path) -> InspectionIssue | None:
    from dandi.validate import OriginType, Validator

    # "exception": dandi's nwbinspector run raised instead of reporting (and dandi dropped the rest).
    if result.origin.type is OriginType.INTERNAL or result.id == "exception":
        logger.warning("DANDI's validator failed on %s: %s: %s", path, result.id, result.message)
        return _tool_failure(_last_line(result.message))
    if result.origin.validator is Validator.nwbinspector:
        message = result.origin_result
        if message.importance.name == "ERROR":
            return None  # nwbinspector's own failure, which inspect_nwb reports
        return InspectionIssue(
            check_name=_DANDI + result.id,
            importance=_importance(result.severity),
            message=str(message.message),
            location=str(message.location or ""),
            object_type=str(message.object_type or ""),
            object_name=str(message.object_name or ""),
        )
    if result.origin.validator is Validator.pynwb:
        violation = result.origin_result  # pynwb's ValidationError, laid out as nwbinspector lays it out
        return InspectionIssue(
            check_name=_DANDI + _PYNWB_VIOLATION,
            importance=_importance(result.severity),
            message=str(violation.reason),
            location=str(violation.location or ""),
            object_type=str(violation.name),
            object_name="",
        )
    return InspectionIssue(
        check_name=_DANDI + result.id,
        importance=_importance(result.severity),
        message=str(result.message or ""),
        location="",
        object_type="",
        object_name="",
    )


def _upload_metadata_issues(path: Path) -> list[InspectionIssue]:
    """What `dandi upload` makes of the file's metadata: it refuses the file when this raises."""
    from dandi.files import dandi_file
    from dandi.misctypes import DUMMY_DANDI_ETAG

    try:
        dandi_file(path).get_metadata(digest=DUMMY_DANDI_ETAG, ignore_errors=False)
    except ValueError as error:  # e.g. "Cannot interpret species field: ..." (also sex, age)
        return [
            InspectionIssue(
                check_name=UPLOAD_METADATA_REJECTED,
                importance=CRITICAL,
                message=str(error),
                location="",
                object_type="",
                object_name="",
            )
        ]
    except Exception as error:  # the file could not be read; inspect_nwb says so
        logger.warning("DANDI could not read the metadata of %s", path, exc_info=True)
        return [_tool_failure(f"{type(error).__name__}: {error}")]
    return []


def _keep_species_lookup_offline() -> None:
    """Replace, for this process, dandi's one network call in reading metadata.

    For a species given as an NCBITaxon URL missing from dandi's table, dandi fetches its name from
    ontobee.org (30 s timeout), and without the network the failure would refuse the file. Raising
    the ConnectionError dandi already handles keeps the URL as the species, as a lookup that finds
    nothing does; the name only labels the species on the archive.
    """
    import dandi.metadata.util

    dandi.metadata.util.parse_purlobourl = _no_ontology_lookup


def _no_ontology_lookup(url: str, lookup: Any = None) -> dict[str, str] | None:
    raise ConnectionError(f"the portal does not look up {url} (validation runs offline)")


def _identity(check_name: str, issue: InspectionIssue) -> tuple[str, str, str, str, str]:
    return (check_name, issue.location, issue.object_type, issue.object_name, issue.message)


def _inspector_check_name(check_name: str) -> str:
    """The name nwbinspector's issues carry for what dandi reports as `check_name`."""
    if check_name.startswith(_DANDI + _NWBI):
        return check_name.removeprefix(_DANDI + _NWBI)
    if check_name == _DANDI + _PYNWB_VIOLATION:
        return SCHEMA_VIOLATION
    return check_name


def _importance(severity: Severity | None) -> str:
    from dandi.validate import Severity

    if severity is not None and severity >= Severity.ERROR:
        return CRITICAL
    if severity is not None and severity >= Severity.WARNING:
        return BEST_PRACTICE_VIOLATION
    return BEST_PRACTICE_SUGGESTION


def _tool_failure(detail: str) -> InspectionIssue:
    if len(detail) > _DETAIL_LIMIT:  # hdmf's errors can hold a dump of the whole file's layout
        detail = detail[: _DETAIL_LIMIT - 1] + "…"
    return InspectionIssue(
        check_name=DANDI_FAILED,
        importance=BEST_PRACTICE_SUGGESTION,
        message=f"DANDI's validator could not run on this file ({detail}); nwbinspector's checks still apply.",
        location="",
        object_type="",
        object_name="",
    )


def _last_line(text: str | None) -> str:
    lines = [line.strip() for line in str(text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""

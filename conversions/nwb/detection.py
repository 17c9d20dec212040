"""Which recording format an upload holds, and whether it can be converted.

Detection runs before any job is queued, so every problem a reader would hit later (missing
partner file, truncated data, a `.meta` without the start time...) is found here and reported in
plain words naming the file. Each supported format is one module under `formats/` registered in
`formats.SUPPORTED_FORMATS`: a cheap name-based claim, then a full inspection that ends by opening
the format's neuroconv interface (headers only) to confirm.

The user may then choose other streams than the defaults: `validate_stream_choice` checks a choice
and `facts_for_streams` describes it, both from the stored detection alone (no file is opened), so
the portal can answer before any job is queued.

This module sits on top of the formats (it imports the registry; the formats import only
`formats.base`), and re-exports the types and tools they share so callers keep one import path:
`Detection`, `Stream`, `StreamKind`, `SupportedFormat`, `SUPPORTED_FORMATS`, `reader_view`,
`list_upload_files`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from typing import Any

from rapidfuzz.distance import JaroWinkler

from .errors import AmbiguousRecording, RecordingProblem
from .formats import SUPPORTED_FORMATS, by_choice
from .formats.base import (
    FACT_KEYS,
    ChoiceCheck,
    ChoiceFacts,
    Detection,
    Stream,
    StreamKind,
    SupportedFormat,
    accept_any_choice,
    in_words,
    list_upload_files,
    reader_view,
    some_names,
    stream_facts,
)
from .formats.by_choice import choosable_format
from .parts import combine, restricted, split_choice

__all__ = [
    "SUPPORTED_FORMATS",
    "Detection",
    "Stream",
    "StreamKind",
    "SupportedFormat",
    "closest_formats",
    "detect_format",
    "facts_for_streams",
    "format_handler",
    "list_upload_files",
    "modality_for",
    "reader_view",
    "validate_stream_choice",
]


def detect_format(root: Path, *, format_key: str | None = None) -> Detection:
    """Inspect every file under `root` (an upload, folders kept) and say what recording it holds.

    Every format whose name rules claim the upload is inspected. One success is the answer (a note
    mentions any other claimant that failed); several raise `AmbiguousRecording` listing them, and
    the caller asks the user and calls again with the chosen `format_key`, which skips the claims
    and inspects with that format only. A key "neuroconv:<InterfaceName>" opens the upload with that
    neuroconv interface, for formats detection does not know (`formats.by_choice`). Raises
    `RecordingProblem` with a plain message when the upload is incomplete, damaged or not a
    supported format.
    """
    files = list_upload_files(root)
    if not files:
        raise RecordingProblem(
            "The upload contains no files. Upload the recording's files (or its folder) again.",
        )
    if format_key is not None:
        supported = format_handler(format_key)
        if supported is None:
            raise ValueError(f"unknown format {format_key!r}; known: {', '.join(SUPPORTED_FORMATS)}, neuroconv:<Name>")
        if supported.companion:
            return supported.inspect(root, files)
        parts = _parts(root, files)
        taken = _taken(parts)
        chosen = supported.inspect(root, [name for name in files if name not in taken])
        return combine(chosen, *parts) if parts else chosen
    claimants = [supported for supported in SUPPORTED_FORMATS.values() if supported.claims(files)]
    if not claimants:
        raise RecordingProblem(_not_recognised_message(files), detail=f"files: {files}")
    # The parts of an experiment first: the files they read are then not the recording's to claim.
    found, problems = _inspect_all(root, files, [supported for supported in claimants if supported.companion])
    parts = list(found)
    taken = _taken(parts)
    rest = [name for name in files if name not in taken]
    recording_claimants = [supported for supported in claimants if not supported.companion and supported.claims(rest)]
    recordings, recording_problems = _inspect_all(root, rest, recording_claimants) if rest else ([], [])
    problems += recording_problems
    found = [combine(*recordings, *parts)] if parts and len(recordings) <= 1 else [*recordings, *parts]
    if len(found) > 1:
        labels = [detection.format_label for detection in recordings]
        raise AmbiguousRecording(
            f"These files hold recordings in more than one format: {in_words(labels)}. Say which one "
            "to convert, or upload each recording on its own.",
            candidates=tuple(detection.format for detection in recordings),
        )
    if found:
        (detection,) = found
        notes = [
            f"Some files also look like {_format_words(supported)}, which could not be read and was left out: "
            f"{problem.user_message}"
            for supported, problem in problems
        ]
        return dataclasses.replace(detection, notes=(*detection.notes, *notes)) if notes else detection
    if len(problems) == 1:
        raise problems[0][1]
    raise RecordingProblem(
        f"These files look like {in_words([supported.label for supported, _ in problems], 'or')}, but could "
        "not be read as any of them. "
        + " ".join(f"As {supported.label}: {problem.user_message}" for supported, problem in problems),
        detail="\n\n".join(f"{supported.key}: {problem.detail}" for supported, problem in problems),
    )


def validate_stream_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """Check that the chosen streams of `detection` can be converted together (an empty choice means
    the default streams, as for `convert_recording`); raise `RecordingProblem` saying plainly why
    not and what to choose instead. Pure and fast: it opens no file, so it runs before a job is queued.
    """
    known = {stream.id for stream in detection.streams}
    unknown = [stream_id for stream_id in dict.fromkeys(stream_ids) if stream_id not in known]
    if unknown:
        offered = "; ".join(f"{stream.id} ({stream.label})" for stream in detection.streams)
        raise RecordingProblem(
            f"This {detection.format_label} recording has no stream{'s' if len(unknown) > 1 else ''} "
            f"{in_words(unknown)}. Choose among its streams: {offered}.",
            detail=f"unknown stream ids {unknown}; known: {sorted(known)}",
        )
    repeated = [stream_id for stream_id in dict.fromkeys(stream_ids) if list(stream_ids).count(stream_id) > 1]
    if repeated:
        raise RecordingProblem(
            f"The choice names {in_words(repeated)} more than once; name each stream once.",
            detail=f"stream ids {list(stream_ids)}",
        )
    for key, ids in split_choice(detection, tuple(stream_ids) or detection.default_streams).items():
        check_choice, _ = _choice_rules(detection, key)
        check_choice(restricted(detection, key), ids)


def facts_for_streams(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """What the chosen streams of `detection` are (the defaults when none are chosen), under the keys
    `file_metadata` gives for the defaults: "session_start_time" (naive ISO 8601, or None when the
    files do not say), "device", "probe", "channel_count", "sampling_rate_hz", "duration_s",
    "size_bytes". From the detection alone; raises `RecordingProblem` for a choice
    `validate_stream_choice` refuses, which has no such facts (e.g. two start times).
    """
    validate_stream_choice(detection, stream_ids)
    groups = split_choice(detection, tuple(stream_ids) or detection.default_streams)
    # The recording's facts when it is chosen (its group comes first), else the first part's.
    key, ids = next(iter(groups.items()))
    _, facts = _choice_rules(detection, key)
    found = facts(restricted(detection, key), ids)
    return {name: found[name] for name in FACT_KEYS}


def _taken(parts: Sequence[Detection]) -> set[str]:
    """The files the parts of an experiment read: their streams' files and what they read at detection."""
    return {
        *(name for part in parts for stream in part.streams for name in stream.files),
        *(str(name) for part in parts for name in part.file_metadata.get("also_read", ())),
    }


def _format_words(supported: SupportedFormat) -> str:
    return supported.label if supported.companion else f"a recording in {supported.label} format"


def _inspect_all(
    root: Path, files: Sequence[str], formats: Sequence[SupportedFormat]
) -> tuple[list[Detection], list[tuple[SupportedFormat, RecordingProblem]]]:
    found: list[Detection] = []
    problems: list[tuple[SupportedFormat, RecordingProblem]] = []
    for supported in formats:
        try:
            found.append(supported.inspect(root, files))
        except RecordingProblem as problem:
            problems.append((supported, problem))
    return found, problems


def _parts(root: Path, files: Sequence[str]) -> list[Detection]:
    """The parts of an experiment (sorting, pose, video) an upload holds beside the recording chosen
    by name; a part that cannot be read is left out here (detection without a choice reports it)."""
    found = []
    for supported in SUPPORTED_FORMATS.values():
        if supported.companion and supported.claims(files):
            try:
                found.append(supported.inspect(root, files))
            except RecordingProblem:
                continue
    return found


def _choice_rules(detection: Detection, format_key: str | None = None) -> tuple[ChoiceCheck, ChoiceFacts]:
    """The format's `check_choice` and `facts`, taken without building the handler of a neuroconv
    interface the user chose (that imports neuroconv, which the web process must not pay for)."""
    key = format_key or detection.format
    if key.startswith(by_choice.CHOICE_PREFIX):
        return by_choice.check_choice, by_choice.choice_facts
    supported = SUPPORTED_FORMATS.get(key)
    if supported is None:
        return accept_any_choice, stream_facts
    return supported.check_choice, supported.facts


def modality_for(detection: Detection, stream_ids: Sequence[str]) -> str:
    """DANDI's modality part of the file name for these streams: each format's own, several joined
    by "+" in alphabetical order as `dandi organize` writes them ("behavior+ecephys+image")."""
    chosen = tuple(stream_ids) or detection.default_streams
    keys = split_choice(detection, chosen) if chosen else {detection.format: ()}
    handlers = [format_handler(key) for key in keys]
    return "+".join(sorted({handler.modality for handler in handlers if handler is not None})) or "ecephys"


def format_handler(format_key: str) -> SupportedFormat | None:
    """The handler of a format key: a detected format, or a neuroconv interface the user chose
    ("neuroconv:<InterfaceName>", see `formats.by_choice`); None for an unknown key."""
    return SUPPORTED_FORMATS.get(format_key) or choosable_format(format_key)


# The line the full list of formats follows in the answer to an unrecognised upload; the page shows
# a long list of "• " lines behind a toggle, so the closest formats, said first, stay in sight.
EVERY_FORMAT_HEADING = "Every format the portal converts:"
# How alike an uploaded file's extension and one a format names must be for the format to be named
# as close (Jaro-Winkler, 0-1, which favours a shared start): "smrx" and "smr" (0.94), "ns7" and
# "ns6" (0.82) are; "mat" and "dat" (0.78), "csv" and "ncs" (0) are not.
_CLOSE_EXTENSION = 0.8
_MOST_CLOSE_FORMATS = 3


def _not_recognised_message(files: Sequence[str]) -> str:
    closest = closest_formats(files)
    if not closest:
        lead = "None of them looks like a format it converts."
    elif len(closest) == 1:
        lead = f"The closest format it converts is {closest[0].label}: {closest[0].needs}."
    else:
        lead = (
            "The closest formats it converts are " + in_words([f"{fmt.label} ({fmt.needs})" for fmt in closest]) + "."
        )
    every = "\n".join(f"• {fmt.label}: {fmt.needs}" for fmt in SUPPORTED_FORMATS.values())
    return (
        f"These files are not a recording format this portal can convert (it found: {some_names(files)}). "
        f"{lead} Upload the complete set of files for one of them.\n{EVERY_FORMAT_HEADING}\n{every}"
    )


def closest_formats(files: Sequence[str]) -> list[SupportedFormat]:
    """The supported formats whose files the upload's names look most like, closest first (at most
    three, none when nothing is alike): each file's extensions (".imec0", ".ap", ".bin") against the
    ones the format's `needs` names, so an export saved as .smrx points at Spike2's .smr."""
    uploaded = {suffix[1:].lower() for name in files for suffix in PurePosixPath(name).suffixes}
    scored = []
    for supported in SUPPORTED_FORMATS.values():
        named = {suffix[1:].lower() for suffix in _EXTENSION.findall(supported.needs)}
        score = max((JaroWinkler.similarity(ours, theirs) for ours in uploaded for theirs in named), default=0.0)
        if score >= _CLOSE_EXTENSION:
            scored.append((score, supported))
    scored.sort(key=lambda item: -item[0])  # stable: formats equally close keep the registry's order
    return [supported for _, supported in scored[:_MOST_CLOSE_FORMATS]]


# An extension as the formats' `needs` write them: ".rhd", ".ns5", ".imec0"; not the "g" of "e.g.".
_EXTENSION = re.compile(r"\.[A-Za-z][A-Za-z0-9]+\b")

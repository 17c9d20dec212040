"""The conversation policy: (what the session looks like, what just happened) → the next step.

Pure: no Django, no I/O, no LLM. The services call `handle` inside a transaction and carry out the
step's actions. Seed 000 is the specification; docs/design/orchestrator.md summarises the flow.
"""

from __future__ import annotations

import contextlib
import dataclasses
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from conversions.language.rules import Intent, ParsedMessage
from conversions.language.streams import StreamOption, only_names_streams, parse_stream_choice
from conversions.language.zones import AMBIGUOUS_ABBREVIATIONS
from conversions.nwb.autofix import fix_metadata
from conversions.nwb.detection import SUPPORTED_FORMATS, Detection, facts_for_streams, validate_stream_choice
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.fields import CRITICAL_FIELDS, FIELDS, FILE_FACTS, SUBJECT_FIELDS, Placement
from conversions.nwb.normalizers import age_from_birth, normalize_field
from conversions.nwb.parts import PART_KINDS, Timing, needs_behaviour_start, said_seconds, timing
from conversions.nwb.quantities import describe_duration, describe_size
from conversions.orchestrator.state import (
    RUNNING_STATUSES,
    Awaiting,
    CancelJobs,
    ConversionFailed,
    ConversionSucceeded,
    DetectFormat,
    DetectionFailed,
    Event,
    FieldValue,
    FilesChanged,
    FlagForReview,
    FormatAmbiguous,
    FormatDetected,
    FormatOption,
    IssueSummary,
    JobLost,
    JobRetrying,
    Memory,
    PreviewFailed,
    PreviewReady,
    RecordingSummary,
    Reply,
    SessionIdle,
    SessionView,
    Source,
    StartConversion,
    StartPreview,
    StartValidation,
    Status,
    Step,
    StreamSummary,
    UserAction,
    UserActionName,
    UserMessage,
    ValidationCompleted,
)

_FIELD_ORDER = {name: index for index, name in enumerate([*FIELDS, *FILE_FACTS])}
# File facts the plan's stream lines already state.
_SHOWN_WITH_STREAMS = frozenset({"channel_count", "sampling_rate_hz", "duration_s", "size_bytes"})
# Intents that move the metadata conversation on even without a value.
_STEERING = frozenset({Intent.APPROVE, Intent.SKIP_ALL, Intent.SKIP_FIELD, Intent.ONE_BY_ONE})
# From this attempt on, identical issues mean the loop is not getting anywhere (seed 000 §4).
NO_PROGRESS_ATTEMPT = 3
# Rough throughput used for the plan's time estimate (gzip-bound neuroconv, FIELD-NOTES).
ESTIMATE_BYTES_PER_SECOND = 50 * 1024 * 1024


def handle(view: SessionView, event: Event) -> Step:
    step = _handle(view, event)
    if step.refused and step.memory != view.memory:
        # A refused event changes nothing, not even the count of turns.
        step = step.model_copy(update={"memory": view.memory})
    zone = event.parsed.timezone if isinstance(event, UserMessage) else None
    if zone and zone != view.timezone and not step.refused:
        step = step.model_copy(update={"timezone": zone})
    return step


def _handle(view: SessionView, event: Event) -> Step:
    match event:
        case FilesChanged():
            return _files_changed(view, event)
        case FormatDetected():
            return _format_detected(view, event)
        case FormatAmbiguous():
            return _format_ambiguous(view, event)
        case DetectionFailed():
            return _detection_failed(view, event)
        case UserMessage():
            return _user_message(view, event)
        case UserAction():
            return _user_action(view, event)
        case ConversionSucceeded():
            return _conversion_succeeded(view, event)
        case ConversionFailed():
            return _conversion_failed(view, event)
        case ValidationCompleted():
            return _validation_completed(view, event)
        case JobLost():
            return _job_lost(view, event)
        case JobRetrying():
            return _job_retrying(view, event)
        case SessionIdle():
            return _session_idle(view, event)
        case PreviewReady():
            return _preview_ready(view, event)
        case PreviewFailed():
            return _preview_failed(view, event)
    raise TypeError(f"unknown event {event!r}")


# --- building steps -------------------------------------------------------------------------------


def _step(
    view: SessionView,
    status: Status,
    awaiting: Awaiting | None,
    *,
    memory: Memory | None = None,
    updates: dict[str, FieldValue] | None = None,
    replies: Sequence[Reply] = (),
    actions: Sequence[Any] = (),
) -> Step:
    return Step(
        status=status,
        awaiting=awaiting,
        memory=memory if memory is not None else view.memory,
        metadata_updates=updates or {},
        replies=tuple(replies),
        actions=tuple(actions),
    )


def _refuse(view: SessionView, text: str) -> Step:
    return Step(
        status=view.status,
        awaiting=view.awaiting,
        memory=view.memory,
        replies=(Reply(text=text),),
        refused=True,
    )


def _merged(view: SessionView, updates: dict[str, FieldValue]) -> dict[str, FieldValue]:
    return {**view.metadata, **updates}


def _has(metadata: dict[str, FieldValue], name: str) -> bool:
    entry = metadata.get(name)
    return entry is not None and entry.value not in (None, "", [])


def _missing(metadata: dict[str, FieldValue], names: Iterable[str], declined: Iterable[str]) -> list[str]:
    declined = set(declined)
    return [name for name in names if not _has(metadata, name) and name not in declined]


def _label(name: str) -> str:
    return FIELDS[name].label if name in FIELDS else FILE_FACTS.get(name, name)


def _labels(names: Sequence[str]) -> str:
    labels = [FIELDS[name].label for name in names]
    if len(labels) <= 1:
        return "".join(labels)
    return ", ".join(labels[:-1]) + " and " + labels[-1]


# --- files and detection --------------------------------------------------------------------------


def _files_changed(view: SessionView, event: FilesChanged) -> Step:
    if view.status in (Status.CONVERTING, Status.VALIDATING):
        return _refuse(view, "A conversion is running on these files; cancel it before changing them.")
    version = view.memory.files_version + 1
    memory = view.memory.model_copy(
        update={"selected_streams": [], "files_version": version, "format_candidates": [], "chosen_format": None}
    )
    if event.total == 0:
        text = "No files are left. Upload the recording (the whole folder if it has several files)."
        return _step(view, Status.IDLE, None, memory=memory, replies=[Reply(text=text)])
    done = []
    if event.added:
        done.append(f"Received {event.added} file{'s' if event.added != 1 else ''}")
    if event.removed:
        done.append(f"removed {event.removed}")
    text = (", ".join(done) or "Files changed").capitalize() + f" ({event.total} in all). Looking at what they contain…"
    return _step(
        view,
        Status.DETECTING_FORMAT,
        None,
        memory=memory,
        replies=[Reply(text=text)],
        actions=[DetectFormat(files_version=version)],
    )


def _detection_failed(view: SessionView, event: DetectionFailed) -> Step:
    if view.status != Status.DETECTING_FORMAT or event.files_version != view.memory.files_version:
        return _refuse(view, "")
    return _step(view, Status.IDLE, None, replies=[Reply(text=event.user_message)])


def _format_ambiguous(view: SessionView, event: FormatAmbiguous) -> Step:
    if view.status != Status.DETECTING_FORMAT or event.files_version != view.memory.files_version:
        return _refuse(view, "")
    memory = view.memory.model_copy(update={"format_candidates": list(event.candidates)})
    choices = " or ".join(f"“{option.label}”" for option in event.candidates)
    text = (
        f"{event.user_message} Which is it? Say, for example, “it's {event.candidates[0].label}”, or pick: {choices}."
    )
    card = Reply(text=text, card="formats", data={"options": [o.model_dump() for o in event.candidates]})
    return _step(view, Status.AWAITING_USER_INPUT, Awaiting.FORMAT_SELECTION, memory=memory, replies=[card])


def _select_format(view: SessionView, option: FormatOption) -> Step:
    memory = view.memory.model_copy(update={"format_candidates": [], "chosen_format": option.key})
    text = f"Reading the files as {option.label}…"
    return _step(
        view,
        Status.DETECTING_FORMAT,
        None,
        memory=memory,
        replies=[Reply(text=text)],
        actions=[DetectFormat(files_version=view.memory.files_version, format_key=option.key)],
    )


def _chosen_format(view: SessionView, key_or_family: str | None, text: str) -> FormatOption | None:
    """The candidate the user named: by key, by family ("openephys" covers both Open Ephys
    formats, so it only decides when one of them is a candidate), or by its label in the text."""
    candidates = view.memory.format_candidates
    if key_or_family:
        matches = [o for o in candidates if o.key == key_or_family or o.key.startswith(key_or_family)]
        if len(matches) == 1:
            return matches[0]
    lowered = text.lower()
    named = [o for o in candidates if o.label.lower() in lowered]
    return named[0] if len(named) == 1 else None


def _format_detected(view: SessionView, event: FormatDetected) -> Step:
    if view.status != Status.DETECTING_FORMAT or event.files_version != view.memory.files_version:
        # Cancelled, or the files changed, while this detection ran: a newer one decides.
        return _refuse(view, "")
    recording = event.recording
    updates = _file_facts(view, event.file_metadata)
    memory = view.memory.model_copy(update={"selected_streams": list(recording.default_streams)})
    lines = [" ".join([_what_the_files_hold(recording), *recording.notes])]
    left_out = _left_out_words(recording, recording.default_streams)
    if left_out:
        lines.append(f"The files also hold {left_out}, which I'll leave out unless you ask.")
    view = view.model_copy(update={"memory": memory, "metadata": _merged(view, updates), "recording": recording})
    return _next_after_metadata(view, updates=updates, preface=lines)


def _what_the_files_hold(recording: RecordingSummary) -> str:
    """ "This is a SpikeGLX recording: … With it: spike sorting (…) and video …", or, for an upload of
    parts alone, "These files hold pose (…) and video …"."""
    chosen = [s for s in recording.streams if s.id in recording.default_streams]
    signals = [s.label for s in chosen if s.kind not in PART_KINDS]
    parts = [s.label for s in chosen if s.kind in PART_KINDS]
    supported = SUPPORTED_FORMATS.get(recording.format)
    if supported is not None and supported.companion:
        return f"These files hold {_words_list(parts or signals)}."
    said = (
        f"This is {_article(recording.format_label)} {recording.format_label} recording: {', '.join(signals or parts)}."
    )
    return f"{said} With it: {_words_list(parts)}." if signals and parts else said


def _file_facts(view: SessionView, facts: dict[str, Any]) -> dict[str, FieldValue]:
    """What the files say (start time, device, probe, channels...), as values from the file. A start
    time the user gave is kept: they may know better than a clock that was never set."""
    updates: dict[str, FieldValue] = {}
    for name in FILE_FACTS:
        value = facts.get(name)
        if value not in (None, "", [], {}):
            updates[name] = FieldValue(value=value, source=Source.FILE)
    start = facts.get("session_start_time")
    existing = view.metadata.get("session_start_time")
    if start and (existing is None or existing.source == Source.FILE):
        updates["session_start_time"] = FieldValue(value=start, source=Source.FILE)
    return updates


# --- which streams ---------------------------------------------------------------------------------


def _stream_options(view: SessionView) -> list[StreamOption]:
    recording = view.recording
    if recording is None:
        return []
    return [StreamOption(id=s.id, label=s.label, group=s.group, kind=s.kind) for s in recording.streams]


def _selected(view: SessionView) -> list[str]:
    assert view.recording is not None
    return list(view.memory.selected_streams or view.recording.default_streams)


def _select_streams(
    view: SessionView, stream_ids: Sequence[str], *, memory: Memory, preface: Sequence[str] = ()
) -> Step:
    """Convert these streams from now on: check the choice, take the chosen streams' own facts
    (another experiment has its own start time), and show the plan again."""
    recording = view.recording
    if recording is None:
        return _refuse(view, "There is no recording to choose streams from yet: upload one first.")
    if view.status in RUNNING_STATUSES:
        return _refuse(view, "A job is running on these files; choose streams once it has finished (or cancel it).")
    known = {s.id: s for s in recording.streams}
    unknown = [stream_id for stream_id in stream_ids if stream_id not in known]
    if unknown or not stream_ids:
        listing = "; ".join(f"“{s.id}” ({s.label})" for s in recording.streams)
        what = f"There is no stream “{unknown[0]}” in this recording." if unknown else "No stream was chosen."
        return _refuse(view, f"{what} The streams are: {listing}.")
    chosen = [s.id for s in recording.streams if s.id in set(stream_ids)]
    updates: dict[str, FieldValue] = {}
    if recording.detection:
        detection = Detection.from_json(recording.detection)
        try:
            validate_stream_choice(detection, chosen)
        except RecordingProblem as problem:
            return _refuse(view, problem.user_message)
        updates = _file_facts(view, facts_for_streams(detection, chosen))
    memory = memory.model_copy(update={"selected_streams": chosen})
    text = f"Converting {_stream_list([known[i] for i in chosen])}."
    new_start = updates.get("session_start_time")
    if new_start is not None and view.metadata.get("session_start_time") != new_start:
        text += f" Start time, from these files: {new_start.value}."
    view = view.model_copy(update={"memory": memory, "metadata": _merged(view, updates)})
    return _next_after_metadata(view, updates=updates, preface=[*preface, text], memory=memory)


def _left_out_words(recording: RecordingSummary, selected: Sequence[str]) -> str:
    """The streams not chosen, with how to add them: those beside the chosen ones by name, other
    experiments (or blocks) as a whole, since one file holds one of them."""
    chosen_groups = {s.group for s in recording.streams if s.id in selected}
    beside = [s for s in recording.streams if s.id not in selected and s.group in chosen_groups]
    other_groups = list(dict.fromkeys(s.group for s in recording.streams if s.group not in chosen_groups))
    parts = []
    if beside:
        parts.append(f"{_stream_list(beside)} (say e.g. “also {_short_name(beside[0])}” to add it)")
    if other_groups:
        counts = {group: sum(1 for s in recording.streams if s.group == group) for group in other_groups}
        listed = _words_list([f"{group} ({counts[group]} streams)" for group in other_groups])
        parts.append(f"{listed} (say e.g. “{other_groups[0]} instead” to convert that one)")
    return "; and ".join(parts)


def _words_list(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _stream_list(streams: Sequence[StreamSummary]) -> str:
    labels = [stream.label for stream in streams]
    return labels[0] if len(labels) == 1 else "; ".join(labels[:-1]) + " and " + labels[-1]


def _short_name(stream: StreamSummary) -> str:
    """How a user can name one stream: the last part of its id (e.g. "lf" of "imec0.lf", "ProbeB")."""
    name = str(stream.id).replace("\\", "/").split("/")[-1]
    return name.rsplit(".", 1)[-1] if "." in name else name


# --- previews --------------------------------------------------------------------------------------


def _preview(view: SessionView, *, updates: dict[str, FieldValue], memory: Memory, preface: Sequence[str]) -> Step:
    """A seconds-long stub conversion with the metadata as it stands, to see the file before the
    full run. It changes nothing in the conversation and is never validated as the final file."""
    if view.recording is None:
        return _refuse(view, "There is no recording to preview yet: upload one first.")
    if view.status in RUNNING_STATUSES:
        return _refuse(view, "A job is running; a preview can be made once it has finished.")
    if view.awaiting == Awaiting.FORMAT_SELECTION:
        return _refuse(view, "Tell me first which format these files are. " + _help_text(view))
    metadata = _merged(view, updates)
    replies = [Reply(text=t) for t in preface]
    if not _has(metadata, "session_start_time"):
        spec = FIELDS["session_start_time"]
        text = (
            f"A preview needs the session start time, which the files don't give. {spec.question} (e.g. {spec.example})"
        )
        replies.append(Reply(text=text))
        return _step(view, view.status, view.awaiting, memory=memory, updates=updates, replies=replies)
    number = memory.previews + 1
    memory = memory.model_copy(update={"previews": number})
    text = (
        "Making a preview: the first seconds of each chosen stream, written the way the full conversion "
        "will write them, with the metadata as it stands. It is not checked against DANDI's rules."
    )
    view = view.model_copy(update={"memory": memory})
    return _step(
        view,
        view.status,
        view.awaiting,
        memory=memory,
        updates=updates,
        replies=[*replies, Reply(text=text)],
        actions=[StartPreview(number=number, streams=tuple(_selected(view)))],
    )


def _preview_ready(view: SessionView, event: PreviewReady) -> Step:
    if event.number != view.memory.previews:
        return _refuse(view, "")  # a newer preview was asked for
    text = (
        f"Preview {event.number} is ready ({describe_size(event.size_bytes)}); you can download it and open "
        f"it in your own tools.\n{event.words}"
    )
    if view.awaiting == Awaiting.APPROVAL:
        text += "\nApprove to convert the whole recording, or tell me what to change."
    card = Reply(
        text=text,
        card="preview",
        data={"number": event.number, "summary": event.summary, "size_bytes": event.size_bytes},
    )
    return _step(view, view.status, view.awaiting, replies=[card])


def _preview_failed(view: SessionView, event: PreviewFailed) -> Step:
    if event.number != view.memory.previews:
        return _refuse(view, "")
    text = f"The preview could not be made: {event.user_message}"
    if view.awaiting == Awaiting.APPROVAL:
        text += " You can still approve the full conversion, or change something first."
    return _step(view, view.status, view.awaiting, replies=[Reply(text=text)])


# --- the metadata → plan path ---------------------------------------------------------------------


def _next_after_metadata(
    view: SessionView,
    *,
    updates: dict[str, FieldValue],
    preface: Sequence[str | Reply] = (),
    memory: Memory | None = None,
) -> Step:
    """Ask for what is still missing, or show the plan (or convert straight away in minimal mode)."""
    memory = memory or view.memory
    metadata = _merged(view, updates)
    required = (*_required_fields(metadata), *_timing_fields(view, memory))
    fixes, fixes_card = _form_fixes(view, metadata)
    if fixes_card is not None:
        updates = {**updates, **fixes}
        metadata = _merged(view, updates)
        preface = [*preface, fixes_card]
    missing_required = _missing(metadata, required, memory.declined)
    if missing_required and _may_ask(view, memory):
        first_request = memory.metadata_requests == 0
        asked = tuple(dict.fromkeys(required + SUBJECT_FIELDS))
        asking = _missing(metadata, asked, memory.declined) if first_request else missing_required
        return _ask(view, asking, updates=updates, memory=memory, preface=preface)
    timing_missing = [name for name in _timing_fields(view, memory) if not _has(metadata, name)]
    if timing_missing:
        declined = [name for name in timing_missing if name in memory.declined]
        if declined:
            # Without them the parts cannot be placed in time: they are left out, and the plan says so.
            memory, left_out = _without_unplaceable_parts(view, memory, declined)
            preface = [*preface, left_out]
        else:
            # The parts cannot be written without them, whatever the limits: ask for them alone.
            return _ask(view, timing_missing, updates=updates, memory=memory, preface=preface, single=True)
    if "session_start_time" in missing_required:
        # NWB cannot be written without it, whatever the limits: ask for it alone.
        memory = memory.model_copy(update={"declined": [n for n in memory.declined if n != "session_start_time"]})
        return _ask(view, ["session_start_time"], updates=updates, memory=memory, preface=preface, single=True)
    if memory.one_by_one and not memory.minimal:
        remaining = _missing(metadata, tuple(dict.fromkeys(required + SUBJECT_FIELDS)), memory.declined)
        if remaining:
            return _ask(view, remaining, updates=updates, memory=memory, preface=preface)
    if memory.minimal:
        preface = [
            *preface,
            "Converting with what I have, without a plan to approve (you asked to skip "
            "the questions). You can add details afterwards and convert again.",
        ]
        return _start_conversion(view, updates=updates, memory=memory, preface=preface)
    plan = _plan(view, metadata, memory)
    memory = memory.model_copy(update={"asking_for": []})
    replies = [*_said(preface), plan]
    return _step(view, Status.AWAITING_APPROVAL, Awaiting.APPROVAL, memory=memory, updates=updates, replies=replies)


def _form_fixes(view: SessionView, metadata: dict[str, FieldValue]) -> tuple[dict[str, FieldValue], Reply | None]:
    """Values whose form DANDI would refuse, put right (conversions.nwb.autofix): never a new fact,
    only the same fact written the accepted way. Each fix is stored as an automatic fix and said in
    one line naming the fields; the card's data holds each change (before, after, why), which the
    page shows behind a "details" toggle and the report lists."""
    values = {name: entry.value for name, entry in metadata.items() if name in FIELDS and _has(metadata, name)}
    _, applied = fix_metadata(values, timezone=view.timezone)
    if not applied:
        return {}, None
    fixes = {fix.field: FieldValue(value=fix.after, source=Source.AUTO_FIX) for fix in applied}
    count = f"{len(applied)} value{'s' if len(applied) != 1 else ''}"
    text = (
        f"Fixed automatically: {count} written the way DANDI accepts "
        f"({', '.join(FIELDS[fix.field].label for fix in applied)})."
    )
    data = {"fixes": [{**fix.to_json(), "label": FIELDS[fix.field].label} for fix in applied]}
    return fixes, Reply(text=text, card="fixes", data=data)


def _said(preface: Sequence[str | Reply]) -> list[Reply]:
    """The replies that come before a step's own: lines of text, and cards such as the fixes'."""
    return [line if isinstance(line, Reply) else Reply(text=line) for line in preface]


def _required_fields(metadata: dict[str, FieldValue]) -> tuple[str, ...]:
    """Seed 000's critical fields and the subject fields DANDI requires (an age or else a date of
    birth), asked until given or declined, so the check does not find them missing after the
    conversion; plus the start time when the files do not carry one (NWB requires it, and only
    the user can know it)."""
    subject = [name for name in SUBJECT_FIELDS if not (name == "age" and _has(metadata, "date_of_birth"))]
    required = (*CRITICAL_FIELDS, *subject)
    if _has(metadata, "session_start_time"):
        return required
    return (*required, "session_start_time")


def _timing_fields(view: SessionView, memory: Memory) -> tuple[str, ...]:
    """What only the user can say to place the chosen parts in time: when the camera started, beside
    a recording; the frame rate of pose whose files do not say it."""
    recording = view.recording
    if recording is None or not recording.detection:
        return ()
    detection = Detection.from_json(recording.detection)
    selected = [s for s in (memory.selected_streams or recording.default_streams) if s in _recording_ids(recording)]
    needed = []
    if needs_behaviour_start(detection, selected):
        needed.append("behaviour_start_s")
    rates = detection.file_metadata.get("pose_rates", {})
    if any(stream_id in rates and not rates[stream_id] for stream_id in selected):
        needed.append("pose_rate_hz")
    return tuple(needed)


def _without_unplaceable_parts(view: SessionView, memory: Memory, declined: Sequence[str]) -> tuple[Memory, str]:
    """The selection without the parts the declined values would have placed: the video and pose
    when the camera's start is not said, the pose whose frame rate is not known."""
    recording = view.recording
    assert recording is not None and recording.detection
    detection = Detection.from_json(recording.detection)
    rates = detection.file_metadata.get("pose_rates", {})
    selected = [s for s in (memory.selected_streams or recording.default_streams) if s in _recording_ids(recording)]

    def unplaceable(stream: StreamSummary) -> bool:
        if "behaviour_start_s" in declined and stream.kind in ("pose", "video"):
            return True
        return "pose_rate_hz" in declined and stream.id in rates and not rates[stream.id]

    dropped = [s for s in recording.streams if s.id in selected and unplaceable(s)]
    kept = [s for s in selected if s not in {d.id for d in dropped}]
    why = (
        "when the camera started is not known"
        if "behaviour_start_s" in declined
        else "the frame rate of the pose is not known"
    )
    text = (
        f"Leaving out {_stream_list(dropped)}: {why}, so they cannot be placed on the recording's clock. "
        "To include them, give it and say “add the video and the pose”."
    )
    return memory.model_copy(update={"selected_streams": kept}), text


def _recording_ids(recording: RecordingSummary) -> set[str]:
    return {stream.id for stream in recording.streams}


def _timeline(view: SessionView, metadata: dict[str, FieldValue], selected: Sequence[str]) -> list[Timing]:
    """Where each chosen stream sits on the session's clock (empty for a summary without detection)."""
    recording = view.recording
    if recording is None or not recording.detection:
        return []
    detection = Detection.from_json(recording.detection)
    start = metadata.get("behaviour_start_s")
    said = said_seconds(start.value if start is not None else None)
    return timing(detection, [s for s in selected if s in _recording_ids(recording)], behaviour_start_s=said)


def _timeline_line(item: Timing) -> str:
    where = "start not known yet" if item.start_s is None else f"from {item.start_s:g} s"
    kept = "; the NWB file links to the video, which stays on the portal beside it" if item.kind == "video" else ""
    return f"• {item.label}: {where}, {describe_duration(item.duration_s)} ({item.how}{kept})"


def _may_ask(view: SessionView, memory: Memory) -> bool:
    """Seed 000 `should_ask_for_metadata`: not in minimal mode, and at most N requests."""
    if memory.minimal:
        return False
    return memory.one_by_one or memory.metadata_requests < view.max_metadata_requests


def _ask(
    view: SessionView,
    asking: list[str],
    *,
    updates: dict[str, FieldValue],
    memory: Memory,
    preface: Sequence[str | Reply] = (),
    single: bool = False,
) -> Step:
    if memory.one_by_one or single:
        spec = FIELDS[asking[0]]
        text = f"{spec.question} (for example: {spec.example}; say “skip” to leave it out)"
        memory = memory.model_copy(update={"asking_for": asking[:1]})
    else:
        timing_fields = [name for name in asking if FIELDS[name].placement is Placement.TIMING]
        critical = [name for name in asking if name not in SUBJECT_FIELDS and name not in timing_fields]
        subject = [name for name in asking if name in SUBJECT_FIELDS]
        parts = []
        if critical:
            parts.append(f"Before converting I need the {_labels(critical)} (NWB and DANDI require them).")
        if timing_fields:
            parts.append(
                "To place the video and pose on the recording's clock: "
                + " ".join(FIELDS[name].question for name in timing_fields)
            )
        if subject:
            subject_labels = _labels(subject).replace("subject id", "id")
            parts.append(
                f"If you have them, also the subject's {subject_labels}: DANDI requires a subject, "
                "and giving it now avoids a second conversion."
            )
        example = ", ".join(FIELDS[name].example for name in asking)
        parts.append(
            f"You can answer in one message, e.g. “{example}”, or label them (“species: mouse”). "
            "Say “one by one” to be asked separately, “skip” for what you don't have, or "
            "“just convert it” to skip the questions."
        )
        text = " ".join(parts)
        memory = memory.model_copy(update={"asking_for": asking, "metadata_requests": memory.metadata_requests + 1})
    replies = [*_said(preface), Reply(text=text)]
    return _step(
        view,
        Status.AWAITING_USER_INPUT,
        Awaiting.REQUIRED_METADATA,
        memory=memory,
        updates=updates,
        replies=replies,
    )


def _plan(view: SessionView, metadata: dict[str, FieldValue], memory: Memory) -> Reply:
    recording = view.recording
    assert recording is not None, "a plan needs a detected recording"
    selected = memory.selected_streams or list(recording.default_streams)
    streams = [s for s in recording.streams if s.id in selected]
    size = sum(s.size_bytes for s in streams)
    estimate_s = max(1, round(size / ESTIMATE_BYTES_PER_SECOND))
    timezone_note = _timezone_note(view, metadata)
    fields = [
        {"name": name, "label": _label(name), **entry.model_dump(mode="json")}
        for name, entry in sorted(metadata.items(), key=lambda item: _FIELD_ORDER.get(item[0], len(_FIELD_ORDER)))
        if entry.value not in (None, "", [])
    ]
    missing = _missing(metadata, CRITICAL_FIELDS + SUBJECT_FIELDS, ())
    lines = [
        f"Plan for attempt {memory.attempts + 1}: convert the {recording.format_label} recording "
        f"({len(streams)} stream{'s' if len(streams) != 1 else ''}, {describe_size(size)}) into one NWB file, "
        f"then check it against DANDI's rules.",
    ]
    timeline = {item.stream_id: item for item in _timeline(view, metadata, selected)}
    lines += [
        _timeline_line(timeline[s.id])
        if s.kind in PART_KINDS and s.id in timeline
        else f"• {s.label}: {s.channel_count} channels at {s.sampling_rate_hz:g} Hz, {describe_duration(s.duration_s)}"
        for s in streams
    ]
    lines += [
        f"• {f['label']}: {_show(f['value'])} (from {_source_words(Source(f['source']))})"
        for f in fields
        if f["name"] not in _SHOWN_WITH_STREAMS
    ]
    left_out = _left_out_words(recording, selected)
    if left_out:
        lines.append(f"• Left out: {left_out}.")
    lines.append(f"• Times are in {timezone_note}.")
    if missing:
        lines.append(f"• Not given: {_labels(missing)}.")
    lines.append(
        f"Estimated time: about {_duration(estimate_s)}. Approve to start, ask for a “preview” to see the "
        "first seconds as NWB first, or tell me what to change."
    )
    data = {
        "attempt": memory.attempts + 1,
        "format": recording.format,
        "format_label": recording.format_label,
        "file_count": recording.file_count,
        "streams": [s.model_dump(mode="json") for s in streams],
        # Every stream of the recording, so the page can offer the others.
        "all_streams": [{**s.model_dump(mode="json"), "selected": s.id in selected} for s in recording.streams],
        "size_bytes": size,
        "estimated_seconds": estimate_s,
        "timezone": view.timezone,
        "metadata": fields,
        "missing": missing,
        # Each chosen stream on the session's clock, for the plan's time axis (start None: not known yet).
        "timeline": [dataclasses.asdict(item) for item in timeline.values()],
    }
    return Reply(text="\n".join(lines), card="plan", data=data)


def _timezone_note(view: SessionView, metadata: dict[str, FieldValue]) -> str:
    """The zone the times are in and why; a start time that carries another offset says so, so the
    plan never shows "UTC" beside +09:00."""
    why = "you named it" if view.memory.timezone_said else "your lab's setting"
    note = f"{view.timezone} ({why})"
    start = metadata.get("session_start_time")
    with contextlib.suppress(ValueError, TypeError, ZoneInfoNotFoundError):
        moment = datetime.fromisoformat(str(start.value)) if start is not None else None
        if moment is not None and moment.tzinfo is not None:
            own = moment.astimezone(ZoneInfo(view.timezone)).utcoffset()
            if own != moment.utcoffset():
                note += (
                    f"; the start time carries its own offset, {moment.strftime('%z')[:3]}:{moment.strftime('%z')[3:]}"
                )
    return note


def _start_conversion(
    view: SessionView,
    *,
    updates: dict[str, FieldValue] | None = None,
    memory: Memory | None = None,
    preface: Sequence[str | Reply] = (),
) -> Step:
    memory = memory or view.memory
    recording = view.recording
    if recording is None:
        return _refuse(view, "There is no recording to convert yet: upload one first.")
    attempt = memory.attempts + 1
    streams = tuple(memory.selected_streams or recording.default_streams)
    memory = memory.model_copy(update={"attempts": attempt, "asking_for": []})
    text = f"Converting (attempt {attempt}). Progress shows here; you can cancel at any time."
    replies = [*_said(preface), Reply(text=text)]
    return _step(
        view,
        Status.CONVERTING,
        None,
        memory=memory,
        updates=updates,
        replies=replies,
        actions=[StartConversion(attempt=attempt, streams=streams)],
    )


# --- user input -----------------------------------------------------------------------------------


def _user_message(view: SessionView, event: UserMessage) -> Step:
    """A message is first checked for what it asks of the portal alone (cancel, help, status...),
    then read for values, and then answered by the handler for the question the session is
    waiting on (`_ANSWERS`). What no handler takes is noted, or not understood."""
    misunderstood_before = view.memory.misunderstood
    memory = view.memory.model_copy(update={"turns": view.memory.turns + 1, "misunderstood": 0})
    view = view.model_copy(update={"memory": memory})
    step = _answer_without_values(view, event)
    if step is not None:
        return step
    view, reading = _read(view, event)
    for answer in (_preview_or_streams, _answer_while_running, _ANSWERS[view.awaiting]):
        step = answer(view, reading)
        if step is not None:
            return step
    if reading.updates or reading.problems:
        return _step(
            view, view.status, view.awaiting, updates=reading.updates, replies=[Reply(text=t) for t in reading.preface]
        )
    return _not_understood(view, misunderstood_before + 1, event.text)


@dataclass(frozen=True)
class _Reading:
    """What one message gives, read against the session."""

    parsed: ParsedMessage
    text: str
    updates: dict[str, FieldValue]
    # What the reply must raise: a time zone changed or unclear, values that could not be used or
    # were kept, choices between two readings.
    problems: list[str]
    newly_declined: list[str]
    # The lines said before the answer: what was noted, taken from the registry, declined, and the problems.
    preface: list[str]


def _answer_without_values(view: SessionView, event: UserMessage) -> Step | None:
    """The answer to a message that only asks something of the portal (cancel, help, status, a
    greeting...), whatever the session waits on; None when the message is to be read for values."""
    parsed = event.parsed
    if not event.text.strip():
        return _refuse(view, "That message was empty. " + _help_text(view))
    if view.memory.turns > view.max_turns:
        return _turn_limit(view)
    if Intent.CANCEL in parsed.intents:
        return _cancel(view)
    if Intent.REQUEST_HELP in parsed.intents and not parsed.fields:
        return _request_help(view, reason=f"asked for help: “{event.text[:200]}”")
    if Intent.FRUSTRATED in parsed.intents and not parsed.fields:
        return _frustrated(view)
    if Intent.HELP in parsed.intents and not parsed.fields:
        return _step(view, view.status, view.awaiting, replies=[Reply(text=_help_text(view))])
    if Intent.STATUS in parsed.intents and not parsed.fields:
        return _step(view, view.status, view.awaiting, replies=[Reply(text=_status_text(view))])
    if Intent.GREETING in parsed.intents and not parsed.fields and view.awaiting != Awaiting.FORMAT_SELECTION:
        # At the format question, the question itself is the answer (and "Hi, it's SpikeGLX" picks one).
        return _step(view, view.status, view.awaiting, replies=[Reply(text=_greeting_text(view, parsed.format_choice))])
    return None


def _read(view: SessionView, event: UserMessage) -> tuple[SessionView, _Reading]:
    """The message's values, normalized, and what it declines; the view comes back with the time
    zone the message names and the memory it changes (declined fields, minimal or one-by-one)."""
    parsed = event.parsed
    memory = view.memory
    zone_lines = []
    if parsed.timezone and parsed.timezone != view.timezone:
        # Named in words ("Tokyo time"): the session's zone from now on, and the one this
        # message's times are read in.
        zone_lines.append(
            f"Time zone: {view.timezone} → {parsed.timezone}; times given without an offset are read in it."
        )
        memory = memory.model_copy(update={"timezone_said": True})
        view = view.model_copy(update={"timezone": parsed.timezone, "memory": memory})
    raw_fields = dict(parsed.fields)
    if parsed.unclear_zone:
        zone_lines.append(_unclear_zone_text(parsed.unclear_zone, raw_fields.pop("session_start_time", None)))
    updates, problems = _normalized(view, raw_fields, llm_fields=event.llm_fields)
    problems = [*zone_lines, *problems]
    updates, kept = _without_guesses_over_values(view, parsed, updates)
    problems = [*kept, *_choice_questions(view, parsed, updates), *problems]
    declined = set(memory.declined)
    if Intent.SKIP_ALL in parsed.intents:
        memory = memory.model_copy(update={"minimal": True})
    if Intent.ONE_BY_ONE in parsed.intents:
        memory = memory.model_copy(update={"one_by_one": True})
    skipped = set(parsed.skipped)
    if Intent.SKIP_FIELD in parsed.intents and not skipped:
        skipped = {name for name in memory.asking_for if name not in updates}
    newly_declined = [name for name in FIELDS if name in skipped - set(updates) - declined]
    declined |= set(newly_declined)
    memory = memory.model_copy(update={"declined": sorted(declined)})
    view = view.model_copy(update={"memory": memory})
    preface = [_acknowledge(view, updates)] if updates else []
    registered, registry_note = _from_registry(view, updates)
    updates = {**registered, **updates}
    preface += registry_note
    if newly_declined:
        preface.append(f"Understood: I'll leave out the {_labels(newly_declined)} and won't ask again.")
    preface += problems
    reading = _Reading(
        parsed=parsed,
        text=event.text,
        updates=updates,
        problems=problems,
        newly_declined=newly_declined,
        preface=preface,
    )
    return view, reading


def _preview_or_streams(view: SessionView, reading: _Reading) -> Step | None:
    """A preview asked for, or a choice of streams ("only the AP band", "experiment 3 instead"),
    whatever the session waits on (once the format is known)."""
    if Intent.PREVIEW in reading.parsed.intents:
        return _preview(view, updates=reading.updates, memory=view.memory, preface=reading.preface)
    if view.recording is not None and view.awaiting != Awaiting.FORMAT_SELECTION:
        options = _stream_options(view)
        # "experiment 3 instead" also reads as a correction of the experiment description; a value
        # that is nothing but stream names is the stream choice.
        if all(only_names_streams(str(value), options) for value in reading.parsed.fields.values()):
            choice = parse_stream_choice(reading.text, options, _selected(view))
            if choice is not None:
                return _select_streams(view, choice.stream_ids, memory=view.memory, preface=[])
    return None


def _answer_while_running(view: SessionView, reading: _Reading) -> Step | None:
    """While a job runs: the values are kept for a later conversion, and nothing else happens."""
    if view.status not in RUNNING_STATUSES:
        return None
    note = " They will be used if the file is converted again." if reading.updates else ""
    text = "The conversion is under way; I'll tell you when it's done."
    if view.status == Status.DETECTING_FORMAT:
        text = "I'm still looking at your files; one moment."
    return _step(
        view,
        view.status,
        view.awaiting,
        updates=reading.updates,
        replies=[Reply(text=t) for t in reading.preface] + [Reply(text=text + note)],
    )


def _answer_to_format_question(view: SessionView, reading: _Reading) -> Step | None:
    """ "Which format are these files?": the candidate named, or the question again."""
    option = _chosen_format(view, reading.parsed.format_choice, reading.text)
    if option is not None:
        return _select_format(view, option)
    labels = " or ".join(f"“{o.label}”" for o in view.memory.format_candidates)
    question = Reply(text=f"Which format are these files: {labels}?")
    return _step(
        view,
        view.status,
        view.awaiting,
        updates=reading.updates,
        replies=[*(Reply(text=t) for t in reading.preface), question],
    )


def _answer_to_metadata_request(view: SessionView, reading: _Reading) -> Step | None:
    """The answer to the request for details: values, skips or "just convert it" move on to the
    next question or the plan."""
    memory = view.memory
    if Intent.APPROVE in reading.parsed.intents and not reading.updates:
        # "Just convert it" while questions are open is seed 000's minimal user.
        memory = memory.model_copy(update={"minimal": True})
    if reading.updates or reading.problems or reading.parsed.intents & _STEERING:
        return _next_after_metadata(view, updates=reading.updates, preface=reading.preface, memory=memory)
    return None


def _answer_to_plan(view: SessionView, reading: _Reading) -> Step | None:
    """The answer to the plan: a change shows it again, approval converts, a rejection waits for
    what to change."""
    intents = reading.parsed.intents
    if reading.updates or reading.problems or reading.newly_declined:
        return _next_after_metadata(view, updates=reading.updates, preface=reading.preface, memory=view.memory)
    if Intent.APPROVE in intents or Intent.SKIP_ALL in intents:
        return _start_conversion(view)
    if Intent.REJECT in intents:
        return _reject_plan(view)
    return None


def _answer_to_issues(view: SessionView, reading: _Reading) -> Step | None:
    """The answer to a check's issues: accept the file as it is, or give values (or say "retry")
    to convert again."""
    intents = reading.parsed.intents
    if Intent.ACCEPT_AS_IS in intents:
        return _accept_as_is(view)
    if reading.updates or Intent.RETRY in intents or Intent.APPROVE in intents:
        return _start_conversion(view, updates=reading.updates, memory=view.memory, preface=reading.preface)
    if Intent.FIX in intents:
        return _step(view, view.status, view.awaiting, replies=[Reply(text=_fix_prompt(view))])
    return None


def _answer_unasked(view: SessionView, reading: _Reading) -> Step | None:
    """A message when no question is open: after a conversion, "retry" converts again and values
    wait for it; before any upload, values wait for the recording."""
    intents = reading.parsed.intents
    updates = reading.updates
    if view.status in (Status.FAILED, Status.CANCELLED, Status.COMPLETED, Status.COMPLETED_WITH_ISSUES):
        if Intent.RETRY in intents or (Intent.APPROVE in intents and view.status != Status.COMPLETED):
            return _retry(view, updates=updates, preface=reading.preface)
        if updates:
            return _step(
                view,
                view.status,
                None,
                updates=updates,
                replies=[Reply(text=t) for t in reading.preface]
                + [Reply(text="Say “retry” to convert again with these values.")],
            )
    if view.status == Status.IDLE and updates:
        return _step(
            view,
            view.status,
            None,
            updates=updates,
            replies=[Reply(text=t) for t in reading.preface]
            + [Reply(text="Now upload the recording (the whole folder if it has several files).")],
        )
    return None


# The handler of a message, by the question the session waits on (None: no question is open).
_ANSWERS: dict[Awaiting | None, Callable[[SessionView, _Reading], Step | None]] = {
    Awaiting.FORMAT_SELECTION: _answer_to_format_question,
    Awaiting.REQUIRED_METADATA: _answer_to_metadata_request,
    Awaiting.APPROVAL: _answer_to_plan,
    Awaiting.CORRECTION: _answer_to_issues,
    Awaiting.NO_PROGRESS_DECISION: _answer_to_issues,
    None: _answer_unasked,
}


def _reject_plan(view: SessionView) -> Step:
    text = (
        "Not converting this plan. Tell me what to change (e.g. “institution: Stanford”), "
        "here or in the metadata panel, or cancel."
    )
    # The page then stops offering this plan for approval.
    return _step(view, view.status, view.awaiting, replies=[Reply(text=text, data={"plan": "rejected"})])


# A remark in words ("the rig was acting up that day", "best unit yield we've had all year"): three
# words or more, most of them words, not a question.
_REMARK_WORD_RE = re.compile(r"[^\W\d_]{2,}")


def _is_a_remark(text: str) -> bool:
    """Whether a message that gave no value is a remark in words (questions get the help text)."""
    words = _REMARK_WORD_RE.findall(text)
    return len(words) >= 3 and len("".join(words)) >= len(text.replace(" ", "")) * 0.6 and "?" not in text


def _not_understood(view: SessionView, in_a_row: int, text: str = "") -> Step:
    """ "I didn't understand", with what is wanted; after `max_clarifications` in a row the portal
    stops asking the same way (seed 001's emergency brake): it moves on with what it has when it was
    asking for metadata, and otherwise offers the buttons for what can be done now."""
    if in_a_row < view.max_clarifications:
        memory = view.memory.model_copy(update={"misunderstood": in_a_row})
        return _step(
            view,
            view.status,
            view.awaiting,
            memory=memory,
            replies=[
                Reply(text=(_REMARK_NOTED if _is_a_remark(text) else "I didn't understand that. ") + _help_text(view))
            ],
        )
    memory = view.memory.model_copy(update={"misunderstood": 0})
    preface = (
        f"I couldn't make sense of your last {in_a_row} messages, so I'll stop asking the same way. "
        "(Labels always work, e.g. “species: mouse”, and so do the buttons.)"
    )
    if view.awaiting == Awaiting.REQUIRED_METADATA and view.recording is not None:
        # No more questions: the plan with what is there, the missing fields listed as not given.
        memory = memory.model_copy(
            update={"metadata_requests": max(memory.metadata_requests, view.max_metadata_requests)}
        )
        view = view.model_copy(update={"memory": memory})
        return _next_after_metadata(
            view, updates={}, preface=[preface + " Here is the plan with what I have."], memory=memory
        )
    options = _available_actions(view)
    text = preface + (
        " What you can do now: " + ", ".join(f"“{o.replace('_', ' ')}”" for o in options) + "." if options else ""
    )
    return _step(view, view.status, view.awaiting, memory=memory, replies=[_offer(text, options)])


_REMARK_NOTED = "Noted — that doesn't change anything I store. "


def _available_actions(view: SessionView) -> list[UserActionName]:
    """The actions that make sense now, as the page's buttons show them."""
    deciding = view.awaiting in (Awaiting.CORRECTION, Awaiting.NO_PROGRESS_DECISION)
    options: list[UserActionName] = []
    if view.awaiting == Awaiting.APPROVAL:
        options += [UserActionName.APPROVE, UserActionName.PREVIEW]
    if deciding:
        options.append(UserActionName.ACCEPT_AS_IS)
    finished = view.status in (Status.FAILED, Status.CANCELLED, Status.COMPLETED_WITH_ISSUES)
    if (deciding or finished) and view.recording is not None:
        options.append(UserActionName.RETRY)
    if view.status not in (Status.IDLE, Status.COMPLETED, Status.COMPLETED_WITH_ISSUES, Status.CANCELLED):
        options.append(UserActionName.CANCEL)
    return options


def _offer(text: str, actions: Sequence[UserActionName]) -> Reply:
    """A reply with the page's buttons for `actions` (the "options" card; its data holds their names
    as plain strings, as the page and the stored message read them); plain text when none is offered."""
    if not actions:
        return Reply(text=text)
    return Reply(text=text, card="options", data={"options": [str(action) for action in actions]})


def _turn_limit(view: SessionView) -> Step:
    """Seed 002's total-turn limit: past it, messages are no longer read (the buttons still work);
    the admins are told once."""
    text = (
        f"This session has reached its limit of {view.max_turns} messages, so I won't read more messages "
        "here. The buttons still work (approve, retry, accept as is, cancel), and the files and attempts "
        "stay as they are; to go on talking, start a new conversion. The portal's admins have been told."
    )
    first_time = view.memory.turns == view.max_turns + 1
    actions = [FlagForReview(reason=f"reached the limit of {view.max_turns} messages")] if first_time else []
    return _step(view, view.status, view.awaiting, replies=[Reply(text=text)], actions=actions)


def _request_help(view: SessionView, *, reason: str) -> Step:
    """Seed 000's escape hatch "request help": the admins see the session, with everything needed to
    understand it; the conversation stays where it was."""
    text = (
        "I've asked the portal's admins to look at this session; they see your files, every attempt, "
        "the issues found and this conversation."
    )
    options = [o for o in _available_actions(view) if o != UserActionName.CANCEL]
    if options:
        text += " Meanwhile you can still " + " or ".join(f"“{o.replace('_', ' ')}”" for o in options) + "."
    return _step(
        view, view.status, view.awaiting, replies=[_offer(text, options)], actions=[FlagForReview(reason=reason)]
    )


def _frustrated(view: SessionView) -> Step:
    """Seed 000's frustrated user: say where things stand and offer every way out, never another
    round of the same."""
    if view.status in RUNNING_STATUSES:
        text = f"{_status_text(view)} I'll tell you as soon as it's done; you can also cancel it."
        return _step(view, view.status, view.awaiting, replies=[Reply(text=text)])
    validated = view.awaiting in (Awaiting.CORRECTION, Awaiting.NO_PROGRESS_DECISION)
    ways = []
    if validated:
        ways.append("accept the file as it is (it stays downloadable, with its issues listed)")
    if view.recording is not None and view.status != Status.COMPLETED:
        ways.append("try again with other values (tell me what to change)")
    ways.append("ask the portal's admins to look at it (say “ask an expert”)")
    options = ([UserActionName.ACCEPT_AS_IS] if validated else []) + (
        [UserActionName.RETRY] if view.recording is not None else []
    )
    options.append(UserActionName.REQUEST_HELP)
    text = "Sorry this is not going well. You can " + "; or ".join(ways) + "."
    return _step(view, view.status, view.awaiting, replies=[_offer(text, options)])


def _normalized(
    view: SessionView, raw_fields: dict[str, str], *, llm_fields: frozenset[str] = frozenset()
) -> tuple[dict[str, FieldValue], list[str]]:
    """Values as the normalizers make them, whoever read them from the message: the rules or, for
    `llm_fields`, the language model (then their source says so)."""
    updates: dict[str, FieldValue] = {}
    problems: list[str] = []
    for name, raw in raw_fields.items():
        try:
            value = normalize_field(name, raw, timezone=view.timezone)
        except ValueError as exc:
            problems.append(f"I couldn't use “{raw}” as the {FIELDS[name].label if name in FIELDS else name}: {exc}")
            continue
        updates[name] = FieldValue(value=value, source=Source.LLM if name in llm_fields else Source.USER)
    return updates, problems


def _from_registry(view: SessionView, updates: dict[str, FieldValue]) -> tuple[dict[str, FieldValue], list[str]]:
    """The subject fields the lab's registry knows for a subject id given in this message, and the
    age at the session from the date of birth. Never over a value the user gave (now or before),
    only over earlier lab defaults (a corrected subject id brings its own facts)."""
    subject = updates.get("subject_id")
    if subject is None:
        return {}, []
    facts = view.registry.get(str(subject.value).casefold())
    if not facts:
        return {}, []

    def ours(name: str) -> bool:
        existing = view.metadata.get(name)
        return name not in updates and (existing is None or existing.source == Source.LAB_DEFAULT)

    added: dict[str, FieldValue] = {}
    for name, raw in facts.items():
        if name in FIELDS and ours(name):
            try:
                added[name] = FieldValue(
                    value=normalize_field(name, raw, timezone=view.timezone), source=Source.LAB_DEFAULT
                )
            except ValueError:
                continue
    birth = added.get("date_of_birth") or updates.get("date_of_birth") or view.metadata.get("date_of_birth")
    start = updates.get("session_start_time") or view.metadata.get("session_start_time")
    if birth is not None and start is not None and ours("age"):
        with contextlib.suppress(ValueError):  # born after the session: the age stays a question
            age = age_from_birth(str(birth.value), str(start.value))
            added["age"] = FieldValue(value=age, source=Source.LAB_DEFAULT)
    if not added:
        return {}, []
    shown = "; ".join(f"{_label(name)}: {_show(entry.value)}" for name, entry in added.items())
    note = f"{_show(subject.value)} is in the lab's subject registry, so I took its {shown}"
    if "age" in added:
        note += " (the age from the date of birth and the session's start)"
    return added, [note + ". Say so if any of it is wrong for this session."]


def change_line(name: str, before: Any, after: Any) -> str:
    """How a change of a value already set is shown: "institution: MIT → Stanford"."""
    return f"{_label(name)}: {_show(before)} → {_show(after)}"


def _choice_questions(view: SessionView, parsed: ParsedMessage, updates: dict[str, FieldValue]) -> list[str]:
    """One short question naming both readings, for a field the message gives two values for and
    that is not set yet ("You named Rattus norvegicus and Mus musculus: which is the species?")."""
    questions = []
    for name, options in parsed.choices.items():
        if name in updates or name not in FIELDS or _has(view.metadata, name):
            continue
        named = " and ".join(options[:2]) if len(options) <= 2 else ", ".join(options[:-1]) + f" and {options[-1]}"
        questions.append(f"You named {named}: which is the {_label(name)}? Say “{_label(name)}: …”.")
    return questions


def _unclear_zone_text(said: str, start_time: str | None) -> str:
    """ "IST" names three zones: ask which, and keep the start time until it is answered."""
    meanings = AMBIGUOUS_ABBREVIATIONS.get(said.casefold())
    text = f"“{said}” can mean {meanings}" if meanings else f"You named more than one time zone ({said})"
    text += "; which one? Say e.g. “time zone Asia/Kolkata”."
    if start_time:
        text += f" I haven't used the start time “{start_time}” yet: give it again with the zone."
    return text


def _without_guesses_over_values(
    view: SessionView, parsed: ParsedMessage, updates: dict[str, FieldValue]
) -> tuple[dict[str, FieldValue], list[str]]:
    """A value read only because a phrase fits the field (`ParsedMessage.guessed`) never replaces one
    already set, unless the portal just asked for that field: it is kept, and the reply says how
    to change it. A labeled value, a correction or a value whose shape says what it is does."""
    kept_lines = []
    for name in [n for n in updates if n in parsed.guessed and n not in view.memory.asking_for]:
        existing = view.metadata.get(name)
        if not _has(view.metadata, name) or existing is None or existing.value == updates[name].value:
            continue
        del updates[name]
        kept_lines.append(
            f"I kept the {_label(name)} “{_show(existing.value)}”; if “{parsed.fields[name]}” should replace it, "
            f"say “{_label(name)}: {parsed.fields[name]}”."
        )
    return updates, kept_lines


def _acknowledge(view: SessionView, updates: dict[str, FieldValue]) -> str:
    """What this message set, each change of a value already there shown as "X: A → B" (never a
    silent replacement); a start time that replaces the file's says so."""
    parts = []
    for name, entry in updates.items():
        existing = view.metadata.get(name)
        if existing is None or not _has(view.metadata, name) or existing.value == entry.value:
            parts.append(f"{_label(name)}: {_show(entry.value)}")
        elif existing.source == Source.FILE:
            parts.append(
                f"{change_line(name, existing.value, entry.value)} (the file says {_show(existing.value)}; using yours)"
            )
        else:
            parts.append(change_line(name, existing.value, entry.value))
    return "Noted — " + "; ".join(parts) + "."


def _user_action(view: SessionView, event: UserAction) -> Step:
    match event.action:
        case UserActionName.CANCEL:
            return _cancel(view)
        case UserActionName.APPROVE:
            return _on_approve(view)
        case UserActionName.REJECT:
            return _on_reject(view)
        case UserActionName.ACCEPT_AS_IS:
            return _on_accept_as_is(view)
        case UserActionName.RETRY:
            return _on_retry(view)
        case UserActionName.PREVIEW:
            return _preview(view, updates={}, memory=view.memory, preface=())
        case UserActionName.REQUEST_HELP:
            return _request_help(view, reason="asked for help (button)")
        case UserActionName.SELECT_STREAMS:
            return _select_streams(view, _stream_ids(event.value), memory=view.memory)
        case UserActionName.SELECT_FORMAT:
            return _on_select_format(view, str(event.value or "").strip())
    raise ValueError(event.action)


def _on_approve(view: SessionView) -> Step:
    if view.awaiting == Awaiting.APPROVAL:
        return _start_conversion(view)
    if view.awaiting == Awaiting.REQUIRED_METADATA:
        return _refuse(view, "I still need some details before I can show a plan. " + _help_text(view))
    return _refuse(view, "There is nothing to approve right now. " + _status_text(view))


def _on_reject(view: SessionView) -> Step:
    if view.awaiting != Awaiting.APPROVAL:
        return _refuse(view, "There is no plan waiting for approval. " + _status_text(view))
    return _reject_plan(view)


def _on_accept_as_is(view: SessionView) -> Step:
    if view.awaiting in (Awaiting.CORRECTION, Awaiting.NO_PROGRESS_DECISION):
        return _accept_as_is(view)
    return _refuse(view, "There is no validated file waiting for a decision. " + _status_text(view))


def _on_retry(view: SessionView) -> Step:
    if view.status in RUNNING_STATUSES:
        return _refuse(view, "A job is already running. " + _status_text(view))
    if view.awaiting in (Awaiting.CORRECTION, Awaiting.NO_PROGRESS_DECISION):
        return _start_conversion(view)
    if view.status in (Status.FAILED, Status.CANCELLED, Status.COMPLETED_WITH_ISSUES, Status.COMPLETED):
        return _retry(view, updates={})
    return _refuse(view, "There is nothing to retry yet. " + _status_text(view))


def _stream_ids(value: Any) -> list[str]:
    """The stream ids a select_streams action carries: one id, a list of them, or (anything else) none."""
    ids = [value] if isinstance(value, str) else list(value) if isinstance(value, list | tuple) else []
    return [str(i) for i in ids]


def _on_select_format(view: SessionView, key: str) -> Step:
    if view.awaiting == Awaiting.FORMAT_SELECTION:
        option = _chosen_format(view, key, "")
        if option is None:
            keys = ", ".join(o.key for o in view.memory.format_candidates)
            return _refuse(view, f"“{key}” is not one of the candidates ({keys}).")
        return _select_format(view, option)
    if view.status in RUNNING_STATUSES or not view.memory.files_version or not key:
        return _refuse(view, "Upload the recording first; then a format can be chosen for it.")
    # Any other format the user names explicitly (e.g. "neuroconv:TdtRecordingInterface");
    # the detection job says plainly if there is no such format.
    return _select_format(view, FormatOption(key=key, label=key))


def _retry(view: SessionView, *, updates: dict[str, FieldValue], preface: Sequence[str] = ()) -> Step:
    if view.recording is None:
        if view.memory.files_version and view.status in (Status.CANCELLED, Status.FAILED):
            # Cancelled before the files were recognised (e.g. at the format question): look again.
            memory = view.memory.model_copy(update={"format_candidates": [], "chosen_format": None})
            text = "Looking at your files again…"
            return _step(
                view,
                Status.DETECTING_FORMAT,
                None,
                memory=memory,
                updates=updates,
                replies=[*(Reply(text=t) for t in preface), Reply(text=text)],
                actions=[DetectFormat(files_version=view.memory.files_version)],
            )
        return _refuse(view, "There is no recognised recording to convert: upload one first.")
    return _next_after_metadata(view, updates=updates, preface=preface)


# What a cancel stops, said as it is: during the check, the conversion has already written its file,
# which stays (complete, but not checked against DANDI's rules).
_WHAT_CANCEL_STOPS = {
    Status.DETECTING_FORMAT: " Looking at your files is stopped.",
    Status.CONVERTING: " The running conversion is being stopped and its partial file removed.",
    Status.VALIDATING: (
        " The conversion had already finished: its file is kept, but the check against DANDI's rules is "
        "stopped, so the file is not validated."
    ),
}


def _cancel(view: SessionView) -> Step:
    if view.status in (Status.COMPLETED, Status.COMPLETED_WITH_ISSUES, Status.CANCELLED):
        return _refuse(view, "There is nothing to cancel: " + _status_text(view))
    text = "Cancelled." + _WHAT_CANCEL_STOPS.get(view.status, "")
    text += " Your uploaded files and previous attempts are kept; say “retry” or upload again to start over."
    memory = view.memory.model_copy(update={"asking_for": []})
    return _step(view, Status.CANCELLED, None, memory=memory, replies=[Reply(text=text)], actions=[CancelJobs()])


def _accept_as_is(view: SessionView) -> Step:
    text = (
        "Accepted as it is. The file is ready to download; the issues stay listed in the report. "
        "It may not meet every DANDI requirement."
    )
    memory = view.memory.model_copy(update={"asking_for": []})
    return _step(view, Status.COMPLETED_WITH_ISSUES, None, memory=memory, replies=[Reply(text=text)])


# --- job outcomes ---------------------------------------------------------------------------------


def _conversion_succeeded(view: SessionView, event: ConversionSucceeded) -> Step:
    if view.status != Status.CONVERTING or event.attempt != view.memory.attempts:
        return _refuse(view, "")
    text = f"Conversion finished ({describe_size(event.size_bytes)}). Checking the file against DANDI's rules…"
    replies = [Reply(text=text)]
    if event.fixes:
        # One line naming what was written (a device's description, not which device); each change
        # (before, after, why) is in the card's data, behind the page's "details" as `_form_fixes`'.
        fixes = [
            {**fix, "label": FIELDS[fix["field"]].label if fix["field"] in FIELDS else fix["field"]}
            for fix in event.fixes
        ]
        kinds = dict.fromkeys(str(fix["label"]).split(" '")[0] for fix in fixes)
        count = f"{len(fixes)} value{'s' if len(fixes) != 1 else ''}"
        said = f"Fixed automatically while converting: {count} written from what the files say ({', '.join(kinds)})."
        replies.insert(0, Reply(text=said, card="fixes", data={"fixes": fixes}))
    return _step(view, Status.VALIDATING, None, replies=replies, actions=[StartValidation(attempt=event.attempt)])


def _conversion_failed(view: SessionView, event: ConversionFailed) -> Step:
    if view.status != Status.CONVERTING or event.attempt != view.memory.attempts:
        return _refuse(view, "")
    # Seed 004's error feedback: retry, modify, skip where it makes sense, abort; and an expert.
    ways = ["say “retry”", "correct a value (e.g. “sex: female”) or upload corrected files"]
    selected = _selected(view) if view.recording is not None else []
    if len(selected) > 1:
        named = next(s for s in view.recording.streams if s.id == selected[-1]) if view.recording else None
        ways.append(f"leave out a stream that fails (e.g. “without {_short_name(named)}”)" if named else "")
    ways += ["ask an expert", "or cancel"]
    text = f"The conversion failed: {event.user_message} You can " + ", ".join(w for w in ways if w) + "."
    options = [UserActionName.RETRY, UserActionName.REQUEST_HELP, UserActionName.CANCEL]
    return _step(view, Status.FAILED, None, replies=[_offer(text, options)])


def _validation_completed(view: SessionView, event: ValidationCompleted) -> Step:
    if view.status != Status.VALIDATING or event.attempt != view.memory.attempts:
        return _refuse(view, "")
    keys = sorted(issue.key for issue in event.issues)
    memory = view.memory.model_copy(update={"previous_issue_keys": keys})
    if event.outcome == "passed":
        text = "The file passed every DANDI check. It is ready to download."
        return _step(view, Status.COMPLETED, None, memory=memory, replies=[Reply(text=text)])
    card = _issues_card(event.issues)
    if event.attempt >= NO_PROGRESS_ATTEMPT and keys == view.memory.previous_issue_keys:
        text = (
            "We are going in circles: this attempt has exactly the same issues as the last one. "
            "You can (a) try a different approach — tell me other values, (b) accept the file as it is, "
            "or (c) stop and ask an expert to look at it (I'll flag it for the portal's admins)."
        )
        return _step(
            view,
            Status.AWAITING_USER_INPUT,
            Awaiting.NO_PROGRESS_DECISION,
            memory=memory,
            replies=[card, _offer(text, [UserActionName.RETRY, UserActionName.ACCEPT_AS_IS, UserActionName.CANCEL])],
            actions=[FlagForReview(reason="no progress: identical issues on consecutive attempts")],
        )
    # Fields the issues name: missing ones, and given ones whose value DANDI cannot use (a species it
    # knows only by its taxonomy link, a sex it cannot read).
    wanted = _fields_of(event.issues)
    asked_before = [name for name in wanted if name in memory.declined]
    if event.outcome == "passed_with_issues":
        text = "The file is valid NWB and DANDI would accept it, with the suggestions above. "
        if not wanted:
            # Nothing the user could give would change them: there is no decision to ask for.
            text += (
                "None of them can be settled with a value you could give, so the file is ready to download. "
                "You can still correct a value and say “retry” to convert again."
            )
            memory = memory.model_copy(update={"asking_for": []})
            return _step(view, Status.COMPLETED_WITH_ISSUES, None, memory=memory, replies=[card, Reply(text=text)])
        example = ", ".join(f"{FIELDS[n].label}: {FIELDS[n].example}" for n in wanted[:2])
        text += f"Would you like to fix them (tell me the values, e.g. “{example}”) or accept it as it is?"
    else:
        text = "DANDI would not accept this file yet."
        if wanted:
            text += f" To fix it I need the {_labels(wanted)}."
            if asked_before:
                text += f" (You skipped the {_labels(asked_before)} earlier; DANDI needs them for this file.)"
            text += f" For example: “{', '.join(f'{FIELDS[n].label}: {FIELDS[n].example}' for n in wanted)}”."
            text += " Give the values and I'll convert again, or accept the file as it is."
        else:
            text += (
                " None of these issues can be fixed with a value I can ask for yet: you can accept the file "
                "as it is, say “retry”, or cancel."
            )
    memory = memory.model_copy(update={"asking_for": wanted})
    return _step(
        view,
        Status.AWAITING_USER_INPUT,
        Awaiting.CORRECTION,
        memory=memory,
        replies=[card, _offer(text, [UserActionName.ACCEPT_AS_IS, UserActionName.RETRY])],
    )


def _job_lost(view: SessionView, event: JobLost) -> Step:
    if view.status != Status.CONVERTING or event.attempt != view.memory.attempts:
        return _refuse(view, "")
    text = (
        "The worker running your conversion stopped unexpectedly and the job could not be resumed. "
        "Nothing you gave is lost: say “retry” to run it again. The portal's admins have been told."
    )
    return _step(
        view,
        Status.FAILED,
        None,
        replies=[Reply(text=text)],
        actions=[FlagForReview(reason=f"job lost on attempt {event.attempt}")],
    )


def _job_retrying(view: SessionView, event: JobRetrying) -> Step:
    if view.status != Status.CONVERTING or event.attempt != view.memory.attempts:
        return _refuse(view, "")
    when = "now" if event.delay_s <= 0 else f"in about {_duration(event.delay_s)}"
    text = (
        f"The conversion was interrupted ({event.reason}); that is not a problem with your data, so it "
        f"starts again by itself {when} (run {event.run} of at most {event.runs}). You can cancel at any time."
    )
    return _step(view, view.status, view.awaiting, replies=[Reply(text=text)])


def _session_idle(view: SessionView, event: SessionIdle) -> Step:
    """Seed 002's idle timeout: a question unanswered for long is closed; nothing is lost and
    "retry" picks up where it stopped."""
    waiting = view.status in (Status.AWAITING_USER_INPUT, Status.AWAITING_APPROVAL)
    if not waiting:
        return _refuse(view, "")
    text = (
        f"This session waited {event.hours} hours for an answer, so I closed it. Nothing is lost: your "
        "files, the details you gave and any earlier attempts are kept. Say “retry” to pick up where we "
        "stopped."
    )
    memory = view.memory.model_copy(update={"asking_for": [], "format_candidates": []})
    return _step(view, Status.CANCELLED, None, memory=memory, replies=[Reply(text=text)])


def _fields_of(issues: Iterable[IssueSummary]) -> list[str]:
    seen: list[str] = []
    for issue in issues:
        for name in issue.fields:
            if name not in seen:
                seen.append(name)
    return seen


def _issues_card(issues: Sequence[IssueSummary]) -> Reply:
    order = {"ERROR": 0, "CRITICAL": 1, "BEST_PRACTICE_VIOLATION": 2, "BEST_PRACTICE_SUGGESTION": 3}
    ranked = sorted(issues, key=lambda i: order.get(i.importance, 9))
    words = {
        "ERROR": "must fix",
        "CRITICAL": "must fix",
        "BEST_PRACTICE_VIOLATION": "should fix",
        "BEST_PRACTICE_SUGGESTION": "suggestion",
    }
    lines = [f"The check found {len(issues)} issue{'s' if len(issues) != 1 else ''}:"]
    # The same words for several places (e.g. three table columns) are said once, with the count.
    said: dict[tuple[str, str], int] = {}
    for issue in ranked:
        key = (words.get(issue.importance, issue.importance.lower()), issue.explanation)
        said[key] = said.get(key, 0) + 1
    for (word, text), count in said.items():
        lines.append(f"• [{word}] {text}" + (f" ({count} places)" if count > 1 else ""))
    return Reply(text="\n".join(lines), card="issues", data={"issues": [i.model_dump(mode="json") for i in ranked]})


# --- help and status ------------------------------------------------------------------------------


def _help_text(view: SessionView) -> str:
    match view.awaiting:
        case Awaiting.FORMAT_SELECTION:
            labels = " or ".join(f"“{o.label}”" for o in view.memory.format_candidates)
            return f"Tell me which format these files are: {labels}."
        case Awaiting.REQUIRED_METADATA:
            return (
                f"I need the {_labels(view.memory.asking_for or list(CRITICAL_FIELDS))}. Answer in one message "
                "(e.g. “Jane Smith, MIT, V1 recording”), say “skip” or “just convert it”."
            )
        case Awaiting.APPROVAL:
            text = "Say “approve” to start the conversion, “preview” to see the first seconds as NWB first"
            if view.recording is not None and len(view.recording.streams) > 1:
                text += ", “only …” / “also …” to choose streams"
            return text + ", tell me what to change, or “cancel”."
        case Awaiting.CORRECTION | Awaiting.NO_PROGRESS_DECISION:
            return "Give the missing values to convert again, say “accept as is” to keep the file, or “cancel”."
    match view.status:
        case Status.IDLE:
            return "Upload a recording (for SpikeGLX: the .bin file with its .meta) to begin."
        case Status.FAILED | Status.CANCELLED:
            return "Say “retry” to convert again, upload other files, or correct a value (e.g. “sex: female”)."
        case Status.COMPLETED | Status.COMPLETED_WITH_ISSUES:
            return "The NWB file is ready to download. Correct a value and say “retry” to convert again."
    return "A job is running; say “cancel” to stop it, or “status” to see where it is."


def _greeting_text(view: SessionView, format_choice: str | None) -> str:
    """The answer to "Hi" or "I'd like to convert my data": before any recording, how to begin and
    what to upload for each format (or for the one named); later, where things stand and what is needed."""
    if view.recording is None and view.status == Status.IDLE:
        formats = [
            f for f in SUPPORTED_FORMATS.values() if not format_choice or f.key.startswith(format_choice)
        ] or list(SUPPORTED_FORMATS.values())
        lines = [
            "Hello! I convert neurophysiology recordings to NWB and check the file against DANDI's rules. "
            "Upload the recording to begin (the whole folder if it has several files). What to upload:"
        ]
        lines += [f"• {f.label}: {f.needs}" for f in formats]
        lines.append(
            "I'll recognise the format, show what the files contain, and ask for the few details NWB needs "
            "(experimenter, institution, a description of the experiment, and the subject)."
        )
        return "\n".join(lines)
    if view.status in (Status.COMPLETED, Status.COMPLETED_WITH_ISSUES):
        return f"Hello! {_status_text(view)} Correct a value and say “retry” to convert again."
    text = f"Hello! {_status_text(view)}"
    return text if view.awaiting is not None else f"{text} {_help_text(view)}"


def _status_text(view: SessionView) -> str:
    words = {
        Status.IDLE: "Waiting for a recording to be uploaded.",
        Status.DETECTING_FORMAT: "Looking at the uploaded files.",
        Status.AWAITING_USER_INPUT: "Waiting for your answer. " + _help_text(view),
        Status.AWAITING_APPROVAL: "Waiting for you to approve the plan. " + _help_text(view),
        Status.CONVERTING: f"Converting (attempt {view.memory.attempts}).",
        Status.VALIDATING: f"Checking attempt {view.memory.attempts} against DANDI's rules.",
        Status.COMPLETED: "Done: the NWB file passed validation and is ready to download.",
        Status.COMPLETED_WITH_ISSUES: "Done: the NWB file is ready to download, with issues listed in the report.",
        Status.FAILED: "The last conversion failed.",
        Status.CANCELLED: "Cancelled.",
    }
    return words[view.status]


def _fix_prompt(view: SessionView) -> str:
    wanted = view.memory.asking_for
    if wanted:
        spec = FIELDS[wanted[0]]
        return f"To fix the issues, give the {_labels(wanted)} (e.g. “{spec.label}: {spec.example}”)."
    return "These issues can't be fixed by a value I can ask for; accept the file as it is, or say “retry”."


# --- wording --------------------------------------------------------------------------------------


def _article(word: str) -> str:
    return "an" if word[:1].upper() in "AEIOU" else "a"


def _source_words(source: Source) -> str:
    return {
        Source.USER: "you",
        Source.FILE: "the recording",
        Source.LAB_DEFAULT: "lab default",
        Source.LLM: "understood by the assistant",
        Source.AUTO_FIX: "automatic fix",
    }[source]


def _show(value: Any) -> str:
    if isinstance(value, list):
        return "; ".join(str(v) for v in value)
    return str(value)


def _duration(seconds: int) -> str:
    if seconds < 90:
        return f"{seconds} s"
    return f"{round(seconds / 60)} min"

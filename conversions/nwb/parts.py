"""One experiment in one NWB file: a recording and its parts (spike sorting, pose, video), on one clock.

Detection finds each part with its own format module (`formats.sorting`, `formats.pose`,
`formats.video`, marked `companion`); `combine` joins them to the recording's detection as more
streams, so the plan offers each part as a stream to tick, and the stream choice, its checks and its
facts work as they do for a recording's streams. `file_metadata["parts"]` says which format reads
each part's stream; `split_choice` groups a choice by format for the conversion.

Time (`timing`): the recording's first sample is the session's time zero. A sorting of one of its
streams counts that stream's samples, so it starts with it. A video and the pose tracked in it run
on the camera's clock: their frame times are known, their start relative to the recording is not,
unless the user says it (`behaviour_start_s`, seconds after the recording started). Without a
recording, the first frame is time zero.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import PurePosixPath
from typing import Any

from .formats.base import Detection, Stream
from .normalizers import normalize_seconds_after

# Kinds of stream a part brings.
PART_KINDS = ("spikes", "pose", "video")
# What a part is called in sentences, by kind of stream.
PART_WORDS = {"spikes": "spike sorting", "pose": "pose", "video": "video"}
# Where the two clocks meet when the user says nothing: never assumed for a video beside a recording.
CAMERA_CLOCK_PARTS = ("pose", "video")


def combine(primary: Detection, *others: Detection) -> Detection:
    """`primary` (a recording, or the first part when there is none) with the streams of `others`."""
    parts: dict[str, str] = dict(primary.file_metadata.get("parts", {}))
    metadata: dict[str, Any] = dict(primary.file_metadata)
    streams = list(primary.streams)
    defaults = list(primary.default_streams)
    notes = list(primary.notes)
    for other in others:
        for stream in other.streams:
            parts[stream.id] = other.format
        streams.extend(other.streams)
        defaults.extend(other.default_streams)
        notes.extend(other.notes)
        for key in ("sortings", "pose_rates", "pose_frames", "video_frames"):
            if key in other.file_metadata:
                metadata[key] = {**metadata.get(key, {}), **other.file_metadata[key]}
    metadata["parts"] = parts
    combined = Detection(
        format=primary.format,
        format_label=primary.format_label,
        streams=tuple(streams),
        default_streams=tuple(defaults),
        file_metadata=metadata,
        notes=tuple(notes),
    )
    sorting_notes = [note for stream in combined.streams if (note := _sorting_note(combined, stream))]
    return replace(combined, notes=(*combined.notes, *sorting_notes))


def owner(detection: Detection, stream_id: str) -> str:
    """The format key that reads this stream: a part's own format, else the detection's."""
    return str(detection.file_metadata.get("parts", {}).get(stream_id, detection.format))


def split_choice(detection: Detection, stream_ids: Sequence[str]) -> dict[str, tuple[str, ...]]:
    """The chosen streams grouped by the format that reads them, the recording's group first."""
    groups: dict[str, list[str]] = {}
    for stream_id in stream_ids:
        groups.setdefault(owner(detection, stream_id), []).append(stream_id)
    ordered = sorted(groups, key=lambda key: key != detection.format)
    return {key: tuple(groups[key]) for key in ordered}


def restricted(detection: Detection, format_key: str) -> Detection:
    """The detection as the format `format_key` made it: only the streams it reads, so a format's own
    rules (which iterate over streams) never meet another format's."""
    streams = tuple(stream for stream in detection.streams if owner(detection, stream.id) == format_key)
    ids = {stream.id for stream in streams}
    return replace(
        detection,
        format=format_key,
        streams=streams,
        default_streams=tuple(stream_id for stream_id in detection.default_streams if stream_id in ids),
    )


def is_part(detection: Detection, stream_id: str) -> bool:
    return stream_id in detection.file_metadata.get("parts", {})


@dataclass(frozen=True)
class Timing:
    """Where one chosen stream sits on the session's clock."""

    stream_id: str
    label: str
    kind: str
    start_s: float | None  # None: not known until the user says when the camera started
    duration_s: float
    how: str  # how the start was found, in words


def timing(detection: Detection, stream_ids: Sequence[str], *, behaviour_start_s: float | None) -> list[Timing]:
    """Each chosen stream's start and duration on the session's clock, and how the start was found."""
    chosen = [detection.stream(stream_id) for stream_id in stream_ids]
    recordings = [stream for stream in chosen if stream.kind not in PART_KINDS]
    on_recording_clock = [stream for stream in chosen if stream.kind not in CAMERA_CLOCK_PARTS]
    found = []
    for stream in chosen:
        pulses = camera_pulses(detection, stream, recordings) if stream.kind in CAMERA_CLOCK_PARTS else None
        if stream.kind not in PART_KINDS or (not is_part(detection, stream.id) and stream.kind == "spikes"):
            start, how = 0.0, "the session starts with the recording"
        elif stream.kind == "spikes":
            start, how = 0.0, _sorting_how(detection, stream, recordings)
        elif not on_recording_clock:
            start, how = 0.0, "the session's clock starts with the first video frame"
        elif pulses is not None:
            start = pulses.first_s
            how = f"each of its {pulses.count} frames is timed by a pulse on {pulses.label}"
        elif behaviour_start_s is not None:
            start, how = behaviour_start_s, f"the camera started {_seconds(behaviour_start_s)} after the recording"
        else:
            start, how = None, "when the camera started is not known: say it"
        found.append(Timing(stream.id, stream.label, stream.kind, start, stream.duration_s, how))
    return found


def said_seconds(value: Any) -> float | None:
    """When the user said the camera started (`behaviour_start_s`), as stored (a number) or as typed;
    None when it is not said or cannot be read (the conversion refuses that with the reader's words)."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return normalize_seconds_after(str(value))
    except ValueError:
        return None


def needs_behaviour_start(detection: Detection, stream_ids: Sequence[str]) -> bool:
    """Whether the choice puts video or pose beside a recording or a sorting (the recording's clock),
    so the camera's start must be said."""
    chosen = [detection.stream(stream_id) for stream_id in stream_ids]
    kinds = {stream.kind for stream in chosen}
    if not (kinds - set(CAMERA_CLOCK_PARTS) and kinds & set(CAMERA_CLOCK_PARTS)):
        return False
    recordings = [stream for stream in chosen if stream.kind not in PART_KINDS]
    cameras = [stream for stream in chosen if stream.kind in CAMERA_CLOCK_PARTS]
    return any(camera_pulses(detection, stream, recordings) is None for stream in cameras)


@dataclass(frozen=True)
class CameraPulses:
    """The recording's TTL line that times a video's (or its pose's) frames, one pulse per frame."""

    label: str  # "TTL line 2 of NI-DAQmx-103.PXIe-6341"
    events: str  # the TTL folder, relative to the upload root
    line: int
    count: int
    first_s: float  # the first pulse, in seconds after the recording's first sample
    zero_s: float  # the recording's first sample on the clock the pulses are timed on


def camera_pulses(detection: Detection, camera: Stream, recordings: Sequence[Stream]) -> CameraPulses | None:
    """The one TTL line of the chosen recording's experiment with exactly as many rising edges as the
    video (or the pose) has frames, timed on the clock of the recording's first stream; None when no
    line, or more than one, matches: then the user is asked when the camera started."""
    frames = _frames(detection, camera)
    starts = detection.file_metadata.get("stream_starts", {})
    timed = [stream for stream in recordings if stream.id in starts]
    if not frames or not timed:
        return None
    groups = {stream.group for stream in timed}
    matching = [
        line
        for line in detection.file_metadata.get("pulse_lines", [])
        if line.get("group", "") in groups and line.get("rising") == frames
    ]
    if len(matching) != 1:
        return None
    (line,) = matching
    zero = float(starts[timed[0].id])
    return CameraPulses(
        label=str(line["label"]),
        events=str(line["events"]),
        line=int(line["line"]),
        count=int(frames),
        first_s=float(line["first_s"]) - zero,
        zero_s=zero,
    )


def _frames(detection: Detection, camera: Stream) -> int:
    """The camera's frames: a video's own; for pose, those of the video it was tracked in when the
    upload holds it (SLEAP may leave the last frames without pose), else the frames the pose spans."""
    videos = detection.file_metadata.get("video_frames", {})
    if camera.id in videos:
        return int(videos[camera.id])
    for stream in detection.streams:
        if stream.kind == "video" and set(stream.files) & set(camera.files) and stream.id in videos:
            return int(videos[stream.id])
    return int(detection.file_metadata.get("pose_frames", {}).get(camera.id) or 0)


def recording_for_sorting(detection: Detection, sorting: Stream, candidates: Sequence[Stream]) -> Stream | None:
    """The recording stream a sorting counts samples of: the one whose data file `params.py` names,
    else the only one at the sorter's sample rate."""
    data_file = _data_file(detection, sorting)
    if data_file:
        named = [stream for stream in candidates if any(PurePosixPath(f).name == data_file for f in stream.files)]
        if len(named) == 1:
            return named[0]
    same_rate = [stream for stream in candidates if _same_rate(stream.sampling_rate_hz, sorting.sampling_rate_hz)]
    return same_rate[0] if len(same_rate) == 1 else None


def _sorting_how(detection: Detection, sorting: Stream, recordings: Sequence[Stream]) -> str:
    matched = recording_for_sorting(detection, sorting, recordings)
    data_file = _data_file(detection, sorting)
    if matched is not None and data_file and any(PurePosixPath(f).name == data_file for f in matched.files):
        return f"spike times count the samples of {matched.label} ({data_file}, which the sorter names)"
    if matched is not None:
        named = f"; the sorter names {data_file}, which is not in the upload" if data_file else ""
        return f"spike times count the samples of {matched.label}, the one recording at its sample rate{named}"
    if not recordings:
        return "spike times count samples from the sorted recording's start"
    return "its sample rate matches no chosen recording: spike times are placed from the recording's start"


def _data_file(detection: Detection, sorting: Stream) -> str:
    return str(detection.file_metadata.get("sortings", {}).get(sorting.id, {}).get("data_file", ""))


def _sorting_note(detection: Detection, stream: Stream) -> str:
    """A note when a sorting sits beside a recording none of whose streams it can have sorted, or
    when its units cannot be linked to the recording's electrodes."""
    if stream.kind != "spikes" or not is_part(detection, stream.id):
        return ""
    recordings = [s for s in detection.streams if not is_part(detection, s.id) and s.kind != "spikes"]
    if not recordings:
        return ""
    if recording_for_sorting(detection, stream, recordings) is not None:
        if detection.file_metadata.get("sortings", {}).get(stream.id, {}).get("says_channels", True):
            return ""
        return (
            f"The units of the {stream.label} are written without a link to the recording's electrodes: the sorter's "
            "folder does not say which channel each unit came from (Phy's cluster_info.tsv, or templates.npy with "
            "channel_map.npy). Add those files to link them."
        )
    rates = ", ".join(dict.fromkeys(f"{s.sampling_rate_hz:g} Hz" for s in recordings))
    return (
        f"The {stream.label} was sorted at {stream.sampling_rate_hz:g} Hz, but the recording's streams are sampled at "
        f"{rates}: it may be the sorting of another recording. Its spike times are placed from the recording's start."
    )


def _same_rate(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6 * max(a, b, 1.0)


def _seconds(value: float) -> str:
    return f"{value:g} s"


def parts_of(detection: Detection) -> Mapping[str, str]:
    return dict(detection.file_metadata.get("parts", {}))

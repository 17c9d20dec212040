"""What a format module builds on: the detection result it returns, the handler it registers, the
default rules for a choice of streams (any set converts; its facts come from the streams), and the
small tools every format needs (the upload's files, a folder view for readers, plain problem messages).

Nothing here knows a format, and nothing here imports the registry, so format modules import it
freely and `detection.py` sits on top of both without an import cycle.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..errors import RecordingProblem

if TYPE_CHECKING:
    from neuroconv import NWBConverter

# What a stream holds, in the words the conversation uses to offer streams:
# "neural": signals from the brain or body a scientist means by "the recording" (AP, LFP, wide-band,
#   EEG, a patch-clamp electrode's response); "all neural streams" are these.
# "auxiliary": other inputs recorded alongside (NI-DAQ or ADC inputs, sync, accelerometer, supply
#   voltage, flow, triggers), offered as optional extras.
# "spikes": spike times (sorted units, or threshold crossings detected online), not a sampled signal.
# "pose": body parts tracked in a video (DeepLabCut, SLEAP), on the video's frame clock.
# "video": a behaviour video, linked from the NWB file and kept beside it.
StreamKind = Literal["neural", "auxiliary", "spikes", "pose", "video"]
STREAM_KINDS: tuple[StreamKind, ...] = get_args(StreamKind)

# The facts `Detection.file_metadata` gives for the default streams, and `facts` for any choice.
FACT_KEYS = ("session_start_time", "device", "probe", "channel_count", "sampling_rate_hz", "duration_s", "size_bytes")


@dataclass(frozen=True)
class Stream:
    """One convertible signal stream of an upload (for SpikeGLX: one .bin/.meta pair).

    `files[0]` is the stream's main data file: messages about a failed conversion name it.
    `size_bytes` is the sum of the sizes of `files`, which the conversion re-checks to notice a
    file changed since detection. `group` names the separately started part of the upload the
    stream belongs to when the upload holds several (Open Ephys: "experiment 3"; several ABF
    files: the file), "" when it holds one: streams of different groups are never converted
    together where the format says so (`SupportedFormat.check_choice`).
    """

    id: str
    label: str
    # Neural channels as the reader exposes them; for SpikeGLX the SYNC channel saved in each
    # .bin is not counted (it carries synchronisation pulses, not voltages, and is not written).
    channel_count: int
    sampling_rate_hz: float
    duration_s: float
    size_bytes: int
    files: tuple[str, ...]  # relative to the upload root, POSIX separators
    kind: StreamKind
    group: str = ""

    def __post_init__(self) -> None:
        if self.kind not in STREAM_KINDS:
            raise ValueError(f"stream {self.id!r}: kind must be one of {', '.join(STREAM_KINDS)}, not {self.kind!r}")

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "channel_count": self.channel_count,
            "sampling_rate_hz": self.sampling_rate_hz,
            "duration_s": self.duration_s,
            "size_bytes": self.size_bytes,
            "files": list(self.files),
            "kind": self.kind,
            "group": self.group,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Stream:
        return cls(
            id=str(data["id"]),
            label=str(data["label"]),
            channel_count=int(data["channel_count"]),
            sampling_rate_hz=float(data["sampling_rate_hz"]),
            duration_s=float(data["duration_s"]),
            size_bytes=int(data["size_bytes"]),
            files=tuple(str(name) for name in data["files"]),
            # Detections stored before streams had kinds and groups: nearly all their streams were brain signals.
            kind=data.get("kind", "neural"),
            group=str(data.get("group", "")),
        )


@dataclass(frozen=True)
class Detection:
    """What `detect_format` found; stored as JSON between detection and conversion."""

    format: str
    format_label: str
    streams: tuple[Stream, ...]
    default_streams: tuple[str, ...]
    # The FACT_KEYS for the default streams: "session_start_time" (naive ISO 8601, or None when the
    # file has none), "device", "probe", "channel_count", "sampling_rate_hz", "duration_s",
    # "size_bytes"; a format may add its own, among them what `stream_facts` reads for other choices.
    file_metadata: dict[str, Any] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def stream(self, stream_id: str) -> Stream:
        for stream in self.streams:
            if stream.id == stream_id:
                return stream
        raise KeyError(f"no stream {stream_id!r} in this {self.format_label} detection")

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "format_label": self.format_label,
            "streams": [stream.to_json() for stream in self.streams],
            "default_streams": list(self.default_streams),
            "file_metadata": dict(self.file_metadata),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Detection:
        return cls(
            format=str(data["format"]),
            format_label=str(data["format_label"]),
            streams=tuple(Stream.from_json(stream) for stream in data["streams"]),
            default_streams=tuple(str(stream_id) for stream_id in data["default_streams"]),
            file_metadata=dict(data.get("file_metadata", {})),
            notes=tuple(str(note) for note in data.get("notes", ())),
        )


# A format's rules for a choice of streams (see `SupportedFormat.check_choice` and `.facts`).
ChoiceCheck = Callable[[Detection, Sequence[str]], None]
ChoiceFacts = Callable[[Detection, Sequence[str]], dict[str, Any]]


def accept_any_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """The default `SupportedFormat.check_choice`: every set of the format's streams converts together."""


def stream_facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The default `SupportedFormat.facts`: the FACT_KEYS for the chosen streams, from the detection alone.

    Channels are added up; the sampling rate and the duration are the highest among the chosen
    signals (spike times have a clock, not a sampling rate, and count only when nothing else is
    chosen); bytes are counted once per file, from `file_metadata["file_sizes"]` (name -> bytes)
    when the format gives it, otherwise once per set of files (streams that are channels of one
    file share it). The start time is the recording's; device and probe are the chosen streams' own
    where `file_metadata` gives them per stream ("stream_devices", "stream_probes": stream id ->
    words), otherwise the recording's.
    """
    streams = [detection.stream(stream_id) for stream_id in stream_ids]
    signals = [stream for stream in streams if stream.kind != "spikes"] or streams
    metadata = detection.file_metadata
    file_sizes = metadata.get("file_sizes")
    if isinstance(file_sizes, Mapping):
        size = sum(int(file_sizes[name]) for name in dict.fromkeys(name for s in streams for name in s.files))
    else:
        size = sum({stream.files: stream.size_bytes for stream in streams}.values())
    return {
        "session_start_time": metadata.get("session_start_time"),
        "device": _per_stream(metadata, "stream_devices", stream_ids, metadata.get("device")),
        "probe": _per_stream(metadata, "stream_probes", stream_ids, metadata.get("probe", "")),
        "channel_count": sum(stream.channel_count for stream in streams),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in signals),
        "duration_s": max(stream.duration_s for stream in signals),
        "size_bytes": size,
    }


def part_detection(
    key: str,
    label: str,
    streams: Sequence[Stream],
    *,
    file_metadata: Mapping[str, Any],
    notes: Sequence[str] = (),
    channel_count: int | None = None,
) -> Detection:
    """The detection of a session's part (a sorting, pose, a video): every stream converted by
    default, the FACT_KEYS from its streams (no start time, device or probe of its own; channels
    added up unless `channel_count` says), and the format's own `file_metadata`."""
    return Detection(
        format=key,
        format_label=label,
        streams=tuple(streams),
        default_streams=tuple(stream.id for stream in streams),
        file_metadata={
            "session_start_time": None,
            "device": "",
            "probe": "",
            "channel_count": sum(stream.channel_count for stream in streams)
            if channel_count is None
            else channel_count,
            "sampling_rate_hz": max(stream.sampling_rate_hz for stream in streams),
            "duration_s": max(stream.duration_s for stream in streams),
            "size_bytes": sum(stream.size_bytes for stream in streams),
            **file_metadata,
        },
        notes=tuple(notes),
    )


def _per_stream(metadata: Mapping[str, Any], key: str, stream_ids: Sequence[str], whole: Any) -> Any:
    by_stream = metadata.get(key)
    if not isinstance(by_stream, Mapping):
        return whole
    return "; ".join(dict.fromkeys(str(by_stream[s]) for s in stream_ids if by_stream.get(s)))


def refuse_mixed_groups(groups: Sequence[str], *, part: str, started: str) -> None:
    """Refuse streams from separately started parts of one upload: each part has its own start time
    and clock, which one NWB file cannot hold. `groups` are the chosen streams' parts ("experiment
    1"), `part` what a part is called ("experiment"), `started` why the parts are separate."""
    distinct = list(dict.fromkeys(groups))
    if len(distinct) > 1:
        raise RecordingProblem(
            f"The chosen streams come from different {part}s ({in_words(distinct)}). {started}, each with its own "
            f"start time and clock, so one NWB file cannot hold them together. Choose the streams of one {part} "
            f"only (for example those of {distinct[0]}), and convert each other {part} into its own NWB file."
        )


@dataclass(frozen=True)
class SupportedFormat:
    """A format handler: what one format module defines (as `FORMAT`) and registers.

    `claims` looks at file names only, so it is cheap and may claim too much: `detect_format`
    inspects every claimant and keeps those whose inspection succeeds. `inspect` does the real work:
    it checks every file a reader will need (partners present, sizes whole, headers readable), ends
    by opening the format's neuroconv interface on headers only, and raises `RecordingProblem`
    with a plain message naming the file otherwise. It must not read the data itself.
    """

    key: str  # stable: stored in the database as Detection.format
    label: str  # the name a scientist knows the format by
    needs: str  # plain words: which files make a complete recording
    claims: Callable[[Sequence[str]], bool]  # (upload files) -> may this be mine?
    inspect: Callable[[Path, Sequence[str]], Detection]  # (upload root, upload files) -> detection
    # (upload root, detection, chosen stream ids) -> a folder to hand to the reader; the chosen ids
    # may also be refused here with a RecordingProblem (e.g. a combination the format cannot write).
    open_for_reading: Callable[[Path, Detection, Sequence[str]], AbstractContextManager[Path]]
    # (that folder, chosen stream ids) -> a converter whose data interfaces are keyed by stream id
    # (the conversion passes per-stream options under those keys).
    build_converter: Callable[[Path, Sequence[str]], NWBConverter]
    # (detection, chosen stream ids) -> raise RecordingProblem for a combination the format cannot
    # write, saying why and what to choose instead. Decides from the detection alone, without opening
    # a file, so a choice is checked before any job is queued (`detection.validate_stream_choice`,
    # which has already refused unknown and repeated ids); `open_for_reading` calls it too.
    check_choice: ChoiceCheck = accept_any_choice
    # (detection, chosen stream ids) -> the FACT_KEYS for those streams, from the detection alone
    # (`detection.facts_for_streams`). For the default streams it gives what `file_metadata` says.
    facts: ChoiceFacts = stream_facts
    # How the conversion follows the write. "chunked": neuroconv writes each stream buffer by buffer
    # (recordings), so each interface takes `iterator_options` with a progress bar and progress rises
    # per buffer. "whole": the interfaces write their data in one piece and take no iterator options
    # (icephys series, sorted units), so progress goes from 0 to 100 around the write.
    progress: Literal["chunked", "whole"] = "chunked"
    # DANDI's modality part of the file name: "ecephys" for extracellular data and sorted units,
    # "icephys" for patch clamp, "behavior" for pose, "image" for video.
    modality: Literal["ecephys", "icephys", "behavior", "image"] = "ecephys"
    # A part of an experiment that joins a recording in one file (a sorting, pose, a video): when an
    # upload holds a recording and such parts, detection offers them together (`detection.combine`).
    companion: bool = False


@contextmanager
def reader_view(root: Path, names: Mapping[str, str], *, contents: Mapping[str, bytes] | None = None) -> Iterator[Path]:
    """A temporary folder of symlinks: `names` maps each name in the folder to a path relative to `root`.

    Readers such as neo scan whole folders recursively and some find partner files by name; a
    view shows them exactly the files of the chosen streams, under the names they expect, and
    keeps clutter and streams the user did not choose out of their sight. `contents` gives small
    files (by name in the view) to write instead of linking, for repaired copies of headers.
    """
    contents = contents or {}
    with tempfile.TemporaryDirectory(prefix="nwbportal-view-") as view:
        for name, relative in names.items():
            path = Path(view) / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name in contents:
                path.write_bytes(contents[name])
            else:
                path.symlink_to((root / relative).resolve())
        yield Path(view)


def list_upload_files(root: Path) -> list[str]:
    """Every regular file under `root`, as sorted POSIX paths relative to it.

    Hidden files and `__MACOSX` folders are left out: they are operating-system clutter (macOS
    writes `._name` copies of every file into zips) and never part of a recording.
    """
    if not root.is_dir():
        raise FileNotFoundError(f"upload folder {root} does not exist")
    found: list[str] = []
    for folder, subfolders, names in os.walk(root):
        subfolders[:] = [name for name in subfolders if not _is_clutter(name)]
        for name in names:
            path = Path(folder) / name
            if not _is_clutter(name) and path.is_file():
                found.append(path.relative_to(root).as_posix())
    return sorted(found)


def _is_clutter(name: str) -> bool:
    return name.startswith(".") or name == "__MACOSX"


def problems_message(problems: Sequence[str]) -> str:
    """One message for every problem found, numbered when there are several."""
    if len(problems) == 1:
        return problems[0]
    return "Several problems were found in the upload: " + " ".join(
        f"({number}) {problem}" for number, problem in enumerate(problems, start=1)
    )


def short_reason(error: BaseException) -> str:
    """A reader's exception in one short line, for a message that must not be a traceback."""
    text = str(error).strip().splitlines()[0] if str(error).strip() else ""
    text = text[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def in_words(labels: Sequence[str], conjunction: str = "and") -> str:
    """ "a", "a and b", "a, b and c": labels in a sentence."""
    return labels[0] if len(labels) == 1 else f"{', '.join(labels[:-1])} {conjunction} {labels[-1]}"


def some_names(names: Iterable[str], *, limit: int = 5) -> str:
    """The first few names, then how many more: file lists in messages stay readable."""
    names = list(names)
    shown = ", ".join(names[:limit])
    if len(names) > limit:
        shown += f" and {len(names) - limit} more"
    return shown

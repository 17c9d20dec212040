"""What a format module builds on: the detection result it returns, the handler it registers, and
the small tools every format needs (a folder view for readers, plain problem messages).

Nothing here knows a format, and nothing here imports the registry, so format modules import it
freely and `detection.py` sits on top of both without an import cycle.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from neuroconv import NWBConverter


@dataclass(frozen=True)
class Stream:
    """One convertible signal stream of an upload (for SpikeGLX: one .bin/.meta pair).

    `files[0]` is the stream's main data file: messages about a failed conversion name it.
    `size_bytes` is the sum of the sizes of `files`, which the conversion re-checks to notice a
    file changed since detection.
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

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "label": self.label,
            "channel_count": self.channel_count,
            "sampling_rate_hz": self.sampling_rate_hz,
            "duration_s": self.duration_s,
            "size_bytes": self.size_bytes,
            "files": list(self.files),
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
        )


@dataclass(frozen=True)
class Detection:
    """What `detect_format` found; stored as JSON between detection and conversion."""

    format: str
    format_label: str
    streams: tuple[Stream, ...]
    default_streams: tuple[str, ...]
    # "session_start_time" (naive ISO 8601, or None when the file has none), "device", "probe",
    # "channel_count", "sampling_rate_hz", "duration_s", "size_bytes"; a format may add its own.
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
    # How the conversion follows the write. "chunked": neuroconv writes each stream buffer by buffer
    # (recordings), so each interface takes `iterator_options` with a progress bar and progress rises
    # per buffer. "whole": the interfaces write their data in one piece and take no iterator options
    # (icephys series, sorted units), so progress goes from 0 to 100 around the write.
    progress: Literal["chunked", "whole"] = "chunked"
    # DANDI's modality part of the file name: "ecephys" for extracellular data and sorted units,
    # "icephys" for patch clamp.
    modality: Literal["ecephys", "icephys"] = "ecephys"


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


def some_names(names: Iterable[str], *, limit: int = 5) -> str:
    """The first few names, then how many more: file lists in messages stay readable."""
    names = list(names)
    shown = ", ".join(names[:limit])
    if len(names) > limit:
        shown += f" and {len(names) - limit} more"
    return shown

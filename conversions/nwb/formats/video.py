"""Behaviour video (.mp4, .avi, .mov, .mkv): linked from the NWB file and kept beside it.

DANDI asks for videos to stay video files next to the NWB file (an `ImageSeries` with
`external_file`), not decoded frames inside it: the file stays small and any player opens the video.
The conversion places each chosen video in a folder beside the output (`<file stem>_video/`) and the
`ImageSeries` names it by that relative path, so the pair can be moved together.

Frame times come from the container: each packet's presentation time, read without decoding a frame
(PyAV's demuxer, a few milliseconds per thousand frames), so a camera's dropped or uneven frames show
as they happened. When they are regular the series is written as a start time and a rate.
"""

from __future__ import annotations

import os
import shutil
import traceback
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from ..naming import video_folder_name
from .base import Detection, Stream, SupportedFormat, list_upload_files, part_detection, reader_view, short_reason

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "video"
_LABEL = "Behaviour video"
_NEEDS = "the video files as the camera software saved them (.mp4, .avi, .mov or .mkv)"
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".mkv", ".m4v", ".wmv")


@dataclass(frozen=True)
class VideoFacts:
    name: str
    frames: int
    rate_hz: float  # the container's average frame rate
    duration_s: float
    width: int
    height: int
    codec: str


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith(VIDEO_SUFFIXES) for name in files)


def video_files(files: Sequence[str]) -> list[str]:
    return [name for name in files if name.lower().endswith(VIDEO_SUFFIXES)]


def stream_id(name: str) -> str:
    return f"video:{PurePosixPath(name).name}"


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    names = video_files(files)
    facts = [read_video(root / name, name) for name in names]
    streams = tuple(
        Stream(
            id=stream_id(name),
            label=describe(fact),
            channel_count=1,
            sampling_rate_hz=fact.rate_hz,
            duration_s=fact.duration_s,
            size_bytes=(root / name).stat().st_size,
            files=(name,),
            kind="video",
        )
        for name, fact in zip(names, facts, strict=True)
    )
    if len({stream.id for stream in streams}) != len(streams):
        raise RecordingProblem(
            "Two videos in the upload have the same file name in different folders. Rename one, or upload each "
            "session's videos on their own."
        )
    return part_detection(
        _KEY,
        _LABEL,
        streams,
        # Frames per video: a recording's TTL line with as many pulses is the camera's (`nwb.parts`).
        file_metadata={"video_frames": {stream.id: fact.frames for stream, fact in zip(streams, facts, strict=True)}},
    )


def describe(fact: VideoFacts) -> str:
    return (
        f"video {PurePosixPath(fact.name).name} ({fact.width}×{fact.height}, {fact.frames} frames at "
        f"{fact.rate_hz:.4g} frames/s)"
    )


def read_video(path: Path, name: str) -> VideoFacts:
    """The video's frame count, rate and size from its container, without decoding a frame."""
    import av

    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise RecordingProblem(f"{name} holds no video stream (it may be sound only). Upload the video file.")
            stream = container.streams.video[0]
            rate = float(stream.average_rate or stream.guessed_rate or 0)
            frames = int(stream.frames or 0) or len(_packet_times(container, stream))
            if not frames or not rate:
                raise RecordingProblem(
                    f"{name} holds no frames, or does not say its frame rate, so its frames cannot be placed in "
                    "time. Upload the video as the camera software saved it, or convert it to .mp4."
                )
            if stream.duration and stream.time_base:
                duration = float(stream.duration * stream.time_base)
            else:
                duration = frames / rate if rate else 0.0
            return VideoFacts(
                name=name,
                frames=frames,
                rate_hz=rate,
                duration_s=duration,
                width=int(stream.width),
                height=int(stream.height),
                codec=str(stream.codec_context.name),
            )
    except (av.FFmpegError, OSError, ValueError) as error:
        raise RecordingProblem(
            f"{name} cannot be read as a video ({short_reason(error)}). It may be incomplete: upload it again, or "
            "convert it to .mp4 with the camera's software.",
            detail=traceback.format_exc(),
        ) from error


def frame_times(path: Path) -> tuple[np.ndarray, float]:
    """Each frame's time in seconds from the video's first frame, from the packets' presentation
    times, and the frame rate the container states (its exact fraction, e.g. 1000000/33333)."""
    import av

    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        times = _packet_times(container, stream)
        stated = float(stream.average_rate or 0)
    return (times - times[0] if len(times) else times), stated


def _packet_times(container: Any, stream: Any) -> np.ndarray:
    """Each frame's presentation time; a container that stores none (AVI keeps decoding times only)
    gives its decoding times, which for such streams are the same."""
    stamps = []
    for packet in container.demux(stream):
        stamp = packet.pts if packet.pts is not None else packet.dts
        if stamp is not None and packet.size:
            stamps.append(stamp)
    return np.sort(np.array(stamps, dtype=np.int64)).astype(np.float64) * float(stream.time_base)


def place_beside(source: Path, output_path: Path) -> str:
    """Put a video in the folder beside the NWB file (a hard link where the disk allows, else a copy)
    and return its path relative to the NWB file, which the `ImageSeries` names."""
    relative = f"{video_folder_name(output_path)}/{source.name}"
    target = output_path.parent / relative
    target.parent.mkdir(parents=True, exist_ok=True)
    target.unlink(missing_ok=True)
    try:
        os.link(source.resolve(), target)
    except OSError:
        shutil.copyfile(source.resolve(), target)
    return relative


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    return reader_view(root, {name: name for stream_id in stream_ids for name in detection.stream(stream_id).files})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    from neuroconv import ConverterPipe

    ExternalVideo = video_interface_class()

    names = {stream_id(name): name for name in video_files(list_upload_files(folder))}
    interfaces = {chosen: ExternalVideo(path=folder / names[chosen]) for chosen in stream_ids}
    converter: NWBConverter = ConverterPipe(data_interfaces=interfaces)
    return converter


@cache
def video_interface_class() -> type:
    """The neuroconv interface of a video kept beside the NWB file, built on first use: it imports
    neuroconv, which the web process never pays for."""
    from neuroconv.basedatainterface import BaseDataInterface
    from neuroconv.tools.nwb_helpers import get_module
    from neuroconv.utils import DeepDict

    class ExternalVideo(BaseDataInterface):  # type: ignore[misc]  # neuroconv ships without type hints
        """One video as an external `ImageSeries` under processing/behavior, with its frames' own times,
        shifted by the start the conversion aligned it to. `output_path` (the NWB file's final path) must
        be set before `add_to_nwbfile`: the video is placed beside it, and `placed` lists what was put there."""

        display_name = "Behaviour video"
        associated_suffixes = (".mp4", ".avi", ".mov", ".mkv")
        info = "A behaviour video linked from the NWB file."

        def __init__(self, *, path: Path, verbose: bool = False) -> None:
            super().__init__(verbose=verbose, path=str(path))
            self.path = path
            self.output_path: Path | None = None
            self.starting_time = 0.0
            self.aligned: np.ndarray | None = None
            self.placed: list[Path] = []
            self.name = f"Video {path.stem}"

        @classmethod
        def get_source_schema(cls) -> dict[str, Any]:
            return {"type": "object", "properties": {"path": {"type": "string"}}}

        def get_metadata(self) -> DeepDict:
            metadata: DeepDict = super().get_metadata()
            return metadata

        def set_aligned_starting_time(self, aligned_starting_time: float) -> None:
            self.starting_time = float(aligned_starting_time)

        def set_aligned_timestamps(self, aligned_timestamps: np.ndarray) -> None:
            """Each frame's time on the session's clock (e.g. from the camera's TTL pulses)."""
            self.aligned = np.asarray(aligned_timestamps, dtype=np.float64)

        def add_to_nwbfile(self, nwbfile: Any, metadata: dict[str, Any] | None = None, **options: Any) -> None:
            from pynwb.image import ImageSeries

            if self.output_path is None:
                raise RuntimeError("the NWB file's path must be set before a video is linked from it")
            times, stated_rate = frame_times(self.path)
            if self.aligned is not None:
                if len(self.aligned) != len(times):
                    raise ValueError(
                        f"{len(self.aligned)} frame times were given for the {len(times)} frames of {self.path.name}"
                    )
                times = self.aligned
            else:
                times = times + self.starting_time
            relative = place_beside(self.path, self.output_path)
            self.placed.append(self.output_path.parent / relative)
            timing: dict[str, Any] = {"timestamps": times}
            intervals = np.diff(times)
            if len(times) > 1 and np.all(np.abs(intervals - np.median(intervals)) <= _REGULAR * np.median(intervals)):
                # Regular frames: the container's own rate where it agrees (exact, not rounded by summing).
                measured = float(1.0 / np.median(intervals))
                rate = stated_rate if abs(stated_rate - measured) <= _REGULAR * measured else measured
                timing = {"starting_time": float(times[0]), "rate": rate, "num_samples": len(times)}
            series = ImageSeries(
                name=self.name,
                description=f"Behaviour video {self.path.name}, kept beside the NWB file.",
                unit="n.a.",
                format="external",
                external_file=[relative],
                starting_frame=[0],
                **timing,
            )
            get_module(nwbfile=nwbfile, name="behavior").add(series)

    return ExternalVideo


# Frame intervals within this share of the median count as regular: the series gets a rate.
_REGULAR = 1e-3


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=_NEEDS,
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    progress="whole",
    modality="image",
    companion=True,
)

"""Pose estimation: body parts tracked in a behaviour video by DeepLabCut (`.h5`/`.csv`) or SLEAP (`.slp`).

Written with neuroconv's interfaces into `ndx-pose` objects (a skeleton, one series per body part).
Pose is on the video's frame clock, so its frame rate is needed to place each frame in time:
- DeepLabCut keeps it only in the `_meta.pickle` it writes beside its output. The pickle is read
  here with an unpickler that builds plain values only (a pickle from an upload could otherwise run
  code), and never handed to neuroconv; failing that, the rate of the video the output was made from
  (its name starts the output's name) when the upload holds it;
- SLEAP's `.slp` names its video; the rate is that video's when the upload holds it.
When neither says, the conversation asks for the rate (`pose_rate_hz`).
"""

from __future__ import annotations

import io
import json
import pickle
import traceback
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from .base import (
    Detection,
    Stream,
    SupportedFormat,
    list_upload_files,
    part_detection,
    reader_view,
    short_reason,
)
from .video import read_video, video_files

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "pose"
_LABEL = "Pose estimation (DeepLabCut / SLEAP)"
_NEEDS = "DeepLabCut's output (.h5 or .csv, with its _meta.pickle and the project's config.yaml) or SLEAP's .slp"
_DLC_MARK = "DLC_"
_META_SUFFIX = "_meta.pickle"
_CONFIG = "config.yaml"
# In a reader view: each pose stream's frame rate, as the conversion knows it.
RATES_FILE = "pose_rates.json"


@dataclass(frozen=True)
class PoseFile:
    name: str
    tool: str  # "DeepLabCut" or "SLEAP"
    frames: int  # frames with pose
    span: int  # video frames from the first to the last with pose, counted from the video's first
    body_parts: int
    animals: int
    rate_hz: float | None
    rate_from: str  # where the rate was read, "" when it is not known
    files: tuple[str, ...]  # the pose file first, then what its reader needs (config, video)


def stream_id(name: str) -> str:
    return f"pose:{PurePosixPath(name).name}"


def _is_dlc(name: str) -> bool:
    path = PurePosixPath(name)
    return path.suffix.lower() in (".h5", ".csv") and _DLC_MARK in path.name and not path.name.startswith("Collected")


def _pose_files(files: Sequence[str]) -> list[str]:
    return [name for name in files if _is_dlc(name) or name.lower().endswith(".slp")]


def _claims(files: Sequence[str]) -> bool:
    return bool(_pose_files(files))


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    found = [
        _read_dlc(root, name, files) if _is_dlc(name) else _read_slp(root, name, files) for name in _pose_files(files)
    ]
    streams = tuple(
        Stream(
            id=stream_id(pose.name),
            label=describe(pose),
            channel_count=pose.body_parts,
            sampling_rate_hz=pose.rate_hz or 0.0,
            duration_s=pose.span / pose.rate_hz if pose.rate_hz else 0.0,
            size_bytes=sum((root / name).stat().st_size for name in pose.files),
            files=pose.files,
            kind="pose",
        )
        for pose in found
    )
    return part_detection(
        _KEY,
        _LABEL,
        streams,
        file_metadata={
            "pose_rates": {stream_id(pose.name): pose.rate_hz for pose in found},
            "pose_frames": {stream_id(pose.name): pose.span for pose in found},
            # Files read at detection (DeepLabCut's metadata pickle, for the frame rate) but never
            # handed to a reader: part of the pose, not files left out.
            "also_read": [meta for pose in found if (meta := _meta_pickle(pose.name, files))],
        },
        notes=[
            f"{PurePosixPath(pose.name).name} does not say its frame rate, and the video it was made from is not in "
            "the upload: the frame rate will be asked, to place each frame in time."
            for pose in found
            if not pose.rate_hz
        ],
    )


def describe(pose: PoseFile) -> str:
    rate = f" at {pose.rate_hz:.4g} frames/s" if pose.rate_hz else ""
    animals = f", {pose.animals} animals" if pose.animals > 1 else ""
    return f"pose ({pose.tool}, {pose.body_parts} body parts{animals}, {pose.frames} frames{rate})"


def _read_dlc(root: Path, name: str, files: Sequence[str]) -> PoseFile:
    import pandas as pd

    path = root / name
    try:
        if name.lower().endswith(".h5"):
            table = pd.read_hdf(path)
        else:
            table = pd.read_csv(path, header=[0, 1, 2], index_col=0, nrows=None)
            if table.columns.nlevels == 3 and table.columns.get_level_values(0)[0] == "individuals":
                table = pd.read_csv(path, header=[0, 1, 2, 3], index_col=0)
    except (OSError, ValueError, KeyError, ImportError, pd.errors.ParserError) as error:
        raise RecordingProblem(
            f"{name} cannot be read as DeepLabCut's output ({short_reason(error)}). Upload the .h5 or .csv file "
            "DeepLabCut wrote when it analysed the video, unchanged.",
            detail=traceback.format_exc(),
        ) from error
    levels = list(table.columns.names)
    if "bodyparts" not in levels:
        raise RecordingProblem(
            f"{name} is not DeepLabCut's output: its columns have no body parts (levels: {levels}). Upload the file "
            "DeepLabCut wrote when it analysed the video."
        )
    body_parts = len(dict.fromkeys(table.columns.get_level_values("bodyparts")))
    animals = len(dict.fromkeys(table.columns.get_level_values("individuals"))) if "individuals" in levels else 1
    rate, rate_from = _dlc_rate(root, name, files)
    config = _project_config(name, files)
    return PoseFile(
        name=name,
        tool="DeepLabCut",
        frames=len(table),
        span=len(table),
        body_parts=body_parts,
        animals=animals,
        rate_hz=rate,
        rate_from=rate_from,
        files=(name, *([config] if config else [])),
    )


def _meta_pickle(name: str, files: Sequence[str]) -> str:
    """DeepLabCut's metadata pickle of an output, when the upload holds it ("" otherwise)."""
    if not _is_dlc(name):
        return ""
    meta = f"{PurePosixPath(name).with_name(PurePosixPath(name).stem)!s}{_META_SUFFIX}"
    return meta if meta in files else ""


def _dlc_rate(root: Path, name: str, files: Sequence[str]) -> tuple[float | None, str]:
    meta = _meta_pickle(name, files)
    if meta:
        fps = read_pickle_safely(root / meta).get("data", {}).get("fps")
        if isinstance(fps, (int, float)) and fps > 0:
            return float(fps), PurePosixPath(meta).name
    video_stem = PurePosixPath(name).name.split(_DLC_MARK)[0]
    for video in video_files(files):
        if PurePosixPath(video).stem == video_stem:
            return read_video(root / video, video).rate_hz or None, PurePosixPath(video).name
    return None, ""


def _project_config(name: str, files: Sequence[str]) -> str:
    """The project's config.yaml (it names the skeleton): beside the output or in a folder above it."""
    folder = PurePosixPath(name).parent
    for candidate in (folder, *folder.parents):
        path = str(candidate / _CONFIG) if str(candidate) != "." else _CONFIG
        if path in files:
            return path
    return ""


class _Float(float):
    """A float that ignores the formatting state ruamel.yaml's ScalarFloat pickles with it."""

    def __setstate__(self, state: Any) -> None:
        return None


# What a DeepLabCut metadata pickle may build, as plain values: its EasyDict (a dict) and the
# ruamel.yaml numbers its config values were read as. Anything else a pickle asks to build is refused.
_PLAIN_CLASSES: dict[tuple[str, str], type] = {
    ("easydict", "EasyDict"): dict,
    ("collections", "OrderedDict"): dict,
    ("ruamel.yaml.scalarfloat", "ScalarFloat"): _Float,
}


class _PlainUnpickler(pickle.Unpickler):
    """Builds only dicts, lists, numbers and strings (`_PLAIN_CLASSES`): an uploaded pickle can make it
    run nothing."""

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _PLAIN_CLASSES:
            return _PLAIN_CLASSES[(module, name)]
        raise pickle.UnpicklingError(f"{module}.{name} is not read from an uploaded pickle")


def read_pickle_safely(path: Path) -> dict[str, Any]:
    """The plain values of a metadata pickle; {} when it holds anything else or cannot be read."""
    try:
        value = _PlainUnpickler(io.BytesIO(path.read_bytes())).load()
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError, AttributeError, IndexError, OSError):
        return {}
    return value if isinstance(value, dict) else {}


def _read_slp(root: Path, name: str, files: Sequence[str]) -> PoseFile:
    import sleap_io

    try:
        labels = sleap_io.load_slp(str(root / name), open_videos=False)
    except Exception as error:  # sleap-io raises what h5py and json raise on a damaged file
        raise RecordingProblem(
            f"{name} cannot be read as SLEAP's predictions ({short_reason(error)}). Upload the .slp file SLEAP wrote, "
            "unchanged.",
            detail=traceback.format_exc(),
        ) from error
    videos = {PurePosixPath(video).name: video for video in video_files(files)}
    named = [PurePosixPath(str(video.filename).replace("\\", "/")).name for video in labels.videos]
    beside = [videos[video] for video in named if video in videos]
    rate, rate_from = (None, "")
    if beside:
        rate, rate_from = read_video(root / beside[0], beside[0]).rate_hz or None, PurePosixPath(beside[0]).name
    return PoseFile(
        name=name,
        tool="SLEAP",
        frames=len(labels.labeled_frames),
        span=max((frame.frame_idx for frame in labels.labeled_frames), default=-1) + 1,
        body_parts=max((len(skeleton.nodes) for skeleton in labels.skeletons), default=0),
        animals=max(len(labels.tracks), 1),
        rate_hz=rate,
        rate_from=rate_from,
        files=(name, *beside[:1]),
    )


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    rates = detection.file_metadata.get("pose_rates", {})
    missing = [detection.stream(chosen).files[0] for chosen in stream_ids if not rates.get(chosen)]
    if missing:
        raise RecordingProblem(
            f"The frame rate of {', '.join(missing)} is not known, so its frames cannot be placed in time. Give the "
            "frame rate of the video the pose was tracked in (e.g. 30 frames per second)."
        )
    names = {name: name for chosen in stream_ids for name in detection.stream(chosen).files}
    frames = detection.file_metadata.get("pose_frames", {})
    timing = {chosen: {"rate_hz": rates[chosen], "frames": frames.get(chosen)} for chosen in stream_ids}
    return reader_view(root, {**names, RATES_FILE: RATES_FILE}, contents={RATES_FILE: json.dumps(timing).encode()})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    from neuroconv import ConverterPipe
    from neuroconv.datainterfaces import DeepLabCutInterface

    timing: Mapping[str, Mapping[str, Any]] = json.loads((folder / RATES_FILE).read_text())
    files = list_upload_files(folder)
    interfaces: dict[str, Any] = {}
    for name in _pose_files(files):
        chosen = stream_id(name)
        if chosen not in stream_ids:
            continue
        if _is_dlc(name):
            config = _project_config(name, files)
            rate = float(timing[chosen]["rate_hz"])
            interface = _timed(DeepLabCutInterface)(
                file_path=folder / name,
                config_file_path=folder / config if config else None,
                sampling_frequency=rate,
                metadata_key=f"PoseEstimation{len(interfaces)}",
            )
            # The frames' times, so the conversion can shift them to where the camera started.
            interface.set_aligned_timestamps(np.arange(int(timing[chosen]["frames"])) / rate)
            interfaces[chosen] = interface
        else:
            rate = float(timing[chosen]["rate_hz"])
            interfaces[chosen] = sleap_interface_class()(
                path=folder / name, rate_hz=rate, frames=int(timing[chosen]["frames"])
            )
    converter: NWBConverter = ConverterPipe(data_interfaces=interfaces)
    return converter


@cache
def sleap_interface_class() -> type:
    """The interface of a SLEAP file, built on first use (it imports neuroconv)."""
    from neuroconv.basedatainterface import BaseDataInterface

    class SleapPose(BaseDataInterface):  # type: ignore[misc]  # neuroconv ships without type hints
        """SLEAP's predictions, written by sleap-io's own NWB writer: what neuroconv's SLEAP interface
        runs for a file of several animals, with the `.slp` read once (that interface reads it three
        times, 0.06 s each for a small file) and two of the writer's faults put right:
        - it writes a regular series' rate cut to a whole number (`float(int(rate))`): 25 frames/s
          whose intervals sum to 24.99999 become 24, 30.0003 becomes 30, so every frame after the
          first would sit at the wrong time; the video's own rate is written back into its series;
        - it adds a skeleton to an existing `Skeletons` (DeepLabCut's, another SLEAP file's) with
          `add_skeleton`, which ndx-pose 0.4 names `add_skeletons`."""

        display_name = "SLEAP"
        associated_suffixes = (".slp",)
        info = "Pose predicted by SLEAP, written with sleap-io."

        def __init__(self, *, path: Path, rate_hz: float, frames: int, verbose: bool = False) -> None:
            import ndx_pose  # noqa: F401  # registers the pose types with pynwb
            from sleap_io import load_slp

            super().__init__(verbose=verbose, path=str(path))
            self.labels = load_slp(str(path))
            self.rate_hz = rate_hz
            self.timestamps = np.arange(frames) / rate_hz

        @classmethod
        def get_source_schema(cls) -> dict[str, Any]:
            return {"type": "object", "properties": {"path": {"type": "string"}}}

        def get_timestamps(self) -> np.ndarray:
            return self.timestamps

        def set_aligned_timestamps(self, aligned_timestamps: np.ndarray) -> None:
            self.timestamps = np.asarray(aligned_timestamps, dtype=np.float64)

        def set_aligned_starting_time(self, aligned_starting_time: float) -> None:
            self.timestamps = self.timestamps - self.timestamps[0] + aligned_starting_time

        def add_to_nwbfile(self, nwbfile: Any, metadata: dict[str, Any] | None = None, **options: Any) -> None:
            from ndx_pose import PoseEstimationSeries, Skeletons
            from sleap_io.io.nwb_predictions import append_nwb_data

            if not hasattr(Skeletons, "add_skeleton"):
                Skeletons.add_skeleton = Skeletons.add_skeletons

            def pose_series() -> dict[int, Any]:
                found = (child for child in nwbfile.all_children() if isinstance(child, PoseEstimationSeries))
                return {id(series): series for series in found}

            before = pose_series()
            append_nwb_data(
                labels=self.labels,
                nwbfile=nwbfile,
                pose_estimation_metadata={"video_timestamps": self.timestamps, "video_sample_rate": self.rate_hz},
            )
            for key, series in pose_series().items():
                if key not in before and series.rate is not None:
                    series.fields["rate"] = float(self.rate_hz)

    return SleapPose


def _timed(interface_class: type) -> type:
    """neuroconv's DeepLabCut interface keeps the frame times it is given but does not return them,
    so it cannot be shifted to where the camera started: this one returns them."""

    class TimedDeepLabCut(interface_class):  # type: ignore[misc]  # neuroconv has no type hints
        def get_timestamps(self) -> np.ndarray:
            return np.asarray(self._timestamps)

    return TimedDeepLabCut


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=_NEEDS,
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    progress="whole",
    modality="behavior",
    companion=True,
)

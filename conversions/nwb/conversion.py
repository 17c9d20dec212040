"""Convert a detected recording into one NWB file with neuroconv.

The file is written under a hidden temporary name next to the destination and moved into place
only once complete, so a crash or a cancel never leaves a half-written `.nwb` where the app looks
for results. Recordings are written by `fastwrite` (compressed in parallel, see there) or, on
request, by neuroconv's chunked writer; either reports progress chunk by chunk, which is also where
a cancel request takes effect; formats written in one piece (`SupportedFormat.progress`
"whole": patch clamp, sorted units) go from 0 to 100 around the write, and a cancel takes effect
just before and just after it.

What a reader leaves undescribed (devices, device models, electrode groups, electrodes-table
columns) is described from what the file says, never from a guess, and each such description is
returned as an `AppliedFix` so the user sees it.
"""

from __future__ import annotations

import dataclasses
import errno
import inspect
import os
import re
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np
from tqdm import tqdm

from .autofix import AppliedFix
from .detection import Detection, Stream, SupportedFormat, format_handler
from .errors import ConversionCancelled, ConversionFailed
from .fastwrite import WRITERS, default_threads, write_nwbfile
from .fields import FIELDS, Placement
from .naming import session_label, temporary_path_for
from .normalizers import normalize_frame_rate, normalize_seconds_after
from .parts import PART_KINDS, PART_WORDS, camera_pulses, needs_behaviour_start, restricted, split_choice
from .quantities import describe_duration

if TYPE_CHECKING:
    from neuroconv import NWBConverter
    from neuroconv.tools.nwb_helpers import HDF5BackendConfiguration
    from pynwb import NWBFile


@dataclass(frozen=True)
class ConversionResult:
    output_path: Path
    size_bytes: int
    duration_s: float  # of the recording (a preview holds only its first samples)
    streams: tuple[str, ...]
    # Descriptions the conversion wrote where the reader gave none (provenance "auto-fix").
    applied_fixes: tuple[AppliedFix, ...] = ()
    # A stub conversion: a preview of the file's structure and metadata, never to be validated as final.
    preview: bool = False
    # Files placed beside the NWB file, which it links to (videos, under "<stem>_video/").
    beside: tuple[Path, ...] = ()


# Memory per write buffer: ~0.1 GB keeps a worker near 0.5 GB peak (FIELD-NOTES), while 5 % of a
# stream gives at least ~20 progress updates; the floor matches the ~10 MB HDF5 chunk.
_MAX_BUFFER_GB = 0.1
_MIN_BUFFER_GB = 0.01
_BUFFER_SHARE = 0.05
# Progress stays below 100 until the file is closed and moved into place.
_LAST_PERCENT_BEFORE_DONE = 99.0

# How to state a value each field accepts, for messages about values NWB refuses.
_ACCEPTED_FORMS = {
    "sex": "M (male), F (female), U (unknown) or O (other)",
    "species": "the Latin name, e.g. Mus musculus",
    "age": "an ISO 8601 duration, e.g. P90D for 90 days or P8W for 8 weeks",
    "date_of_birth": "a date, e.g. 2024-01-10",
    "session_start_time": "a date and time, e.g. 2024-03-15T14:30:00",
}


def convert_recording(
    *,
    source_root: Path,
    detection: Detection,
    stream_ids: Sequence[str],
    metadata: Mapping[str, Any],
    timezone: str,
    output_path: Path,
    on_progress: Callable[[float], None] = lambda p: None,
    should_stop: Callable[[], bool] = lambda: False,
    stub: bool = False,
    writer: str | None = None,
    threads: int | None = None,
) -> ConversionResult:
    """Write the chosen streams of `detection` (all default streams when empty) into `output_path`.

    `metadata` is flat and keyed by the names in `fields.py`; absent keys mean "not given" (run
    `autofix.fix_metadata` on them first). A naive session start time is taken to be in `timezone`.
    Raises `ConversionCancelled` when `should_stop()` turns true, `ConversionFailed` when the data or
    the metadata cannot be written; in every such case neither the temporary nor the output file is
    left behind.

    `stub`: a seconds-long preview with every metadata field in place, whose session description
    says it is a preview. Recordings (every format, including those chosen by name) hold their first
    `PREVIEW_SECONDS` (first segment), all channels; sorted units (Plexon, Blackrock .nev) use
    neuroconv's `stub_test`: the spikes up to shortly after each unit's first. Axon patch clamp has
    no stub in neuroconv and is written whole: ABF files hold seconds of sweeps, a few MB. A preview
    is not the file to share: never validate it as final.

    `writer`: "fast" (default) compresses recordings in `threads` threads (default: one per core)
    with `fastwrite`; "neuroconv" writes with neuroconv alone, as a fallback and for comparison. When
    not given, the environment variables `CONVERSION_WRITER` and `CONVERSION_THREADS` choose.
    """
    writer = writer or os.environ.get("CONVERSION_WRITER", "fast")
    if writer not in WRITERS:
        raise ValueError(f"writer must be one of {WRITERS}, not {writer!r}")
    threads = threads or _threads_from_environment()
    chosen = tuple(stream_ids) or detection.default_streams
    streams = [detection.stream(stream_id) for stream_id in chosen]  # KeyError: a caller bug, not user data
    groups = split_choice(detection, chosen)
    (main_key, main_ids), *part_groups = groups.items()
    supported = format_handler(main_key)
    if supported is None or any(format_handler(key) is None for key, _ in part_groups):
        raise ValueError(f"no converter for format {main_key!r} or one of {[key for key, _ in part_groups]}")
    zone = _zone(timezone)
    _refuse_changed_files(source_root, streams)
    behaviour_start = _behaviour_start(detection, chosen, metadata)
    detection = _with_pose_rate(detection, chosen, metadata)
    temporary = temporary_path_for(output_path)
    # A video is linked, not written: it weighs nothing in the progress.
    written = {stream.id: 0 if stream.kind == "video" else stream.size_bytes for stream in streams}
    total_bytes = sum(written.values()) or 1
    tracker = _ProgressTracker(
        weights={stream_id: size / total_bytes for stream_id, size in written.items()},
        on_progress=on_progress,
        should_stop=should_stop,
    )
    file_names = _data_file_names(streams)
    placed: list[Path] = []

    on_progress(0.0)
    tracker.check_stop()
    output_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with ExitStack() as views:
            view = views.enter_context(
                supported.open_for_reading(source_root, restricted(detection, main_key), main_ids)
            )
            with _failure_as("reading", file_names):
                converter = supported.build_converter(view, main_ids)
                parts = [
                    _open_part(views, source_root, detection, key, ids, supported_part)
                    for key, ids in part_groups
                    if (supported_part := format_handler(key)) is not None
                ]
                base_metadata, from_parts = _with_parts_metadata(converter.get_metadata(), parts)
                recordings = _electrode_recordings(converter)
                nwb_metadata, descriptions = _neuroconv_metadata(
                    base_metadata,
                    metadata,
                    zone=zone,
                    default_description=_describe(detection, chosen),
                    recordings=recordings,
                    system=detection.format_label,
                    preview=stub,
                )
                _validate_metadata(converter, _without(nwb_metadata, from_parts), metadata)
                location = str(_given(metadata, "location") or "").strip()
                if location:
                    # Before a preview shortens the recordings: their shortened copies keep the property.
                    _locate_channels(recordings, base_metadata, location)
            conversion_options = _conversion_options(
                supported, [s for s in streams if s.id in main_ids], tracker, converter, stub=stub
            )
            _place_beside_output(converter, output_path, placed)
            tracker.check_stop()  # the last chance for formats that report nothing until the write ends
            with _failure_as("converting", file_names):
                nwbfile = converter.create_nwbfile(metadata=nwb_metadata, conversion_options=conversion_options)
                # Chunking and compression are set for what the main converter wrote (the recording)
                # before the parts join: neuroconv's configuration rebuilds the whole file several times
                # to find its datasets, which for a session's hundreds of small pose and unit datasets
                # costs more than writing them. The parts' datasets are written as they are
                # (contiguous, uncompressed; bench/README.md, combined.py).
                configured = writer == "fast" and bool(parts)
                if configured:
                    configure_backend(nwbfile=nwbfile, backend_configuration=build_backend_configuration(nwbfile))
                pulses = _camera_pulses(source_root, detection, chosen)
                for part in parts:
                    tracker.check_stop()
                    _add_part(
                        part, nwbfile, nwb_metadata, converter, behaviour_start, pulses, output_path, placed, stub=stub
                    )
                    for stream_id in part.data_interface_objects:
                        tracker.stream_done(stream_id, 1.0)
                applied = tuple(description.fix for description in descriptions if description.is_in(nwbfile))
                _write(nwbfile, temporary, writer=writer, threads=threads, tracker=tracker, configured=configured)
        tracker.check_stop()
        os.replace(temporary, output_path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        for path in placed:
            path.unlink(missing_ok=True)
        raise
    on_progress(100.0)
    return ConversionResult(
        output_path=output_path,
        size_bytes=output_path.stat().st_size,
        duration_s=max(stream.duration_s for stream in streams),
        streams=chosen,
        applied_fixes=applied,
        preview=stub,
        beside=tuple(placed),
    )


def _behaviour_start(detection: Detection, chosen: Sequence[str], metadata: Mapping[str, Any]) -> float | None:
    """When the camera started, in seconds after the recording, where the choice needs it: refused
    plainly when the user has not said (a video is never assumed to start with the recording)."""
    value = _given(metadata, "behaviour_start_s")
    if not needs_behaviour_start(detection, chosen):
        return None
    if value is None:
        raise ConversionFailed(
            "When did the video start? Say how many seconds after the recording started the camera started "
            "(0 if they started together), so the video and the pose can be placed on the recording's clock.",
            detail="behaviour_start_s is needed to combine video or pose with a recording",
        )
    return _number(value, normalize_seconds_after)


def _number(value: Any, normalize: Callable[[str], float]) -> float:
    """A number as stored (a float) or as typed ("2.5 s"), refused plainly when it is neither."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    try:
        return normalize(str(value))
    except ValueError as error:
        raise ConversionFailed(str(error), detail=repr(value)) from error


def _with_pose_rate(detection: Detection, chosen: Sequence[str], metadata: Mapping[str, Any]) -> Detection:
    """The detection with the frame rate the user gave (`pose_rate_hz`) for the chosen pose files
    that do not say theirs; refused plainly when one is still unknown."""
    rates = dict(detection.file_metadata.get("pose_rates", {}))
    unknown = [stream_id for stream_id in chosen if stream_id in rates and not rates[stream_id]]
    if not unknown:
        return detection
    given = _given(metadata, "pose_rate_hz")
    if given is None:
        names = ", ".join(detection.stream(stream_id).files[0] for stream_id in unknown)
        raise ConversionFailed(
            f"The frame rate of {names} is not known, so its frames cannot be placed in time. Give the frame rate of "
            "the video the pose was tracked in (e.g. 30 frames per second).",
            detail=f"pose_rate_hz is needed for {unknown}",
        )
    rates.update({stream_id: _number(given, normalize_frame_rate) for stream_id in unknown})
    return dataclasses.replace(detection, file_metadata={**detection.file_metadata, "pose_rates": rates})


def _open_part(
    views: ExitStack, source_root: Path, detection: Detection, key: str, ids: Sequence[str], supported: SupportedFormat
) -> NWBConverter:
    view = views.enter_context(supported.open_for_reading(source_root, restricted(detection, key), ids))
    return supported.build_converter(view, ids)


def _with_parts_metadata(metadata: Any, parts: Sequence[NWBConverter]) -> tuple[Any, set[tuple[str, ...]]]:
    """The recording's metadata with what each part adds (units' columns, cameras, skeletons), and
    where the parts added entries the recording's converter does not know (its schema refuses them)."""
    from neuroconv.utils import dict_deep_update

    added: set[tuple[str, ...]] = set()
    for part in parts:
        part_metadata = part.get_metadata()
        part_metadata.pop("NWBFile", None)
        for key, value in part_metadata.items():
            if key not in metadata:
                added.add((key,))
            elif isinstance(value, Mapping) and isinstance(metadata[key], Mapping):
                added.update((key, sub) for sub in value if sub not in metadata[key])
        metadata = dict_deep_update(metadata, part_metadata)
    return metadata, added


def _without(metadata: Mapping[str, Any], paths: set[tuple[str, ...]]) -> dict[str, Any]:
    """A copy of the metadata without the entries at `paths` (one or two keys deep)."""
    copy = {key: dict(value) if isinstance(value, Mapping) else value for key, value in metadata.items()}
    for path in paths:
        if len(path) == 1:
            copy.pop(path[0], None)
        elif isinstance(copy.get(path[0]), dict):
            copy[path[0]].pop(path[1], None)
    return copy


def _add_part(
    part: NWBConverter,
    nwbfile: NWBFile,
    metadata: dict[str, Any],
    converter: NWBConverter,
    behaviour_start: float | None,
    pulses: Mapping[str, np.ndarray],
    output_path: Path,
    placed: list[Path],
    *,
    stub: bool,
) -> None:
    """Add one part's interfaces to the file, each placed on the session's clock first: a sorting
    where the recording starts (its first sample, which a reader may place after 0), a video or pose
    where the user said the camera started after it (at 0 without a recording)."""
    recording_start = _recording_start(converter)
    for stream_id, interface in part.data_interface_objects.items():
        if hasattr(interface, "sorting_extractor"):
            interface.set_aligned_starting_time(recording_start)
        elif stream_id in pulses:
            frame_times = recording_start + pulses[stream_id]
            interface.set_aligned_timestamps(frame_times)
        else:
            camera_start = 0.0 if behaviour_start is None else recording_start + behaviour_start
            interface.set_aligned_starting_time(camera_start)
        _link_to_output(interface, output_path, placed)
        options = {"stub_test": True} if stub and _takes_stub_test(interface) else {}
        interface.add_to_nwbfile(nwbfile, metadata=metadata, **options)


def _camera_pulses(source_root: Path, detection: Detection, chosen: Sequence[str]) -> dict[str, np.ndarray]:
    """Each chosen video's and pose's frame times from the recording's TTL pulses (seconds after the
    recording's first sample), where one TTL line has a pulse per frame (`parts.camera_pulses`)."""
    from .formats.openephys_binary import rising_times

    streams = [detection.stream(stream_id) for stream_id in chosen]
    recordings = [stream for stream in streams if stream.kind not in PART_KINDS]
    found: dict[str, np.ndarray] = {}
    for stream in streams:
        pulses = camera_pulses(detection, stream, recordings) if stream.kind in ("pose", "video") else None
        if pulses is None:
            continue
        times = rising_times(source_root, pulses.events, pulses.line) - pulses.zero_s
        if len(times) != pulses.count:
            raise ConversionFailed(
                f"The TTL pulses on {pulses.label} changed since the upload was checked. Upload the recording again.",
                detail=f"{len(times)} pulses, {pulses.count} expected",
            )
        found[stream.id] = times
    return found


def _place_beside_output(converter: NWBConverter, output_path: Path, placed: list[Path]) -> None:
    """A video converted without a recording (its converter is the main one) is placed beside the file
    as a part is (`_link_to_output`)."""
    for interface in converter.data_interface_objects.values():
        _link_to_output(interface, output_path, placed)


def _link_to_output(interface: Any, output_path: Path, placed: list[Path]) -> None:
    """An interface that places files beside the NWB file (a video) gets the file's path, and lists
    what it places in `placed`, so a failed conversion removes them too."""
    if hasattr(interface, "output_path"):
        interface.output_path = output_path
        interface.placed = placed


def _recording_start(converter: NWBConverter) -> float:
    """Where the recording's first sample sits on the file's clock (0 unless the reader gives a start)."""
    for recording in _electrode_recordings(converter):
        start = getattr(recording, "get_start_time", None)
        if start is not None:
            return float(start(segment_index=0))
    return 0.0


def configure_backend(*, nwbfile: NWBFile, backend_configuration: HDF5BackendConfiguration) -> None:
    """Set the configured chunking and compression on the file's datasets (neuroconv's own step)."""
    from neuroconv.tools.nwb_helpers import configure_backend as configure

    configure(nwbfile=nwbfile, backend_configuration=backend_configuration)


def build_backend_configuration(nwbfile: NWBFile) -> HDF5BackendConfiguration:
    """Chunking and compression of every dataset: neuroconv's defaults (HDF5, gzip) for now.

    The one place to change when tuning write speed or file size.
    """
    from neuroconv.tools.nwb_helpers import get_default_backend_configuration

    configuration: HDF5BackendConfiguration = get_default_backend_configuration(nwbfile=nwbfile, backend="hdf5")
    return configuration


def _threads_from_environment() -> int:
    value = os.environ.get("CONVERSION_THREADS", "").strip()
    if not value:
        return default_threads()
    if not value.isdigit() or int(value) < 1:
        raise ValueError(f"CONVERSION_THREADS must be a whole number of threads, 1 or more, not {value!r}")
    return int(value)


def _write(
    nwbfile: NWBFile,
    path: Path,
    *,
    writer: str,
    threads: int,
    tracker: _ProgressTracker,
    configured: bool = False,
) -> None:
    """Write with the fast writer, or with neuroconv alone. The fast writer reports each recording's
    progress itself (neuroconv's chunk iterator, which would have, is never run); a cancel raised
    from the tracker stops it between chunks. `configured`: the datasets' chunking and compression
    were set already (the fast writer only); otherwise neuroconv's defaults are set on every dataset."""
    if writer == "fast":

        def on_progress(iterator: Any, fraction: float) -> None:
            stream_id = getattr(getattr(iterator, "progress_bar", None), "stream_id", None)
            if stream_id is None:
                tracker.check_stop()
            else:
                tracker.stream_done(stream_id, fraction)

        configuration = None if configured else build_backend_configuration(nwbfile)
        write_nwbfile(nwbfile, path, configuration, threads=threads, on_progress=on_progress)
        return
    from neuroconv.tools.nwb_helpers import configure_and_write_nwbfile

    configure_and_write_nwbfile(
        nwbfile=nwbfile, nwbfile_path=path, backend_configuration=build_backend_configuration(nwbfile)
    )


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ConversionFailed(
            f"The timezone {timezone!r} is not known. Give a timezone name such as Europe/Paris or America/New_York.",
            detail=repr(error),
        ) from error


def _refuse_changed_files(source_root: Path, streams: Sequence[Stream]) -> None:
    """The files must be the ones detection checked: readers size the data from the file on disk,
    so a file cut or replaced since would convert silently to something else."""
    for stream in streams:
        missing = [name for name in stream.files if not (source_root / name).is_file()]
        if missing or sum((source_root / name).stat().st_size for name in stream.files) != stream.size_bytes:
            # Paths in the upload: names alone may not say which stream (e.g. Open Ephys' continuous.dat).
            names = ", ".join(missing or stream.files)
            raise ConversionFailed(
                f"{names} changed or disappeared since the upload was checked. Upload the recording again.",
                detail=f"stream {stream.id}: expected {stream.size_bytes} bytes in {list(stream.files)}",
            )


def _data_file_names(streams: Sequence[Stream]) -> str:
    """Each stream's main data file (`files[0]`), for messages: by name, or by path where the names
    alone would not tell them apart (every Open Ephys stream's data file is continuous.dat)."""
    paths = [stream.files[0] for stream in streams if stream.files]
    names = [Path(path).name for path in paths]
    return ", ".join(names if len(set(names)) == len(names) else paths)


def _conversion_options(
    supported: SupportedFormat,
    streams: Sequence[Stream],
    tracker: _ProgressTracker,
    converter: NWBConverter,
    *,
    stub: bool,
) -> dict[str, dict[str, Any]]:
    """Per-stream options for the converter: a progress bar in neuroconv's chunk iterator for chunked
    formats (formats written in one piece take no iterator options); for a stub, `stub_test` for
    every interface that takes it."""
    options: dict[str, dict[str, Any]] = {}
    if supported.progress == "chunked":
        for stream in streams:
            options[stream.id] = {
                "iterator_options": {
                    "display_progress": True,
                    "buffer_gb": _buffer_gb(stream.size_bytes),
                    "progress_bar_class": _progress_bar_class(tracker, stream.id),
                }
            }
    if stub:
        shortened = _shorten_recordings(converter)
        for key, interface in converter.data_interface_objects.items():
            if key not in shortened and _takes_stub_test(interface):
                options.setdefault(key, {})["stub_test"] = True
    return options


# How much of each recording a preview holds: seconds, so the user sees real signal (neuroconv's own
# `stub_test` keeps 100 samples, a few milliseconds), while writing stays quick (2 s of a 384-channel
# Neuropixels AP band is about 46 MB before compression).
PREVIEW_SECONDS = 2.0


def _shorten_recordings(converter: NWBConverter) -> set[str]:
    """Cut each recording interface's extractor to its first `PREVIEW_SECONDS` (first segment), lazily:
    nothing past them is read. Returns the keys of the interfaces cut; the others (sorted units) use
    neuroconv's `stub_test`."""
    shortened: set[str] = set()
    for key, interface in converter.data_interface_objects.items():
        recording = getattr(interface, "recording_extractor", None)
        if recording is None or not hasattr(recording, "frame_slice"):
            continue
        if recording.get_num_segments() > 1:
            recording = recording.select_segments([0])
        frames = min(
            recording.get_num_samples(segment_index=0), int(PREVIEW_SECONDS * recording.get_sampling_frequency())
        )
        interface.recording_extractor = recording.frame_slice(start_frame=0, end_frame=max(frames, 1))
        shortened.add(key)
    return shortened


def _takes_stub_test(interface: Any) -> bool:
    """Whether the interface's `add_to_nwbfile` takes `stub_test`, following `**options` that the
    portal's subclasses pass on to neuroconv's own method."""
    for cls in type(interface).__mro__:
        method = cls.__dict__.get("add_to_nwbfile")
        if method is None:
            continue
        parameters = inspect.signature(method).parameters
        if "stub_test" in parameters:
            return True
        if not any(parameter.kind is parameter.VAR_KEYWORD for parameter in parameters.values()):
            return False
    return False


def _buffer_gb(stream_bytes: int) -> float:
    return min(_MAX_BUFFER_GB, max(_MIN_BUFFER_GB, _BUFFER_SHARE * stream_bytes / 1e9))


def _describe(detection: Detection, stream_ids: Sequence[str]) -> str:
    """A session description from the recording itself, used when the user gave none: the recording
    and its length, then the parts that come with it ("…, 43.3 s long, with spike sorting, pose and
    video."); a part alone is described by what it is."""
    streams = [detection.stream(stream_id) for stream_id in stream_ids]
    signals = [stream for stream in streams if stream.kind not in PART_KINDS] or streams
    duration = max(stream.duration_s for stream in signals)
    labels = "; ".join(stream.label for stream in signals)
    if signals is streams and any(stream.kind in PART_KINDS for stream in streams):
        return f"{labels[:1].upper()}{labels[1:]}, {describe_duration(duration)} long."
    parts = list(dict.fromkeys(PART_WORDS[stream.kind] for stream in streams if stream.kind in PART_KINDS))
    with_parts = f", with {_listed(parts)}" if parts else ""
    return f"{detection.format_label} recording ({labels}), {describe_duration(duration)} long{with_parts}."


def _listed(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} and {words[-1]}"


def _given(values: Mapping[str, Any], name: str) -> Any:
    """The value of a field, or None when it is absent or empty."""
    value = values.get(name)
    if value is None or (isinstance(value, str | list | tuple) and not value):
        return None
    return value


def _neuroconv_metadata(
    base: Mapping[str, Any],
    values: Mapping[str, Any],
    *,
    zone: ZoneInfo,
    default_description: str,
    recordings: Sequence[Any] = (),
    system: str = "the recording system",
    preview: bool = False,
) -> tuple[dict[str, Any], list[_Description]]:
    """neuroconv's own metadata (devices, electrodes, start time from the file) with the user's
    fields deep-merged in (recording fields on the electrodes, where the reader stated nothing), and
    descriptions for what the reader left undescribed (`recordings`: the recording extractors written
    as electrical series; `system`: the format's name)."""
    from neuroconv.utils import dict_deep_update

    nwbfile: dict[str, Any] = {"identifier": str(uuid.uuid4())}
    subject: dict[str, Any] = {}
    start = _given(values, "session_start_time") or base.get("NWBFile", {}).get("session_start_time")
    if start is None:
        raise ConversionFailed(
            "The recording does not say when it started. Give the session start time "
            "(date, time and timezone) and convert again."
        )
    nwbfile["session_start_time"] = _aware(_as_datetime("session_start_time", start), zone)
    # DANDI names files by subject and session id; the start time is the session's natural id.
    nwbfile["session_id"] = session_label(nwbfile["session_start_time"])
    description = _given(values, "session_description") or default_description
    if preview:
        description = (
            f"{description.rstrip()}{'' if description.rstrip().endswith(('.', '!', '?')) else '.'} {_PREVIEW_NOTE}"
        )
    nwbfile["session_description"] = description
    recording: dict[str, str] = {}
    for name, spec in FIELDS.items():
        value = _given(values, name)
        if value is None or name in ("session_start_time", "session_description"):
            continue
        if spec.placement is Placement.TIMING:
            continue  # places the parts in time (`_behaviour_start`, `_with_pose_rate`)
        if spec.placement is Placement.RECORDING:
            if str(value).strip():
                recording[name] = str(value).strip()
            continue
        if name == "experimenter":
            value = [value] if isinstance(value, str) else list(value)
        elif name == "keywords":
            value = (
                [word.strip() for word in re.split(r"[,;\n]", value) if word.strip()]
                if isinstance(value, str)
                else list(value)
            )
        elif name == "date_of_birth":
            value = _aware(_as_datetime(name, value), zone)
        (nwbfile if spec.placement is Placement.NWBFILE else subject)[name] = value
    update: dict[str, Any] = {"NWBFile": nwbfile}
    if subject:
        update["Subject"] = subject
    described = _describe_undescribed(base, recordings, system=system)
    for description_update in described.updates:
        update = dict_deep_update(update, description_update)
    merged: dict[str, Any] = dict_deep_update(dict(base), update)
    if described.electrode_columns:
        # A list in neuroconv's metadata, which a deep update would append to rather than replace.
        merged.setdefault("Ecephys", {})["Electrodes"] = described.electrode_columns
    _place_recording_fields(merged, recording)
    return merged, described.descriptions


# --- the user's recording fields ----------------------------------------------------------------------

# Where a patch-clamp electrode (IntracellularElectrode) keeps each recording field.
_ELECTRODE_ATTRIBUTES = {"location": "location", "cell_id": "cell_id", "slice_id": "slice"}
# What neuroconv writes for a location no one stated (and an empty one says no more).
_UNSTATED = frozenset({"", "unknown"})


def _unstated(value: Any) -> bool:
    return value is None or str(value).strip().lower() in _UNSTATED


def _electrode_groups(metadata: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The electrode group entries of neuroconv's metadata, in its dict form (`ElectrodeGroups`) and in
    the list form that readers chosen by name may still give (`ElectrodeGroup`)."""
    ecephys = metadata.get("Ecephys", {})
    entries = [*ecephys.get("ElectrodeGroups", {}).values(), *ecephys.get("ElectrodeGroup", [])]
    return [entry for entry in entries if isinstance(entry, dict)]


def _place_recording_fields(metadata: dict[str, Any], values: Mapping[str, str]) -> None:
    """Write the user's recording fields into `metadata` where NWB has a place for them and the reader
    stated nothing: the location of every electrode group, and the location, cell id and slice of every
    patch-clamp electrode. NWB has no cell or slice for extracellular electrodes: those are left out."""
    if "location" in values:
        for group in _electrode_groups(metadata):
            if _unstated(group.get("location")):
                group["location"] = values["location"]
    for electrode in metadata.get("Icephys", {}).get("IntracellularElectrodes", {}).values():
        for name, attribute in _ELECTRODE_ATTRIBUTES.items():
            if name in values and _unstated(electrode.get(attribute)):
                electrode[attribute] = values[name]


def _locate_channels(recordings: Sequence[Any], base: Mapping[str, Any], location: str) -> None:
    """Write the user's location into the electrodes table's location column, which neuroconv fills
    from each channel's "brain_area" property ("unknown" where there is none): for the channels whose
    area the reader left unknown, except in a group whose location the reader states (`base`: the
    reader's metadata), which speaks for its channels."""
    from neuroconv.tools.spikeinterface.spikeinterface import _get_group_name

    stated = {str(group.get("name")) for group in _electrode_groups(base) if not _unstated(group.get("location"))}
    for recording in recordings:
        areas = recording.get_property("brain_area")
        if areas is None:
            areas = ["unknown"] * recording.get_num_channels()
        groups = [str(name) for name in _get_group_name(recording=recording)]
        located = [
            location if _unstated(area) and group not in stated else str(area)
            for area, group in zip(areas, groups, strict=True)
        ]
        recording.set_property("brain_area", np.asarray(located))


# --- descriptions of what the reader leaves undescribed ------------------------------------------------

_PREVIEW_NOTE = (
    "PREVIEW: a stub conversion holding only the start of each stream, to check the file's structure and "
    "metadata; not the file to share."
)
# Descriptions neuroconv writes when it has none (nwbinspector reports them as placeholders).
_PLACEHOLDER_DESCRIPTIONS = frozenset({"", "no description"})
# Electrodes-table columns whose meaning is known, by the recording property they are written from:
# Intan's per-channel header fields (Intan RHD/RHS data file format) and spikeinterface's Neuropixels
# sampling shift. What a column means is a fact about the software that saved it, not about the
# experiment; columns not listed keep neuroconv's placeholder and are explained, not guessed.
_COLUMN_MEANINGS = {
    "native_order": "The channel's number in the amplifier's native order (Intan header field 'native order').",
    "custom_order": "The channel's position in the order set in Intan's software (Intan header field 'custom order').",
    "chip_channel_num": "The channel's number on its Intan amplifier chip.",
    "board_stream_num": "The data stream of the Intan controller board the channel came through.",
    "port": "The Intan headstage port (A, B, C, D...) the channel was recorded on.",
    "electrode_impedance_magnitude": "Electrode impedance magnitude in ohms, from the last impedance test in "
    "Intan's software.",
    "electrode_impedance_phase": "Electrode impedance phase in degrees, from the last impedance test in Intan's "
    "software.",
    "spike_scope_trigger_mode": "How Intan's spike scope display was triggered for this channel: 0 by a voltage "
    "threshold, 1 by a digital input.",
    "spike_scope_voltage_thresh": "The voltage threshold of Intan's spike scope display for this channel, in "
    "microvolts.",
    "spike_scope_digital_trigger_channel": "The digital input (0-15) that triggers Intan's spike scope display "
    "in digital-trigger mode.",
    "spike_scope_digital_edge_polarity": "The edge of the digital input that triggers Intan's spike scope "
    "display: 0 falling, 1 rising.",
    "inter_sample_shift": "When the channel is sampled within each sampling period, as a fraction of the "
    "period: Neuropixels probes digitise their channels in turn, not all at once.",
}
_RECORDING_SYSTEM_KEY = "recording_system"


@dataclass(frozen=True)
class _Description:
    """A description the conversion writes where the reader gave none, for the object it belongs to."""

    kind: str  # one of _OBJECTS
    name: str
    before: str
    text: str
    reason: str

    @property
    def fix(self) -> AppliedFix:
        return AppliedFix(
            field=f"{self.kind} description '{self.name}'",
            before=self.before,
            after=self.text,
            check_name="check_description",
            reason=self.reason,
        )

    def is_in(self, nwbfile: NWBFile) -> bool:
        """Whether the built file carries this description, so only what was written is reported."""
        return getattr(_OBJECTS[self.kind](nwbfile, self.name), "description", None) == self.text


_OBJECTS: dict[str, Callable[[NWBFile, str], Any]] = {
    "device": lambda nwbfile, name: nwbfile.devices.get(name),
    "device model": lambda nwbfile, name: nwbfile.device_models.get(name),
    "electrode group": lambda nwbfile, name: nwbfile.electrode_groups.get(name),
    "electrodes column": lambda nwbfile, name: (
        nwbfile.electrodes[name] if nwbfile.electrodes is not None and name in nwbfile.electrodes.colnames else None
    ),
}


@dataclass(frozen=True)
class _Described:
    updates: tuple[dict[str, Any], ...]  # to deep-merge into the metadata
    electrode_columns: list[dict[str, str]]  # the whole Ecephys.Electrodes list, when it grows
    descriptions: list[_Description]


def _describe_undescribed(base: Mapping[str, Any], recordings: Sequence[Any], *, system: str) -> _Described:
    devices, device_descriptions = _device_descriptions(base)
    models, model_descriptions = _device_model_descriptions(base)
    groups, group_descriptions = _group_descriptions(base, recordings, system=system)
    columns, column_descriptions = _column_descriptions(base, recordings)
    return _Described(
        # Sorted units have no device, and their metadata no Devices entry to add one to.
        updates=tuple(update for update in (devices, models, groups) if update),
        electrode_columns=columns,
        descriptions=[*device_descriptions, *model_descriptions, *group_descriptions, *column_descriptions],
    )


def _device_descriptions(base: Mapping[str, Any]) -> tuple[dict[str, Any], list[_Description]]:
    """Describe each device from its model (e.g. "Neuropixels 1.0 probe (imec NP1000)").

    neuroconv leaves Device.description empty, which nwbinspector reports; the model read from the
    file says what the device is, so this is form, not a guess.
    """
    models = base.get("DeviceModels", {})
    described: dict[str, dict[str, str]] = {}
    descriptions: list[_Description] = []
    for key, device in base.get("Devices", {}).items():
        if not isinstance(device, Mapping) or device.get("description"):
            continue
        model = models.get(device.get("device_model_metadata_key", ""), {})
        name = str(device.get("name", key))
        words = [model.get("description") or name]
        maker = " ".join(str(part) for part in (model.get("manufacturer"), model.get("model_number")) if part)
        if maker:
            words.append(f"({maker})")
        if device.get("serial_number"):
            words.append(f"serial number {device['serial_number']}")
        described[key] = {"description": " ".join(words)}
        descriptions.append(
            _Description(
                "device", name, "", described[key]["description"], "described from the model read from the file"
            )
        )
    return ({"Devices": described} if described else {}), descriptions


def _device_model_descriptions(base: Mapping[str, Any]) -> tuple[dict[str, Any], list[_Description]]:
    """Describe each device model that has no description by its maker and name (e.g. "Intan RHD2000
    Recording System"), as read from the file."""
    described: dict[str, dict[str, str]] = {}
    descriptions: list[_Description] = []
    for key, model in base.get("DeviceModels", {}).items():
        if not isinstance(model, Mapping) or model.get("description"):
            continue
        name = str(model.get("name", key))
        words = [str(model["manufacturer"])] if model.get("manufacturer") else []
        words.append(name)
        if model.get("model_number") and model["model_number"] != name:
            words.append(f"(model number {model['model_number']})")
        described[key] = {"description": " ".join(words)}
        descriptions.append(
            _Description(
                "device model",
                name,
                "",
                described[key]["description"],
                "described from the maker and model read from the file",
            )
        )
    return ({"DeviceModels": described} if described else {}), descriptions


def _group_descriptions(
    base: Mapping[str, Any], recordings: Sequence[Any], *, system: str
) -> tuple[dict[str, Any], list[_Description]]:
    """Describe electrode groups the reader leaves undescribed, by the system that recorded them.

    A group with no metadata at all (readers chosen by name often give none) would be written with
    neuroconv's placeholders: description "no description" and, unless a probe names the device, an
    undescribed "PlaceholderElectrodeDevice". Such groups get a description and, where needed, a
    device named and described after the recording system; where the electrodes were is left
    unknown.
    """
    text = f"Channels recorded with {system}; the file does not say where the electrodes were."
    reason = "described from the recording system; where the electrodes were is not in the file"
    metadata_groups = base.get("Ecephys", {}).get("ElectrodeGroups", {})
    groups: dict[str, dict[str, Any]] = {}
    descriptions: list[_Description] = []
    for key, group in metadata_groups.items():
        if isinstance(group, Mapping) and str(group.get("description", "")).strip() in _PLACEHOLDER_DESCRIPTIONS:
            groups[key] = {"description": text}
            name = str(group.get("name", key))
            # neuroconv writes "no description" for a group without one.
            before = str(group.get("description", "no description"))
            descriptions.append(_Description("electrode group", name, before, text, reason))
    named = {str(group.get("name")) for group in metadata_groups.values() if isinstance(group, Mapping)}
    system_device = {
        "name": _camel(system),
        "description": f"Recorded with {system}; the file does not name the amplifier or the electrodes.",
    }
    # A device of that name from the reader is used as it is (and described above if it needs to be).
    device_key = next(
        (key for key, device in base.get("Devices", {}).items() if device.get("name") == system_device["name"]),
        None,
    )
    devices: dict[str, dict[str, str]] = {}
    for recording in recordings:
        probe_names_the_device = _probe_names_the_device(recording)
        for name in _group_names(recording):
            if name in named:
                continue
            named.add(name)
            group = {"name": name, "description": text}
            descriptions.append(_Description("electrode group", name, "no description", text, reason))
            if not probe_names_the_device:
                if device_key is None:
                    device_key = _RECORDING_SYSTEM_KEY
                    devices[device_key] = system_device
                    descriptions.append(
                        _Description(
                            "device",
                            system_device["name"],
                            "",
                            system_device["description"],
                            "named and described after the recording system (neuroconv would write an undescribed "
                            "'PlaceholderElectrodeDevice')",
                        )
                    )
                group["device_metadata_key"] = device_key
            # A key of its own: metadata keys are handles, and the reader's may equal this group's name.
            groups[f"{_RECORDING_SYSTEM_KEY}:{name}"] = group
    update: dict[str, Any] = {"Ecephys": {"ElectrodeGroups": groups}} if groups else {}
    if devices:
        update["Devices"] = devices
    return update, descriptions


def _column_descriptions(
    base: Mapping[str, Any], recordings: Sequence[Any]
) -> tuple[list[dict[str, str]], list[_Description]]:
    """The Ecephys.Electrodes list with a description for each column whose meaning is known, where
    the reader gave none (neuroconv would write "no description"); an empty list when none is added."""
    columns = [dict(column) for column in base.get("Ecephys", {}).get("Electrodes", [])]
    described = {column.get("name") for column in columns}
    written = {key for recording in recordings for key in recording.get_property_keys()}
    descriptions = [
        _Description(
            "electrodes column",
            name,
            "no description",
            _COLUMN_MEANINGS[name],
            "described from what the recording software's field means",
        )
        for name in sorted(written & _COLUMN_MEANINGS.keys() - described)
    ]
    if not descriptions:
        return [], []
    return [*columns, *({"name": d.name, "description": d.text} for d in descriptions)], descriptions


def _electrode_recordings(converter: NWBConverter) -> list[Any]:
    """The recording extractors the converter writes as electrical series (with electrodes)."""
    from neuroconv.datainterfaces.ecephys.baserecordingextractorinterface import BaseRecordingExtractorInterface

    return [
        interface.recording_extractor
        for interface in converter.data_interface_objects.values()
        if isinstance(interface, BaseRecordingExtractorInterface)
    ]


def _group_names(recording: Any) -> list[str]:
    """The electrode group names neuroconv gives the recording's channels (its own rule)."""
    from neuroconv.tools.spikeinterface.spikeinterface import _get_group_name

    return list(dict.fromkeys(str(name) for name in _get_group_name(recording=recording)))


def _probe_names_the_device(recording: Any) -> bool:
    """Whether neuroconv takes the device of an undescribed group from the recording's probe."""
    from neuroconv.tools.spikeinterface.spikeinterface import _get_probe_device_metadata

    probes = recording.get_probegroup().probes if recording.has_probe() else []
    return len(probes) == 1 and _get_probe_device_metadata(probe=probes[0]) is not None


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word) or "Recording"


def _as_datetime(name: str, value: Any) -> datetime:
    if isinstance(value, datetime):
        return value
    if isinstance(value, date):
        return datetime(value.year, value.month, value.day)
    try:
        return datetime.fromisoformat(str(value).strip())
    except ValueError as error:
        raise ConversionFailed(
            f"The {FIELDS[name].label} given ({value!r}) is not a date NWB accepts. "
            f"Give it as {_ACCEPTED_FORMS[name]}.",
            detail=repr(error),
        ) from error


def _aware(moment: datetime, zone: ZoneInfo) -> datetime:
    # pynwb would silently read a naive time in the worker's own zone.
    return moment.replace(tzinfo=zone) if moment.tzinfo is None else moment


def _validate_metadata(converter: NWBConverter, nwb_metadata: dict[str, Any], values: Mapping[str, Any]) -> None:
    """neuroconv's schema check, run before anything is written; a refusal names the field."""
    from jsonschema import ValidationError

    try:
        converter.validate_metadata(nwb_metadata)
    except ValidationError as error:
        path = [str(part) for part in error.absolute_path]
        name = path[1] if len(path) > 1 and path[0] in ("NWBFile", "Subject") else None
        if name in FIELDS:
            accepted = _ACCEPTED_FORMS.get(name, f"something like {FIELDS[name].example}")
            given = values.get(name, error.instance)
            raise ConversionFailed(
                f"The {FIELDS[name].label} given ({given!r}) is not in a form NWB accepts. Give it as {accepted}.",
                detail=error.message,
            ) from error
        raise ConversionFailed(
            "The recording's settings could not be turned into NWB metadata "
            f"({'/'.join(path) or 'metadata'}: {error.message}).",
            detail=str(error),
        ) from error


# What neo, spikeinterface, hdmf, pynwb and h5py raise on damaged or unexpected data. Other exceptions
# (e.g. a task runner's time limit) are not about the recording and pass through unchanged.
_DATA_ERRORS = (
    OSError,
    ValueError,
    TypeError,
    KeyError,
    IndexError,
    AssertionError,
    RuntimeError,
    ArithmeticError,
)


@contextmanager
def _failure_as(stage: str, file_names: str) -> Iterator[None]:
    """Turn reader/writer exceptions into `ConversionFailed` with a plain message."""
    try:
        yield
    except _DATA_ERRORS as error:
        if isinstance(error, OSError) and error.errno == errno.ENOSPC:
            message = (
                "The server ran out of disk space while writing the NWB file. Try again later, "
                "or ask the administrator to free space."
            )
        else:
            message = _failure_message(stage, file_names, error)
        raise ConversionFailed(message, detail=traceback.format_exc()) from error


def _failure_message(stage: str, file_names: str, error: BaseException) -> str:
    reason = str(error).strip().splitlines()[0][:200] if str(error).strip() else type(error).__name__
    return (
        f"The conversion failed while {stage} {file_names} ({reason}). The recording may be damaged or "
        "incomplete: check the files and upload them again."
    )


class _ProgressTracker:
    """Folds per-stream buffer counts into one percentage, weighted by each stream's bytes."""

    def __init__(
        self,
        *,
        weights: Mapping[str, float],
        on_progress: Callable[[float], None],
        should_stop: Callable[[], bool],
    ) -> None:
        self._weights = dict(weights)
        self._done: dict[str, float] = {}
        self._reported = 0.0
        self._on_progress = on_progress
        self._should_stop = should_stop

    def check_stop(self) -> None:
        if self._should_stop():
            raise ConversionCancelled()

    def stream_done(self, stream_id: str, fraction: float) -> None:
        # Raising here, inside neuroconv's write loop, is what stops the writing.
        self.check_stop()
        self._done[stream_id] = max(self._done.get(stream_id, 0.0), min(fraction, 1.0))
        percent = 100.0 * sum(weight * self._done.get(stream, 0.0) for stream, weight in self._weights.items())
        percent = min(percent, _LAST_PERCENT_BEFORE_DONE)
        if percent > self._reported:
            self._reported = percent
            self._on_progress(percent)


def _progress_bar_class(tracker: _ProgressTracker, stream_id: str) -> type[tqdm]:
    """A silent tqdm that hdmf's chunk iterator drives, reporting one stream's share to `tracker`."""

    class StreamProgress(tqdm):  # type: ignore[misc]  # tqdm ships without type hints
        # Which stream this bar counts, for a writer that reports progress without driving the bar.
        stream_id: str

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            kwargs["disable"] = True  # a worker has no terminal to draw on
            super().__init__(*args, **kwargs)
            self.buffers_started = 0

        def update(self, n: float | None = 1) -> bool | None:
            # hdmf calls this as it *starts* each buffer, so only the earlier ones are written.
            self.buffers_started += int(n or 0)
            tracker.stream_done(stream_id, (self.buffers_started - 1) / max(self.total or 1, 1))
            return None

        @classmethod
        def write(cls, s: str, file: Any = None, end: str = "\n", nolock: bool = False) -> None:
            # hdmf writes a newline once this stream's last buffer is written; nothing is printed.
            tracker.stream_done(stream_id, 1.0)

    StreamProgress.stream_id = stream_id
    return StreamProgress

"""Convert a detected recording into one NWB file with neuroconv.

The file is written under a hidden temporary name next to the destination and moved into place
only once complete, so a crash or a cancel never leaves a half-written `.nwb` where the app looks
for results. For recordings, progress is reported from inside neuroconv's chunked writer, which is
also where a cancel request takes effect; formats written in one piece (`SupportedFormat.progress`
"whole": patch clamp, sorted units) go from 0 to 100 around the write, and a cancel takes effect
just before and just after it.
"""

from __future__ import annotations

import errno
import os
import re
import traceback
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tqdm import tqdm

from .detection import Detection, Stream, SupportedFormat, format_handler
from .errors import ConversionCancelled, ConversionFailed
from .fields import FIELDS, Placement
from .naming import session_label, temporary_path_for
from .quantities import describe_duration

if TYPE_CHECKING:
    from neuroconv import NWBConverter
    from neuroconv.tools.nwb_helpers import HDF5BackendConfiguration
    from pynwb import NWBFile


@dataclass(frozen=True)
class ConversionResult:
    output_path: Path
    size_bytes: int
    duration_s: float
    streams: tuple[str, ...]


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
) -> ConversionResult:
    """Write the chosen streams of `detection` (all default streams when empty) into `output_path`.

    `metadata` is flat and keyed by the names in `fields.py`; absent keys mean "not given". A
    naive session start time is taken to be in `timezone`. Raises `ConversionCancelled` when
    `should_stop()` turns true, `ConversionFailed` when the data or the metadata cannot be written;
    in every such case neither the temporary nor the output file is left behind.
    """
    chosen = tuple(stream_ids) or detection.default_streams
    streams = [detection.stream(stream_id) for stream_id in chosen]  # KeyError: a caller bug, not user data
    supported = format_handler(detection.format)
    if supported is None:
        raise ValueError(f"no converter for format {detection.format!r}")
    zone = _zone(timezone)
    _refuse_changed_files(source_root, streams)
    temporary = temporary_path_for(output_path)
    total_bytes = sum(stream.size_bytes for stream in streams) or 1
    tracker = _ProgressTracker(
        weights={stream.id: stream.size_bytes / total_bytes for stream in streams},
        on_progress=on_progress,
        should_stop=should_stop,
    )
    file_names = _data_file_names(streams)

    on_progress(0.0)
    tracker.check_stop()
    output_path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with supported.open_for_reading(source_root, detection, chosen) as view:
            with _failure_as("reading", file_names):
                converter = supported.build_converter(view, chosen)
                nwb_metadata = _neuroconv_metadata(
                    converter.get_metadata(),
                    metadata,
                    zone=zone,
                    default_description=_describe(detection, chosen),
                )
                _validate_metadata(converter, nwb_metadata, metadata)
            conversion_options = _conversion_options(supported, streams, tracker)
            tracker.check_stop()  # the last chance for formats that report nothing until the write ends
            with _failure_as("converting", file_names):
                nwbfile = converter.create_nwbfile(metadata=nwb_metadata, conversion_options=conversion_options)
                _write(nwbfile, temporary)
        tracker.check_stop()
        os.replace(temporary, output_path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    on_progress(100.0)
    return ConversionResult(
        output_path=output_path,
        size_bytes=output_path.stat().st_size,
        duration_s=max(stream.duration_s for stream in streams),
        streams=chosen,
    )


def build_backend_configuration(nwbfile: NWBFile) -> HDF5BackendConfiguration:
    """Chunking and compression of every dataset: neuroconv's defaults (HDF5, gzip) for now.

    The one place to change when tuning write speed or file size.
    """
    from neuroconv.tools.nwb_helpers import get_default_backend_configuration

    configuration: HDF5BackendConfiguration = get_default_backend_configuration(nwbfile=nwbfile, backend="hdf5")
    return configuration


def _write(nwbfile: NWBFile, path: Path) -> None:
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
    supported: SupportedFormat, streams: Sequence[Stream], tracker: _ProgressTracker
) -> dict[str, dict[str, Any]]:
    """Per-stream options for the converter: a progress bar in neuroconv's chunk iterator for chunked
    formats; none for formats written in one piece, whose interfaces take no iterator options."""
    if supported.progress == "whole":
        return {}
    return {
        stream.id: {
            "iterator_options": {
                "display_progress": True,
                "buffer_gb": _buffer_gb(stream.size_bytes),
                "progress_bar_class": _progress_bar_class(tracker, stream.id),
            }
        }
        for stream in streams
    }


def _buffer_gb(stream_bytes: int) -> float:
    return min(_MAX_BUFFER_GB, max(_MIN_BUFFER_GB, _BUFFER_SHARE * stream_bytes / 1e9))


def _describe(detection: Detection, stream_ids: Sequence[str]) -> str:
    """A session description from the recording itself, used when the user gave none."""
    streams = [detection.stream(stream_id) for stream_id in stream_ids]
    duration = max(stream.duration_s for stream in streams)
    labels = "; ".join(stream.label for stream in streams)
    return f"{detection.format_label} recording ({labels}), {describe_duration(duration)} long."


def _given(values: Mapping[str, Any], name: str) -> Any:
    """The value of a field, or None when it is absent or empty."""
    value = values.get(name)
    if value is None or (isinstance(value, str | list | tuple) and not value):
        return None
    return value


def _neuroconv_metadata(
    base: Mapping[str, Any], values: Mapping[str, Any], *, zone: ZoneInfo, default_description: str
) -> dict[str, Any]:
    """neuroconv's own metadata (devices, electrodes, start time from the file) with the user's
    fields deep-merged in."""
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
    nwbfile["session_description"] = _given(values, "session_description") or default_description
    for name, spec in FIELDS.items():
        value = _given(values, name)
        if value is None or name in ("session_start_time", "session_description"):
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
    devices = _device_descriptions(base)
    if devices:  # sorted units have no device, and their metadata no Devices entry to add one to
        update["Devices"] = devices
    if subject:
        update["Subject"] = subject
    merged: dict[str, Any] = dict_deep_update(dict(base), update)
    return merged


def _device_descriptions(base: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    """Describe each device from its model (e.g. "Neuropixels 1.0 probe (imec NP1000)").

    neuroconv leaves Device.description empty, which nwbinspector reports; the model read from the
    file says what the device is, so this is form, not a guess.
    """
    models = base.get("DeviceModels", {})
    described: dict[str, dict[str, str]] = {}
    for key, device in base.get("Devices", {}).items():
        if not isinstance(device, Mapping) or device.get("description"):
            continue
        model = models.get(device.get("device_model_metadata_key", ""), {})
        words = [model.get("description") or device.get("name", "recording device")]
        maker = " ".join(str(part) for part in (model.get("manufacturer"), model.get("model_number")) if part)
        if maker:
            words.append(f"({maker})")
        if device.get("serial_number"):
            words.append(f"serial number {device['serial_number']}")
        described[key] = {"description": " ".join(words)}
    return described


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

    return StreamProgress

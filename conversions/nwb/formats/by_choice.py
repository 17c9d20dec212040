"""Every neuroconv ecephys recording interface, reachable by the user's explicit choice.

Detection (`formats.SUPPORTED_FORMATS`) knows a format by its files and checks them closely before
anything is queued. For the other formats neuroconv reads, the user names the interface and the
upload is opened with it: `detect_format(root, format_key="neuroconv:IntanRecordingInterface")`, or
`detect_as(root, "IntanRecordingInterface", options=...)` when the interface needs values the files
do not hold (a TDT gain, a WhiteMatter channel count). The interface's file or folder argument is
picked from the upload; channels, rate and duration come from its recording extractor. These
formats are never claimed by detection: a wrong guess would convert nonsense without complaint.

Only what the reader itself checks is checked, and some readers scan their whole file to open it,
so detection can take longer than for the formats detection knows.

Each file (or folder) the interface opens is a recording of its own: with several, the first is
converted by default, a stream's group names its file, and streams of two files are refused together.

Each choice is a `SupportedFormat` keyed "neuroconv:<InterfaceName>" (`choosable_formats()`, built
on first use as it imports neuroconv), so `convert_recording` converts it like any detected format.
"""

from __future__ import annotations

import importlib.metadata
import inspect
import json
import re
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import date, datetime
from functools import cache, partial
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any, Literal

from ..errors import RecordingProblem
from .base import (
    Detection,
    Stream,
    SupportedFormat,
    list_upload_files,
    reader_view,
    refuse_mixed_groups,
    short_reason,
    some_names,
    stream_facts,
)

if TYPE_CHECKING:
    from neuroconv import NWBConverter

CHOICE_PREFIX = "neuroconv:"
# Constructor arguments the portal sets itself, never offered as options.
_MANAGED_ARGUMENTS = frozenset(
    {"file_path", "folder_path", "stream_name", "stream_id", "verbose", "es_key", "metadata_key", "source_data"}
)
# Packages neuroconv imports at run time without listing them for this platform in its extras.
_RUN_TIME_PACKAGES = {"Spike2RecordingInterface": ("sonpy",)}
# Streams that are not brain signals, by the names readers give them: offered, not converted by default.
_AUXILIARY_STREAM = re.compile(r"sync|aux|supply|adc|digital|ni-?daq|event", re.IGNORECASE)
# More candidate files than this and the upload is not one recording in that format.
_MAX_CANDIDATES = 16
# Inside a reader view: the choice (interface, options, streams) beside the upload's files.
_CHOICE_FILE = "choice.json"
_UPLOAD_FOLDER = "upload"


@dataclass(frozen=True)
class ChoosableInterface:
    """One neuroconv recording interface as the user may choose it."""

    name: str  # neuroconv's class name, e.g. "IntanRecordingInterface"
    label: str  # neuroconv's display name, e.g. "Intan Amplifier"
    source: Literal["file_path", "folder_path"]  # what the interface opens
    suffixes: tuple[str, ...]  # file name endings neuroconv associates with it
    stream_argument: Literal["stream_name", "stream_id"] | None  # how it selects one stream, if it can
    required_options: tuple[str, ...]  # values the files do not hold, which the user must give
    optional_options: tuple[str, ...]
    missing_packages: tuple[str, ...]  # Python packages it needs that are not installed here

    @property
    def key(self) -> str:
        return CHOICE_PREFIX + self.name

    @property
    def needs(self) -> str:
        what = "one file" if self.source == "file_path" else "a folder"
        words = f"{what} ({', '.join(self.suffixes)})" if self.suffixes else what
        if self.required_options:
            words += f", and the values {', '.join(self.required_options)}"
        if self.missing_packages:
            words += f"; not available here: needs {', '.join(self.missing_packages)}"
        return words


@cache
def choosable_interfaces() -> dict[str, ChoosableInterface]:
    """Every ecephys recording interface neuroconv offers, by class name (imports neuroconv, ~1 s once)."""
    import neuroconv.datainterfaces as datainterfaces
    from neuroconv.datainterfaces.ecephys.baserecordingextractorinterface import BaseRecordingExtractorInterface

    found: dict[str, ChoosableInterface] = {}
    for name in sorted(dir(datainterfaces)):
        interface_class = getattr(datainterfaces, name)
        if not (inspect.isclass(interface_class) and issubclass(interface_class, BaseRecordingExtractorInterface)):
            continue
        if interface_class is BaseRecordingExtractorInterface:
            continue
        parameters = _parameters(interface_class)
        source: Literal["file_path", "folder_path"]
        if "folder_path" in parameters:
            source = "folder_path"
        elif "file_path" in parameters:
            source = "file_path"
        else:
            continue
        stream: Literal["stream_name", "stream_id"] | None = (
            "stream_name" if "stream_name" in parameters else "stream_id" if "stream_id" in parameters else None
        )
        options = {argument: value for argument, value in parameters.items() if argument not in _MANAGED_ARGUMENTS}
        found[name] = ChoosableInterface(
            name=name,
            label=str(getattr(interface_class, "display_name", None) or name),
            source=source,
            # Patterns such as ".imec{probe_index}" are not endings a file name can be matched with.
            suffixes=tuple(
                dict.fromkeys(s for s in getattr(interface_class, "associated_suffixes", ()) if "{" not in s)
            ),
            stream_argument=stream,
            required_options=tuple(argument for argument, value in options.items() if value.default is value.empty),
            optional_options=tuple(argument for argument, value in options.items() if value.default is not value.empty),
            missing_packages=_missing_packages(interface_class),
        )
    return found


@cache
def choosable_formats() -> dict[str, SupportedFormat]:
    """A format handler per interface, keyed "neuroconv:<InterfaceName>"; none of them claims files."""
    return {choice.key: _supported_format(choice) for choice in choosable_interfaces().values()}


def choosable_format(key: str) -> SupportedFormat | None:
    """The handler for a "neuroconv:<InterfaceName>" key, or None (without importing neuroconv for other keys)."""
    if not key.startswith(CHOICE_PREFIX):
        return None
    return choosable_formats().get(key)


def detect_as(root: Path, interface_name: str, *, options: Mapping[str, Any] | None = None) -> Detection:
    """Open the upload under `root` with the named neuroconv interface and describe what it reads.

    `options` gives the interface's other arguments (`ChoosableInterface.required_options` must be
    among them); they are kept in the detection for the conversion. Raises `RecordingProblem` in
    plain words when a package is missing, no file fits, or the reader refuses the files.
    """
    choice = choosable_interfaces().get(interface_name)
    if choice is None:
        raise ValueError(f"{interface_name!r} is not a neuroconv recording interface")
    return _inspect_as(choice, root, list_upload_files(root), options=options or {})


# --- inspecting -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Opened:
    """One stream the interface opened."""

    source: str  # file or folder relative to the upload root ("." for the root itself)
    stream: str | None  # value of the interface's stream argument, when it has one
    channel_count: int
    sampling_rate_hz: float
    duration_s: float
    start_time: str | None
    devices: tuple[str, ...]


def _inspect_as(
    choice: ChoosableInterface, root: Path, files: Sequence[str], *, options: Mapping[str, Any]
) -> Detection:
    if not files:
        raise RecordingProblem("The upload contains no files. Upload the recording's files (or its folder) again.")
    unknown = sorted(set(options) - set(choice.required_options) - set(choice.optional_options))
    if unknown:
        raise ValueError(f"{choice.name} takes no option {', '.join(unknown)}")
    missing = [name for name in choice.required_options if name not in options]
    if missing:
        raise RecordingProblem(
            f"To read files as {choice.label}, the portal needs {_values_words(choice, missing)}, which the files do "
            "not hold. Give them and try again."
        )
    if choice.missing_packages:
        raise RecordingProblem(_missing_package_message(choice, choice.missing_packages[0]))
    sources = _candidate_sources(choice, files)
    opened: list[_Opened] = []
    failures: list[tuple[str, str]] = []
    with _upload_view(root, files) as view:
        for source in sources:
            found = _open_source(choice, view, source, options, failures)
            opened.extend(found)
            if found and choice.source == "folder_path":
                break  # the shallowest folder the reader accepts is the recording
    if not opened:
        raise RecordingProblem(_unreadable_message(choice, failures), detail="\n".join(f for _, f in failures))
    sources = list(dict.fromkeys(item.source for item in opened))
    streams = tuple(_stream(choice, root, files, item, several_sources=len(sources) > 1) for item in opened)
    # Several files are several recordings, each with its own start: the first is converted by default.
    first = [stream for stream, item in zip(streams, opened, strict=True) if item.source == sources[0]]
    defaults = [stream.id for stream in first if stream.kind == "neural"] or [stream.id for stream in first]
    notes = [
        f"Read with neuroconv's {choice.name}, as you chose: the portal checked only what that reader checks "
        "when it opens the files."
    ]
    notes.extend(_failure_notes(choice, failures, opened))
    if len(sources) > 1:
        notes.append(
            f"The upload holds {len(sources)} files read as separate recordings ({some_names(sources)}); {sources[0]} "
            "is converted by default, and another can be chosen instead (one recording per NWB file)."
        )
    if not any(item.start_time for item in opened):
        notes.append("The files do not say when the recording started; you will be asked for it.")
    left_out = [stream.label for stream in first if stream.id not in defaults]
    if left_out:
        notes.append(f"Not converted unless chosen, as they do not look like brain signals: {'; '.join(left_out)}.")
    used = {name for stream in streams for name in stream.files}
    unused = [name for name in files if name not in used]
    if unused:
        notes.append(f"These files were not read by {choice.label} and were left out: {some_names(unused)}.")
    recording: dict[str, Any] = {
        "interface": choice.name,
        "interface_options": dict(options),
        # Each stream's own, for any choice (`choice_facts`): streams of several files start apart.
        "stream_start_times": {stream.id: item.start_time for stream, item in zip(streams, opened, strict=True)},
        "stream_devices": {
            stream.id: "; ".join(item.devices) for stream, item in zip(streams, opened, strict=True) if item.devices
        },
        # The streams of one folder share its files.
        "file_sizes": {name: (root / name).stat().st_size for name in used},
    }
    detection = Detection(
        format=choice.key,
        format_label=choice.label,
        streams=streams,
        default_streams=tuple(defaults),
        file_metadata=recording,
        notes=tuple(notes),
    )
    return replace(detection, file_metadata={**choice_facts(detection, defaults), **recording})


def check_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """Streams of one file (or folder) at a time: several files are several recordings."""
    refuse_mixed_groups(
        [str(_parse_stream_id(stream_id)["source"]) for stream_id in stream_ids],
        part="file",
        started="The files were read as separate recordings",
    )


def choice_facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The facts of the chosen streams, with the earliest start the reader gives them; no device named is
    None, not ""."""
    facts = stream_facts(detection, stream_ids)
    starts = detection.file_metadata.get("stream_start_times")
    if isinstance(starts, Mapping):  # detections stored before streams could be chosen lack it
        known = [datetime.fromisoformat(starts[stream_id]) for stream_id in stream_ids if starts.get(stream_id)]
        facts["session_start_time"] = min(known).isoformat() if known else None
    facts["device"] = facts["device"] or None
    return facts


def _candidate_sources(choice: ChoosableInterface, files: Sequence[str]) -> list[str]:
    """Files (or folders) to hand to the interface, most likely first."""
    matching = [name for name in files if name.lower().endswith(tuple(suffix.lower() for suffix in choice.suffixes))]
    if choice.source == "folder_path":
        # From the upload's root down to the folder holding every matching file: the reader may want
        # the recording's top folder (Open Ephys' Record Node) or the one holding its files (Neuralynx).
        deepest = _common_folder(matching) if matching else PurePosixPath(".")
        chain = [deepest, *deepest.parents] if str(deepest) != "." else [deepest]
        return [str(folder) for folder in reversed(chain)]
    if not matching and len(files) == 1:
        return list(files)  # the user named the format; the file's name may not say it
    if not matching:
        raise RecordingProblem(
            f"None of the files has a name {choice.label} files have (ending in {', '.join(choice.suffixes)}); "
            f"found: {some_names(files)}. Upload the recording's files, or choose another format."
        )
    if len(matching) > _MAX_CANDIDATES:
        raise RecordingProblem(
            f"The upload holds {len(matching)} files that could be {choice.label} recordings "
            f"({some_names(matching)}). Upload one recording at a time."
        )
    return matching


def _common_folder(names: Sequence[str]) -> PurePosixPath:
    parents = [PurePosixPath(name).parent.parts for name in names]
    common: list[str] = []
    for parts in zip(*parents, strict=False):
        if len(set(parts)) != 1:
            break
        common.append(parts[0])
    return PurePosixPath(*common) if common else PurePosixPath(".")


def _open_source(
    choice: ChoosableInterface,
    view: Path,
    source: str,
    options: Mapping[str, Any],
    failures: list[tuple[str, str]],
) -> list[_Opened]:
    """Every stream of one file or folder the interface opens; what it refuses goes to `failures`."""
    path = view / _UPLOAD_FOLDER / source
    opened: list[_Opened] = []
    streams = _stream_values(choice, path)
    if not streams:
        failures.append((source, "the reader finds no continuous signals in it (it may hold only spikes or events)"))
    for stream in streams:
        try:
            interface = _interface(choice, path, stream, options)
            opened.append(_describe(interface, source, stream))
        except ImportError as error:  # a reader's optional dependency: no other file will do better
            raise RecordingProblem(
                _missing_package_message(choice, _package_name(error)), detail=repr(error)
            ) from error
        except Exception as error:  # any reader failure is a property of the user's files
            where = source if stream is None else f"{source} (stream {stream})"
            failures.append((where, f"{short_reason(error)}\n{traceback.format_exc()}"))
    return opened


def _stream_values(choice: ChoosableInterface, path: Path) -> list[str | None]:
    """The reader's signal streams in `path` when the interface selects streams (none: nothing to convert);
    [None] to let the interface choose."""
    if choice.stream_argument is None:
        return [None]
    import neuroconv.datainterfaces as datainterfaces

    interface_class = getattr(datainterfaces, choice.name)
    try:
        names, ids = interface_class.get_extractor_class().get_streams(**{choice.source: str(path)})
    except Exception:  # not a neo-based reader, or files it cannot list: let the interface decide
        return [None]
    return [str(value) for value in (names if choice.stream_argument == "stream_name" else ids)]


def _interface(choice: ChoosableInterface, path: Path, stream: str | None, options: Mapping[str, Any]) -> Any:
    import neuroconv.datainterfaces as datainterfaces

    arguments: dict[str, Any] = {choice.source: path, **options}
    if stream is not None and choice.stream_argument is not None:
        arguments[choice.stream_argument] = stream
    with warnings.catch_warnings():
        # Readers' deprecation notices are about their own API, not the user's files.
        warnings.simplefilter("ignore", FutureWarning)
        warnings.simplefilter("ignore", DeprecationWarning)
        return getattr(datainterfaces, choice.name)(**arguments)


def _describe(interface: Any, source: str, stream: str | None) -> _Opened:
    recording = interface.recording_extractor
    rate = float(recording.get_sampling_frequency())
    samples = sum(int(recording.get_num_samples(segment_index=i)) for i in range(recording.get_num_segments()))
    try:
        metadata = interface.get_metadata()
    except Exception:  # metadata is a nicety here; the conversion reports it if it really fails
        metadata = {}
    start = metadata.get("NWBFile", {}).get("session_start_time")
    start_time = _naive_iso(start) if isinstance(start, datetime | date | str) else None
    devices = tuple(
        str(device.get("description") or device.get("name"))
        for device in metadata.get("Devices", {}).values()
        if isinstance(device, Mapping) and (device.get("description") or device.get("name"))
    )
    return _Opened(
        source=source,
        stream=stream,
        channel_count=int(recording.get_num_channels()),
        sampling_rate_hz=rate,
        duration_s=samples / rate,
        start_time=start_time,
        devices=devices,
    )


def _naive_iso(value: datetime | date | str) -> str | None:
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value.strip())
        except ValueError:
            return None
    if not isinstance(value, datetime):
        value = datetime(value.year, value.month, value.day)
    return value.replace(tzinfo=None).isoformat()


def _stream(
    choice: ChoosableInterface, root: Path, files: Sequence[str], item: _Opened, *, several_sources: bool
) -> Stream:
    members = _source_files(item.source, files, folder=choice.source == "folder_path")
    where = "the upload" if item.source == "." else item.source
    label = f"{item.stream} in {where}" if item.stream else where
    label += f" ({item.channel_count} channels at {item.sampling_rate_hz:g} Hz)"
    return Stream(
        id=_stream_id(item.source, item.stream),
        label=label,
        channel_count=item.channel_count,
        sampling_rate_hz=item.sampling_rate_hz,
        duration_s=item.duration_s,
        size_bytes=sum((root / name).stat().st_size for name in members),
        files=tuple(members),
        kind="auxiliary" if _is_auxiliary(item.stream) else "neural",
        group=item.source if several_sources else "",
    )


def _stream_id(source: str, stream: str | None) -> str:
    return source if stream is None else f"{source}::{stream}"


def _source_files(source: str, files: Sequence[str], *, folder: bool) -> list[str]:
    """The files a reader may open for `source`: a folder's whole content, or a file and the files beside
    it (partners such as a NeuroScope .xml or a Blackrock .nev); the source file first."""
    if folder:
        prefix = "" if source == "." else f"{source}/"
        return [name for name in files if name.startswith(prefix)]
    parent = PurePosixPath(source).parent
    siblings = [name for name in files if PurePosixPath(name).parent == parent and name != source]
    return [source, *siblings]


def _is_auxiliary(stream: str | None) -> bool:
    return bool(stream and _AUXILIARY_STREAM.search(stream))


# --- messages -------------------------------------------------------------------------------------


def _values_words(choice: ChoosableInterface, names: Sequence[str]) -> str:
    import neuroconv.datainterfaces as datainterfaces

    try:
        schema = getattr(datainterfaces, choice.name).get_source_schema().get("properties", {})
    except Exception:  # a schema is only used for wording
        schema = {}
    words = []
    for name in names:
        description = str(schema.get(name, {}).get("description") or "").strip().rstrip(".")
        words.append(f"{name} ({description})" if description else name)
    return ", ".join(words)


def _missing_package_message(choice: ChoosableInterface, package: str) -> str:
    return (
        f"Reading {choice.label} files needs the Python package {package}, which is not installed on this server "
        "(it may not exist for this system). Ask the portal's administrator, or export the recording to a format "
        "the portal reads."
    )


def _package_name(error: ImportError) -> str:
    if error.name:
        return error.name.split(".")[0]
    quoted = re.search(r"'([\w.-]+)'", str(error))
    return quoted.group(1) if quoted else "that the reader names"


def _unreadable_message(choice: ChoosableInterface, failures: Sequence[tuple[str, str]]) -> str:
    # Folders were tried from the root down: the deepest refusal says most.
    shown = failures[-3:][::-1] if choice.source == "folder_path" else failures[:3]
    reasons = "; ".join(f"{where}: {detail.splitlines()[0]}" for where, detail in shown)
    return (
        f"The upload could not be read as {choice.label} ({reasons}). Check that the files are complete and in "
        "that format, or choose another format."
    )


def _failure_notes(
    choice: ChoosableInterface, failures: Sequence[tuple[str, str]], opened: Sequence[_Opened]
) -> list[str]:
    if choice.source == "folder_path":  # folders tried on the way down are not problems
        read = {item.source for item in opened}
        failures = [(where, detail) for where, detail in failures if where.split(" (stream")[0] in read]
    return [
        f"{where} could not be read as {choice.label} and was left out ({detail.splitlines()[0]})."
        for where, detail in failures
    ]


# --- converting -----------------------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """The chosen streams' files under `upload/`, and beside it what the converter needs to open them."""
    check_choice(detection, stream_ids)
    streams = [detection.stream(stream_id) for stream_id in stream_ids]
    choice = {
        "interface": detection.file_metadata["interface"],
        "options": detection.file_metadata.get("interface_options", {}),
        "streams": {stream.id: _parse_stream_id(stream.id) for stream in streams},
    }
    files = sorted({name for stream in streams for name in stream.files})
    return _upload_view(root, files, choice=choice)


@contextmanager
def _upload_view(root: Path, files: Sequence[str], *, choice: Mapping[str, Any] | None = None) -> Iterator[Path]:
    names = {f"{_UPLOAD_FOLDER}/{name}": name for name in files}
    contents: dict[str, bytes] = {}
    if choice is not None:
        names[_CHOICE_FILE] = _CHOICE_FILE
        contents[_CHOICE_FILE] = json.dumps(choice).encode("utf-8")
    with reader_view(root, names, contents=contents) as view:
        (view / _UPLOAD_FOLDER).mkdir(exist_ok=True)
        yield view


def _parse_stream_id(stream_id: str) -> dict[str, str | None]:
    source, separator, stream = stream_id.partition("::")
    return {"source": source, "stream": stream if separator else None}


def _build_converter(choice: ChoosableInterface, folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream; with several, each gets its own metadata key and series name."""
    from neuroconv import ConverterPipe

    saved = json.loads((folder / _CHOICE_FILE).read_text(encoding="utf-8"))
    several = len(stream_ids) > 1
    interfaces: dict[str, Any] = {}
    series: dict[str, str] = {}
    for number, stream_id in enumerate(stream_ids):
        where = saved["streams"][stream_id]
        interface = _interface(choice, folder / _UPLOAD_FOLDER / where["source"], where["stream"], saved["options"])
        if several:
            interface.metadata_key = f"stream{number}"
            series[interface.metadata_key] = "ElectricalSeries" + _camel(where["stream"] or where["source"])
        interfaces[stream_id] = interface

    class ChosenInterfaces(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            registry = metadata.get("Ecephys", {}).get("ElectricalSeries", {})
            for key, name in series.items():
                if isinstance(registry, dict) and key in registry:
                    registry[key]["name"] = name
            return metadata

    converter: NWBConverter = ChosenInterfaces(data_interfaces=interfaces)
    return converter


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word)


def _supported_format(choice: ChoosableInterface) -> SupportedFormat:
    return SupportedFormat(
        key=choice.key,
        label=choice.label,
        needs=choice.needs,
        claims=lambda files: False,  # reachable only by the user's choice
        inspect=partial(_inspect_chosen, choice),
        open_for_reading=_open_for_reading,
        build_converter=partial(_build_converter, choice),
        check_choice=check_choice,
        facts=choice_facts,
    )


def _inspect_chosen(choice: ChoosableInterface, root: Path, files: Sequence[str]) -> Detection:
    return _inspect_as(choice, root, files, options={})


# --- what neuroconv's interfaces are ----------------------------------------------------------------


def _parameters(interface_class: type) -> dict[str, inspect.Parameter]:
    """The constructor's named parameters (neuroconv's dispatching interfaces take them in `__new__`)."""
    found: dict[str, inspect.Parameter] = {}
    for method in (interface_class.__init__, interface_class.__new__):  # type: ignore[misc]  # read, never called
        try:
            signature = inspect.signature(method)
        except (TypeError, ValueError):
            continue
        for name, parameter in signature.parameters.items():
            if parameter.kind not in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD) and name not in ("self", "cls"):
                found.setdefault(name, parameter)
    return found


def _missing_packages(interface_class: type) -> tuple[str, ...]:
    """Packages neuroconv's extras list for this interface (and those it needs at run time), not installed."""
    from packaging.requirements import Requirement

    extras = {interface_class.__module__.split(".")[3]} if interface_class.__module__.count(".") >= 3 else set()
    extras.add(str(getattr(interface_class, "display_name", "")).split(" ")[0].lower())
    wanted: list[str] = list(_RUN_TIME_PACKAGES.get(interface_class.__name__, ()))
    for text in _neuroconv_requirements():
        requirement = Requirement(text)
        if requirement.name == "neuroconv" or requirement.marker is None:
            continue
        if any(requirement.marker.evaluate({"extra": extra}) for extra in extras):
            wanted.append(requirement.name)
    return tuple(name for name in dict.fromkeys(wanted) if not _installed(name))


@cache
def _neuroconv_requirements() -> tuple[str, ...]:
    return tuple(importlib.metadata.requires("neuroconv") or ())


def _installed(package: str) -> bool:
    try:
        importlib.metadata.distribution(package)
    except importlib.metadata.PackageNotFoundError:
        return False
    return True


__all__ = [
    "CHOICE_PREFIX",
    "ChoosableInterface",
    "check_choice",
    "choice_facts",
    "choosable_format",
    "choosable_formats",
    "choosable_interfaces",
    "detect_as",
]

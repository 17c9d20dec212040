"""Open Ephys legacy format ("Open Ephys format", GUI up to 0.6): one `.continuous` file per channel.

A recording as the GUI saves it::

    Record Node 101/                        (GUI 0.4 and older: the session folder itself)
        settings.xml                        the signal chain; its <INFO> holds the GUI version
        structure.openephys                 (GUI <= 0.5: Continuous_Data.openephys) lists each file
        100_CH1.continuous ...              GUI <= 0.4: <processor>_<CH|AUX|ADC><n>
        114_1.continuous ...                GUI 0.5:    <processor>_<n> (the kind is in the header)
        100_example-data_CH1.continuous     GUI 0.6:    <processor>_<stream>_<kind><n>
        100_CH1_2.continuous ...            experiment 2 (acquisition restarted), and so on
        *.events, *.spikes, *.timestamps    not converted

Each `.continuous` file is a 1,024-byte text header (sampling rate, gain, channel name, creation
date) and then records of a fixed size: 1,024 samples of one channel with their timestamp. A
stream here is one processor's neural (CH) channels in one experiment; one NWB file holds one
experiment, as each has its own start (streams of two experiments are refused together).

neo's reader finds the experiment and the channel in the file names, and misreads GUI 0.5's names
(it takes "114_17.continuous" for experiment 17 of a channel without a name, then fails); it also
puts every processor's channels in one stream and parses `.spikes` and `.events` files it does not
need. So readers get a view (`base.reader_view`) with one folder per chosen stream holding that
stream's files under names neo reads right (`<processor>_CH<n>.continuous`), and nothing else.

neo's reader checks every record's timestamp when it opens a folder, which reads the whole of each
file. Detection therefore checks sizes and the first and last records itself, and confirms with
neuroconv's interface on a view of excerpts (each file's header and first records), so it stays
fast whatever the size of the recording.
"""

from __future__ import annotations

import re
import traceback
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

import numpy as np

from ..errors import RecordingProblem
from .base import (
    Detection,
    Stream,
    SupportedFormat,
    problems_message,
    reader_view,
    refuse_mixed_groups,
    short_reason,
    some_names,
    stream_facts,
)

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "openephys_legacy"
_LABEL = "Open Ephys (legacy format)"
_SUFFIX = ".continuous"
_HEADER_BYTES = 1024
_RECORD_SAMPLES = 1024
# One record: int64 timestamp, uint16 sample count, uint16 recording number, 1,024 big-endian int16
# samples, 10-byte marker (as neo's reader reads it).
_RECORD = np.dtype(
    [
        ("timestamp", "<i8"),
        ("samples_in_record", "<u2"),
        ("recording", "<u2"),
        ("samples", ">i2", _RECORD_SAMPLES),
        ("marker", "u1", 10),
    ]
)
_RECORD_BYTES = _RECORD.itemsize  # 2,070
_MARKER = bytes(range(9)) + b"\xff"
# Records copied into the excerpts detection hands the reader: two give neo a timestamp step to check.
_EXCERPT_RECORDS = 2
_NAME = re.compile(r"(?P<processor>\d+)_(?P<rest>.+)")
_CHANNEL = re.compile(r"(?P<kind>[A-Za-z]*)(?P<number>\d+)")
_NEURAL_KIND = "CH"
_KIND_WORDS = {"AUX": "auxiliary (AUX)", "ADC": "analog input (ADC)"}
# Structure files list each experiment's files: structure.openephys (GUI 0.6) or Continuous_Data.openephys.
_STRUCTURE = re.compile(r"(structure|Continuous_Data)(?:_(?P<experiment>\d+))?\.openephys")
_SETTINGS = "settings.xml"
_MAX_XML_BYTES = 32 << 20
# How the GUI writes date_created: "03-Apr-2025 13:38:45" (GUI 0.5+) or "15-Jun-2016 103528" (older).
_DATE_FORMATS = ("%d-%b-%Y %H:%M:%S", "%d-%b-%Y %H%M%S")
_DEVICE_KEY = "open_ephys"


@dataclass(frozen=True)
class _Channel:
    """One .continuous file, as its name, header and first and last records say."""

    file: str  # relative to the upload root
    processor: str  # e.g. "100"
    stream_name: str  # GUI 0.6's stream in the file name, e.g. "example-data"; "" before
    experiment: int
    kind: str  # "CH" (electrodes), "AUX", "ADC"
    number: int  # from the file name
    name: str  # in the reader's view, e.g. "CH1"; see `_group`
    header_name: str  # as the header names the channel (e.g. "CH0"), "" when it names another kind or none
    header: dict[str, str]
    sampling_rate_hz: float
    records: int
    first_timestamp: int
    last_timestamp: int
    recordings: tuple[int, int]  # the recording numbers of the first and last records
    size_bytes: int

    @property
    def source(self) -> str:
        """The processor (and GUI 0.6 stream) whose channels form one stream."""
        return f"{self.processor}_{self.stream_name}" if self.stream_name else self.processor


def _stream_id(experiment: int, source: str) -> str:
    return f"experiment{experiment}/{source}"


def _parse_stream_id(stream_id: str) -> tuple[int, str]:
    match = re.fullmatch(r"experiment(?P<number>\d+)/(?P<source>[^/]+)", stream_id)
    if match is None:
        raise KeyError(f"not an Open Ephys legacy stream id: {stream_id!r}")
    return int(match["number"]), match["source"]


def _experiment_group(experiment: int) -> str:
    return f"experiment {experiment}"


# --- claim and inspection ------------------------------------------------------------------------


def _claims(files: Sequence[str]) -> bool:
    return any(name.endswith(_SUFFIX) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    node, channels = _read_channels(root, files)
    present = set(files)
    settings = _join(node, _SETTINGS) if _join(node, _SETTINGS) in present else ""
    chain = _read_settings(root / settings) if settings else _Settings("", {})
    _check_structure_files(root, node, files, channels)
    by_stream = _group(channels)
    neural = {key: members for key, members in by_stream.items() if members[0].kind == _NEURAL_KIND}
    if not neural:
        raise RecordingProblem(
            f"The upload's .continuous files ({some_names(sorted(channel.file for channel in channels))}) hold no "
            "electrode (CH) channels, only auxiliary or analog inputs, which are not converted. Upload the files "
            "of the electrode channels (e.g. 100_CH1.continuous)."
        )
    descriptions = _stream_descriptions(root, node, files, chain, {channel.source for channel in channels})
    streams: list[Stream] = []
    notes: list[str] = []
    start_times: dict[int, datetime | None] = {}
    several_experiments = len({experiment for experiment, _ in neural}) > 1
    for (experiment, source), members in sorted(neural.items()):
        start_times.setdefault(experiment, _start_time(members[0].header))
        stream_id = _stream_id(experiment, source)
        duration_s, stream_notes = _timing(members)
        notes.extend(stream_notes)
        stream_files = (*(channel.file for channel in members), *([settings] if settings else []))
        streams.append(
            Stream(
                id=stream_id,
                label=f"{descriptions[source]} ({len(members)} channels), experiment {experiment}",
                channel_count=len(members),
                sampling_rate_hz=members[0].sampling_rate_hz,
                duration_s=duration_s,
                size_bytes=sum((root / name).stat().st_size for name in stream_files),
                files=stream_files,
                kind="neural",  # only the electrode (CH) channels are streams
                group=_experiment_group(experiment) if several_experiments else "",
            )
        )
    experiments = sorted(start_times)
    first = experiments[0]
    start = start_times[first]
    # Only the experiment converted by default is confirmed (~1 ms a file): the others' files had the
    # same checks of names, headers and sizes, and many experiments would add up.
    _confirm_with_reader(root, {key: members for key, members in neural.items() if key[0] == first})
    default_streams = tuple(stream.id for stream in streams if _parse_stream_id(stream.id)[0] == first)
    defaults = [stream for stream in streams if stream.id in default_streams]
    notes = [*_notes(by_stream, experiments, node, files, descriptions), *notes]
    if start is None:
        notes.append(
            f"The files of experiment {first} do not say when it started (no readable creation date); you will be "
            "asked for the start time."
        )
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=tuple(streams),
        default_streams=default_streams,
        file_metadata={
            "session_start_time": start.isoformat() if start else None,
            "device": "; ".join(dict.fromkeys(descriptions[_parse_stream_id(stream.id)[1]] for stream in defaults)),
            "probe": "",
            "channel_count": sum(stream.channel_count for stream in defaults),
            "sampling_rate_hz": max(stream.sampling_rate_hz for stream in defaults),
            "duration_s": max(stream.duration_s for stream in defaults),
            "size_bytes": sum(stream.size_bytes for stream in defaults),
            "gui_version": chain.version,
            # Each experiment has its own start: converting another one means using its start time.
            "experiment_start_times": {
                str(experiment): moment.isoformat() if moment else None for experiment, moment in start_times.items()
            },
            # Each stream's source, for another choice than the defaults (`stream_facts`).
            "stream_devices": {stream.id: descriptions[_parse_stream_id(stream.id)[1]] for stream in streams},
        },
        notes=tuple(notes),
    )


def _read_channels(root: Path, files: Sequence[str]) -> tuple[str, list[_Channel]]:
    """Every .continuous file checked (name, header, size, first and last records), all in one folder.

    Returns the folder (relative to the root, "" for the root) and the channels; raises
    `RecordingProblem` naming every file that is damaged or incomplete.
    """
    continuous = [name for name in files if name.endswith(_SUFFIX)]
    if not continuous:
        raise RecordingProblem(
            "The upload has no .continuous files, which hold the signals of an Open Ephys recording in the legacy "
            "format (one file per channel, e.g. 100_CH1.continuous). Upload the whole Record Node folder."
        )
    folders = sorted({name.rpartition("/")[0] for name in continuous})
    if len(folders) > 1:
        raise RecordingProblem(
            "The upload holds Open Ephys .continuous files in several folders "
            f"({', '.join(folder or 'the top folder' for folder in folders)}), that is several recordings or Record "
            "Nodes. Upload one Record Node folder at a time."
        )
    problems: list[str] = []
    channels = [channel for name in continuous if (channel := _read_channel(root, name, problems)) is not None]
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    return folders[0], channels


def _read_channel(root: Path, name: str, problems: list[str]) -> _Channel | None:
    stem = name.rpartition("/")[2][: -len(_SUFFIX)]
    parsed = _parse_name(stem)
    if parsed is None:
        problems.append(
            f"{name} is not named as Open Ephys names its files (<processor>_CH<n>.continuous, e.g. "
            "100_CH1.continuous), and the reader relies on those names. Upload the files with the names Open Ephys "
            "gave them."
        )
        return None
    processor, stream_name, experiment, kind, number = parsed
    path = root / name
    size = path.stat().st_size
    if size < _HEADER_BYTES:
        problems.append(
            f"{name} is {size:,} bytes, too short to hold even the 1,024-byte header every .continuous file starts "
            "with: the file is incomplete. Upload it again."
        )
        return None
    with path.open("rb") as handle:
        header = _parse_header(handle.read(_HEADER_BYTES))
        records, remainder = divmod(size - _HEADER_BYTES, _RECORD_BYTES)
        if header is None:
            problems.append(
                f"{name} is not an Open Ephys .continuous file (its first 1,024 bytes are not the header Open Ephys "
                "writes). It may be damaged; upload the original file."
            )
            return None
        if remainder:
            problems.append(
                f"{name} is {size:,} bytes, which is not its 1,024-byte header and a whole number of "
                f"{_RECORD_BYTES:,}-byte records (each holds {_RECORD_SAMPLES:,} samples): the file is incomplete, "
                "probably a cut-off upload or copy. Upload it again."
            )
            return None
        if records == 0:
            problems.append(f"{name} holds no samples (only its header). Upload the complete recording again.")
            return None
        first = np.frombuffer(handle.read(_RECORD_BYTES), dtype=_RECORD)[0]
        handle.seek(_HEADER_BYTES + (records - 1) * _RECORD_BYTES)
        last = np.frombuffer(handle.read(_RECORD_BYTES), dtype=_RECORD)[0]
    if bytes(first["marker"]) != _MARKER or bytes(last["marker"]) != _MARKER:
        problems.append(
            f"{name} is damaged: its records do not end with the marker Open Ephys writes after each one. Upload "
            "the original file again."
        )
        return None
    try:
        rate = float(header.get("sampleRate", ""))
    except ValueError:
        rate = 0.0
    if rate <= 0:
        problems.append(f"{name} does not give a valid sampling rate in its header. Upload the original file again.")
        return None
    header_kind, header_number = _channel_in_header(header)
    kind = kind or header_kind or _NEURAL_KIND
    return _Channel(
        file=name,
        processor=processor,
        stream_name=stream_name,
        experiment=experiment,
        kind=kind,
        number=number,
        name=f"{kind}{number}",
        header_name=f"{kind}{header_number}" if header_kind == kind and header_number is not None else "",
        header=header,
        sampling_rate_hz=rate,
        records=records,
        first_timestamp=int(first["timestamp"]),
        last_timestamp=int(last["timestamp"]),
        recordings=(int(first["recording"]), int(last["recording"])),
        size_bytes=size,
    )


def _parse_name(stem: str) -> tuple[str, str, int, str, int] | None:
    """(processor, GUI 0.6 stream name, experiment, kind, number) from a file name without its suffix.

    "100_CH1" (GUI <= 0.4), "114_1" (GUI 0.5: no kind), "100_example-data_CH1" (GUI 0.6); a last
    part "_<n>" after the channel is the experiment ("100_CH1_2").
    """
    match = _NAME.fullmatch(stem)
    if match is None:
        return None
    parts = match["rest"].split("_")
    experiment = 1
    if len(parts) >= 2 and parts[-1].isdigit():
        experiment = int(parts.pop())
    channel = _CHANNEL.fullmatch(parts[-1])
    if channel is None or experiment < 1:
        return None
    return match["processor"], "_".join(parts[:-1]), experiment, channel["kind"].upper(), int(channel["number"])


def _parse_header(raw: bytes) -> dict[str, str] | None:
    """The header's `header.key = value;` pairs (quotes removed), as neo reads them; None if not a header."""
    text = raw.replace(b"\n", b"").replace(b"header.", b"").decode("latin-1")
    header: dict[str, str] = {}
    for pair in text.split(";"):
        key, separator, value = pair.partition(" = ")
        if separator:
            header[key.strip()] = value.strip().strip("'")
    if "Open Ephys Data Format" not in header.get("format", "") or header.get("header_bytes", "1024") != "1024":
        return None
    return header


def _channel_in_header(header: Mapping[str, str]) -> tuple[str, int | None]:
    match = _CHANNEL.fullmatch(header.get("channel", "").strip())
    if match is None:
        return "", None
    return match["kind"].upper(), int(match["number"])


def _group(channels: Sequence[_Channel]) -> dict[tuple[int, str], list[_Channel]]:
    """Channels by (experiment, source), each kind (CH, AUX, ADC) apart, in file-number order.

    Channels keep the names the headers give them when those name each channel once: GUI 0.5 numbers
    its files from 1 ("114_1.continuous") but names the channels from CH0, as its display did.
    """
    grouped: dict[tuple[int, str], list[_Channel]] = {}
    for channel in channels:
        source = channel.source if channel.kind == _NEURAL_KIND else f"{channel.source}#{channel.kind}"
        grouped.setdefault((channel.experiment, source), []).append(channel)
    for key, members in grouped.items():
        members.sort(key=lambda channel: channel.number)
        header_names = [channel.header_name for channel in members]
        if all(header_names) and len(set(header_names)) == len(header_names):
            grouped[key] = [replace(channel, name=channel.header_name) for channel in members]
    return grouped


def _timing(members: Sequence[_Channel]) -> tuple[float, list[str]]:
    """The stream's duration as neo computes it (the time all channels cover), and notes on gaps."""
    rates = sorted({channel.sampling_rate_hz for channel in members})
    if len(rates) > 1:
        raise RecordingProblem(
            f"The channels of one processor have different sampling rates ({', '.join(f'{rate:g}' for rate in rates)} "
            f"Hz) in their headers ({some_names([channel.file for channel in members])}): some files may come from "
            "another recording. Upload the Record Node folder as Open Ephys saved it."
        )
    rate = rates[0]
    start = max(channel.first_timestamp for channel in members)
    stop = min(channel.last_timestamp for channel in members) + _RECORD_SAMPLES
    notes: list[str] = []
    if stop <= start:
        raise RecordingProblem(
            f"The channels of processor {members[0].processor} do not cover a common stretch of time "
            f"({some_names([channel.file for channel in members])}): the files come from different recordings. "
            "Upload the Record Node folder as Open Ephys saved it."
        )
    if len({(channel.first_timestamp, channel.last_timestamp) for channel in members}) > 1:
        notes.append(
            f"The channels of processor {members[0].processor} do not all start and stop at the same time; only the "
            "time they all cover is converted."
        )
    if any(
        channel.records * _RECORD_SAMPLES != channel.last_timestamp + _RECORD_SAMPLES - channel.first_timestamp
        for channel in members
    ):
        paused = any(channel.recordings[0] != channel.recordings[1] for channel in members)
        notes.append(
            f"The recording of processor {members[0].processor} has gaps"
            + (" (recording was stopped and restarted during the experiment)" if paused else " (samples were lost)")
            + ": they are converted as one series with the gaps filled with zeros, and conversion is slower."
        )
    return (stop - start) / rate, notes


@dataclass(frozen=True)
class _Settings:
    version: str  # the GUI's version, e.g. "0.6.7"
    processors: dict[str, str]  # node id -> processor name, e.g. "100" -> "File Reader"


def _read_settings(path: Path) -> _Settings:
    """What settings.xml tells about the signal chain; empty when it cannot be read (it is optional)."""
    root = _parse_xml(path)
    if root is None:
        return _Settings("", {})
    processors: dict[str, str] = {}
    for element in root.iter("PROCESSOR"):
        node_id = element.get("NodeId") or element.get("nodeId")
        name = element.get("pluginName") or (element.get("name") or "").rpartition("/")[2]
        if node_id and name:
            processors.setdefault(node_id, name)
    return _Settings(
        version=(root.findtext("INFO/VERSION") or "").strip(),
        processors=processors,
    )


def _parse_xml(path: Path) -> ElementTree.Element | None:
    if not path.is_file() or path.stat().st_size > _MAX_XML_BYTES:
        return None
    raw = path.read_bytes()
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:  # the GUI never writes one; keep entity tricks away
        return None
    try:
        return ElementTree.fromstring(raw)
    except ElementTree.ParseError:
        return None


def _structure_files(node: str, files: Sequence[str]) -> dict[int, str]:
    """Each experiment's structure file, by experiment number (structure.openephys preferred)."""
    found: dict[int, str] = {}
    for name in sorted(files, key=lambda name: not name.rpartition("/")[2].startswith("structure")):
        folder, _, base = name.rpartition("/")
        match = _STRUCTURE.fullmatch(base)
        if match and folder == node:
            found.setdefault(int(match["experiment"] or 1), name)
    return found


def _check_structure_files(root: Path, node: str, files: Sequence[str], channels: Sequence[_Channel]) -> None:
    """The files each experiment's structure file lists must all be there: a partial upload is refused."""
    present = {base for folder, _, base in (name.rpartition("/") for name in files) if folder == node}
    experiments = {channel.experiment for channel in channels}
    for experiment, structure in _structure_files(node, files).items():
        if experiment not in experiments:
            continue
        parsed = _parse_xml(root / structure)
        if parsed is None:
            continue  # the reader does not need it; a damaged one only costs the stream names
        listed = [element.get("filename", "") for element in parsed.iter("CHANNEL") if element.get("filename")]
        missing = sorted(dict.fromkeys(name for name in listed if name not in present))
        if missing:
            raise RecordingProblem(
                f"{structure} lists {len(missing)} .continuous file{'s' if len(missing) > 1 else ''} that "
                f"{'are' if len(missing) > 1 else 'is'} not in the upload ({some_names(missing)}). Upload the whole "
                "Record Node folder."
            )


def _stream_descriptions(
    root: Path, node: str, files: Sequence[str], chain: _Settings, sources: Iterable[str]
) -> dict[str, str]:
    """Words for each source: "File Reader 100, stream example_data" (GUI 0.6's structure file), the
    processor's name in settings.xml ("File Reader 114"), or "Processor 114" when neither says."""
    from_structure: dict[str, str] = {}
    structure = _structure_files(node, files).get(1)
    parsed = _parse_xml(root / structure) if structure else None
    for stream in parsed.iter("STREAM") if parsed is not None else ():
        processor = stream.get("source_node_id", "").partition(".")[0]
        filenames = [channel.get("filename", "") for channel in stream.iter("CHANNEL")]
        name_parts = _parse_name(filenames[0].removesuffix(_SUFFIX)) if filenames else None
        if processor and name_parts is not None:
            source = f"{processor}_{name_parts[1]}" if name_parts[1] else processor
            name = stream.get("source_node_name") or chain.processors.get(processor) or "Processor"
            stream_name = stream.get("name")
            from_structure[source] = f"{name} {processor}" + (f", stream {stream_name}" if stream_name else "")
    words: dict[str, str] = {}
    for source in sources:
        processor, _, stream_name = source.partition("_")
        name = chain.processors.get(processor, "Processor")
        words[source] = from_structure.get(source) or (
            f"{name} {processor}" + (f", stream {stream_name}" if stream_name else "")
        )
    return words


def _start_time(header: Mapping[str, str]) -> datetime | None:
    """When the experiment's files were created (a .continuous header's date), which is when it started."""
    text = header.get("date_created", "").strip()
    for pattern in _DATE_FORMATS:
        try:
            return datetime.strptime(text, pattern)
        except ValueError:
            continue
    return None


def _notes(
    by_stream: Mapping[tuple[int, str], Sequence[_Channel]],
    experiments: Sequence[int],
    node: str,
    files: Sequence[str],
    descriptions: Mapping[str, str],
) -> list[str]:
    notes: list[str] = []
    if len(experiments) > 1:
        notes.append(
            f"The folder holds {len(experiments)} experiments ({', '.join(map(str, experiments))}; Open Ephys starts a "
            f"new one each time acquisition is restarted). Experiment {experiments[0]} is converted by default; "
            "another can be chosen instead (one experiment per NWB file, as each has its own start time)."
        )
    other_kinds = sorted(
        {
            f"{_KIND_WORDS.get(members[0].kind, members[0].kind)} channels of {descriptions[members[0].source]}"
            for members in by_stream.values()
            if members[0].kind != _NEURAL_KIND
        }
    )
    if other_kinds:
        notes.append(f"Not converted, as they are not brain signals: the {'; the '.join(other_kinds)}.")
    in_node = [name for name in files if name.rpartition("/")[0] == node]
    if any(name.endswith((".spikes", ".events")) for name in in_node):
        notes.append("Events (TTL, messages) and spikes detected by Open Ephys are not converted, only the signals.")
    outside = [name for name in files if name.rpartition("/")[0] != node]
    if outside:
        notes.append(f"These files are not part of the recording and were left out: {some_names(outside)}.")
    return notes


def _confirm_with_reader(root: Path, streams: Mapping[tuple[int, str], Sequence[_Channel]]) -> None:
    """Open each stream with neuroconv's interface, on excerpts: each file's header and first records.

    The excerpts are what the reader parses first (names, headers, record layout), without the
    whole-file timestamp scan neo does on opening; sizes and last records were checked already.
    """
    # Imported here: neuroconv costs ~1 s to import, and only detection and conversion need it.
    from neuroconv.datainterfaces import OpenEphysLegacyRecordingInterface

    contents: dict[str, bytes] = {}
    names: dict[str, str] = {}
    for (experiment, source), members in streams.items():
        for channel in members:
            view_name = f"{experiment}/{_view_file(source, channel)}"
            names[view_name] = channel.file
            with (root / channel.file).open("rb") as handle:
                contents[view_name] = handle.read(_HEADER_BYTES + _EXCERPT_RECORDS * _RECORD_BYTES)
    with reader_view(root, names, contents=contents) as view:
        for (experiment, source), members in streams.items():
            try:
                recording = OpenEphysLegacyRecordingInterface(
                    folder_path=view / str(experiment) / source
                ).recording_extractor
                count = int(recording.get_num_channels())
            except Exception as error:  # any reader failure is a property of the user's files
                raise RecordingProblem(
                    f"{members[0].file} and the other .continuous files of processor {members[0].processor} could not "
                    f"be read as an Open Ephys recording ({short_reason(error)}). Check that the Record Node folder "
                    "is complete and exactly as Open Ephys saved it, then upload it again.",
                    detail=traceback.format_exc(),
                ) from error
            if count != len(members):
                raise RecordingProblem(
                    f"The reader found {count} channels in the .continuous files of processor {members[0].processor}, "
                    f"not the {len(members)} uploaded ({some_names([channel.file for channel in members])}). Upload "
                    "the Record Node folder as Open Ephys saved it.",
                )


def _view_file(source: str, channel: _Channel) -> str:
    """The channel's file in a reader view: its stream's folder, a name neo parses right."""
    return f"{source}/{channel.processor}_{channel.name}{_SUFFIX}"


# --- choosing streams ----------------------------------------------------------------------------


def _check_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """One experiment per NWB file."""
    refuse_mixed_groups(
        [_experiment_group(_parse_stream_id(stream_id)[0]) for stream_id in stream_ids],
        part="experiment",
        started="Open Ephys started each experiment separately (a new one each time acquisition is restarted)",
    )


def _facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The facts of the chosen streams, with the start time of their experiment."""
    facts = stream_facts(detection, stream_ids)
    experiment = _parse_stream_id(stream_ids[0])[0]
    facts["session_start_time"] = detection.file_metadata.get("experiment_start_times", {}).get(str(experiment))
    return facts


# --- reading and converting ----------------------------------------------------------------------


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


@contextmanager
def _view(root: Path, streams: Mapping[str, Sequence[_Channel]], settings: str) -> Iterator[Path]:
    """One folder per chosen stream (named after its source) holding its files, and settings.xml."""
    names = {_view_file(source, channel): channel.file for source, members in streams.items() for channel in members}
    if settings:
        names[_SETTINGS] = settings
    with reader_view(root, names) as view:
        yield view


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    _check_choice(detection, stream_ids)
    chosen = [_parse_stream_id(stream_id) for stream_id in stream_ids]
    # Read again from the files detection checked (the conversion re-checks their sizes first).
    files = sorted({name for stream_id in stream_ids for name in detection.stream(stream_id).files})
    _, channels = _read_channels(root, files)
    grouped = _group(channels)
    streams = {source: grouped[(experiment, source)] for experiment, source in chosen}
    settings = next((name for name in files if name.rpartition("/")[2] == _SETTINGS), "")
    return _view(root, streams, settings)


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream in a ConverterPipe, keyed by stream id, each with its own series and
    electrode group (neuroconv would name every series "ElectricalSeries"); the start time is read from
    the files' creation date with its time (neuroconv keeps only the date of GUI 0.5+ dates)."""
    from neuroconv import ConverterPipe
    from neuroconv.datainterfaces import OpenEphysLegacyRecordingInterface

    class LegacyStream(OpenEphysLegacyRecordingInterface):  # type: ignore[misc]  # neuroconv ships without hints
        def get_metadata(self, *, use_new_metadata_format: bool = True) -> Any:
            with warnings.catch_warnings():  # about the date it cannot read in full; replaced below
                warnings.filterwarnings("ignore", message="The timestamp for starting time")
                return super().get_metadata(use_new_metadata_format=use_new_metadata_format)

    chain = _read_settings(folder / _SETTINGS)
    interfaces: dict[str, Any] = {}
    series: dict[str, tuple[str, str]] = {}  # stream id -> (series name, source words)
    start_time: datetime | None = None
    for number, stream_id in enumerate(stream_ids):
        _, source = _parse_stream_id(stream_id)
        interface = LegacyStream(folder_path=folder / source, metadata_key=f"stream{number}")
        words = _stream_words(source, chain)
        name = _camel(words)
        interface.recording_extractor.set_property(
            "group_name", [name] * interface.recording_extractor.get_num_channels()
        )
        interfaces[stream_id] = interface
        series[stream_id] = (f"ElectricalSeries{name}", words)
        if start_time is None:
            first = min((folder / source).iterdir())
            with first.open("rb") as handle:
                header = _parse_header(handle.read(_HEADER_BYTES)) or {}
            start_time = _start_time(header)
    device = {
        "name": "OpenEphys",
        "description": f"Recorded with the Open Ephys GUI{' ' + chain.version if chain.version else ''} in its legacy "
        "format; the files do not name the amplifier or the electrodes.",
    }

    class OpenEphysLegacyStreams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            metadata["NWBFile"].pop("session_start_time", None)
            if start_time is not None:
                metadata["NWBFile"]["session_start_time"] = start_time
            metadata.setdefault("Devices", {})[_DEVICE_KEY] = device
            groups = metadata["Ecephys"].setdefault("ElectrodeGroups", {})
            for stream_id, interface in self.data_interface_objects.items():
                name, words = series[stream_id]
                metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].update(
                    name=name, description=f"{words}: signals recorded by Open Ephys (legacy format)."
                )
                group = name.removeprefix("ElectricalSeries")
                groups.setdefault(group, {"name": group})
                groups[group].setdefault("description", f"Channels of {words}, recorded by Open Ephys.")
                groups[group].setdefault("device_metadata_key", _DEVICE_KEY)
            return metadata

    converter: NWBConverter = OpenEphysLegacyStreams(data_interfaces=interfaces)
    return converter


def _stream_words(source: str, chain: _Settings) -> str:
    """Short words for a series name: GUI 0.6's stream ("example-data"), else the processor ("File Reader 114")."""
    processor, _, stream_name = source.partition("_")
    if stream_name:
        return stream_name
    return f"{chain.processors.get(processor, 'Processor')} {processor}"


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word)


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "an Open Ephys recording in the legacy format: the whole Record Node (or session) folder with its "
        ".continuous files (one per channel, e.g. 100_CH1.continuous) and settings.xml"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    check_choice=_check_choice,
    facts=_facts,
)

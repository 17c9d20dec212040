"""Open Ephys binary format (GUI 0.5 and later): `structure.oebin` + `continuous.dat` per stream.

A recording as the GUI saves it::

    Record Node 101/                      a node (older GUIs: the session folder itself)
        settings.xml                      experiment 1's settings: start time, probes
        settings_3.xml                    experiment 3's settings
        experiment1/recording1/
            structure.oebin               JSON: every stream's folder, rate and channels
            continuous/<stream>/continuous.dat      int16, channels interleaved
            continuous/<stream>/sample_numbers.npy  (GUI 0.5: timestamps.npy)
            events/..., spikes/...        not converted

The upload may hold the node folder, its parent (a session with several nodes) or only the node's
contents. A stream here is one continuous folder of one experiment of one node, across that
experiment's recordings (neo reads those as the segments of one block). One NWB file holds one
experiment: each experiment was started separately and has its own start time, so streams of two
experiments are refused together (a stream's group names its experiment when there are several).

Readers get a view (`base.reader_view`) laid out like the original but holding only the chosen
experiment and streams: `structure.oebin` is rewritten to list just those streams and no events or
spikes (which neo would otherwise parse, slowly and fallibly, for nothing), and `settings.xml`
stands for the experiment's own settings file, because neuroconv takes the start time from the
one file named settings.xml it finds, which for later experiments is the first experiment's.

Neuropixels probes: spikeinterface reads each probe's geometry (electrode positions, model) from the
settings file while opening the signals. When that file describes a probe in a way the probe reader
cannot parse, the signals are opened and converted without the geometry, and detection says so in a
note rather than refusing a complete recording over its electrode positions.
"""

from __future__ import annotations

import json
import re
import threading
import traceback
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from .base import (
    Detection,
    Stream,
    SupportedFormat,
    in_words,
    problems_message,
    reader_view,
    refuse_mixed_groups,
    short_reason,
    some_names,
    stream_facts,
)

if TYPE_CHECKING:
    from neuroconv import NWBConverter
    from neuroconv.basedatainterface import BaseDataInterface

_KEY = "openephys_binary"
_LABEL = "Open Ephys binary"
_OEBIN = "structure.oebin"
_SETTINGS = "settings.xml"
_DATA = "continuous.dat"
# neo reads sample_numbers.npy (GUI 0.6+) when present, else timestamps.npy (GUI 0.5).
_SAMPLE_FILES = ("sample_numbers.npy", "timestamps.npy")
_EXPERIMENT = re.compile(r"experiment(\d+)")
_RECORDING = re.compile(r"recording(\d+)")
# A structure.oebin is tens to hundreds of kB; a much larger file is not one, so never read it whole.
_MAX_OEBIN_BYTES = 32 << 20
# <INFO><DATE> is near the top of settings.xml, which can be megabytes long.
_SETTINGS_HEAD_BYTES = 16 << 10
_DATE_ELEMENT = re.compile(rb"<DATE>([^<]*)</DATE>")
# How the GUI writes the date ("22 Mar 2021 20:05:30"), and how neuroconv parses it.
_DATE_FORMAT = "%d %b %Y %H:%M:%S"
# The node folder's name in reader views when the upload root is the node itself.
_UNNAMED_NODE = "Record Node"
# The device of streams without a probe, in neuroconv's metadata.
_DEVICE_KEY = "open_ephys"


@dataclass(frozen=True)
class _Continuous:
    """One continuous stream of one recording, as structure.oebin and the files say."""

    folder: str  # the stream's folder under continuous/, e.g. "Neuropix-PXI-100.ProbeB"
    entry: dict[str, Any]  # its structure.oebin entry, as written
    channel_names: tuple[str, ...]
    data: str  # continuous.dat, relative to the upload root
    sample_numbers: str  # sample_numbers.npy or timestamps.npy, relative to the upload root


@dataclass(frozen=True)
class _Recording:
    folder: str  # relative to the upload root, e.g. "Record Node 101/experiment1/recording1"
    oebin: str
    structure: dict[str, Any]  # structure.oebin, parsed
    streams: dict[str, _Continuous]  # by stream folder

    @property
    def name(self) -> str:
        return self.folder.rpartition("/")[2]


@dataclass(frozen=True)
class _Experiment:
    node: str  # the node folder relative to the upload root ("" when the root is the node)
    number: int
    settings: str  # the settings file this experiment was recorded with
    start_time: datetime | None
    recordings: tuple[_Recording, ...]

    def entry(self, folder: str) -> dict[str, Any]:
        return self.recordings[0].streams[folder].entry

    def stream_id(self, folder: str) -> str:
        return _stream_id(self.node, self.number, folder)


def _stream_id(node: str, number: int, folder: str) -> str:
    """Readable and unique in the upload: "<node folder>/experiment<N>/<stream folder>"."""
    return f"{node}/experiment{number}/{folder}" if node else f"experiment{number}/{folder}"


def _parse_stream_id(stream_id: str) -> tuple[str, int, str]:
    match = re.fullmatch(r"(?:(?P<node>.+)/)?experiment(?P<number>\d+)/(?P<folder>[^/]+)", stream_id)
    if match is None:
        raise KeyError(f"not an Open Ephys stream id: {stream_id!r}")
    return match["node"] or "", int(match["number"]), match["folder"]


# --- claim and inspection ------------------------------------------------------------------------


def _claims(files: Sequence[str]) -> bool:
    return any(name.rpartition("/")[2] == _OEBIN for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    notes: list[str] = []
    experiments = _read_experiments(root, files, notes)
    nodes = sorted({experiment.node for experiment in experiments})
    first_number = min(experiment.number for experiment in experiments)
    several_experiments = len({experiment.number for experiment in experiments}) > 1
    streams: list[Stream] = []
    default_streams: list[str] = []
    probes: dict[str, dict[str, str]] = {}
    devices: dict[str, str] = {}
    without_geometry: list[tuple[_Experiment, str, str]] = []  # (experiment, stream folder, why)
    for experiment in experiments:
        confirmed = _confirm_with_reader(root, experiment, open_interfaces=experiment.number == first_number)
        for folder, stream in confirmed.items():
            stream_id = experiment.stream_id(folder)
            files_of_stream = _stream_files(experiment, folder)
            neural = _is_neural(experiment.entry(folder), folder)
            streams.append(
                Stream(
                    id=stream_id,
                    label=_label(experiment, folder, stream.channel_count, several_nodes=len(nodes) > 1),
                    channel_count=stream.channel_count,
                    sampling_rate_hz=stream.rate,
                    duration_s=stream.samples / stream.rate,
                    size_bytes=sum((root / name).stat().st_size for name in files_of_stream),
                    files=files_of_stream,
                    kind="neural" if neural else "auxiliary",
                    group=_experiment_group(experiment.number) if several_experiments else "",
                )
            )
            if experiment.number == first_number and neural:
                default_streams.append(stream_id)
            # Probes are read for the first experiment only (see `_confirm_with_reader`); a later
            # experiment's stream of the same node and folder is the same probe slot, so it borrows that.
            probe = stream.probe or probes.get(_stream_id(experiment.node, first_number, folder))
            if probe is not None:
                probes[stream_id] = probe
            devices[stream_id] = _device_words(experiment.entry(folder), folder, probe)
            if stream.probe_problem:
                without_geometry.append((experiment, folder, stream.probe_problem))
    first_streams = [stream for stream in streams if _parse_stream_id(stream.id)[1] == first_number]
    if not default_streams:  # only NI-DAQ inputs: convert those rather than nothing
        default_streams = [stream.id for stream in first_streams]
    notes = [
        *_notes(experiments, first_streams, default_streams, nodes, files),
        *_without_geometry_notes(without_geometry),
        *notes,
    ]
    first = next(experiment for experiment in experiments if experiment.number == first_number)
    if first.start_time is None:
        notes.append(
            f"{first.settings} does not say when experiment {first_number} started (no readable date); "
            "you will be asked for the start time."
        )
    defaults = [stream for stream in streams if stream.id in default_streams]
    probe_words = {stream_id: _probe_words(probe) for stream_id, probe in probes.items()}
    pulse_lines, stream_starts = _pulse_lines(root, experiments, files, several_experiments=several_experiments)
    file_metadata: dict[str, Any] = {
        "session_start_time": first.start_time.isoformat() if first.start_time else None,
        "device": "; ".join(dict.fromkeys(devices[stream.id] for stream in defaults)),
        "probe": "; ".join(dict.fromkeys(probe_words[s] for s in default_streams if s in probe_words)),
        "channel_count": sum(stream.channel_count for stream in defaults),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in defaults),
        "duration_s": max(stream.duration_s for stream in defaults),
        "size_bytes": sum(stream.size_bytes for stream in defaults),
        # Each experiment has its own start: converting another one means using its start time.
        "experiment_start_times": {
            str(experiment.number): experiment.start_time.isoformat() if experiment.start_time else None
            for experiment in experiments
            if experiment.node == first.node
        },
        # Each stream's own, for another choice than the defaults (`stream_facts`).
        "stream_devices": devices,
        "stream_probes": probe_words,
        # TTL lines (a camera's frame pulses among them), to place a video beside the recording
        # (`nwb.parts`), and each stream's first time on the clock those pulses are timed on.
        "pulse_lines": pulse_lines,
        "stream_starts": stream_starts,
    }
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=tuple(streams),
        default_streams=tuple(default_streams),
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _pulse_lines(
    root: Path, experiments: Sequence[_Experiment], files: Sequence[str], *, several_experiments: bool
) -> tuple[list[dict[str, Any]], dict[str, float]]:
    """Each TTL line of each experiment with one recording, counted: Open Ephys 0.6+ saves a TTL
    event's line in `states.npy` (+line when it rises, -line when it falls) and its time in
    `timestamps.npy`, in the seconds the record node synchronises every stream to; and each stream's
    first time on that clock (`continuous/<stream>/timestamps.npy`). A file that cannot be read is
    passed over: these only spare the user a question."""
    present = set(files)
    lines: list[dict[str, Any]] = []
    starts: dict[str, float] = {}
    for experiment in experiments:
        if len(experiment.recordings) != 1:
            continue  # several recordings (segments) of one experiment: times restart; not used
        recording = experiment.recordings[0]
        group = _experiment_group(experiment.number) if several_experiments else ""
        for folder, continuous in recording.streams.items():
            seconds = f"{recording.folder}/continuous/{folder}/timestamps.npy"
            first = (
                _first_value(root / seconds) if seconds in present and seconds != continuous.sample_numbers else None
            )
            if first is not None:
                starts[experiment.stream_id(folder)] = first
        events = f"{recording.folder}/events/"
        for name in files:
            if not (name.startswith(events) and name.endswith("/TTL/states.npy")):
                continue
            ttl = name.rpartition("/")[0]
            times_file = f"{ttl}/timestamps.npy"
            counted = _rising_edges(root / name, root / times_file) if times_file in present else None
            source = ttl[len(events) :].rpartition("/")[0]
            for line, (count, first_s) in sorted((counted or {}).items()):
                lines.append(
                    {
                        "label": f"TTL line {line} of {source}",
                        "group": group,
                        "line": line,
                        "rising": count,
                        "first_s": first_s,
                        "events": ttl,
                    }
                )
    return lines, starts


def _first_value(path: Path) -> float | None:
    try:
        values = np.load(path, mmap_mode="r", allow_pickle=False)
        return float(values[0]) if values.ndim == 1 and len(values) else None
    except (OSError, ValueError, IndexError):
        return None


def _rising_edges(states_path: Path, times_path: Path) -> dict[int, tuple[int, float]] | None:
    """Line -> (rising edges, time of the first), from a TTL folder's states and timestamps."""
    try:
        states = np.load(states_path, allow_pickle=False).reshape(-1)
        times = np.load(times_path, mmap_mode="r", allow_pickle=False).reshape(-1)
    except (OSError, ValueError):
        return None
    if len(states) != len(times) or not np.issubdtype(states.dtype, np.integer):
        return None
    found: dict[int, tuple[int, float]] = {}
    for line in np.unique(states[states > 0]).tolist():
        rising = np.flatnonzero(states == line)
        found[int(line)] = (len(rising), float(times[rising[0]]))
    return found


def rising_times(root: Path, events: str, line: int) -> np.ndarray:
    """The times (s, on the record node's clock) of the rising edges of one TTL line."""
    states = np.load(root / events / "states.npy", allow_pickle=False).reshape(-1)
    times = np.load(root / events / "timestamps.npy", allow_pickle=False).reshape(-1)
    return np.asarray(times[states == line], dtype=np.float64)


def _experiment_group(number: int) -> str:
    return f"experiment {number}"


def _probe_words(probe: Mapping[str, str]) -> str:
    return f"{probe['name']}: {probe['part_number']}" + (f" (serial {probe['serial']})" if probe["serial"] else "")


def _read_experiments(root: Path, files: Sequence[str], notes: list[str]) -> list[_Experiment]:
    """Every experiment of every node, checked file by file (headers and sizes only).

    Raises `RecordingProblem` naming every file that is missing, damaged or incomplete.
    """
    problems: list[str] = []
    present = set(files)
    oebins: dict[tuple[str, int], list[tuple[int, str]]] = {}
    for oebin in (name for name in files if name.rpartition("/")[2] == _OEBIN):
        parts = oebin.split("/")
        experiment = _EXPERIMENT.fullmatch(parts[-3]) if len(parts) >= 3 else None
        recording = _RECORDING.fullmatch(parts[-2]) if len(parts) >= 3 else None
        if experiment is None or recording is None:
            problems.append(
                f"{oebin} is not inside experiment and recording folders, where Open Ephys saves it "
                "(e.g. Record Node 101/experiment1/recording1/structure.oebin), and the reader relies on "
                "that layout. Upload the whole Record Node folder without renaming its folders."
            )
            continue
        node = "/".join(parts[:-3])
        oebins.setdefault((node, int(experiment[1])), []).append((int(recording[1]), oebin))
    _raise_if(problems)
    if not oebins:
        raise RecordingProblem(
            "The upload has no structure.oebin, the file Open Ephys writes in each experiment's recording "
            "folder (e.g. Record Node 101/experiment1/recording1/structure.oebin). Upload the whole Record Node folder."
        )
    nodes = sorted({node for node, _ in oebins})
    # The Record Nodes of one recording are folders side by side; elsewhere they are other recordings.
    if len({node.rpartition("/")[0] if node else None for node in nodes}) > 1:
        raise RecordingProblem(
            "The upload holds several Open Ephys recordings "
            f"({', '.join(node or 'the top folder' for node in nodes)}). Upload one recording at a time "
            "(its Record Node folder, or the session folder that holds its Record Nodes)."
        )
    experiments: list[_Experiment] = []
    for node in nodes:
        settings = _join(node, _SETTINGS)
        if settings not in present:
            problems.append(
                f"{node or 'The upload'} has no {_SETTINGS}, which Open Ephys saves next to the experiment "
                "folders; the reader needs it (it holds the start time and the probes' layout). Upload the "
                "whole Record Node folder, settings.xml included."
            )
            continue
        for number in sorted(number for node_of, number in oebins if node_of == node):
            own_settings = settings if number == 1 else _join(node, f"settings_{number}.xml")
            if own_settings in present:
                start_time = _start_time(root / own_settings)
            else:
                notes.append(
                    f"{own_settings} is missing, so the start time of experiment {number} is not known; the "
                    f"probes' layout is read from {settings}."
                )
                own_settings, start_time = settings, None
            recordings = [
                _read_recording(root, oebin, present, problems, notes) for _, oebin in sorted(oebins[(node, number)])
            ]
            usable = tuple(recording for recording in recordings if recording is not None)
            if len(usable) == len(recordings) and _consistent(usable, problems):
                experiments.append(_Experiment(node, number, own_settings, start_time, usable))
    _raise_if(problems)
    if not experiments:
        raise RecordingProblem(
            "The upload's structure.oebin files list no continuous signals, so there is nothing to convert. "
            "Upload the recording's continuous folders too."
        )
    return experiments


def _raise_if(problems: Sequence[str]) -> None:
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))


def _read_recording(
    root: Path, oebin: str, present: set[str], problems: list[str], notes: list[str]
) -> _Recording | None:
    folder = oebin.rpartition("/")[0]
    structure = _read_oebin(root / oebin)
    if structure is None:
        problems.append(f"{oebin} is damaged: it is not the JSON file Open Ephys writes. Upload the original again.")
        return None
    streams: dict[str, _Continuous] = {}
    for entry in structure.get("continuous") or []:
        try:
            stream_folder = str(entry["folder_name"]).strip("/")
            rate = float(entry["sample_rate"])
            names = tuple(str(channel["channel_name"]) for channel in entry["channels"])
            gains = [float(channel["bit_volts"]) for channel in entry["channels"]]
        except (KeyError, TypeError, ValueError):
            problems.append(
                f"{oebin} describes a stream without the folder, sampling rate or channels Open Ephys writes; "
                "the file may have been edited. Upload the original file again."
            )
            return None
        if not stream_folder or "/" in stream_folder or rate <= 0 or not names or len(gains) != len(names):
            problems.append(f"{oebin} describes a stream ({stream_folder or 'no name'}) the reader cannot use.")
            return None
        stream_path = f"{folder}/continuous/{stream_folder}"
        if not any(name.startswith(stream_path + "/") for name in present):
            notes.append(
                f"{oebin} lists the stream {stream_folder}, but its folder is not in the upload, so it is left "
                "out. Upload that folder too if you want it converted."
            )
            continue
        continuous = _read_continuous(root, stream_path, stream_folder, entry, names, present, problems, notes)
        if continuous is not None:
            streams[stream_folder] = continuous
    return _Recording(folder, oebin, structure, streams)


def _read_continuous(
    root: Path,
    stream_path: str,
    stream_folder: str,
    entry: dict[str, Any],
    names: tuple[str, ...],
    present: set[str],
    problems: list[str],
    notes: list[str],
) -> _Continuous | None:
    """Check one stream's data and sample-number files; None (and a problem) when unusable."""
    data = f"{stream_path}/{_DATA}"
    if data not in present:
        problems.append(
            f"The stream folder {stream_path} has no {_DATA}, which holds the signals. Upload the whole "
            "folder as Open Ephys saved it."
        )
        return None
    sample_numbers = next((f"{stream_path}/{name}" for name in _SAMPLE_FILES if f"{stream_path}/{name}" in present), "")
    if not sample_numbers:
        problems.append(
            f"The stream folder {stream_path} has no sample_numbers.npy (or timestamps.npy), which says when "
            f"each sample of {_DATA} was taken. Upload the whole folder as Open Ephys saved it."
        )
        return None
    data_bytes = (root / data).stat().st_size
    frame_bytes = len(names) * 2  # int16 samples, all channels interleaved
    if data_bytes == 0:
        problems.append(f"{data} is empty (0 bytes). The upload may have failed; upload it again.")
        return None
    if data_bytes % frame_bytes:
        problems.append(
            f"{data} is {data_bytes:,} bytes, which is not a whole number of samples for its {len(names)} "
            f"channels ({frame_bytes} bytes each): the file is incomplete, probably a cut-off upload or copy. "
            "Upload it again."
        )
        return None
    header = _npy_header(root / sample_numbers)
    if header is None:
        problems.append(f"{sample_numbers} is damaged or incomplete (not a whole NumPy file). Upload it again.")
        return None
    listed, kind = header
    if kind == "f":
        # GUI 0.6+ keeps sample numbers in sample_numbers.npy and seconds in timestamps.npy; neo would
        # take the seconds for sample numbers and place the series at a wrong time.
        problems.append(
            f"The stream folder {stream_path} has no sample_numbers.npy, which Open Ephys saves next to "
            f"{_DATA} (its timestamps.npy holds times in seconds, not sample numbers). Upload the whole "
            "folder as Open Ephys saved it."
        )
        return None
    if listed != data_bytes // frame_bytes:
        # neo sizes the data from continuous.dat alone, so this converts; but one file was likely cut.
        notes.append(
            f"{data} holds {data_bytes // frame_bytes:,} samples but {Path(sample_numbers).name} lists {listed:,}: "
            "one of the two files may be incomplete. If the recording was not cut on purpose, upload the folder again."
        )
    return _Continuous(stream_folder, entry, names, data, sample_numbers)


def _consistent(recordings: Sequence[_Recording], problems: list[str]) -> bool:
    """neo reads an experiment's recordings as segments of one block: they must hold the same streams."""
    first = recordings[0]
    for recording in recordings[1:]:
        if set(recording.streams) != set(first.streams):
            problems.append(
                f"{first.folder} and {recording.folder} do not hold the same streams "
                f"({', '.join(sorted(first.streams)) or 'none'} / {', '.join(sorted(recording.streams)) or 'none'}), "
                "as the recordings of one experiment do. Upload the complete experiment folder."
            )
            return False
    return bool(first.streams)


def _read_oebin(path: Path) -> dict[str, Any] | None:
    if path.stat().st_size > _MAX_OEBIN_BYTES:
        return None
    try:
        structure = json.loads(path.read_bytes())
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    return structure if isinstance(structure, dict) else None


def _npy_header(path: Path) -> tuple[int, str] | None:
    """Rows and kind of values ("i", "f"...) a .npy file declares; None unless it holds them all."""
    try:
        with path.open("rb") as handle:
            version = np.lib.format.read_magic(handle)
            if version == (1, 0):
                shape, _, dtype = np.lib.format.read_array_header_1_0(handle)
            else:
                shape, _, dtype = np.lib.format.read_array_header_2_0(handle)
            header_bytes = handle.tell()
    except (ValueError, OSError, EOFError):
        return None
    if len(shape) < 1 or path.stat().st_size < header_bytes + int(np.prod(shape)) * dtype.itemsize:
        return None
    return int(shape[0]), str(dtype.kind)


def _start_time(settings: Path) -> datetime | None:
    """The experiment's start from settings.xml's <INFO><DATE>, naive, as neuroconv reads it."""
    with settings.open("rb") as handle:
        match = _DATE_ELEMENT.search(handle.read(_SETTINGS_HEAD_BYTES))
    if match is None:
        return None
    try:
        return datetime.strptime(match[1].decode("utf-8", errors="replace").strip(), _DATE_FORMAT)
    except ValueError:
        return None


@dataclass(frozen=True)
class _Confirmed:
    """One stream as the reader opened it."""

    channel_count: int
    rate: float
    samples: int  # over all the experiment's recordings
    probe: dict[str, str] | None  # see `_probe`; None without a probe or when its interface was not opened
    probe_problem: str = ""  # why the probe's geometry could not be read, when it could not


def _confirm_with_reader(root: Path, experiment: _Experiment, *, open_interfaces: bool) -> dict[str, _Confirmed]:
    """Read the experiment's headers as the conversion will; by stream folder: channels, sampling
    rate, samples (all recordings) and probe.

    neo's header (one parse for all streams) gives the numbers; with `open_interfaces`, each stream's
    neuroconv interface is opened too, which also reads the probe from the settings file. That costs
    ~30 ms a stream (neuroconv and spikeinterface parse the folder three times each), so it is done
    for the first experiment, the one converted by default: an upload of 12 experiments x 3 streams
    took 1.2 s with every interface opened, against the 0.5 s detection should take.
    """
    from neo.rawio import OpenEphysBinaryRawIO

    folders = sorted(
        experiment.recordings[0].streams, key=lambda folder: (not _is_neural(experiment.entry(folder), folder), folder)
    )
    confirmed: dict[str, _Confirmed] = {}
    with _view(root, [(experiment, folders)]) as view:
        folder = folders[0]
        try:
            reader = OpenEphysBinaryRawIO(dirname=str(view / _view_node(experiment.node)))
            reader.parse_header()
            indexes = {str(name): index for index, name in enumerate(reader.header["signal_streams"]["name"])}
            segments = range(reader.segment_count(0))
            for folder in folders:
                index = indexes[_neo_stream_name(experiment.node, folder)]
                probe, probe_problem = None, ""
                if open_interfaces:
                    interface = _interface(view, experiment.node, folder, experiment.entry(folder))
                    recording = interface.recording_extractor
                    probe = _probe(recording) if recording.has_probe() else None
                    probe_problem = _probe_problem(interface)
                confirmed[folder] = _Confirmed(
                    channel_count=int(reader.signal_channels_count(index)),
                    rate=float(reader.get_signal_sampling_rate(index)),
                    samples=sum(int(reader.get_signal_size(0, segment, index)) for segment in segments),
                    probe=probe,
                    probe_problem=probe_problem,
                )
        except Exception as error:  # any reader failure is a property of the user's files
            raise RecordingProblem(
                f"{experiment.recordings[0].streams[folder].data} could not be read as an Open Ephys recording "
                f"({short_reason(error)}). Check that {experiment.node or 'the upload'} is complete and exactly "
                "as Open Ephys saved it (settings.xml, structure.oebin and each stream's files), then upload "
                "it again.",
                detail=traceback.format_exc(),
            ) from error
    return confirmed


def _probe(recording: Any) -> dict[str, str]:
    probe = recording.get_probe()
    # Open Ephys writes serial number 0 when the probe did not report one.
    serial = str(probe.serial_number or "")
    return {
        "name": str(probe.name or "probe"),
        "part_number": str(probe.annotations.get("part_number") or probe.model_name or "unknown"),
        "manufacturer": str(probe.manufacturer or ""),
        "serial": "" if serial.strip("0") == "" else serial,
    }


def _interface(
    view: Path, node: str, folder: str, entry: Mapping[str, Any], *, metadata_key: str = "stream", series_name: str = ""
) -> BaseDataInterface:
    """The neuroconv interface for one stream of a view made by `_view` (one experiment: block 0)."""
    # Imported here: neuroconv costs ~1 s to import, and only detection and conversion need it.
    from neuroconv.datainterfaces import OpenEphysBinaryAnalogInterface

    node_folder = view / _view_node(node)
    stream_name = _neo_stream_name(node, folder)
    interface: BaseDataInterface
    if _is_neural(entry, folder):
        interface = _recording_interface_class()(
            folder_path=node_folder, stream_name=stream_name, block_index=0, metadata_key=metadata_key
        )
    else:
        interface = OpenEphysBinaryAnalogInterface(
            folder_path=node_folder,
            stream_name=stream_name,
            block_index=0,
            metadata_key=metadata_key,
            time_series_name=series_name or "TimeSeries",
        )
    return interface


def _probe_problem(interface: BaseDataInterface) -> str:
    """Why the stream's probe geometry could not be read ("" when it was, or when there is no probe)."""
    return str(getattr(interface, "probe_problem", ""))


@cache
def _recording_interface_class() -> type[BaseDataInterface]:
    """Defined on first use: neuroconv costs ~1 s to import, which the web process must not pay."""
    from neuroconv.datainterfaces import OpenEphysBinaryRecordingInterface

    class ProbeOptionalRecordingInterface(OpenEphysBinaryRecordingInterface):  # type: ignore[misc]  # no type hints
        """neuroconv's interface, which opens the signals even when the probe in settings.xml cannot be read.

        spikeinterface reads the probe's geometry from settings.xml while it opens the signals, and
        any failure of that reader fails the opening: probeinterface 0.4.2, for one, raises
        AttributeError when the Neuropix-PXI processor's probes (NP_PROBE) are not where it expects
        them for the GUI version, as in folders of Neuropixels 2.0 probes users sent. The signals do
        not depend on the geometry, so such a stream is opened again without it, and
        `probe_problem` says why it is missing.
        """

        probe_problem = ""

        def _initialize_extractor(self, interface_kwargs: dict[str, Any]) -> Any:
            try:
                return super()._initialize_extractor(interface_kwargs)
            except Exception as error:
                if not _raised_by_probe_reader(error):
                    raise
                self.probe_problem = short_reason(error)
            with _probe_geometry_skipped(Path(interface_kwargs["folder_path"])):
                return super()._initialize_extractor(interface_kwargs)

    return ProbeOptionalRecordingInterface


def _raised_by_probe_reader(error: BaseException) -> bool:
    """Whether `error` was raised inside probeinterface (reading the probe), not by the signals' reader."""
    frame = error.__traceback__
    while frame is not None:
        if str(frame.tb_frame.f_globals.get("__name__", "")).split(".")[0] == "probeinterface":
            return True
        frame = frame.tb_next
    return False


# One recording opens without its probe at a time (see `_probe_geometry_skipped`).
_SKIPPING_PROBES = threading.Lock()


@contextmanager
def _probe_geometry_skipped(node_folder: Path) -> Iterator[None]:
    """While the recording in `node_folder` opens, spikeinterface finds no probe in its settings files.

    spikeinterface has no option to open Open Ephys signals without their probe: it reads the probe
    whenever `probeinterface.has_neuropixels_probes` says a settings file describes one. That answer
    is "no" here for `node_folder`'s settings files only; other folders get the true answer, so
    another recording opened meanwhile keeps its probe.
    """
    import probeinterface

    has_neuropixels_probes = probeinterface.has_neuropixels_probes
    folder = node_folder.resolve()

    def has_probes_outside_folder(settings_file: str | Path, stream_name: str | None = None) -> bool:
        if Path(settings_file).parent.resolve() == folder:
            return False
        return bool(has_neuropixels_probes(settings_file, stream_name=stream_name))

    with _SKIPPING_PROBES:
        probeinterface.has_neuropixels_probes = has_probes_outside_folder
        try:
            yield
        finally:
            probeinterface.has_neuropixels_probes = has_neuropixels_probes


def _neo_stream_name(node: str, folder: str) -> str:
    """neo prefixes stream names with the node folder's name (in the view) when it starts with "Record"."""
    node_name = _view_node(node)
    return f"{node_name}#{folder}" if node_name.startswith("Record") else folder


# --- streams in words ----------------------------------------------------------------------------


def _is_neural(entry: Mapping[str, Any], folder: str) -> bool:
    """NI-DAQ boards record analog inputs (synchronisation, behaviour), not brain signals."""
    return "NI-DAQ" not in folder and "NI-DAQ" not in str(entry.get("source_processor_name", ""))


def _source_words(entry: Mapping[str, Any], folder: str) -> str:
    processor = str(entry.get("source_processor_name") or "")
    stream_name = str(entry.get("stream_name") or "")
    if processor.startswith("Neuropix") and stream_name:
        return f"Neuropixels {stream_name}"
    if not _is_neural(entry, folder):
        return f"NI-DAQ {stream_name or folder} analog inputs"
    if not processor:
        return folder
    source = f"{processor} {entry.get('source_processor_id', '')}".strip()
    return f"{source}, stream {stream_name}" if stream_name else source


def _label(experiment: _Experiment, folder: str, channel_count: int, *, several_nodes: bool) -> str:
    label = (
        f"{_source_words(experiment.entry(folder), folder)} ({channel_count} channels), experiment {experiment.number}"
    )
    if len(experiment.recordings) > 1:
        label += f" ({len(experiment.recordings)} recordings)"
    if several_nodes:
        label += f", {_view_node(experiment.node)}"
    return label


def _device_words(entry: Mapping[str, Any], folder: str, probe: Mapping[str, str] | None) -> str:
    if probe is None:
        return _source_words(entry, folder)
    maker = " ".join(part for part in (probe["manufacturer"], probe["part_number"]) if part)
    return f"Neuropixels probe ({maker})"


def _notes(
    experiments: Sequence[_Experiment],
    first_streams: Sequence[Stream],
    default_streams: Sequence[str],
    nodes: Sequence[str],
    files: Sequence[str],
) -> list[str]:
    notes: list[str] = []
    numbers = sorted({experiment.number for experiment in experiments})
    if len(numbers) > 1:
        notes.append(
            f"The folder holds {len(numbers)} experiments ({', '.join(map(str, numbers))}; Open Ephys starts a new "
            f"one each time acquisition is restarted). Experiment {numbers[0]} is converted by default; another "
            "can be chosen instead (one experiment per NWB file, as each has its own start time)."
        )
    if len(nodes) > 1:
        notes.append(f"The recording was saved by {len(nodes)} Record Nodes ({', '.join(nodes)}).")
    left_out = [stream.label for stream in first_streams if stream.id not in default_streams]
    if left_out:
        notes.append(
            f"Not converted unless chosen, as they are not brain signals: {'; '.join(left_out)}. If chosen, "
            "they are written as analog time series."
        )
    for experiment in experiments:
        for folder, continuous in experiment.recordings[0].streams.items():
            adc = [name for name in continuous.channel_names if "ADC" in name]
            if adc and _is_neural(continuous.entry, folder) and experiment.number == numbers[0]:
                notes.append(
                    f"The {len(adc)} analog input (ADC) channels of {folder} are not converted, only its other "
                    "channels."
                )
    recording_folders = tuple(
        f"{recording.folder}/{kind}/"
        for experiment in experiments
        for recording in experiment.recordings
        for kind in ("events", "spikes")
    )
    if any(name.startswith(recording_folders) for name in files):
        notes.append("Events (TTL, messages) and spikes detected by Open Ephys are not converted, only the signals.")
    if nodes != [""]:
        outside = [name for name in files if not name.startswith(tuple(f"{node}/" for node in nodes))]
        if outside:
            notes.append(f"These files are not part of the recording and were left out: {some_names(outside)}.")
    return notes


def _without_geometry_notes(streams: Sequence[tuple[_Experiment, str, str]]) -> list[str]:
    """One note per settings file whose probes could not be read: which streams, why, and what the
    NWB file lacks for them. `streams`: (experiment, stream folder, the reader's error in one line)."""
    by_settings: dict[tuple[str, str], list[str]] = {}
    for experiment, folder, problem in streams:
        by_settings.setdefault((experiment.settings, problem), []).append(
            _source_words(experiment.entry(folder), folder)
        )
    notes = []
    for (settings, problem), sources in by_settings.items():
        several = len(sources) > 1
        notes.append(
            f"The electrode positions of {in_words(sources)} could not be read from {settings}: it describes "
            f"{'these probes' if several else 'this probe'} in a way the probe reader cannot parse ({problem}). "
            f"The signals are still converted, but the NWB file will have no electrode geometry for "
            f"{'them' if several else 'it'}: no positions of the channels on the probe, and no probe model."
        )
    return notes


# --- choosing streams ----------------------------------------------------------------------------


def _check_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """One experiment per NWB file; streams of several Record Nodes of one experiment go together."""
    refuse_mixed_groups(
        [_experiment_group(_parse_stream_id(stream_id)[1]) for stream_id in stream_ids],
        part="experiment",
        started="Open Ephys started each experiment separately (a new one each time acquisition is restarted)",
    )


def _facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The facts of the chosen streams, with the start time of their experiment."""
    facts = stream_facts(detection, stream_ids)
    number = _parse_stream_id(stream_ids[0])[1]
    facts["session_start_time"] = detection.file_metadata.get("experiment_start_times", {}).get(str(number))
    return facts


# --- reading and converting ----------------------------------------------------------------------


def _join(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _view_node(node: str) -> str:
    return node.rpartition("/")[2] or _UNNAMED_NODE


def _stream_files(experiment: _Experiment, folder: str) -> tuple[str, ...]:
    """The data file first (messages name it), then what the reader needs besides, node's settings.xml
    included (reading the stream again at conversion checks the node is complete)."""
    files: list[str] = []
    for recording in experiment.recordings:
        continuous = recording.streams[folder]
        files.extend((continuous.data, continuous.sample_numbers, recording.oebin))
    files.extend((experiment.settings, _join(experiment.node, _SETTINGS)))
    return tuple(dict.fromkeys(files))


@contextmanager
def _view(root: Path, selection: Sequence[tuple[_Experiment, Sequence[str]]]) -> Iterator[Path]:
    """A reader view of the chosen stream folders of each experiment (at most one per node)."""
    names: dict[str, str] = {}
    contents: dict[str, bytes] = {}
    for experiment, folders in selection:
        node = _view_node(experiment.node)
        # neuroconv reads settings.xml (start time); neo reads settings_<N>.xml for experiment N (probes).
        settings_names = [_SETTINGS] if experiment.number == 1 else [_SETTINGS, f"settings_{experiment.number}.xml"]
        for name in settings_names:
            names[f"{node}/{name}"] = experiment.settings
            if experiment.start_time is None:
                # Without the date neuroconv finds no start time, rather than a wrong or unreadable one.
                contents[f"{node}/{name}"] = _DATE_ELEMENT.sub(b"", (root / experiment.settings).read_bytes())
        for recording in experiment.recordings:
            recording_view = f"{node}/experiment{experiment.number}/{recording.name}"
            chosen = [recording.streams[folder] for folder in folders]
            names[f"{recording_view}/{_OEBIN}"] = recording.oebin
            listed = {**recording.structure, "continuous": [item.entry for item in chosen], "events": [], "spikes": []}
            contents[f"{recording_view}/{_OEBIN}"] = json.dumps(listed).encode("utf-8")
            for continuous in chosen:
                stream_view = f"{recording_view}/continuous/{continuous.folder}"
                names[f"{stream_view}/{_DATA}"] = continuous.data
                names[f"{stream_view}/{Path(continuous.sample_numbers).name}"] = continuous.sample_numbers
    with reader_view(root, names, contents=contents) as view:
        yield view


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """A view of the chosen streams, all from one experiment (of one or more nodes)."""
    _check_choice(detection, stream_ids)
    chosen = [_parse_stream_id(stream_id) for stream_id in stream_ids]
    # Read again from the files detection checked (the conversion re-checks their sizes first).
    files = sorted({name for stream_id in stream_ids for name in detection.stream(stream_id).files})
    experiments = _read_experiments(root, files, [])
    selection = [
        (experiment, [folder for node, _, folder in chosen if node == experiment.node])
        for experiment in experiments
        if any(node == experiment.node for node, _, _ in chosen)
    ]
    return _view(root, selection)


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream in a ConverterPipe, keyed by stream id.

    neuroconv names every Open Ephys series "ElectricalSeries" and puts each probe's electrodes in
    group "0", so several streams in one file would collide (one series kept; two probes' electrodes
    merged into one group of one device). Each stream gets its own series name, and its electrodes
    a group named after its probe or source: the AP and LFP bands of one probe still share theirs.
    Streams without a probe get a device saying what the files tell (the GUI that recorded them).
    """
    from neuroconv import ConverterPipe

    structures = {stream_id: _structure_in_view(folder, stream_id) for stream_id in stream_ids}
    entries = {stream_id: entry for stream_id, (_, entry) in structures.items()}
    series = _series(entries)
    interfaces: dict[str, BaseDataInterface] = {}
    groups: dict[str, tuple[str, bool]] = {}  # electrode group -> (description, has a probe)
    unread_probes = False
    for number, (stream_id, entry) in enumerate(entries.items()):
        node, _, stream_folder = _parse_stream_id(stream_id)
        interface = _interface(
            folder, node, stream_folder, entry, metadata_key=f"stream{number}", series_name=series[stream_id].name
        )
        if series[stream_id].neural:
            recording = interface.recording_extractor
            description = f"Channels of {_source_words(entry, stream_folder)}, recorded by Open Ephys."
            if _probe_problem(interface):
                unread_probes = True
                description += (
                    " Their positions on the probe are not in this file: the probe's description in settings.xml "
                    "could not be read."
                )
            for group in _name_electrode_groups(recording, _group_name(entry, stream_folder)):
                groups[group] = (description, recording.has_probe())
        interfaces[stream_id] = interface
    versions = sorted({str(structure.get("GUI version", "")) for structure, _ in structures.values()} - {""})
    device = {
        "name": "OpenEphys",
        "description": f"Recorded with the Open Ephys GUI{' ' + ', '.join(versions) if versions else ''}; "
        + (
            "the probes described in settings.xml could not be read, so they are not described here."
            if unread_probes
            else "the files do not name the amplifier or the electrodes."
        ),
    }

    class OpenEphysStreams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            for stream_id, interface in self.data_interface_objects.items():
                if series[stream_id].neural:
                    metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].update(series[stream_id].fields)
                else:
                    metadata["TimeSeries"][interface.metadata_key].update(series[stream_id].fields)
            for group, (description, has_probe) in groups.items():
                entry = metadata["Ecephys"].setdefault("ElectrodeGroups", {}).setdefault(group, {"name": group})
                entry.setdefault("description", description)
                if not has_probe:
                    entry.setdefault("device_metadata_key", _DEVICE_KEY)
                    metadata.setdefault("Devices", {})[_DEVICE_KEY] = device
            return metadata

    converter: NWBConverter = OpenEphysStreams(data_interfaces=interfaces)
    return converter


@dataclass(frozen=True)
class _Series:
    """How one stream is written: an ElectricalSeries (neural) or a TimeSeries (analog inputs)."""

    neural: bool
    name: str
    fields: dict[str, Any]  # merged into the series' metadata


def _series(entries: Mapping[str, Mapping[str, Any]]) -> dict[str, _Series]:
    """Series names unique in the file: from the stream's name, then its node's when two nodes
    saved streams of the same name."""
    suffixes = {
        stream_id: _camel(_stream_words(entry, _parse_stream_id(stream_id)[2])) for stream_id, entry in entries.items()
    }
    repeated = {suffix for suffix in suffixes.values() if list(suffixes.values()).count(suffix) > 1}
    series: dict[str, _Series] = {}
    for stream_id, entry in entries.items():
        node, _, folder = _parse_stream_id(stream_id)
        suffix = suffixes[stream_id] + (_camel(_view_node(node)) if suffixes[stream_id] in repeated else "")
        source = _source_words(entry, folder)
        if _is_neural(entry, folder):
            name = f"ElectricalSeries{suffix}"
            fields: dict[str, Any] = {"name": name, "description": f"{source}: signals recorded by Open Ephys."}
        else:
            name = f"TimeSeries{suffix}"
            channels = [str(channel["channel_name"]) for channel in entry["channels"]]
            fields = {"name": name, "description": f"{source} ({', '.join(channels)}), recorded by Open Ephys."}
            gains = {float(channel["bit_volts"]) for channel in entry["channels"]}
            if len(gains) == 1:
                # The NI-DAQ plugin's bit_volts is in volts; neo reads it as microvolts, as for electrodes.
                fields.update(unit="volts", conversion=gains.pop(), offset=0.0)
        series[stream_id] = _Series(neural=_is_neural(entry, folder), name=name, fields=fields)
    return series


def _stream_words(entry: Mapping[str, Any], folder: str) -> str:
    """The stream's own short name: "ProbeB" (GUI 0.6+), or its source, "File Reader 114" (GUI 0.5)."""
    if entry.get("stream_name"):
        return str(entry["stream_name"])
    processor = str(entry.get("source_processor_name") or "")
    return f"{processor} {entry.get('source_processor_id', '')}".strip() if processor else folder


def _group_name(entry: Mapping[str, Any], folder: str) -> str:
    """Named after the probe: a probe's AP and LFP streams ("ProbeA-AP", "ProbeA-LFP") share electrodes."""
    return _camel(re.sub(r"-(AP|LFP)$", "", _stream_words(entry, folder)))


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word)


def _name_electrode_groups(recording: Any, prefix: str) -> list[str]:
    """Name the recording's channel groups after `prefix` (shanks numbered); returns the names."""
    groups = recording.get_channel_groups()
    if groups is None or len(set(groups.tolist())) == 1:
        names = [prefix] * recording.get_num_channels()
    else:
        kind = "Shank" if recording.has_probe() else "Group"
        names = [f"{prefix}{kind}{group}" for group in groups.tolist()]
    recording.set_property("group_name", names)
    return list(dict.fromkeys(names))


def _structure_in_view(view: Path, stream_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """structure.oebin and the stream's entry in it, from the view's first recording of the experiment."""
    node, number, stream_folder = _parse_stream_id(stream_id)
    recordings = (view / _view_node(node) / f"experiment{number}").iterdir()
    first = min(recordings, key=lambda path: int(path.name.removeprefix("recording")))
    structure: dict[str, Any] = json.loads((first / _OEBIN).read_bytes())
    entry = next(item for item in structure["continuous"] if str(item["folder_name"]).strip("/") == stream_folder)
    return structure, entry


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "an Open Ephys binary recording: the whole Record Node folder, with settings.xml and "
        "experiment1/recording1/ holding structure.oebin and continuous/<stream>/continuous.dat"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    check_choice=_check_choice,
    facts=_facts,
)

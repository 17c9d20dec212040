"""Axon ABF (pCLAMP, Clampex, AxoScope): patch-clamp recordings, one `.abf` file per run.

Intracellular electrophysiology (icephys), not extracellular: a recorded channel holding a current
or a voltage is one electrode's response, written as a VoltageClampSeries (a current was recorded,
so the cell was voltage-clamped) or a CurrentClampSeries (a voltage was recorded), with one row per
sweep in the intracellular recordings table. A stream is one channel of one file, because
neuroconv's AxonIntracellularInterface writes one electrode per interface (two channels of one file
are the two cells of a paired recording). Every file's channels are converted together by default,
as one session: neuroconv's AxonIntracellularConverter places several files on one timeline by
their start times, which it trusts only from ABF 2 headers.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import RecordingProblem
from .base import (
    Detection,
    Stream,
    SupportedFormat,
    problems_message,
    reader_view,
    short_reason,
    some_names,
    stream_facts,
)

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "axon"
_LABEL = "Axon ABF (patch clamp)"
_SUFFIX = ".abf"
# The first four bytes of every ABF file: "ABF " for version 1, "ABF2" for version 2.
_MAGIC = (b"ABF ", b"ABF2")
_STREAM_SEPARATOR = "#"  # stream id = "<file in the upload>#<channel>"
# A current recorded means the cell's voltage was clamped, and the other way round. NWB's series
# types require amperes and volts respectively, so the unit decides the series, and a channel in
# any other unit (temperature, a trigger) is not an electrode's response.
_CURRENT = re.compile(r"^[pnum]?A$")
_VOLTAGE = re.compile(r"^[pnum]?V$")
_MODE_WORDS = {"voltage_clamp": "voltage clamp", "current_clamp": "current clamp"}
_NEEDS = "the .abf file(s) Clampex or AxoScope saved, one per run"
_DEVICE_KEY = "abf_amplifier"
_UNNAMED_AMPLIFIER = "Patch-clamp amplifier; the ABF file does not name its model (no telegraph information)."

Mode = Literal["voltage_clamp", "current_clamp"]


@dataclass(frozen=True)
class _Channel:
    name: str  # as neuroconv addresses it: the header's name without spaces, or "ch<index>"
    header_name: str  # as Clampex shows it, e.g. "IN 0"
    unit: str
    mode: Mode | None  # None: not an electrode's response (left out)


@dataclass(frozen=True)
class _AbfFile:
    name: str  # relative to the upload root
    version: float
    start_time: datetime | None
    rate_hz: float
    sweep_count: int
    sweep_samples: tuple[int, ...]
    span_s: float  # first sweep's start to last sweep's end (sweeps may be seconds apart)
    channels: tuple[_Channel, ...]
    size_bytes: int


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith(_SUFFIX) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    names = [name for name in files if name.lower().endswith(_SUFFIX)]
    if not names:
        raise RecordingProblem(f"The upload has no .abf file. {_NEEDS[0].upper()}{_NEEDS[1:]}.")
    problems: list[str] = []
    abf_files = [abf for abf in (_read_header(root, name, problems) for name in names) if abf is not None]
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    amplifiers = {abf.name: _confirm_with_reader(root, abf) for abf in abf_files}

    several = len(abf_files) > 1
    streams = tuple(
        _stream(abf, channel, several_files=several) for abf in abf_files for channel in abf.channels if channel.mode
    )
    if not streams:
        described = "; ".join(
            f"{abf.name}: {', '.join(_channel_words(channel) for channel in abf.channels)}" for abf in abf_files
        )
        raise RecordingProblem(
            f"No channel of the upload records a current or a voltage ({described}), so there is no patch-clamp "
            "response to convert. Check the channels' units in Clampex and upload the recording again."
        )
    usable = [abf for abf in abf_files if any(channel.mode for channel in abf.channels)]
    apart = _why_apart(usable)
    chosen_files = usable[:1] if apart else usable
    default_streams = tuple(
        stream.id for stream in streams if _file_of(stream.id) in {abf.name for abf in chosen_files}
    )
    starts = [abf.start_time for abf in chosen_files if abf.start_time is not None]
    notes = _notes(abf_files, chosen_files, apart, [name for name in files if name not in names])
    file_metadata: dict[str, Any] = {
        "session_start_time": min(starts).isoformat() if len(starts) == len(chosen_files) else None,
        "device": "; ".join(dict.fromkeys(amplifiers[abf.name] for abf in chosen_files)),
        "channel_count": len(default_streams),
        "sampling_rate_hz": max(abf.rate_hz for abf in chosen_files),
        "duration_s": _session_span([(abf.start_time, abf.span_s) for abf in chosen_files]),
        "size_bytes": sum(abf.size_bytes for abf in chosen_files),
        "abf_versions": {abf.name: f"{abf.version:.2f}" for abf in abf_files},
        "file_start_times": {abf.name: abf.start_time.isoformat() if abf.start_time else None for abf in abf_files},
        # Each file's amplifier, for another choice than the defaults (`stream_facts`).
        "stream_devices": {stream.id: amplifiers[_file_of(stream.id)] for stream in streams},
    }
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=streams,
        default_streams=default_streams,
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _read_header(root: Path, name: str, problems: list[str]) -> _AbfFile | None:
    """Check the magic bytes, then let neo parse the header (it checks the data's extent against the
    file's size); appends to `problems` and returns None when the file cannot be read."""
    from neo.rawio import AxonRawIO

    path = root / name
    size = path.stat().st_size
    if size == 0:
        problems.append(f"{name} is empty (0 bytes). The upload may have failed; upload it again.")
        return None
    with path.open("rb") as handle:
        magic = handle.read(4)
    if magic not in _MAGIC:
        problems.append(
            f"{name} is not an Axon Binary Format file (it does not start with the ABF signature). Upload the .abf "
            "file exactly as Clampex or AxoScope saved it."
        )
        return None
    reader = AxonRawIO(filename=str(path))
    try:
        reader.parse_header()
        info = reader._axon_info  # neo's parsed header: version and start time are only here
        rate = float(reader.get_signal_sampling_rate())
        sweep_count = int(reader.header["nb_segment"][0])
        samples = tuple(int(reader.get_signal_size(0, sweep, 0)) for sweep in range(sweep_count))
        first_start = float(reader.get_signal_t_start(0, 0, 0))
        last_start = float(reader.get_signal_t_start(0, sweep_count - 1, 0))
    except Exception as error:  # any reader failure is a property of the user's file
        problems.append(
            f"{name} could not be read as an Axon ABF file ({short_reason(error)}). It may be incomplete (a cut-off "
            "upload or copy) or damaged: upload it again as Clampex or AxoScope saved it."
        )
        return None
    channels = tuple(
        _channel(index, str(channel["name"]), str(channel["units"]))
        for index, channel in enumerate(reader.header["signal_channels"])
    )
    start = info.get("rec_datetime")
    return _AbfFile(
        name=name,
        version=float(info["fFileVersionNumber"]),
        start_time=start.replace(tzinfo=None) if isinstance(start, datetime) else None,
        rate_hz=rate,
        sweep_count=sweep_count,
        sweep_samples=samples,
        span_s=round(last_start + samples[-1] / rate - first_start, 9),
        channels=channels,
        size_bytes=size,
    )


def _channel(index: int, header_name: str, unit: str) -> _Channel:
    # Named as AxonIntracellularInterface names them (spaces dropped, as neo's spelling varies).
    name = header_name.replace(" ", "") or f"ch{index}"
    plain_unit = unit.strip().replace("µ", "u").replace("μ", "u")
    mode: Mode | None = (
        "voltage_clamp" if _CURRENT.match(plain_unit) else "current_clamp" if _VOLTAGE.match(plain_unit) else None
    )
    return _Channel(name=name, header_name=header_name.strip() or name, unit=unit.strip(), mode=mode)


def _channel_words(channel: _Channel) -> str:
    return f"{channel.header_name} ({channel.unit or 'no unit'})"


def _confirm_with_reader(root: Path, abf: _AbfFile) -> str:
    """Open the file with neuroconv's interface (headers only); returns the amplifier, in words."""
    from neuroconv.datainterfaces import AxonIntracellularInterface

    channel = next((channel for channel in abf.channels if channel.mode), None)
    if channel is None or channel.mode is None:
        return _UNNAMED_AMPLIFIER
    try:
        interface = AxonIntracellularInterface(
            file_path=root / abf.name, response_channel_name=channel.name, mode=channel.mode
        )
        devices = interface.get_metadata().get("Devices", {})
    except Exception as error:  # any reader failure is a property of the user's file
        raise RecordingProblem(
            f"{abf.name} could not be opened as a patch-clamp recording ({short_reason(error)}). Check that the file "
            "is complete and exactly as Clampex or AxoScope saved it, then upload it again.",
            detail=traceback.format_exc(),
        ) from error
    names = [str(device["name"]) for device in devices.values()]
    return f"Axon {', '.join(names)} amplifier" if names else "Patch-clamp amplifier (model not named in the file)"


def _stream(abf: _AbfFile, channel: _Channel, *, several_files: bool) -> Stream:
    assert channel.mode is not None
    sweeps = set(abf.sweep_samples)
    sweep_words = (
        f"{abf.sweep_count} sweeps of {_seconds(sweeps.pop() / abf.rate_hz)}"
        if len(sweeps) == 1 and abf.sweep_count > 1
        else f"{abf.sweep_count} sweep{'s' if abf.sweep_count > 1 else ''}"
    )
    return Stream(
        id=f"{abf.name}{_STREAM_SEPARATOR}{channel.name}",
        label=(
            f"{Path(abf.name).name}, channel {channel.header_name} ({channel.unit}): "
            f"{_MODE_WORDS[channel.mode]}, {sweep_words}"
        ),
        channel_count=1,
        sampling_rate_hz=abf.rate_hz,
        duration_s=abf.span_s,
        size_bytes=abf.size_bytes,
        files=(abf.name,),
        kind="neural",  # only channels that record an electrode's response are streams
        group=abf.name if several_files else "",
    )


def _seconds(value: float) -> str:
    return f"{value:g} s" if value >= 1 else f"{value * 1000:g} ms"


def _session_span(files: Sequence[tuple[datetime | None, float]]) -> float:
    """From the first file's start to the last file's end, when the files (start, span) can be placed in time."""
    starts = [start for start, _ in files if start is not None]
    if len(files) == 1 or len(starts) < len(files):
        return max(span for _, span in files)
    first = min(starts)
    return round(max((start - first).total_seconds() + span for start, span in files if start is not None), 9)


def _why_apart(abf_files: Sequence[_AbfFile]) -> str:
    """Why the files are not converted together by default (empty when they are): neuroconv places
    files on one timeline only by ABF 2 start times, and files of different days are not one session."""
    if len(abf_files) == 1:
        return ""
    old = [abf.name for abf in abf_files if abf.version < 2]
    if old:
        return (
            f"{some_names(old)} {'is an ABF version 1 file' if len(old) == 1 else 'are ABF version 1 files'}, which "
            "cannot be placed on one timeline with other files"
        )
    undated = [abf.name for abf in abf_files if abf.start_time is None]
    if undated:
        return f"{some_names(undated)} {'does' if len(undated) == 1 else 'do'} not say when the recording started"
    days = sorted({abf.start_time.date().isoformat() for abf in abf_files if abf.start_time})
    if len(days) > 1:
        return f"the files were recorded on different days ({', '.join(days)}), so they may not be one session"
    return ""


def _notes(abf_files: Sequence[_AbfFile], chosen: Sequence[_AbfFile], apart: str, others: Sequence[str]) -> list[str]:
    notes = [
        "Each channel is written as one electrode's response: a current (pA, nA...) as voltage clamp, a voltage "
        "(mV) as current clamp, as its unit says. A channel that only monitors the command (the stimulus) should "
        "be left out. The stimulus waveforms themselves are not converted."
    ]
    left_out = [
        f"{abf.name} channel {_channel_words(channel)}"
        for abf in abf_files
        for channel in abf.channels
        if channel.mode is None
    ]
    if left_out:
        notes.append(f"Not converted, as they hold neither a current nor a voltage: {'; '.join(left_out)}.")
    if apart:
        notes.append(
            f"The upload holds several ABF files, and {apart}. Only {chosen[0].name} is converted by "
            "default; convert the other files one at a time (or choose several ABF 2 files to convert together)."
        )
    elif len(chosen) > 1:
        notes.append(
            f"The {len(chosen)} files are converted into one NWB file (one session), placed in time by their "
            "start times."
        )
    for abf in chosen:
        if abf.start_time is None:
            notes.append(f"{abf.name} does not say when the recording started; you will be asked for it.")
    if others:
        notes.append(f"These files are not ABF files and were left out: {some_names(others)}.")
    return notes


def _file_of(stream_id: str) -> str:
    return stream_id.rpartition(_STREAM_SEPARATOR)[0]


def _check_choice(detection: Detection, stream_ids: Sequence[str]) -> None:
    """Channels of several files go together only if each file can be placed on one timeline."""
    names = list(dict.fromkeys(_file_of(stream_id) for stream_id in stream_ids))
    if len(names) == 1:
        return
    versions = detection.file_metadata.get("abf_versions", {})
    starts = detection.file_metadata.get("file_start_times", {})
    problems = {
        name: "is an ABF version 1 file" if float(versions.get(name, 0)) < 2 else "does not say when it was recorded"
        for name in names
        if float(versions.get(name, 0)) < 2 or not starts.get(name)
    }
    if problems:
        alone = list(problems)
        reasons = (
            f"it {problems[alone[0]]}"
            if len(alone) == 1
            else "; ".join(f"{name} {problem}" for name, problem in problems.items())
        )
        each = (
            f"Convert the channels of {alone[0]} on their own (choose only them)"
            if len(alone) == 1
            else "Convert each of these files on its own (choose only its channels)"
        )
        raise RecordingProblem(
            f"{some_names(alone)} cannot be converted together with other files ({reasons}), so the files cannot be "
            f"placed on one timeline. {each}, and the other files' channels into another NWB file."
        )


def _facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The facts of the chosen channels: several files' start is the earliest, their span first start to last end."""
    facts = stream_facts(detection, stream_ids)
    starts = detection.file_metadata.get("file_start_times", {})
    spans = {_file_of(stream_id): detection.stream(stream_id).duration_s for stream_id in stream_ids}
    files = [(datetime.fromisoformat(starts[name]) if starts.get(name) else None, span) for name, span in spans.items()]
    known = [start for start, _ in files if start is not None]
    facts["session_start_time"] = min(known).isoformat() if len(known) == len(files) else None
    facts["duration_s"] = _session_span(files)
    return facts


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """A view of the chosen files; several files only if each can be placed on one timeline."""
    _check_choice(detection, stream_ids)
    return reader_view(root, {name: name for name in dict.fromkeys(_file_of(stream_id) for stream_id in stream_ids)})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One AxonIntracellularInterface per chosen channel, keyed by stream id, in neuroconv's
    AxonIntracellularConverter (which builds the sweep tables above the recordings and aligns files).

    Descriptions say what the file tells: the electrode's channel and file, and, when the header
    names no amplifier, a device that says so (neuroconv would add an undescribed placeholder).
    """
    from neuroconv.converters import AxonIntracellularConverter
    from neuroconv.datainterfaces import AxonIntracellularInterface

    channels: dict[str, _Channel] = {}
    for name in dict.fromkeys(_file_of(stream_id) for stream_id in stream_ids):
        problems: list[str] = []
        abf = _read_header(folder, name, problems)
        if abf is None:
            raise ValueError(problems_message(problems))
        channels.update({f"{name}{_STREAM_SEPARATOR}{channel.name}": channel for channel in abf.channels})
    interfaces: dict[str, Any] = {}
    series_keys: dict[str, str] = {}
    descriptions: dict[str, tuple[str, str]] = {}  # stream id -> (electrode, series)
    for number, stream_id in enumerate(stream_ids):
        channel, file_name = channels.get(stream_id), _file_of(stream_id)
        if channel is None or channel.mode is None:
            raise ValueError(f"{file_name} has no patch-clamp channel {stream_id.rpartition(_STREAM_SEPARATOR)[2]}")
        series_keys[stream_id] = f"stream{number}"
        interfaces[stream_id] = AxonIntracellularInterface(
            file_path=folder / file_name,
            response_channel_name=channel.name,
            mode=channel.mode,
            metadata_key=series_keys[stream_id],
        )
        recorded = "Current" if channel.mode == "voltage_clamp" else "Voltage"
        descriptions[stream_id] = (
            f"Patch-clamp electrode recorded on channel {channel.header_name} of {file_name}.",
            f"{recorded} recorded in {_MODE_WORDS[channel.mode]} on channel {channel.header_name} of {file_name}, "
            "all sweeps one after another (see the intracellular recordings table).",
        )

    class AxonPatchClamp(AxonIntracellularConverter):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            icephys = metadata["Icephys"]
            for stream_id in self.data_interface_objects:
                series = icephys["PatchClampSeries"][series_keys[stream_id]]
                electrode = icephys["IntracellularElectrodes"][series["electrode_metadata_key"]]
                electrode["description"], series["description"] = descriptions[stream_id]
                if "device_metadata_key" not in electrode:
                    electrode["device_metadata_key"] = _DEVICE_KEY
                    metadata.setdefault("Devices", {})[_DEVICE_KEY] = {
                        "name": "Amplifier",
                        "description": _UNNAMED_AMPLIFIER,
                    }
            return metadata

    converter: NWBConverter = AxonPatchClamp(data_interfaces=interfaces)
    return converter


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=_NEEDS,
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    check_choice=_check_choice,
    facts=_facts,
    progress="whole",
    modality="icephys",
)

"""Plexon PLX: spike times sorted into units (Plexon MAP/OmniPlex, Offline Sorter), one `.plx` file.

Only the sorted units are converted, into the NWB units table (neuroconv's PlexonSortingInterface).
A PLX file may also hold continuous signals, but no such file has been verified here, so they are
not offered as a recording; events and spike waveforms are not converted either.

Detection reads the file's headers only: the global header counts every unit's spikes and every
channel's events and samples, which also gives a lower bound for the file's size (a cut-off upload
is found without reading the data). neo's reader, under the neuroconv interface, walks every data
block of the file (~17 µs per block here), so the interface confirms the file at detection only
when the header counts few blocks; larger files are read in full at conversion.
"""

from __future__ import annotations

import traceback
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from .base import Detection, Stream, SupportedFormat, reader_view, short_reason, some_names

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "plexon"
_LABEL = "Plexon PLX (sorted spikes)"
_NEEDS = "the .plx file Plexon's software saved (its sorted units are converted)"
_MAGIC = b"PLEX"
# The global header counts spikes for channels 0-129 and units 0-4 (0: unsorted), events by channel
# number below 300, and continuous samples at 300 + channel number.
_COUNTED_CHANNELS, _COUNTED_UNITS = 130, 5
_FIRST_SLOW_COUNT = 300
_BLOCK_HEADER_BYTES = 16
# ~0.35 s of neo's block walk: the most detection spends confirming a file with the interface.
_MAX_BLOCKS_TO_CONFIRM = 20_000
# A header announcing more channels than this is damaged, not a recording.
_MAX_CHANNELS = 10_000


@dataclass(frozen=True)
class _PlxHeader:
    name: str
    size_bytes: int
    version: int
    start_time: datetime | None
    clock_hz: float  # timestamps count ticks of this clock
    duration_s: float
    spikes_per_unit: dict[tuple[int, int], int]  # (channel, unit) -> spikes
    event_counts: dict[str, int]  # event channel name -> events
    slow_channels: dict[str, int]  # continuous channel name -> samples
    waveforms: int
    software: str

    @property
    def spike_count(self) -> int:
        return sum(self.spikes_per_unit.values())

    @property
    def blocks(self) -> int:
        return self.spike_count + sum(self.event_counts.values())


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith((".plx", ".pl2")) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    names = [name for name in files if name.lower().endswith(".plx")]
    if not names:
        pl2 = [name for name in files if name.lower().endswith(".pl2")]
        raise RecordingProblem(
            f"{some_names(pl2) or 'The upload'} is a Plexon PL2 file, which this portal cannot convert yet. Export "
            "the sorted units to a .plx file with Plexon's software (e.g. Offline Sorter) and upload that."
            if pl2
            else f"The upload has no .plx file. Upload {_NEEDS}."
        )
    if len(names) > 1:
        raise RecordingProblem(
            f"The upload holds several Plexon files ({some_names(names)}). Upload one .plx file at a time: each is "
            "its own session."
        )
    (name,) = names
    header = _read_header(root, name)
    if header.spike_count == 0:
        continuous = (
            f" It holds continuous signals ({len(header.slow_channels)} channels)" if header.slow_channels else ""
        )
        raise RecordingProblem(
            f"{name} holds no spikes.{continuous} Only sorted units can be converted from a .plx file for now; "
            "sort the spikes in Offline Sorter and upload the sorted file."
        )
    if header.blocks <= _MAX_BLOCKS_TO_CONFIRM:
        _confirm_with_reader(root, name)
    channels = sorted({channel for channel, _ in header.spikes_per_unit})
    stream = Stream(
        id=name,
        label=(
            f"Sorted units of {Path(name).name}: {len(header.spikes_per_unit)} units on {len(channels)} channels "
            f"({header.spike_count:,} spikes)"
        ),
        channel_count=len(channels),
        sampling_rate_hz=header.clock_hz,
        duration_s=header.duration_s,
        size_bytes=header.size_bytes,
        files=(name,),
        kind="spikes",
    )
    file_metadata: dict[str, Any] = {
        "session_start_time": header.start_time.isoformat() if header.start_time else None,
        "device": f"Plexon acquisition system ({header.software})" if header.software else "Plexon acquisition system",
        "channel_count": len(channels),
        "sampling_rate_hz": header.clock_hz,
        "duration_s": header.duration_s,
        "size_bytes": header.size_bytes,
        "unit_count": len(header.spikes_per_unit),
        "spike_count": header.spike_count,
        "plx_version": header.version,
    }
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=(stream,),
        default_streams=(stream.id,),
        file_metadata=file_metadata,
        notes=tuple(_notes(header, [other for other in files if other != name])),
    )


def _read_header(root: Path, name: str) -> _PlxHeader:
    """The global and channel headers (a few hundred kB at most), checked against the file's size."""
    from neo.rawio.plexonrawio import DspChannelHeader, EventChannelHeader, GlobalHeader, SlowChannelHeader

    path = root / name
    size = path.stat().st_size
    global_dtype = np.dtype(GlobalHeader)
    with path.open("rb") as handle:
        head = handle.read(global_dtype.itemsize)
    if head[:4] != _MAGIC:
        raise RecordingProblem(
            f"{name} is not a Plexon PLX file (it does not start with the PLX signature). Upload the .plx file "
            "exactly as Plexon's software saved it."
        )
    incomplete = RecordingProblem(
        f"{name} is incomplete: it is {size:,} bytes, shorter than its own header says it should be. The upload or "
        "copy was probably cut off; upload the file again."
    )
    if len(head) < global_dtype.itemsize:
        raise incomplete
    values = np.frombuffer(head, dtype=global_dtype)[0]
    counts = {key: int(values[key]) for key in ("NumDSPChannels", "NumEventChannels", "NumSlowChannels")}
    if any(not 0 <= count <= _MAX_CHANNELS for count in counts.values()) or int(values["ADFrequency"]) <= 0:
        raise RecordingProblem(
            f"{name} has a damaged header (channel counts {counts}, clock {int(values['ADFrequency'])} Hz). Upload "
            "the .plx file exactly as Plexon's software saved it."
        )
    layout = (
        (DspChannelHeader, counts["NumDSPChannels"]),
        (EventChannelHeader, counts["NumEventChannels"]),
        (SlowChannelHeader, counts["NumSlowChannels"]),
    )
    headers_end = global_dtype.itemsize + sum(np.dtype(dtype).itemsize * count for dtype, count in layout)
    if size < headers_end:
        raise incomplete
    offset = global_dtype.itemsize
    tables = []
    for dtype, count in layout:
        tables.append(np.fromfile(path, dtype=np.dtype(dtype), count=count, offset=offset))
        offset += np.dtype(dtype).itemsize * count
    _, event_headers, slow_headers = tables

    spikes = np.asarray(values["TSCounts"]).reshape(_COUNTED_CHANNELS, _COUNTED_UNITS)
    spikes_per_unit = {
        (int(channel), int(unit)): int(spikes[channel, unit]) for channel, unit in np.argwhere(spikes > 0)
    }
    event_counts_by_number = np.asarray(values["EVCounts"])
    event_counts = {
        _text(header["Name"]): int(event_counts_by_number[int(header["Channel"])])
        for header in event_headers
        if 0 <= int(header["Channel"]) < _FIRST_SLOW_COUNT and event_counts_by_number[int(header["Channel"])] > 0
    }
    slow_channels = {
        _text(header["Name"]): int(event_counts_by_number[_FIRST_SLOW_COUNT + int(header["Channel"])])
        for header in slow_headers
        if 0 <= _FIRST_SLOW_COUNT + int(header["Channel"]) < len(event_counts_by_number)
        and event_counts_by_number[_FIRST_SLOW_COUNT + int(header["Channel"])] > 0
    }
    waveforms = int(np.asarray(values["WFCounts"]).sum())
    # Every spike and event is a 16-byte block header, plus its waveform's samples; every continuous
    # sample is 2 bytes. Counts cover only the first channels, so this is a lower bound.
    least_data = (
        _BLOCK_HEADER_BYTES * (sum(spikes_per_unit.values()) + sum(event_counts.values()))
        + 2 * int(values["NumPointsWave"]) * waveforms
        + 2 * sum(slow_channels.values())
    )
    if size < headers_end + least_data:
        raise incomplete
    clock = float(values["ADFrequency"])
    return _PlxHeader(
        name=name,
        size_bytes=size,
        version=int(values["Version"]),
        start_time=_start_time(values),
        clock_hz=clock,
        duration_s=float(values["LastTimestamp"]) / clock,
        spikes_per_unit=spikes_per_unit,
        event_counts=event_counts,
        slow_channels=slow_channels,
        waveforms=waveforms,
        software=" ".join(_text(values["AcquiringSoftware"]).split()),
    )


def _text(raw: Any) -> str:
    """A fixed-width C string from the header: up to its first NUL."""
    data = raw if isinstance(raw, bytes) else bytes(raw)
    return data.split(b"\x00")[0].decode("latin-1").strip()


def _start_time(values: Any) -> datetime | None:
    try:
        year, month, day, hour, minute, second = (
            int(values[key]) for key in ("Year", "Month", "Day", "Hour", "Minute", "Second")
        )
        return datetime(year, month, day, hour, minute, second)
    except ValueError:  # a zeroed or damaged date: asked for instead
        return None


def _confirm_with_reader(root: Path, name: str) -> None:
    from neuroconv.datainterfaces import PlexonSortingInterface

    try:
        PlexonSortingInterface(file_path=root / name)
    except Exception as error:  # any reader failure is a property of the user's file
        raise RecordingProblem(
            f"{name} could not be read as a Plexon PLX file ({short_reason(error)}). It may be incomplete or "
            "damaged: upload it again exactly as Plexon's software saved it.",
            detail=traceback.format_exc(),
        ) from error


def _notes(header: _PlxHeader, others: Sequence[str]) -> list[str]:
    notes = ["Only the sorted units (their spike times) are converted, into the NWB units table."]
    unsorted = {channel: count for (channel, unit), count in header.spikes_per_unit.items() if unit == 0}
    if unsorted:
        notes.append(
            f"{sum(unsorted.values()):,} spikes on {len(unsorted)} channels were never sorted (Plexon's unit 0); each "
            "channel's unsorted spikes are written as one unit of their own."
        )
    if header.event_counts:
        events = ", ".join(f"{name} ({count:,})" for name, count in header.event_counts.items())
        notes.append(f"The file's events are not converted: {events}.")
    if header.waveforms:
        notes.append(f"The {header.waveforms:,} spike waveforms saved in the file are not converted.")
    if header.slow_channels:
        notes.append(
            f"The file also holds continuous signals ({len(header.slow_channels)} channels: "
            f"{some_names(list(header.slow_channels))}), which are not converted: reading them from .plx files has "
            "not been verified here yet."
        )
    if header.start_time is None:
        notes.append(f"{header.name} does not say when the recording started; you will be asked for it.")
    if others:
        notes.append(f"These files are not part of the Plexon file and were left out: {some_names(others)}.")
    return notes


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    return reader_view(root, {name: name for name in stream_ids})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """The sorted units of the file, described by where they come from (neuroconv would write
    "Autogenerated by neuroconv." as the units table's description)."""
    from neuroconv import ConverterPipe
    from neuroconv.datainterfaces import PlexonSortingInterface

    interfaces = {name: PlexonSortingInterface(file_path=folder / name) for name in stream_ids}
    for interface in interfaces.values():
        # A property, not neuroconv's rename_unit_ids: that swaps the extractor for one without the
        # neo reader, which the interface's get_metadata (start time) then fails to find.
        sorting = interface.sorting_extractor
        sorting.set_property("unit_name", _unit_names(sorting))
    descriptions = {
        name: (
            f"Units sorted with Plexon's software, read from {Path(name).name}. Each unit is named as Plexon names "
            "it: the channel and the unit's letter (sig001a is channel sig001's first unit); a channel's unsorted "
            "spikes form a unit named '<channel> unsorted'."
        )
        for name in stream_ids
    }

    class PlexonUnits(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            # neuroconv's sorting interface reads metadata["Ecephys"] when writing, but its get_metadata
            # gives none: without it, writing fails with KeyError 'Ecephys'.
            metadata.setdefault("Ecephys", {})
            return metadata

        def add_to_nwbfile(self, nwbfile: Any, metadata: Any = None, conversion_options: Any = None) -> None:
            options = {
                name: {"units_description": descriptions[name], **(conversion_options or {}).get(name, {})}
                for name in self.data_interface_objects
            }
            super().add_to_nwbfile(nwbfile=nwbfile, metadata=metadata, conversion_options=options)

    converter: NWBConverter = PlexonUnits(data_interfaces=interfaces)
    return converter


def _unit_names(sorting: Any) -> list[str]:
    """Plexon's own names for the units, in spikeinterface's order (it numbers them 0, 1, ...): the
    channel's name and the unit's letter, a for unit 1, b for unit 2..., unit 0 being the unsorted spikes."""
    names = []
    for channel in sorting.neo_reader.header["spike_channels"]:
        unit = int(str(channel["id"]).rpartition("#")[2])
        names.append(f"{channel['name']} unsorted" if unit == 0 else f"{channel['name']}{chr(ord('a') + unit - 1)}")
    # Names are unique in files Plexon writes; keep spikeinterface's numbers otherwise.
    return names if len(set(names)) == len(names) else [str(unit_id) for unit_id in sorting.get_unit_ids()]


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=_NEEDS,
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    progress="whole",
)

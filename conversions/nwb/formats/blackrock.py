"""Blackrock (Cerebus, NeuroPort, Gemini): `.ns1`-`.ns6` continuous files and the `.nev` event file.

One recording is saved as one file per sampling group, all with the recording's name: `.ns2`
(e.g. 1 kHz, for LFP), `.ns5`/`.ns6` (30 kHz, raw), ... and `.nev` (spike times and waveforms
detected online, digital events, comments). Each nsX file is a stream; those holding electrode
channels are converted by default. An nsX file holding only the system's analog inputs (channels
labelled `ainp`, or in millivolts) is written as a time series. The spikes in the `.nev` file are
offered as a stream written as units.

Files start with their format: `NEURALSG` (file spec 2.1, the oldest: no start time and no scaling,
both of which come from the `.nev`), `NEURALCD` (2.2-3.0), `NEURALEV` (.nev). Checks read headers
and the headers of data packets, never the data; readers get a view where each file sits in a
folder of its own, so neo never pairs files by name behind our back (the files of one recording
need not share one: users rename them).
"""

from __future__ import annotations

import re
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

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
    from neuroconv.basedatainterface import BaseDataInterface

_KEY = "blackrock"
_LABEL = "Blackrock"
_NSX_SUFFIX = re.compile(r"\.ns([1-6])$", re.IGNORECASE)
_NEV_SUFFIX = ".nev"
# Neuralynx's continuous, spike and video files: an upload with them is Neuralynx, whose events are .nev too.
_NEURALYNX_SUFFIXES = (".ncs", ".nse", ".ntt", ".nst", ".nvt")
_SPIKES = "spikes"
_NEV_FOLDER = "nev"  # where reader views put the .nev file
_LEGACY_ID = b"NEURALSG"  # file spec 2.1
_NSX_IDS = (b"NEURALCD", b"BRSMPGRP")  # file spec 2.2 and later: the version follows
_NEV_IDS = (b"NEURALEV", b"BREVENTS")
# Every Blackrock sampling rate is the 30 kHz clock divided by the file's period.
_CLOCK_HZ = 30000.0
# File spec 3.0 from Gemini systems may time each sample in nanoseconds (Precision Time Protocol).
_PTP_RESOLUTION = 1_000_000_000
# A known Cerebus bug stores this digitization factor; the true value is Blackrock's (as neo and NPMK do).
_BROKEN_DIGITIZATION = (21516, 152592.547)
# neo only reads the headers of the packets in the copies detection confirms with; enough for readers.
_NEV_PACKETS_CHECKED = 2000
_PTP_PACKETS_CHECKED = 1000
_NEV_BASIC_HEADER = np.dtype(
    [
        ("file_type_id", "S8"),
        ("ver_major", "u1"),
        ("ver_minor", "u1"),
        ("additional_flags", "<u2"),
        ("bytes_in_headers", "<u4"),
        ("bytes_in_data_packets", "<u4"),
        ("timestamp_resolution", "<u4"),
        ("sample_resolution", "<u4"),
        ("time_origin", "<u2", (8,)),
        ("application", "S32"),
        ("comment", "S256"),
        ("nb_ext_headers", "<u4"),
    ]
)
_NEV_EXT_HEADER_BYTES = 32


@dataclass(frozen=True)
class _Nsx:
    """One nsX file as its headers say."""

    name: str  # relative to the upload root
    number: int  # the X of .nsX
    spec: str  # file spec: "2.1", "2.2", "2.3" or "3.0"
    size_bytes: int
    header_bytes: int
    packet_bytes: int  # PTP files: every packet holds one sample; 0 otherwise
    rate_hz: float
    electrode_ids: tuple[int, ...]
    labels: tuple[str, ...]
    analog: tuple[bool, ...]  # per channel: an analog input of the system, not an electrode
    parts: tuple[int, ...]  # samples in each data packet (parts between pauses)
    start_time: datetime | None
    has_gaps: bool  # PTP files: the nanosecond clock says samples are missing

    @property
    def stream_id(self) -> str:
        return f"ns{self.number}"

    @property
    def neural(self) -> bool:
        return not all(self.analog)


@dataclass(frozen=True)
class _Nev:
    """The .nev file as its headers say."""

    name: str
    spec: str
    size_bytes: int
    header_bytes: int
    packet_bytes: int
    packets: int
    resolution_hz: float
    start_time: datetime | None
    application: str
    digitization_nv: dict[int, float]  # per electrode id: nanovolts per bit
    last_timestamp: int


def _claims(files: Sequence[str]) -> bool:
    """Any .nsX file; a .nev file only without Neuralynx's data files (Neuralynx names its events .nev too)."""
    if any(_NSX_SUFFIX.search(name) for name in files):
        return True
    neuralynx = any(PurePosixPath(name).suffix.lower() in _NEURALYNX_SUFFIXES for name in files)
    return not neuralynx and any(name.lower().endswith(_NEV_SUFFIX) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    nsx_names, nev_name = _one_recording(files)
    problems: list[str] = []
    nsxs = [nsx for nsx in (_read_nsx(root, name, problems) for name in nsx_names) if nsx is not None]
    nev = _read_nev(root, nev_name, problems) if nev_name else None
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    _refuse_what_readers_cannot_convert(nsxs, nev)
    streams = _confirm_with_reader(root, nsxs, nev)
    neural = [nsx.stream_id for nsx in nsxs if nsx.neural]
    continuous = [nsx.stream_id for nsx in nsxs]
    default_streams = tuple(neural or continuous or [_SPIKES])
    start_time = next((nsx.start_time for nsx in nsxs if nsx.start_time), None) or (nev.start_time if nev else None)
    recording: dict[str, Any] = {
        "session_start_time": start_time.isoformat() if start_time else None,
        "device": _device_words(nev),
        "file_spec": (nsxs[0].spec if nsxs else nev.spec if nev else ""),
        # What `_facts` needs for any choice: an electrode recorded in two files is one channel, and
        # the .nev that several streams need is read once.
        "stream_electrodes": {
            nsx.stream_id: [eid for eid, analog in zip(nsx.electrode_ids, nsx.analog, strict=True) if not analog]
            for nsx in nsxs
            if nsx.neural
        },
        "file_sizes": {nsx.name: nsx.size_bytes for nsx in nsxs} | ({nev.name: nev.size_bytes} if nev else {}),
    }
    ignored = [name for name in files if name not in nsx_names and name != nev_name]
    detection = Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=streams,
        default_streams=default_streams,
        file_metadata=recording,
        notes=tuple(_notes(nsxs, nev, streams, default_streams, start_time, ignored)),
    )
    return replace(detection, file_metadata={**_facts(detection, default_streams), **recording})


def _facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    """The facts of the chosen streams; channels are electrodes, each counted once, when any is chosen."""
    facts = stream_facts(detection, stream_ids)
    by_stream = detection.file_metadata.get("stream_electrodes")
    if isinstance(by_stream, Mapping):  # detections stored before streams could be chosen lack it
        electrodes = {eid for stream_id in stream_ids for eid in by_stream.get(stream_id, ())}
        streams = [detection.stream(stream_id) for stream_id in stream_ids]
        signals = [stream for stream in streams if stream.kind != "spikes"] or streams
        facts["channel_count"] = len(electrodes) or sum(stream.channel_count for stream in signals)
    return facts


def _one_recording(files: Sequence[str]) -> tuple[list[str], str | None]:
    """The nsX files (by number) and the .nev of one recording; refuses an upload holding several."""
    by_kind: dict[str, list[str]] = {}
    for name in files:
        match = _NSX_SUFFIX.search(name)
        kind = f"ns{match[1]}" if match else _NEV_SUFFIX if name.lower().endswith(_NEV_SUFFIX) else None
        if kind:
            by_kind.setdefault(kind, []).append(name)
    if not by_kind:
        raise RecordingProblem(
            "The upload has no Blackrock file (.ns1 to .ns6, or .nev). Upload the files the Blackrock software saved."
        )
    repeated = sorted(name for names in by_kind.values() if len(names) > 1 for name in names)
    if repeated:
        raise RecordingProblem(
            f"The upload holds several Blackrock recordings (more than one file of one kind: {some_names(repeated)}). "
            "Upload one recording at a time: its .nsX files and its .nev file."
        )
    nsx_names = [names[0] for kind, names in sorted(by_kind.items()) if kind != _NEV_SUFFIX]
    return nsx_names, by_kind.get(_NEV_SUFFIX, [None])[0]


def _read_nsx(root: Path, name: str, problems: list[str]) -> _Nsx | None:
    """Read and check one nsX file's headers; appends to `problems` and returns None if unusable."""
    from neo.rawio.blackrockrawio import NSX_BASIC_HEADER_TYPES, NSX_DATA_HEADER_TYPES, NSX_EXT_HEADER_TYPES

    path = root / name
    size = path.stat().st_size
    number = int(_NSX_SUFFIX.search(name)[1])  # type: ignore[index]  # claimed by this pattern
    with path.open("rb") as handle:
        start = handle.read(10)
        if start[:8] == _LEGACY_ID:
            spec = "2.1"
        elif start[:8] in _NSX_IDS and len(start) == 10:
            spec = f"{start[8]}.{start[9]}"
        else:
            problems.append(
                f"{name} is not a Blackrock data file: it does not start with NEURALCD or NEURALSG as every .nsX "
                "file does. It may be damaged, or another kind of file renamed. Upload the file the Blackrock "
                "software saved."
            )
            return None
        if spec not in NSX_EXT_HEADER_TYPES:
            problems.append(
                f"{name} is a Blackrock file of spec {spec}, which the converter cannot read (it reads 2.1 to 3.0)."
            )
            return None
        basic_type = np.dtype(NSX_BASIC_HEADER_TYPES[spec])
        ext_type = np.dtype(NSX_EXT_HEADER_TYPES[spec])
        handle.seek(0)
        raw = handle.read(basic_type.itemsize)
        if len(raw) < basic_type.itemsize:
            problems.append(f"{name} is cut short inside its header. Upload the whole file again.")
            return None
        basic = np.frombuffer(raw, dtype=basic_type)[0]
        channels = int(basic["channel_count"])
        period = int(basic["period"])
        header_bytes = basic_type.itemsize + ext_type.itemsize * channels
        if spec != "2.1":
            header_bytes = int(basic["bytes_in_headers"])
        raw = handle.read(ext_type.itemsize * channels)
    if channels == 0 or period == 0 or len(raw) < ext_type.itemsize * channels or size < header_bytes:
        problems.append(
            f"{name} has a damaged or incomplete header (it lists {channels} channels). Upload the file the "
            "Blackrock software saved again."
        )
        return None
    ext = np.frombuffer(raw, dtype=ext_type)
    electrode_ids = tuple(int(value) for value in ext["electrode_id"])
    if spec == "2.1":
        # As neo labels them: the NSP's analog inputs come after its 128 front-end channels.
        labels = tuple(f"chan{eid}" if eid < 129 else f"ainp{eid - 128}" for eid in electrode_ids)
        analog = tuple(eid > 128 for eid in electrode_ids)
    else:
        labels = tuple(_text(label) for label in ext["electrode_label"])
        units = tuple(_text(unit) for unit in ext["units"])
        # Central labels analog inputs "ainp<n>" and records them in mV; electrodes are in uV.
        analog = tuple(
            label.lower().startswith("ainp") or unit == "mV" for label, unit in zip(labels, units, strict=True)
        )
    rate = _CLOCK_HZ / period
    frame = 2 * channels
    packet_bytes = 0
    has_gaps = False
    start_time = None
    if spec == "2.1":
        data = size - header_bytes
        if data % frame:
            problems.append(_incomplete(name, f"its data is not a whole number of samples of {channels} channels"))
            return None
        parts: tuple[int, ...] = (max(data // frame - 1, 0),)  # neo leaves out the last sample
    else:
        start_time = _time_origin([int(basic[key]) for key in _TIME_FIELDS])
        resolution = int(basic["timestamp_resolution"])
        ptp = np.dtype(NSX_DATA_HEADER_TYPES["3.0-ptp"](channels))
        if spec == "3.0" and resolution == _PTP_RESOLUTION and _first_packet_samples(path, header_bytes, ptp) == 1:
            packet_bytes = ptp.itemsize
            if (size - header_bytes) % packet_bytes:
                problems.append(_incomplete(name, "its last sample is cut off"))
                return None
            count = (size - header_bytes) // packet_bytes
            parts = (count,)
            has_gaps = _ptp_has_gaps(path, header_bytes, packet_bytes, count, rate)
        else:
            walked = _walk_packets(path, header_bytes, np.dtype(NSX_DATA_HEADER_TYPES[spec]), frame, size)
            if isinstance(walked, str):
                problems.append(_incomplete(name, walked) if "cut" in walked else f"{name} is damaged: {walked}.")
                return None
            parts = walked
    if not sum(parts):
        problems.append(f"{name} holds no samples (the recording stopped at once). Upload a file with data.")
        return None
    return _Nsx(
        name=name,
        number=number,
        spec=spec,
        size_bytes=size,
        header_bytes=header_bytes,
        packet_bytes=packet_bytes,
        rate_hz=rate,
        electrode_ids=electrode_ids,
        labels=labels,
        analog=analog,
        parts=parts,
        start_time=start_time,
        has_gaps=has_gaps,
    )


_TIME_FIELDS = ("year", "month", "weekday", "day", "hour", "minute", "second", "millisecond")


def _text(value: bytes) -> str:
    return value.split(b"\x00", 1)[0].decode("latin-1").strip()


def _incomplete(name: str, why: str) -> str:
    return f"{name} is incomplete ({why}): the file was cut off, probably during the upload or a copy. Upload it again."


def _time_origin(fields: Sequence[int]) -> datetime | None:
    """Blackrock's time origin (a Windows SYSTEMTIME: year, month, weekday, day, ...) as a naive datetime."""
    year, month, _, day, hour, minute, second, millisecond = fields
    try:
        moment = datetime(year, month, day, hour, minute, second, millisecond * 1000)
    except ValueError:  # zeros when the time was removed, or a damaged header
        return None
    return moment if moment.year >= 1990 else None


def _first_packet_samples(path: Path, header_bytes: int, ptp: np.dtype[Any]) -> int | None:
    with path.open("rb") as handle:
        handle.seek(header_bytes)
        raw = handle.read(ptp.itemsize)
    return int(np.frombuffer(raw, dtype=ptp)[0]["num_data_points"]) if len(raw) == ptp.itemsize else None


def _ptp_has_gaps(path: Path, header_bytes: int, packet_bytes: int, count: int, rate: float) -> bool:
    """Whether the nanosecond clock ran longer than the samples: compared at the ends only (neo reads all)."""
    with path.open("rb") as handle:
        handle.seek(header_bytes + 1)
        first = int(np.frombuffer(handle.read(8), dtype="<u8")[0])
        handle.seek(header_bytes + (count - 1) * packet_bytes + 1)
        last = int(np.frombuffer(handle.read(8), dtype="<u8")[0])
    expected = (count - 1) / rate * _PTP_RESOLUTION
    return last - first > expected + 2 * _PTP_RESOLUTION / rate


def _walk_packets(
    path: Path, header_bytes: int, packet_header: np.dtype[Any], frame: int, size: int
) -> tuple[int, ...] | str:
    """Samples in each data packet, read from the packets' headers as neo does; a problem as text."""
    parts: list[int] = []
    offset = header_bytes
    with path.open("rb") as handle:
        while offset < size:
            handle.seek(offset)
            raw = handle.read(packet_header.itemsize)
            if len(raw) < packet_header.itemsize:
                return "it is cut off inside a data packet's header"
            header = np.frombuffer(raw, dtype=packet_header)[0]
            if int(header["header_flag"]) != 1:
                return f"no data packet starts where one should (byte {offset:,})"
            samples = int(header["nb_data_points"])
            offset += packet_header.itemsize + samples * frame
            if offset > size:
                return f"its last data packet is cut off ({samples:,} samples announced)"
            parts.append(samples)
    return tuple(parts)


def _read_nev(root: Path, name: str, problems: list[str]) -> _Nev | None:
    """Read and check the .nev file's headers; appends to `problems` and returns None if unusable."""
    from neo.rawio.blackrockrawio import NEV_EXT_HEADER_TYPES_BY_SPEC

    path = root / name
    size = path.stat().st_size
    with path.open("rb") as handle:
        raw = handle.read(_NEV_BASIC_HEADER.itemsize)
        if len(raw) < _NEV_BASIC_HEADER.itemsize or raw[:8] not in _NEV_IDS:
            problems.append(
                f"{name} is not a Blackrock event file: it does not start with NEURALEV as every .nev file does. "
                "It may be damaged, or another kind of file renamed. Upload the file the Blackrock software saved."
            )
            return None
        basic = np.frombuffer(raw, dtype=_NEV_BASIC_HEADER)[0]
        spec = f"{int(basic['ver_major'])}.{int(basic['ver_minor'])}"
        if spec not in NEV_EXT_HEADER_TYPES_BY_SPEC:
            problems.append(
                f"{name} is a Blackrock event file of spec {spec}, which the converter cannot read (it reads 2.1 "
                "to 3.0)."
            )
            return None
        extended = int(basic["nb_ext_headers"])
        raw = handle.read(extended * _NEV_EXT_HEADER_BYTES)
    header_bytes = int(basic["bytes_in_headers"])
    packet_bytes = int(basic["bytes_in_data_packets"])
    if len(raw) < extended * _NEV_EXT_HEADER_BYTES or size < header_bytes or packet_bytes < 8:
        problems.append(f"{name} has a damaged or incomplete header. Upload the file the Blackrock software saved.")
        return None
    waveform_type = np.dtype(NEV_EXT_HEADER_TYPES_BY_SPEC[spec][b"NEUEVWAV"])
    raw_ext = np.frombuffer(raw, dtype=[("packet_id", "S8"), ("info", "S24")])
    waveforms = raw_ext.view(waveform_type)[raw_ext["packet_id"] == b"NEUEVWAV"]
    digitization = {
        int(eid): (_BROKEN_DIGITIZATION[1] if int(factor) == _BROKEN_DIGITIZATION[0] else float(factor))
        for eid, factor in zip(waveforms["electrode_id"], waveforms["digitization_factor"], strict=True)
    }
    # neo and Blackrock's own tools drop a partial last packet: it is not a sign of a cut file.
    packets = (size - header_bytes) // packet_bytes
    last = 0
    if packets:
        counter = "<u8" if int(basic["ver_major"]) >= 3 else "<u4"
        with path.open("rb") as handle:
            handle.seek(header_bytes + (packets - 1) * packet_bytes)
            last = int(np.frombuffer(handle.read(np.dtype(counter).itemsize), dtype=counter)[0])
    return _Nev(
        name=name,
        spec=spec,
        size_bytes=size,
        header_bytes=header_bytes,
        packet_bytes=packet_bytes,
        packets=packets,
        resolution_hz=float(basic["timestamp_resolution"]) or _CLOCK_HZ,
        start_time=_time_origin([int(value) for value in basic["time_origin"]]),
        application=_text(basic["application"]),
        digitization_nv=digitization,
        last_timestamp=last,
    )


def _refuse_what_readers_cannot_convert(nsxs: Sequence[_Nsx], nev: _Nev | None) -> None:
    for nsx in nsxs:
        if nsx.spec == "2.1":
            if nev is None:
                raise RecordingProblem(
                    f"{nsx.name} is in Blackrock's oldest file format (2.1), which does not say how its numbers "
                    "convert to microvolts: that is in the .nev file recorded with it. Upload the .nev file together "
                    "with it."
                )
            if any(eid not in nev.digitization_nv for eid in nsx.electrode_ids):
                raise RecordingProblem(
                    f"{nsx.name} is in Blackrock's oldest file format (2.1), whose conversion to microvolts comes "
                    f"from the .nev file, but {nev.name} does not describe all its channels, so they are not from the "
                    "same recording. Upload the .nev file recorded with it."
                )
        if nsx.has_gaps:
            raise RecordingProblem(
                f"{nsx.name} has gaps in time (its clock says samples are missing, e.g. while the recording was "
                "paused or data was lost), which the converter cannot place in time yet. Upload a recording without "
                "gaps, or split it at the gaps with Blackrock's tools."
            )


def _confirm_with_reader(root: Path, nsxs: Sequence[_Nsx], nev: _Nev | None) -> tuple[Stream, ...]:
    """Open each stream with its neuroconv interface (headers only) and describe it."""
    from neuroconv.datainterfaces import BlackrockRecordingInterface, BlackrockSortingInterface

    streams: list[Stream] = []
    for nsx in nsxs:
        # The .nev gives a spec 2.1 file its scaling, and any file without a start time its start time.
        needs_nev = nev is not None and (nsx.spec == "2.1" or nsx.start_time is None)
        files = (nsx.name, nev.name) if needs_nev and nev else (nsx.name,)
        view_name = f"{nsx.stream_id}/{_reader_name(nsx.name)}"
        # Reading a PTP file checks the clock of every sample; a copy of its start is enough here.
        contents = {view_name: _head(root / nsx.name, nsx.header_bytes + nsx.packet_bytes * _PTP_PACKETS_CHECKED)}
        with reader_view(root, {view_name: nsx.name}, contents=contents if nsx.packet_bytes else None) as view:
            try:
                with _scaling_set_from_the_nev():
                    recording = BlackrockRecordingInterface(file_path=view / view_name).recording_extractor
                channel_count = int(recording.get_num_channels())
                rate = float(recording.get_sampling_frequency())
            except Exception as error:  # any reader failure is a property of the user's file
                raise _unreadable(nsx.name, error) from error
        streams.append(
            Stream(
                id=nsx.stream_id,
                label=_label(nsx),
                channel_count=channel_count,
                sampling_rate_hz=rate,
                duration_s=sum(nsx.parts) / rate,
                size_bytes=sum((root / name).stat().st_size for name in files),
                files=files,
                kind="neural" if nsx.neural else "auxiliary",
            )
        )
    if nev is not None and nev.packets:
        view_name = f"{_NEV_FOLDER}/{_reader_name(nev.name)}"
        head = _head(root / nev.name, nev.header_bytes + nev.packet_bytes * _NEV_PACKETS_CHECKED)
        with reader_view(root, {view_name: nev.name}, contents={view_name: head}) as view:
            try:
                BlackrockSortingInterface(file_path=view / view_name, sampling_frequency=nev.resolution_hz)
            except Exception as error:  # any reader failure is a property of the user's file
                raise _unreadable(nev.name, error) from error
        streams.append(
            Stream(
                id=_SPIKES,
                label=f"Spikes detected online by the Blackrock system ({PurePosixPath(nev.name).name}, "
                f"{len(nev.digitization_nv)} channels)",
                channel_count=len(nev.digitization_nv),
                sampling_rate_hz=nev.resolution_hz,
                duration_s=nev.last_timestamp / nev.resolution_hz,
                size_bytes=nev.size_bytes,
                files=(nev.name,),
                kind="spikes",
            )
        )
    if not streams:
        raise RecordingProblem(
            f"{nev.name if nev else 'The upload'} holds no signals and no spikes: there is nothing to convert. "
            "Upload the recording's .nsX files too."
        )
    return tuple(streams)


def _reader_name(name: str) -> str:
    """The file's name with its suffix in lower case, as neo and spikeinterface expect it."""
    path = PurePosixPath(name)
    return f"{path.stem}{path.suffix.lower()}"


@contextmanager
def _scaling_set_from_the_nev() -> Iterator[None]:
    """neo warns that it reads a spec 2.1 file without scaling: spikeinterface keeps the .nev from it,
    and the scaling is set from the .nev here instead."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Cannot rescale to voltage", category=UserWarning)
        yield


def _head(path: Path, length: int) -> bytes:
    with path.open("rb") as handle:
        return handle.read(length)


def _unreadable(name: str, error: BaseException) -> RecordingProblem:
    return RecordingProblem(
        f"{name} could not be read as a Blackrock recording ({short_reason(error)}). Check that it is complete and "
        "exactly as the Blackrock software saved it, then upload it again.",
        detail=traceback.format_exc(),
    )


def _label(nsx: _Nsx) -> str:
    rate = f"{nsx.rate_hz / 1000:g} kHz" if nsx.rate_hz >= 1000 else f"{nsx.rate_hz:g} Hz"
    electrodes = nsx.analog.count(False)
    inputs = nsx.analog.count(True)
    if not electrodes:
        what = f"Analog inputs at {rate} ({PurePosixPath(nsx.name).name}: {some_names(nsx.labels, limit=3)})"
    elif inputs:
        what = f"Electrode signals and analog inputs at {rate} ({PurePosixPath(nsx.name).name})"
    else:
        what = f"Electrode signals at {rate} ({PurePosixPath(nsx.name).name})"
    return f"{what}, {len(nsx.labels)} channel{'s' if len(nsx.labels) != 1 else ''}"


def _device_words(nev: _Nev | None) -> str:
    software = f", files written by {nev.application}" if nev and nev.application else ""
    return f"Blackrock neural signal processor{software}"


def _notes(
    nsxs: Sequence[_Nsx],
    nev: _Nev | None,
    streams: Sequence[Stream],
    default_streams: Sequence[str],
    start_time: datetime | None,
    ignored: Sequence[str],
) -> list[str]:
    notes: list[str] = []
    stems = {PurePosixPath(nsx.name).stem for nsx in nsxs} | ({PurePosixPath(nev.name).stem} if nev else set())
    if len(stems) > 1:
        names = [nsx.name for nsx in nsxs] + ([nev.name] if nev else [])
        notes.append(
            f"The files do not share one name ({', '.join(names)}); they were taken as one recording because they "
            "were uploaded together. If they are not, upload each recording on its own."
        )
    if start_time is None:
        notes.append("The files do not say when the recording started; you will be asked for it.")
    legacy = [nsx.name for nsx in nsxs if nsx.spec == "2.1"]
    if legacy and nev:
        notes.append(
            f"{', '.join(legacy)} {'is' if len(legacy) == 1 else 'are'} in Blackrock's oldest file format (2.1): "
            f"the conversion to microvolts{' and the start time' if start_time else ''} come from {nev.name}."
        )
    if not any(nsx.neural for nsx in nsxs) and nsxs:
        notes.append(
            "No file holds electrode channels, only the system's analog inputs: they are converted, as time series."
        )
    left_out = [stream.label for stream in streams if stream.id not in default_streams]
    if left_out:
        notes.append(f"Not converted unless chosen: {'; '.join(left_out)}.")
    if nev is not None and any(stream.id == _SPIKES for stream in streams):
        notes.append(
            f"If chosen, the spikes of {nev.name} are written as units, one per channel and online sorting class "
            "(class 0: unsorted, 255: noise); its digital events and comments are not converted."
        )
    for nsx in nsxs:
        if len(nsx.parts) > 1:
            notes.append(
                f"{nsx.name} was paused during the recording: its {len(nsx.parts)} parts are written as "
                "separate series, each with its own start."
            )
        electrodes, inputs = nsx.analog.count(False), nsx.analog.count(True)
        if electrodes and inputs:
            notes.append(
                f"{nsx.name} holds {inputs} analog input channel{'s' if inputs != 1 else ''} beside its electrodes; "
                "they are written with the electrodes."
            )
    if ignored:
        notes.append(f"These files are not part of the recording and were left out: {some_names(ignored)}.")
    return notes


# --- reading and converting ----------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """Each chosen stream's file in a folder named after the stream, and the .nev (if needed) in nev/."""
    names: dict[str, str] = {}
    for stream_id in stream_ids:
        for name in detection.stream(stream_id).files:
            folder = _NEV_FOLDER if name.lower().endswith(_NEV_SUFFIX) else stream_id
            names[f"{folder}/{_reader_name(name)}"] = name
    return reader_view(root, names)


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream in a ConverterPipe, keyed by stream id.

    Electrode streams are ElectricalSeries named after their file ("ElectricalSeriesNs5"), sharing
    one electrode group of one Blackrock device (an electrode recorded in two files is one row);
    analog-input streams are TimeSeries; spikes are units. The start time and, for file spec 2.1,
    the scaling come from the headers, as neuroconv would read them only in part.
    """
    from neuroconv import ConverterPipe

    nev_files = sorted((folder / _NEV_FOLDER).glob("*")) if (folder / _NEV_FOLDER).is_dir() else []
    problems: list[str] = []
    nev = _read_nev(folder, nev_files[0].relative_to(folder).as_posix(), problems) if nev_files else None
    nsxs = {
        stream_id: _read_nsx(folder, next((folder / stream_id).iterdir()).relative_to(folder).as_posix(), problems)
        for stream_id in stream_ids
        if stream_id != _SPIKES
    }
    if problems:
        raise ValueError(" ".join(problems))
    interfaces: dict[str, BaseDataInterface] = {}
    series: dict[str, dict[str, Any]] = {}  # per stream: its series' metadata
    for stream_id, nsx in nsxs.items():
        assert nsx is not None  # problems were raised above
        interfaces[stream_id], series[stream_id] = _continuous_interface(folder / nsx.name, nsx, nev)
    electrical = [stream_id for stream_id, nsx in nsxs.items() if nsx and nsx.neural]
    if _SPIKES in stream_ids and nev is not None:
        interfaces[_SPIKES] = _spikes_interface(folder / nev.name, nev)
    start_time = next((nsx.start_time for nsx in nsxs.values() if nsx and nsx.start_time), None) or (
        nev.start_time if nev else None
    )
    device = {"name": "Blackrock", "description": f"{_device_words(nev)}."}
    group = {
        "name": "Blackrock",
        "description": "Channels recorded by the Blackrock system; the files do not say where the electrodes were.",
        "device_metadata_key": "blackrock",
    }

    class BlackrockStreams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            if start_time is not None:
                metadata["NWBFile"]["session_start_time"] = start_time.isoformat()
            for stream_id, fields in series.items():
                if stream_id in electrical:
                    metadata["Ecephys"]["ElectricalSeries"].setdefault(stream_id, {}).update(fields)
                else:
                    metadata["TimeSeries"].setdefault(stream_id, {}).update(fields)
            if electrical:
                metadata["Devices"] = {**metadata.get("Devices", {}), "blackrock": device}
                metadata["Ecephys"].setdefault("ElectrodeGroups", {})["Blackrock"] = group
            if _SPIKES in self.data_interface_objects:
                metadata["Ecephys"]["UnitProperties"] = [
                    {"name": "channel_id", "description": "The Blackrock channel (electrode) the spikes came from."},
                    {
                        "name": "unit_class",
                        "description": "Blackrock's online sorting class: 0 unsorted, 1-5 sorted units, 255 noise.",
                    },
                ]
            return metadata

    converter: NWBConverter = BlackrockStreams(data_interfaces=interfaces)
    return converter


def _continuous_interface(path: Path, nsx: _Nsx, nev: _Nev | None) -> tuple[BaseDataInterface, dict[str, Any]]:
    """The interface for one nsX file, and the fields of its series' metadata."""
    from neuroconv.datainterfaces import BlackrockRecordingInterface
    from neuroconv.datainterfaces.ecephys.baserecordingastimeseriesinterface import (
        BaseRecordingAsTimeSeriesInterface,
    )
    from neuroconv.datainterfaces.ecephys.baserecordingextractorinterface import BaseRecordingExtractorInterface
    from spikeinterface.extractors import read_blackrock

    name = f"{nsx.stream_id[0].upper()}{nsx.stream_id[1:]}"  # "Ns5"
    file_words = f"{PurePosixPath(nsx.name).name}, sampled at {nsx.rate_hz:g} Hz"

    def scaled(recording: Any) -> Any:
        if nsx.spec == "2.1" and nev is not None:
            # spikeinterface reads spec 2.1 without its .nev, so without the scaling neo would take from it.
            gains = [nev.digitization_nv[eid] / 1000 for eid in nsx.electrode_ids]
            recording.set_channel_gains(gains)
            recording.set_channel_offsets(0.0)
            recording.set_property("physical_unit", ["uV"] * len(gains))
            recording.set_property("gain_to_physical_unit", gains)
            recording.set_property("offset_to_physical_unit", [0.0] * len(gains))
        return recording

    if not nsx.neural:
        with _scaling_set_from_the_nev():
            recording = scaled(read_blackrock(path))
        gains = set(recording.get_channel_gains().tolist())
        offsets = set(recording.get_channel_offsets().tolist())
        fields: dict[str, Any] = {
            "name": f"TimeSeriesAnalogInputs{name}",
            "description": f"Analog inputs of the Blackrock system ({', '.join(nsx.labels)}), from {file_words}.",
            "unit": "volts",
        }
        if len(gains) == 1 and len(offsets) == 1:
            fields.update(conversion=gains.pop() * 1e-6, offset=offsets.pop() * 1e-6)

        class AnalogInputs(BaseRecordingAsTimeSeriesInterface):  # type: ignore[misc]  # no type hints
            def __init__(self) -> None:
                self.recording_extractor = recording
                self.metadata_key = nsx.stream_id
                super().__init__(file_path=str(path))

            def get_metadata(self) -> Any:
                metadata = super().get_metadata()
                metadata["TimeSeries"][self.metadata_key] = dict(fields)
                return metadata

        return AnalogInputs(), fields

    class Recording(BlackrockRecordingInterface):  # type: ignore[misc]  # no type hints
        def get_metadata(self) -> Any:
            # neuroconv's own reads the start time again and fails on a header without one.
            return BaseRecordingExtractorInterface.get_metadata(self)

    with _scaling_set_from_the_nev():
        interface = Recording(file_path=path, metadata_key=nsx.stream_id)
    recording = scaled(interface.recording_extractor)
    recording.set_property("group_name", ["Blackrock"] * recording.get_num_channels())
    return interface, {
        "name": f"ElectricalSeries{name}",
        "description": f"Signals of the Blackrock system, from {file_words}.",
    }


def _spikes_interface(path: Path, nev: _Nev) -> BaseDataInterface:
    from neuroconv.datainterfaces import BlackrockSortingInterface
    from neuroconv.datainterfaces.ecephys.basesortingextractorinterface import BaseSortingExtractorInterface

    class Spikes(BlackrockSortingInterface):  # type: ignore[misc]  # no type hints
        def get_metadata(self) -> Any:
            return BaseSortingExtractorInterface.get_metadata(self)

        def add_to_nwbfile(self, nwbfile: Any, metadata: Any = None, **options: Any) -> None:
            # Spike times are written at once: there is no progress to report.
            options.pop("iterator_options", None)
            source = PurePosixPath(nev.name).name
            options.setdefault(
                "units_description",
                f"Spikes detected online by the Blackrock system (threshold crossings), from {source}.",
            )
            super().add_to_nwbfile(nwbfile=nwbfile, metadata=metadata, **options)

    interface = Spikes(file_path=path, sampling_frequency=nev.resolution_hz)
    sorting = interface.sorting_extractor
    # neo names each unit "ch<channel>#<class>", in the order spikeinterface keeps.
    names = [str(name) for name in sorting.neo_reader.header["spike_channels"]["name"]]
    channel_ids, classes = zip(*(re.match(r"ch(\d+)#(\d+)", name).groups() for name in names), strict=True)  # type: ignore[union-attr]  # neo's names all match
    sorting.set_property("channel_id", [int(value) for value in channel_ids])
    sorting.set_property("unit_class", [int(value) for value in classes])
    return interface


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "a Blackrock recording: its .ns1 to .ns6 files (e.g. session.ns5) and, if saved, its .nev file "
        "(which the oldest files, spec 2.1, need for their scaling)"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    facts=_facts,
)

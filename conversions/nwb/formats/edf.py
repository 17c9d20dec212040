"""EDF (European Data Format, and continuous EDF+) and BDF (BioSemi's 24-bit EDF, and continuous BDF+):
one `.edf` or `.bdf` file holding every signal of a recording.

The file starts with an ASCII header: 256 bytes for the recording (version "0", or byte 0xFF and
"BIOSEMI" for BDF; patient and recording fields, start date and time as dd.mm.yy hh.mm.ss, header
size, number and duration of data records), then 256 bytes per signal (label, unit, physical and
digital range, samples per record). The data follow as records of 16-bit samples (BDF: 24-bit, three
bytes little-endian), so the file's size is known from the header. The header, not the file's
name, says which of the two a file is.

Streams: neo reads one stream per sampling rate. Signals in volts become one ElectricalSeries per
rate, converted by default; the others (triggers, status, anything not in volts) are offered one by
one, each as a TimeSeries in its own unit. EDF+ annotations are not converted.

Two things neuroconv's `EDFRecordingInterface` does not do are done here:
- Scaling follows the EDF specification, physical = pmin + (digital - dmin) (pmax - pmin) / (dmax - dmin);
  neo divides by (dmax - dmin + 1), which is off by one step at the top of the range (1 % for a
  file whose digital range is 0..100).
- Clinical exports often give each channel its own physical range, hence its own offset, which one
  ElectricalSeries cannot hold as integers; such channels are written as physical values (float
  microvolts, neuroconv's `data_representation="physical_units"`).
- BDF samples are read at their full 24 bits: neo reads BDF through pyedflib too, but hands every
  sample on as a 16-bit integer (as EDF stores them), which wraps any value past +-32767. The
  channels, names and header neo reads are kept; the samples are read with pyedflib as the 32-bit
  integers it returns (`_bdf_samples_class`), so the series hold the file's digital values exactly.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import RecordingProblem
from .base import Detection, Stream, SupportedFormat, reader_view, short_reason, some_names

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "edf"
_LABEL = "EDF"
_EDF, _BDF = ".edf", ".bdf"
# pyedflib and neo tell BDF from EDF by the header, so one name serves both.
_VIEW_NAME = "recording.edf"
_FIXED_HEADER_BYTES = 256
_SIGNAL_HEADER_BYTES = 256
_EDF_VERSION, _BDF_VERSION = b"0       ", b"\xffBIOSEMI"
# The label of EDF+ and BDF+ annotation signals, which hold events and texts rather than samples.
_ANNOTATIONS = frozenset({"EDF Annotations", "BDF Annotations"})
# Microvolts per unit for the units spikeinterface scales to microvolts: these signals are electrode signals.
_MICROVOLTS_PER_UNIT = {"V": 1e6, "Volt": 1e6, "Volts": 1e6, "mV": 1e3, "uV": 1.0}
# First words of labels of channels that carry triggers or acquisition status, whatever their unit
# ("Status" from BioSemi, "STI 014" from MNE, "DIG DTRIG", "TRIG", "Event", "Marker").
_NOT_ELECTRODES = frozenset({"status", "sti", "stim", "trig", "trigger", "dig", "event", "events", "marker", "markers"})
# EDF+ signal types (the label's first word) that name electrode signals; each gets its own electrode group.
_ELECTRODE_TYPES = frozenset({"EEG", "ECG", "EOG", "ERG", "EMG", "MEG", "MCG", "EP"})
# EDF's convention for a removed start date (anonymised files): 01.01.85 00.00.00.
_REMOVED_START = datetime(1985, 1, 1)
_DEVICE_KEY = "edf"


@dataclass(frozen=True)
class _Channel:
    number: int  # 1-based among the signals (annotation signals excluded)
    label: str
    unit: str
    rate: float
    physical: tuple[float, float]  # min, max
    digital: tuple[int, int]

    @property
    def gain(self) -> float:
        return (self.physical[1] - self.physical[0]) / (self.digital[1] - self.digital[0])

    @property
    def offset(self) -> float:
        return self.physical[0] - self.digital[0] * self.gain

    @property
    def offset_in_microvolts(self) -> float:
        """As the recording holds it: electrode signals in microvolts, the others in their own unit."""
        return self.offset * _MICROVOLTS_PER_UNIT.get(self.unit, 1.0)

    @property
    def is_electrode(self) -> bool:
        first_word = self.label.split(" ")[0].split("-")[0].lower()
        return self.unit in _MICROVOLTS_PER_UNIT and first_word not in _NOT_ELECTRODES

    @property
    def group(self) -> str:
        first_word = self.label.split(" ")[0]
        return first_word if " " in self.label and first_word in _ELECTRODE_TYPES else "Electrodes"


@dataclass(frozen=True)
class _Header:
    patient: str
    recording: str
    start_text: str  # "dd.mm.yyhh.mm.ss"
    reserved: str
    records: int
    record_seconds: float
    channels: tuple[_Channel, ...]
    bdf: bool  # BDF: 24-bit samples; otherwise EDF, 16-bit

    @property
    def format_label(self) -> str:
        return "BDF" if self.bdf else "EDF"

    @property
    def plus(self) -> bool:
        """EDF+ or BDF+: the header's fields are structured, and the file may hold annotations."""
        return self.reserved.startswith(("EDF+", "BDF+"))


@dataclass(frozen=True)
class _Plan:
    """How one stream is written: the channels it holds and the series it becomes."""

    stream_id: str
    channels: tuple[_Channel, ...]
    electrodes: bool  # an ElectricalSeries; otherwise a single channel's TimeSeries
    series_name: str

    @property
    def rate(self) -> float:
        return self.channels[0].rate

    def label(self) -> str:
        if self.electrodes:
            names = some_names([channel.label for channel in self.channels])
            return f"Electrode signals at {self.rate:g} Hz ({len(self.channels)} channels: {names})"
        return f"{self.words()}, not an electrode signal"

    def words(self) -> str:
        if self.electrodes:
            return self.label()
        (channel,) = self.channels
        return f"{channel.label} ({channel.unit or 'no unit'}, {channel.rate:g} Hz)"


# --- claim and inspection ------------------------------------------------------------------------


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith((_EDF, _BDF)) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    recordings = [name for name in files if name.lower().endswith((_EDF, _BDF))]
    if len(recordings) > 1:
        raise RecordingProblem(
            f"The upload holds several EDF or BDF files ({some_names(recordings)}). Each is its own recording: "
            "upload one at a time."
        )
    (name,) = recordings
    path = root / name
    size = path.stat().st_size
    header = _read_header(path, name, size)
    plans = _plans(header)
    _confirm_with_reader(path, name, header, plans[0])
    start_time = _start_time(header)
    streams = tuple(
        Stream(
            id=plan.stream_id,
            label=plan.label(),
            channel_count=len(plan.channels),
            sampling_rate_hz=plan.rate,
            duration_s=header.records * header.record_seconds,
            size_bytes=size,
            files=(name,),
            kind="neural" if plan.electrodes else "auxiliary",
        )
        for plan in plans
    )
    defaults = tuple(plan.stream_id for plan in plans if plan.electrodes) or tuple(plan.stream_id for plan in plans)
    notes = _notes(name, header, plans, defaults, start_time)
    left_out = [other for other in files if other != name]
    if left_out:
        notes.append(f"These files are not part of the recording and were left out: {some_names(left_out)}.")
    chosen = [stream for stream in streams if stream.id in defaults]
    file_metadata: dict[str, Any] = {
        "session_start_time": start_time.isoformat() if start_time else None,
        "device": _equipment(header).replace("_", " ") or "not named in the file",
        "channel_count": sum(stream.channel_count for stream in chosen),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in chosen),
        "duration_s": header.records * header.record_seconds,
        "size_bytes": size,
    }
    return Detection(
        format=_KEY,
        format_label=header.format_label,
        streams=streams,
        default_streams=defaults,
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _read_header(path: Path, name: str, size: int) -> _Header:
    """Parse and check the header against the file's size; raises RecordingProblem naming the file."""
    with path.open("rb") as handle:
        fixed = handle.read(_FIXED_HEADER_BYTES)
        bdf = _is_bdf(name, fixed)
        text = fixed.decode("latin-1")
        header_bytes, records, record_seconds, count = _header_sizes(name, text)
        signal_text = handle.read(header_bytes - _FIXED_HEADER_BYTES).decode("latin-1")
    if len(signal_text) < header_bytes - _FIXED_HEADER_BYTES:
        raise _incomplete(name, size, header_bytes, "even the header is cut off")
    reserved = text[192:236].strip()
    if reserved.startswith(("EDF+D", "BDF+D")):
        kind = reserved[:3]
        raise RecordingProblem(
            f"{name} is a discontinuous {kind}+ file ({kind}+D: the recording has interruptions), which the reader "
            f"cannot open. Export it as continuous {kind} ({kind}+C), or as one file per uninterrupted part, and "
            "upload that."
        )
    if records <= 0 or record_seconds <= 0:
        raise RecordingProblem(
            f"{name} does not say how many data records it holds (the header gives {records}), which happens "
            "when the recording software did not finish writing the file. Open it in the recording or "
            "export software, save it again, and upload that."
        )
    channels, samples_per_record = _channels(name, signal_text, count, record_seconds)
    sample_bytes = 3 if bdf else 2
    _check_data_size(name, size, header_bytes, records, record_seconds, sample_bytes * samples_per_record)
    return _Header(
        patient=text[8:88].strip(),
        recording=text[88:168].strip(),
        start_text=text[168:184],
        reserved=reserved,
        records=records,
        record_seconds=record_seconds,
        channels=channels,
        bdf=bdf,
    )


def _is_bdf(name: str, fixed: bytes) -> bool:
    """Whether the file's first bytes are a BDF header rather than an EDF one, whatever its name says;
    raises RecordingProblem when they are neither."""
    if len(fixed) == _FIXED_HEADER_BYTES and fixed[:8] in (_EDF_VERSION, _BDF_VERSION):
        return fixed[:8] == _BDF_VERSION
    if name.lower().endswith(_BDF):
        raise RecordingProblem(
            f"{name} is not a BDF file: it does not start with the BDF header (byte 255, then BIOSEMI). Upload the "
            ".bdf file exactly as the recording software saved it."
        )
    raise RecordingProblem(
        f"{name} is not an EDF file: it does not start with the EDF header (version 0). Upload the .edf "
        "file exactly as the recording software exported it."
    )


def _header_sizes(name: str, text: str) -> tuple[int, int, float, int]:
    """The header's size in bytes, the number of data records, a record's duration in seconds and the
    number of signals, checked against each other."""
    try:
        header_bytes, records, record_seconds, count = (
            int(text[184:192]),
            int(text[236:244]),
            float(text[244:252]),
            int(text[252:256]),
        )
    except ValueError:
        raise _damaged(name, "the header's sizes are not numbers") from None
    if count <= 0 or header_bytes != _FIXED_HEADER_BYTES + count * _SIGNAL_HEADER_BYTES:
        raise _damaged(name, f"the header size ({header_bytes} bytes) does not fit its {count} signals")
    return header_bytes, records, record_seconds, count


def _channels(name: str, signal_text: str, count: int, record_seconds: float) -> tuple[tuple[_Channel, ...], int]:
    """The signals to convert (annotation signals left out), each with a unique name, and the number of
    samples one data record holds of all signals, annotations included."""
    values = _signal_fields(signal_text, count)
    channels: list[_Channel] = []
    samples_per_record = 0
    try:
        for index in range(count):
            samples = int(values["samples"][index])
            samples_per_record += samples
            if values["label"][index] in _ANNOTATIONS:
                continue
            digital = (int(values["dmin"][index]), int(values["dmax"][index]))
            if digital[0] >= digital[1] or samples <= 0:
                raise ValueError
            channels.append(
                _Channel(
                    number=len(channels) + 1,
                    label=values["label"][index],
                    unit=values["unit"][index],
                    rate=samples / record_seconds,
                    physical=(float(values["pmin"][index]), float(values["pmax"][index])),
                    digital=digital,
                )
            )
    except ValueError:
        raise _damaged(name, f"the description of signal {index + 1} ({values['label'][index]}) is not valid") from None
    if not channels:
        raise RecordingProblem(f"{name} holds only annotations, no signals to convert.")
    labels = [channel.label for channel in channels]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise RecordingProblem(
            f"{name} has several signals with the same name ({', '.join(repeated)}); the reader needs each "
            "signal's name to be unique. Rename them in the recording or export software and export again."
        )
    return tuple(channels), samples_per_record


def _check_data_size(
    name: str, size: int, header_bytes: int, records: int, record_seconds: float, record_bytes: int
) -> None:
    """Raises RecordingProblem when the file is shorter (cut off) or longer than its header describes."""
    expected = header_bytes + records * record_bytes
    if size < expected:
        whole = (size - header_bytes) // record_bytes
        raise _incomplete(
            name,
            size,
            expected,
            f"its header announces {records:,} data records ({records * record_seconds:g} s) but it holds "
            f"{max(whole, 0):,} complete ones",
        )
    if size > expected:
        raise _damaged(
            name,
            f"it is {size - expected:,} bytes longer than its header describes ({expected:,} bytes), so the header "
            "and the data do not match",
        )


# Widths in bytes of the per-signal header fields, in file order; each field is stored for every signal
# before the next field starts.
_SIGNAL_FIELDS = {
    "label": 16,
    "transducer": 80,
    "unit": 8,
    "pmin": 8,
    "pmax": 8,
    "dmin": 8,
    "dmax": 8,
    "prefilter": 80,
    "samples": 8,
}


def _signal_fields(text: str, count: int) -> dict[str, list[str]]:
    values: dict[str, list[str]] = {}
    start = 0
    for key, width in _SIGNAL_FIELDS.items():
        values[key] = [text[start + i * width : start + (i + 1) * width].strip() for i in range(count)]
        start += width * count
    return values


def _damaged(name: str, reason: str) -> RecordingProblem:
    return RecordingProblem(
        f"{name} is damaged: {reason}. Export the recording from the recording software again and upload the new file."
    )


def _incomplete(name: str, size: int, expected: int, reason: str) -> RecordingProblem:
    return RecordingProblem(
        f"{name} is incomplete: {reason} ({size:,} of {expected:,} bytes). The upload or copy was probably cut "
        "off; upload the file again."
    )


def _start_time(header: _Header) -> datetime | None:
    """The header's start date and time; None when it was removed (anonymised) or cannot be read.

    EDF writes the year with two digits (85-99: 1985-1999, 00-84: 2000-2084); EDF+ also writes it in
    full in the recording field ("Startdate 02-JUN-2015 ..."), which is preferred.
    """
    if header.recording.startswith("Startdate X"):
        return None
    text = header.start_text
    try:
        day, month, year = (int(part) for part in text[:8].split("."))
        hour, minute, second = (int(part) for part in text[8:16].split("."))
        year += 1900 if year >= 85 else 2000
        full_date = re.match(r"Startdate (\d{2})-([A-Z]{3})-(\d{4})\b", header.recording)
        if full_date:
            year = int(full_date[3])
        start = datetime(year, month, day, hour, minute, second)
    except ValueError:
        return None
    return None if start == _REMOVED_START else start


def _equipment(header: _Header) -> str:
    """The EDF+ (and BDF+) recording field's equipment subfield ("Startdate <date> <admin code> <technician>
    <equipment>")."""
    parts = header.recording.split(" ")
    if not header.plus or len(parts) < 5 or parts[4] == "X":
        return ""
    return parts[4]


def _has_patient_details(header: _Header) -> bool:
    """EDF+ (BDF+) patient field: "<code> <sex> <birth date> <name>", each X when unknown; EDF: free text."""
    if header.plus:
        return any(part not in ("", "X") for part in header.patient.split(" ")[:4])
    return header.patient not in ("", "X")


def _rate_words(rate: float) -> str:
    return f"{rate:g}Hz".replace(".", "_")


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word)


def _plans(header: _Header) -> list[_Plan]:
    """One ElectricalSeries per sampling rate for the electrode signals, then one TimeSeries per other signal."""
    rates = [rate for rate in dict.fromkeys(channel.rate for channel in header.channels)]
    electrodes = {rate: tuple(c for c in header.channels if c.rate == rate and c.is_electrode) for rate in rates}
    electrodes = {rate: channels for rate, channels in electrodes.items() if channels}
    plans = [
        _Plan(
            stream_id=f"electrodes_{_rate_words(rate)}",
            channels=channels,
            electrodes=True,
            series_name="ElectricalSeries" + ("" if len(electrodes) == 1 else _rate_words(rate)),
        )
        for rate, channels in electrodes.items()
    ]
    others = [channel for channel in header.channels if not channel.is_electrode]
    stems = [_camel(channel.label) for channel in others]
    for channel, stem in zip(others, stems, strict=True):
        if not stem or stems.count(stem) > 1:
            stem += f"Channel{channel.number}"
        plans.append(_Plan(f"channel{channel.number}", (channel,), False, f"TimeSeries{stem}"))
    return plans


def _confirm_with_reader(path: Path, name: str, header: _Header, plan: _Plan) -> None:
    """The conversion's interface opens the file (pyedflib reads the header and the EDF+ annotations)."""
    try:
        _interface(path, header, plan, metadata_key="confirm")
    except Exception as error:  # any reader failure is a property of the user's file
        raise RecordingProblem(
            f"{name} could not be read as {'a BDF' if header.bdf else 'an EDF'} recording ({short_reason(error)}). "
            "Check that it opens in an EDF viewer (e.g. EDFbrowser), export it again from the recording software, "
            "and upload the new file.",
            detail=traceback.format_exc(),
        ) from error


def _offsets_differ(plan: _Plan) -> bool:
    return len({channel.offset_in_microvolts for channel in plan.channels}) > 1


def _notes(
    name: str, header: _Header, plans: Sequence[_Plan], defaults: Sequence[str], start_time: datetime | None
) -> list[str]:
    notes: list[str] = []
    left_out = [plan.words() for plan in plans if plan.stream_id not in defaults]
    if left_out:
        notes.append(
            f"Not converted unless chosen, as they are not electrode signals: {'; '.join(left_out)}. If chosen, "
            "each is written as a time series in its own unit."
        )
    for plan in plans:
        if plan.electrodes and _offsets_differ(plan):
            notes.append(
                f"The electrode signals at {plan.rate:g} Hz each have their own physical range, hence their own "
                f"offset, which one NWB series cannot store with the file's {24 if header.bdf else 16}-bit integers: "
                "they are written as their physical values, in microvolts as 32-bit floating point (about 7 "
                "significant digits)."
            )
    if header.plus:
        notes.append(f"{header.format_label}+ annotations (events and their texts), if any, are not converted.")
    if _has_patient_details(header):
        notes.append(
            f"The {header.format_label} header holds patient details (code, sex, birth date or name). They are not "
            "copied into the NWB file, which may be shared publicly: give the subject's id, sex and age yourself."
        )
    if start_time is None:
        notes.append(
            f"{name} does not say when the recording started (the date was removed or cannot be read); you will "
            "be asked for the start time."
        )
    return notes


# --- reading and converting ----------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    (name,) = {file for stream_id in stream_ids for file in detection.stream(stream_id).files}
    return reader_view(root, {_VIEW_NAME: name})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream, keyed by stream id; electrode groups by EDF+ signal type (EEG, ECG...)."""
    from neuroconv import ConverterPipe

    path = folder / _VIEW_NAME
    header = _read_header(path, path.name, path.stat().st_size)
    plans = {plan.stream_id: plan for plan in _plans(header)}
    start_time = _start_time(header)
    stream_names = _stream_names(path, header)
    interfaces: dict[str, Any] = {}
    groups: set[str] = set()
    for number, stream_id in enumerate(stream_ids):
        plan = plans[stream_id]
        interface = _interface(path, header, plan, metadata_key=f"stream{number}", stream_names=stream_names)
        if plan.electrodes:
            names = [channel.group for channel in plan.channels]
            interface.recording_extractor.set_property("group_name", names)
            groups.update(names)
        interfaces[stream_id] = interface
    equipment = _equipment(header)
    kind = header.format_label
    device = {
        "name": _camel(equipment) or f"{kind}RecordingSystem",
        "description": f"{equipment.replace('_', ' ')}, as the {kind} header names the recording equipment."
        if equipment
        else f"The {kind} file does not name the recording system or the electrodes.",
    }

    class EDFStreams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            # The file's own reading of its start time, or none (removed), never neuroconv's 1985 placeholder.
            metadata["NWBFile"].pop("session_start_time", None)
            if start_time is not None:
                metadata["NWBFile"]["session_start_time"] = start_time
            for detail in ("subject_id", "sex", "date_of_birth"):  # patient details stay out of a shareable file
                metadata.get("Subject", {}).pop(detail, None)
            for stream_id, interface in self.data_interface_objects.items():
                plan = plans[stream_id]
                fields = {"name": plan.series_name, "description": f"{plan.label()}: from the {kind} file."}
                if plan.electrodes:
                    metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].update(fields)
                else:
                    metadata["TimeSeries"][interface.metadata_key].update(fields)
            for group in groups:
                entry = metadata["Ecephys"].setdefault("ElectrodeGroups", {}).setdefault(group, {"name": group})
                entry["description"] = (
                    f"Electrodes of the {group} signals, as the {kind}+ labels name them."
                    if group in _ELECTRODE_TYPES
                    else f"Electrodes of the {kind} file's signals in volts; the file does not describe them."
                )
                entry["device_metadata_key"] = _DEVICE_KEY
                metadata.setdefault("Devices", {})[_DEVICE_KEY] = device
            return metadata

    converter: NWBConverter = EDFStreams(data_interfaces=interfaces)
    return converter


def _stream_names(path: Path, header: _Header) -> dict[float, str | None]:
    """neo's stream name for each sampling rate (neo makes one stream per rate, in order of first use)."""
    rates = list(dict.fromkeys(channel.rate for channel in header.channels))
    if len(rates) == 1:
        return {rates[0]: None}
    from neuroconv.datainterfaces import EDFRecordingInterface

    return dict(zip(rates, EDFRecordingInterface.get_stream_names(file_path=path), strict=True))


def _interface(
    path: Path,
    header: _Header,
    plan: _Plan,
    *,
    metadata_key: str,
    stream_names: Mapping[float, str | None] | None = None,
) -> Any:
    electrodes_interface, channel_interface = _interface_classes()
    stream_name = (stream_names or _stream_names(path, header))[plan.rate]
    channels = {channel.label: channel for channel in plan.channels}
    if plan.electrodes:
        skip = [
            channel.label for channel in header.channels if channel.rate == plan.rate and channel.label not in channels
        ]
        return electrodes_interface(
            file_path=path,
            stream_name=stream_name,
            channels_to_skip=skip,
            metadata_key=metadata_key,
            channels=channels,
            bdf=header.bdf,
        )
    return channel_interface(
        file_path=path, stream_name=stream_name, metadata_key=metadata_key, channels=channels, bdf=header.bdf
    )


def _scale_as_specified(recording: Any, channels: Mapping[str, _Channel]) -> None:
    """Gains and offsets from the EDF specification (neo's are off by one digital step)."""
    chosen = [channels[str(channel_id)] for channel_id in recording.get_channel_ids()]
    stored = recording.get_property("gain_to_physical_unit")
    # spikeinterface negates the samples (and the gains) of a recording whose gains are all negative.
    gains = [c.gain if gain * c.gain >= 0 else -c.gain for c, gain in zip(chosen, stored, strict=True)]
    factors = [_MICROVOLTS_PER_UNIT.get(channel.unit, 1.0) for channel in chosen]
    recording.set_property("gain_to_physical_unit", gains)
    recording.set_property("offset_to_physical_unit", [channel.offset for channel in chosen])
    recording.set_channel_gains([gain * factor for gain, factor in zip(gains, factors, strict=True)])
    recording.set_channel_offsets([channel.offset_in_microvolts for channel in chosen])


def _read_at_full_resolution(interface: Any, path: Path, channels: Mapping[str, _Channel]) -> None:
    """Give the interface's recording (a BDF file's channels as neo reads them) the file's own 24-bit
    samples; gains as the header gives them, since the samples are the file's, never negated as
    spikeinterface may do."""
    recording = interface.recording_extractor
    chosen = [channels[str(channel_id)] for channel_id in recording.get_channel_ids()]
    # pyedflib numbers the signals as `_Channel.number` does, leaving out annotation signals.
    full = _bdf_samples_class()(recording, file_path=str(path), signal_indexes=[c.number - 1 for c in chosen])
    full.set_property("gain_to_physical_unit", [channel.gain for channel in chosen])
    interface.recording_extractor = full


@cache
def _bdf_samples_class() -> type:
    """Defined on first use: spikeinterface is imported with neuroconv, which the web process must not pay for."""
    import numpy as np
    import pyedflib
    from spikeinterface.preprocessing.basepreprocessor import BasePreprocessor, BasePreprocessorSegment

    class BDFSamplesSegment(BasePreprocessorSegment):  # type: ignore[misc]  # spikeinterface ships without type hints
        def __init__(self, parent: Any, file_path: str, signal_indexes: Sequence[int]) -> None:
            super().__init__(parent)
            self._file_path = file_path
            self._signals = np.asarray(signal_indexes, dtype=int)

        def get_traces(self, start_frame: int | None, end_frame: int | None, channel_indices: Any) -> Any:
            samples = self.get_num_samples()
            start = max(0, start_frame or 0)
            end = samples if end_frame is None else min(end_frame, samples)
            signals = self._signals if channel_indices is None else self._signals[channel_indices]
            traces = np.empty((max(end - start, 0), len(signals)), dtype=np.int32)
            if not traces.size:
                return traces
            column = np.empty(end - start, dtype=np.int32)
            # Opened per chunk, as neo does: EDFlib refuses to open a file twice, and other readers of the
            # same file (the neo reader behind `parent`, another stream's) open it too. Annotations are
            # not read, which for BDF+ would mean reading through the whole file.
            reader = pyedflib.EdfReader(self._file_path, annotations_mode=pyedflib.DO_NOT_READ_ANNOTATIONS)
            try:
                for index, signal in enumerate(signals.tolist()):
                    reader.read_digital_signal(signal, start, end - start, column)
                    traces[:, index] = column
            finally:
                reader.close()
            return traces

    class BDFSamples(BasePreprocessor):  # type: ignore[misc]  # spikeinterface ships without type hints
        """A recording's channels, ids and properties as given, with their samples read by pyedflib from the
        BDF file at `file_path`: 24-bit integers, as int32, read chunk by chunk as the writer asks for them.
        `signal_indexes`: each channel's signal in the file, counted as pyedflib counts them."""

        def __init__(self, recording: Any, file_path: str, signal_indexes: Sequence[int]) -> None:
            super().__init__(recording, dtype="int32")
            for segment in recording._recording_segments:
                self.add_recording_segment(BDFSamplesSegment(segment, file_path, signal_indexes))
            self._kwargs = {"recording": recording, "file_path": file_path, "signal_indexes": list(signal_indexes)}

    return BDFSamples


@cache
def _interface_classes() -> tuple[type, type]:
    """Defined on first use: neuroconv costs ~1 s to import, which the web process must not pay."""
    from neuroconv.datainterfaces import EDFAnalogInterface, EDFRecordingInterface

    class EDFElectrodesInterface(EDFRecordingInterface):  # type: ignore[misc]  # neuroconv ships without type hints
        """EDF (or BDF, at 24 bits) electrode signals of one rate, scaled as the EDF specification says;
        written as physical values when their offsets differ (one series holds one offset)."""

        def __init__(
            self,
            file_path: Path,
            stream_name: str | None,
            channels_to_skip: list[str],
            metadata_key: str,
            channels: Mapping[str, _Channel],
            bdf: bool,
        ) -> None:
            super().__init__(
                file_path=file_path,
                stream_name=stream_name,
                channels_to_skip=channels_to_skip or None,
                metadata_key=metadata_key,
            )
            if bdf:
                _read_at_full_resolution(self, file_path, channels)
            _scale_as_specified(self.recording_extractor, channels)

        def add_to_nwbfile(self, nwbfile: Any, metadata: dict[str, Any] | None = None, **options: Any) -> None:
            if len(set(self.recording_extractor.get_channel_offsets().tolist())) > 1:
                options.setdefault("data_representation", "physical_units")
            super().add_to_nwbfile(nwbfile, metadata, **options)

    class EDFChannelInterface(EDFAnalogInterface):  # type: ignore[misc]  # neuroconv ships without type hints
        """One EDF (or BDF, at 24 bits) signal that is not an electrode signal, as a TimeSeries in its own unit."""

        def __init__(
            self,
            file_path: Path,
            stream_name: str | None,
            metadata_key: str,
            channels: Mapping[str, _Channel],
            bdf: bool,
        ) -> None:
            super().__init__(
                file_path=file_path,
                channels_to_include=list(channels),
                stream_name=stream_name,
                metadata_key=metadata_key,
            )
            if bdf:
                _read_at_full_resolution(self, file_path, channels)
            _scale_as_specified(self.recording_extractor, channels)

    return EDFElectrodesInterface, EDFChannelInterface


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "an EDF or continuous EDF+ file (.edf), or a BioSemi BDF or continuous BDF+ file (.bdf), as the recording "
        "or export software saved it"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
)

"""CED Spike2: one `.smr` file (SON format) holding every channel of a recording.

Spike2 saves each waveform channel with its own title, unit, sampling rate and first-sample time;
neo groups channels that share rate, unit and scaling into one signal stream, and each stream is
converted into its own series. Channels in volts (electrodes: EEG, EMG, nerve...) become
ElectricalSeries and are converted by default; the others (flow, pressure, CO2, force...) become
TimeSeries in their own unit, converted when chosen. Spike (WaveMark), event and marker channels
are not converted.

neuroconv's `Spike2RecordingInterface` needs CED's `sonpy`, which has no Linux build for recent
Pythons; the `.smr` format is read here by neo (`Spike2RawIO`) through spikeinterface, wrapped in
neuroconv interfaces defined below. `.smrx` (Spike2 9 and later, 64-bit) only sonpy can read.
"""

from __future__ import annotations

import re
import struct
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

_KEY = "spike2"
_LABEL = "CED Spike2"
_SMR, _SMRX = ".smr", ".smrx"
# The reader view's name for the chosen file: build_converter finds it there.
_VIEW_NAME = "recording.smr"
# Every SON (.smr) file carries CED's copyright string right after the 2-byte system id.
_SON_MAGIC = b"(C) CED 87"
_FILE_HEADER_BYTES = 512
_CHANNEL_HEADER_BYTES = 140
# The start time (hundredths, s, min, h, day, month, 2-byte year) follows dTimeBase in the file header.
_TIME_DATE = struct.Struct("<6BH")
_TIME_DATE_OFFSET = 52
# Units spikeinterface scales to microvolts: only these can be written as an ElectricalSeries.
_VOLTAGE_UNITS = frozenset({"V", "Volt", "Volts", "mV", "uV"})
_DEVICE_KEY = "spike2"
_SMRX_MESSAGE = (
    "Spike2 .smrx files (version 9+) can't be read here; save as .smr (Spike2: File > Export As > .smr) "
    "and upload that."
)


@dataclass(frozen=True)
class _Signal:
    """One neo signal stream of the file: channels that share rate, unit and scaling."""

    stream_id: str  # neo's stream id, which spikeinterface's reader takes
    titles: tuple[str, ...]
    numbers: tuple[int, ...]  # channel numbers as Spike2 shows them (from 1)
    unit: str
    rate: float
    samples: int  # over all segments
    t_start: float

    @property
    def is_voltage(self) -> bool:
        return self.unit in _VOLTAGE_UNITS

    def words(self) -> str:
        channels = some_names(
            f"{title or 'untitled'} (channel {number})" for title, number in zip(self.titles, self.numbers, strict=True)
        )
        return f"{channels}, {self.unit or 'no unit'}, {self.rate:g} Hz"

    def stem(self) -> str:
        """For series and group names: the title ("DIA SMU" -> "DIASMU"), or the channel numbers of several."""
        if len(self.titles) > 1:
            return f"Channels{self.numbers[0]}to{self.numbers[-1]}"
        return _camel(self.titles[0])


# --- claim and inspection ------------------------------------------------------------------------


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith((_SMR, _SMRX)) for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    smr = [name for name in files if name.lower().endswith(_SMR)]
    smrx = [name for name in files if name.lower().endswith(_SMRX)]
    if not smr:
        raise RecordingProblem(f"{some_names(smrx)}: {_SMRX_MESSAGE}")
    if len(smr) > 1:
        raise RecordingProblem(
            f"The upload holds several Spike2 files ({some_names(smr)}). Each is its own recording: "
            "upload one at a time."
        )
    (name,) = smr
    path = root / name
    size = path.stat().st_size
    header = _read_file_header(path, name, size)
    signals, spikes, events, segments = _confirm_with_reader(path, name)

    streams = tuple(
        Stream(
            id=signal.stream_id,
            label=f"{'Electrode' if signal.is_voltage else 'Analog'} channel{'s' if len(signal.titles) > 1 else ''} "
            f"{signal.words()}",
            channel_count=len(signal.titles),
            # 1 / (40 us) is 25000.000000000004 in floating point; the file's rate is whole to far below 1 uHz.
            sampling_rate_hz=round(signal.rate, 6),
            duration_s=signal.samples / signal.rate,
            size_bytes=size,
            files=(name,),
            kind="neural" if signal.is_voltage else "auxiliary",
        )
        for signal in signals
    )
    defaults = tuple(signal.stream_id for signal in signals if signal.is_voltage) or tuple(
        signal.stream_id for signal in signals
    )
    start_time = _start_time(header)
    notes = _notes(name, signals, defaults, spikes, events, segments, start_time)
    if smrx:
        notes.append(f"{some_names(smrx)}: {_SMRX_MESSAGE} Only {name} is converted.")
    others = [other for other in files if other != name and other not in smrx]
    if others:
        notes.append(f"These files are not part of the recording and were left out: {some_names(others)}.")
    chosen = [stream for stream in streams if stream.id in defaults]
    file_metadata: dict[str, Any] = {
        "session_start_time": start_time.isoformat() if start_time else None,
        "device": "CED Spike2 (the file does not name the acquisition hardware)",
        "channel_count": sum(stream.channel_count for stream in chosen),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in chosen),
        "duration_s": max(stream.duration_s for stream in chosen),
        "size_bytes": size,
        "spike2_file_version": header["system_id"],
    }
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=streams,
        default_streams=defaults,
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _read_file_header(path: Path, name: str, size: int) -> dict[str, Any]:
    """The fixed part of the SON file header; raises RecordingProblem if it is not one."""
    with path.open("rb") as handle:
        raw = handle.read(_FILE_HEADER_BYTES)
    if len(raw) < _TIME_DATE_OFFSET + _TIME_DATE.size or raw[2:12] != _SON_MAGIC:
        raise RecordingProblem(
            f"{name} is not a Spike2 .smr file (it does not start the way every Spike2 data file does). "
            "If Spike2 saved it as .smrx and it was renamed, export it from Spike2 as .smr (File > Export As) "
            "and upload that."
        )
    system_id, channels = struct.unpack_from("<h", raw, 0)[0], struct.unpack_from("<h", raw, 30)[0]
    if channels <= 0 or size < _FILE_HEADER_BYTES + channels * _CHANNEL_HEADER_BYTES:
        raise RecordingProblem(
            f"{name} is incomplete: it is {size:,} bytes, too short even for its channel list. The upload or "
            "copy was probably cut off; upload the file again."
        )
    return {"system_id": int(system_id), "time_date": _TIME_DATE.unpack_from(raw, _TIME_DATE_OFFSET)}


def _start_time(header: Mapping[str, Any]) -> datetime | None:
    """When sampling started, as Spike2 6 and later record it; None when absent (zeros) or not a date."""
    hundredths, second, minute, hour, day, month, year = header["time_date"]
    if year < 1985:
        return None
    try:
        return datetime(year, month, day, hour, minute, second, hundredths * 10_000)
    except ValueError:
        return None


def _confirm_with_reader(path: Path, name: str) -> tuple[list[_Signal], list[str], list[str], int]:
    """Open the file with neo (headers and block lists only) and the converter's interface.

    Returns the signal streams (in Spike2's channel order), the titles of spike and of event channels,
    and the number of segments (parts between pauses). Reading each stream's last sample proves its
    data is all there.
    """
    # Imported here: neo and neuroconv cost ~1 s to import, and only detection and conversion need them.
    from neo.rawio import Spike2RawIO

    try:
        reader = Spike2RawIO(filename=str(path))
        reader.parse_header()
        segments = reader.segment_count(0)
        signals = _signals_of(reader)
        for index in range(len(signals)):
            for segment in range(segments):
                samples = int(reader.get_signal_size(0, segment, index))
                if samples:
                    reader.get_analogsignal_chunk(0, segment, samples - 1, samples, stream_index=index)
        spikes = list(dict.fromkeys(str(title) for title in reader.header["spike_channels"]["name"]))
        events = list(dict.fromkeys(str(title) for title in reader.header["event_channels"]["name"]))
    except Exception as error:  # any reader failure is a property of the user's file
        raise RecordingProblem(
            f"{name} could not be read as a Spike2 recording ({short_reason(error)}). The file may be "
            "incomplete (a cut-off upload or copy) or damaged: open it in Spike2 to check it, then upload it again.",
            detail=traceback.format_exc(),
        ) from error
    if not signals:
        raise RecordingProblem(
            f"{name} holds no waveform channels, only {', '.join(spikes + events) or 'nothing'}: there are no "
            "continuous signals to convert."
        )
    _confirm_interface(path, name, signals[0])
    return sorted(signals, key=lambda signal: min(signal.numbers)), spikes, events, segments


def _confirm_interface(path: Path, name: str, signal: _Signal) -> None:
    """The conversion's own interface opens the file too (headers only)."""
    try:
        _interface(path, signal, metadata_key="confirm", series_name="confirm")
    except Exception as error:
        raise RecordingProblem(
            f"{name} could not be opened for conversion ({short_reason(error)}). Open it in Spike2 to check it, "
            "then upload it again.",
            detail=traceback.format_exc(),
        ) from error


def _notes(
    name: str,
    signals: Sequence[_Signal],
    defaults: Sequence[str],
    spikes: Sequence[str],
    events: Sequence[str],
    segments: int,
    start_time: datetime | None,
) -> list[str]:
    notes: list[str] = []
    left_out = [signal.words() for signal in signals if signal.stream_id not in defaults]
    if left_out:
        notes.append(
            f"Not converted unless chosen, as they are not in volts (not electrode signals): {'; '.join(left_out)}. "
            "If chosen, each is written as a time series in its own unit."
        )
    others = [f"spike (WaveMark) channels {', '.join(spikes)}"] if spikes else []
    others += [f"event and marker channels {', '.join(events)}"] if events else []
    if others:
        notes.append(f"Only waveform channels are converted, not the {' nor the '.join(others)}.")
    if segments > 1:
        notes.append(
            f"Sampling was paused {segments - 1} time(s), so each channel is written as {segments} series, one per "
            "part, each with its own start time."
        )
    if len({round(signal.t_start, 9) for signal in signals}) > 1:
        notes.append(
            "Spike2 starts each channel's sampling at a slightly different time; each series keeps its own "
            "first-sample time, so the channels stay aligned."
        )
    if start_time is None:
        notes.append(f"{name} does not say when the recording started; you will be asked for the start time.")
    return notes


# --- reading and converting ----------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    (name,) = {file for stream_id in stream_ids for file in detection.stream(stream_id).files}
    return reader_view(root, {_VIEW_NAME: name})


def _camel(words: str) -> str:
    return "".join(word[:1].upper() + word[1:] for word in re.split(r"[^0-9A-Za-z]+", words) if word)


def _series_names(signals: Sequence[_Signal]) -> dict[str, str]:
    """From the channel titles; the channel number where titles are missing or repeat."""
    stems = {signal.stream_id: signal.stem() for signal in signals}
    repeated = {stem for stem in stems.values() if list(stems.values()).count(stem) > 1}
    names: dict[str, str] = {}
    for signal in signals:
        stem = stems[signal.stream_id]
        if not stem or stem in repeated:
            stem += "Channel" + "_".join(map(str, signal.numbers))
        names[signal.stream_id] = ("ElectricalSeries" if signal.is_voltage else "TimeSeries") + stem
    return names


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per stream, keyed by stream id: voltage streams as ElectricalSeries (each with its
    own electrode group, named after its channels), the others as TimeSeries."""
    from neo.rawio import Spike2RawIO
    from neuroconv import ConverterPipe

    path = folder / _VIEW_NAME
    start_time = _start_time(_read_file_header(path, path.name, path.stat().st_size))
    reader = Spike2RawIO(filename=str(path))
    reader.parse_header()
    signals = {signal.stream_id: signal for signal in _signals_of(reader) if signal.stream_id in stream_ids}
    names = _series_names(list(signals.values()))
    interfaces: dict[str, Any] = {}
    groups: dict[str, str] = {}
    descriptions: dict[str, str] = {}
    for number, stream_id in enumerate(stream_ids):
        signal = signals[stream_id]
        descriptions[stream_id] = f"Spike2 {signal.words()}."
        interface = _interface(path, signal, metadata_key=f"stream{number}", series_name=names[stream_id])
        if signal.is_voltage:
            group = names[stream_id].removeprefix("ElectricalSeries")
            interface.recording_extractor.set_property("group_name", [group] * len(signal.titles))
            groups[group] = f"Electrode(s) of Spike2 {signal.words()}."
        interfaces[stream_id] = interface
    device = {
        "name": "Spike2",
        "description": "Recorded with CED Spike2 (Cambridge Electronic Design); the file does not name the "
        "acquisition interface, the amplifier or the electrodes.",
    }

    class Spike2Streams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            if start_time is not None:  # neo's reader leaves it out
                metadata["NWBFile"]["session_start_time"] = start_time
            for stream_id, interface in self.data_interface_objects.items():
                fields = {"name": names[stream_id], "description": descriptions[stream_id]}
                if signals[stream_id].is_voltage:
                    metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].update(fields)
                else:
                    metadata["TimeSeries"][interface.metadata_key].update(fields)
            if groups:
                metadata["Ecephys"]["Electrodes"] = [
                    {"name": "comment", "description": "The channel's comment in Spike2."},
                    {"name": "phy_chan", "description": "The 1401 input (ADC port) the channel was sampled from."},
                ]
            for group, description in groups.items():
                entry = metadata["Ecephys"].setdefault("ElectrodeGroups", {}).setdefault(group, {"name": group})
                entry.update(description=description, device_metadata_key=_DEVICE_KEY)
                metadata.setdefault("Devices", {})[_DEVICE_KEY] = device
            return metadata

    converter: NWBConverter = Spike2Streams(data_interfaces=interfaces)
    return converter


def _signals_of(reader: Any) -> list[_Signal]:
    signals: list[_Signal] = []
    segments = reader.segment_count(0)
    for index, stream in enumerate(reader.header["signal_streams"]):
        channels = reader.header["signal_channels"]
        channels = channels[channels["stream_id"] == stream["id"]]
        signals.append(
            _Signal(
                stream_id=str(stream["id"]),
                titles=tuple(str(title).strip() for title in channels["name"]),
                numbers=tuple(int(channel_id) + 1 for channel_id in channels["id"]),
                unit=str(channels["units"][0]).strip(),
                rate=float(channels["sampling_rate"][0]),
                samples=sum(int(reader.get_signal_size(0, segment, index)) for segment in range(segments)),
                t_start=float(reader.get_signal_t_start(0, 0, index)),
            )
        )
    return signals  # in neo's stream order: stream_index is the position


def _interface(path: Path, signal: _Signal, *, metadata_key: str, series_name: str) -> Any:
    """neuroconv's interface for one stream: a recording (ElectricalSeries) or analog (TimeSeries) one."""
    recording_interface, analog_interface = _interface_classes()
    if signal.is_voltage:
        return recording_interface(file_path=str(path), stream_id=signal.stream_id, metadata_key=metadata_key)
    return analog_interface(
        file_path=str(path), stream_id=signal.stream_id, metadata_key=metadata_key, series_name=series_name
    )


@cache
def _interface_classes() -> tuple[type, type]:
    """Defined on first use: neuroconv costs ~1 s to import, which the web process must not pay."""
    from neuroconv.datainterfaces.ecephys.baserecordingastimeseriesinterface import BaseRecordingAsTimeSeriesInterface
    from neuroconv.datainterfaces.ecephys.baserecordingextractorinterface import BaseRecordingExtractorInterface

    class Spike2SmrRecordingInterface(BaseRecordingExtractorInterface):  # type: ignore[misc]  # no type hints
        """Spike2 .smr through neo's reader, which needs no sonpy (unlike neuroconv's Spike2RecordingInterface)."""

        display_name = "Spike2 Recording (.smr)"
        associated_suffixes = (_SMR,)

        @classmethod
        def get_extractor_class(cls) -> Any:
            from spikeinterface.extractors.extractor_classes import Spike2RecordingExtractor

            return Spike2RecordingExtractor

    class Spike2SmrAnalogInterface(BaseRecordingAsTimeSeriesInterface):  # type: ignore[misc]  # no type hints
        """Spike2 channels that are not electrode signals (flow, force...), as a TimeSeries in their own unit."""

        display_name = "Spike2 Analog (.smr)"
        associated_suffixes = (_SMR,)

        def __init__(self, file_path: str, stream_id: str, metadata_key: str, series_name: str) -> None:
            from spikeinterface.extractors import read_spike2

            self.recording_extractor = read_spike2(file_path, stream_id=stream_id, all_annotations=True)
            self.metadata_key = metadata_key
            self.series_name = series_name
            super().__init__(file_path=file_path, stream_id=stream_id)

        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            metadata["TimeSeries"][self.metadata_key] = {"name": self.series_name}
            return metadata

    return Spike2SmrRecordingInterface, Spike2SmrAnalogInterface


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs="a CED Spike2 data file saved as .smr (Spike2 9 and later: File > Export As > .smr)",
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
)

"""Neuralynx (Cheetah): one `.ncs` file per continuously sampled channel, in one session folder.

Every Neuralynx file starts with a 16 kB text header; an `.ncs` then holds 1,044-byte records of 512
samples each. neo groups the channels into streams by sampling rate, input range and DSP filters;
each stream is converted, all of them by default. Events (`.nev`), spikes (`.nse`, `.ntt`) and video
tracking (`.nvt`) are recognised but not converted.

Detection never reads the samples: the headers, the first and last record of each file, and (for a
clock that drifts from the stated rate) the record timestamps neo itself reads to find pauses.
"""

from __future__ import annotations

import re
import struct
import traceback
import warnings
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from ..errors import RecordingProblem
from ..quantities import describe_duration
from .base import Detection, Stream, SupportedFormat, problems_message, reader_view, short_reason, some_names

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "neuralynx"
_LABEL = "Neuralynx"
_HEADER_BYTES = 16384
_RECORD_BYTES = 1044
_RECORD_SAMPLES = 512
# qwTimeStamp (µs), dwChannelNumber, dwSampleFreq, dwNumValidSamples; the 512 int16 samples follow.
_RECORD_HEAD = struct.Struct("<QIII")
# Every Neuralynx header starts with this line (older Cheetah versions too).
_HEADER_START = b"########"
_NOT_CONVERTED = {
    ".nev": "events",
    ".nse": "spikes (single electrodes)",
    ".ntt": "spikes (tetrodes)",
    ".nst": "spikes (stereotrodes)",
    ".nvt": "video tracking",
    ".nrd": "raw data",
}


@dataclass(frozen=True)
class _NcsFile:
    """One .ncs file as read from disk: header values and the first and last record."""

    name: str  # relative to the upload root
    size_bytes: int
    records: int
    header: Mapping[str, Any]  # neo's NlxHeader
    first_timestamp_us: int
    last_valid: int  # samples used in the last record

    @property
    def base_name(self) -> str:
        return PurePosixPath(self.name).name


def _claims(files: Sequence[str]) -> bool:
    return any(name.lower().endswith(".ncs") for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    ncs_names = [name for name in files if name.lower().endswith(".ncs")]
    folders = sorted({str(PurePosixPath(name).parent) for name in ncs_names})
    if len(folders) > 1:
        raise RecordingProblem(
            f"The upload holds Neuralynx .ncs files in {len(folders)} folders ({some_names(folders)}). Cheetah "
            "writes one folder per recording session: upload one session folder at a time."
        )
    problems: list[str] = []
    ncs_files: list[_NcsFile] = []
    empty: list[_NcsFile] = []
    for name in ncs_names:
        ncs = _read_ncs(root, name, problems)
        if ncs is not None:
            (ncs_files if ncs.records else empty).append(ncs)
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    if not ncs_files:
        raise RecordingProblem(
            f"Every .ncs file in the upload ({some_names(ncs_names)}) holds only its header and no samples: "
            "the recording was never started, or the files were copied before Cheetah wrote them. "
            "Upload the session folder after recording."
        )
    _refuse_duplicate_channels(ncs_files)
    _refuse_unaligned_starts(ncs_files)
    streams, segments = _confirm_with_reader(root, folders[0], ncs_files)
    start_time = min(ncs.header["recording_opened"] for ncs in ncs_files)
    device = _device_words(ncs_files[0].header)
    file_metadata: dict[str, Any] = {
        "session_start_time": start_time.replace(tzinfo=None).isoformat(),
        "device": device,
        "channel_count": sum(stream.channel_count for stream in streams),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in streams),
        "duration_s": max(stream.duration_s for stream in streams),
        "size_bytes": sum(stream.size_bytes for stream in streams),
    }
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=streams,
        default_streams=tuple(stream.id for stream in streams),
        file_metadata=file_metadata,
        notes=tuple(_notes(files, folders[0], ncs_names, [ncs.name for ncs in empty], segments)),
    )


def _read_ncs(root: Path, name: str, problems: list[str]) -> _NcsFile | None:
    """Check one .ncs from its header and its first and last record; None (and a problem) if unusable."""
    from neo.rawio.neuralynxrawio.nlxheader import NlxHeader

    path = root / name
    size = path.stat().st_size
    if size < _HEADER_BYTES:
        problems.append(
            f"{name} is only {size:,} bytes, shorter than the 16 kB header every Neuralynx file starts with: the "
            "file is incomplete, probably a cut-off upload or copy. Upload it again."
        )
        return None
    with path.open("rb") as handle:
        start = handle.read(len(_HEADER_START))
        if start != _HEADER_START:
            problems.append(
                f"{name} is not a Neuralynx file: it does not start with the text header Cheetah writes. "
                "Upload the .ncs files exactly as Cheetah saved them."
            )
            return None
        records, extra = divmod(size - _HEADER_BYTES, _RECORD_BYTES)
        if extra:
            problems.append(
                f"{name} is {size:,} bytes: after its 16 kB header that is {records:,} records of 1,044 bytes and "
                f"{extra:,} bytes more, not a whole number of records. The file is incomplete, probably a cut-off "
                "upload or copy. Upload it again."
            )
            return None
        first = last = (0, 0, 0, 0)
        if records:
            handle.seek(_HEADER_BYTES)
            first = _RECORD_HEAD.unpack(handle.read(_RECORD_HEAD.size))
            handle.seek(_HEADER_BYTES + (records - 1) * _RECORD_BYTES)
            last = _RECORD_HEAD.unpack(handle.read(_RECORD_HEAD.size))
    try:
        header = NlxHeader(str(path))
    except Exception as error:  # neo's parser raises anything from IOError to AssertionError
        problems.append(
            f"The header of {name} could not be read ({short_reason(error)}). Upload the file exactly as "
            "Cheetah saved it."
        )
        return None
    record_size = str(header.get("RecordSize", _RECORD_BYTES)).strip()
    if record_size != str(_RECORD_BYTES) or "sampling_rate" not in header or "bit_to_microVolt" not in header:
        problems.append(
            f"{name} is not a continuous-channel (CSC) file this reader knows: its header "
            + (
                f"gives records of {record_size} bytes instead of 1,044."
                if record_size != str(_RECORD_BYTES)
                else "does not state the sampling rate and gain (-SamplingFrequency, -ADBitVolts)."
            )
            + " Upload the .ncs files exactly as Cheetah saved them."
        )
        return None
    if records and not (1 <= last[3] <= _RECORD_SAMPLES and first[3] <= _RECORD_SAMPLES):
        problems.append(
            f"{name} is damaged: its records claim {max(first[3], last[3])} samples where at most 512 fit. "
            "Upload the file exactly as Cheetah saved it."
        )
        return None
    return _NcsFile(
        name=name,
        size_bytes=size,
        records=records,
        header=header,
        first_timestamp_us=first[0],
        last_valid=last[3],
    )


def _refuse_duplicate_channels(ncs_files: Sequence[_NcsFile]) -> None:
    """neo keys channels by name and number: two files of one channel would silently become one."""
    seen: dict[tuple[str, str], str] = {}
    for ncs in ncs_files:
        for channel in zip(ncs.header["channel_names"], map(str, ncs.header["channel_ids"]), strict=False):
            if channel in seen:
                raise RecordingProblem(
                    f"{seen[channel]} and {ncs.name} hold the same channel ({channel[0]}, number {channel[1]}): "
                    "the upload has two copies of it, perhaps from two sessions. Remove one and upload again."
                )
            seen[channel] = ncs.name


def _refuse_unaligned_starts(ncs_files: Sequence[_NcsFile]) -> None:
    """Cheetah starts every channel together: a file whose first record is later (or earlier) by more
    than a record comes from another session, and neo cannot read it with the others."""
    starts = [ncs.first_timestamp_us for ncs in ncs_files]
    usual = max(set(starts), key=starts.count)
    odd = [
        ncs
        for ncs in ncs_files
        if abs(ncs.first_timestamp_us - usual) > _RECORD_SAMPLES * 1e6 / float(ncs.header["sampling_rate"])
    ]
    if odd:
        raise RecordingProblem(
            f"{some_names([ncs.name for ncs in odd])} {'does' if len(odd) == 1 else 'do'} not cover the same "
            "stretch of time as the other .ncs files "
            f"(the first samples were recorded {abs(odd[0].first_timestamp_us - usual) / 1e6:g} s apart): they "
            "come from another session or were cut. Upload the files of one recording session, each complete."
        )


@dataclass(frozen=True)
class _Segments:
    """How neo splits a stream in time: one part per stretch recorded without a pause."""

    stream_label: str
    durations_s: tuple[float, ...]

    @property
    def count(self) -> int:
        return len(self.durations_s)


def _confirm_with_reader(
    root: Path, folder: str, ncs_files: Sequence[_NcsFile]
) -> tuple[tuple[Stream, ...], list[_Segments]]:
    """Open every stream with neuroconv's interface, and find its pauses as neo will.

    The interface is opened on a preview (each file's header and first record) so that it parses
    headers and groups channels exactly as at conversion without neo summing every record of every
    file; the real files' section structure comes from neo's own scan, which reads two records per
    file when the timestamps run at the stated rate.
    """
    from neuroconv.datainterfaces import NeuralynxRecordingInterface

    by_base = {ncs.base_name: ncs for ncs in ncs_files}
    with _preview(root, ncs_files) as view:
        try:
            with _quiet_reader():
                stream_names = NeuralynxRecordingInterface.get_stream_names(folder_path=view)
                opened = []
                for stream_name in stream_names:
                    interface = NeuralynxRecordingInterface(folder_path=view, stream_name=stream_name)
                    recording = interface.recording_extractor
                    reader = recording.neo_reader
                    channels = {
                        (str(name), str(number))
                        for name, number in zip(
                            recording.get_property("channel_names"), recording.get_channel_ids(), strict=True
                        )
                    }
                    bases = [Path(path).name for key, path in reader.ncs_filenames.items() if key in channels]
                    opened.append(
                        (stream_name, float(recording.get_sampling_frequency()), [by_base[base] for base in bases])
                    )
        except Exception as error:  # any reader failure is a property of the user's files
            raise RecordingProblem(
                f"The .ncs files in {folder if folder != '.' else 'the upload'} could not be read as a Neuralynx "
                f"recording ({short_reason(error)}). Check that they are complete and exactly as Cheetah saved them.",
                detail=traceback.format_exc(),
            ) from error
    streams: list[Stream] = []
    segments: list[_Segments] = []
    several = len(opened) > 1
    for stream_name, rate, members in opened:
        members.sort(key=lambda ncs: _natural_key(ncs.base_name))
        _refuse_unequal_lengths(members)
        lengths = _scan_sections(root, members)
        label = _stream_label(members, rate, several=several)
        streams.append(
            Stream(
                id=stream_name,
                label=label,
                channel_count=len(members),
                sampling_rate_hz=rate,
                duration_s=sum(lengths) / rate,
                size_bytes=sum(ncs.size_bytes for ncs in members),
                files=tuple(ncs.name for ncs in members),
                # Cheetah's continuous channels are electrodes; its other inputs go to event files.
                kind="neural",
            )
        )
        if len(lengths) > 1:
            segments.append(_Segments(stream_label=label, durations_s=tuple(length / rate for length in lengths)))
    return tuple(streams), segments


def _refuse_unequal_lengths(members: Sequence[_NcsFile]) -> None:
    """Cheetah writes every channel of a stream in step; a shorter file was cut (neo fails on it obscurely)."""
    counts = [ncs.records for ncs in members]
    usual = max(set(counts), key=lambda count: (counts.count(count), count))
    odd = [ncs for ncs in members if ncs.records != usual]
    if odd:
        usual_samples = (usual - 1) * _RECORD_SAMPLES + next(ncs for ncs in members if ncs.records == usual).last_valid
        raise RecordingProblem(
            problems_message(
                [
                    f"{ncs.name} holds {ncs.records:,} records ({_samples(ncs):,} samples) where the other files of "
                    f"its stream hold {usual:,} ({usual_samples:,} samples): Cheetah writes all channels in step, so "
                    "the file is incomplete or comes from another session. Upload the session's files again."
                    for ncs in odd
                ]
            )
        )


def _samples(ncs: _NcsFile) -> int:
    return (ncs.records - 1) * _RECORD_SAMPLES + ncs.last_valid


@contextmanager
def _preview(root: Path, ncs_files: Sequence[_NcsFile]) -> Iterator[Path]:
    """A folder of every .ncs cut to its header and first record (~17 kB each)."""
    contents: dict[str, bytes] = {}
    for ncs in ncs_files:
        with (root / ncs.name).open("rb") as handle:
            contents[ncs.base_name] = handle.read(_HEADER_BYTES + _RECORD_BYTES)
    with reader_view(root, {name: name for name in contents}, contents=contents) as view:
        yield view


@contextmanager
def _quiet_reader() -> Iterator[None]:
    # spikeinterface passes neo's deprecated strict_gap_mode (loose: splits at pauses longer than a
    # quarter record); the warning is about the API, not about the user's files.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*strict_gap_mode.*", category=FutureWarning)
        yield


def _scan_sections(root: Path, members: Sequence[_NcsFile]) -> list[int]:
    """Samples per part of one stream, from neo's scan of the real files with spikeinterface's settings."""
    from neo.rawio import NeuralynxRawIO

    with _quiet_reader():
        reader = NeuralynxRawIO(dirname=str(root), strict_gap_mode=False)
        try:
            _, limits, _ = reader.scan_stream_ncs_files([str(root / ncs.name) for ncs in members])
        except Exception as error:  # any reader failure is a property of the user's files
            names = some_names([ncs.name for ncs in members])
            if "sections structures" in str(error):
                message = (
                    f"The .ncs files {names} share their settings but do not cover the same stretch of time (their "
                    "records start, stop or pause at different times), so they cannot be written as one recording. "
                    "Upload the files of one recording session, each complete."
                )
            else:
                message = (
                    f"The .ncs files {names} could not be read ({short_reason(error)}). Check that they are complete "
                    "and exactly as Cheetah saved them."
                )
            raise RecordingProblem(message, detail=traceback.format_exc()) from error
    return [int(length) for length in limits.length]


def _natural_key(name: str) -> list[Any]:
    """CSC2 before CSC10, as Cheetah numbers them."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def _stream_label(members: Sequence[_NcsFile], rate: float, *, several: bool) -> str:
    names = [PurePosixPath(ncs.name).stem for ncs in members]
    shown = f"{names[0]}–{names[-1]}" if len(names) > 2 else ", ".join(names)
    label = f"{len(members)} continuous channel{'s' if len(members) > 1 else ''} ({shown}) at {rate:g} Hz"
    input_range = members[0].header.get("InputRange")
    if several and isinstance(input_range, int):
        label += f", ±{input_range} µV input range"
    return label


def _device_words(header: Mapping[str, Any]) -> str:
    system = str(header.get("AcquisitionSystem") or header.get("HardwareSubSystemType") or "").strip()
    application = str(header.get("ApplicationName") or "").strip()
    version = str(header.get("ApplicationVersion") or "").strip()
    words = f"Neuralynx {system}".strip()
    if application:
        words += f", recorded with {application} {version}".rstrip()
    return words


def _notes(
    files: Sequence[str], folder: str, ncs_names: Sequence[str], empty: Sequence[str], segments: Sequence[_Segments]
) -> list[str]:
    notes: list[str] = []
    for part in segments:
        notes.append(
            f"Recording was paused {_times(part.count - 1)} during {part.stream_label} "
            f"(Cheetah kept writing into the same files): each of the {part.count} parts "
            f"({', '.join(describe_duration(seconds) for seconds in part.durations_s)}) is written as its own "
            "series, numbered in order."
        )
    if empty:
        notes.append(f"These .ncs files hold no samples (only a header) and were left out: {some_names(empty)}.")
    prefix = "" if folder == "." else f"{folder}/"
    kinds = sorted(
        {
            _NOT_CONVERTED[PurePosixPath(name).suffix.lower()]
            for name in files
            if PurePosixPath(name).suffix.lower() in _NOT_CONVERTED
        }
    )
    if kinds:
        notes.append(f"Not converted, only the continuous channels (.ncs): {', '.join(kinds)}.")
    others = [
        name
        for name in files
        if name not in ncs_names
        and PurePosixPath(name).suffix.lower() not in _NOT_CONVERTED
        and not (name.startswith(prefix) and PurePosixPath(name).name.lower().startswith("cheetah"))
    ]
    if others:
        notes.append(f"These files are not part of the recording and were left out: {some_names(others)}.")
    return notes


def _times(count: int) -> str:
    return {1: "once", 2: "twice"}.get(count, f"{count} times")


# --- reading and converting ----------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """One subfolder per chosen stream, holding that stream's .ncs files.

    neo numbers streams across the whole folder, so a folder of one stream reads as that stream
    alone, whichever others the user left out.
    """
    names = {
        f"{stream_id}/{PurePosixPath(name).name}": name
        for stream_id in stream_ids
        for name in detection.stream(stream_id).files
    }
    return reader_view(root, names)


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One NeuralynxRecordingInterface per stream (a subfolder of the view), each with its own series."""
    from neuroconv import ConverterPipe
    from neuroconv.datainterfaces import NeuralynxRecordingInterface

    with _quiet_reader():
        interfaces = {
            stream_id: NeuralynxRecordingInterface(folder_path=folder / stream_id, metadata_key=f"neuralynx{number}")
            for number, stream_id in enumerate(stream_ids)
        }
    recordings = {stream_id: interface.recording_extractor for stream_id, interface in interfaces.items()}
    series_names = _series_names(recordings)
    header = next(iter(recordings[stream_ids[0]].neo_reader.file_headers.values()))
    device = _device_words(header)

    class NeuralynxStreams(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            for stream_id, interface in self.data_interface_objects.items():
                names = [str(name) for name in recordings[stream_id].get_property("channel_names")]
                shown = f"{names[0]}–{names[-1]}" if len(names) > 2 else ", ".join(names)
                rate = recordings[stream_id].get_sampling_frequency()
                metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].update(
                    name=series_names[stream_id],
                    description=f"Continuous channels {shown} sampled at {rate:g} Hz, recorded by {device}.",
                )
            for group in metadata["Ecephys"].get("ElectrodeGroups", {}).values():
                group.setdefault("description", f"Channels recorded by {device}; the files do not name the electrodes.")
            for entry in metadata.get("Devices", {}).values():
                entry["description"] = device
            keys = sorted({key for recording in recordings.values() for key in recording.get_property_keys()})
            metadata["Ecephys"]["Electrodes"] = [
                {"name": key, "description": _COLUMN_DESCRIPTIONS.get(key, f"{key}, from each channel's .ncs header.")}
                for key in keys
                if key not in _NOT_COLUMNS
            ]
            return metadata

    converter: NWBConverter = NeuralynxStreams(data_interfaces=interfaces)
    return converter


# Recording properties neuroconv writes elsewhere than the electrodes table (see its add_electrodes).
_NOT_COLUMNS = frozenset(
    {
        "offset_to_uV",
        "gain_to_uV",
        "gain_to_physical_unit",
        "offset_to_physical_unit",
        "physical_unit",
        "contact_vector",
        "channel_name",
        "channel_names",
        "group_name",
        "group",
        "contact_ids",
    }
)
# The .ncs header values neo keeps per channel, which neuroconv writes as electrode columns.
_COLUMN_DESCRIPTIONS = {
    "InputRange": "Input range of the channel in microvolts (plus or minus), from the .ncs header.",
    "input_inverted": "Whether Cheetah inverted the channel's signal (-InputInverted in the .ncs header).",
    "ADMaxValue": "Largest value of the analog-to-digital converter (-ADMaxValue in the .ncs header).",
    "NumADChannels": "Number of A/D channels in the channel's .ncs file (-NumADChannels).",
    "RecordSize": "Size in bytes of each 512-sample record of the .ncs file (-RecordSize).",
    "FileType": "Neuralynx file type (-FileType; CSC is a continuously sampled channel).",
    "recording_opened": "When Cheetah opened the channel's .ncs file (-TimeCreated in its header).",
    "recording_closed": "When Cheetah closed the channel's .ncs file (-TimeClosed in its header).",
    "DSPLowCutFilterEnabled": "Whether the hardware low-cut (high-pass) filter was on (-DSPLowCutFilterEnabled).",
    "DspLowCutFrequency": "Cut-off of the low-cut (high-pass) filter in Hz (-DspLowCutFrequency).",
    "DspLowCutNumTaps": "Number of taps of the low-cut filter (-DspLowCutNumTaps).",
    "DspLowCutFilterType": "Type of the low-cut filter (-DspLowCutFilterType).",
    "DSPHighCutFilterEnabled": "Whether the hardware high-cut (low-pass) filter was on (-DSPHighCutFilterEnabled).",
    "DspHighCutFrequency": "Cut-off of the high-cut (low-pass) filter in Hz (-DspHighCutFrequency).",
    "DspHighCutNumTaps": "Number of taps of the high-cut filter (-DspHighCutNumTaps).",
    "DspHighCutFilterType": "Type of the high-cut filter (-DspHighCutFilterType).",
    "DspDelayCompensation": "Whether Cheetah compensated the filters' delay (-DspDelayCompensation).",
    "DspFilterDelay_µs": "Delay the filters introduce, in microseconds (-DspFilterDelay_µs).",
}


def _series_names(recordings: Mapping[str, Any]) -> dict[str, str]:
    """ "ElectricalSeries" for one stream; for several, named by what tells them apart (rate, input range)."""
    if len(recordings) == 1:
        return {stream_id: "ElectricalSeries" for stream_id in recordings}
    parts: dict[str, list[str]] = {}
    for number, (stream_id, recording) in enumerate(recordings.items()):
        ranges = recording.get_property("InputRange")
        input_range = f"Range{int(ranges[0])}uV" if ranges is not None else ""
        parts[stream_id] = [f"{recording.get_sampling_frequency():g}Hz", input_range, f"Stream{number}"]
    for used in range(1, 4):
        names = {stream_id: "ElectricalSeries" + "".join(words[:used]) for stream_id, words in parts.items()}
        if len(set(names.values())) == len(names):
            break
    return names


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "a Neuralynx (Cheetah) session: the folder's .ncs files, one per channel (events, spikes and "
        "video tracking files may come along but are not converted)"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
)

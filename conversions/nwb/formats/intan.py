"""Intan RHD and RHS: one file holding the recording's settings (a header) and then every signal the
controller saved, in blocks of 128 samples (60 in RHD files older than version 2.0).

`.rhd` files come from RHD recording controllers, `.rhs` files from RHS stimulation/recording
controllers. The amplifier channels are the brain signals, converted by default; the controller's
other analog signals (headstage auxiliary inputs, supply voltage, board ADC inputs...) are offered
as streams and written as time series when chosen. Intan's RHX software can start a new file every
few minutes: files named `<prefix>_YYMMDD_HHMMSS.rhd` that continue one another are one recording.
The files do not say when the recording started (the file name usually does, as a hint only).

Checks read the header and the first and last data blocks, never the data: neo verifies that the
sample counter of every block runs on without a gap, which reads the whole file (seconds for a few
GB not in memory), so detection checks the counter at both ends and confirms the header with
neuroconv's interfaces on a copy of the header and the first block.
"""

from __future__ import annotations

import itertools
import re
import traceback
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from .base import Detection, Stream, SupportedFormat, problems_message, reader_view, short_reason, some_names

if TYPE_CHECKING:
    from neuroconv import NWBConverter
    from neuroconv.basedatainterface import BaseDataInterface

_KEY = "intan"
_LABEL = "Intan RHD/RHS"
_SUFFIXES = (".rhd", ".rhs")
# The first four bytes of every Intan file, little-endian.
_MAGIC = {".rhd": 0xC6912702, ".rhs": 0xD69127AC}
_SYSTEMS = {".rhd": "Intan RHD recording system", ".rhs": "Intan RHS stimulation/recording system"}
# The names RHX gives files when it starts a new one every few minutes: <prefix>_YYMMDD_HHMMSS.
_RHX_NAME = re.compile(r"^(?P<prefix>.*)_(?P<date>\d{6})_(?P<time>\d{6})$")
# The files neo reads when a recording is saved as one file per signal type or per channel.
_HEADER_ONLY_NAMES = ("info.rhd", "info.rhs")
_AMPLIFIER = "amplifier"


@dataclass(frozen=True)
class _Kind:
    """A stream of an Intan file, as neo names it and as the portal offers it."""

    stream_id: str
    words: str  # plain words for the stream's label
    neural: bool


# neo's stream names. Amplifier channels are read by IntanRecordingInterface, the others by
# IntanAnalogInterface (which accepts exactly these names).
_KINDS = {
    "RHD2000 amplifier channel": _Kind(_AMPLIFIER, "Amplifier channels", neural=True),
    "RHS2000 amplifier channel": _Kind(_AMPLIFIER, "Amplifier channels", neural=True),
    "RHD2000 auxiliary input channel": _Kind(
        "auxiliary", "Headstage auxiliary inputs, e.g. an accelerometer", neural=False
    ),
    "RHD2000 supply voltage channel": _Kind("supply_voltage", "Headstage supply voltage", neural=False),
    "USB board ADC input channel": _Kind("adc_input", "Controller analog inputs (ADC)", neural=False),
    "USB board ADC output channel": _Kind("adc_output", "Controller analog outputs (DAC)", neural=False),
    "DC Amplifier channel": _Kind("dc_amplifier", "DC amplifier channels, low-gain slow signals", neural=False),
}
_NOT_CONVERTED = {
    "USB board digital input channel": "digital inputs",
    "USB board digital output channel": "digital outputs",
    "Stim channel": "stimulation currents",
}


@dataclass(frozen=True)
class _Header:
    """What one Intan file's header and size say; the data itself is not read."""

    name: str  # relative to the upload root
    suffix: str  # ".rhd" or ".rhs"
    version: str  # the file format version, e.g. "2.0"
    size_bytes: int
    header_bytes: int
    block_bytes: int
    block_samples: int
    blocks: int
    sampling_rate_hz: float
    first_sample: int  # Intan's sample counter at the first and last sample
    last_sample: int
    channel_layout: tuple[Any, ...]  # compared between the files of one recording
    notes: tuple[str, ...]  # notes typed into the acquisition software


def _claims(files: Sequence[str]) -> bool:
    return any(PurePosixPath(name).suffix.lower() in _SUFFIXES for name in files)


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    intan_files = [name for name in files if PurePosixPath(name).suffix.lower() in _SUFFIXES]
    if not intan_files:
        raise RecordingProblem("The upload has no Intan file (.rhd or .rhs). Upload the file the Intan software saved.")
    _refuse_header_only_files(intan_files, files)
    parts = _one_recording(intan_files)
    problems: list[str] = []
    headers = [header for header in (_read_header(root, name, problems) for name in parts) if header is not None]
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    _check_the_parts_continue(headers)
    streams, not_converted = _confirm_with_reader(root, headers)
    neural = [stream.id for stream in streams if _kind_of(stream.id).neural]
    default_streams = tuple(neural) or tuple(stream.id for stream in streams)
    first = headers[0]
    amplifier = next((stream for stream in streams if stream.id == _AMPLIFIER), None)
    file_metadata: dict[str, Any] = {
        "session_start_time": None,
        "device": _SYSTEMS[first.suffix],
        "channel_count": amplifier.channel_count if amplifier else 0,
        "sampling_rate_hz": first.sampling_rate_hz,
        "duration_s": max(stream.duration_s for stream in streams),
        "size_bytes": sum(header.size_bytes for header in headers),
        "file_version": first.version,
    }
    ignored = [name for name in files if name not in parts]
    notes = _notes(headers, streams, default_streams, not_converted, ignored)
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=streams,
        default_streams=default_streams,
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _refuse_header_only_files(intan_files: Sequence[str], files: Sequence[str]) -> None:
    """info.rhd/info.rhs hold only the settings of a recording saved as separate .dat files."""
    header_only = [name for name in intan_files if PurePosixPath(name).name in _HEADER_ONLY_NAMES]
    if header_only and any(name.endswith(".dat") for name in files):
        raise RecordingProblem(
            f"{header_only[0]} and the .dat files next to it are an Intan recording saved as one file per "
            "signal type or per channel, which cannot be converted yet. Save the recording in Intan's "
            '"Traditional" file format (one .rhd or .rhs file) and upload that file.'
        )


def _one_recording(intan_files: Sequence[str]) -> list[str]:
    """The upload's Intan files as the parts of one recording, in time order; refuses several recordings.

    Several files are one recording when they sit in one folder and carry the names RHX gives
    the files of a recording it splits (one prefix, then the date and time each file started).
    """
    if len(intan_files) == 1:
        return list(intan_files)
    folders = {PurePosixPath(name).parent for name in intan_files}
    suffixes = {PurePosixPath(name).suffix.lower() for name in intan_files}
    matches = [_RHX_NAME.match(PurePosixPath(name).stem) for name in intan_files]
    prefixes = {match["prefix"] for match in matches if match}
    if len(folders) == 1 and len(suffixes) == 1 and all(matches) and len(prefixes) == 1:
        return sorted(intan_files, key=lambda name: PurePosixPath(name).name)
    raise RecordingProblem(
        f"The upload holds several Intan files ({some_names(intan_files)}) that are not the parts of one "
        "recording (RHX names the parts of one recording <prefix>_YYMMDD_HHMMSS, in one folder). Upload one "
        "recording at a time."
    )


def _read_header(root: Path, name: str, problems: list[str]) -> _Header | None:
    """Read and check one file's header and size; appends to `problems` and returns None if unusable."""
    from neo.rawio.intanrawio import read_rhd, read_rhs

    path = root / name
    suffix = PurePosixPath(name).suffix.lower()
    size = path.stat().st_size
    with path.open("rb") as handle:
        start = handle.read(4)
    magic = int.from_bytes(start, "little") if len(start) == 4 else None
    if magic != _MAGIC[suffix]:
        other = next((other for other, value in _MAGIC.items() if value == magic), None)
        if other is not None:
            problems.append(
                f"{name} is an Intan {other} file named {suffix}: rename it to end in {other} and upload it again."
            )
        else:
            problems.append(
                f"{name} is not an Intan file: it does not start as every Intan {suffix} file does. It may be "
                f"damaged, or another kind of file renamed {suffix}. Upload the file the Intan software saved."
            )
        return None
    try:
        info, channels, dtype, header_bytes, block_samples, _ = (read_rhd if suffix == ".rhd" else read_rhs)(
            path, "header-attached"
        )
        version = f"{int(info['major_version'])}.{int(info['minor_version'])}"
        block_bytes = int(np.dtype(dtype).itemsize)
        counter_type = np.dtype(dtype)["timestamp"].base
        layout = tuple((str(channel["native_channel_name"]), int(channel["signal_type"])) for channel in channels)
        rate = float(info["sampling_rate"])
    except Exception as error:  # any parsing failure is a property of the user's file
        problems.append(
            f"{name} starts like an Intan file, but its header (the recording's settings) cannot be read "
            f"({short_reason(error)}): the file is damaged or cut short. Upload the file the Intan software "
            "saved again."
        )
        return None
    data_bytes = size - header_bytes
    if data_bytes <= 0:
        problems.append(
            f"{name} holds the recording's settings but no samples (the recording was stopped before any data "
            "was saved, or the file was cut short). Upload a file with data."
        )
        return None
    if data_bytes % block_bytes:
        problems.append(
            f"{name} is incomplete: its {data_bytes:,} bytes of data are not a whole number of Intan data blocks "
            f"({block_bytes:,} bytes each), so the file was cut off, probably during the upload or a copy. "
            "Upload it again."
        )
        return None
    blocks = data_bytes // block_bytes
    first_sample, last_sample = _sample_counter_ends(path, header_bytes, block_bytes, block_samples, counter_type)
    notes = tuple(str(info.get(key) or "").strip() for key in ("note1", "note2", "note3"))
    return _Header(
        name=name,
        suffix=suffix,
        version=version,
        size_bytes=size,
        header_bytes=header_bytes,
        block_bytes=block_bytes,
        block_samples=block_samples,
        blocks=blocks,
        sampling_rate_hz=rate,
        first_sample=first_sample,
        last_sample=last_sample,
        channel_layout=(rate, block_bytes, layout),
        notes=tuple(note for note in notes if note),
    )


def _sample_counter_ends(
    path: Path, header_bytes: int, block_bytes: int, block_samples: int, counter_type: np.dtype[Any]
) -> tuple[int, int]:
    """Intan's sample counter at the first sample and at the last: each block starts with its counters."""
    size = path.stat().st_size
    with path.open("rb") as handle:
        handle.seek(header_bytes)
        first = np.frombuffer(handle.read(counter_type.itemsize), dtype=counter_type)[0]
        handle.seek(size - block_bytes + (block_samples - 1) * counter_type.itemsize)
        last = np.frombuffer(handle.read(counter_type.itemsize), dtype=counter_type)[0]
    return int(first), int(last)


def _check_the_parts_continue(headers: Sequence[_Header]) -> None:
    """Samples must follow one another without a gap, within each file and from one file to the next.

    Only the ends are compared: a counter that ends where the sample count says it should has no
    gap inside, unless gaps and repeats cancel out exactly. neo checks every block when converting.
    """
    first = headers[0]
    for header in headers:
        if header.channel_layout != first.channel_layout:
            raise RecordingProblem(
                f"{header.name} and {first.name} were recorded with different settings (channels or sampling "
                "rate), so they are not parts of one recording. Upload one recording at a time."
            )
        expected = header.blocks * header.block_samples - 1
        if header.last_sample - header.first_sample != expected:
            missing = header.last_sample - header.first_sample - expected
            amount = f"about {missing:,} samples are missing" if missing > 0 else "the sample counter jumps back"
            raise RecordingProblem(
                f"{header.name} has gaps in its sample counter ({amount}): the Intan software lost data while "
                "recording, usually because the computer could not keep up. The converter needs continuous "
                "samples to place them in time. Upload a recording without lost samples, or cut the file at the "
                "gap with Intan's tools and upload the parts separately."
            )
    for earlier, later in itertools.pairwise(headers):
        if later.first_sample != earlier.last_sample + 1:
            raise RecordingProblem(
                f"{later.name} does not continue {earlier.name}: its first sample is not the one after the last "
                "sample of the file before, so samples are missing between the files (or a file of the series "
                "was not uploaded). Upload every file of the recording."
            )


def _confirm_with_reader(root: Path, headers: Sequence[_Header]) -> tuple[tuple[Stream, ...], list[str]]:
    """Open the streams with neuroconv's interfaces on a copy of the first file's header and first block.

    Returns the streams and the plain names of the signals the file holds that are not converted.
    """
    from neo.rawio import IntanRawIO

    first = headers[0]
    view_name = _reader_name(first.name)
    with (root / first.name).open("rb") as handle:
        head = handle.read(first.header_bytes + first.block_bytes)
    with reader_view(root, {view_name: first.name}, contents={view_name: head}) as view:
        try:
            reader = IntanRawIO(filename=str(view / view_name))
            reader.parse_header()
            stream_names = [str(name) for name in reader.header["signal_streams"]["name"]]
            stream_ids = [str(stream_id) for stream_id in reader.header["signal_streams"]["id"]]
            channels = reader.header["signal_channels"]
            offered = [name for name in stream_names if name in _KINDS]
            for name in offered:
                _interface(view / view_name, _KINDS[name].stream_id, split=False)
        except Exception as error:  # any reader failure is a property of the user's file
            raise RecordingProblem(
                f"{first.name} (Intan {first.suffix[1:].upper()} file version {first.version}) could not be read by "
                f"the converter ({short_reason(error)}): this version or these settings are not supported. Open the "
                "file in Intan's current RHX software and save it again, then upload the new file.",
                detail=traceback.format_exc(),
            ) from error
    total_samples = sum(header.blocks for header in headers) * first.block_samples
    duration = total_samples / first.sampling_rate_hz
    streams: list[Stream] = []
    for name, neo_id in zip(stream_names, stream_ids, strict=True):
        if name not in _KINDS:
            continue
        kind = _KINDS[name]
        stream_channels = channels[channels["stream_id"] == neo_id]
        streams.append(
            Stream(
                id=kind.stream_id,
                label=_label(kind, stream_channels),
                channel_count=len(stream_channels),
                sampling_rate_hz=float(stream_channels["sampling_rate"][0]),
                duration_s=duration,
                size_bytes=sum(header.size_bytes for header in headers),
                files=tuple(header.name for header in headers),
                kind="neural" if kind.neural else "auxiliary",
            )
        )
    if not streams:
        raise RecordingProblem(
            f"{first.name} holds no analog signals that can be converted (no amplifier channels, no analog "
            "inputs). Upload a recording with amplifier channels."
        )
    not_converted = [
        f"{words} ({int(np.sum(channels['stream_id'] == neo_id))} channels)"
        for name, neo_id in zip(stream_names, stream_ids, strict=True)
        if (words := _NOT_CONVERTED.get(name))
    ]
    return tuple(streams), not_converted


def _label(kind: _Kind, channels: Any) -> str:
    count = f"{len(channels)} channel{'s' if len(channels) != 1 else ''}"
    if kind.stream_id != _AMPLIFIER:
        return f"{kind.words} ({count})"
    # Amplifier channels are named after the headstage port they came in on: "A-000".
    ports = sorted({str(channel_id).split("-")[0] for channel_id in channels["id"]})
    return f"{kind.words}, headstage port{'s' if len(ports) > 1 else ''} {', '.join(ports)} ({count})"


def _kind_of(stream_id: str) -> _Kind:
    return next(kind for kind in _KINDS.values() if kind.stream_id == stream_id)


def _notes(
    headers: Sequence[_Header],
    streams: Sequence[Stream],
    default_streams: Sequence[str],
    not_converted: Sequence[str],
    ignored: Sequence[str],
) -> list[str]:
    first = headers[0]
    notes: list[str] = []
    if len(headers) > 1:
        notes.append(
            f"The recording was saved in {len(headers)} files ({some_names([header.name for header in headers])}); "
            "they are converted as one continuous recording."
        )
    started = _start_in_name(first.name)
    hint = f" (its name suggests {started:%Y-%m-%d %H:%M:%S})" if started else ""
    notes.append(f"{first.name} does not say when the recording started{hint}; you will be asked for it.")
    left_out = [stream.label for stream in streams if stream.id not in default_streams]
    if left_out:
        notes.append(
            f"Not converted unless chosen, as they are not brain signals: {'; '.join(left_out)}. If chosen, "
            "they are written as time series."
        )
    elif not any(_kind_of(stream_id).neural for stream_id in default_streams):
        notes.append("The file has no amplifier channels: its analog signals are written as time series.")
    if not_converted:
        notes.append(f"The file's {', '.join(not_converted)} are not converted.")
    typed = [note for header in headers[:1] for note in header.notes]
    if typed:
        notes.append(f"Notes typed in the Intan software: {' / '.join(typed)}.")
    if ignored:
        notes.append(f"These files are not part of the recording and were left out: {some_names(ignored)}.")
    return notes


def _start_in_name(name: str) -> datetime | None:
    """The date and time RHX puts in the names of the files it creates, when the name has them."""
    match = _RHX_NAME.match(PurePosixPath(name).stem)
    if match is None:
        return None
    try:
        return datetime.strptime(match["date"] + match["time"], "%y%m%d%H%M%S")
    except ValueError:
        return None


# --- reading and converting ----------------------------------------------------------------------


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """A folder holding only the recording's file(s), under their own names (the suffix says the system)."""
    files = detection.stream(stream_ids[0]).files
    return reader_view(root, {_reader_name(name): name for name in files})


def _reader_name(name: str) -> str:
    """The file's name with its suffix in lower case, as neo expects it."""
    path = PurePosixPath(name)
    return f"{path.stem}{path.suffix.lower()}"


def _interface(file_path: Path, stream_id: str, *, split: bool) -> BaseDataInterface:
    # Imported here: neuroconv costs ~1 s to import, and only detection and conversion need it.
    from neuroconv.datainterfaces import IntanRecordingInterface
    from neuroconv.datainterfaces.ecephys.intan.intananaloginterface import IntanAnalogInterface

    interface: BaseDataInterface
    if stream_id == _AMPLIFIER:
        interface = IntanRecordingInterface(
            file_path=file_path, metadata_key="intan_amplifier", saved_files_are_split=split
        )
    else:
        neo_name = next(name for name, kind in _KINDS.items() if kind.stream_id == stream_id)
        interface = IntanAnalogInterface(
            file_path=file_path, stream_name=neo_name, metadata_key=f"intan_{stream_id}", saved_files_are_split=split
        )
    return interface


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One interface per chosen stream, all reading the view's file(s); they share the Intan device."""
    from neuroconv import ConverterPipe

    files = sorted(path for path in folder.iterdir() if path.suffix.lower() in _SUFFIXES)
    interfaces = {stream_id: _interface(files[0], stream_id, split=len(files) > 1) for stream_id in stream_ids}
    converter: NWBConverter = ConverterPipe(data_interfaces=interfaces)
    return converter


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "an Intan recording: the .rhd (or .rhs) file the Intan software saved, or every file of a recording "
        "it saved in parts (<prefix>_YYMMDD_HHMMSS.rhd)"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
)

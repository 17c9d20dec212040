"""NeuroScope (Buzsáki lab tools, NDManager, often Intan recordings): `<session>.dat` + `<session>.xml`.

A session as NDManager lays it out::

    session1/
        session1.xml    parameter file: channel count, sampling rate, voltage range and amplification,
                        anatomical groups (shanks), optionally the date
        session1.dat    wide-band signals: int16, all channels interleaved, no header
        session1.lfp    (or .eeg) downsampled copy of the .dat; not converted

The `.dat` is recognised only next to a `.xml` of the same base name: a bare `.dat` is just raw
int16 samples (many systems write such files) and says nothing of its channel count or rate, so it
is not claimed; a user who knows it is NeuroScope's must upload its `.xml` too.

Amplitude: the reader takes volts per bit from the `.xml` (voltageRange / 2^nBits / amplification).
NDManager's defaults (20 V, x1000: 0.305 µV per bit) are often left unchanged whatever amplifier
recorded the data (an Intan RHD2000 records 0.195 µV per bit), and neuroconv can take a gain to
override them; the portal has no way yet to ask for one, so a note states the value used and how
to correct it (in the `.xml`).
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.etree import ElementTree

from ..errors import RecordingProblem
from .base import Detection, Stream, SupportedFormat, reader_view, short_reason, some_names

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "neuroscope"
_LABEL = "NeuroScope"
_DATA_SUFFIX = ".dat"
_PARAMETERS_SUFFIX = ".xml"
# NeuroScope's downsampled copies of the .dat, named after the session too.
_LFP_SUFFIXES = (".lfp", ".eeg")
# A parameter file is kilobytes (hundreds for many channels with display settings); never read a large file whole.
_MAX_XML_BYTES = 16 << 20
_SAMPLE_BYTES = 2  # the reader supports 16-bit samples only
# What the reader needs from <acquisitionSystem>.
_ACQUISITION_FIELDS = ("nBits", "nChannels", "samplingRate", "voltageRange", "amplification")
# Written by NDManager when the user fills in the date; usually a date alone.
_DATE_ELEMENT = re.compile(rb"<date\b[^>]*?(?:/>|>[^<]*</date>)")
# NDManager's default gain (20 V range / 2^16 / x1000), and the most common amplifier's, for the note on amplitudes.
_NDMANAGER_UV_PER_BIT = 20 / 2**16 / 1000 * 1e6
_INTAN_UV_PER_BIT = 0.195


@dataclass(frozen=True)
class _Session:
    """A .dat/.xml pair as read and checked from disk."""

    dat: str
    xml: str
    channel_count: int  # channels interleaved in the .dat, as the .xml says
    sampling_rate_hz: float
    uv_per_bit: float
    groups: tuple[tuple[int, ...], ...]  # anatomical groups, channels numbered from 0
    start_time: datetime | None
    date_text: str  # <generalInfo><date> as written, "" when absent
    dat_bytes: int
    xml_bytes: int

    @property
    def stem(self) -> str:
        return Path(self.dat).stem


# --- claim and inspection ------------------------------------------------------------------------


def _pairs(files: Sequence[str]) -> list[tuple[str, str]]:
    present = set(files)
    return [
        (name, name[: -len(_DATA_SUFFIX)] + _PARAMETERS_SUFFIX)
        for name in files
        if name.lower().endswith(_DATA_SUFFIX) and name[: -len(_DATA_SUFFIX)] + _PARAMETERS_SUFFIX in present
    ]


def _claims(files: Sequence[str]) -> bool:
    return bool(_pairs(files))


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    pairs = _pairs(files)
    if not pairs:
        dats = [name for name in files if name.lower().endswith(_DATA_SUFFIX)]
        if dats:
            first = dats[0]
            raise RecordingProblem(
                f"{first} has no {Path(first).stem}{_PARAMETERS_SUFFIX} next to it. A NeuroScope .dat holds bare "
                "samples; its .xml parameter file (same name, same folder) gives the channel count, sampling rate "
                "and gain. Upload the .xml together with the .dat."
            )
        raise RecordingProblem(
            "The upload has no .dat file with its .xml parameter file (e.g. session1.dat + session1.xml), "
            "which a NeuroScope recording consists of."
        )
    if len(pairs) > 1:
        raise RecordingProblem(
            f"The upload holds several NeuroScope recordings ({', '.join(dat for dat, _ in pairs)}). "
            "Upload one recording (one .dat with its .xml) at a time."
        )
    ((dat, xml),) = pairs
    session = _read_session(root, dat, xml)
    channel_count = _confirm_with_reader(root, session)
    stream = Stream(
        id=session.stem,
        label=_label(session, channel_count),
        channel_count=channel_count,
        sampling_rate_hz=session.sampling_rate_hz,
        duration_s=session.dat_bytes // (session.channel_count * _SAMPLE_BYTES) / session.sampling_rate_hz,
        size_bytes=session.dat_bytes + session.xml_bytes,
        files=(session.dat, session.xml),
        kind="neural",
    )
    return Detection(
        format=_KEY,
        format_label=_LABEL,
        streams=(stream,),
        default_streams=(stream.id,),
        file_metadata={
            "session_start_time": session.start_time.isoformat() if session.start_time else None,
            "device": "not named in NeuroScope files",
            "probe": "",
            "channel_count": channel_count,
            "sampling_rate_hz": stream.sampling_rate_hz,
            "duration_s": stream.duration_s,
            "size_bytes": stream.size_bytes,
            "uv_per_bit": session.uv_per_bit,
        },
        notes=tuple(_notes(session, channel_count, files)),
    )


def _read_session(root: Path, dat: str, xml: str) -> _Session:
    """Check the pair (parameters complete, data a whole number of samples); headers and sizes only."""
    xml_path = root / xml
    xml_bytes = xml_path.stat().st_size
    parameters = _parse_xml(xml_path)
    acquisition = parameters.find("acquisitionSystem") if parameters is not None else None
    if parameters is None or parameters.tag != "parameters" or acquisition is None:
        raise RecordingProblem(
            f"{xml} is not a NeuroScope parameter file (it has no <acquisitionSystem> settings). Upload the .xml "
            "that NeuroScope or NDManager saved with the recording."
        )
    values = {name: (acquisition.findtext(name) or "").strip() for name in _ACQUISITION_FIELDS}
    missing = [name for name, value in values.items() if not value]
    if missing:
        raise RecordingProblem(
            f"{xml} lacks settings the reader needs ({', '.join(missing)} under <acquisitionSystem>). It may have "
            "been edited or cut short; upload the original parameter file."
        )
    try:
        bits = int(values["nBits"])
        channel_count = int(values["nChannels"])
        rate = float(values["samplingRate"])
        voltage_range = float(values["voltageRange"])
        amplification = float(values["amplification"])
    except ValueError as error:
        raise RecordingProblem(
            f"{xml} has a setting that is not a number under <acquisitionSystem> ({short_reason(error)}). "
            "Correct it in NDManager or upload the original parameter file.",
            detail=repr(values),
        ) from error
    if bits != 16:
        raise RecordingProblem(
            f"{xml} says the samples have {bits} bits; only 16-bit NeuroScope recordings can be converted."
        )
    if channel_count <= 0 or rate <= 0 or voltage_range <= 0 or amplification <= 0:
        raise RecordingProblem(
            f"{xml} gives an impossible value under <acquisitionSystem> (channels {channel_count}, sampling rate "
            f"{rate:g} Hz, voltage range {voltage_range:g}, amplification {amplification:g}): each must be above zero."
        )
    groups = _anatomical_groups(parameters, xml, channel_count)
    dat_bytes = (root / dat).stat().st_size
    frame_bytes = channel_count * _SAMPLE_BYTES
    if dat_bytes == 0:
        raise RecordingProblem(f"{dat} is empty (0 bytes). The upload may have failed; upload it again.")
    if dat_bytes % frame_bytes:
        raise RecordingProblem(
            f"{dat} is {dat_bytes:,} bytes, which is not a whole number of samples for the {channel_count} channels "
            f"{Path(xml).name} gives ({frame_bytes} bytes each): the file is incomplete (a cut-off upload or copy), "
            f"or {Path(xml).name} states the wrong channel count. Upload the complete .dat, or the .xml that "
            "belongs to it."
        )
    date_text = (parameters.findtext("generalInfo/date") or "").strip()
    return _Session(
        dat=dat,
        xml=xml,
        channel_count=channel_count,
        sampling_rate_hz=rate,
        uv_per_bit=voltage_range / 2**bits / amplification * 1e6,
        groups=groups,
        start_time=_start_time(date_text),
        date_text=date_text,
        dat_bytes=dat_bytes,
        xml_bytes=xml_bytes,
    )


def _parse_xml(path: Path) -> ElementTree.Element | None:
    if path.stat().st_size > _MAX_XML_BYTES:
        return None
    raw = path.read_bytes()
    # Parameter files never declare a document type; refusing one keeps entity tricks away from the parsers.
    if b"<!DOCTYPE" in raw or b"<!ENTITY" in raw:
        return None
    try:
        return ElementTree.fromstring(raw)
    except ElementTree.ParseError:
        return None


def _anatomical_groups(parameters: ElementTree.Element, xml: str, channel_count: int) -> tuple[tuple[int, ...], ...]:
    """The channels of each anatomical group; the converter names electrode groups after them."""
    group_elements = parameters.findall("anatomicalDescription/channelGroups/group")
    if not group_elements:
        raise RecordingProblem(
            f"{xml} has no anatomical groups (<anatomicalDescription><channelGroups>), which say which channels "
            "belong to which shank or electrode; the conversion needs them. Define the groups in NDManager and "
            "upload the .xml again."
        )
    try:
        groups = tuple(
            tuple(int((channel.text or "").strip()) for channel in group.findall("channel")) for group in group_elements
        )
    except ValueError as error:
        raise RecordingProblem(
            f"{xml} lists a channel in its anatomical groups that is not a channel number. Correct it in NDManager "
            "or upload the original parameter file.",
            detail=repr(error),
        ) from error
    grouped = [channel for group in groups for channel in group]
    outside = sorted({channel for channel in grouped if not 0 <= channel < channel_count})
    if outside:
        raise RecordingProblem(
            f"{xml} puts channels {', '.join(map(str, outside))} in its anatomical groups, but gives only "
            f"{channel_count} channels (numbered 0 to {channel_count - 1}). Correct the groups or the channel count "
            "in NDManager and upload the .xml again."
        )
    ungrouped = sorted(set(range(channel_count)) - set(grouped))
    if ungrouped:
        shown = ", ".join(map(str, ungrouped[:10])) + (
            f" and {len(ungrouped) - 10} more" if len(ungrouped) > 10 else ""
        )
        raise RecordingProblem(
            f"{xml} places channel{'s' if len(ungrouped) > 1 else ''} {shown} in no anatomical group, and the "
            "conversion needs a group for every channel of the .dat (auxiliary inputs included). Add them to a group "
            "in NDManager (for example a group of auxiliary channels) and upload the .xml again."
        )
    return groups


def _start_time(text: str) -> datetime | None:
    """NDManager's date (usually "2024-03-15"), parsed as neuroconv parses it; None when unreadable."""
    if not text:
        return None
    from dateutil import parser

    try:
        moment: datetime = parser.parse(text)
    except (ValueError, OverflowError):
        return None
    return moment.replace(tzinfo=None)


def _confirm_with_reader(root: Path, session: _Session) -> int:
    """Open neuroconv's interface (header only: the .dat is memory-mapped, not read); its channel count.

    The interface keeps only the channels of spike-detection groups when the .xml has them (the others
    are taken for auxiliary inputs), so its count may be below the .xml's.
    """
    # Imported here: neuroconv costs ~1 s to import, and only detection and conversion need it.
    from neuroconv.datainterfaces import NeuroScopeRecordingInterface

    with _view(root, session) as view:
        try:
            interface = NeuroScopeRecordingInterface(
                file_path=view / f"{session.stem}{_DATA_SUFFIX}",
                xml_file_path=view / f"{session.stem}{_PARAMETERS_SUFFIX}",
            )
            recording = interface.recording_extractor
            channel_count = int(recording.get_num_channels())
        except Exception as error:  # any reader failure is a property of the user's files
            raise RecordingProblem(
                f"{session.dat} (with {Path(session.xml).name}) could not be read as a NeuroScope recording "
                f"({short_reason(error)}). Check that both files are complete and belong together, then upload again.",
                detail=traceback.format_exc(),
            ) from error
    return channel_count


def _label(session: _Session, channel_count: int) -> str:
    groups = len(session.groups)
    return f"wide-band signals of {Path(session.dat).name} ({channel_count} channels" + (
        f" in {groups} anatomical groups)" if groups > 1 else ")"
    )


def _notes(session: _Session, channel_count: int, files: Sequence[str]) -> list[str]:
    gain = f"{session.uv_per_bit:.4g} µV per bit"
    if abs(session.uv_per_bit - _NDMANAGER_UV_PER_BIT) < 1e-6:
        notes = [
            f"Amplitudes are scaled with the gain in {Path(session.xml).name}, {gain}: NDManager's default (voltage "
            "range 20 V, amplification 1000), which is often left unchanged whatever amplifier recorded the data (an "
            f"Intan amplifier records {_INTAN_UV_PER_BIT} µV per bit). If it is wrong, correct voltageRange or "
            "amplification in the .xml and upload it again."
        ]
    else:
        notes = [f"Amplitudes are scaled with the gain in {Path(session.xml).name}, {gain}."]
    if channel_count < session.channel_count:
        notes.append(
            f"Only the {channel_count} channels of the spike-detection groups in {Path(session.xml).name} are "
            f"converted; the other {session.channel_count - channel_count} of the .dat's {session.channel_count} are "
            "taken for auxiliary inputs."
        )
    if session.date_text and session.start_time is None:
        notes.append(
            f"{Path(session.xml).name} gives a date that cannot be read ({session.date_text!r}); you will be "
            "asked for the start time."
        )
    elif session.start_time is None:
        notes.append(f"{Path(session.xml).name} does not say when the recording started; you will be asked for it.")
    elif session.start_time.time() == datetime.min.time():
        notes.append(
            f"{Path(session.xml).name} gives the date of the recording ({session.start_time.date().isoformat()}) "
            "but not the time, so the start time is that day at midnight; give the exact time if you know it."
        )
    base = session.dat[: -len(_DATA_SUFFIX)]
    lfp = [name for name in files if name in {base + suffix for suffix in _LFP_SUFFIXES}]
    if lfp:
        notes.append(
            f"{some_names(lfp)} (downsampled from the .dat) {'is' if len(lfp) == 1 else 'are'} not converted: the "
            "NWB file holds the full-band signals."
        )
    others = [name for name in files if name not in {session.dat, session.xml, *lfp}]
    if others:
        notes.append(f"These files are not part of the recording and were left out: {some_names(others)}.")
    return notes


# --- reading and converting ----------------------------------------------------------------------


@contextmanager
def _view(root: Path, session: _Session) -> Iterator[Path]:
    """The pair under the session's name, alone in its folder.

    neuroconv reads the start time from the .xml's date with no fallback, so a date it cannot read
    is left out of the view's copy: the start time is then asked for rather than the conversion failing.
    """
    xml_name = f"{session.stem}{_PARAMETERS_SUFFIX}"
    names = {f"{session.stem}{_DATA_SUFFIX}": session.dat, xml_name: session.xml}
    contents: dict[str, bytes] = {}
    if session.start_time is None:  # no date, an empty one, or one that cannot be read
        contents[xml_name] = _DATE_ELEMENT.sub(b"", (root / session.xml).read_bytes())
    with reader_view(root, names, contents=contents) as view:
        yield view


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    (stream,) = (detection.stream(stream_id) for stream_id in stream_ids)
    dat, xml = stream.files
    # Read again from the files detection checked (the conversion re-checks their sizes first).
    return _view(root, _read_session(root, dat, xml))


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    """One NeuroScope interface, keyed by the stream id; the gain comes from the .xml (see the module notes)."""
    from neuroconv import ConverterPipe
    from neuroconv.datainterfaces import NeuroScopeRecordingInterface

    (stream_id,) = stream_ids
    interface = NeuroScopeRecordingInterface(
        file_path=folder / f"{stream_id}{_DATA_SUFFIX}", xml_file_path=folder / f"{stream_id}{_PARAMETERS_SUFFIX}"
    )
    device = {
        "name": "NeuroScope",
        "description": "Recorded to NeuroScope's .dat format; the files do not name the amplifier or the electrodes.",
    }

    class NeuroScopeRecording(ConverterPipe):  # type: ignore[misc]  # neuroconv ships without type hints
        def get_metadata(self) -> Any:
            metadata = super().get_metadata()
            metadata["Ecephys"]["ElectricalSeries"][interface.metadata_key].setdefault(
                "description", f"Wide-band signals of {stream_id}.dat (NeuroScope)."
            )
            metadata.setdefault("Devices", {})["neuroscope"] = device
            for name, group in metadata["Ecephys"].get("ElectrodeGroups", {}).items():
                group.setdefault(
                    "description", f"Channels of anatomical group {name.removeprefix('Group')} in the .xml."
                )
                group.setdefault("device_metadata_key", "neuroscope")
            return metadata

    converter: NWBConverter = NeuroScopeRecording(data_interfaces={stream_id: interface})
    return converter


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=(
        "a NeuroScope recording: the .dat file with its .xml parameter file of the same name "
        "(session1.dat + session1.xml)"
    ),
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
)

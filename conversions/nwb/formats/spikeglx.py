"""SpikeGLX (Neuropixels): `.bin` data files, each with the `.meta` file that describes it.

One upload is one recording (run, gate and trigger); each probe's AP and LF bands are streams,
converted together by default, and any of them may be chosen alone (an LF stream reads its probe's
layout from the AP .meta, which every reader view holds). NI-DAQ and OneBox streams are recognised
but not converted yet, so they are not streams one can choose.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

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

_SPIKEGLX_KEY = "spikeglx"
_SPIKEGLX_LABEL = "SpikeGLX"
# Data files SpikeGLX names itself: probe streams (imec), NI-DAQ (nidq), OneBox (obx).
_SPIKEGLX_BIN = re.compile(r"\.(imec\d*\.(ap|lf)|nidq|obx\d+\.obx)\.bin$")
# A .meta is tiny (tens of kB); anything much larger is not one, so never read it whole.
_MAX_META_BYTES = 1 << 20
# Keys each reader in the chain needs: neo (rates, gains, channel map), probeinterface
# (imroTbl, snsSaveChanSubset), neuroconv (fileCreateTime).
_IMEC_REQUIRED = (
    "fileName",
    "nSavedChans",
    "imSampRate",
    "imAiRangeMax",
    "imroTbl",
    "snsChanMap",
    "snsSaveChanSubset",
    "fileCreateTime",
)
_NIDQ_REQUIRED = (
    "fileName",
    "nSavedChans",
    "niSampRate",
    "niAiRangeMax",
    "niMNGain",
    "niMAGain",
    "snsMnMaXaDw",
    "snsChanMap",
    "fileCreateTime",
)
# SpikeGLX writes this when the user anonymises a recording; neuroconv then has no start time.
_REMOVED_START_TIME = "0000-00-00"
_BAND_NAMES = {"ap": "action potential band (AP)", "lf": "local field potential band (LF)"}


@dataclass(frozen=True)
class _MetaPair:
    """A .meta/.bin pair as read from disk, before the reader confirms it."""

    meta: str
    bin: str
    values: dict[str, str]
    stem: str  # the name SpikeGLX gave the files, e.g. "run_g0_t0.imec0.ap"
    stream_id: str
    segment: str  # run, gate and trigger as in the file name, e.g. "run_g0_t0"
    is_probe: bool  # imec streams are converted; NI-DAQ and OneBox streams are not (yet)
    bin_bytes: int
    meta_bytes: int


def _spikeglx_claims(files: Sequence[str]) -> bool:
    return any(name.endswith(".meta") or _SPIKEGLX_BIN.search(name) for name in files)


def _inspect_spikeglx(root: Path, files: Sequence[str]) -> Detection:
    pairs, problems, ignored = _pair_spikeglx_files(root, files)
    if problems:
        raise RecordingProblem(problems_message(problems), detail="\n".join(problems))
    segments = sorted({pair.segment for pair in pairs})
    if len(segments) > 1:
        raise RecordingProblem(
            f"The upload holds several SpikeGLX recordings ({', '.join(segments)}). "
            "Upload one recording (one run, gate and trigger) at a time."
        )
    _refuse_duplicate_streams(pairs)
    probe_pairs = [pair for pair in pairs if pair.is_probe]
    if not probe_pairs:
        names = ", ".join(pair.bin for pair in pairs)
        raise RecordingProblem(
            f"The upload has SpikeGLX files ({names}) but no Neuropixels probe stream "
            "(files ending in .imec0.ap.bin or .imec0.lf.bin). Only probe streams can be converted "
            "for now: upload the probe's .bin and .meta files."
        )
    _refuse_lf_without_ap(probe_pairs)

    streams, devices, probes = _confirm_with_reader(root, probe_pairs)
    notes = _spikeglx_notes(pairs, ignored)
    start_time = _start_time(probe_pairs[0])
    if start_time is None:
        notes.append(
            f"{probe_pairs[0].meta} does not say when the recording started (the start time was "
            "removed); you will be asked for it."
        )
    file_metadata: dict[str, Any] = {
        "session_start_time": start_time.isoformat() if start_time else None,
        "device": "; ".join(dict.fromkeys(devices.values())),
        "probe": "; ".join(dict.fromkeys(probes.values())),
        "channel_count": _electrode_count(streams),
        "sampling_rate_hz": max(stream.sampling_rate_hz for stream in streams),
        "duration_s": max(stream.duration_s for stream in streams),
        "size_bytes": sum(stream.size_bytes for stream in streams),
        # Each probe's own, for a choice of some probes' streams (`stream_facts`).
        "stream_devices": devices,
        "stream_probes": probes,
    }
    return Detection(
        format=_SPIKEGLX_KEY,
        format_label=_SPIKEGLX_LABEL,
        streams=streams,
        default_streams=tuple(stream.id for stream in streams),
        file_metadata=file_metadata,
        notes=tuple(notes),
    )


def _facts(detection: Detection, stream_ids: Sequence[str]) -> dict[str, Any]:
    facts = stream_facts(detection, stream_ids)
    facts["channel_count"] = _electrode_count([detection.stream(stream_id) for stream_id in stream_ids])
    return facts


def _electrode_count(streams: Sequence[Stream]) -> int:
    """Channels recorded, counted once per probe: AP and LF of one probe read the same electrodes."""
    per_probe: dict[str, int] = {}
    for stream in streams:
        probe = stream.id.split(".")[0]
        per_probe[probe] = max(per_probe.get(probe, 0), stream.channel_count)
    return sum(per_probe.values())


def _pair_spikeglx_files(root: Path, files: Sequence[str]) -> tuple[list[_MetaPair], list[str], list[str]]:
    """Match each .meta with its .bin and check both; returns (pairs, problems, ignored files)."""
    present = set(files)
    pairs: list[_MetaPair] = []
    problems: list[str] = []
    paired: set[str] = set()
    for meta in (name for name in files if name.endswith(".meta")):
        bin_name = meta[: -len(".meta")] + ".bin"
        if bin_name not in present:
            problems.append(
                f"{meta} has no matching data file {Path(bin_name).name}. Upload the .bin file together with its .meta."
            )
            continue
        paired.update((meta, bin_name))
        pair = _read_pair(root, meta, bin_name, problems)
        if pair is not None:
            pairs.append(pair)
    for name in files:
        if _SPIKEGLX_BIN.search(name) and name not in paired:
            problems.append(
                f"{name} has no matching {Path(name).stem}.meta file, which holds the recording's "
                "settings (channels, sampling rate, gains). Upload the .meta file SpikeGLX saved next to it."
            )
    ignored = [name for name in files if name not in paired and not _SPIKEGLX_BIN.search(name)]
    return pairs, problems, ignored


def _read_pair(root: Path, meta: str, bin_name: str, problems: list[str]) -> _MetaPair | None:
    """Read and check one pair; appends to `problems` and returns None when it is unusable."""
    meta_path, bin_path = root / meta, root / bin_name
    values = _parse_meta(meta_path)
    if values is None or not {"nSavedChans", "fileName"} <= values.keys():
        problems.append(
            f"{meta} is not a SpikeGLX .meta file (it does not hold the settings SpikeGLX writes). "
            "Upload the .meta file SpikeGLX saved next to the .bin."
        )
        return None
    stem = _original_stem(values["fileName"])
    is_nidq = values.get("typeThis") == "nidq" or stem.endswith(".nidq")
    is_obx = values.get("typeThis") == "obx" or stem.endswith(".obx")
    required = _NIDQ_REQUIRED if is_nidq else () if is_obx else _IMEC_REQUIRED
    missing = [key for key in required if key not in values]
    if "fileCreateTime" in missing:
        problems.append(
            f"{meta} lacks the recording start time (its fileCreateTime line), which the conversion "
            "needs. Upload the original .meta SpikeGLX wrote, or add a line such as "
            "fileCreateTime=2024-03-15T14:30:00 with the start time."
        )
        return None
    if not is_nidq and not is_obx and "imDatPrb_pn" not in values and "imProbeOpt" not in values:
        missing.append("imDatPrb_pn")
    if missing:
        problems.append(
            f"{meta} is missing settings the reader needs ({', '.join(missing)}). It may have been "
            "edited or cut short; upload the original .meta file SpikeGLX wrote."
        )
        return None
    try:
        saved_channels = int(values["nSavedChans"])
    except ValueError:
        saved_channels = 0
    if saved_channels <= 0:
        problems.append(f"{meta} gives an invalid channel count (nSavedChans={values['nSavedChans']}).")
        return None
    if not _has_valid_start_time(values["fileCreateTime"]):
        problems.append(
            f"{meta} has a recording start time that cannot be read "
            f"(fileCreateTime={values['fileCreateTime']}). Upload the original .meta SpikeGLX wrote."
        )
        return None
    stream_id = _stream_id(stem)
    if re.search(r"\s", stem) or stream_id is None:
        problems.append(
            f"{meta} names its data file {stem}.bin, which does not follow SpikeGLX's naming "
            "(<run>_g0_t0.imec0.ap.bin, no spaces), and the reader relies on that name. "
            "Upload the .meta exactly as SpikeGLX wrote it."
        )
        return None
    bin_bytes = bin_path.stat().st_size
    frame_bytes = saved_channels * 2  # int16 samples, all saved channels interleaved
    if bin_bytes == 0:
        problems.append(f"{bin_name} is empty (0 bytes). The upload may have failed; upload it again.")
        return None
    if bin_bytes % frame_bytes:
        problems.append(
            f"{bin_name} is {bin_bytes:,} bytes, which is not a whole number of samples for its "
            f"{saved_channels} channels ({frame_bytes} bytes each): the file is incomplete, probably "
            "a cut-off upload or copy. Upload it again."
        )
        return None
    return _MetaPair(
        meta=meta,
        bin=bin_name,
        values=values,
        stem=stem,
        stream_id=stream_id,
        segment=stem.split(".")[0],
        is_probe=not is_nidq and not is_obx,
        bin_bytes=bin_bytes,
        meta_bytes=meta_path.stat().st_size,
    )


def _parse_meta(path: Path) -> dict[str, str] | None:
    """SpikeGLX's `key=value` lines (`~` marks table values); None if the file is not text."""
    if path.stat().st_size > _MAX_META_BYTES:
        return None
    raw = path.read_bytes()
    if b"\x00" in raw:
        return None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("cp1252", errors="replace")  # notes typed on Windows; keys are ASCII
    values: dict[str, str] = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip().removeprefix("~")] = value.strip()
    return values or None


def _original_stem(file_name: str) -> str:
    """The recording's own name: the stream comes from `fileName` in the .meta, not the name on disk."""
    name = re.split(r"[\\/]", file_name)[-1]
    return name[: -len(".bin")] if name.endswith(".bin") else name


def _stream_id(stem: str) -> str | None:
    """The stream as neo names it, from the recording's own file name (e.g. "imec0.ap")."""
    parts = stem.split(".")
    # Early single-probe SpikeGLX wrote ".imec.ap" without a probe number.
    if len(parts) >= 3 and re.fullmatch(r"imec\d*", parts[-2]) and parts[-1] in ("ap", "lf"):
        return f"{parts[-2]}.{parts[-1]}"
    if parts[-1] == "nidq":
        return "nidq"
    if len(parts) >= 3 and parts[-1] == "obx":
        return parts[-2]
    return None


def _has_valid_start_time(text: str) -> bool:
    if text.startswith(_REMOVED_START_TIME):
        return True
    try:
        datetime.fromisoformat(text)
    except ValueError:
        return False
    return True


def _start_time(pair: _MetaPair) -> datetime | None:
    text = pair.values["fileCreateTime"]
    if text.startswith(_REMOVED_START_TIME):
        return None
    return datetime.fromisoformat(text).replace(tzinfo=None)


def _refuse_duplicate_streams(pairs: Sequence[_MetaPair]) -> None:
    seen: dict[str, str] = {}
    for pair in pairs:
        if pair.stream_id in seen:
            raise RecordingProblem(
                f"{seen[pair.stream_id]} and {pair.meta} describe the same stream ({pair.stream_id}): "
                "the upload holds two copies of it, or a renamed file. Remove one and upload again."
            )
        seen[pair.stream_id] = pair.meta


def _refuse_lf_without_ap(pairs: Sequence[_MetaPair]) -> None:
    """neuroconv reads a probe's layout from its AP .meta only; an LF stream alone cannot be opened."""
    ap_probes = {pair.stream_id.split(".")[0] for pair in pairs if pair.stream_id.endswith(".ap")}
    for pair in pairs:
        probe = pair.stream_id.split(".")[0]
        if pair.stream_id.endswith(".lf") and probe not in ap_probes:
            ap_name = pair.stem.removesuffix(".lf") + ".ap"
            raise RecordingProblem(
                f"{pair.bin} cannot be converted without the probe's AP files ({ap_name}.bin and "
                f"{ap_name}.meta): the AP .meta describes the probe's layout, which the LF stream "
                "needs. Upload them too."
            )


def _confirm_with_reader(
    root: Path, pairs: Sequence[_MetaPair]
) -> tuple[tuple[Stream, ...], dict[str, str], dict[str, str]]:
    """Open each probe stream with neuroconv's interface (headers only) and describe it.

    Returns the streams, and by stream id the probe's description and its part and serial numbers.
    """
    # Imported here: neuroconv costs ~1 s to import, and only detection and conversion need it.
    from neuroconv.datainterfaces import SpikeGLXRecordingInterface

    streams: list[Stream] = []
    devices: dict[str, str] = {}
    probes: dict[str, str] = {}
    names = {
        f"{pair.stem}{suffix}": name for pair in pairs for suffix, name in ((".bin", pair.bin), (".meta", pair.meta))
    }
    with _spikeglx_view(root, names) as view:
        for pair in sorted(pairs, key=lambda pair: pair.stream_id):
            try:
                interface = SpikeGLXRecordingInterface(folder_path=view, stream_id=pair.stream_id)
                recording = interface.recording_extractor
                channel_count = int(recording.get_num_channels())
                rate = float(recording.get_sampling_frequency())
                samples = int(recording.get_num_samples())
                probe = recording.get_probe().annotations
            except Exception as error:  # any reader failure is a property of the user's file
                raise RecordingProblem(
                    f"{pair.bin} (with {Path(pair.meta).name}) could not be read as a SpikeGLX recording "
                    f"({short_reason(error)}). Check that both files are complete and exactly as "
                    "SpikeGLX saved them, then upload again.",
                    detail=traceback.format_exc(),
                ) from error
            device = pair.stream_id.split(".")[0]
            band = pair.stream_id.split(".")[1]
            streams.append(
                Stream(
                    id=pair.stream_id,
                    label=f"Neuropixels probe {device}, {_BAND_NAMES[band]}",
                    channel_count=channel_count,
                    sampling_rate_hz=rate,
                    duration_s=samples / rate,
                    size_bytes=pair.bin_bytes + pair.meta_bytes,
                    files=(pair.bin, pair.meta),
                    kind="neural",
                )
            )
            devices[pair.stream_id] = str(probe.get("description") or "Neuropixels probe")
            part_number = str(probe.get("part_number") or pair.values.get("imDatPrb_pn", "unknown"))
            serial = probe.get("serial_number")
            probes[pair.stream_id] = f"{device}: {part_number}" + (f" (serial {serial})" if serial else "")
    return tuple(streams), devices, probes


def _spikeglx_notes(pairs: Sequence[_MetaPair], ignored: Sequence[str]) -> list[str]:
    notes: list[str] = []
    for pair in pairs:
        stated = pair.values.get("fileSizeBytes", "")
        if stated.isdigit() and int(stated) != pair.bin_bytes:
            notes.append(
                f"{Path(pair.meta).name} states a size of {int(stated):,} bytes, but {Path(pair.bin).name} "
                f"has {pair.bin_bytes:,} bytes; the real size was used. If the file was not cut on "
                "purpose, the upload may be incomplete: upload it again."
            )
        if not pair.is_probe:
            notes.append(
                f"{pair.bin} ({'NI-DAQ' if pair.stream_id == 'nidq' else 'OneBox'} inputs) is not "
                "converted: only the Neuropixels probe streams are, for now."
            )
    if any(pair.is_probe for pair in pairs):
        notes.append(
            "Each probe's SYNC channel is not converted: it carries SpikeGLX's synchronisation pulses, "
            "not brain signals."
        )
    if ignored:
        notes.append(f"These files are not part of the recording and were left out: {some_names(ignored)}.")
    return notes


def _spikeglx_open_for_reading(
    root: Path, detection: Detection, stream_ids: Sequence[str]
) -> AbstractContextManager[Path]:
    """The chosen streams' files under the names SpikeGLX gave them, plus every other .meta.

    SpikeGLX's names matter because spikeinterface finds the AP .meta (which holds the probe
    geometry an LF stream needs) by swapping ".lf" for ".ap" in the LF file's name; a .meta
    without its .bin is ignored by neo, so the other streams' .meta files give geometry without
    adding streams.
    """
    names: dict[str, str] = {}
    for stream in detection.streams:
        meta = next(name for name in stream.files if name.endswith(".meta"))
        values = _parse_meta(root / meta) or {}
        stem = _original_stem(values.get("fileName", "")) or Path(meta).stem
        names[f"{stem}.meta"] = meta
        if stream.id in stream_ids:
            names[f"{stem}.bin"] = next(name for name in stream.files if name.endswith(".bin"))
    return _spikeglx_view(root, names)


def _spikeglx_view(root: Path, names: Mapping[str, str]) -> AbstractContextManager[Path]:
    """A reader view where every .meta is UTF-8.

    SpikeGLX runs on Windows and saves the user's notes in the Windows code page; neo reads a
    .meta as UTF-8 and fails on an accented note, so such a .meta is shown re-encoded.
    """
    contents: dict[str, bytes] = {}
    for name, relative in names.items():
        if name.endswith(".meta"):
            raw = (root / relative).read_bytes()
            try:
                raw.decode("utf-8")
            except UnicodeDecodeError:
                contents[name] = raw.decode("cp1252", errors="replace").encode("utf-8")
    return reader_view(root, names, contents=contents)


def _spikeglx_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    from neuroconv.converters import SpikeGLXConverterPipe

    # Naming the streams leaves out the SYNC channels the pipe would otherwise add; AP and LF of
    # one probe then share its device and electrodes, each in its own ElectricalSeries.
    converter: NWBConverter = SpikeGLXConverterPipe(folder_path=folder, streams=list(stream_ids))
    return converter


FORMAT = SupportedFormat(
    key=_SPIKEGLX_KEY,
    label=_SPIKEGLX_LABEL,
    needs=(
        "a SpikeGLX recording: each .bin file together with its .meta file "
        "(e.g. run_g0_t0.imec0.ap.bin + run_g0_t0.imec0.ap.meta, and the .lf pair if recorded)"
    ),
    claims=_spikeglx_claims,
    inspect=_inspect_spikeglx,
    open_for_reading=_spikeglx_open_for_reading,
    build_converter=_spikeglx_converter,
    facts=_facts,
)

"""Valid SpikeGLX recordings made from noise, for tests and benchmarks.

The `.meta` follows a real Neuropixels 1.0 recording (SpikeGLX 2020+) closely enough that neo,
probeinterface and neuroconv read it like the real thing. Data is written in chunks, so multi-GB
benchmark files never sit in memory.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path

import numpy as np

# Neuropixels 1.0: 384 readout channels; the sync word is channel 768 (after 384 AP + 384 LF).
_READOUT_CHANNELS = 384
_SYNC_INDEX = 2 * _READOUT_CHANNELS
_LF_RATE_HZ = 2500.0
_AP_GAIN = 500
_LF_GAIN = 250
_PART_NUMBER = "NP1000"
# Samples per write: 16384 x 385 int16 is ~13 MB, so memory stays small whatever the duration.
_CHUNK_SAMPLES = 16384
# Noise spread in ADC counts (~35 µV at 2.34 µV/bit), roughly what a quiet NP1.0 channel shows.
_NOISE_COUNTS = 15.0
# SpikeGLX puts its 1 Hz sync square wave on bit 6 of the sync word.
_SYNC_HIGH = 1 << 6


def write_spikeglx(
    folder: Path,
    *,
    run: str = "synthetic",
    duration_s: float = 1.0,
    n_channels: int = 384,
    sampling_rate_hz: float = 30000.0,
    with_lf: bool = False,
    seed: int = 0,
    start_time: datetime | None = None,
    omit_meta_keys: Sequence[str] = (),
) -> dict[str, Path]:
    """Write `<folder>/<run>_g0/<run>_g0_t0.imec0.ap.bin/.meta` (and `.lf.*` when asked).

    `n_channels` neural channels are saved (a subset of the probe's 384, as SpikeGLX does when
    the user saves fewer), plus the SYNC channel. `omit_meta_keys` leaves keys out of every
    `.meta` (without the `~` prefix, e.g. "fileCreateTime" or "imroTbl") to build broken inputs.
    Returns the paths under the keys "ap_bin", "ap_meta" and, with LF, "lf_bin", "lf_meta".
    """
    if not 1 <= n_channels <= _READOUT_CHANNELS:
        raise ValueError(f"n_channels must be between 1 and {_READOUT_CHANNELS}, not {n_channels}")
    if " " in run:
        raise ValueError("SpikeGLX run names cannot contain spaces (readers fail to parse them)")
    start_time = start_time or datetime(2024, 3, 15, 14, 30, 0)
    run_folder = Path(folder) / f"{run}_g0"
    run_folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)

    paths: dict[str, Path] = {}
    bands = [("ap", sampling_rate_hz)] + ([("lf", _LF_RATE_HZ)] if with_lf else [])
    for band, rate in bands:
        stem = f"{run}_g0_t0.imec0.{band}"
        bin_path = run_folder / f"{stem}.bin"
        meta_path = run_folder / f"{stem}.meta"
        n_samples = max(1, round(duration_s * rate))
        size_bytes, sha1 = _write_bin(bin_path, n_samples, n_channels, rate, rng)
        meta = _meta(
            band=band,
            file_name=f"{stem}.bin",
            n_channels=n_channels,
            rate=rate,
            n_samples=n_samples,
            size_bytes=size_bytes,
            sha1=sha1,
            start_time=start_time,
        )
        for key in omit_meta_keys:
            meta.pop(key, None)
        _write_meta(meta_path, meta)
        paths[f"{band}_bin"] = bin_path
        paths[f"{band}_meta"] = meta_path
    return paths


def _write_bin(path: Path, n_samples: int, n_channels: int, rate: float, rng: np.random.Generator) -> tuple[int, str]:
    sha1 = hashlib.sha1()
    half_period = max(1, round(rate / 2))
    with path.open("wb") as handle:
        for start in range(0, n_samples, _CHUNK_SAMPLES):
            stop = min(start + _CHUNK_SAMPLES, n_samples)
            block = np.empty((stop - start, n_channels + 1), dtype="<i2")
            noise = rng.standard_normal((stop - start, n_channels), dtype=np.float32) * _NOISE_COUNTS
            block[:, :n_channels] = np.clip(np.rint(noise), -512, 511)
            block[:, n_channels] = np.where((np.arange(start, stop) // half_period) % 2 == 0, 0, _SYNC_HIGH)
            data = block.tobytes()
            sha1.update(data)
            handle.write(data)
    return n_samples * (n_channels + 1) * 2, sha1.hexdigest().upper()


def _meta(
    *,
    band: str,
    file_name: str,
    n_channels: int,
    rate: float,
    n_samples: int,
    size_bytes: int,
    sha1: str,
    start_time: datetime,
) -> dict[str, str]:
    first = 0 if band == "ap" else _READOUT_CHANNELS  # LF channels are numbered after the 384 AP ones
    label = band.upper()
    saved = f"{first}:{first + n_channels - 1},{_SYNC_INDEX}"
    imro = "(0,384)" + "".join(f"({c} 0 0 {_AP_GAIN} {_LF_GAIN} 1)" for c in range(_READOUT_CHANNELS))
    chan_map = f"({_READOUT_CHANNELS},{_READOUT_CHANNELS},1)" + "".join(
        f"({label}{c};{first + c}:{first + c})" for c in range(n_channels)
    )
    chan_map += f"(SY0;{_SYNC_INDEX}:{_SYNC_INDEX})"
    shank_map = "(1,2,480)" + "".join(f"(0:{c % 2}:{c // 2}:1)" for c in range(n_channels))
    return {
        "acqApLfSy": f"{_READOUT_CHANNELS},{_READOUT_CHANNELS},1",
        "appVersion": "20230411",
        "fileCreateTime": start_time.replace(tzinfo=None, microsecond=0).isoformat(),
        "fileName": f"D:/SpikeGLX/DATA/{file_name}",
        "fileSHA1": sha1,
        "fileSizeBytes": str(size_bytes),
        "fileTimeSecs": repr(n_samples / rate),
        "firstSample": "0",
        "gateMode": "Immediate",
        "imAiRangeMax": "0.6",
        "imAiRangeMin": "-0.6",
        "imCalibrated": "true",
        "imDatPrb_pn": _PART_NUMBER,
        "imDatPrb_port": "1",
        "imDatPrb_slot": "2",
        "imDatPrb_sn": "18005102171",
        "imDatPrb_type": "0",
        "imMaxInt": "512",
        "imSampRate": f"{rate:g}",
        "nSavedChans": str(n_channels + 1),
        "snsApLfSy": f"{n_channels},0,1" if band == "ap" else f"0,{n_channels},1",
        "snsSaveChanSubset": saved,
        "syncSourceIdx": "0",
        "syncSourcePeriod": "1",
        "trigMode": "Immediate",
        "typeImEnabled": "1",
        "typeNiEnabled": "0",
        "typeThis": "imec",
        "userNotes": "",
        "imroTbl": imro,
        "snsChanMap": chan_map,
        "snsShankMap": shank_map,
    }


# The table-valued keys are written with SpikeGLX's "~" prefix.
_TABLE_KEYS = frozenset({"imroTbl", "snsChanMap", "snsShankMap"})


def _write_meta(path: Path, meta: dict[str, str]) -> None:
    lines = [f"~{key}={value}" if key in _TABLE_KEYS else f"{key}={value}" for key, value in meta.items()]
    # SpikeGLX is a Windows program: its .meta files use CRLF line ends.
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode("ascii"))


# NeuroScope: NDManager's defaults for a new parameter file (20 V range, x1000, no offset).
_NEUROSCOPE_VOLTAGE_RANGE_V = 20
_NEUROSCOPE_AMPLIFICATION = 1000


def write_neuroscope(
    folder: Path,
    *,
    name: str = "synthetic",
    n_channels: int = 8,
    sampling_rate_hz: float = 20000.0,
    duration_s: float = 1.0,
    seed: int = 0,
    channels_per_group: int = 8,
    date: str | None = "2024-03-15",
) -> dict[str, Path]:
    """Write a NeuroScope session `<folder>/<name>/<name>.dat` + `<name>.xml`, as NDManager lays it out.

    The `.dat` holds int16 samples, channels interleaved; the `.xml` is a minimal parameter file
    (acquisition system, anatomical groups of `channels_per_group` channels, `generalInfo/date`
    unless `date` is None). Returns the paths under the keys "dat" and "xml".
    """
    if n_channels < 1 or channels_per_group < 1:
        raise ValueError("n_channels and channels_per_group must be at least 1")
    session = Path(folder) / name
    session.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_samples = max(1, round(duration_s * sampling_rate_hz))
    dat_path = session / f"{name}.dat"
    with dat_path.open("wb") as handle:
        for start in range(0, n_samples, _CHUNK_SAMPLES):
            stop = min(start + _CHUNK_SAMPLES, n_samples)
            noise = rng.standard_normal((stop - start, n_channels), dtype=np.float32) * _NOISE_COUNTS
            handle.write(np.clip(np.rint(noise), -32768, 32767).astype("<i2").tobytes())
    groups = "".join(
        "<group>"
        + "".join(
            f'<channel skip="0">{channel}</channel>'
            for channel in range(first, min(first + channels_per_group, n_channels))
        )
        + "</group>"
        for first in range(0, n_channels, channels_per_group)
    )
    general = f"<generalInfo><date>{date}</date></generalInfo>" if date is not None else ""
    xml_path = session / f"{name}.xml"
    xml_path.write_text(
        "<?xml version='1.0'?>\n"
        '<parameters version="1.0" creator="ndManager-1.2.1">'
        f"{general}"
        "<acquisitionSystem>"
        f"<nBits>16</nBits><nChannels>{n_channels}</nChannels><samplingRate>{sampling_rate_hz:g}</samplingRate>"
        f"<voltageRange>{_NEUROSCOPE_VOLTAGE_RANGE_V}</voltageRange>"
        f"<amplification>{_NEUROSCOPE_AMPLIFICATION}</amplification><offset>0</offset>"
        "</acquisitionSystem>"
        f"<anatomicalDescription><channelGroups>{groups}</channelGroups></anatomicalDescription>"
        "</parameters>\n",
        encoding="utf-8",
    )
    return {"dat": dat_path, "xml": xml_path}


# --- Neuralynx ------------------------------------------------------------------------------------

# Every Neuralynx file starts with a 16 kB text header (latin-1, NUL-padded), then fixed-size records.
_NLX_HEADER_BYTES = 16384
_NLX_RECORD_SAMPLES = 512
# An .ncs record: qwTimeStamp (µs), dwChannelNumber, dwSampleFreq, dwNumValidSamples, 512 samples.
_NLX_RECORD = np.dtype(
    [("timestamp", "<u8"), ("channel", "<u4"), ("rate", "<u4"), ("valid", "<u4"), ("samples", "<i2", (512,))]
)
# Noise spread in ADC counts: ~18 µV, what a quiet tetrode channel shows.
_NLX_NOISE_COUNTS = 600.0
# Records per write: 1,024 records of one channel is ~1 MB.
_NLX_CHUNK_RECORDS = 1024
# Cheetah's clock counts microseconds from when acquisition hardware started, not from zero.
_NLX_FIRST_TIMESTAMP_US = 3_528_496_125


def write_neuralynx(
    folder: Path,
    *,
    n_channels: int = 4,
    sampling_rate_hz: float = 32000.0,
    duration_s: float = 1.0,
    seed: int = 0,
    start_time: datetime | None = None,
    input_range_uv: int | Sequence[int] = 1000,
    pause_after_s: float | None = None,
    pause_s: float = 1.0,
) -> list[Path]:
    """Write `<folder>/CSC1.ncs` ... `CSC<n>.ncs`: one continuous (CSC) file per channel, as Cheetah 6.4 does.

    Each header states what neo and neuroconv read (sampling rate, gain, channel, input range, DSP
    filters, start time in -TimeCreated); records follow at the rate's exact timestamps, the last one
    partly filled when the duration is not a whole number of 512-sample records. Returns the paths.

    `input_range_uv` gives every channel's range, or one per channel: channels with different ranges
    are different streams to neo. `pause_after_s` makes recording pause for `pause_s` after that
    time (rounded to a record), as when the user stops and restarts recording in Cheetah, which
    keeps writing into the same files.
    """
    if n_channels < 1:
        raise ValueError(f"n_channels must be at least 1, not {n_channels}")
    start_time = (start_time or datetime(2024, 3, 15, 14, 30, 0)).replace(tzinfo=None, microsecond=0)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    n_samples = max(1, round(duration_s * sampling_rate_hz))
    n_records = -(-n_samples // _NLX_RECORD_SAMPLES)
    ranges = [input_range_uv] * n_channels if isinstance(input_range_uv, int) else list(input_range_uv)
    if len(ranges) != n_channels:
        raise ValueError(f"input_range_uv gives {len(ranges)} ranges for {n_channels} channels")
    pause_record = n_records if pause_after_s is None else round(pause_after_s * sampling_rate_hz / _NLX_RECORD_SAMPLES)
    paths: list[Path] = []
    for channel in range(n_channels):
        path = folder / f"CSC{channel + 1}.ncs"
        header = _ncs_header(path.name, channel, ranges[channel], sampling_rate_hz, start_time, duration_s)
        with path.open("wb") as handle:
            handle.write(header)
            for first in range(0, n_records, _NLX_CHUNK_RECORDS):
                records = np.zeros(min(_NLX_CHUNK_RECORDS, n_records - first), dtype=_NLX_RECORD)
                numbers = np.arange(first, first + len(records))
                records["timestamp"] = np.rint(
                    _NLX_FIRST_TIMESTAMP_US
                    + numbers * _NLX_RECORD_SAMPLES * 1e6 / sampling_rate_hz
                    + np.where(numbers >= pause_record, pause_s * 1e6, 0.0)
                )
                records["channel"] = channel
                records["rate"] = round(sampling_rate_hz)
                records["valid"] = np.minimum(_NLX_RECORD_SAMPLES, n_samples - numbers * _NLX_RECORD_SAMPLES)
                noise = rng.standard_normal((len(records), _NLX_RECORD_SAMPLES), dtype=np.float32) * _NLX_NOISE_COUNTS
                records["samples"] = np.clip(np.rint(noise), -32767, 32767)
                for row in np.flatnonzero(records["valid"] < _NLX_RECORD_SAMPLES):
                    records["samples"][row, records["valid"][row] :] = 0  # unused tail of the last record
                handle.write(records.tobytes())
        paths.append(path)
    return paths


def _ncs_header(name: str, channel: int, range_uv: int, rate: float, start_time: datetime, duration_s: float) -> bytes:
    from datetime import timedelta

    closed = start_time + timedelta(seconds=duration_s)
    session = f"{start_time:%Y-%m-%d_%H-%M-%S}"
    lines = [
        "######## Neuralynx Data File Header",
        "-FileType CSC",
        "-FileVersion 3.4",
        f"-FileUUID {channel + 1:08x}-5e55-4c00-8000-00000000cafe",
        "-SessionUUID 00005e55-5e55-4c00-8000-00000000cafe",
        "-ProbeName ",
        f'-OriginalFileName "C:\\CheetahData\\{session}\\{name}"',
        f"-TimeCreated {start_time:%Y/%m/%d %H:%M:%S}",
        f"-TimeClosed {closed:%Y/%m/%d %H:%M:%S}",
        "-RecordSize 1044",
        '-ApplicationName Cheetah "6.4.1"',
        "-AcquisitionSystem AcqSystem1 DigitalLynxSX",
        '-ReferenceChannel "Source 01 Reference 1"',
        f"-SamplingFrequency {rate:g}",
        "-ADMaxValue 32767",
        f"-ADBitVolts {range_uv * 1e-6 / 32767:.24f}".rstrip("0"),
        f"-AcqEntName {Path(name).stem}",
        "-NumADChannels 1",
        f"-ADChannel {channel}",
        f"-InputRange {range_uv}",
        "-InputInverted True",
        "-DSPLowCutFilterEnabled True",
        "-DspLowCutFrequency 0.1",
        "-DspLowCutNumTaps 0",
        "-DspLowCutFilterType DCO",
        "-DSPHighCutFilterEnabled True",
        "-DspHighCutFrequency 9000",
        "-DspHighCutNumTaps 64",
        "-DspHighCutFilterType FIR",
        "-DspDelayCompensation Enabled",
        "-DspFilterDelay_\u00b5s 984",
    ]
    # Cheetah is a Windows program: CRLF line ends, latin-1 (µ is one byte), NUL padding to 16 kB.
    text = ("\r\n".join(lines) + "\r\n").encode("latin-1")
    return text.ljust(_NLX_HEADER_BYTES, b"\x00")

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

"""Recordings for the NWB-layer tests: generated SpikeGLX files and the real ones from ../shared.

Nothing here needs Django or a database.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import pytest
from pynwb import NWBHDF5IO, NWBFile

from conversions.nwb.conversion import convert_recording
from conversions.nwb.detection import Detection
from conversions.nwb.synthetic import write_spikeglx

REAL_DATA = Path(__file__).resolve().parents[3] / "shared" / "data" / "real"
START = datetime(2024, 3, 15, 14, 30, 0)
# A saved subset of the probe's channels keeps files small; readers handle it like 384.
CHANNELS = 16
DURATION_S = 0.2

T = TypeVar("T")

_PROC_IO = Path("/proc/self/io")


def real_recording(relative: str) -> Path:
    """A real recording under ../shared/data/real/ (read in place, never copied), or a skip."""
    path = REAL_DATA / relative
    if not path.exists():
        pytest.skip(f"real recording {relative} not found under {REAL_DATA}")
    return path


def bytes_read_during(action: Callable[[], T]) -> tuple[T, int]:
    """`action()`'s result and the bytes this process read while it ran: `rchar` of /proc/self/io.

    rchar counts every read() of the process's threads (files, pipes, sockets), from disk or from the
    page cache alike, so a test can show that a reader left a file's data alone without timing it. It
    also counts Python reading source files for a lazy import: call the action once before measuring.
    Access through a memory map is not a read() and is not counted. Linux only; a skip elsewhere.
    """
    before = _rchar()
    result = action()
    return result, _rchar() - before


def _rchar() -> int:
    try:
        lines = _PROC_IO.read_text().splitlines()
    except OSError as error:  # missing (not Linux) or not readable here
        pytest.skip(f"bytes read cannot be measured: {_PROC_IO} is not readable ({error.strerror})")
    return next(int(line.split()[1]) for line in lines if line.startswith("rchar:"))


@pytest.fixture(scope="session")
def ap_lf_upload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A read-only-by-convention upload holding one AP and one LF stream (16 channels, 0.2 s)."""
    root = tmp_path_factory.mktemp("ap_lf")
    write_spikeglx(root, n_channels=CHANNELS, duration_s=DURATION_S, with_lf=True, start_time=START)
    return root


@pytest.fixture(scope="session")
def long_upload(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """384 channels for 3 s (~69 MB), written in 12 buffers, so progress and cancel happen mid-write.

    Shorter recordings (under one 10 MB chunk of 64 channels, ~2.6 s) are written in one buffer.
    """
    root = tmp_path_factory.mktemp("long")
    write_spikeglx(root, n_channels=384, duration_s=3.0, start_time=START, seed=3)
    return root


@pytest.fixture
def upload(tmp_path: Path, ap_lf_upload: Path) -> Path:
    """A private copy of `ap_lf_upload` that a test may damage."""
    root = tmp_path / "upload"
    shutil.copytree(ap_lf_upload, root)
    return root


@pytest.fixture
def read_nwb() -> Iterator[Callable[[Path], NWBFile]]:
    """Open NWB files for reading in a test; every file is closed when the test ends."""
    opened: list[NWBHDF5IO] = []

    def read(path: Path) -> NWBFile:
        io = NWBHDF5IO(str(path), "r")
        opened.append(io)
        return io.read()

    yield read
    for io in opened:
        io.close()


def convert_upload(
    root: Path, detection: Detection, output: Path, defaults: Mapping[str, Any], **overrides: Any
) -> Path:
    """Convert the detected default streams of `root` into `output` with a test file's `defaults`
    (metadata, timezone); keyword overrides win."""
    arguments: dict[str, Any] = {
        "source_root": root,
        "detection": detection,
        "stream_ids": [],
        "output_path": output,
        **defaults,
    }
    convert_recording(**{**arguments, **overrides})
    return output

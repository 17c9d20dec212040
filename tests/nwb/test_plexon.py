"""Plexon PLX (sorted spikes): detection and conversion of the real file in ../shared/data/real/plexon/.

The real file has spikes and events only, no continuous signals: it converts to a units table, never
to a recording. It is read in place; a test that damages or rewrites it works on a copy.
"""

from __future__ import annotations

import json
import os
import shutil
from datetime import datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionFailed, RecordingProblem
from conversions.nwb.validation import inspect_nwb, outcome_of

from .conftest import bytes_read_during, convert_upload, real_recording

PLX = "explore1.plx"
METADATA = {
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Sorted units to test the portal.",
    "keywords": "Plexon",
    "subject_id": "monkey1",
    "species": "Macaca mulatta",
    "sex": "M",
    "age": "P5Y",
}
# The global header's layout (Plexon's PLX specification, as neo reads it): spike counts per
# channel and unit start at byte 256 (130 x 5 int32), event counts after those of the waveforms.
_TS_COUNTS_OFFSET = 256
_HEADER_END = 85808  # global header and the 64 spike, 28 event and 16 continuous channel headers


@pytest.fixture
def upload() -> Path:
    return real_recording(f"plexon/{PLX}").parent


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "upload"
    root.mkdir()
    shutil.copyfile(real_recording(f"plexon/{PLX}"), root / PLX)
    os.chmod(root / PLX, 0o644)
    return root / PLX


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> Path:
    return convert_upload(root, detection, output, {"metadata": METADATA, "timezone": "America/New_York"}, **overrides)


def _neo_spike_times(path: Path) -> dict[str, np.ndarray]:
    """Each unit's spike times in seconds as neo reads them, by Plexon's unit name (sig001a...)."""
    from neo.rawio import PlexonRawIO

    reader = PlexonRawIO(filename=str(path), progress_bar=False)
    reader.parse_header()
    times = {}
    for index, channel in enumerate(reader.header["spike_channels"]):
        letter = "abcdefgh"[int(str(channel["id"]).rpartition("#")[2]) - 1]
        ticks = reader.get_spike_timestamps(0, 0, index, None, None)
        times[f"{channel['name']}{letter}"] = reader.rescale_spike_timestamp(ticks, "float64")
    return times


# --- detection -------------------------------------------------------------------------------------


def test_sorted_units_are_the_only_stream(upload: Path) -> None:
    detection = detect_format(upload)

    assert (detection.format, detection.format_label) == ("plexon", "Plexon PLX (sorted spikes)")
    (stream,) = detection.streams
    assert stream.id == PLX and detection.default_streams == (PLX,)
    assert stream.label == f"Sorted units of {PLX}: 4 units on 4 channels (3,261 spikes)"
    assert (stream.channel_count, stream.sampling_rate_hz) == (4, 40000.0)
    assert stream.duration_s == pytest.approx(61.6679)
    assert stream.size_bytes == (upload / PLX).stat().st_size and stream.files == (PLX,)
    metadata = detection.file_metadata
    assert metadata["session_start_time"] == "2009-02-23T21:52:26"
    assert metadata["device"] == "Plexon acquisition system (SC 2.5.2)"
    assert (metadata["unit_count"], metadata["spike_count"], metadata["plx_version"]) == (4, 3261, 106)
    assert "Only the sorted units (their spike times) are converted, into the NWB units table." in detection.notes
    assert "The file's events are not converted: Start (1), Stop (1)." in detection.notes
    assert not any("continuous" in note for note in detection.notes)  # its 16 signal channels are empty


def test_detection_round_trips_through_json(upload: Path) -> None:
    detection = detect_format(upload)

    assert Detection.from_json(json.loads(json.dumps(detection.to_json()))) == detection


def test_a_large_file_is_checked_by_its_headers_only(tmp_path: Path) -> None:
    # The header announces 2 million spikes on sig001a and the file is long enough for them (sparse:
    # nothing written), so only neo's walk through every block could find that the blocks are zeros.
    path = _copy(tmp_path)
    counts = np.fromfile(path, dtype="<i4", count=650, offset=_TS_COUNTS_OFFSET)
    counts[1 * 5 + 1] = 2_000_000
    with path.open("r+b") as handle:
        handle.seek(_TS_COUNTS_OFFSET)
        handle.write(counts.astype("<i4").tobytes())
        handle.truncate(_HEADER_END + 16 * (counts.sum() + 2))
    detect_format(path.parent)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(path.parent))

    assert read < 4 * 2**20  # the file holds 32 MB, nearly all of it the 2 million announced spikes' blocks
    assert detection.streams[0].label.endswith("(2,001,149 spikes)")
    with pytest.raises(ConversionFailed) as caught:
        _convert(path.parent, detection, tmp_path / "out.nwb")
    assert f"while converting {PLX}" in caught.value.user_message or f"while reading {PLX}" in caught.value.user_message
    assert "Traceback" not in caught.value.user_message
    assert not (tmp_path / "out.nwb").exists()


# --- conversion ------------------------------------------------------------------------------------


def test_units_convert_spike_for_spike(upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(upload)

    nwbfile = read_nwb(_convert(upload, detection, tmp_path / "units.nwb"))

    units = nwbfile.units
    names = list(units["unit_name"][:])
    assert names == ["sig001a", "sig002a", "sig009a", "sig010a"]
    expected = _neo_spike_times(upload / PLX)
    for row, name in enumerate(names):
        assert np.array_equal(units["spike_times"][row], expected[name])
    assert [len(units["spike_times"][row]) for row in range(len(names))] == [2112, 642, 228, 279]
    assert "Plexon" in units.description and PLX in units.description
    assert not nwbfile.acquisition and not nwbfile.electrodes and not nwbfile.devices  # no recording offered
    assert nwbfile.session_start_time == datetime(2009, 2, 23, 21, 52, 26, tzinfo=ZoneInfo("America/New_York"))


def test_progress_goes_from_0_to_100_around_the_write(upload: Path, tmp_path: Path) -> None:
    progress: list[float] = []

    _convert(upload, detect_format(upload), tmp_path / "units.nwb", on_progress=progress.append)

    assert progress == [0.0, 100.0]


def test_converted_file_passes_nwbinspector(upload: Path, tmp_path: Path) -> None:
    issues = inspect_nwb(_convert(upload, detect_format(upload), tmp_path / "units.nwb"))

    assert outcome_of(issues).value == "passed_with_issues"
    assert [(issue.check_name, issue.object_type) for issue in issues] == [("check_description", "Subject")]


# --- files the reader would fail on -----------------------------------------------------------------


def test_truncated_file_says_it_is_incomplete(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    os.truncate(path, path.stat().st_size - 160)  # the last 10 spikes

    with pytest.raises(RecordingProblem) as caught:
        detect_format(path.parent)

    assert caught.value.user_message.startswith(f"{PLX} is incomplete: it is 137,856 bytes")
    assert "upload the file again" in caught.value.user_message


def test_file_cut_inside_the_headers(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    os.truncate(path, 5000)

    with pytest.raises(RecordingProblem, match=f"^{PLX} is incomplete"):
        detect_format(path.parent)


def test_a_file_that_is_not_plx(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    (root / "session.plx").write_bytes(b"\x00" * 10000)

    with pytest.raises(RecordingProblem, match=r"^session\.plx is not a Plexon PLX file"):
        detect_format(root)


def test_a_file_without_spikes(tmp_path: Path) -> None:
    path = _copy(tmp_path)
    with path.open("r+b") as handle:
        handle.seek(_TS_COUNTS_OFFSET)
        handle.write(bytes(650 * 4))

    with pytest.raises(RecordingProblem, match=f"^{PLX} holds no spikes. Only sorted units"):
        detect_format(path.parent)


def test_a_pl2_file_is_named_as_not_supported(tmp_path: Path) -> None:
    root = tmp_path / "upload"
    root.mkdir()
    (root / "session.pl2").write_bytes(b"\x00" * 100)

    with pytest.raises(RecordingProblem, match=r"^session\.pl2 is a Plexon PL2 file, which this portal cannot"):
        detect_format(root)

"""detect_format: what an upload holds, and plain answers when it is not convertible."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conversions.nwb.detection import (
    EVERY_FORMAT_HEADING,
    SUPPORTED_FORMATS,
    Detection,
    closest_formats,
    detect_format,
)
from conversions.nwb.errors import RecordingProblem
from conversions.nwb.synthetic import write_spikeglx

from .conftest import CHANNELS, DURATION_S, START, bytes_read_during, real_recording

RUN = "synthetic_g0/synthetic_g0_t0"


def _problem(root: Path) -> RecordingProblem:
    with pytest.raises(RecordingProblem) as caught:
        detect_format(root)
    assert "Traceback" not in caught.value.user_message
    return caught.value


def _set_meta(meta: Path, **values: str) -> None:
    lines = meta.read_text().splitlines()
    keys = {line.partition("=")[0] for line in lines}
    lines = [
        f"{key}={values[key]}" if key in values else line
        for line, key in ((line, line.partition("=")[0]) for line in lines)
    ]
    lines += [f"{key}={value}" for key, value in values.items() if key not in keys]
    meta.write_text("\n".join(lines) + "\n")


# --- recordings that convert -----------------------------------------------------------------------


def test_ap_only_recording(tmp_path: Path) -> None:
    paths = write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, start_time=START)

    detection = detect_format(tmp_path)

    assert detection.format == "spikeglx"
    assert detection.format_label == "SpikeGLX"
    assert [stream.id for stream in detection.streams] == ["imec0.ap"]
    assert detection.default_streams == ("imec0.ap",)
    (stream,) = detection.streams
    assert stream.label == "Neuropixels probe imec0, action potential band (AP)"
    assert stream.channel_count == CHANNELS  # the SYNC channel saved in the .bin is not counted
    assert stream.sampling_rate_hz == 30000.0
    assert stream.duration_s == pytest.approx(DURATION_S)
    assert stream.size_bytes == paths["ap_bin"].stat().st_size + paths["ap_meta"].stat().st_size
    assert stream.files == (f"{RUN}.imec0.ap.bin", f"{RUN}.imec0.ap.meta")
    assert detection.file_metadata == {
        "session_start_time": "2024-03-15T14:30:00",
        "device": "Neuropixels 1.0 probe",
        "probe": "imec0: NP1000 (serial 18005102171)",
        "channel_count": CHANNELS,
        "sampling_rate_hz": 30000.0,
        "duration_s": pytest.approx(DURATION_S),
        "size_bytes": stream.size_bytes,
        "stream_devices": {"imec0.ap": "Neuropixels 1.0 probe"},
        "stream_probes": {"imec0.ap": "imec0: NP1000 (serial 18005102171)"},
    }
    assert (stream.kind, stream.group) == ("neural", "")
    assert not any("size" in note for note in detection.notes)


def test_ap_and_lf_are_two_default_streams_of_one_probe(ap_lf_upload: Path) -> None:
    detection = detect_format(ap_lf_upload)

    assert detection.default_streams == ("imec0.ap", "imec0.lf")
    lf = detection.stream("imec0.lf")
    assert lf.label == "Neuropixels probe imec0, local field potential band (LF)"
    assert lf.sampling_rate_hz == 2500.0
    assert lf.duration_s == pytest.approx(DURATION_S)
    assert lf.channel_count == CHANNELS
    # AP and LF read the same electrodes: counted once.
    assert detection.file_metadata["channel_count"] == CHANNELS
    assert detection.file_metadata["size_bytes"] == sum(stream.size_bytes for stream in detection.streams)


def test_detection_round_trips_through_json(ap_lf_upload: Path) -> None:
    detection = detect_format(ap_lf_upload)

    stored = json.loads(json.dumps(detection.to_json()))

    assert Detection.from_json(stored) == detection


def test_real_recording_uses_the_real_file_size(tmp_path: Path) -> None:
    root = real_recording("spikeglx/Noise4Sam_g0")

    detection = detect_format(root)

    (stream,) = detection.streams
    assert stream.id == "imec0.ap"
    assert stream.channel_count == 384
    assert stream.duration_s == pytest.approx(1155 / 30000)
    assert stream.files == ("Noise4Sam_g0_t0.imec0.ap.bin", "Noise4Sam_g0_t0.imec0.ap.meta")
    assert detection.file_metadata["session_start_time"] == "2020-11-03T10:35:10"
    assert "PRB_1_4_0480_1" in detection.file_metadata["probe"]
    (size_note,) = [note for note in detection.notes if "121,625,350" in note]
    assert "889,350" in size_note and "real size was used" in size_note


def test_clutter_is_ignored_and_other_files_are_noted(upload: Path) -> None:
    # macOS zips carry binary "._name" twins of every file; readers would choke on them.
    clutter = upload / "__MACOSX" / "synthetic_g0"
    clutter.mkdir(parents=True)
    (clutter / "._synthetic_g0_t0.imec0.ap.meta").write_bytes(b"\x00\x05\x16\x07" * 20)
    (clutter / "._synthetic_g0_t0.imec0.ap.bin").write_bytes(b"\x00\x05\x16\x07" * 20)
    (upload / ".DS_Store").write_bytes(b"\x00\x00\x00\x01Bud1")
    (upload / "notes.txt").write_text("mouse 12, V1")

    detection = detect_format(upload)

    assert detection.default_streams == ("imec0.ap", "imec0.lf")
    assert any("notes.txt" in note and "left out" in note for note in detection.notes)
    assert not any("MACOSX" in note or "DS_Store" in note for note in detection.notes)


def test_stream_comes_from_the_meta_not_the_name_on_disk(upload: Path) -> None:
    for band in ("ap", "lf"):
        for suffix in ("bin", "meta"):
            (upload / f"{RUN}.imec0.{band}.{suffix}").rename(upload / f"probe_{band}.{suffix}")

    detection = detect_format(upload)

    assert detection.default_streams == ("imec0.ap", "imec0.lf")
    assert detection.stream("imec0.lf").files == ("probe_lf.bin", "probe_lf.meta")


def test_start_time_removed_by_anonymisation(upload: Path) -> None:
    for band in ("ap", "lf"):
        _set_meta(upload / f"{RUN}.imec0.{band}.meta", fileCreateTime="0000-00-00T00:00:00")

    detection = detect_format(upload)

    assert detection.file_metadata["session_start_time"] is None
    assert any("does not say when the recording started" in note for note in detection.notes)


def test_detection_does_not_read_the_data(upload: Path) -> None:
    # Grow the AP file to 50 GB without writing (sparse): reading it would take minutes.
    ap_bin = upload / f"{RUN}.imec0.ap.bin"
    frame = (CHANNELS + 1) * 2
    os.truncate(ap_bin, (50 * 10**9 // frame) * frame)
    detect_format(upload)  # imports what detection needs, so the call measured reads only the upload

    detection, read = bytes_read_during(lambda: detect_format(upload))

    assert detection.stream("imec0.ap").duration_s > 1000
    assert read < 64 * 2**20  # the AP file holds 50 GB


# --- uploads that cannot convert -------------------------------------------------------------------


def test_bin_without_meta(upload: Path) -> None:
    (upload / f"{RUN}.imec0.ap.meta").unlink()

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.ap.bin" in problem.user_message
    assert ".meta" in problem.user_message


def test_meta_without_bin(upload: Path) -> None:
    (upload / f"{RUN}.imec0.lf.bin").unlink()

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.lf.meta" in problem.user_message
    assert "Upload the .bin file together with its .meta" in problem.user_message


def test_truncated_bin_says_the_upload_is_incomplete(upload: Path) -> None:
    ap_bin = upload / f"{RUN}.imec0.ap.bin"
    os.truncate(ap_bin, ap_bin.stat().st_size - 7)

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.ap.bin" in problem.user_message
    assert "incomplete" in problem.user_message
    assert "Upload it again" in problem.user_message


def test_empty_bin(upload: Path) -> None:
    os.truncate(upload / f"{RUN}.imec0.lf.bin", 0)

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.lf.bin is empty" in problem.user_message


def test_meta_without_start_time(tmp_path: Path) -> None:
    write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, omit_meta_keys=["fileCreateTime"])

    problem = _problem(tmp_path)

    assert "synthetic_g0_t0.imec0.ap.meta" in problem.user_message
    assert "recording start time" in problem.user_message


def test_meta_missing_reader_settings(tmp_path: Path) -> None:
    write_spikeglx(tmp_path, n_channels=CHANNELS, duration_s=DURATION_S, omit_meta_keys=["imroTbl", "imSampRate"])

    problem = _problem(tmp_path)

    assert "synthetic_g0_t0.imec0.ap.meta is missing settings" in problem.user_message
    assert "imroTbl" in problem.user_message and "imSampRate" in problem.user_message


@pytest.mark.parametrize(
    "content",
    [b"\x89HDF\r\n\x1a\n\x00\x00\x00\x00" * 10, b"just some notes about the session\n"],
    ids=["binary", "text"],
)
def test_meta_that_is_not_a_spikeglx_meta(upload: Path, content: bytes) -> None:
    (upload / f"{RUN}.imec0.ap.meta").write_bytes(content)

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.ap.meta is not a SpikeGLX .meta file" in problem.user_message


def test_several_problems_are_reported_together(upload: Path) -> None:
    (upload / f"{RUN}.imec0.ap.meta").unlink()
    os.truncate(upload / f"{RUN}.imec0.lf.bin", 0)

    problem = _problem(upload)

    assert "(1)" in problem.user_message and "(2)" in problem.user_message
    assert "imec0.ap.bin" in problem.user_message and "imec0.lf.bin is empty" in problem.user_message


def test_file_name_inside_meta_that_readers_cannot_parse(upload: Path) -> None:
    _set_meta(upload / f"{RUN}.imec0.ap.meta", fileName="D:/DATA/my run_g0_t0.imec0.ap.bin")

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.ap.meta names its data file" in problem.user_message
    assert "no spaces" in problem.user_message


def test_reader_failure_becomes_a_plain_problem(upload: Path) -> None:
    # A probe part number the reader's probe table does not know: only the reader finds out.
    _set_meta(upload / f"{RUN}.imec0.ap.meta", imDatPrb_pn="NP9999X")

    problem = _problem(upload)

    assert problem.user_message.startswith("synthetic_g0_t0/") is False
    assert "synthetic_g0_t0.imec0.ap.bin" in problem.user_message
    assert "could not be read as a SpikeGLX recording" in problem.user_message
    assert "Traceback" in problem.detail


def test_two_recordings_in_one_upload(upload: Path) -> None:
    write_spikeglx(upload, run="second", n_channels=CHANNELS, duration_s=DURATION_S)

    problem = _problem(upload)

    assert "several SpikeGLX recordings" in problem.user_message
    assert "second_g0_t0" in problem.user_message and "synthetic_g0_t0" in problem.user_message


def test_duplicate_copy_of_a_stream(upload: Path) -> None:
    copy = upload / "copy"
    copy.mkdir()
    for suffix in ("bin", "meta"):
        shutil.copy(upload / f"{RUN}.imec0.ap.{suffix}", copy / f"again.imec0.ap.{suffix}")

    problem = _problem(upload)

    assert "the same stream (imec0.ap)" in problem.user_message
    assert "copy/again.imec0.ap.meta" in problem.user_message


def test_nidq_alone_is_not_convertible(tmp_path: Path) -> None:
    (tmp_path / "run_g0_t0.nidq.bin").write_bytes(b"\x00" * 9 * 2 * 100)
    (tmp_path / "run_g0_t0.nidq.meta").write_text(
        "fileName=D:/DATA/run_g0_t0.nidq.bin\nnSavedChans=9\nniSampRate=25000\nniAiRangeMax=5\n"
        "niMNGain=200\nniMAGain=1\nsnsMnMaXaDw=0,0,8,1\n~snsChanMap=(0,0,8,1)\n"
        "fileCreateTime=2024-03-15T14:30:00\ntypeThis=nidq\n"
    )

    problem = _problem(tmp_path)

    assert "no Neuropixels probe stream" in problem.user_message
    assert "run_g0_t0.nidq.bin" in problem.user_message


def test_unrecognised_upload_lists_supported_formats_and_files(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "recording.dat").write_bytes(os.urandom(1000))

    problem = _problem(tmp_path)

    assert "not a recording format this portal can convert" in problem.user_message
    assert "notes.txt" in problem.user_message and "recording.dat" in problem.user_message
    for supported in SUPPORTED_FORMATS.values():
        assert supported.label in problem.user_message
        assert supported.needs in problem.user_message


@pytest.mark.parametrize(
    ("names", "closest"),
    [
        (["session.smrx"], ["spike2"]),
        (["run_g0_t0.imec0.ap.meta"], ["spikeglx"]),
        (["rec.ns7", "rec.txt"], ["blackrock"]),
        (["cell.abf2"], ["axon"]),
        (["notes.txt", "recording.dat"], ["openephys_binary", "neuroscope"]),
        (["figure.png", "table.csv", "data.mat"], ["pose"]),  # DeepLabCut writes its output as .csv too
        (["figure.png", "data.mat"], []),
    ],
)
def test_the_closest_formats_are_those_whose_extensions_the_files_resemble(
    names: list[str], closest: list[str]
) -> None:
    assert [supported.key for supported in closest_formats(names)] == closest


def test_an_unrecognised_upload_names_the_closest_format_first_then_every_format(tmp_path: Path) -> None:
    (tmp_path / "cell.abf2").write_bytes(b"\x00" * 100)

    message = _problem(tmp_path).user_message

    first, listing = message.split(f"\n{EVERY_FORMAT_HEADING}\n")
    axon = SUPPORTED_FORMATS["axon"]
    assert f"The closest format it converts is {axon.label}: {axon.needs}." in first
    assert "cell.abf2" in first and "Upload the complete set of files" in first
    assert [line.split(":")[0] for line in listing.split("\n")] == [
        f"• {supported.label}" for supported in SUPPORTED_FORMATS.values()
    ], "the full list, one format a line"


def test_an_upload_like_no_format_says_so_before_the_list(tmp_path: Path) -> None:
    (tmp_path / "figure.png").write_bytes(b"\x89PNG")

    first, _ = _problem(tmp_path).user_message.split(EVERY_FORMAT_HEADING)

    assert "None of them looks like a format it converts." in first
    assert not any(supported.needs in first for supported in SUPPORTED_FORMATS.values())


def test_unrecognised_upload_lists_a_few_files_only(tmp_path: Path) -> None:
    for number in range(12):
        (tmp_path / f"frame{number:02d}.png").write_bytes(b"\x89PNG")

    problem = _problem(tmp_path)

    assert "frame04.png" in problem.user_message
    assert "frame05.png" not in problem.user_message
    assert "and 7 more" in problem.user_message


def test_empty_upload(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()

    problem = _problem(tmp_path)

    assert "contains no files" in problem.user_message


def test_supported_formats_describe_what_files_they_need() -> None:
    spikeglx = SUPPORTED_FORMATS["spikeglx"]
    assert spikeglx.key == "spikeglx"
    assert spikeglx.label == "SpikeGLX"
    assert ".bin" in spikeglx.needs and ".meta" in spikeglx.needs


def test_lf_without_the_probes_ap_files(upload: Path) -> None:
    for suffix in ("bin", "meta"):
        (upload / f"{RUN}.imec0.ap.{suffix}").unlink()

    problem = _problem(upload)

    assert "synthetic_g0_t0.imec0.lf.bin cannot be converted without the probe's AP files" in problem.user_message
    assert "synthetic_g0_t0.imec0.ap.meta" in problem.user_message


def test_meta_with_notes_in_the_windows_code_page(upload: Path) -> None:
    meta = upload / f"{RUN}.imec0.ap.meta"
    meta.write_bytes(meta.read_bytes().replace(b"userNotes=", "userNotes=souris élevée à 22 °C".encode("cp1252")))

    detection = detect_format(upload)

    assert detection.default_streams == ("imec0.ap", "imec0.lf")

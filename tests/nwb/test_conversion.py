"""convert_recording: one NWB file per upload, every sample intact, nothing left behind on failure."""

from __future__ import annotations

import itertools
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import pytest

from conversions.nwb.autofix import AppliedFix
from conversions.nwb.conversion import PREVIEW_SECONDS, ConversionResult, convert_recording, temporary_path_for
from conversions.nwb.detection import Detection, detect_format
from conversions.nwb.errors import ConversionCancelled, ConversionFailed
from conversions.nwb.synthetic import write_spikeglx
from conversions.nwb.validation import action_for, inspect_nwb

from .conftest import CHANNELS, START, real_recording

RUN = "synthetic_g0/synthetic_g0_t0"
FULL_METADATA = {
    "experimenter": ["Smith, Jane", "Lee, Bob"],
    "institution": "MIT",
    "lab": "Smith Lab",
    "experiment_description": "Noise recorded to test the portal.",
    "session_description": "Day 3, passive viewing.",
    "keywords": "V1, Neuropixels",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
    "strain": "C57BL/6J",
}


def _raw(bin_path: Path, saved_channels: int) -> np.ndarray:
    return np.fromfile(bin_path, dtype="<i2").reshape(-1, saved_channels)


def _convert(root: Path, detection: Detection, output: Path, **overrides: Any) -> ConversionResult:
    arguments: dict[str, Any] = {
        "source_root": root,
        "detection": detection,
        "stream_ids": [],
        "metadata": {},
        "timezone": "Europe/Paris",
        "output_path": output,
    }
    arguments.update(overrides)
    return convert_recording(**arguments)


def _folder_is_empty_of_nwb(folder: Path) -> bool:
    return not any(folder.glob("*.nwb")) and not any(folder.glob(".*"))


# --- what a successful conversion writes -----------------------------------------------------------


def test_ap_and_lf_go_into_one_file_sample_for_sample(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)
    progress: list[float] = []
    output = tmp_path / "out" / "session.nwb"

    result = _convert(ap_lf_upload, detection, output, metadata=FULL_METADATA, on_progress=progress.append)

    assert isinstance(result, ConversionResult)
    assert result.output_path == output
    assert result.size_bytes == output.stat().st_size
    assert result.duration_s == pytest.approx(0.2)
    assert result.streams == ("imec0.ap", "imec0.lf")
    nwbfile = read_nwb(output)
    assert set(nwbfile.acquisition) == {"ElectricalSeriesAP", "ElectricalSeriesLF"}
    for band, rate in (("AP", 30000.0), ("LF", 2500.0)):
        series = nwbfile.acquisition[f"ElectricalSeries{band}"]
        raw = _raw(ap_lf_upload / f"{RUN}.imec0.{band.lower()}.bin", CHANNELS + 1)
        # Every sample of the neural channels; the SYNC channel (last) is not written.
        assert series.data.dtype == np.int16
        assert np.array_equal(series.data[:], raw[:, :CHANNELS])
        assert series.rate == rate
        assert list(series.electrodes.data[:]) == list(range(CHANNELS))
    # AP and LF share one device and one set of electrodes.
    assert len(nwbfile.electrodes) == CHANNELS
    assert list(nwbfile.devices) == ["NeuropixelsImec0"]
    assert "Neuropixels 1.0 probe" in nwbfile.devices["NeuropixelsImec0"].description
    assert progress[0] == 0.0 and progress[-1] == 100.0
    assert all(later > earlier for earlier, later in itertools.pairwise(progress))
    assert progress.count(100.0) == 1


def test_metadata_lands_in_the_file(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)

    _convert(ap_lf_upload, detection, tmp_path / "x.nwb", metadata=FULL_METADATA, timezone="America/New_York")

    nwbfile = read_nwb(tmp_path / "x.nwb")
    # The file's naive start time, read as New York time (not the worker's zone).
    assert nwbfile.session_start_time == START.replace(tzinfo=ZoneInfo("America/New_York"))
    assert nwbfile.session_start_time.utcoffset() == timedelta(hours=-4)
    assert nwbfile.experimenter == ("Smith, Jane", "Lee, Bob")
    assert nwbfile.institution == "MIT"
    assert nwbfile.lab == "Smith Lab"
    assert nwbfile.experiment_description == "Noise recorded to test the portal."
    assert nwbfile.session_description == "Day 3, passive viewing."
    assert list(nwbfile.keywords[:]) == ["V1", "Neuropixels"]
    assert uuid.UUID(nwbfile.identifier).version == 4
    subject = nwbfile.subject
    assert (subject.subject_id, subject.species, subject.sex, subject.age, subject.strain) == (
        "mouse001",
        "Mus musculus",
        "F",
        "P90D",
        "C57BL/6J",
    )


def test_defaults_when_the_user_gave_nothing(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)

    _convert(ap_lf_upload, detection, tmp_path / "x.nwb", metadata={"experimenter": "Smith, Jane"})

    nwbfile = read_nwb(tmp_path / "x.nwb")
    assert nwbfile.session_description.startswith("SpikeGLX recording (Neuropixels probe imec0")
    assert "200.0 ms long" in nwbfile.session_description
    assert nwbfile.experimenter == ("Smith, Jane",)
    assert nwbfile.subject is None


def test_given_start_time_with_its_own_offset_is_kept(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)
    metadata = {"session_start_time": "2024-03-16T09:00:00+09:00", "date_of_birth": "2023-12-01"}

    _convert(ap_lf_upload, detection, tmp_path / "x.nwb", metadata=metadata, timezone="Europe/Paris")

    nwbfile = read_nwb(tmp_path / "x.nwb")
    assert nwbfile.session_start_time == datetime(2024, 3, 16, 0, 0, tzinfo=ZoneInfo("UTC"))
    assert nwbfile.session_start_time.utcoffset() == timedelta(hours=9)
    # A date of birth is a date in the lab's own zone.
    assert nwbfile.subject.date_of_birth == datetime(2023, 12, 1, tzinfo=ZoneInfo("Europe/Paris"))


def test_only_the_chosen_stream_is_written(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)

    result = _convert(ap_lf_upload, detection, tmp_path / "lf.nwb", stream_ids=["imec0.lf"])

    assert result.streams == ("imec0.lf",)
    nwbfile = read_nwb(tmp_path / "lf.nwb")
    assert set(nwbfile.acquisition) == {"ElectricalSeriesLF"}
    raw = _raw(ap_lf_upload / f"{RUN}.imec0.lf.bin", CHANNELS + 1)
    assert np.array_equal(nwbfile.acquisition["ElectricalSeriesLF"].data[:], raw[:, :CHANNELS])
    # The probe's layout still comes from the AP .meta.
    assert len(nwbfile.electrodes) == CHANNELS


def test_real_recording_converts_sample_for_sample(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording("spikeglx/Noise4Sam_g0")
    detection = detect_format(root)

    _convert(root, detection, tmp_path / "real.nwb", timezone="America/Los_Angeles")

    nwbfile = read_nwb(tmp_path / "real.nwb")
    series = nwbfile.acquisition["ElectricalSeriesAP"]
    raw = _raw(root / "Noise4Sam_g0_t0.imec0.ap.bin", 385)
    assert series.data.shape == (1155, 384)
    assert np.array_equal(series.data[:], raw[:, :384])
    assert series.conversion == pytest.approx(0.6 / 512 / 500)  # volts per count, from the .meta
    assert nwbfile.session_start_time == datetime(2020, 11, 3, 10, 35, 10, tzinfo=ZoneInfo("America/Los_Angeles"))
    assert nwbfile.devices["NeuropixelsImec0"].serial_number == "18194809281"


def test_an_existing_file_is_replaced(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    output = tmp_path / "x.nwb"
    output.write_bytes(b"an earlier attempt")
    detection = detect_format(ap_lf_upload)

    _convert(ap_lf_upload, detection, output, stream_ids=["imec0.lf"])

    assert set(read_nwb(output).acquisition) == {"ElectricalSeriesLF"}


def test_temporary_file_is_hidden_next_to_the_output() -> None:
    temporary = temporary_path_for(Path("/data/results/session.nwb"))

    assert temporary.parent == Path("/data/results")
    assert temporary.name.startswith(".")
    assert temporary.suffix == ".nwb"
    assert temporary != Path("/data/results/session.nwb")


# --- progress and cancel ---------------------------------------------------------------------------


def test_progress_rises_through_the_write(long_upload: Path, tmp_path: Path) -> None:
    detection = detect_format(long_upload)
    progress: list[float] = []

    _convert(long_upload, detection, tmp_path / "long.nwb", on_progress=progress.append)

    assert progress[0] == 0.0 and progress[-1] == 100.0
    assert all(later > earlier for earlier, later in itertools.pairwise(progress))
    assert len([value for value in progress if 0 < value < 100]) >= 3


def test_cancel_during_the_write_leaves_nothing(long_upload: Path, tmp_path: Path) -> None:
    detection = detect_format(long_upload)
    progress: list[float] = []
    output = tmp_path / "long.nwb"

    with pytest.raises(ConversionCancelled):
        _convert(
            long_upload,
            detection,
            output,
            on_progress=progress.append,
            should_stop=lambda: any(0 < value < 100 for value in progress),
        )

    assert any(0 < value < 100 for value in progress)  # it was stopped part-way
    assert not output.exists()
    assert not temporary_path_for(output).exists()
    assert _folder_is_empty_of_nwb(tmp_path)


def test_cancel_before_the_start(ap_lf_upload: Path, tmp_path: Path) -> None:
    detection = detect_format(ap_lf_upload)

    with pytest.raises(ConversionCancelled):
        _convert(ap_lf_upload, detection, tmp_path / "x.nwb", should_stop=lambda: True)

    assert _folder_is_empty_of_nwb(tmp_path)


# --- failures ----------------------------------------------------------------------------------------


class _ProgressDisplayBroke(Exception):
    pass


def test_an_error_while_writing_leaves_no_temporary_file(long_upload: Path, tmp_path: Path) -> None:
    detection = detect_format(long_upload)
    output = tmp_path / "long.nwb"

    def on_progress(percent: float) -> None:
        if 0 < percent < 100:
            assert temporary_path_for(output).exists()  # the write is under way
            raise _ProgressDisplayBroke()

    with pytest.raises(_ProgressDisplayBroke):
        _convert(long_upload, detection, output, on_progress=on_progress)

    assert _folder_is_empty_of_nwb(tmp_path)


def test_file_changed_after_detection(upload: Path, tmp_path: Path) -> None:
    detection = detect_format(upload)
    ap_bin = upload / f"{RUN}.imec0.ap.bin"
    ap_bin.write_bytes(ap_bin.read_bytes()[: 34 * 100])

    with pytest.raises(ConversionFailed) as caught:
        _convert(upload, detection, tmp_path / "out" / "x.nwb")

    assert "synthetic_g0_t0.imec0.ap.bin" in caught.value.user_message
    assert "Upload the recording again" in caught.value.user_message
    assert _folder_is_empty_of_nwb(tmp_path / "out")


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({"sex": "male"}, "The sex given ('male')"),
        ({"species": "mouse"}, "The species given ('mouse')"),
        ({"session_start_time": "last Tuesday"}, "The session start time given ('last Tuesday')"),
        ({"date_of_birth": "spring"}, "The date of birth given ('spring')"),
    ],
)
def test_values_nwb_refuses_name_the_field(
    ap_lf_upload: Path, tmp_path: Path, metadata: dict[str, str], words: str
) -> None:
    detection = detect_format(ap_lf_upload)

    with pytest.raises(ConversionFailed) as caught:
        _convert(ap_lf_upload, detection, tmp_path / "x.nwb", metadata=metadata)

    assert caught.value.user_message.startswith(words)
    assert _folder_is_empty_of_nwb(tmp_path)


def test_unknown_timezone(ap_lf_upload: Path, tmp_path: Path) -> None:
    detection = detect_format(ap_lf_upload)

    with pytest.raises(ConversionFailed, match="Mars/Olympus"):
        _convert(ap_lf_upload, detection, tmp_path / "x.nwb", timezone="Mars/Olympus")


def test_recording_without_start_time_needs_one(upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    for band in ("ap", "lf"):
        meta = upload / f"{RUN}.imec0.{band}.meta"
        meta.write_text(
            meta.read_text().replace("fileCreateTime=2024-03-15T14:30:00", "fileCreateTime=0000-00-00T00:00:00")
        )
    detection = detect_format(upload)

    with pytest.raises(ConversionFailed, match="does not say when it started"):
        _convert(upload, detection, tmp_path / "x.nwb")

    _convert(upload, detection, tmp_path / "x.nwb", metadata={"session_start_time": "2024-03-15T09:00:00"})
    assert read_nwb(tmp_path / "x.nwb").session_start_time == datetime(2024, 3, 15, 9, tzinfo=ZoneInfo("Europe/Paris"))


def test_meta_with_notes_in_the_windows_code_page_converts(upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    meta = upload / f"{RUN}.imec0.ap.meta"
    meta.write_bytes(meta.read_bytes().replace(b"userNotes=", "userNotes=souris élevée".encode("cp1252")))
    detection = detect_format(upload)

    _convert(upload, detection, tmp_path / "x.nwb")

    raw = _raw(upload / f"{RUN}.imec0.ap.bin", CHANNELS + 1)
    assert np.array_equal(read_nwb(tmp_path / "x.nwb").acquisition["ElectricalSeriesAP"].data[:], raw[:, :CHANNELS])


# --- descriptions the conversion writes where the reader gave none -----------------------------------


def test_the_device_description_is_returned_as_a_fix(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    detection = detect_format(ap_lf_upload)

    result = _convert(ap_lf_upload, detection, tmp_path / "x.nwb", metadata=FULL_METADATA)

    (fix,) = result.applied_fixes
    description = read_nwb(tmp_path / "x.nwb").devices["NeuropixelsImec0"].description
    assert fix == AppliedFix(
        field="device description 'NeuropixelsImec0'",
        before="",
        after=description,
        check_name="check_description",
        reason=fix.reason,
    )
    assert description.startswith("Neuropixels 1.0 probe (imec")
    issues = inspect_nwb(tmp_path / "x.nwb")
    assert not [issue for issue in issues if issue.check_name == "check_description" and issue.object_type == "Device"]
    assert not [issue for issue in issues if action_for(issue) == "fix"]


def test_intan_header_columns_are_described(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording("intan")
    metadata = {**FULL_METADATA, "session_start_time": "2024-03-15T14:30:00"}

    result = _convert(root, detect_format(root), tmp_path / "x.nwb", metadata=metadata)

    nwbfile = read_nwb(tmp_path / "x.nwb")
    fixed = {fix.field: fix for fix in result.applied_fixes}
    impedance = fixed["electrodes column description 'electrode_impedance_magnitude'"]
    assert impedance.before == "no description"
    assert impedance.after == nwbfile.electrodes["electrode_impedance_magnitude"].description
    assert "ohms" in impedance.after
    model = fixed["device model description 'RHD2000 Recording System'"]
    assert (
        model.after == nwbfile.device_models["RHD2000 Recording System"].description == "Intan RHD2000 Recording System"
    )
    assert {fix.check_name for fix in result.applied_fixes} == {"check_description"}
    # Only the subject's own (optional) description is left, which nothing in the file could say.
    undescribed = {
        issue.object_type for issue in inspect_nwb(tmp_path / "x.nwb") if issue.check_name == "check_description"
    }
    assert undescribed == {"Subject"}


def test_groups_a_reader_leaves_undescribed_get_the_recording_systems_name(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording("blackrock/example")
    detection = detect_format(root, format_key="neuroconv:BlackrockRecordingInterface")
    metadata = {**FULL_METADATA, "session_start_time": "2024-03-15T14:30:00"}  # the .ns2 header has none

    result = _convert(root, detection, tmp_path / "x.nwb", metadata=metadata)

    nwbfile = read_nwb(tmp_path / "x.nwb")
    (group,) = nwbfile.electrode_groups.values()
    assert "Blackrock" in group.description and "does not say where the electrodes were" in group.description
    assert group.location == "unknown"  # not guessed
    assert "PlaceholderElectrodeDevice" not in nwbfile.devices
    assert group.device.description.startswith("Recorded with Blackrock")
    assert sorted(fix.field for fix in result.applied_fixes) == [
        f"device description '{group.device.name}'",
        f"electrode group description '{group.name}'",
    ]
    assert not [issue for issue in inspect_nwb(tmp_path / "x.nwb") if action_for(issue) == "fix"]


# --- stub conversions (previews) -------------------------------------------------------------------


def test_a_stub_holds_the_first_seconds_of_every_stream_and_says_it_is_a_preview(tmp_path: Path, read_nwb: Any) -> None:
    recording = write_spikeglx(tmp_path / "long", run="long", duration_s=3.0, n_channels=8, with_lf=True, seed=2)
    upload = recording["ap_bin"].parent
    detection = detect_format(upload)
    progress: list[float] = []

    result = _convert(
        upload, detection, tmp_path / "stub.nwb", metadata=FULL_METADATA, on_progress=progress.append, stub=True
    )

    assert result.preview
    assert progress[0] == 0.0 and progress[-1] == 100.0
    nwbfile = read_nwb(tmp_path / "stub.nwb")
    for band, rate in (("AP", 30000.0), ("LF", 2500.0)):
        raw = _raw(recording[f"{band.lower()}_bin"], 8 + 1)
        series = nwbfile.acquisition[f"ElectricalSeries{band}"]
        assert raw.shape[0] == int(3.0 * rate)
        assert series.data.shape == (int(PREVIEW_SECONDS * rate), 8), "the first seconds, every channel"
        assert np.array_equal(series.data[:], raw[: series.data.shape[0], :8])
    assert len(nwbfile.electrodes) == 8
    assert nwbfile.session_description.startswith("Day 3, passive viewing.")
    assert "PREVIEW" in nwbfile.session_description
    # The metadata is in place, as in the full file.
    assert nwbfile.subject.species == "Mus musculus"
    assert result.applied_fixes and result.applied_fixes[0].check_name == "check_description"


def test_a_full_conversion_is_not_a_preview(ap_lf_upload: Path, tmp_path: Path, read_nwb: Any) -> None:
    result = _convert(ap_lf_upload, detect_format(ap_lf_upload), tmp_path / "x.nwb", stream_ids=["imec0.lf"])

    assert not result.preview
    assert "PREVIEW" not in read_nwb(tmp_path / "x.nwb").session_description


def test_a_stub_of_a_real_recording(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording("spikeglx/Noise4Sam_g0")

    _convert(root, detect_format(root), tmp_path / "stub.nwb", stub=True)

    series = read_nwb(tmp_path / "stub.nwb").acquisition["ElectricalSeriesAP"]
    raw = _raw(root / "Noise4Sam_g0_t0.imec0.ap.bin", 385)
    # The recording is 38.5 ms long, shorter than a preview's seconds: all of it.
    assert series.data.shape == (1155, 384) == (raw.shape[0], 384)
    assert np.array_equal(series.data[:], raw[:, :384])


def test_a_stub_of_sorted_units_holds_fewer_spikes(tmp_path: Path, read_nwb: Any) -> None:
    root = real_recording("plexon")
    detection = detect_format(root)

    _convert(root, detection, tmp_path / "full.nwb")
    _convert(root, detection, tmp_path / "stub.nwb", stub=True)

    full, stub = read_nwb(tmp_path / "full.nwb").units, read_nwb(tmp_path / "stub.nwb").units
    assert len(stub) == len(full)
    assert 0 < len(stub["spike_times"].target.data) < len(full["spike_times"].target.data)


def test_a_stub_of_patch_clamp_is_written_whole(tmp_path: Path, read_nwb: Any) -> None:
    # neuroconv's Axon interface has no stub; an ABF file holds seconds of sweeps.
    name = "05210017_vc_abf1.abf"
    root = tmp_path / "upload"
    root.mkdir()
    (root / name).symlink_to(real_recording(f"abf/{name}"))

    result = _convert(root, detect_format(root), tmp_path / "stub.nwb", stub=True)

    nwbfile = read_nwb(tmp_path / "stub.nwb")
    assert result.preview and "PREVIEW" in nwbfile.session_description
    assert all(len(series.data) == 6 * 3 * 20000 for series in nwbfile.acquisition.values())

"""A session's parts beside its recording: spike sorting, pose and video, alone and combined, on real files."""

from __future__ import annotations

import os
import pickle
import shutil
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pynwb import NWBHDF5IO

from conversions.nwb.conversion import convert_recording
from conversions.nwb.detection import detect_format, facts_for_streams, validate_stream_choice
from conversions.nwb.errors import ConversionFailed
from conversions.nwb.formats.pose import read_pickle_safely
from conversions.nwb.formats.sorting import main_channels, read_folder, read_params
from conversions.nwb.parts import needs_behaviour_start, owner, timing

from .conftest import real_recording

METADATA = {
    "session_start_time": "2024-03-15T14:30:00",
    "experimenter": ["Smith, Jane"],
    "institution": "MIT",
    "experiment_description": "Neuropixels recording with behaviour",
    "subject_id": "mouse001",
    "species": "Mus musculus",
    "sex": "M",
    "age": "P90D",
}
DLC_H5 = "golden_mouseDLC_dlcrnetms5_golden_mouseOct19shuffle1_2000.h5"


def _upload(tmp_path: Path, **folders: str) -> Path:
    """An upload of real folders and files (linked, never copied), each under the name given."""
    root = tmp_path / "upload"
    root.mkdir()
    for name, relative in folders.items():
        source = real_recording(relative)
        if source.is_dir():
            shutil.copytree(source, root / name, copy_function=os.symlink)
        else:
            os.symlink(source, root / name)
    return root


def _convert(
    root: Path, detection: Any, output: Path, *, stream_ids: Sequence[str] = (), stub: bool = False, **given: Any
) -> Any:
    """The conversion the portal runs, with the test's metadata and the values `given` beside it."""
    return convert_recording(
        source_root=root,
        detection=detection,
        stream_ids=stream_ids,
        metadata={**METADATA, **given},
        timezone="UTC",
        output_path=output,
        stub=stub,
    )


def _read(path: Path):
    import ndx_pose  # noqa: F401  # registers the pose types for reading

    warnings.simplefilter("ignore")
    return NWBHDF5IO(path, "r")


def test_kilosort4_keeps_every_unit_with_its_label_once(tmp_path):
    detection = detect_format(real_recording("kilosort/kilosort4"))
    (stream,) = detection.streams
    assert (detection.format, stream.kind, stream.sampling_rate_hz) == ("sorting", "spikes", 30000.0)
    assert stream.label == "spike sorting (Kilosort 4, 403 units: 253 good, 150 mua)"
    result = _convert(real_recording("kilosort/kilosort4"), detection, tmp_path / "ks4.nwb")
    with _read(result.output_path) as io:
        units = io.read().units.to_dataframe()
    assert len(units) == 403
    assert (units["KSLabel"] == "good").sum() == 253
    assert "KSLabel_repeat" not in units.columns  # cluster_group.tsv repeats cluster_KSLabel.tsv
    first = np.load(real_recording("kilosort/kilosort4") / "spike_times.npy")[0]
    assert min(times[0] for times in units["spike_times"]) == pytest.approx(first / 30000.0)


def test_a_phy_folder_keeps_the_clusters_no_one_labelled(tmp_path):
    root = real_recording("phy/template")
    detection = detect_format(root)
    (stream,) = detection.streams
    # cluster_group.tsv names cluster 4 only: spikeinterface's reader would keep 1 unit of 62.
    assert stream.label.endswith("62 units: 61 unsorted, 1 good)")
    assert any("61 of 62 units have no curation label" in note for note in detection.notes)
    result = _convert(root, detection, tmp_path / "phy.nwb")
    with _read(result.output_path) as io:
        units = io.read().units.to_dataframe()
    assert len(units) == 62 and sum(len(times) for times in units["spike_times"]) == 314
    assert units.loc[units["original_cluster_id"] == 4, "quality"].item() == "good"
    assert set(units["quality"]) == {"good", "unsorted"}


def test_params_py_is_read_never_run(tmp_path):
    marker = tmp_path / "ran"
    params = tmp_path / "params.py"
    params.write_text(
        f"import os\nopen({str(marker)!r}, 'w')\nsample_rate = 30000.\ndat_path = r'D:\\data\\run.imec0.ap.bin'\n"
    )
    assert read_params(params) == {"sample_rate": 30000.0, "dat_path": "D:\\data\\run.imec0.ap.bin"}
    assert not marker.exists()


def test_units_link_to_the_electrodes_of_the_recording_they_were_sorted_from(tmp_path):
    from pynwb.testing.mock.ecephys import mock_ElectricalSeries, mock_ElectrodeTable
    from pynwb.testing.mock.file import mock_NWBFile

    from conversions.nwb.formats.sorting import sorting_interface_class

    root = real_recording("phy/template")
    folder = read_folder(root, "", sorted(p.name for p in root.iterdir()))
    unit_ids = np.array([4])
    channel_map = np.load(root / "channel_map.npy").reshape(-1)
    (channel,) = main_channels(root, folder, unit_ids)
    templates = np.load(root / "templates.npy")
    assert channel == channel_map[np.argmax(np.ptp(templates[4], axis=0))]

    nwbfile = mock_NWBFile()
    electrodes = mock_ElectrodeTable(n_rows=34, nwbfile=nwbfile)
    region = electrodes.create_region("electrodes", list(range(34)), "all")
    nwbfile.add_acquisition(mock_ElectricalSeries(name="ES", rate=25000.0, data=np.zeros((10, 34)), electrodes=region))
    interface = sorting_interface_class()(root=root, folder=folder)
    interface.add_to_nwbfile(nwbfile, metadata=interface.get_metadata())
    rows = nwbfile.units["electrodes"]
    cluster_ids = nwbfile.units["original_cluster_id"][:]
    linked = {cluster: list(rows[i].index) for i, cluster in enumerate(cluster_ids)}
    assert linked[4] == [channel]
    assert interface.electrode_link == "linked to the electrodes of ES"


def test_deeplabcut_takes_its_frame_rate_from_its_pickle_without_running_it(tmp_path):
    root = _upload(tmp_path, dlc="deeplabcut/golden_mouse-shaokai-2022-10-19")
    detection = detect_format(root)
    (stream,) = detection.streams
    assert stream.kind == "pose" and stream.sampling_rate_hz == 30.0
    assert stream.label == "pose (DeepLabCut, 27 body parts, 4860 frames at 30 frames/s)"
    result = _convert(root, detection, tmp_path / "o.nwb")
    with _read(result.output_path) as io:
        pose = io.read().processing["behavior"]["PoseEstimationDeepLabCut"]
        series = next(iter(pose.pose_estimation_series.values()))
        assert (series.starting_time, series.rate, series.data.shape) == (0.0, 30.0, (4860, 2))

    class Runs:
        def __reduce__(self):
            return (os.system, ("true",))

    hostile = tmp_path / "hostile_meta.pickle"
    hostile.write_bytes(pickle.dumps({"data": {"fps": 30}, "x": Runs()}))
    assert read_pickle_safely(hostile) == {}


def test_pose_without_a_frame_rate_is_not_converted_until_one_is_given(tmp_path):
    source = real_recording("deeplabcut/golden_mouse-shaokai-2022-10-19/videos") / DLC_H5
    root = tmp_path / "upload"
    root.mkdir()
    os.symlink(source, root / DLC_H5)
    detection = detect_format(root)
    assert detection.file_metadata["pose_rates"] == {f"pose:{DLC_H5}": None}
    assert any("frame rate will be asked" in note for note in detection.notes)
    with pytest.raises(ConversionFailed, match=r"frame rate of .* is not known"):
        _convert(root, detection, tmp_path / "o.nwb")
    result = _convert(root, detection, tmp_path / "o.nwb", pose_rate_hz=60)
    with _read(result.output_path) as io:
        pose = io.read().processing["behavior"]["PoseEstimationDeepLabCut"]
        assert next(iter(pose.pose_estimation_series.values())).rate == 60.0


def test_sleap_with_its_video_keeps_the_exact_frame_rate_and_links_the_video(tmp_path):
    root = _upload(tmp_path, sleap="sleap/clip")
    detection = detect_format(root)
    kinds = {stream.id: stream.kind for stream in detection.streams}
    assert kinds == {"pose:clip.predictions.slp": "pose", "video:clip.mp4": "video"}
    output = tmp_path / "out" / "session.nwb"
    result = _convert(root, detection, output)
    assert result.beside == (output.parent / "session_video" / "clip.mp4",)
    assert result.beside[0].read_bytes() == (root / "sleap" / "clip.mp4").read_bytes()
    with _read(output) as io:
        nwbfile = io.read()
        video = nwbfile.processing["behavior"]["Video clip"]
        assert list(video.external_file[:]) == ["session_video/clip.mp4"]
        assert (video.starting_time, video.rate) == (0.0, 25.0)
        module = nwbfile.processing["SLEAP_VIDEO_000_clip"]
        rates = {
            series.rate for pose in module.data_interfaces.values() for series in pose.pose_estimation_series.values()
        }
        # sleap-io alone writes 24.0 (it cuts 24.99999 down); the male track misses frames, so it has timestamps.
        assert rates == {25.0, None}


def test_a_recording_with_sorting_pose_and_video_is_one_file_on_one_clock(tmp_path):
    root = _upload(
        tmp_path,
        Noise4Sam_g0="spikeglx/Noise4Sam_g0",
        kilosort4="kilosort/kilosort4",
        sleap="sleap/clip",
    )
    detection = detect_format(root)
    assert detection.format == "spikeglx"
    assert detection.default_streams == ("imec0.ap", "sorting", "pose:clip.predictions.slp", "video:clip.mp4")
    assert [owner(detection, stream_id) for stream_id in detection.default_streams] == [
        "spikeglx",
        "sorting",
        "pose",
        "video",
    ]
    assert not any("kilosort4/spike_times.npy" in note for note in detection.notes)  # not "left out": converted
    # The real Kilosort 4 folder lacks templates.npy (left out of it for size) and Phy's cluster_info.tsv.
    assert any("written without a link to the recording's electrodes" in note for note in detection.notes)
    validate_stream_choice(detection, ["imec0.ap", "sorting"])
    assert facts_for_streams(detection, ["imec0.ap", "sorting"])["channel_count"] == 384
    assert needs_behaviour_start(detection, detection.default_streams)
    assert not needs_behaviour_start(detection, ["imec0.ap", "sorting"])
    placed = timing(detection, detection.default_streams, behaviour_start_s=None)
    assert [item.start_s for item in placed] == [0.0, 0.0, None, None]
    assert "the sorter names ZFM-02370_mini.imec0.ap.bin, which is not in the upload" in placed[1].how

    output = tmp_path / "out" / "sub-mouse001_ses-1_ecephys.nwb"
    with pytest.raises(ConversionFailed, match="When did the video start"):
        _convert(root, detection, output)
    assert not output.exists() and not (output.parent / f"{output.stem}_video").exists()

    result = _convert(root, detection, output, behaviour_start_s=1.5)
    with _read(result.output_path) as io:
        nwbfile = io.read()
        assert nwbfile.session_description == (
            "SpikeGLX recording (Neuropixels probe imec0, action potential band (AP)), 38.5 ms long, with spike "
            "sorting, pose and video."
        )
        recording = nwbfile.acquisition["ElectricalSeriesAP"]
        start = recording.starting_time  # SpikeGLX places the cut recording at its first sample's time
        first_spike = np.load(real_recording("kilosort/kilosort4") / "spike_times.npy")[0] / 30000.0
        assert min(times[0] for times in nwbfile.units.to_dataframe()["spike_times"]) == pytest.approx(
            start + first_spike
        )
        assert nwbfile.processing["behavior"]["Video clip"].starting_time == pytest.approx(start + 1.5)
        pose = next(iter(nwbfile.processing["SLEAP_VIDEO_000_clip"].data_interfaces.values()))
        assert next(iter(pose.pose_estimation_series.values())).starting_time == pytest.approx(start + 1.5)
    # The recording is chunked and compressed as it is alone; the parts' small datasets are written as they are.
    import h5py

    with h5py.File(result.output_path, "r") as file:
        samples = file["acquisition/ElectricalSeriesAP/data"]
        assert samples.chunks is not None and samples.compression == "gzip"
        assert file["units/spike_times"].shape == (290_360,)


def test_a_preview_holds_a_stub_of_every_part(tmp_path):
    root = _upload(tmp_path, Noise4Sam_g0="spikeglx/Noise4Sam_g0", kilosort4="kilosort/kilosort4", sleap="sleap/clip")
    detection = detect_format(root)
    output = tmp_path / "previews" / "p_desc-preview.nwb"
    result = _convert(root, detection, output, behaviour_start_s=0, stub=True)
    assert result.preview and result.beside == (output.parent / f"{output.stem}_video" / "clip.mp4",)
    with _read(output) as io:
        nwbfile = io.read()
        assert "ElectricalSeriesAP" in nwbfile.acquisition
        assert 0 < sum(len(times) for times in nwbfile.units.to_dataframe()["spike_times"]) < 290_360
        assert "Video clip" in nwbfile.processing["behavior"].data_interfaces
        assert "SLEAP_VIDEO_000_clip" in nwbfile.processing


def _write_video(path: Path, frames: int, rate: int = 30) -> None:
    """A short grey video, as a camera would save it (MPEG-4 in .mp4)."""
    import av

    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("mpeg4", rate=rate)
        stream.width, stream.height, stream.pix_fmt = 32, 32, "yuv420p"
        for index in range(frames):
            frame = av.VideoFrame.from_ndarray(np.full((32, 32, 3), index % 255, dtype=np.uint8), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def test_a_video_whose_frames_match_a_ttl_line_is_timed_by_its_pulses(tmp_path):
    """Open Ephys saved the camera's frame pulses on an NI-DAQ TTL line: each frame takes its pulse's
    time, and nobody is asked when the camera started."""
    node = "Record Node 101"
    root = _upload(tmp_path, **{node: f"openephys_binary/aind_v0.6_multiexp_multistream/{node}"})
    recording = root / node / "experiment1" / "recording1"
    ttl = recording / "events" / "NI-DAQmx-103.PXIe-6341" / "TTL"
    states, times = np.load(ttl / "states.npy"), np.load(ttl / "timestamps.npy")
    zero = float(np.load(recording / "continuous" / "Neuropix-PXI-100.ProbeB" / "timestamps.npy")[0])
    frames = 30
    rng = np.random.default_rng(5)
    camera = zero + 0.25 + np.arange(frames) / 30.0 + rng.uniform(0, 0.002, frames)  # a camera's jitter
    for name in ("states.npy", "timestamps.npy"):
        (ttl / name).unlink()  # linked to the real file: replaced, never written through
    np.save(ttl / "states.npy", np.concatenate([states, np.tile([3, -3], frames)]).astype(np.int16))
    np.save(ttl / "timestamps.npy", np.concatenate([times, np.repeat(camera, 2) + np.tile([0, 0.001], frames)]))
    _write_video(root / "cam.mp4", frames)

    detection = detect_format(root)
    chosen = ("Record Node 101/experiment1/Neuropix-PXI-100.ProbeB", "video:cam.mp4")
    assert not needs_behaviour_start(detection, chosen)
    placed = {item.stream_id: item for item in timing(detection, chosen, behaviour_start_s=None)}
    assert placed["video:cam.mp4"].start_s == pytest.approx(camera[0] - zero)
    assert (
        placed["video:cam.mp4"].how
        == "each of its 30 frames is timed by a pulse on TTL line 3 of NI-DAQmx-103.PXIe-6341"
    )

    output = tmp_path / "out" / "s.nwb"
    _convert(root, detection, output, stream_ids=chosen)
    with _read(output) as io:
        nwbfile = io.read()
        start = next(iter(nwbfile.acquisition.values())).starting_time
        video = nwbfile.processing["behavior"]["Video cam"]
        np.testing.assert_allclose(video.timestamps[:], start + camera - zero, rtol=0, atol=1e-9)


def test_a_ttl_line_with_another_count_of_pulses_times_nothing(tmp_path):
    node = "Record Node 101"
    root = _upload(tmp_path, **{node: f"openephys_binary/aind_v0.6_multiexp_multistream/{node}"})
    _write_video(root / "cam.mp4", 12)  # the real TTL lines hold 1 Hz sync pulses, never 12 of them
    detection = detect_format(root)
    chosen = ("Record Node 101/experiment1/Neuropix-PXI-100.ProbeB", "video:cam.mp4")
    assert needs_behaviour_start(detection, chosen)
    assert {line["label"] for line in detection.file_metadata["pulse_lines"]} >= {
        "TTL line 1 of NI-DAQmx-103.PXIe-6341"
    }


@pytest.mark.parametrize(
    ("name", "part", "kind"),
    [
        ("phy", "phy/template", "spikes"),
        ("dlc", "deeplabcut/golden_mouse-shaokai-2022-10-19", "pose"),
        ("centered_pair", "sleap/centered_pair", "pose"),
        ("m3v1mp4.mp4", "video/m3v1mp4.mp4", "video"),
    ],
)
def test_each_real_part_converts_beside_a_recording(tmp_path, name, part, kind):
    root = _upload(tmp_path, Noise4Sam_g0="spikeglx/Noise4Sam_g0", **{name: part})
    detection = detect_format(root)
    assert detection.format == "spikeglx" and kind in {stream.kind for stream in detection.streams}
    output = tmp_path / "out" / "s.nwb"
    result = _convert(root, detection, output, behaviour_start_s=0.5)
    assert result.streams == detection.default_streams
    with _read(output) as io:
        nwbfile = io.read()
        assert "ElectricalSeriesAP" in nwbfile.acquisition
        # What a part reads is not said to be left out (DeepLabCut's pickle gives its frame rate).
        assert not any("_meta.pickle" in note for note in detection.notes)
        if kind == "spikes":
            # Sorted at 25 kHz: not this recording's sorting, which detection says; converted all the same.
            assert any("may be the sorting of another recording" in note for note in detection.notes)
            assert len(nwbfile.units) == 62
        else:
            assert nwbfile.processing  # pose or the linked video, under processing


def test_sleap_predictions_of_many_animals_convert_alone(tmp_path):
    root = _upload(tmp_path, sleap="sleap/centered_pair")
    detection = detect_format(root)
    pose = detection.stream("pose:centered_pair_predictions.slp")
    assert pose.label == "pose (SLEAP, 24 body parts, 27 animals, 1100 frames at 15 frames/s)"
    result = _convert(root, detection, tmp_path / "o.nwb")
    with _read(result.output_path) as io:
        module = io.read().processing["SLEAP_VIDEO_000_centered_pair_low_quality"]
        assert len(module.data_interfaces) == 27  # one PoseEstimation per track


def test_a_video_on_its_own_is_linked_from_its_file_and_placed_beside_it(tmp_path):
    root = _upload(tmp_path, **{"m3v1mp4.mp4": "video/m3v1mp4.mp4"})
    detection = detect_format(root)
    assert (detection.format, detection.default_streams) == ("video", ("video:m3v1mp4.mp4",))
    output = tmp_path / "out" / "session.nwb"
    result = _convert(root, detection, output)
    assert result.beside == (output.parent / "session_video" / "m3v1mp4.mp4",)
    assert result.beside[0].read_bytes() == (root / "m3v1mp4.mp4").read_bytes()
    with _read(output) as io:
        video = io.read().processing["behavior"]["Video m3v1mp4"]
        assert list(video.external_file[:]) == ["session_video/m3v1mp4.mp4"]


@pytest.mark.parametrize(
    ("text", "said"),
    [("sample_rate = (", "line 1 cannot be read"), ("x = " + "(" * 200_000 + ")" * 200_000, "cannot be read")],
)
def test_a_params_py_that_cannot_be_read_is_refused_plainly(tmp_path, text, said):
    from conversions.nwb.errors import RecordingProblem

    params = tmp_path / "params.py"
    params.write_text(text)
    with pytest.raises(RecordingProblem, match=said):
        read_params(params)


def test_a_video_that_is_not_one_is_named_and_the_recording_still_converts(tmp_path):
    from conversions.nwb.errors import RecordingProblem

    root = _upload(tmp_path, Noise4Sam_g0="spikeglx/Noise4Sam_g0")
    (root / "camera.mp4").write_bytes(b"<html>not a video</html>")
    detection = detect_format(root)
    assert detection.format == "spikeglx" and detection.default_streams == ("imec0.ap",)
    assert any("camera.mp4 cannot be read as a video" in note for note in detection.notes)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "camera.mp4").write_bytes(b"<html>not a video</html>")
    with pytest.raises(RecordingProblem, match=r"camera\.mp4 cannot be read as a video"):
        detect_format(alone)


def test_an_avi_video_is_timed_too(tmp_path):
    import av

    path = tmp_path / "upload" / "cam.avi"
    path.parent.mkdir()
    with av.open(str(path), mode="w") as container:
        stream = container.add_stream("mjpeg", rate=20)
        stream.width, stream.height, stream.pix_fmt = 16, 16, "yuvj420p"
        for index in range(10):
            frame = av.VideoFrame.from_ndarray(np.full((16, 16, 3), index, dtype=np.uint8), format="rgb24")
            for packet in stream.encode(frame):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)
    detection = detect_format(path.parent)
    assert detection.stream("video:cam.avi").label == "video cam.avi (16×16, 10 frames at 20 frames/s)"
    output = tmp_path / "out" / "v.nwb"
    _convert(path.parent, detection, output)
    with _read(output) as io:
        video = io.read().processing["behavior"]["Video cam"]
        assert (video.starting_time, video.rate) == (0.0, 20.0)


def test_the_sorting_holds_the_spikes_spikeinterface_would_build(tmp_path):
    from spikeinterface.core import NumpySorting

    from conversions.nwb.formats.base import list_upload_files
    from conversions.nwb.formats.sorting import build_sorting

    root = real_recording("kilosort/kilosort4")
    folder = read_folder(root, "", list_upload_files(root))
    ours = build_sorting(root, folder)
    times, clusters = np.load(root / "spike_times.npy"), np.load(root / "spike_clusters.npy")
    theirs = NumpySorting.from_samples_and_labels([times.astype(np.int64)], [clusters], 30000.0)
    assert list(ours.get_unit_ids()) == list(theirs.get_unit_ids())
    assert np.array_equal(ours.to_spike_vector(), theirs.to_spike_vector())

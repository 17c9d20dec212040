"""The fast writer: recordings compressed in parallel and written as raw chunks, everything else as
neuroconv writes it.

Each conversion by the fast writer is checked against the source samples and against the file the
plain neuroconv path writes from the same input: same groups, datasets, attributes and values (bar
the identifier, the creation date and object ids), same nwbinspector and dandi findings.
"""

from __future__ import annotations

import threading
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import h5py
import numpy as np
import pytest

from conversions.nwb.conversion import PREVIEW_SECONDS, convert_recording
from conversions.nwb.dandi_validation import check_nwb, merge_findings, validate_with_dandi
from conversions.nwb.detection import detect_format
from conversions.nwb.errors import ConversionCancelled
from conversions.nwb.fastwrite import Deflate, choose_deflate, default_deflate, fill_dataset, neuroconv_deflate
from conversions.nwb.naming import temporary_path_for
from conversions.nwb.validation import inspect_nwb

from .conftest import real_recording

# Intan files carry no start time: the user gives one.
METADATA = {"subject_id": "m1", "species": "Mus musculus", "sex": "F", "age": "P90D"}
INTAN_START = {"session_start_time": "2024-03-15T14:30:00"}
SPIKEGLX_REAL = "spikeglx/Noise4Sam_g0"
OPENEPHYS_TWO_STREAMS = "openephys_binary/DelayedRecording/Record Node 118"
OPENEPHYS_PROBES = "openephys_binary/aind_v0.6_multiexp_multistream/Record Node 101"
INTAN = "intan/example_intan_file.rhd"
ABF = "abf/05210017_vc_abf1.abf"
# Differ between any two conversions, whatever writes them.
_EVERY_TIME_NEW = {"/identifier", "/file_create_date"}


def _convert(root: Path, output: Path, **options: Any) -> Path:
    convert_recording(
        **{
            "source_root": root,
            "detection": detect_format(root),
            "stream_ids": (),
            "metadata": METADATA,
            "timezone": "UTC",
            "output_path": output,
            **options,
        }
    )
    return output


def _both(root: Path, tmp_path: Path, **options: Any) -> tuple[Path, Path]:
    """The same input converted by the fast writer and by neuroconv alone."""
    return _convert(root, tmp_path / "fast.nwb", writer="fast", **options), _convert(
        root, tmp_path / "neuroconv.nwb", writer="neuroconv", **options
    )


def _series_data(path: Path) -> Iterator[h5py.Dataset]:
    with h5py.File(path, "r") as file:
        for group in file["acquisition"].values():
            if isinstance(group, h5py.Group) and "data" in group:
                yield group["data"]


def _differences(fast: Path, reference: Path) -> list[str]:
    """Everything that differs between two NWB files: names, attributes, shapes, dtypes, values."""
    found: list[str] = []
    with h5py.File(fast, "r") as a, h5py.File(reference, "r") as b:
        names_a, names_b = _names(a), _names(b)
        found += [f"only in fast: {name}" for name in sorted(names_a - names_b)]
        found += [f"only in reference: {name}" for name in sorted(names_b - names_a)]
        for name in sorted(names_a & names_b):
            item_a, item_b = a[name], b[name]
            attributes_a = {key: _plain(a, value) for key, value in item_a.attrs.items() if key != "object_id"}
            attributes_b = {key: _plain(b, value) for key, value in item_b.attrs.items() if key != "object_id"}
            if attributes_a != attributes_b:
                found.append(f"{name}: attributes {attributes_a} != {attributes_b}")
            if isinstance(item_a, h5py.Dataset) and name not in _EVERY_TIME_NEW:
                if (item_a.shape, item_a.dtype) != (item_b.shape, item_b.dtype):
                    found.append(f"{name}: {item_a.shape} {item_a.dtype} != {item_b.shape} {item_b.dtype}")
                elif not _same_values(a, item_a, b, item_b):
                    found.append(f"{name}: values differ")
    return found


def _names(file: h5py.File) -> set[str]:
    names: set[str] = {"/"}
    file.visit(lambda name: names.add(f"/{name}"))
    return names


def _plain(file: h5py.File, value: Any) -> Any:
    """An attribute or value comparable across files: references by the path they point to."""
    if isinstance(value, h5py.Reference):
        return file[value].name
    if isinstance(value, np.ndarray | np.void):
        return _plain(file, value.tolist())
    if isinstance(value, list | tuple):
        return [_plain(file, item) for item in value]
    if isinstance(value, bytes):
        return value.decode()
    return value


def _same_values(a: h5py.File, item_a: h5py.Dataset, b: h5py.File, item_b: h5py.Dataset) -> bool:
    if item_a.dtype.kind in "OVS":
        return bool(_plain(a, item_a[()]) == _plain(b, item_b[()]))
    return bool(np.array_equal(item_a[()], item_b[()], equal_nan=item_a.dtype.kind == "f"))


def _filters(dataset: h5py.Dataset) -> list[int]:
    plist = dataset.id.get_create_plist()
    return [plist.get_filter(index)[0] for index in range(plist.get_nfilters())]


def _expected_filters() -> list[int]:
    deflate = default_deflate()
    return [h5py.h5z.FILTER_SHUFFLE, h5py.h5z.FILTER_DEFLATE] if deflate.shuffle else [h5py.h5z.FILTER_DEFLATE]


# Built-in filters only, so no plugin is needed: ISA-L's chunks after shuffle, or neuroconv's setting.
_ALLOWED_FILTERS = ([h5py.h5z.FILTER_SHUFFLE, h5py.h5z.FILTER_DEFLATE], [h5py.h5z.FILTER_DEFLATE])


def _assert_as_neuroconv_writes_it(fast: Path, reference: Path) -> None:
    assert _differences(fast, reference) == []
    assert inspect_nwb(fast) == inspect_nwb(reference)
    assert validate_with_dandi(fast) == validate_with_dandi(reference)
    # What the portal runs on the file: the same findings as both tools run whole.
    assert check_nwb(fast) == merge_findings(inspect_nwb(fast), validate_with_dandi(fast))
    for dataset, neuroconv_dataset in zip(_series_data(fast), _series_data(reference), strict=True):
        assert dataset.compression == "gzip"
        assert _filters(dataset) in _ALLOWED_FILTERS
        assert dataset.chunks == neuroconv_dataset.chunks
        # Where the recording keeps neuroconv's setting (zlib 4, no shuffle), Python's zlib and the one
        # HDF5 was built with may differ in version, hence a few bytes either way.
        size_limit = 1.0 if dataset.shuffle else 1.001
        assert dataset.id.get_storage_size() <= neuroconv_dataset.id.get_storage_size() * size_limit


def _assert_holds(path: Path, sources: list[np.ndarray]) -> None:
    """Each source array is the data of exactly one series, read back with plain h5py."""
    with h5py.File(path, "r") as file:
        datasets = [group["data"] for group in file["acquisition"].values() if "data" in group]
        assert len(datasets) == len(sources)
        for source in sources:
            matches = [
                dataset for dataset in datasets if dataset.shape == source.shape and np.array_equal(dataset[()], source)
            ]
            assert len(matches) == 1, f"no series holds the source's {source.shape} samples"


def _linked(tmp_path: Path, relative: str) -> Path:
    """An upload folder holding a symlink to a real single-file recording."""
    real = real_recording(relative)
    root = tmp_path / "upload"
    root.mkdir()
    (root / real.name).symlink_to(real)
    return root


# --- data and file identical to the neuroconv path ----------------------------------------------


def test_generated_spikeglx_ap_and_lf(ap_lf_upload: Path, tmp_path: Path) -> None:
    from spikeinterface.extractors import read_spikeglx

    fast, reference = _both(ap_lf_upload, tmp_path)

    folder = next(ap_lf_upload.iterdir())
    sources = [
        read_spikeglx(folder, stream_id=stream).get_traces(return_in_uV=False) for stream in ("imec0.ap", "imec0.lf")
    ]
    _assert_holds(fast, sources)
    _assert_as_neuroconv_writes_it(fast, reference)


def test_generated_spikeglx_of_several_chunks(long_upload: Path, tmp_path: Path) -> None:
    """384 channels x 90,000 samples: 2 x 6 chunks of 78,125 x 64, the last row cut short."""
    from spikeinterface.extractors import read_spikeglx

    fast, reference = _both(long_upload, tmp_path)

    with h5py.File(fast, "r") as file:
        data = file["acquisition/ElectricalSeriesAP/data"]
        assert data.shape[0] % data.chunks[0] != 0  # an edge chunk along time
        assert data.id.get_num_chunks() == -(-data.shape[0] // data.chunks[0]) * -(-data.shape[1] // data.chunks[1])
    source = read_spikeglx(next(long_upload.iterdir()), stream_id="imec0.ap").get_traces(return_in_uV=False)
    _assert_holds(fast, [source])
    _assert_as_neuroconv_writes_it(fast, reference)


def test_real_spikeglx(tmp_path: Path) -> None:
    from spikeinterface.extractors import read_spikeglx

    root = real_recording(SPIKEGLX_REAL).parent
    fast, reference = _both(root, tmp_path)

    _assert_holds(fast, [read_spikeglx(real_recording(SPIKEGLX_REAL), stream_id="imec0.ap").get_traces()])
    _assert_as_neuroconv_writes_it(fast, reference)


@pytest.mark.parametrize(
    ("relative", "stream_folders"),
    [
        (OPENEPHYS_TWO_STREAMS, ["File_Reader-106.0", "File_Reader-114.0"]),
        (OPENEPHYS_PROBES, ["Neuropix-PXI-100.ProbeB", "Neuropix-PXI-100.ProbeC"]),
    ],
)
def test_real_openephys_streams(relative: str, stream_folders: list[str], tmp_path: Path) -> None:
    from spikeinterface.extractors import read_openephys

    node = real_recording(relative)
    fast, reference = _both(node, tmp_path)

    sources = [
        read_openephys(node, stream_name=f"{node.name}#{folder}", block_index=0).get_traces(return_in_uV=False)
        for folder in stream_folders
    ]
    _assert_holds(fast, sources)
    _assert_as_neuroconv_writes_it(fast, reference)


def test_real_intan(tmp_path: Path) -> None:
    from spikeinterface.extractors import read_intan

    root = _linked(tmp_path, INTAN)
    fast, reference = _both(root, tmp_path, metadata={**METADATA, **INTAN_START})

    source = read_intan(real_recording(INTAN), stream_name="RHD2000 amplifier channel").get_traces(return_in_uV=False)
    _assert_holds(fast, [source])
    _assert_as_neuroconv_writes_it(fast, reference)


def test_patch_clamp_is_written_by_hdmf_as_before(tmp_path: Path) -> None:
    """Axon files hold no SpikeInterface recording: the fast writer leaves every dataset to hdmf."""
    root = _linked(tmp_path, ABF)

    fast, reference = _both(root, tmp_path)

    assert _differences(fast, reference) == []


# --- progress, cancel, preview, switch -----------------------------------------------------------


def test_progress_rises_to_100(long_upload: Path, tmp_path: Path) -> None:
    progress: list[float] = []

    _convert(long_upload, tmp_path / "out.nwb", writer="fast", on_progress=progress.append)

    assert progress[0] == 0.0 and progress[-1] == 100.0
    assert progress == sorted(progress) and len(set(progress)) == len(progress)
    assert len([value for value in progress if 0 < value < 99]) >= 6  # one per chunk written, not one jump


def test_cancel_during_the_write_leaves_nothing(long_upload: Path, tmp_path: Path) -> None:
    output = tmp_path / "results" / "out.nwb"
    progress: list[float] = []

    with pytest.raises(ConversionCancelled):
        _convert(
            long_upload,
            output,
            writer="fast",
            on_progress=progress.append,
            should_stop=lambda: any(0 < value < 100 for value in progress),
        )

    assert any(0 < value < 99 for value in progress)  # stopped mid-write, not before or after
    assert not output.exists()
    assert not temporary_path_for(output).exists()
    assert list(output.parent.iterdir()) == []
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("nwb-fastwrite")]


def test_preview_holds_the_first_seconds(long_upload: Path, tmp_path: Path) -> None:
    from spikeinterface.extractors import read_spikeglx

    output = _convert(long_upload, tmp_path / "preview.nwb", writer="fast", stub=True)

    source = read_spikeglx(next(long_upload.iterdir()), stream_id="imec0.ap").get_traces(return_in_uV=False)
    frames = int(PREVIEW_SECONDS * 30000)
    _assert_holds(output, [source[:frames]])
    with h5py.File(output, "r") as file:
        assert _filters(file["acquisition/ElectricalSeriesAP/data"]) == _expected_filters()


def test_the_neuroconv_writer_writes_neuroconvs_defaults(ap_lf_upload: Path, tmp_path: Path) -> None:
    output = _convert(ap_lf_upload, tmp_path / "out.nwb", writer="neuroconv")

    for dataset in _series_data(output):
        assert (dataset.compression, dataset.compression_opts, dataset.shuffle) == ("gzip", 4, False)


def test_the_environment_chooses_the_writer(
    ap_lf_upload: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONVERSION_WRITER", "neuroconv")
    by_neuroconv = _convert(ap_lf_upload, tmp_path / "neuroconv.nwb")
    monkeypatch.setenv("CONVERSION_WRITER", "fast")
    monkeypatch.setenv("CONVERSION_THREADS", "1")
    by_fast = _convert(ap_lf_upload, tmp_path / "fast.nwb")

    assert [d.compression_opts for d in _series_data(by_neuroconv)] == [4, 4]
    assert [d.compression_opts for d in _series_data(by_fast)] == [default_deflate().level] * 2
    assert _differences(by_fast, by_neuroconv) == []


@pytest.mark.parametrize("value", ["0", "two", "-1"])
def test_a_bad_thread_count_is_refused(
    value: str, ap_lf_upload: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CONVERSION_THREADS", value)
    output = tmp_path / "results" / "out.nwb"

    with pytest.raises(ValueError, match="CONVERSION_THREADS must be a whole number of threads, 1 or more"):
        _convert(ap_lf_upload, output, writer="fast")

    assert not output.parent.exists()


def test_an_unknown_writer_is_refused(ap_lf_upload: Path, tmp_path: Path) -> None:
    output = tmp_path / "results" / "out.nwb"

    with pytest.raises(ValueError, match="writer must be one of"):
        _convert(ap_lf_upload, output, writer="zarr")

    assert not output.parent.exists()


# --- the chunk writer on its own -----------------------------------------------------------------

_DEFLATES = [
    Deflate(name="zlib", level=4, shuffle=False, library=zlib),
    Deflate(name="zlib", level=1, shuffle=True, library=zlib),
    default_deflate(),
]


@pytest.mark.parametrize("deflate", _DEFLATES, ids=lambda d: f"{d.name}-{d.level}-shuffle-{d.shuffle}")
@pytest.mark.parametrize("dtype", ["int16", "float32", "uint8", "int64"])
@pytest.mark.parametrize("threads", [1, 3])
def test_chunks_decode_with_hdf5s_own_filters(deflate: Deflate, dtype: str, threads: int, tmp_path: Path) -> None:
    """Edge chunks on both axes, every dtype width: HDF5's shuffle and deflate give back the samples."""
    rng = np.random.default_rng(1)
    source = (rng.normal(0, 30, size=(1000, 37)) * (1 if dtype != "float32" else 0.37)).astype(dtype)
    path = tmp_path / "chunks.h5"
    fractions: list[float] = []
    with h5py.File(path, "w") as file:
        dataset = file.create_dataset(
            "data",
            shape=source.shape,
            dtype=source.dtype,
            chunks=(300, 16),
            compression="gzip",
            compression_opts=deflate.level,
            shuffle=deflate.shuffle,
        )
        fill_dataset(
            dataset,
            read=lambda start, stop: source[start:stop],
            deflate=deflate,
            threads=threads,
            on_progress=fractions.append,
        )

    with h5py.File(path, "r") as file:
        np.testing.assert_array_equal(file["data"][()], source)
        assert file["data"].id.get_num_chunks() == 4 * 3
    assert fractions == sorted(fractions) and fractions[-1] == 1.0


def test_a_signal_repeated_on_every_channel_keeps_neuroconvs_compression() -> None:
    """As in a real Open Ephys file whose 16 channels carry one test signal: zlib finds each row's
    repeats, ISA-L level 1 much less so (~1.7x larger), so the recording keeps zlib 4."""
    fast = Deflate(name="isal", level=1, shuffle=True, library=pytest.importorskip("isal.isal_zlib"))
    signal = np.rint(1535 * np.sin(2 * np.pi * np.arange(60_000) / 2000.3)).astype("int16")
    same_on_every_channel = np.repeat(signal[:, None], 16, axis=1)

    assert choose_deflate(same_on_every_channel, (60_000, 16), fast, neuroconv_deflate()) == neuroconv_deflate()


def test_noise_is_compressed_with_isal() -> None:
    fast = Deflate(name="isal", level=1, shuffle=True, library=pytest.importorskip("isal.isal_zlib"))
    noise = np.rint(np.random.default_rng(0).normal(0, 15, size=(60_000, 64))).astype("int16")

    assert choose_deflate(noise, (60_000, 64), fast, neuroconv_deflate()) == fast


def test_a_read_error_stops_the_writing(tmp_path: Path) -> None:
    def read(start: int, stop: int) -> np.ndarray:
        if start >= 200:
            raise OSError("the disk went away")
        return np.zeros((stop - start, 8), dtype="int16")

    with h5py.File(tmp_path / "x.h5", "w") as file:
        dataset = file.create_dataset("data", shape=(1000, 8), dtype="int16", chunks=(100, 8), compression="gzip")
        with pytest.raises(OSError, match="the disk went away"):
            fill_dataset(dataset, read=read, deflate=default_deflate(), threads=2)

    assert not [thread for thread in threading.enumerate() if thread.name.startswith("nwb-fastwrite")]


def test_a_progress_callback_that_raises_stops_the_writing(tmp_path: Path) -> None:
    reads: list[int] = []

    def read(start: int, stop: int) -> np.ndarray:
        reads.append(start)
        return np.ones((stop - start, 4), dtype="int16")

    def stop_at_once(fraction: float) -> None:
        raise ConversionCancelled()

    with h5py.File(tmp_path / "x.h5", "w") as file:
        dataset = file.create_dataset("data", shape=(100_000, 4), dtype="int16", chunks=(100, 4), compression="gzip")
        with pytest.raises(ConversionCancelled):
            fill_dataset(dataset, read=read, deflate=default_deflate(), threads=2, on_progress=stop_at_once)
        written = dataset.id.get_num_chunks()

    assert written == 1
    assert len(reads) < 10  # the reader stopped too, a few blocks ahead at most
    assert not [thread for thread in threading.enumerate() if thread.name.startswith("nwb-fastwrite")]

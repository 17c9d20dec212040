"""Conversion speed, memory and output size: nwbportal's `convert_recording` against a bare
neuroconv `SpikeGLXRecordingInterface.run_conversion` with neuroconv's defaults, on the same
SpikeGLX AP file, then a check that both outputs hold the same samples.

The two paths alternate (nwbportal, bare, nwbportal, ...), each run in a fresh Python process whose
peak RSS is that run's own. Imports happen before the clock starts (a worker imports neuroconv
once at start-up); the source is read into the page cache before every run.

    .venv/bin/python bench/conversion.py [--size-gb 1.0] [--runs 3] [--source UPLOAD] [--keep]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import time
from datetime import UTC, datetime
from importlib.metadata import version
from pathlib import Path
from typing import Any

from harness import (
    GB,
    MB,
    format_table,
    generate_spikeglx,
    median,
    peak_rss_bytes,
    read_into_page_cache,
    report_to_parent,
    run_child,
    source_revision,
    work_folder,
)

STREAM_ID = "imec0.ap"
PATHS = ("nwbportal", "bare")
PATH_LABELS = {
    "nwbportal": "nwbportal convert_recording",
    "bare": "bare neuroconv run_conversion",
}
# What a user would typically have given by the time a conversion runs.
PORTAL_METADATA = {"subject_id": "bench-001", "species": "Mus musculus", "sex": "F", "age": "P90D"}
TIMEZONE = "UTC"
# Rows read per comparison block stay under this many bytes per file.
_COMPARE_BLOCK_BYTES = 256 * 1024 * 1024
_CHILD_OPTION = "--convert"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="size of the generated AP .bin (default 1.0)")
    parser.add_argument("--runs", type=int, default=3, help="runs per path (default 3)")
    parser.add_argument(
        "--source",
        type=Path,
        help=f"convert this SpikeGLX upload (with an {STREAM_ID} stream) instead of generating one; never deleted",
    )
    parser.add_argument("--keep", action="store_true", help="keep generated data and outputs under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.convert:
        report_to_parent(convert_in_this_process(json.loads(args.convert)))
        return

    from conversions.nwb.detection import detect_format

    with work_folder("conversion", keep=args.keep) as work:
        if args.source:
            root, generation = args.source.resolve(), "given"
        else:
            root = work / "source"
            _, generation_s = generate_spikeglx(root, size_gb=args.size_gb, with_lf=False)
            generation = f"generated in {generation_s:.1f} s"
        detection = detect_format(root)
        stream = detection.stream(STREAM_ID)
        bin_path = root / next(name for name in stream.files if name.endswith(".bin"))
        source_bytes = bin_path.stat().st_size

        results: dict[str, list[dict[str, Any]]] = {path: [] for path in PATHS}
        outputs = {path: work / f"{path}.nwb" for path in PATHS}
        rows = []
        for run in range(1, args.runs + 1):
            for path in PATHS:
                outputs[path].unlink(missing_ok=True)
                read_into_page_cache([bin_path])
                spec = {
                    "path": path,
                    "root": str(root),
                    "folder": str(bin_path.parent),
                    "detection": detection.to_json(),
                    "output": str(outputs[path]),
                }
                result = run_child(Path(__file__), _CHILD_OPTION, spec)
                results[path].append(result)
                rows.append([str(run), path, *_format_figures(_medians([result], source_bytes))])
        identical, detail = compare_electrical_series(outputs["nwbportal"], outputs["bare"])

        print(
            f"{STREAM_ID} of {_gb(source_bytes)} ({stream.channel_count} channels, {stream.duration_s:.1f} s, "
            f"{generation}); Python {platform.python_version()}, neuroconv {version('neuroconv')}, "
            f"pynwb {version('pynwb')}, hdmf {version('hdmf')}, h5py {version('h5py')}, "
            f"{len(os.sched_getaffinity(0))} cores; code: {source_revision()}"
        )
        print()
        headers = ["wall (s)", "MB/s", "peak RSS (MB)", "output (MB)"]
        print(format_table(["run", "path", *headers], rows, right=(0, 2, 3, 4, 5)))
        print()
        medians = {path: _medians(results[path], source_bytes) for path in PATHS}
        summary = [[PATH_LABELS[path], *_format_figures(medians[path])] for path in PATHS]
        ratios = [portal / bare for portal, bare in zip(medians["nwbportal"], medians["bare"], strict=True)]
        summary.append(["ratio nwbportal/bare", *(f"{ratio:.2f}" for ratio in ratios)])
        print(format_table([f"median of {args.runs}", *headers], summary, right=(1, 2, 3, 4)))
        print()
        print(f"data identical: {'yes' if identical else 'no'} ({detail})")
        print("MB/s: source .bin bytes / wall; wall: the conversion call, imports excluded; 1 MB = 1e6 bytes.")


def convert_in_this_process(spec: dict[str, Any]) -> dict[str, Any]:
    """Child side: one conversion by one path; reports its wall time, peak RSS and output size."""
    # Both paths need these; a worker imports them once at start-up, so they stay off the clock.
    import neuroconv.converters
    import neuroconv.datainterfaces
    import neuroconv.tools.nwb_helpers

    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection

    output = Path(spec["output"])
    started = time.perf_counter()
    if spec["path"] == "nwbportal":
        convert_recording(
            source_root=Path(spec["root"]),
            detection=Detection.from_json(spec["detection"]),
            stream_ids=(STREAM_ID,),
            metadata=PORTAL_METADATA,
            timezone=TIMEZONE,
            output_path=output,
        )
    else:
        interface = neuroconv.datainterfaces.SpikeGLXRecordingInterface(folder_path=spec["folder"], stream_id=STREAM_ID)
        metadata = interface.get_metadata()
        start_time = metadata["NWBFile"]["session_start_time"]
        if isinstance(start_time, str):
            start_time = datetime.fromisoformat(start_time)
        metadata["NWBFile"]["session_start_time"] = start_time.replace(tzinfo=UTC)
        interface.run_conversion(nwbfile_path=output, metadata=metadata, overwrite=True)
    wall_s = time.perf_counter() - started
    return {
        "wall_s": wall_s,
        "peak_rss_bytes": peak_rss_bytes(),
        "output_bytes": output.stat().st_size,
    }


def compare_electrical_series(first: Path, second: Path) -> tuple[bool, str]:
    """Whether every ElectricalSeries under /acquisition holds the same samples in both files,
    read block by block (whole HDF5 chunks, so each is decompressed once) rather than at once."""
    import h5py
    import numpy as np

    with h5py.File(first, "r") as file_a, h5py.File(second, "r") as file_b:
        series_a, series_b = _electrical_series(file_a), _electrical_series(file_b)
        if sorted(series_a) != sorted(series_b):
            return False, f"different series: {sorted(series_a)} vs {sorted(series_b)}"
        compared = []
        for name in sorted(series_a):
            data_a, data_b = series_a[name]["data"], series_b[name]["data"]
            if data_a.shape != data_b.shape or data_a.dtype != data_b.dtype:
                return False, f"{name}: {data_a.shape} {data_a.dtype} vs {data_b.shape} {data_b.dtype}"
            step = _block_rows(data_a, data_b)
            for start in range(0, data_a.shape[0], step):
                if not np.array_equal(data_a[start : start + step], data_b[start : start + step]):
                    return False, f"{name}: samples from {start:,} differ"
            scaling = [
                attribute
                for attribute, a, b in (
                    ("conversion", data_a.attrs.get("conversion"), data_b.attrs.get("conversion")),
                    ("offset", data_a.attrs.get("offset"), data_b.attrs.get("offset")),
                    ("rate", _rate(series_a[name]), _rate(series_b[name])),
                )
                if a != b
            ]
            shape = " x ".join(f"{size:,}" for size in data_a.shape)
            note = f"; {', '.join(scaling)} differ" if scaling else "; conversion, offset and rate equal too"
            blocks = math.ceil(data_a.shape[0] / step)
            compared.append(f"{name} {shape} {data_a.dtype}, {blocks} block{'s' if blocks > 1 else ''}{note}")
        return True, "; ".join(compared) if compared else "no ElectricalSeries in either file"


def _electrical_series(file: Any) -> dict[str, Any]:
    acquisition = file.get("acquisition", {})
    return {
        name: group
        for name, group in acquisition.items()
        if _text(group.attrs.get("neurodata_type")) == "ElectricalSeries"
    }


def _rate(series: Any) -> Any:
    starting_time = series.get("starting_time")
    return None if starting_time is None else starting_time.attrs.get("rate")


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def _block_rows(data_a: Any, data_b: Any) -> int:
    """Samples per comparison block: a whole number of both files' chunks along time, if that fits."""
    row_bytes = max(1, math.prod(data_a.shape[1:]) * data_a.dtype.itemsize)
    chunk_rows = [data.chunks[0] for data in (data_a, data_b) if data.chunks]
    fitting = max(1, _COMPARE_BLOCK_BYTES // row_bytes)
    if not chunk_rows:
        return fitting
    common = math.lcm(*chunk_rows)
    if common <= fitting:
        return common * (fitting // common)
    return min(chunk_rows)


def _medians(runs: list[dict[str, Any]], source_bytes: int) -> tuple[float, float, float, float]:
    """Median wall (s), throughput (MB/s), peak RSS (MB) and output size (MB) of some runs."""
    wall = median([run["wall_s"] for run in runs])
    return (
        wall,
        median([source_bytes / MB / run["wall_s"] for run in runs]),
        median([run["peak_rss_bytes"] / MB for run in runs]),
        median([run["output_bytes"] / MB for run in runs]),
    )


def _format_figures(figures: tuple[float, float, float, float]) -> list[str]:
    wall, throughput, rss, output = figures
    return [f"{wall:.1f}", f"{throughput:.0f}", f"{rss:.0f}", f"{output:.0f}"]


def _gb(size_bytes: int) -> str:
    return f"{size_bytes / GB:.2f} GB"


if __name__ == "__main__":
    main()

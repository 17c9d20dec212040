"""Conversion throughput of nwbportal's fast writer against bare neuroconv: MB/s, peak RSS and output
size on a generated SpikeGLX AP recording and a generated two-probe Open Ephys recording, with 1 and
2 compressing threads, and the stdlib-zlib fallback (what runs where ISA-L is not installed).

Paths, each run in a fresh Python process whose peak RSS is that run's own, alternating run by run:

- `bare`: neuroconv's own `run_conversion` with its defaults (HDF5, gzip 4, `buffer_gb` 1.0), on the
  interfaces the portal builds (for Open Ephys, neuroconv alone would give both probes one series name);
- `neuroconv`: `convert_recording(writer="neuroconv")`, the portal's fallback;
- `fast-1`, `fast-2`: `convert_recording(writer="fast", threads=1 or 2)`;
- `fast-zlib`: `fast-2` with ISA-L hidden from the process, so the writer falls back to zlib.

The portal's own time around a conversion (queueing, progress, validation, bookkeeping) is
`overhead.py`'s business.

Imports happen before the clock starts (a worker imports neuroconv once), and so does a detection
of the recording (a worker has detected it before converting it); the source is read into the page
cache before every run. `--flat-gb 3` adds one fast run on a 3 GB SpikeGLX recording to show
that peak memory does not follow the recording's length.

    .venv/bin/python bench/throughput.py [--size-gb 1.0] [--openephys-gb 0.5] [--runs 3] [--flat-gb 0] [--keep]
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import platform
import shutil
import sys
import time
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from harness import (
    GB,
    MB,
    REPO_ROOT,
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

PATHS = ("bare", "neuroconv", "fast-1", "fast-2", "fast-zlib")
PORTAL_METADATA = {"subject_id": "bench-001", "species": "Mus musculus", "sex": "F", "age": "P90D"}
TIMEZONE = "UTC"
AIND_NODE = REPO_ROOT.parent / "shared/data/real/openephys_binary/aind_v0.6_multiexp_multistream/Record Node 101"
PROBES = ("Neuropix-PXI-100.ProbeB", "Neuropix-PXI-100.ProbeC")
_CHILD_OPTION = "--convert"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="SpikeGLX AP .bin size (default 1.0)")
    parser.add_argument(
        "--openephys-gb", type=float, default=0.5, help="Open Ephys data, both probes together (default 0.5; 0 skips)"
    )
    parser.add_argument("--runs", type=int, default=3, help="runs per path (default 3)")
    parser.add_argument("--paths", default=",".join(PATHS), help=f"comma-separated subset of {','.join(PATHS)}")
    parser.add_argument("--flat-gb", type=float, default=0.0, help="also one fast run on a recording this big")
    parser.add_argument("--keep", action="store_true", help="keep generated data and outputs under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.convert:
        report_to_parent(convert_in_this_process(json.loads(args.convert)))
        return
    paths = tuple(path for path in args.paths.split(",") if path)
    unknown = set(paths) - set(PATHS)
    if unknown:
        raise SystemExit(f"unknown paths: {sorted(unknown)}")

    print(
        f"Python {platform.python_version()}, neuroconv {version('neuroconv')}, hdmf {version('hdmf')}, "
        f"h5py {version('h5py')}, isal {_version('isal')}, {len(os.sched_getaffinity(0))} cores, "
        f"load average {os.getloadavg()[0]:.1f}; code: {source_revision()}"
    )
    with work_folder("throughput", keep=args.keep) as work:
        spikeglx = work / "spikeglx"
        _, generation_s = generate_spikeglx(spikeglx, size_gb=args.size_gb, with_lf=False)
        print(f"\nSpikeGLX imec0.ap, {args.size_gb:.2f} GB generated in {generation_s:.1f} s")
        measure(spikeglx, ("imec0.ap",), paths, args.runs, work)
        if args.openephys_gb > 0:
            openephys = write_openephys(work / "openephys", size_gb=args.openephys_gb)
            print(f"\nOpen Ephys, two Neuropixels probes of {args.openephys_gb / 2:.2f} GB each (experiment 1)")
            measure(openephys, (), paths, args.runs, work)
        if args.flat_gb > 0:
            big = work / "big"
            generate_spikeglx(big, size_gb=args.flat_gb, with_lf=False)
            shutil.rmtree(spikeglx, ignore_errors=True)  # room on disk
            print(f"\nSpikeGLX imec0.ap, {args.flat_gb:.2f} GB: peak memory of one fast run")
            measure(big, ("imec0.ap",), ("fast-2",), 1, work)
    print("\nMB/s: source data bytes / wall; wall: the conversion call, imports excluded; 1 MB = 1e6 bytes.")
    print("peak RSS: the child process's VmHWM, imports included.")


def measure(root: Path, stream_ids: tuple[str, ...], paths: tuple[str, ...], runs: int, work: Path) -> None:
    """Convert `root` by each path `runs` times, alternating; print per-run figures, medians and
    ratios to `bare`, and whether the fast output holds the same samples as neuroconv's."""
    from conversions.nwb.detection import detect_format

    detection = detect_format(root)
    chosen = stream_ids or detection.default_streams
    sources = [root / name for stream_id in chosen for name in detection.stream(stream_id).files]
    data_bytes = sum(path.stat().st_size for path in sources if path.suffix in (".bin", ".dat"))
    outputs = {path: work / f"{root.name}-{path}.nwb" for path in paths}
    results: dict[str, list[dict[str, Any]]] = {path: [] for path in paths}
    rows = []
    for run in range(1, runs + 1):
        for path in paths:
            outputs[path].unlink(missing_ok=True)
            read_into_page_cache(sources)
            spec = {
                "path": path,
                "root": str(root),
                "detection": detection.to_json(),
                "stream_ids": list(chosen),
                "output": str(outputs[path]),
            }
            # The zlib fallback runs where `import isal` fails, as on a machine without ISA-L.
            result = run_child(Path(__file__), _CHILD_OPTION, {**spec, "hide_isal": path == "fast-zlib"})
            results[path].append(result)
            rows.append([str(run), path, *_figures([result], data_bytes)])
    headers = ["wall (s)", "MB/s", "peak RSS (MB)", "output (MB)"]
    print(format_table(["run", "path", *headers], rows, right=(0, 2, 3, 4, 5)))
    print()
    summary = []
    bare_mbps = median([data_bytes / MB / run["wall_s"] for run in results["bare"]]) if "bare" in results else None
    bare_size = median([run["output_bytes"] for run in results["bare"]]) if "bare" in results else None
    for path in paths:
        mbps = median([data_bytes / MB / run["wall_s"] for run in results[path]])
        size = median([run["output_bytes"] for run in results[path]])
        summary.append(
            [
                path,
                *_figures(results[path], data_bytes),
                f"{mbps / bare_mbps:.2f}" if bare_mbps else "",
                f"{size / bare_size:.3f}" if bare_size else "",
                results[path][0].get("writer", ""),
            ]
        )
    print(
        format_table(
            [f"median of {runs}", *headers, "speed vs bare", "size vs bare", "writer"],
            summary,
            right=(1, 2, 3, 4, 5, 6),
        )
    )
    reference = outputs.get("bare") or outputs.get("neuroconv")
    if reference is not None:
        from conversion import compare_electrical_series

        for path in paths:
            if path.startswith("fast"):
                identical, detail = compare_electrical_series(outputs[path], reference)
                print(f"{path} vs {reference.stem.split('-', 1)[1]}: samples identical: {'yes' if identical else 'NO'}")
                if not identical:
                    print(f"  {detail}")


def write_openephys(root: Path, *, size_gb: float) -> Path:
    """A two-probe Open Ephys 0.6 recording: the real AIND node's settings and structure, with
    experiment 1's two Neuropixels streams replaced by `size_gb` of noise (both together)."""
    import numpy as np

    node = root / AIND_NODE.name
    shutil.copytree(AIND_NODE, node)
    rng = np.random.default_rng(0)
    samples = int(size_gb * GB / len(PROBES) / (384 * 2))
    block = 16384
    for probe in PROBES:
        folder = node / "experiment1" / "recording1" / "continuous" / probe
        first = int(np.load(folder / "sample_numbers.npy")[0])
        with (folder / "continuous.dat").open("wb") as handle:
            for start in range(0, samples, block):
                rows = min(block, samples - start)
                noise = rng.standard_normal((rows, 384), dtype=np.float32) * 15.0
                handle.write(np.rint(noise).astype("<i2").tobytes())
        numbers = np.arange(first, first + samples, dtype=np.int64)
        np.save(folder / "sample_numbers.npy", numbers)
        for name in ("timestamps.npy", "original_timestamps.npy"):
            np.save(folder / name, numbers / 30000.0)
    return node


def convert_in_this_process(spec: dict[str, Any]) -> dict[str, Any]:
    """Child side: one conversion by one path; reports wall time, peak RSS, output size and writer."""
    if spec.get("hide_isal"):
        sys.modules["isal"] = None  # type: ignore[assignment]  # `import isal` now raises ImportError
    # Imported before the clock starts, as a worker does once at start-up.
    for module in ("neuroconv.converters", "neuroconv.datainterfaces", "neuroconv.tools.nwb_helpers", "pynwb"):
        importlib.import_module(module)

    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection, detect_format, format_handler
    from conversions.nwb.fastwrite import default_deflate

    detection = Detection.from_json(spec["detection"])
    root, output, stream_ids = Path(spec["root"]), Path(spec["output"]), tuple(spec["stream_ids"])
    # As in a worker, which has detected the recording before converting it: the readers' first-use
    # costs fall before the clock.
    detect_format(Path(spec["root"]))
    path = spec["path"]
    writer = "neuroconv (run_conversion defaults)"
    if path == "bare":
        supported = format_handler(detection.format)
        assert supported is not None
        with supported.open_for_reading(root, detection, stream_ids) as view:
            converter = supported.build_converter(view, stream_ids)
            metadata = converter.get_metadata()
            start_time = metadata["NWBFile"]["session_start_time"]
            if isinstance(start_time, str):
                start_time = datetime.fromisoformat(start_time)
            metadata["NWBFile"]["session_start_time"] = start_time.replace(tzinfo=UTC)
            started = time.perf_counter()
            converter.run_conversion(nwbfile_path=output, metadata=metadata, overwrite=True)
            wall_s = time.perf_counter() - started
    else:
        fast = path.startswith("fast")
        threads = 1 if path == "fast-1" else 2
        if fast:
            deflate = default_deflate()
            writer = f"fast, {threads} thread{'s' if threads > 1 else ''}, {deflate.name} level {deflate.level}" + (
                " + shuffle" if deflate.shuffle else ""
            )
        else:
            writer = "neuroconv (portal options)"
        started = time.perf_counter()
        convert_recording(
            source_root=root,
            detection=detection,
            stream_ids=stream_ids,
            metadata=PORTAL_METADATA,
            timezone=TIMEZONE,
            output_path=output,
            writer="fast" if fast else "neuroconv",
            threads=threads,
        )
        wall_s = time.perf_counter() - started
    return {
        "wall_s": wall_s,
        "peak_rss_bytes": peak_rss_bytes(),
        "output_bytes": output.stat().st_size,
        "writer": writer,
    }


def _figures(runs: list[dict[str, Any]], data_bytes: int) -> list[str]:
    return [
        f"{median([run['wall_s'] for run in runs]):.1f}",
        f"{median([data_bytes / MB / run['wall_s'] for run in runs]):.0f}",
        f"{median([run['peak_rss_bytes'] / MB for run in runs]):.0f}",
        f"{median([run['output_bytes'] / MB for run in runs]):.0f}",
    ]


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    main()

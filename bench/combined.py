"""What a session's parts add to its conversion: a generated SpikeGLX AP recording converted alone (a),
then with a Kilosort 4 sorting, DeepLabCut and SLEAP pose and a behaviour video in the same NWB file
(b), and each part converted alone, each run in a fresh Python process whose peak RSS is that run's own.

The upload holds the generated recording and links to real part folders (never copied):
kilosort/kilosort4, sleap/clip (a .slp and the .mp4 it was tracked in) and
deeplabcut/golden_mouse-shaokai-2022-10-19 (.h5, _meta.pickle, config.yaml). Each child imports what
a worker has imported, detects the upload and imports ndx-pose (once per worker) before the clock
starts; the clock is `convert_recording` alone. The conversion's steps are timed inside the call by
wrapping the functions that do them, so the extra time of (b) can be traced to a step.

    .venv/bin/python bench/combined.py [--size-gb 1.0] [--repeats 3] [--real-data DIR] [--keep]
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import platform
import shutil
import time
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

# Upload folder name -> real folder under --real-data, linked into the upload.
PART_FOLDERS = {
    "kilosort4": "kilosort/kilosort4",
    "sleap": "sleap/clip",
    "dlc": "deeplabcut/golden_mouse-shaokai-2022-10-19",
}
# What each run converts: the recording alone, everything detected, or one kind of part alone.
RUNS = ("recording", "session", "combined", "spikes", "pose", "video")
RUN_LABELS = {
    "recording": "(a) recording alone",
    "session": "(s) + sorting, pose, video",
    "combined": "(b) recording + parts",
    "spikes": "sorting alone",
    "pose": "pose alone (DLC + SLEAP)",
    "video": "video alone",
}
# What a user would have given: a part alone says no start time, and video or pose beside a
# recording needs the camera's start (here with the recording).
METADATA = {
    "session_start_time": "2024-03-15T14:30:00",
    "subject_id": "bench-001",
    "species": "Mus musculus",
    "sex": "F",
    "age": "P90D",
    "behaviour_start_s": 0.0,
}
TIMEZONE = "UTC"
# The steps timed inside `convert_recording`, in the order they run; the rest is "other".
STEPS = (
    "read the parts (sorting, pose files)",
    "recording into the in-memory file",
    "parts into it (units, pose, video frame times)",
    "neuroconv's chunking/compression defaults",
    "neuroconv applies them to every dataset",
    "hdmf writes all but the recording's samples",
    "fast writer: the recording's samples",
)
_CHILD_OPTION = "--convert"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="size of the generated AP .bin (default 1.0)")
    parser.add_argument("--repeats", type=int, default=3, help="rounds of every run, alternating (default 3)")
    parser.add_argument(
        "--real-data",
        type=Path,
        default=REPO_ROOT.parent / "shared" / "data" / "real",
        help="folder holding the real part folders (default ../shared/data/real)",
    )
    parser.add_argument("--keep", action="store_true", help="keep generated data and outputs under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.convert:
        report_to_parent(convert_in_this_process(json.loads(args.convert)))
        return
    missing = [relative for relative in PART_FOLDERS.values() if not (args.real_data / relative).is_dir()]
    if missing:
        raise SystemExit(f"part folders not found under {args.real_data}: {', '.join(missing)}")

    from conversions.nwb.detection import detect_format
    from conversions.nwb.parts import is_part

    load_before = os.getloadavg()
    with work_folder("combined", keep=args.keep) as work:
        root = work / "upload"
        _, generation_s = generate_spikeglx(root, size_gb=args.size_gb, with_lf=False)
        for name, relative in PART_FOLDERS.items():
            shutil.copytree(args.real_data / relative, root / name, copy_function=os.symlink)
        detection = detect_format(root)
        (recording,) = [stream for stream in detection.streams if not is_part(detection, stream.id)]
        chosen = {
            "recording": (recording.id,),
            # The session: its sorting, one pose file and the video it was tracked in.
            "session": (recording.id, "sorting", "pose:clip.predictions.slp", "video:clip.mp4"),
            "combined": detection.default_streams,
            **{kind: tuple(s.id for s in detection.streams if s.kind == kind) for kind in RUNS[3:]},
        }
        sources = [root / name for stream in detection.streams for name in stream.files]
        outputs = {run: work / f"{run}.nwb" for run in RUNS}
        results: dict[str, list[dict[str, Any]]] = {run: [] for run in RUNS}
        for _ in range(args.repeats):
            for run in RUNS:
                outputs[run].unlink(missing_ok=True)
                read_into_page_cache(sources)
                spec = {
                    "root": str(root),
                    "detection": detection.to_json(),
                    "stream_ids": list(chosen[run]),
                    "output": str(outputs[run]),
                }
                results[run].append(run_child(Path(__file__), _CHILD_OPTION, spec))
        load_after = os.getloadavg()
        settings = {run: recording_settings(outputs[run]) for run in ("recording", "combined")}
        from conversion import compare_electrical_series

        identical, _ = compare_electrical_series(outputs["recording"], outputs["combined"])
        print(
            f"Python {platform.python_version()}, neuroconv {version('neuroconv')}, hdmf {version('hdmf')}, "
            f"h5py {version('h5py')}, ndx-pose {version('ndx-pose')}, sleap-io {version('sleap-io')}, "
            f"isal {_version('isal')}, {len(os.sched_getaffinity(0))} cores, load average {load_before[0]:.1f} "
            f"before and {load_after[0]:.1f} after; code: {source_revision()}"
        )
        print(
            f"\n{recording.id} of {recording.size_bytes / GB:.2f} GB ({recording.channel_count} channels, "
            f"{recording.duration_s:.1f} s, generated in {generation_s:.1f} s), with:"
        )
        for stream in detection.streams:
            if is_part(detection, stream.id):
                print(f"  {stream.label}, {stream.duration_s:.0f} s")
        report(results)
        fast = {run: {r["fast_recordings"] for r in results[run]} for run in ("recording", "combined")}
        print(
            f"\nrecording written by the fast writer: (a) {_count(fast['recording'])}, (b) {_count(fast['combined'])}; "
            f"its dataset in (a): {settings['recording']}; in (b): "
            f"{'the same' if settings['combined'] == settings['recording'] else settings['combined']}; "
            f"samples identical: {'yes' if identical else 'NO'}"
        )
        spikes = max(stream.duration_s for stream in detection.streams if stream.kind == "spikes")
        print(
            f"the sorting spans {spikes:.0f} s, the recording {recording.duration_s:.0f} s: fine for timing, not a "
            "real session."
        )
        ndx_pose_s = median([result["ndx_pose_import_s"] for result in results["combined"]])
        print(
            "\nwall: the convert_recording call; off the clock, as in a worker: imports, the upload's detection, and "
            f"ndx-pose's import ({ndx_pose_s:.2f} s, which a worker pays at its first conversion with pose).\n"
            "peak RSS: the child's VmHWM, imports included; beside: the video placed next to the NWB file (a hard "
            "link where the disk allows, else a copy); steps: medians, so they need not add up."
        )


def report(results: dict[str, list[dict[str, Any]]]) -> None:
    """The runs' medians, the overhead of (b) over (a), and the steps of both."""
    rows = []
    for run in RUNS:
        walls = [result["wall_s"] for result in results[run]]
        rows.append(
            [
                RUN_LABELS[run],
                f"{median(walls):.2f}",
                " ".join(f"{wall:.2f}" for wall in walls),
                f"{median([r['start_rss_bytes'] for r in results[run]]) / MB:.0f}",
                f"{median([r['peak_rss_bytes'] for r in results[run]]) / MB:.0f}",
                f"{median([r['output_bytes'] for r in results[run]]) / MB:.1f}",
                f"{median([r['beside_bytes'] for r in results[run]]) / MB:.1f}",
            ]
        )
    headers = ["run", "wall (s)", "each run (s)", "RSS at start (MB)", "peak RSS (MB)", "NWB (MB)", "beside (MB)"]
    print()
    print(format_table(headers, rows, right=(1, 3, 4, 5, 6)))
    alone = median([result["wall_s"] for result in results["recording"]])
    session = median([result["wall_s"] for result in results["session"]])
    combined = median([result["wall_s"] for result in results["combined"]])
    print(f"\noverhead of (s) over (a): {session - alone:+.2f} s, {100 * (session / alone - 1):+.1f} %")
    print(f"overhead of (b) over (a): {combined - alone:+.2f} s, {100 * (combined / alone - 1):+.1f} %\n")
    print(format_table(["step (median s)", "(a)", "(b)", "b - a"], step_rows(results), right=(1, 2, 3)))


def convert_in_this_process(spec: dict[str, Any]) -> dict[str, Any]:
    """Child side: one conversion; reports its wall time, steps, memory, outputs and fast-writer use."""
    # Imported before the clock starts, as a worker does once at start-up.
    for module in ("neuroconv.converters", "neuroconv.datainterfaces", "neuroconv.tools.nwb_helpers", "pynwb"):
        importlib.import_module(module)

    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection, detect_format

    root, output = Path(spec["root"]), Path(spec["output"])
    # As in a worker, which has detected the upload before converting it: readers' first use off the clock.
    detect_format(root)
    started = time.perf_counter()
    importlib.import_module("ndx_pose")
    ndx_pose_import_s = time.perf_counter() - started
    steps, fast_recordings = _clock_steps()
    start_rss = _rss_bytes()
    started = time.perf_counter()
    result = convert_recording(
        source_root=root,
        detection=Detection.from_json(spec["detection"]),
        stream_ids=tuple(spec["stream_ids"]),
        metadata=METADATA,
        timezone=TIMEZONE,
        output_path=output,
    )
    wall_s = time.perf_counter() - started
    return {
        "wall_s": wall_s,
        "steps": steps,
        "fast_recordings": sum(fast_recordings),
        "start_rss_bytes": start_rss,
        "peak_rss_bytes": peak_rss_bytes(),
        "output_bytes": result.size_bytes,
        "beside_bytes": sum(path.stat().st_size for path in result.beside),
        "ndx_pose_import_s": ndx_pose_import_s,
    }


def _clock_steps() -> tuple[dict[str, float], list[int]]:
    """Wrap the functions that do each of `STEPS` so their seconds add up in the dict returned (a
    wrapper costs microseconds); the list gets how many recordings each fast write compressed in
    parallel, as `write_nwbfile` returns it."""
    import neuroconv.tools.nwb_helpers
    from hdmf.backends.hdf5.h5tools import HDF5IO
    from neuroconv import NWBConverter

    from conversions.nwb import conversion, fastwrite

    spent = dict.fromkeys(STEPS, 0.0)
    fast_recordings: list[int] = []

    def clock(owner: Any, name: str, step: str) -> None:
        original = getattr(owner, name)

        @functools.wraps(original)
        def timed(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                spent[step] += time.perf_counter() - started

        setattr(owner, name, timed)

    reading, recording, parts, defaults, applying, hdmf, samples = STEPS
    clock(conversion, "_open_part", reading)
    clock(NWBConverter, "create_nwbfile", recording)
    clock(conversion, "_add_part", parts)
    clock(conversion, "build_backend_configuration", defaults)
    clock(neuroconv.tools.nwb_helpers, "configure_backend", applying)
    clock(HDF5IO, "write", hdmf)
    clock(fastwrite, "fill_dataset", samples)
    write_nwbfile = conversion.write_nwbfile

    def counted(*args: Any, **kwargs: Any) -> int:
        count = write_nwbfile(*args, **kwargs)
        fast_recordings.append(count)
        return count

    conversion.write_nwbfile = counted
    return spent, fast_recordings


def step_rows(results: dict[str, list[dict[str, Any]]]) -> list[list[str]]:
    """Median seconds of each step in (a) and (b), then what is left of the wall time, then the wall."""

    def step(run: str, name: str) -> float:
        return median([result["steps"][name] for result in results[run]])

    def other(run: str) -> float:
        return median([result["wall_s"] - sum(result["steps"].values()) for result in results[run]])

    def wall(run: str) -> float:
        return median([result["wall_s"] for result in results[run]])

    figures = [(name, step("recording", name), step("combined", name)) for name in STEPS]
    figures.append(("other (metadata, checks, compression choice...)", other("recording"), other("combined")))
    figures.append(("wall", wall("recording"), wall("combined")))
    return [[name, f"{a:.2f}", f"{b:.2f}", f"{b - a:+.2f}"] for name, a, b in figures]


def recording_settings(path: Path) -> str:
    """How the file stores its ElectricalSeries' samples: chunks and filters, as written."""
    import h5py

    with h5py.File(path, "r") as file:
        found = []
        for name, group in file["acquisition"].items():
            if group.attrs.get("neurodata_type") in ("ElectricalSeries", b"ElectricalSeries"):
                data = group["data"]
                filters = f"{data.compression} level {data.compression_opts}" + (" + shuffle" if data.shuffle else "")
                found.append(f"{name} chunks {data.chunks}, {filters}")
        return "; ".join(found) or "no ElectricalSeries"


def _rss_bytes() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024  # kB
    return 0


def _count(values: set[int]) -> str:
    return "/".join(f"{value} recording{'s' if value != 1 else ''}" for value in sorted(values))


def _version(package: str) -> str:
    try:
        return version(package)
    except PackageNotFoundError:
        return "not installed"


if __name__ == "__main__":
    main()

"""How long `detect_format` takes: on a generated SpikeGLX recording (AP + LF, ~1 GB by default),
on every recording under the shared real-data folder, and on the biggest real folder as one upload.

Each upload is measured in a fresh Python process: the first call includes importing the project's
detection module and whatever it imports lazily (neuroconv, for formats it claims); then the same
process calls it again `--repeats` times for the warm median.

    .venv/bin/python bench/detection.py [--size-gb 1.0] [--repeats 5] [--real-data DIR] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import sys
import time
from dataclasses import dataclass
from importlib.metadata import version
from pathlib import Path
from typing import Any

from harness import (
    GB,
    folder_bytes,
    format_table,
    generate_spikeglx,
    median,
    read_into_page_cache,
    report_to_parent,
    run_child,
    source_revision,
    work_folder,
)

DEFAULT_REAL_DATA = Path("/work/shared/data/real")
# Files real readers cannot open: negative cases for the tests, not recordings to time.
SKIPPED_FOLDER = "broken"
_CHILD_OPTION = "--measure"
# Longer stream lists (Open Ephys: experiment/stream for each) are given as a count.
_MAX_STREAM_TEXT = 40


@dataclass(frozen=True)
class Upload:
    case: str  # (a) generated, (b) real recording, (c) biggest real folder
    label: str
    root: Path
    size_bytes: int


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="size of the generated AP .bin (default 1.0)")
    parser.add_argument("--repeats", type=int, default=5, help="warm calls after the first (default 5)")
    parser.add_argument("--real-data", type=Path, default=DEFAULT_REAL_DATA, help="folder of real recordings")
    parser.add_argument("--keep", action="store_true", help="keep the generated recording under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        report_to_parent(measure_in_this_process(json.loads(args.measure)))
        return

    with work_folder("detection", keep=args.keep) as work:
        generated = work / "generated"
        paths, generation_s = generate_spikeglx(generated, size_gb=args.size_gb, with_lf=True)
        uploads = [Upload("(a)", "generated SpikeGLX AP+LF", generated, folder_bytes(generated))]
        if args.real_data.is_dir():
            uploads += real_uploads(args.real_data, copies=work / "uploads")
            uploads.append(biggest_folder(args.real_data))
        rows = []
        for upload in uploads:
            read_into_page_cache([path for path in upload.root.rglob("*") if path.is_file()])
            result = run_child(Path(__file__), _CHILD_OPTION, {"root": str(upload.root), "repeats": args.repeats})
            rows.append(
                [
                    upload.case,
                    upload.label,
                    _size(upload.size_bytes),
                    result["outcome"],
                    _ms(result["first_s"]),
                    _ms(median(result["warm_s"])),
                    "yes" if result["neuroconv_imported"] else "no",
                ]
            )
        print(_context(generation_s, paths, args))
        print()
        print(
            format_table(
                ["case", "upload", "size", "result", "first call", f"warm median of {args.repeats}", "neuroconv"],
                rows,
                right=(2, 4, 5),
            )
        )
        print()
        print("first call: fresh process, import of conversions.nwb.detection included (interpreter start is not);")
        print("times in ms; neuroconv: whether the first call imported it; source files in page cache.")
        if not args.real_data.is_dir():
            print(f"{args.real_data} not found: only the generated recording was measured.")


def measure_in_this_process(spec: dict[str, Any]) -> dict[str, Any]:
    """Child side: time the first call (imports included), then the warm calls."""
    start = time.perf_counter()
    from conversions.nwb.detection import detect_format
    from conversions.nwb.errors import RecordingProblem

    root = Path(spec["root"])

    def call() -> Any:
        try:
            return detect_format(root)
        except RecordingProblem as problem:  # a refusal is an answer too, and is timed like one
            return problem
        except Exception as error:  # so is a crash: worth seeing in the table, not a reason to stop
            return error

    answer = call()
    first_s = time.perf_counter() - start
    warm_s = []
    for _ in range(int(spec["repeats"])):
        started = time.perf_counter()
        call()
        warm_s.append(time.perf_counter() - started)
    return {
        "outcome": _describe(answer, root),
        "first_s": first_s,
        "warm_s": warm_s,
        "neuroconv_imported": "neuroconv" in sys.modules,
    }


def _describe(answer: Any, root: Path) -> str:
    """What detection answered, in a few words: the format and streams, or why it refused."""
    from conversions.nwb.detection import SUPPORTED_FORMATS, Detection, list_upload_files
    from conversions.nwb.errors import RecordingProblem

    if isinstance(answer, Detection):
        streams = ", ".join(stream.id for stream in answer.streams)
        if len(streams) > _MAX_STREAM_TEXT:
            streams = f"{len(answer.streams)} streams"
        return f"{answer.format_label}: {streams}"
    if isinstance(answer, RecordingProblem):
        files = list_upload_files(root)
        if not any(supported.claims(files) for supported in SUPPORTED_FORMATS.values()):
            return "not supported"
        return f"refused: {_shorten(answer.user_message)}"
    return f"error: {type(answer).__name__}: {_shorten(str(answer))}"


def real_uploads(real_data: Path, *, copies: Path) -> list[Upload]:
    """Every recording under `real_data`, as the upload the portal would receive.

    MANIFEST.md's first column names each recording (a folder, a file, or a glob of files that
    are one recording each); files found outside those entries are added folder by folder, so a
    recording added without a manifest line is still measured. A single-file recording is copied
    into a folder of its own, as an upload is stored.
    """
    listed: list[Path] = []
    manifest = real_data / "MANIFEST.md"
    if manifest.is_file():
        for entry in re.findall(r"^\|\s*`([^`]+)`", manifest.read_text(encoding="utf-8"), flags=re.MULTILINE):
            if entry.split("/")[0] != SKIPPED_FOLDER:
                listed += sorted(real_data.glob(entry.rstrip("/")))
    covered = {file for path in listed for file in ([path] if path.is_file() else path.rglob("*"))}
    for folder in sorted({file.parent for file in _recording_files(real_data) if file not in covered}):
        listed.append(folder)

    uploads = []
    for path in listed:
        label = path.relative_to(real_data).as_posix() + ("/" if path.is_dir() else "")
        if path.is_file():
            root = copies / path.relative_to(real_data).as_posix().replace("/", "__")
            root.mkdir(parents=True)
            shutil.copy2(path, root / path.name)
        else:
            root = path
        uploads.append(Upload("(b)", label, root, folder_bytes(path)))
    return uploads


def biggest_folder(real_data: Path) -> Upload:
    """The folder under `real_data` holding the most bytes, measured as one upload."""
    folders = [
        path
        for path in real_data.rglob("*")
        if path.is_dir() and path.relative_to(real_data).parts[0] != SKIPPED_FOLDER
    ]
    biggest = max(folders, key=folder_bytes)
    label = f"biggest folder: {biggest.relative_to(real_data).as_posix()}/"
    return Upload("(c)", label, biggest, folder_bytes(biggest))


def _recording_files(real_data: Path) -> list[Path]:
    return [
        path
        for path in real_data.rglob("*")
        if path.is_file()
        and path.relative_to(real_data).parts[0] != SKIPPED_FOLDER
        and path.parent != real_data  # MANIFEST.md and other notes at the top
    ]


def _context(generation_s: float, paths: dict[str, Path], args: argparse.Namespace) -> str:
    sizes = ", ".join(
        f"{key.removesuffix('_bin').upper()} {_size(path.stat().st_size)}"
        for key, path in paths.items()
        if key.endswith("_bin")
    )
    return (
        f"detect_format, Python {platform.python_version()}, neuroconv {version('neuroconv')}, "
        f"{_cores()} cores; generated {sizes} in {generation_s:.1f} s; real data: {args.real_data}; "
        f"code: {source_revision()}"
    )


def _cores() -> int:
    return len(os.sched_getaffinity(0))


def _shorten(text: str, length: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= length else text[: length - 1] + "…"


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    if ms >= 100:
        return f"{ms:.0f}"
    if ms >= 10:
        return f"{ms:.1f}"
    return f"{ms:.2f}"


def _size(size_bytes: int) -> str:
    if size_bytes >= 0.1 * GB:
        return f"{size_bytes / GB:.2f} GB"
    if size_bytes >= 1e6:
        return f"{size_bytes / 1e6:.1f} MB"
    return f"{size_bytes / 1e3:.0f} kB"


if __name__ == "__main__":
    main()

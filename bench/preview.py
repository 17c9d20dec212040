"""How long a preview takes: the stub conversion (first 2 s of each stream) and the description of
the file it gives, on a generated Neuropixels AP+LF recording of --size-gb, each run in a fresh
process (imports excluded from the times, reported apart). Checks nothing: read the figures.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from harness import (
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

_CHILD_OPTION = "--child"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="size of the generated AP .bin (default 1.0)")
    parser.add_argument("--runs", type=int, default=3, help="previews measured (default 3)")
    parser.add_argument("--keep", action="store_true", help="keep the generated files")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child)
        return

    with work_folder("preview", keep=args.keep) as folder:
        upload = folder / "upload"
        paths, generation_s = generate_spikeglx(upload, size_gb=args.size_gb, with_lf=True)
        read_into_page_cache([path for path in paths.values() if path.suffix == ".bin"])
        rows, results = [], []
        for run in range(1, args.runs + 1):
            output = folder / f"preview-{run}.nwb"
            result = run_child(Path(__file__), _CHILD_OPTION, {"upload": str(upload), "output": str(output)})
            results.append(result)
            rows.append(
                [
                    str(run),
                    f"{result['imports_s']:.2f}",
                    f"{result['stub_s']:.2f}",
                    f"{result['describe_s'] * 1000:.0f}",
                    f"{result['peak_rss_mb']:.0f}",
                    f"{result['output_mb']:.1f}",
                ]
            )
        source_mb = sum(path.stat().st_size for path in paths.values()) / MB
        print(
            f"preview of a generated SpikeGLX AP+LF upload of {source_mb:,.0f} MB (generated in {generation_s:.1f} s); "
            f"Python {sys.version.split()[0]}; code: {source_revision()}\n"
        )
        headers = ["run", "imports (s)", "stub conversion (s)", "describe (ms)", "peak RSS (MB)", "file (MB)"]
        print(format_table(headers, rows, right=range(6)))
        print(
            f"\nmedian: stub conversion {median([r['stub_s'] for r in results]):.2f} s, "
            f"description {median([r['describe_s'] for r in results]) * 1000:.0f} ms; "
            f"series in the preview: {results[-1]['series']}"
        )
        print(
            "imports: the project's modules only; stub conversion: convert_recording(stub=True) on both streams, "
            "after detection, including neuroconv's lazy import (a worker has it imported already)."
        )


def _child(spec_json: str) -> None:
    import json

    spec = json.loads(spec_json)
    started = time.perf_counter()
    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import detect_format
    from conversions.nwb.preview import describe_nwb

    imports_s = time.perf_counter() - started
    upload, output = Path(spec["upload"]), Path(spec["output"])
    detection = detect_format(upload)
    started = time.perf_counter()
    convert_recording(
        source_root=upload,
        detection=detection,
        stream_ids=detection.default_streams,
        metadata={"subject_id": "bench", "species": "Mus musculus", "sex": "U", "age": "P90D"},
        timezone="UTC",
        output_path=output,
        stub=True,
    )
    stub_s = time.perf_counter() - started
    started = time.perf_counter()
    summary = describe_nwb(output)
    describe_s = time.perf_counter() - started
    series = "; ".join(f"{s['path']} {s['shape']}" for s in summary["acquisition"])
    report_to_parent(
        {
            "imports_s": imports_s,
            "stub_s": stub_s,
            "describe_s": describe_s,
            "peak_rss_mb": peak_rss_bytes() / 1024 / 1024,
            "output_mb": output.stat().st_size / MB,
            "series": series,
        }
    )


if __name__ == "__main__":
    main()

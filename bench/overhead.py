"""The portal's own time around a conversion: from "approve" to the validation's answer reaching the
page, against the conversion alone, on a generated SpikeGLX AP recording.

One child process with the portal's settings runs `--pairs` pairs, alternating which comes first:

- `alone`: `convert_recording(...)` called directly, with the arguments the conversion job passes it
  (the session's detection, streams, metadata and time zone), writing to a file of its own;
- `portal`: a user approves the plan (`sessions.perform_action(action="approve")`) and the clock
  stops when the status event that ends the step (waiting for the user, or completed) reaches a
  listener on the session's channel group, as it reaches an open page. In between: the approve
  turn, the queue, the conversion job (claim, the same conversion, progress rows and notifications,
  cancel checks), validation (nwbinspector and DANDI's validator, issues stored), the orchestrator's
  steps and messages.

Each pair gets a new session whose files are links to the recording; its set-up (detection through
the portal's worker, the metadata message that leads to the plan) is off the clock, and so is a
detection in the child before the first pair, as in a worker that has detected the recording before
converting it. Before each run the output of the run before is deleted, what is unwritten is written
out (`sync`) and the source is read into the page cache: on a virtual machine, writing into memory
the kernel has just freed is much faster than into memory never used, and the order within a pair
must not decide the figure. The overhead is the median of the pairs' differences (portal − alone),
given as a share of the median conversion alone; pairing in one process keeps the machine's drift
and each process's warm-up out of the difference. Where the time goes comes from the attempt's own
timestamps (started, finished, validation started, validated), medians over the pairs.

Embedded mode (no DATABASE_URL/REDIS_URL): a fresh SQLite database and the embedded worker thread in
the child, as `make run` serves. Production mode (both set): that database (create one of its own,
e.g. `nwbportal_bench`), Redis, and one `celery worker` the script starts on a queue of its own; the
bench's user, lab and sessions are deleted at the end.

    .venv/bin/python bench/overhead.py [--size-gb 1.0] [--pairs 7] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from harness import (
    GB,
    MB,
    forget_queue,
    format_table,
    generate_spikeglx,
    median,
    peak_rss_bytes,
    portal_environment,
    read_into_page_cache,
    report_to_parent,
    run_child,
    running,
    session_at_the_plan,
    work_folder,
)

TIMEZONE = "UTC"
PHASES = {
    "to_start": "approve to the job's start (the approve turn, the queue)",
    "converting": "the conversion job (claim, conversion, progress, bookkeeping)",
    "to_validation": "conversion recorded to validation started",
    "validating": "validation (nwbinspector, DANDI's validator, issues stored)",
    "to_answer": "the orchestrator's answer reaching the page",
}
_CHILD_OPTION = "--pairs-child"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="SpikeGLX AP .bin size (default 1.0)")
    parser.add_argument("--pairs", type=int, default=7, help="pairs of runs (default 7)")
    parser.add_argument("--keep", action="store_true", help="keep the generated data and outputs under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.pairs_child:
        report_to_parent(run_pairs(json.loads(args.pairs_child)))
        return
    production = bool(os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL"))
    if production and not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("Set both DATABASE_URL and REDIS_URL (production mode), or neither (embedded mode).")

    from dialogues import code_revision

    print(
        f"Python {platform.python_version()}, {len(os.sched_getaffinity(0))} cores, "
        f"load average {os.getloadavg()[0]:.1f}; code: {code_revision('conversions', 'nwbportal')}"
    )
    with work_folder("overhead", keep=args.keep) as work:
        os.environ.update(portal_environment(work, production=production))
        recording = work / "spikeglx"
        paths, generation_s = generate_spikeglx(recording, size_gb=args.size_gb, with_lf=False)
        data_bytes = paths["ap_bin"].stat().st_size
        print(f"SpikeGLX imec0.ap, {data_bytes / GB:.2f} GB generated in {generation_s:.1f} s\n")
        with celery_worker(work) if production else nullcontext():
            result = run_child(
                Path(__file__),
                _CHILD_OPTION,
                {
                    "root": str(recording),
                    "pairs": args.pairs,
                    "work": str(work),
                    "sources": [str(path) for path in paths.values()],
                },
            )
        report(result, data_bytes)
        from conversion import compare_electrical_series

        identical, detail = compare_electrical_series(work / "portal.nwb", work / "alone.nwb")
        print(f"\nthe portal's file and the one converted alone: samples identical: {'yes' if identical else 'NO'}")
        if not identical:
            print(f"  {detail}")


@contextmanager
def celery_worker(work: Path) -> Iterator[None]:
    """One `celery worker`, as `make worker` runs it, on the bench's queue; its log is worker.log."""
    queue = os.environ["CELERY_QUEUE"]
    command = [sys.executable, "-m", "celery", "-A", "nwbportal", "worker", "--loglevel", "WARNING"]
    command += ["--hostname", f"{queue}@%h", "--without-gossip", "--without-mingle"]
    try:
        with running(command, work / "worker.log"):
            yield
    finally:
        forget_queue(os.environ["REDIS_URL"], queue)


def report(result: dict[str, Any], data_bytes: int) -> None:
    pairs = result["pairs"]
    rows = [
        [
            str(number),
            pair["first"],
            f"{pair['alone_s']:.2f}",
            f"{pair['portal_s']:.2f}",
            f"{(pair['portal_s'] - pair['alone_s']) * 1000:.0f}",
            pair["status"],
        ]
        for number, pair in enumerate(pairs, start=1)
    ]
    print(f"mode: {result['mode']}")
    print(
        format_table(
            ["pair", "first", "alone (s)", "portal (s)", "portal − alone (ms)", "answer"], rows, right=(0, 2, 3, 4)
        )
    )
    alone_s = median([pair["alone_s"] for pair in pairs])
    portal_s = median([pair["portal_s"] for pair in pairs])
    overhead_s = median([pair["portal_s"] - pair["alone_s"] for pair in pairs])
    print(
        f"\nmedians of {len(pairs)}: conversion alone {alone_s:.2f} s ({data_bytes / MB / alone_s:.0f} MB/s), "
        f"approve to answer {portal_s:.2f} s"
    )
    print(f"overhead (median of the differences): {overhead_s * 1000:.0f} ms = {100 * overhead_s / alone_s:.1f} %")
    peak_mb = result["peak_rss_bytes"] / MB
    print(f"peak RSS of the child (the portal, with its worker in the embedded mode): {peak_mb:.0f} MB\n")
    phases = [[label, f"{median([pair['phases'][key] for pair in pairs]) * 1000:.0f}"] for key, label in PHASES.items()]
    print(format_table(["where the portal's time goes (median)", "ms"], phases, right=(1,)))


def run_pairs(spec: dict[str, Any]) -> dict[str, Any]:
    """Child side: the portal set up in this process, then the pairs."""
    import uuid

    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from conversions.models import ConversionSession, Lab, Membership
    from conversions.nwb.detection import detect_format

    call_command("migrate", interactive=False, verbosity=0)
    if settings.EMBEDDED:
        from nwbportal.embedded import start_embedded_worker

        start_embedded_worker(concurrency=settings.EMBEDDED_WORKER_CONCURRENCY)
    root, work = Path(spec["root"]).resolve(), Path(spec["work"])
    sources = [Path(path) for path in spec["sources"]]
    detect_format(root)  # the readers' first use, off the clock (a worker has detected before converting)
    name = f"bench-{uuid.uuid4().hex[:8]}"
    user = get_user_model().objects.create(username=name)
    lab = Lab.objects.create(name=name, timezone=TIMEZONE)
    Membership.objects.create(user=user, lab=lab, role=Membership.Role.MEMBER)
    pairs = []
    previous: Path | None = None
    try:
        for number in range(spec["pairs"]):
            session = session_at_the_plan(user, root)
            first = "alone" if number % 2 == 0 else "portal"
            timings: dict[str, Any] = {"first": first}
            last = number == spec["pairs"] - 1
            for which in (first, "portal" if first == "alone" else "alone"):
                # Each run first frees the memory of the run before (its output's cached pages):
                # writing into memory just freed is much cheaper on a virtual machine than into
                # memory never touched, and the order within a pair must not decide the figure.
                # The last pair's two files are kept, to compare their samples.
                if previous is not None and not (last and which != first):
                    previous.unlink(missing_ok=True)
                read_into_page_cache(sources)
                time.sleep(1.0)  # let the disk settle after writing out the run before
                output = work / f"{which}.nwb"
                if which == "alone":
                    timings["alone_s"] = _convert_alone(session, output)
                else:
                    timings.update(_approve_and_wait(session, user, output))
                previous = output
            pairs.append(timings)
    finally:
        ConversionSession.objects.filter(owner=user).delete()
        user.delete()
        lab.delete()
    return {
        "pairs": pairs,
        "mode": _mode(settings),
        "peak_rss_bytes": peak_rss_bytes(),
    }


def _convert_alone(session: Any, output: Path) -> float:
    """The conversion the job would run for this session, called directly."""
    from conversions.nwb.conversion import convert_recording
    from conversions.nwb.detection import Detection

    detection = Detection.from_json(session.detection or {})
    output.unlink(missing_ok=True)
    started = time.perf_counter()
    convert_recording(
        source_root=session.source_directory,
        detection=detection,
        stream_ids=detection.default_streams,
        metadata={row.name: row.value for row in session.metadata_fields.all()},
        timezone=session.timezone,
        output_path=output,
    )
    return time.perf_counter() - started


def _approve_and_wait(session: Any, user: Any, output: Path) -> dict[str, Any]:
    import asyncio

    from channels.layers import get_channel_layer

    from conversions.models import ConversionAttempt
    from conversions.realtime import notify
    from conversions.services import sessions

    async def approve() -> tuple[float, float, str]:
        layer = get_channel_layer()
        channel = await layer.new_channel()
        await layer.group_add(notify.group_name(session.id), channel)
        started_wall, started = time.time(), time.perf_counter()
        await asyncio.to_thread(sessions.perform_action, session=session, user=user, action="approve")
        while True:
            event = (await asyncio.wait_for(layer.receive(channel), timeout=600))["event"]
            if event["type"] == "status" and event["status"] not in ("converting", "validating"):
                return started_wall, time.perf_counter() - started, str(event["status"])

    started_wall, portal_s, status = asyncio.run(approve())
    attempt = ConversionAttempt.objects.get(session=session)
    if attempt.state != ConversionAttempt.State.SUCCEEDED:
        raise SystemExit(f"the job ended {attempt.state}: {attempt.error_message}\n{attempt.error_detail[-3000:]}")
    assert attempt.started_at and attempt.finished_at and attempt.validation_started_at and attempt.validated_at
    phases = {
        "to_start": attempt.started_at.timestamp() - started_wall,
        "converting": (attempt.finished_at - attempt.started_at).total_seconds(),
        "to_validation": (attempt.validation_started_at - attempt.finished_at).total_seconds(),
        "validating": (attempt.validated_at - attempt.validation_started_at).total_seconds(),
        "to_answer": started_wall + portal_s - attempt.validated_at.timestamp(),
    }
    Path(attempt.output_path).replace(output)
    return {"portal_s": portal_s, "phases": phases, "status": status}


def _mode(settings: Any) -> str:
    if settings.EMBEDDED:
        return "embedded (SQLite, the worker thread and channel layer in this process)"
    return "production (PostgreSQL, Redis, one celery worker process)"


if __name__ == "__main__":
    main()

"""How soon a conversion whose worker is lost runs again, with the settings as they ship.

Production mode only (DATABASE_URL and REDIS_URL set): two Celery workers (one process each, as
`make worker` runs them) and beat on a queue of the benchmark's own. A session at the plan (a
generated SpikeGLX recording linked in) is approved; once its conversion reports progress, the
benchmark takes its worker away in one of two ways, alternating:

- `machine`: the whole worker (its process group) is SIGKILLed, as a machine that vanishes. Nothing
  can tell the broker; the job's heartbeat stops and beat's recovery must notice it
  (JOB_STALL_SECONDS, RECOVERY_INTERVAL_SECONDS) and hand the job to the other worker.
- `child`: only the pool's child running the job is SIGKILLed, as the kernel's OOM killer does.
  Celery gives the message back to the broker at once and the redelivered job takes over its own
  lost run.

Each run reports the seconds from the loss to the conversion running again (on whichever worker),
and to its end; the target is the issue's "resumes within 60 s". It checks nothing: read the figures.
"""

from __future__ import annotations

import argparse
import os
import platform
import signal
import statistics
import sys
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from harness import (
    forget_queue,
    generate_spikeglx,
    portal_environment,
    running,
    session_at_the_plan,
    wait_until,
    work_folder,
)

TARGET_S = 60.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=1.0, help="SpikeGLX AP .bin size (default 1.0)")
    parser.add_argument("--runs", type=int, default=4, help="runs, alternating machine and child (default 4)")
    parser.add_argument("--keep", action="store_true", help="keep the folder under bench/out/")
    args = parser.parse_args()
    if not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("Set DATABASE_URL and REDIS_URL: recovery from a lost worker is the production mode's.")

    from dialogues import code_revision

    with work_folder("recovery", keep=args.keep) as work:
        os.environ.update(portal_environment(work, production=True))
        import django

        django.setup()
        from django.conf import settings
        from django.core.management import call_command

        call_command("migrate", interactive=False, verbosity=0)
        print(
            f"Python {platform.python_version()}, {len(os.sched_getaffinity(0))} cores, load average "
            f"{os.getloadavg()[0]:.1f}; code: {code_revision('conversions', 'nwbportal')}\n"
            f"settings: heartbeat every {settings.JOB_HEARTBEAT_SECONDS:g} s, a job silent for "
            f"{settings.JOB_STALL_SECONDS} s is lost, recovery every {settings.RECOVERY_INTERVAL_SECONDS:g} s"
        )
        paths, _ = generate_spikeglx(work / "spikeglx", size_gb=args.size_gb, with_lf=False)
        print(f"recording: SpikeGLX imec0.ap, {paths['ap_bin'].stat().st_size / 1e9:.2f} GB\n")
        queue = os.environ["CELERY_QUEUE"]
        rows = []
        try:
            with ExitStack() as processes:
                workers = {
                    name: processes.enter_context(running(_worker(queue, name), work / f"worker-{name}.log"))
                    for name in ("a", "b")
                }
                processes.enter_context(running(_beat(work), work / "beat.log"))
                for number in range(args.runs):
                    how = "machine" if number % 2 == 0 else "child"
                    rows.append(_one_run(work / "spikeglx", how, workers, processes, work, queue))
                    print(_line(rows[-1]), flush=True)
        finally:
            forget_queue(os.environ["REDIS_URL"], queue)
        _summary(rows)


def _worker(queue: str, name: str) -> list[str]:
    command = [sys.executable, "-m", "celery", "-A", "nwbportal", "worker", "--loglevel", "INFO", "-c", "1"]
    return [*command, "--hostname", f"{queue}-{name}@%h", "--without-gossip", "--without-mingle"]


def _beat(work: Path) -> list[str]:
    schedule = str(work / "beat-schedule")
    return [sys.executable, "-m", "celery", "-A", "nwbportal", "beat", "--loglevel", "INFO", "--schedule", schedule]


def _one_run(
    root: Path, how: str, workers: dict[str, Any], processes: ExitStack, work: Path, queue: str
) -> dict[str, Any]:
    import psutil

    from conversions.models import ConversionAttempt
    from conversions.services import sessions

    user, session = _session_at_the_plan(root)
    sessions.perform_action(session=session, user=user, action="approve")
    attempt = wait_until(
        lambda: ConversionAttempt.objects.filter(session=session, state="running", progress__gt=0).first(),
        300,
        "the conversion to be under way",
    )
    holder = "a" if f"{queue}-a@" in attempt.worker else "b"
    process = workers[holder]
    lost_at = time.monotonic()
    if how == "machine":
        os.killpg(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    else:
        (child,) = psutil.Process(process.pid).children()
        child.kill()
    wait_until(
        lambda: ConversionAttempt.objects.filter(
            id=attempt.id, state="running", deliveries__gt=attempt.deliveries
        ).exists(),
        600,
        "the conversion to run again",
    )
    resumed_s = time.monotonic() - lost_at
    done = wait_until(
        lambda: ConversionAttempt.objects.filter(id=attempt.id, state__in=["succeeded", "failed"]).first(),
        900,
        "the conversion to end",
    )
    ended_s = time.monotonic() - lost_at
    told = [m.text for m in session.messages.filter(role="assistant").order_by("id")]
    said = next((text for text in told if text.startswith("The conversion was interrupted")), "(nothing)")
    if how == "machine":
        # The vanished worker comes back, as `make worker` restarts one, for the next run.
        log = work / f"worker-{holder}-{time.monotonic_ns()}.log"
        workers[holder] = processes.enter_context(running(_worker(queue, holder), log))
    return {"how": how, "resumed_s": resumed_s, "ended_s": ended_s, "state": done.state, "said": said[:160]}


def _session_at_the_plan(root: Path) -> tuple[Any, Any]:
    import uuid

    from django.contrib.auth import get_user_model

    from conversions.models import Lab, Membership

    name = f"bench-recovery-{uuid.uuid4().hex[:8]}"
    user = get_user_model().objects.create(username=name)
    lab = Lab.objects.create(name=name)
    Membership.objects.create(user=user, lab=lab, role=Membership.Role.MEMBER)
    return user, session_at_the_plan(user, root)


def _line(row: dict[str, Any]) -> str:
    return (
        f"{row['how']:<8} running again {row['resumed_s']:5.1f} s after the loss, {row['state']} "
        f"{row['ended_s']:5.1f} s after it; the user read: “{row['said']}”"
    )


def _summary(rows: list[dict[str, Any]]) -> None:
    print()
    for how in ("machine", "child"):
        times = [r["resumed_s"] for r in rows if r["how"] == how]
        if times:
            verdict = "within" if max(times) <= TARGET_S else "OVER"
            print(
                f"{how}: running again after {statistics.median(times):.1f} s (median of {len(times)}, "
                f"worst {max(times):.1f} s) against a target of {TARGET_S:g} s: {verdict}."
            )


if __name__ == "__main__":
    main()

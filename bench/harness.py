"""What the benchmark scripts share: where the project is, a generated SpikeGLX recording of a
given size, one measurement per fresh child process, and plain-text tables.

Only the standard library is imported here, so a child process that times its own imports starts
from a clean slate.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
BENCH_OUT = REPO_ROOT / "bench" / "out"
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))  # `conversions.nwb` is imported from the checkout, not installed

# Neuropixels 1.0 AP stream as synthetic.write_spikeglx writes it: 384 channels + SYNC, int16, 30 kHz.
AP_CHANNELS_SAVED = 385
AP_RATE_HZ = 30000.0
BYTES_PER_SAMPLE = 2
# Sizes are decimal (1 GB = 1e9 bytes, 1 MB = 1e6 bytes), as in FIELD-NOTES' speed table.
GB = 1e9
MB = 1e6

# The child's result is the one stdout line starting with this; neuroconv and tqdm may print too.
_RESULT_PREFIX = "BENCH-RESULT "


def ap_duration_for(size_gb: float) -> float:
    """Seconds of AP recording whose .bin holds `size_gb` GB."""
    return size_gb * GB / (AP_CHANNELS_SAVED * BYTES_PER_SAMPLE * AP_RATE_HZ)


def generate_spikeglx(folder: Path, *, size_gb: float, with_lf: bool) -> tuple[dict[str, Path], float]:
    """Write a valid SpikeGLX recording whose AP .bin is `size_gb` GB; returns its paths and the
    seconds it took. The run folder sits inside `folder`, which is the upload root."""
    from conversions.nwb.synthetic import write_spikeglx

    start = time.perf_counter()
    paths = write_spikeglx(folder, run="bench", duration_s=ap_duration_for(size_gb), with_lf=with_lf, seed=0)
    return paths, time.perf_counter() - start


def read_into_page_cache(paths: Sequence[Path]) -> None:
    """Read every byte once so a measurement that follows reads from memory, not from disk; and
    first write out what earlier runs left unwritten (their outputs, hundreds of MB), so that the
    kernel does not write it back during this measurement."""
    os.sync()
    for path in paths:
        with path.open("rb", buffering=0) as handle:
            while handle.read(16 * 1024 * 1024):
                pass


def folder_bytes(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(entry.stat().st_size for entry in path.rglob("*") if entry.is_file())


@contextmanager
def work_folder(prefix: str, *, keep: bool) -> Iterator[Path]:
    """A fresh folder under bench/out/ (gitignored), removed at the end unless `keep`."""
    BENCH_OUT.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=f"{prefix}-", dir=BENCH_OUT))
    try:
        yield folder
    finally:
        if keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


def run_child(script: Path, option: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Run `script option <spec as JSON>` in a fresh interpreter and return the JSON it reports
    with `report_to_parent`. A child that fails stops the benchmark with its stderr."""
    completed = subprocess.run(
        [sys.executable, str(script), option, json.dumps(spec)],
        capture_output=True,
        text=True,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        check=False,
    )
    lines = [line for line in completed.stdout.splitlines() if line.startswith(_RESULT_PREFIX)]
    if completed.returncode != 0 or not lines:
        raise SystemExit(f"child {option} {spec} failed (exit {completed.returncode}):\n{completed.stderr[-4000:]}")
    result: dict[str, Any] = json.loads(lines[-1].removeprefix(_RESULT_PREFIX))
    return result


def report_to_parent(result: dict[str, Any]) -> None:
    print(_RESULT_PREFIX + json.dumps(result), flush=True)


def source_revision() -> str:
    """The commit measured, and whether the NWB layer had uncommitted changes: figures from two
    runs are only comparable when this matches."""

    def git(*arguments: str) -> str:
        completed = subprocess.run(["git", *arguments], capture_output=True, text=True, cwd=REPO_ROOT, check=False)
        return completed.stdout.strip() if completed.returncode == 0 else ""

    commit = git("rev-parse", "--short", "HEAD") or "unknown commit"
    changed = git("status", "--porcelain", "--", "conversions/nwb")
    return f"{commit} + uncommitted changes in conversions/nwb" if changed else commit


def peak_rss_bytes() -> int:
    """This process's peak resident memory since it started its program (VmHWM). Not ru_maxrss: Linux
    carries the parent's resident size at fork into the child's ru_maxrss, so a child of a parent
    that just compared two 500 MB files would report at least that much."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024  # kB
    raise SystemExit("VmHWM missing from /proc/self/status: peak memory cannot be measured here")


def portal_environment(folder: Path, *, production: bool) -> dict[str, str]:
    """The portal's settings for a benchmark in `folder`: the embedded mode (a fresh SQLite database
    there) or, with `production`, the database and Redis of the environment and a Celery queue of the
    benchmark's own. What the server, the worker and the children run with."""
    env = {
        "DJANGO_SETTINGS_MODULE": "nwbportal.settings",
        "DATA_ROOT": str(folder / "data"),
        "LOG_LEVEL": "WARNING",
        "DEBUG": "false",
        # Rules only: no message may leave for the language model during a measurement.
        "ANTHROPIC_API_KEY": "",
        # The server listens on 127.0.0.1 only, and the script calls it by that name.
        "ALLOWED_HOSTS": "127.0.0.1",
    }
    if production:
        env["SECRET_KEY"] = os.environ.get("SECRET_KEY") or secrets.token_urlsafe(50)
        # The benchmark's server speaks plain HTTP on loopback, where production would redirect to HTTPS.
        env["SECURE_SSL_REDIRECT"] = "false"
        # A queue of its own, so a portal sharing the Redis never takes the benchmark's jobs.
        env["CELERY_QUEUE"] = f"nwbportal-bench-{os.getpid()}"
    else:
        env["SQLITE_PATH"] = str(folder / "portal.sqlite3")
    return env


@contextmanager
def running(command: Sequence[str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """Run `command` from the project root until the block ends; its output goes to `log_path`."""
    with log_path.open("wb") as log:
        process = subprocess.Popen(
            list(command), cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
        )
        try:
            yield process
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)  # its own process group: it and its children
                    process.wait()


def forget_queue(redis_url: str, queue: str) -> None:
    """Delete a benchmark's Celery queue from Redis, with the bindings kombu's Redis transport keeps."""
    import redis

    redis.Redis.from_url(redis_url).delete(queue, f"_kombu.binding.{queue}", f"_kombu.binding_permanent.{queue}")


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def format_table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[int] = ()) -> str:
    """A plain-text table; columns whose index is in `right` are right-aligned (numbers)."""
    widths = [max(len(str(row[i])) for row in [headers, *rows]) for i in range(len(headers))]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(
            str(cell).rjust(width) if i in right else str(cell).ljust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ).rstrip()

    rule = "  ".join("-" * width for width in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])


# --- a session at the plan, for the benchmarks that run the whole portal (Django set up) ---------

# One message that gives everything the plan needs, in a user's own words (the rules read it).
METADATA_MESSAGE = (
    "Dr. Jane Smith, MIT, Neuropixels recording of V1 neurons during passive viewing, "
    "subject mouse001, Mus musculus, male, P90D"
)


def session_at_the_plan(user: Any, root: Path, *, timeout_s: float = 300.0) -> Any:
    """A new session of `user` whose files link to the recording under `root` (nothing is copied),
    detected by a worker, with METADATA_MESSAGE given: it waits for the plan's approval."""
    from conversions.models import ConversionSession
    from conversions.services import sessions

    session = sessions.create_session(user=user)
    files = sorted(path.relative_to(root) for path in root.rglob("*") if path.is_file())
    for relative in files:
        link = session.source_directory / relative
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(root / relative)
    sessions.register_placed_files(
        session=session, user=user, relative_paths=[path.as_posix() for path in files], how="benchmark"
    )
    session = wait_until(
        lambda: ConversionSession.objects.exclude(status="detecting_format").filter(id=session.id).first(),
        timeout_s,
        f"session {session.id} to be detected",
    )
    turn = sessions.post_message(session=session, user=user, text=METADATA_MESSAGE)
    if turn.session.awaiting != "approval":
        raise SystemExit(f"no plan after the metadata message: {turn.replies[-1].text if turn.replies else ''}")
    return turn.session


def wait_until(found: Any, timeout_s: float, what: str) -> Any:
    """Poll `found()` until it gives something, and return that; stop the benchmark past `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        time.sleep(0.05)
    raise SystemExit(f"gave up waiting for {what} after {timeout_s:.0f} s")

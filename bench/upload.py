"""A large recording uploaded in pieces through the real server: the web process's memory, the
throughput, and how soon the portal asks its first question once the last byte is in.

The script generates a valid SpikeGLX AP recording (.bin + .meta, `--size-gb`, 2 by default),
serves the portal as `make run` does (uvicorn, embedded mode: a temporary SQLite database and
DATA_ROOT under bench/out/, the worker thread inside the server, the demo account), then sends the
recording with the resumable upload API (declare, then PUT pieces of `--piece-mb` at the offset
the server reached) over one kept-alive connection. Meanwhile it samples the server process's RSS.
It prints the peak RSS above the baseline measured just before the upload, the throughput, and the
time from the last byte sent to the first assistant message after detection. Checks nothing.

    .venv/bin/python bench/upload.py [--size-gb 2.0] [--piece-mb 8] [--keep]
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psutil
from chat_load import free_port, portal_environment, running, wait_until_serving
from dialogues import code_revision
from harness import MB, folder_bytes, format_table, generate_spikeglx, report_to_parent, run_child, work_folder

_CHILD_OPTION = "--child"
_SAMPLE_EVERY_S = 0.02


class RssSampler:
    """The RSS of one process, sampled in a thread; `mark()` starts a new phase."""

    def __init__(self, pid: int) -> None:
        self.process = psutil.Process(pid)
        self.phase = "baseline"
        self.samples: dict[str, list[int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def mark(self, phase: str) -> None:
        self.phase = phase

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                rss = self.process.memory_info().rss
            except psutil.Error:
                return
            self.samples.setdefault(self.phase, []).append(rss)
            time.sleep(_SAMPLE_EVERY_S)


class Api:
    """The portal's JSON API over one kept-alive HTTP connection, authenticated by token."""

    def __init__(self, port: int, token: str) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=600)
        self.headers = {"Authorization": f"Token {token}"}

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        payload = None if body is None else json.dumps(body)
        headers = {**self.headers, "Content-Type": "application/json"}
        self.connection.request(method, path, body=payload, headers=headers)
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null")

    def put_piece(self, path: str, piece: bytes) -> tuple[int, Any, float]:
        """Answer status, body, and the moment the piece's last byte was handed to the network."""
        headers = {**self.headers, "Content-Type": "application/octet-stream"}
        self.connection.request("PUT", path, body=piece, headers=headers)
        sent = time.perf_counter()
        response = self.connection.getresponse()
        return response.status, json.loads(response.read() or b"null"), sent


def upload(api: Api, session_id: str, folder: Path, sampler: RssSampler, wanted_piece: int) -> dict[str, Any]:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    relative = {p: p.relative_to(folder).as_posix() for p in files}
    sampler.mark("upload")
    started = time.perf_counter()
    status, declared = api.call(
        "POST",
        f"/api/sessions/{session_id}/uploads",
        {"files": [{"path": relative[p], "size_bytes": p.stat().st_size} for p in files]},
    )
    if status != 201:
        raise SystemExit(f"declaring the files failed ({status}): {declared}")
    # The server's piece size is the largest it accepts; smaller pieces are fine.
    piece_bytes = min(wanted_piece, declared["piece_bytes"])
    pieces, last_byte_at = 0, 0.0
    # The small .meta first, as a browser would send whatever was chosen; the .bin last.
    for path in sorted(files, key=lambda p: p.stat().st_size):
        url = f"/api/sessions/{session_id}/uploads/{quote(relative[path])}"
        offset = 0
        with path.open("rb") as handle:
            while piece := handle.read(piece_bytes):
                status, body, last_byte_at = api.put_piece(f"{url}?offset={offset}", piece)
                if status != 200:
                    raise SystemExit(f"piece at {offset} of {relative[path]} refused ({status}): {body}")
                offset += len(piece)
                pieces += 1
    uploaded_s = time.perf_counter() - started
    sampler.mark("detection")
    return {
        "uploaded_s": uploaded_s,
        "last_byte_at": last_byte_at,
        "pieces": pieces,
        "piece_bytes": piece_bytes,
        "server_piece_bytes": declared["piece_bytes"],
        "detection_started": body["detection_started"],
    }


def first_question(api: Api, session_id: str, last_byte_at: float, timeout_s: float = 600) -> tuple[float, Any]:
    """Seconds from the last byte to the first assistant message after "Received … Looking at …",
    polled every 20 ms, and the session then."""
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        _, session = api.call("GET", f"/api/sessions/{session_id}")
        messages = session["messages"]
        received = [i for i, m in enumerate(messages) if m["text"].startswith("Received")]
        after = [m for m in messages[received[-1] + 1 :] if m["role"] == "assistant"] if received else []
        if after and session["status"] != "detecting_format":
            return time.perf_counter() - last_byte_at, session
        time.sleep(0.02)
    raise SystemExit(f"no question within {timeout_s:.0f} s of the last byte")


def megabytes(n: float) -> str:
    return f"{n / MB:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size-gb", type=float, default=2.0, help="size of the generated AP .bin (default 2.0)")
    parser.add_argument(
        "--piece-mb", type=float, default=8.0, help="piece size in MiB, at most the server's (default 8, the page's)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the folder under bench/out/")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child()
        return
    if os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL"):
        raise SystemExit("This benchmark serves the embedded mode only; unset DATABASE_URL and REDIS_URL.")

    with work_folder("upload", keep=args.keep) as folder:
        recording = folder / "recording"
        _, generation_s = generate_spikeglx(recording, size_gb=args.size_gb, with_lf=False)
        total = folder_bytes(recording)
        os.environ.update(portal_environment(folder, production=False))
        token = run_child(Path(__file__), _CHILD_OPTION, {})["token"]
        port = free_port()
        server = [sys.executable, "-m", "uvicorn", "nwbportal.asgi:application", "--host", "127.0.0.1"]
        server += ["--port", str(port), "--no-access-log", "--log-level", "warning"]
        with running(server, folder / "server.log") as process:
            wait_until_serving(f"http://127.0.0.1:{port}", process, folder / "server.log")
            api = Api(port, token)
            status, session = api.call("POST", "/api/sessions", {"title": "upload benchmark"})
            if status != 201:
                raise SystemExit(f"creating the session failed ({status}): {session}")
            with RssSampler(process.pid) as sampler:
                time.sleep(1.0)  # the baseline: a served request behind it, nothing in flight
                result = upload(api, session["id"], recording, sampler, int(args.piece_mb * 2**20))
                to_question_s, final = first_question(api, session["id"], result["last_byte_at"])
                sampler.mark("after")
                time.sleep(0.2)

    report(args, total, generation_s, result, to_question_s, final, sampler.samples)


def report(
    args: argparse.Namespace,
    total: int,
    generation_s: float,
    result: dict[str, Any],
    to_question_s: float,
    final: dict[str, Any],
    samples: dict[str, list[int]],
) -> None:
    cores = len(os.sched_getaffinity(0))
    print(
        f"upload in pieces: {megabytes(total)} MB SpikeGLX AP (.bin + .meta), generated in {generation_s:.1f} s; "
        f"{cores} cores; Python {sys.version.split()[0]}; code: {code_revision('conversions', 'nwbportal')}"
    )
    print(
        f"server: uvicorn, embedded mode, one process on 127.0.0.1; pieces of {result['piece_bytes'] / 2**20:g} MiB "
        f"(the server takes up to {result['server_piece_bytes'] / 2**20:g}) "
        f"({result['pieces']} PUTs over one kept-alive connection)\n"
    )
    baseline = statistics.median(samples["baseline"])
    rows = []
    for phase in ("baseline", "upload", "detection"):
        values = samples.get(phase, [])
        if values:
            rows.append(
                [
                    phase,
                    str(len(values)),
                    megabytes(min(values)),
                    megabytes(max(values)),
                    megabytes(max(values) - baseline),
                ]
            )
    print(
        format_table(
            ["phase", "samples", "min RSS MB", "peak RSS MB", "peak over baseline MB"], rows, right=range(1, 5)
        )
    )
    print(
        f"\nthroughput: {megabytes(total)} MB in {result['uploaded_s']:.1f} s = "
        f"{total / MB / result['uploaded_s']:.0f} MB/s (declaration to the last piece's answer)"
    )
    question = next(m for m in reversed(final["messages"]) if m["role"] == "assistant")
    print(
        f"last byte sent -> first question: {to_question_s:.2f} s "
        f"(detection started by the last piece: {result['detection_started']}; "
        f"format {final['format'] or 'none'}, status {final['status']}/{final['awaiting']})"
    )
    print(f"the question: {question['text'][:160]!r}")


def _child() -> None:
    """What `make run` does before serving (migrate, the demo account), in the server's settings."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from conversions.management.commands.demo_account import USERNAME
    from conversions.models import ApiToken

    call_command("migrate", interactive=False, verbosity=0)
    call_command("demo_account", stdout=open(os.devnull, "w"))  # noqa: SIM115
    report_to_parent({"token": ApiToken.issue(get_user_model().objects.get(username=USERNAME), "bench/upload.py")[1]})


if __name__ == "__main__":
    main()

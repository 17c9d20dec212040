"""Chat turn latency over HTTP: --users scripted users talking to the real server at once.

The script starts the portal itself, as `make run` serves it (uvicorn on a free port): in the
embedded mode with a temporary SQLite database and DATA_ROOT under bench/out/, or in the production
mode when DATABASE_URL and REDIS_URL are set (then with one Celery worker of its own for the
detections). It creates one lab member per user (each in a lab of their own, with an API token).
Each user creates a session, uploads a tiny generated SpikeGLX recording and waits until it is
recognised; then all users post --turns chat messages each, one after the other: metadata answers,
status questions, help, corrections, "not yet", nothing that starts a conversion. Every POST
/api/sessions/{id}/messages round trip is timed. Checks nothing: read the figures.

With --conversions N, N more users keep N real conversions running while the others chat: each has
sessions prepared at the plan (a generated SpikeGLX recording of --conversion-mb, linked into each),
approves one as the chat starts and the next as soon as the last has finished, so that N run at
once through the whole chat phase (the report says for what share of it they did). This is the
"chat while the machine converts" case: the web processes and the workers on the same cores.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import random
import secrets
import socket
import statistics
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from harness import (
    forget_queue,
    format_table,
    portal_environment,
    report_to_parent,
    run_child,
    running,
    session_at_the_plan,
    work_folder,
)

_CHILD_OPTION = "--child"
TARGET_P95_MS = 50.0
# With conversions running on the same machine (issue 13: 30 users, two conversions, 2 cores).
TARGET_P95_WHILE_CONVERTING_MS = 150.0
_CONVERTING = {"converting", "validating"}
# The chat phase's statuses: every session should end waiting for the user, none converting.
_SETTLED = {"awaiting_user_input", "awaiting_approval"}


@dataclass(frozen=True)
class Sample:
    phase: str
    seconds: float
    status: int  # HTTP status, 0 when the request failed before an answer
    size: int
    error: str = ""


def script_for(user: int, turns: int) -> list[tuple[str, str]]:
    """The messages one user sends, as (kind, text). Metadata answers come from the realistic sets
    of tests/language/dialogues.py: answers to the first request, then values given unasked."""
    from tests.language.dialogues import ASKED_FIRST, CORPUS

    first = [text for text, asking, _ in CORPUS if tuple(asking) == ASKED_FIRST]
    unasked = [text for text, asking, _ in CORPUS if not asking]
    steps = [
        ("status", "where are we?"),
        ("metadata", first[user % len(first)]),
        ("help", "what do you need?"),
        ("metadata", unasked[(3 * user) % len(unasked)]),
        ("correction", "actually the institution is Stanford"),
        ("status", "status"),
        ("metadata", unasked[(3 * user + 1) % len(unasked)]),
        ("correction", "no, change the experimenter to Dr. Laura Martin"),
        ("help", "help"),
        ("not yet", "not yet"),
        ("metadata", unasked[(3 * user + 2) % len(unasked)]),
        ("correction", "sorry, the species should be Rattus norvegicus"),
    ]
    return [steps[turn % len(steps)] for turn in range(turns)]


# --- the server and its database -------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def wait_until_serving(base: str, process: subprocess.Popen[bytes], log_path: Path, timeout_s: float = 120) -> float:
    """Seconds until the server answers HTTP (any status)."""
    started = time.perf_counter()
    while time.perf_counter() - started < timeout_s:
        if process.poll() is not None:
            raise SystemExit(f"the server exited ({process.returncode}):\n{log_path.read_text()[-4000:]}")
        try:
            urllib.request.urlopen(f"{base}/api/sessions", timeout=2)
        except urllib.error.HTTPError:
            return time.perf_counter() - started  # 401: it serves
        except OSError:
            time.sleep(0.2)
            continue
        return time.perf_counter() - started
    raise SystemExit(f"the server did not answer within {timeout_s:.0f} s:\n{log_path.read_text()[-4000:]}")


# --- the users --------------------------------------------------------------------------------------


async def create_and_upload(
    http: aiohttp.ClientSession,
    base: str,
    token: str,
    user: int,
    recording: list[tuple[str, bytes]],
    samples: list[Sample],
) -> str | None:
    headers = {"Authorization": f"Token {token}"}
    sample, body = await timed(http.post(f"{base}/api/sessions", json={"title": f"bench {user}"}, headers=headers))
    samples.append(Sample("create session", *sample))
    if sample[1] != 201:
        return None
    session_id = str(json.loads(body)["id"])
    form = aiohttp.FormData()
    for relative_path, content in recording:
        form.add_field("files", content, filename=relative_path.rsplit("/", 1)[-1])
        form.add_field("relative_paths", relative_path)
    sample, _ = await timed(http.post(f"{base}/api/sessions/{session_id}/files", data=form, headers=headers))
    samples.append(Sample("upload", *sample))
    return session_id if sample[1] == 201 else None


async def until_recognised(
    http: aiohttp.ClientSession, base: str, token: str, session_id: str, timeout_s: float
) -> str:
    """The session's status once detection has finished (or 'timeout')."""
    headers = {"Authorization": f"Token {token}"}
    deadline = time.perf_counter() + timeout_s
    while time.perf_counter() < deadline:
        async with http.get(f"{base}/api/sessions/{session_id}", headers=headers) as response:
            status = (await response.json())["status"] if response.status == 200 else f"HTTP {response.status}"
        if status != "detecting_format":
            return str(status)
        await asyncio.sleep(0.5)
    return "timeout"


async def chat(
    http: aiohttp.ClientSession,
    base: str,
    token: str,
    session_id: str,
    script: Sequence[tuple[str, str]],
    pause_s: float,
    samples: list[Sample],
    rng: random.Random,
) -> None:
    """Post the script, each message once the previous reply has arrived. With a pause, the user
    starts at a random moment within the first pause and waits 0.5 to 1.5 pauses after each reply,
    so that the users do not all send at the same instant."""
    headers = {"Authorization": f"Token {token}"}
    url = f"{base}/api/sessions/{session_id}/messages"
    await asyncio.sleep(rng.uniform(0, pause_s))
    for turn, (kind, text) in enumerate(script):
        if turn:
            await asyncio.sleep(rng.uniform(0.5, 1.5) * pause_s)
        (seconds, status, size, error), _ = await timed(http.post(url, json={"text": text}, headers=headers))
        samples.append(Sample(kind, seconds, status, size, f"{text!r} → {error}" if error else ""))


async def timed(request: Any) -> tuple[tuple[float, int, int, str], bytes]:
    """((seconds, HTTP status, body bytes, error), body) of one request, read to its end."""
    started = time.perf_counter()
    try:
        async with request as response:
            body = await response.read()
            status = response.status
    except Exception as exc:
        return (time.perf_counter() - started, 0, 0, f"{type(exc).__name__}: {exc}"), b""
    error = "" if status in (200, 201) else f"HTTP {status}: {body[:300]!r}"
    return (time.perf_counter() - started, status, len(body), error), body


async def keep_converting(
    http: aiohttp.ClientSession,
    base: str,
    token: str,
    sessions: Sequence[str],
    chatting: asyncio.Event,
    done: asyncio.Event,
    intervals: list[tuple[float, float, str]],
) -> None:
    """Approve the prepared sessions one after another, each as soon as the one before has stopped
    converting, until the chat is done; each conversion's (start, end, final status) is recorded."""
    headers = {"Authorization": f"Token {token}"}
    for session_id in sessions:
        if done.is_set():
            return
        async with http.post(
            f"{base}/api/sessions/{session_id}/actions", json={"action": "approve"}, headers=headers
        ) as response:
            if response.status != 200:
                intervals.append((time.perf_counter(), time.perf_counter(), f"approve: HTTP {response.status}"))
                continue
        started, status = time.perf_counter(), "converting"
        while status in _CONVERTING or status == "awaiting_approval":
            async with http.get(f"{base}/api/sessions/{session_id}", headers=headers) as response:
                status = str((await response.json())["status"])
            if status in _CONVERTING:
                chatting.set()
            await asyncio.sleep(0.25)
        intervals.append((started, time.perf_counter(), status))


def converting_share(intervals: Sequence[tuple[float, float, str]], start: float, end: float, wanted: int) -> float:
    """The share of [start, end] during which at least `wanted` conversions were running."""
    edges = sorted({start, end, *(t for a, b, _ in intervals for t in (a, b) if start < t < end)})
    covered = 0.0
    for left, right in itertools.pairwise(edges):
        middle = (left + right) / 2
        if sum(1 for a, b, _ in intervals if a <= middle < b) >= wanted:
            covered += right - left
    return covered / (end - start) if end > start else 0.0


async def load(
    base: str,
    tokens: Sequence[str],
    recording: list[tuple[str, bytes]],
    turns: int,
    pause_s: float,
    converters: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    samples: list[Sample] = []
    intervals: list[tuple[float, float, str]] = []
    timeout = aiohttp.ClientTimeout(total=300)
    async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0), timeout=timeout) as http:
        started = time.perf_counter()
        sessions = await asyncio.gather(
            *(create_and_upload(http, base, token, user, recording, samples) for user, token in enumerate(tokens))
        )
        uploaded_s = time.perf_counter() - started
        ready = [(user, s) for user, s in enumerate(sessions) if s is not None]
        statuses = await asyncio.gather(
            *(until_recognised(http, base, tokens[user], session_id, 600) for user, session_id in ready)
        )
        recognised_s = time.perf_counter() - started - uploaded_s
        chatting = [(user, s) for (user, s), status in zip(ready, statuses, strict=True) if status in _SETTLED]
        samples += [
            Sample("detection", 0.0, 0, 0, f"session {session_id} is {status} after its upload")
            for (_, session_id), status in zip(ready, statuses, strict=True)
            if status not in _SETTLED
        ]
        converting, done = asyncio.Event(), asyncio.Event()
        keepers = [
            asyncio.create_task(keep_converting(http, base, c["token"], c["sessions"], converting, done, intervals))
            for c in converters
        ]
        if keepers:
            await asyncio.wait_for(converting.wait(), timeout=300)
        started, client_cpu = time.perf_counter(), time.process_time()
        await asyncio.gather(
            *(
                chat(
                    http, base, tokens[user], session_id, script_for(user, turns), pause_s, samples, random.Random(user)
                )
                for user, session_id in chatting
            )
        )
        chat_s, client_cpu_s = time.perf_counter() - started, time.process_time() - client_cpu
        chat_end = time.perf_counter()
        done.set()
        await asyncio.gather(*keepers)
        share = converting_share(intervals, started, chat_end, len(converters)) if converters else 0.0
        final = await asyncio.gather(
            *(until_recognised(http, base, tokens[user], session_id, 60) for user, session_id in chatting)
        )
    return {
        "samples": samples,
        "uploaded_s": uploaded_s,
        "recognised_s": recognised_s,
        "after_detection": Counter(statuses),
        "chat_s": chat_s,
        "client_cpu_s": client_cpu_s,
        "final": Counter(final),
        "users_chatting": len(chatting),
        "conversions": [(b - a, status) for a, b, status in intervals],
        "converting_share": share,
        "converters": len(converters),
    }


# --- the report -----------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: int) -> float:
    """The p-th percentile (1..99), interpolated between ranks (statistics.quantiles, inclusive)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def phase_row(label: str, group: Sequence[Sample]) -> list[str]:
    seconds = [s.seconds * 1000 for s in group if not s.error]
    errors = sum(1 for s in group if s.error)
    if not seconds:
        return [label, str(len(group)), str(errors), "-", "-", "-", "-", "-", "-"]
    return [
        label,
        str(len(group)),
        str(errors),
        f"{statistics.median(seconds):.1f}",
        f"{percentile(seconds, 95):.1f}",
        f"{percentile(seconds, 99):.1f}",
        f"{max(seconds):.1f}",
        f"{statistics.mean(seconds):.1f}",
        f"{statistics.mean(s.size for s in group if not s.error) / 1000:.1f}",
    ]


def report(result: dict[str, Any], *, turns: int, pause_s: float) -> None:
    samples: list[Sample] = result["samples"]
    setup_phases = ["create session", "upload", "detection"]
    chat_samples = [s for s in samples if s.phase not in setup_phases]
    kinds = list(dict.fromkeys(s.phase for s in chat_samples))
    rows = [phase_row(phase, [s for s in samples if s.phase == phase]) for phase in setup_phases[:2]]
    rows += [phase_row(f"chat: {kind}", [s for s in chat_samples if s.phase == kind]) for kind in kinds]
    rows.append(phase_row("chat: all messages", chat_samples))
    headers = ["phase", "requests", "errors", "p50 ms", "p95 ms", "p99 ms", "max ms", "mean ms", "mean kB"]
    print(format_table(headers, rows, right=range(1, 9)))

    after = ", ".join(f"{n} {status}" for status, n in result["after_detection"].items())
    final = ", ".join(f"{n} {status}" for status, n in result["final"].items())
    print(f"\nuploads done in {result['uploaded_s']:.1f} s; recognised {result['recognised_s']:.1f} s later ({after}).")
    ok = [s.seconds * 1000 for s in chat_samples if not s.error]
    print(
        f"chat: {result['users_chatting']} users x {turns} messages, mean pause {pause_s:g} s after each reply, "
        f"{len(chat_samples)} messages in {result['chat_s']:.1f} s = {len(chat_samples) / result['chat_s']:.0f}/s "
        f"(the client used {result['client_cpu_s']:.1f} s of CPU meanwhile); sessions afterwards: {final}."
    )
    target = TARGET_P95_WHILE_CONVERTING_MS if result["converters"] else TARGET_P95_MS
    if result["converters"]:
        ran = result["conversions"]
        statuses = Counter(status for _, status in ran)
        print(
            f"conversions: {len(ran)} run by {result['converters']} users during the chat "
            f"({', '.join(f'{n} {s}' for s, n in statuses.items())}; "
            f"median {statistics.median(d for d, _ in ran):.1f} s each); "
            f"{result['converters']} at once for {result['converting_share']:.0%} of the chat phase."
        )
    if ok:
        p95 = percentile(ok, 95)
        verdict = "within" if p95 <= target else "OVER"
        print(f"chat turn p95 {p95:.1f} ms against a target of {target:g} ms: {verdict}.")
    errors = [s for s in samples if s.error]
    print(f"errors: {len(errors)}")
    for sample in errors[:20]:
        print(f"  {sample.phase}: {sample.error}")
    if len(errors) > 20:
        print(f"  … and {len(errors) - 20} more")


# --- main -------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--users", type=int, default=50, help="users talking at once (default 50)")
    parser.add_argument("--turns", type=int, default=12, help="chat messages per user (default 12)")
    parser.add_argument(
        "--pause", type=float, default=0.0, help="mean seconds a user waits after a reply before the next message (0)"
    )
    parser.add_argument(
        "--web-processes",
        type=int,
        default=None,
        help="uvicorn worker processes, production mode only (default: one per core, as `make run` serves)",
    )
    parser.add_argument(
        "--conversions", type=int, default=0, help="conversions kept running during the chat (default 0)"
    )
    parser.add_argument(
        "--conversion-mb", type=int, default=1000, help="size of the recording each conversion converts (1000)"
    )
    parser.add_argument(
        "--prepared", type=int, default=6, help="sessions prepared per converting user, the most it can run (6)"
    )
    parser.add_argument("--keep", action="store_true", help="keep the folder, and in production the bench users")
    parser.add_argument(_CHILD_OPTION, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(json.loads(args.child))
        return

    production = bool(os.environ.get("DATABASE_URL") or os.environ.get("REDIS_URL"))
    if production and not (os.environ.get("DATABASE_URL") and os.environ.get("REDIS_URL")):
        raise SystemExit("Set both DATABASE_URL and REDIS_URL (production mode), or neither (embedded mode).")
    if args.web_processes not in (None, 1) and not production:
        raise SystemExit("The embedded mode runs one process (its worker and channel layer live in it).")
    if args.web_processes is None:
        args.web_processes = len(os.sched_getaffinity(0)) if production else 1
    from dialogues import code_revision

    with work_folder("chat-load", keep=args.keep) as folder:
        os.environ.update(portal_environment(folder, production=production))
        prefix = f"bench-{secrets.token_hex(3)}-"
        started = time.perf_counter()
        accounts = run_child(Path(__file__), _CHILD_OPTION, {"action": "setup", "prefix": prefix, "users": args.users})
        setup_s = time.perf_counter() - started
        try:
            recording = tiny_recording(folder / "recording")
            port = free_port()
            base = f"http://127.0.0.1:{port}"
            server = [sys.executable, "-m", "uvicorn", "nwbportal.asgi:application", "--host", "127.0.0.1"]
            server += ["--port", str(port), "--no-access-log", "--log-level", "warning"]
            if args.web_processes != 1:
                server += ["--workers", str(args.web_processes)]
            worker = [sys.executable, "-m", "celery", "-A", "nwbportal", "worker", "--loglevel", "WARNING"]
            worker += ["--hostname", f"bench-{os.getpid()}@%h", "--without-gossip", "--without-mingle"]
            with (
                running(server, folder / "server.log") as server_process,
                running(worker, folder / "worker.log") if production else nullcontext(),
            ):
                serving_s = wait_until_serving(base, server_process, folder / "server.log")
                converters = []
                if args.conversions:
                    spec = {
                        "action": "prepare",
                        "prefix": prefix,
                        "converters": args.conversions,
                        "prepared": args.prepared,
                        "megabytes": args.conversion_mb,
                        "folder": str(folder / "large-recording"),
                    }
                    converters = run_child(Path(__file__), _CHILD_OPTION, spec)["converters"]
                result = asyncio.run(load(base, accounts["tokens"], recording, args.turns, args.pause, converters))
        finally:
            if production and not args.keep:
                run_child(Path(__file__), _CHILD_OPTION, {"action": "teardown", "prefix": prefix})
            elif production:
                print(f"kept: users, labs and sessions whose names start with {prefix}")

        cores = len(os.sched_getaffinity(0))
        load_1min = os.getloadavg()[0]
        code = code_revision("conversions", "nwbportal")
        print(
            f"chat load: {args.users} users, {args.turns} messages each, on {cores} cores "
            f"(load average at the end {load_1min:.1f}); "
            f"Python {sys.version.split()[0]}; code: {code}"
        )
        print(f"mode: {accounts['mode']}; web: uvicorn, {args.web_processes} process(es) on 127.0.0.1:{port}")
        if args.conversions:
            print(
                f"beside the chat: {args.conversions} conversions at once of a {args.conversion_mb} MB SpikeGLX "
                f"recording each, in the same worker (concurrency: one process per core)"
            )
        print(
            f"set-up (migrate, {args.users} users with a lab and a token each) {setup_s:.1f} s; "
            f"server answering after {serving_s:.1f} s\n"
        )
        report(result, turns=args.turns, pause_s=args.pause)


def tiny_recording(folder: Path) -> list[tuple[str, bytes]]:
    """A valid SpikeGLX AP recording of 16 channels and 0.1 s (~0.1 MB): (relative path, content)."""
    from conversions.nwb.synthetic import write_spikeglx

    paths = write_spikeglx(folder, run="bench", duration_s=0.1, n_channels=16, seed=0)
    return [(path.relative_to(folder).as_posix(), path.read_bytes()) for path in paths.values()]


def _child(spec: dict[str, Any]) -> None:
    """Set-up and teardown in the portal's own settings (the environment the parent prepared)."""
    import django

    django.setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import transaction

    from conversions.models import ApiToken, ConversionSession, Lab, Membership

    prefix = spec["prefix"]
    if spec["action"] == "setup":
        call_command("migrate", interactive=False, verbosity=0)
        tokens = []
        with transaction.atomic():
            for number in range(spec["users"]):
                user = get_user_model()(username=f"{prefix}{number:03d}")
                user.set_unusable_password()
                user.save()
                lab = Lab.objects.create(name=f"{prefix}lab-{number:03d}")
                Membership.objects.create(user=user, lab=lab, role=Membership.Role.MEMBER)
                tokens.append(ApiToken.issue(user, "bench/chat_load.py")[1])
        database = settings.DATABASES["default"]
        if settings.EMBEDDED:
            mode = f"embedded (SQLite {database['NAME']}, in-process worker and channel layer)"
        else:
            redis = urlsplit(settings.REDIS_URL)
            mode = (
                f"production (PostgreSQL {database.get('HOST') or 'local'}:{database.get('PORT') or 5432}/"
                f"{database['NAME']}, Redis {redis.hostname}:{redis.port}{redis.path}, one Celery worker)"
            )
        report_to_parent({"tokens": tokens, "mode": mode})
    elif spec["action"] == "prepare":
        report_to_parent({"converters": _prepare_conversions(spec)})
    else:
        labs = Lab.objects.filter(name__startswith=prefix)
        with transaction.atomic():
            sessions = ConversionSession.objects.filter(lab__in=labs)
            counted = sessions.count()
            sessions.delete()
            get_user_model().objects.filter(username__startswith=prefix).delete()
            labs.delete()
        forget_queue(settings.REDIS_URL, settings.CELERY_TASK_DEFAULT_QUEUE)
        report_to_parent({"sessions_deleted": counted})


def _prepare_conversions(spec: dict[str, Any]) -> list[dict[str, Any]]:
    """Users who each have `prepared` sessions at the plan, every one linking the same generated
    recording (detected by the running worker, the metadata given): approving one starts a
    conversion at once."""
    from django.contrib.auth import get_user_model

    from conversions.models import ApiToken, Lab, Membership
    from conversions.nwb.synthetic import write_spikeglx

    root = Path(spec["folder"])
    channels, rate = 384, 30000.0
    seconds = spec["megabytes"] * 1e6 / ((channels + 1) * 2 * rate)
    write_spikeglx(root, run="large", duration_s=seconds, n_channels=channels, seed=1)
    converters = []
    for number in range(spec["converters"]):
        user = get_user_model().objects.create(username=f"{spec['prefix']}converter-{number}")
        lab = Lab.objects.create(name=f"{spec['prefix']}converting-lab-{number}")
        Membership.objects.create(user=user, lab=lab, role=Membership.Role.MEMBER)
        ready = [str(session_at_the_plan(user, root).id) for _ in range(spec["prepared"])]
        converters.append({"token": ApiToken.issue(user, "bench/chat_load.py")[1], "sessions": ready})
    return converters


if __name__ == "__main__":
    main()

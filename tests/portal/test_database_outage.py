"""A database that goes away in the middle of a conversion and comes back: the whole portal (server,
worker, beat) runs on a PostgreSQL cluster the test starts itself, which it stops at once (as a crash
or a failover looks to the clients) while a conversion runs, then starts again. The conversion ends
as if nothing happened, no process dies, and the API answers again as soon as the database does.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings

from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import wait_for
from tests.portal.processes import BeatProcess, OwnPostgres, WorkerProcess

ROOT = Path(__file__).resolve().parents[2]
# Shorter than the defaults (5 s, 30 s, 10 s), in the same proportions, so that the outage below
# lasts longer than the stall threshold: a job whose heartbeat stopped only because the database
# was away must not be taken for lost.
FAST_RECOVERY = {"JOB_HEARTBEAT_SECONDS": "0.5", "JOB_STALL_SECONDS": "3", "RECOVERY_INTERVAL_SECONDS": "1"}
OUTAGE_SECONDS = 8


@pytest.fixture
def own_postgres(production_services: None) -> Iterator[OwnPostgres]:
    server = OwnPostgres()
    try:
        server.start()
        server.create_database()
        yield server
    finally:
        server.remove()


class Portal:
    """The server's HTTP API as a script uses it, with one member's API key."""

    def __init__(self, port: int, key: str) -> None:
        self.base = f"http://127.0.0.1:{port}"
        self.key = key

    def call(self, path: str, body: dict[str, Any] | None = None, *, files: Path | None = None) -> tuple[int, Any]:
        headers = {"Authorization": f"Token {self.key}"}
        data = None
        if files is not None:
            data, content_type = _multipart(files)
            headers["Content-Type"] = content_type
        elif body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        method = "POST" if data is not None else "GET"
        request = urllib.request.Request(self.base + path, data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return response.status, json.loads(response.read() or b"null")
        except urllib.error.HTTPError as answer:
            return answer.code, answer.read().decode(errors="replace")

    def status(self, session_id: str) -> str:
        code, body = self.call(f"/api/sessions/{session_id}")
        return body["status"] if code == 200 else f"HTTP {code}"


def _multipart(folder: Path) -> tuple[bytes, str]:
    boundary = "nwbportal-test-boundary"
    parts = []
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        relative = path.relative_to(folder.parent).as_posix()
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="files"; filename="{path.name}"\r\n'
            "Content-Type: application/octet-stream\r\n\r\n".encode()
            + path.read_bytes()
            + b"\r\n"
        )
        parts.append(
            f'--{boundary}\r\nContent-Disposition: form-data; name="relative_paths"\r\n\r\n{relative}\r\n'.encode()
        )
    return b"".join(parts) + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


def _manage(env: dict[str, str], *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_a_database_outage_mid_conversion_loses_nothing(own_postgres: OwnPostgres, queue: str, tmp_path: Path) -> None:
    data_root = tmp_path / "data"
    env = {
        **os.environ,
        "DATABASE_URL": own_postgres.url,
        "REDIS_URL": settings.REDIS_URL,
        "SECRET_KEY": settings.SECRET_KEY,
        "DATA_ROOT": str(data_root),
        "CELERY_QUEUE": queue,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "false",
        **FAST_RECOVERY,
    }
    _manage(env, "migrate", "--noinput")
    key = _manage(env, "labuser", "ada", "--lab", "Visual Lab", "--key", "outage test").strip().splitlines()[-1]
    folder = tmp_path / "recording"
    write_spikeglx(folder, run="outage", duration_s=20.0, n_channels=96, seed=3)
    recording = next(p for p in folder.iterdir() if p.is_dir())

    port = _free_port()
    uvicorn = [str(Path(sys.executable).with_name("uvicorn")), "nwbportal.asgi:application"]
    server = subprocess.Popen(
        [*uvicorn, "--host", "127.0.0.1", "--port", str(port), "--timeout-graceful-shutdown", "20"],
        cwd=ROOT,
        env=env,
        stdout=(tmp_path / "uvicorn.log").open("wb"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    own = {"DATABASE_URL": own_postgres.url, **FAST_RECOVERY}
    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log", own)
    beat = BeatProcess(queue, data_root, tmp_path / "beat.log", own)
    portal = Portal(port, key)
    try:
        wait_for(lambda: _answers(portal), timeout=60, what="the server to answer")
        code, session = portal.call("/api/sessions", {})
        assert code == 201, session
        session_id = session["id"]
        assert portal.call(f"/api/sessions/{session_id}/files", files=recording)[0] == 201
        wait_for(lambda: portal.status(session_id) == "awaiting_user_input", timeout=120, what="the detection")
        code, turn = portal.call(
            f"/api/sessions/{session_id}/messages", {"text": "Jane Smith, MIT, V1 recording, mouse001, mouse, F, P60D"}
        )
        assert turn["session"]["awaiting"] == "approval", turn
        assert portal.call(f"/api/sessions/{session_id}/actions", {"action": "approve"})[0] == 200
        wait_for(lambda: portal.status(session_id) == "converting", timeout=120, what="the conversion to start")

        own_postgres.stop()
        stopped = time.monotonic()
        during = portal.call("/api/sessions")
        time.sleep(max(0.0, OUTAGE_SECONDS - (time.monotonic() - stopped)))
        own_postgres.start()
        assert during[0] == 503 and "try again" in during[1], f"the outage said plainly: {during}"

        # Back at once for every request, not after a few failures on dead pooled connections.
        wait_for(lambda: portal.call("/api/sessions")[0] == 200, timeout=30, what="the API to answer again")
        answers_after = [portal.call("/api/sessions")[0] for _ in range(20)]
        assert answers_after == [200] * 20, answers_after

        wait_for(
            lambda: portal.status(session_id) in {"awaiting_user_input", "completed", "failed"},
            timeout=240,
            what="the conversion to end",
        )
        code, body = portal.call(f"/api/sessions/{session_id}")
        assert body["status"] != "failed", body["messages"][-1]["text"]
        attempts = body["attempts"]
        assert [a["state"] for a in attempts] == ["succeeded"], attempts
        assert worker.alive() and beat.alive(), "no process gave up for the outage"
    finally:
        server.terminate()
        server.wait(timeout=60)
        worker.stop()
        beat.stop()


def _answers(portal: Portal) -> bool:
    try:
        return portal.call("/api/sessions")[0] == 200
    except OSError:
        return False


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])

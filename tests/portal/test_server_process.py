"""The web server as the portal's ways of running start it: it stops within its grace period on
SIGTERM, however many websockets are open (uvicorn alone waits for every one of them to close)."""

from __future__ import annotations

import json
import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection
from websockets.sync.client import connect

from tests.conftest import World, wait_for

pytestmark = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parents[2]
GRACE = re.compile(r"--timeout-graceful-shutdown (\d+)")


def _procfile_web() -> str:
    (line,) = [line for line in (ROOT / "Procfile").read_text().splitlines() if line.startswith("web:")]
    return line.removeprefix("web:").strip()


def test_every_way_of_running_bounds_the_web_servers_stop() -> None:
    graces = {
        "Procfile": GRACE.findall(_procfile_web()),
        "Makefile": GRACE.findall((ROOT / "Makefile").read_text()),
        "docker/entrypoint.sh": GRACE.findall((ROOT / "docker/entrypoint.sh").read_text()),
    }
    assert graces["Makefile"] and len(graces["Makefile"]) == 2, "both modes of make run"
    assert all(graces.values()) and len({g for found in graces.values() for g in found}) == 1, graces


def test_the_server_stops_within_its_grace_period_with_websockets_open(
    live_world: World, production_services: None, data_root: Path, tmp_path: Path
) -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    db = connection.settings_dict
    env = {
        **os.environ,
        "DATABASE_URL": f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}",
        "REDIS_URL": settings.REDIS_URL,
        "SECRET_KEY": settings.SECRET_KEY,
        "DATA_ROOT": str(data_root),
        "ALLOWED_HOSTS": "127.0.0.1",
        "SESSION_COOKIE_SECURE": "false",
        "PORT": str(port),
    }
    command = shlex.split(_procfile_web().replace("$PORT", str(port)).replace("0.0.0.0", "127.0.0.1"))
    command[0] = str(Path(sys.executable).with_name(command[0]))  # the virtualenv's, as the PATH of a deployment
    (grace,) = {int(g) for g in GRACE.findall(_procfile_web())}
    log = (tmp_path / "uvicorn.log").open("wb")
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        token = live_world.tokens["ada"]
        base = f"http://127.0.0.1:{port}"

        def call(path: str, body: dict | None = None) -> dict:
            request = urllib.request.Request(
                base + path,
                data=json.dumps(body).encode() if body is not None else None,
                headers={"Authorization": f"Token {token}", "Content-Type": "application/json"},
                method="POST" if body is not None else "GET",
            )
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.loads(response.read())

        wait_for(lambda: _listening(port), timeout=60, what="uvicorn to listen")
        sessions = [call("/api/sessions", {})["id"] for _ in range(3)]
        with ExitStack() as stack:
            sockets = [
                stack.enter_context(
                    connect(
                        f"ws://127.0.0.1:{port}/ws/sessions/{sid}/",
                        additional_headers={"Authorization": f"Token {token}"},
                    )
                )
                for sid in sessions
            ]
            for sid in sessions:  # traffic on every socket
                call(f"/api/sessions/{sid}/messages", {"text": "where are we?"})
            for ws in sockets:
                assert json.loads(ws.recv(timeout=30))["type"]

            started = time.monotonic()
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=grace + 15)
            stopped_after = time.monotonic() - started
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
        log.close()
    assert stopped_after <= grace + 5, f"stopped after {stopped_after:.1f} s"


def _listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0

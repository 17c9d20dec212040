"""Real processes for the tests of the production mode: Celery workers and beat on the test database,
and a Redis and a PostgreSQL of a test's own that it can stop and start again."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
import redis
from django.conf import settings
from django.core.files.uploadedfile import SimpleUploadedFile
from django.db import connection

from tests.conftest import wait_for, wait_for_status

ROOT = Path(__file__).resolve().parents[2]


class CeleryProcess:
    """`celery -A nwbportal <command>` in its own process group, on the test database, a queue of its
    own and (unless `extra_env` says otherwise) the configured Redis."""

    def __init__(
        self, command: list[str], queue: str, data_root: Path, log: Path, extra_env: dict[str, str] | None = None
    ) -> None:
        db = connection.settings_dict
        env = dict(os.environ)
        env.update(
            {
                "DATABASE_URL": (
                    f"postgres://{db['USER']}@{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}/{db['NAME']}"
                ),
                "REDIS_URL": settings.REDIS_URL,
                "SECRET_KEY": settings.SECRET_KEY,
                "DATA_ROOT": str(data_root),
                "CELERY_QUEUE": queue,
                **(extra_env or {}),
            }
        )
        self.log_path = log
        self.log = log.open("ab")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "nwbportal", *command, "--loglevel", "INFO"],
            cwd=ROOT,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def alive(self) -> bool:
        return self.process.poll() is None

    def kill(self) -> None:
        """Like a machine going away: no chance to finish or acknowledge anything."""
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()
        self.log.close()


class WorkerProcess(CeleryProcess):
    """`celery -A nwbportal worker`, one prefork child, as the portal's ways of running start it."""

    def __init__(self, queue: str, data_root: Path, log: Path, extra_env: dict[str, str] | None = None) -> None:
        name = f"{queue}-{time.monotonic_ns()}@%h"
        command = ["worker", "-c", "1", "--pool", "prefork", "--without-gossip", "--without-mingle", "-n", name]
        super().__init__(command, queue, data_root, log, extra_env)

    def children(self) -> list[int]:
        """The pool's child processes, which run the jobs."""
        import psutil

        return [child.pid for child in psutil.Process(self.process.pid).children()]


class BeatProcess(CeleryProcess):
    """`celery -A nwbportal beat`: the schedule that runs the job recovery."""

    def __init__(self, queue: str, data_root: Path, log: Path, extra_env: dict[str, str] | None = None) -> None:
        super().__init__(["beat", "--schedule", str(log.with_suffix(".schedule"))], queue, data_root, log, extra_env)


class OwnRedis:
    """A redis-server of the test's own, without persistence like the CI's: a restart empties it."""

    def __init__(self, directory: Path) -> None:
        binary = shutil.which("redis-server")
        if binary is None:
            pytest.skip("redis-server is not installed")
        self.binary = binary
        self.directory = directory
        directory.mkdir(parents=True, exist_ok=True)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [self.binary, "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
            cwd=self.directory,
            stdout=(self.directory / "redis.log").open("ab"),
            stderr=subprocess.STDOUT,
        )
        client = redis.Redis.from_url(self.url, socket_connect_timeout=1)
        wait_for(lambda: _answers(client), timeout=20, what="redis-server to start")

    def stop(self) -> None:
        """A crash as the broker's clients see it: the server goes away at once, with its queues."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=20)

    def run_id(self) -> str:
        return str(redis.Redis.from_url(self.url).info("server")["run_id"])


def _answers(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.exceptions.ConnectionError:
        return False


def upload_folder(client: Any, session_id: str, folder: Path) -> None:
    files = sorted(p for p in folder.rglob("*") if p.is_file())
    response = client.post(
        f"/api/sessions/{session_id}/files",
        {
            "files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files],
            "relative_paths": [p.relative_to(folder.parent).as_posix() for p in files],
        },
    )
    assert response.status_code == 201, response.content


def to_plan(client: Any, session_id: str) -> None:
    wait_for_status(client, session_id, {"awaiting_user_input"}, timeout=120)
    turn = client.post(
        f"/api/sessions/{session_id}/messages",
        {"text": "Jane Smith, MIT, V1 recording, mouse001, mouse, F, P60D"},
        content_type="application/json",
    )
    assert turn.json()["session"]["awaiting"] == "approval", turn.json()["replies"]


def wait_until_converting(session_id: str) -> None:
    """Until the session's conversion is under way (running, with progress reported)."""
    from conversions.models import ConversionAttempt

    wait_for(
        lambda: ConversionAttempt.objects.filter(session_id=session_id, state="running", progress__gt=0).exists(),
        timeout=120,
        what="the conversion to be under way",
    )


class OwnPostgres:
    """A PostgreSQL cluster of the test's own (initdb, trust authentication on 127.0.0.1), which the
    test may stop at once, as a crash or a failover looks to its clients, and start again."""

    def __init__(self) -> None:
        binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
        if not binaries:
            pytest.skip("PostgreSQL's server binaries (initdb, pg_ctl) are not installed")
        self.bin = binaries[-1].parent
        # PostgreSQL refuses to run as root: the cluster belongs to the postgres user, in a folder that
        # user can reach (pytest's temporary folders are root's only).
        self.as_owner = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        self.directory = Path(tempfile.mkdtemp(prefix="nwbportal-pg-"))
        self.directory.chmod(0o755)
        if self.as_owner:
            shutil.chown(self.directory, "postgres", "postgres")
        self.data = self.directory / "data"
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.url = f"postgres://postgres@127.0.0.1:{self.port}/nwbportal"
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8")

    def _run(self, tool: str, *arguments: str) -> None:
        subprocess.run(
            [*self.as_owner, str(self.bin / tool), *arguments],
            check=True,
            capture_output=True,
            cwd=self.directory,
            timeout=120,
        )

    def start(self) -> None:
        options = f"-p {self.port} -k {self.directory} -c listen_addresses=127.0.0.1 -c fsync=off"
        self._run(
            "pg_ctl", "-D", str(self.data), "-l", str(self.directory / "server.log"), "-o", options, "-w", "start"
        )

    def create_database(self) -> None:
        self._run("createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "nwbportal")

    def stop(self) -> None:
        """Gone at once: every connection dropped, no new one accepted."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")

    def remove(self) -> None:
        with contextlib.suppress(subprocess.CalledProcessError):
            self.stop()
        shutil.rmtree(self.directory, ignore_errors=True)

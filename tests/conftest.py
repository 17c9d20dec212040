"""Shared fixtures: people and labs, API clients, a real Celery worker, and service checks.

Only the Anthropic API is ever replaced in tests; everything else here is the real thing.
"""

from __future__ import annotations

import abc
import os
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

# channels.testing imports daphne, and so Twisted, whose zope.interface declarations leave a
# `__provides__` descriptor on abc.ABC that raises AttributeError for every subclass; hdmf's
# metaclass reads every attribute of each new class, so pynwb could no longer be imported or read
# files. The portal itself serves with uvicorn and never loads Twisted; only the tests do.
import channels.testing  # noqa: F401
import pytest
from django.conf import settings
from django.test import Client

if "__provides__" in vars(abc.ABC):
    del abc.ABC.__provides__

# The web process must not start its own worker thread in tests: fixtures below run one.
settings.EMBEDDED_WORKER = False
# Tests create many users; the real hasher is deliberately slow.
settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

REAL_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "real"
ON_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def real_data(relative: str) -> Path:
    """A real recording from ../shared/data/real/, or a skip saying why it is missing."""
    path = REAL_DATA / relative
    if not path.exists():
        pytest.skip(f"real recording {relative} not found under {REAL_DATA}")
    return path


# --- services: skipped on a laptop without them, a failure on CI ---------------------------------


def _reachable(url: str, default_port: int) -> bool:
    parsed = urlparse(url)
    try:
        with socket.create_connection((parsed.hostname or "127.0.0.1", parsed.port or default_port), timeout=1):
            return True
    except OSError:
        return False


@pytest.fixture
def production_services() -> None:
    """The test needs PostgreSQL and Redis configured (the production mode)."""
    if settings.EMBEDDED:
        pytest.skip("needs DATABASE_URL and REDIS_URL (PostgreSQL and Redis); running in the embedded mode")
    if not _reachable(settings.REDIS_URL, 6379):
        pytest.skip(f"Redis at {settings.REDIS_URL} is not reachable")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if ON_CI and report.skipped and "production_services" in getattr(item, "fixturenames", ()):
        report.outcome = "failed"
        report.longrepr = f"skipped on CI, where PostgreSQL and Redis must be used: {report.longrepr}"


# --- isolation ------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def data_root(tmp_path: Path, settings: Any) -> Path:
    root = tmp_path / "data"
    root.mkdir()
    settings.DATA_ROOT = root
    # The production mode serves hashed static files that `collectstatic` (the image build) makes;
    # pages in tests use the plain names.
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }
    return root


# --- people ---------------------------------------------------------------------------------------


class World:
    """Two labs: Ada (owner) and Ben (colleague) in one, Mia its manager; Carl in the other."""

    def __init__(self) -> None:
        from conversions.models import Membership
        from tests.factories import LabFactory, MembershipFactory, UserFactory, api_key

        self.lab = LabFactory(name="Visual Lab", timezone="Europe/Paris")
        self.other_lab = LabFactory(name="Auditory Lab")
        self.users: dict[str, Any] = {}
        for name, lab, role in (
            ("ada", self.lab, Membership.Role.MEMBER),
            ("ben", self.lab, Membership.Role.MEMBER),
            ("mia", self.lab, Membership.Role.MANAGER),
            ("carl", self.other_lab, Membership.Role.MEMBER),
        ):
            self.users[name] = MembershipFactory(user__username=name, lab=lab, role=role).user
        self.users["staff"] = UserFactory(username="sam", is_staff=True)
        self.tokens = {name: api_key(user) for name, user in self.users.items()}

    def client(self, name: str | None) -> Client:
        """An API client authenticated by token as `name`, or anonymous for None."""
        if name is None:
            return Client()
        return Client(headers={"Authorization": f"Token {self.tokens[name]}"})

    def browser(self, name: str) -> Client:
        client = Client(enforce_csrf_checks=True)
        client.force_login(self.users[name])
        return client


@pytest.fixture
def world(db: None, request: pytest.FixtureRequest) -> Iterator[World]:
    yield World()
    if "transactional_db" in request.fixturenames:
        # Committed rows reach the worker thread too: an upload in such a test starts a real job.
        _let_the_tests_jobs_finish()


@pytest.fixture
def live_world(transactional_db: None) -> Iterator[World]:
    """The same people, committed, so worker threads and processes see them."""
    yield World()
    _let_the_tests_jobs_finish()


def _let_the_tests_jobs_finish() -> None:
    """The jobs a test left in this process's worker thread, running or still on its queue, are let
    finish before the database is emptied: one still writing would deadlock with the TRUNCATE that
    empties it, and one started after it would run in the next test, where it may not touch the
    database at all."""
    from celery.worker import state

    from nwbportal.celery import app

    def waiting_on_the_queue() -> int:
        if not _worker_threads:
            return 0  # nothing in this process takes jobs from the queue: they wait there for nobody
        try:
            with app.connection_for_write() as connection:
                connection.ensure_connection(max_retries=1)
                channel = connection.channel()
                try:
                    return channel.queue_declare(app.conf.task_default_queue, passive=True).message_count
                finally:
                    channel.close()
        except Exception:  # a queue never declared, or a broker a test stopped, holds nothing
            return 0

    deadline = time.monotonic() + JOBS_LEFT_RUNNING_SECONDS
    while time.monotonic() < deadline and (state.active_requests or waiting_on_the_queue()):
        time.sleep(0.05)


_worker_threads: list[Any] = []

# How long a test's own jobs may still run after it; longer, the database is emptied under them.
JOBS_LEFT_RUNNING_SECONDS = 60


# --- a real Celery worker -------------------------------------------------------------------------


@pytest.fixture(scope="session")
def celery_worker_thread() -> Iterator[Any]:
    """A real Celery worker in a thread of the test process, on the configured broker (in-memory in
    the embedded mode, Redis in CI), on a queue of its own so concurrent runs never share jobs."""
    from celery.worker import WorkController

    from nwbportal.celery import app

    queue = f"nwbportal-test-{uuid.uuid4().hex[:8]}"
    app.conf.task_default_queue = queue
    worker = WorkController(
        app=app,
        pool="threads",
        concurrency=2,
        queues=[queue],
        hostname=f"test-{queue}@{socket.gethostname()}",
        without_heartbeat=True,
        without_mingle=True,
        without_gossip=True,
    )
    thread = threading.Thread(target=worker.start, daemon=True)
    thread.start()
    _worker_threads.append(worker)
    yield worker
    _worker_threads.remove(worker)
    worker.stop(in_sighandler=False)


def wait_for(predicate: Callable[[], Any], *, timeout: float = 120.0, what: str = "condition") -> Any:
    """Poll until `predicate()` is truthy (a bound on waiting, not a speed assertion)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"gave up waiting for {what} after {timeout:.0f} s")


def wait_for_status(client: Client, session_id: str, statuses: set[str], *, timeout: float = 180.0) -> dict[str, Any]:
    def current() -> dict[str, Any] | None:
        body = client.get(f"/api/sessions/{session_id}").json()
        return body if body["status"] in statuses else None

    try:
        return wait_for(current, timeout=timeout, what=f"status in {sorted(statuses)}")
    except AssertionError:
        body = client.get(f"/api/sessions/{session_id}").json()
        raise AssertionError(
            f"session stayed {body['status']}/{body['awaiting']}; messages: "
            + " | ".join(m["text"] for m in body["messages"][-4:])
        ) from None

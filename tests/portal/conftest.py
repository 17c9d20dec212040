"""Fixtures of the tests that run the production mode's processes (tests.portal.processes)."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.portal.processes import OwnRedis


@pytest.fixture
def queue(production_services: None) -> Iterator[str]:
    from nwbportal.celery import app

    name = f"nwbportal-proc-{os.getpid()}-{time.monotonic_ns()}"
    previous = app.conf.task_default_queue
    app.conf.task_default_queue = name
    yield name
    app.conf.task_default_queue = previous


@pytest.fixture
def own_broker(queue: str, tmp_path: Path, settings: Any) -> Iterator[OwnRedis]:
    """This test process sends its jobs to a Redis of the test's own (the workers are pointed at it
    through REDIS_URL), which the test may stop and start again."""
    from nwbportal.celery import app

    server = OwnRedis(tmp_path / "redis")
    server.start()
    previous = app.conf.broker_url
    settings.CELERY_BROKER_URL = server.url
    app.conf.broker_url = server.url
    app._pool = None  # the connections to the other broker are not reused
    app.amqp._producer_pool = None
    yield server
    server.stop()
    app.conf.broker_url = previous
    app._pool = None
    app.amqp._producer_pool = None

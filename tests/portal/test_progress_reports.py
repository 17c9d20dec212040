"""How often a running conversion stores and announces its percent."""

from __future__ import annotations

from typing import Any

import pytest

from conversions.models import ConversionAttempt
from conversions.services import sessions
from conversions.workers import jobs
from tests.conftest import World
from tests.factories import AttemptFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [1000.0]
    monkeypatch.setattr(jobs.time, "monotonic", lambda: now[0])
    return now


@pytest.fixture
def announced(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    percents: list[float] = []
    monkeypatch.setattr(jobs.notify, "publish", lambda session_id, event: percents.append(event["percent"]))
    return percents


@pytest.fixture
def reporter(world: World) -> jobs._ProgressReporter:
    session = sessions.create_session(user=world.users["ada"])
    attempt = AttemptFactory(session=session, number=1, state="running")
    return jobs._ProgressReporter(attempt)


def _run(reporter: Any, clock: list[float], steps: list[tuple[float, float]]) -> None:
    """Report each (seconds later, percent) in turn."""
    for seconds, percent in steps:
        clock[0] += seconds
        reporter(percent)


def test_a_short_conversion_reports_its_start_and_end(
    reporter: Any, clock: list[float], announced: list[float], settings: Any
) -> None:
    settings.PROGRESS_INTERVAL_SECONDS = 0.5
    _run(reporter, clock, [(0.0, 0.0), *[(0.004, float(p)) for p in range(1, 100)], (0.004, 100.0)])

    assert announced == [0.0, 100.0]
    assert ConversionAttempt.objects.get(id=reporter.attempt_id).progress == 100.0


def test_a_long_conversion_reports_every_interval_and_every_percent(
    reporter: Any, clock: list[float], announced: list[float], settings: Any
) -> None:
    settings.PROGRESS_INTERVAL_SECONDS = 0.5
    # 0.1 % every 0.1 s: 1 % takes 1 s, so each percent is reported, and nothing in between.
    _run(reporter, clock, [(0.1, step / 10) for step in range(0, 31)])

    assert announced == [0.0, 1.0, 2.0, 3.0]


def test_progress_at_most_every_interval(
    reporter: Any, clock: list[float], announced: list[float], settings: Any
) -> None:
    settings.PROGRESS_INTERVAL_SECONDS = 0.5
    # 1 % every 0.2 s: a report needs both 1 % and 0.5 s, so every third step.
    _run(reporter, clock, [(0.2, float(step)) for step in range(0, 10)])

    assert announced == [0.0, 3.0, 6.0, 9.0]


def test_a_heartbeat_every_two_seconds_while_the_percent_stands_still(
    reporter: Any, clock: list[float], announced: list[float], settings: Any
) -> None:
    settings.PROGRESS_INTERVAL_SECONDS = 0.5
    _run(reporter, clock, [(0.0, 10.0), (1.0, 10.2), (1.0, 10.4), (0.5, 10.5), (0.5, 10.6)])

    assert announced == [10.0, 10.4]  # 2 s after the last report, though not 1 % more

"""The production mode for real: `celery worker` processes on Redis, channels_redis, PostgreSQL.

These tests skip on a laptop without the services and fail on CI if they would skip.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest
from channels.testing import WebsocketCommunicator
from django.conf import settings

from conversions.models import ConversionAttempt
from conversions.nwb.synthetic import write_spikeglx
from tests.conftest import World, wait_for, wait_for_status
from tests.portal.processes import WorkerProcess, to_plan, upload_folder, wait_until_converting

pytestmark = pytest.mark.django_db(transaction=True)

STALL_SECONDS = 3


async def test_progress_reaches_the_websocket_from_a_worker_process(
    live_world: World, queue: str, data_root: Path, tmp_path: Path
) -> None:
    from asgiref.sync import sync_to_async

    from nwbportal.asgi import application

    assert settings.CHANNEL_LAYERS["default"]["BACKEND"] == "channels_redis.core.RedisChannelLayer"
    # This recording converts in well under a second: progress as often as the chunks come, so that
    # several reports cross the process boundary (the default is at most every 0.5 s).
    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log", {"PROGRESS_INTERVAL_SECONDS": "0"})
    try:
        client = live_world.client("ada")
        session_id = (await sync_to_async(client.post)("/api/sessions", {}, content_type="application/json")).json()[
            "id"
        ]
        folder = write_spikeglx(tmp_path / "rec", run="live", duration_s=4.0, seed=1)["ap_bin"].parent
        await sync_to_async(upload_folder)(client, session_id, folder)
        await sync_to_async(to_plan)(client, session_id)

        communicator = WebsocketCommunicator(
            application,
            f"/ws/sessions/{session_id}/?after=999999999",
            headers=[(b"authorization", f"Token {live_world.tokens['ada']}".encode())],
        )
        connected, _ = await communicator.connect()
        assert connected
        await sync_to_async(client.post)(
            f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json"
        )
        percents: list[float] = []
        statuses: list[str] = []
        while "awaiting_user_input" not in statuses and "completed" not in statuses and "failed" not in statuses:
            event = await communicator.receive_json_from(timeout=120)
            if event["type"] == "progress" and event["phase"] == "converting":
                percents.append(event["percent"])
            elif event["type"] == "status":
                statuses.append(event["status"])
        await communicator.disconnect()
        assert "failed" not in statuses, (tmp_path / "worker.log").read_text()[-3000:]
        assert percents[0] == 0.0 and percents[-1] == 100.0
        assert len(percents) >= 3, f"progress should arrive while converting, got {percents}"
        assert percents == sorted(percents)
        assert statuses.index("converting") < statuses.index("validating")
    finally:
        worker.stop()


def test_a_worker_killed_mid_conversion_does_not_leave_the_session_stuck(
    live_world: World, queue: str, data_root: Path, tmp_path: Path
) -> None:
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    folder = write_spikeglx(tmp_path / "rec", run="long", duration_s=12.0, seed=2)["ap_bin"].parent
    first = WorkerProcess(queue, data_root, tmp_path / "first.log")
    try:
        upload_folder(client, session_id, folder)
        to_plan(client, session_id)
        client.post(f"/api/sessions/{session_id}/actions", {"action": "approve"}, content_type="application/json")
        wait_until_converting(session_id)
        first.kill()
    finally:
        first.stop()
    attempt = ConversionAttempt.objects.get(session_id=session_id)
    assert attempt.state == "running", "the killed worker could not record anything"

    # A worker that starts once the job has been silent for JOB_STALL_SECONDS runs it again.
    time.sleep(STALL_SECONDS + 1)
    second = WorkerProcess(queue, data_root, tmp_path / "second.log", {"JOB_STALL_SECONDS": str(STALL_SECONDS)})
    try:
        body = wait_for_status(client, session_id, {"awaiting_user_input", "completed", "failed"}, timeout=240)
    finally:
        second.stop()
    attempt.refresh_from_db()
    assert body["status"] != "failed", body["messages"][-1]["text"]
    assert attempt.state == "succeeded" and attempt.deliveries == 2
    assert not list(Path(attempt.output_path).parent.glob(".*partial")), "the partial file was cleaned up"


async def test_chat_events_reach_the_websocket_in_order_from_the_publisher_thread(
    live_world: World, production_services: None
) -> None:
    """In the production mode a turn hands its events to a background publisher and answers at
    once; every event still arrives, in the order the turns happened."""
    from asgiref.sync import sync_to_async

    from nwbportal.asgi import application

    assert settings.NOTIFY_IN_BACKGROUND
    client = live_world.client("ada")
    session_id = (await sync_to_async(client.post)("/api/sessions", {}, content_type="application/json")).json()["id"]
    communicator = WebsocketCommunicator(
        application,
        f"/ws/sessions/{session_id}/?after=999999999",
        headers=[(b"authorization", f"Token {live_world.tokens['ada']}".encode())],
    )
    connected, _ = await communicator.connect()
    assert connected
    sent: list[int] = []
    for text in ["where are we?", "what do you need?", "Jane Smith, MIT", "where are we?", "help"]:
        turn = await sync_to_async(client.post)(
            f"/api/sessions/{session_id}/messages", {"text": text}, content_type="application/json"
        )
        assert turn.status_code == 200
        sent += [m["id"] for m in turn.json()["session"]["messages"] if m["id"] not in sent]
    received: list[int] = []
    while len(received) < len(sent) - 1:  # all but the greeting, sent before the page connected
        event = await communicator.receive_json_from(timeout=30)
        if event["type"] == "message":
            received.append(event["message"]["id"])
    await communicator.disconnect()
    assert received == sent[1:]


async def test_an_idle_websocket_stays_connected_past_the_redis_read_timeout(
    live_world: World, production_services: None
) -> None:
    """The layer's blocking read lasts 5 s; a page that hears nothing for longer keeps its
    connection and still gets the next event (redis-py 8 would cut it at 5 s by default)."""
    import asyncio

    from asgiref.sync import sync_to_async

    from nwbportal.asgi import application

    client = live_world.client("ada")
    session_id = (await sync_to_async(client.post)("/api/sessions", {}, content_type="application/json")).json()["id"]
    communicator = WebsocketCommunicator(
        application,
        f"/ws/sessions/{session_id}/?after=999999999",
        headers=[(b"authorization", f"Token {live_world.tokens['ada']}".encode())],
    )
    connected, _ = await communicator.connect()
    assert connected
    while not await communicator.receive_nothing(timeout=0.5):
        await communicator.receive_output()  # what the page is told on connecting
    await asyncio.sleep(8)  # nothing happens: longer than one blocking read of the layer
    assert await communicator.receive_nothing(timeout=0.1), await communicator.receive_output()
    turn = await sync_to_async(client.post)(
        f"/api/sessions/{session_id}/messages", {"text": "where are we?"}, content_type="application/json"
    )
    event = await communicator.receive_json_from(timeout=30)
    assert event["type"] == "message" and event["message"]["id"] == turn.json()["replies"][0]["id"] - 1
    await communicator.disconnect()


def test_jobs_run_below_the_web_processes(queue: str, data_root: Path, tmp_path: Path) -> None:
    """A prefork worker's children (which run the jobs) are at WORKER_NICENESS; the main process,
    which only hands out jobs, keeps what it was started with."""
    import psutil

    worker = WorkerProcess(queue, data_root, tmp_path / "worker.log")
    try:
        child = wait_for(lambda: (worker.children() or [None])[0], timeout=60, what="the pool's child")
        spawner = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())  # what the worker inherits
        wait_for(
            lambda: psutil.Process(child).nice() == max(settings.WORKER_NICENESS, spawner),
            timeout=60,
            what="the child to step back",
        )
        assert psutil.Process(worker.process.pid).nice() == spawner
    finally:
        worker.stop()

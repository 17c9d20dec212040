"""The embedded mode: a Celery worker thread and a thread-safe in-memory channel layer.

Used by `make run` so one process serves the portal without Redis or PostgreSQL. Production runs
separate `celery -A nwbportal worker` processes and channels_redis instead.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import threading
from collections.abc import Callable, Coroutine
from typing import Any

from channels.layers import InMemoryChannelLayer

logger = logging.getLogger(__name__)

_worker_lock = threading.Lock()
_worker: Any = None


class ThreadSafeInMemoryChannelLayer(InMemoryChannelLayer):
    """Channels' in-memory layer, safe to call from the worker thread.

    The stock layer keeps asyncio queues bound to the server's event loop; a `group_send` from the
    worker thread (through `async_to_sync`, on another loop) reaches the websocket only on the
    server's next tick, up to a second late. Running every operation on the loop that owns the
    queues delivers it at once.
    """

    _owner_loop: asyncio.AbstractEventLoop | None = None

    async def _on_owner_loop(self, operation: Callable[..., Coroutine[Any, Any, Any]], *args: Any) -> Any:
        current = asyncio.get_running_loop()
        owner = self._owner_loop
        if owner is None or owner is current or not owner.is_running():
            self._owner_loop = current
            return await operation(*args)
        future = asyncio.run_coroutine_threadsafe(operation(*args), owner)
        return await asyncio.wrap_future(future)

    async def send(self, channel: str, message: dict[str, Any]) -> None:
        await self._on_owner_loop(super().send, channel, message)

    async def receive(self, channel: str) -> dict[str, Any]:
        return await self._on_owner_loop(super().receive, channel)

    async def new_channel(self, prefix: str = "specific.") -> str:
        return await self._on_owner_loop(super().new_channel, prefix)

    async def group_add(self, group: str, channel: str) -> None:
        await self._on_owner_loop(super().group_add, group, channel)

    async def group_discard(self, group: str, channel: str) -> None:
        await self._on_owner_loop(super().group_discard, group, channel)

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        await self._on_owner_loop(super().group_send, group, message)


def start_embedded_worker(*, concurrency: int) -> None:
    """Start one Celery worker thread for this process (idempotent).

    Started from asgi.py once the application exists, not from AppConfig.ready(): Celery's Django
    fix-up calls django.setup() again, which is not reentrant.
    """
    global _worker
    with _worker_lock:
        if _worker is not None:
            return
        from celery.worker import WorkController

        from nwbportal.celery import app

        _worker = WorkController(
            app=app,
            pool="threads",
            concurrency=concurrency,
            hostname=f"embedded@{socket.gethostname()}",
            without_heartbeat=True,
            without_mingle=True,
            without_gossip=True,
        )
        threading.Thread(target=_warm_up_and_start, args=(_worker,), name="celery-embedded", daemon=True).start()
        logger.info("Embedded Celery worker started (%d threads)", concurrency)


def _warm_up_and_start(worker: Any) -> None:
    """Celery sends `worker_ready`, where `celery worker` processes warm up, only from its command
    line worker; this one warms up here, before it takes its first job."""
    from conversions.workers.tasks import warm_up_worker

    try:
        warm_up_worker()
    except Exception:  # a slower first job, never a worker that does not start
        logger.exception("warming up the embedded worker failed")
    worker.start()


def start_housekeeping(*, interval_s: float) -> None:
    """What `celery beat` does in production, for the embedded mode: every `interval_s`, the tasks
    of the beat schedule that concern one process (closing sessions left waiting too long, telling
    staff about sessions that need a human) are queued on the embedded worker."""

    def loop() -> None:
        from conversions.services import outbox

        while True:
            try:
                outbox.start_housekeeping("close_idle_sessions")
                outbox.start_housekeeping("sweep_review_queue")
            except Exception:  # never let housekeeping take the server down
                logger.exception("housekeeping failed")
            stop.wait(interval_s)

    stop = threading.Event()
    threading.Thread(target=loop, name="housekeeping", daemon=True).start()

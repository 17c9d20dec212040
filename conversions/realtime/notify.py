"""Live notifications to the pages watching a session, over the channel layer.

The database holds the truth; these events only tell open pages that something changed, so a page
that reconnects catches up from the database.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import queue
import threading
import uuid
from collections.abc import Sequence
from typing import Any, Literal, TypedDict

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.conf import settings

logger = logging.getLogger(__name__)


# --- the events, as the pages receive them (static/js reads these keys) -----------------------------


class MessagePayload(TypedDict):
    """A chat message as the API and the pages show it."""

    id: int
    role: str
    text: str
    card: str | None
    data: Any
    created: str


class MessageEvent(TypedDict):
    type: Literal["message"]
    message: MessagePayload


class StatusEvent(TypedDict):
    type: Literal["status"]
    status: str
    awaiting: str | None
    format: str


class ProgressEvent(TypedDict):
    type: Literal["progress"]
    phase: Literal["converting", "validating"]
    percent: float | None
    attempt: int


class OwnerEvent(TypedDict):
    """The session changed hands (a reviewer reassigned it)."""

    type: Literal["session"]
    owner: str


Event = MessageEvent | StatusEvent | ProgressEvent | OwnerEvent


def message_event(message: MessagePayload) -> MessageEvent:
    return {"type": "message", "message": message}


def status_event(*, status: str, awaiting: str | None, format: str) -> StatusEvent:
    return {"type": "status", "status": status, "awaiting": awaiting, "format": format}


def progress_event(phase: Literal["converting", "validating"], percent: float | None, attempt: int) -> ProgressEvent:
    return {"type": "progress", "phase": phase, "percent": percent, "attempt": attempt}


def owner_event(owner: str) -> OwnerEvent:
    return {"type": "session", "owner": owner}


# --- sending them -----------------------------------------------------------------------------------


def group_name(session_id: uuid.UUID | str) -> str:
    return f"session.{session_id}"


def publish(session_id: uuid.UUID | str, event: Event) -> None:
    """Send one event to everyone watching the session."""
    publish_all(session_id, [event])


def publish_all(session_id: uuid.UUID | str, events: Sequence[Event]) -> None:
    """Send several events in order, crossing into the event loop once (each crossing costs a few
    milliseconds, which a chat turn with three events would pay three times).

    With NOTIFY_IN_BACKGROUND (the production mode) the events are handed to this process's
    publisher thread and the caller goes on at once: a chat turn does not wait for Redis. Events of
    one process keep their order. In the embedded mode they are sent before returning: the
    in-memory layer lives on the server's own event loop.
    """
    if not events:
        return
    group = group_name(session_id)
    if getattr(settings, "NOTIFY_IN_BACKGROUND", False):
        _publisher().submit(group, list(events))
        return
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(_send)(layer, group, events)
    except Exception:
        _log_lost(group, events)


async def _send(layer: Any, group: str, events: Sequence[Event]) -> None:
    for event in events:
        await layer.group_send(group, {"type": "session.event", "event": event})


def _log_lost(group: str, events: Sequence[Event]) -> None:
    # A notification lost is caught up from the database on the next page load; never let it fail
    # the transition that caused it.
    kinds = ", ".join(str(event.get("type")) for event in events)
    logger.warning("could not publish %s to %s", kinds, group, exc_info=True)


class _Publisher:
    """One daemon thread with an event loop of its own, sending queued events in order.

    The loop lives as long as the thread, so the channel layer's connections (bound to a loop) are
    made once, not per event.
    """

    _STOP = object()

    def __init__(self) -> None:
        self.pid = os.getpid()
        self._queue: queue.SimpleQueue[Any] = queue.SimpleQueue()
        self._thread = threading.Thread(target=self._run, name="nwbportal-notify", daemon=True)
        self._thread.start()

    def submit(self, group: str, events: list[Event]) -> None:
        self._queue.put((group, events))

    def stop(self, timeout_s: float) -> None:
        """Send what is queued, then stop (at exit: a short wait, never a hang)."""
        self._queue.put(self._STOP)
        self._thread.join(timeout_s)

    def _run(self) -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        layer = get_channel_layer()
        while True:
            item = self._queue.get()
            if item is self._STOP:
                break
            group, events = item
            if layer is None:
                continue
            try:
                loop.run_until_complete(_send(layer, group, events))
            except Exception:
                _log_lost(group, events)
        loop.close()


_publisher_lock = threading.Lock()
_current: _Publisher | None = None


def _publisher() -> _Publisher:
    """This process's publisher, started on first use (and again in a forked worker process)."""
    global _current
    with _publisher_lock:
        if _current is None or _current.pid != os.getpid():
            _current = _Publisher()
            atexit.register(_current.stop, 2.0)
        return _current

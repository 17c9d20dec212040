"""Live notifications to the pages watching a session, over the channel layer.

The database holds the truth; these events only tell open pages that something changed, so a page
that reconnects catches up from the database.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def group_name(session_id: uuid.UUID | str) -> str:
    return f"session.{session_id}"


def publish(session_id: uuid.UUID | str, event: dict[str, Any]) -> None:
    """Send one event (`type` is message, status or progress) to everyone watching the session."""
    publish_all(session_id, [event])


def publish_all(session_id: uuid.UUID | str, events: Sequence[dict[str, Any]]) -> None:
    """Send several events in order, crossing into the event loop once (each crossing costs a few
    milliseconds, which a chat turn with three events would pay three times)."""
    layer = get_channel_layer()
    if layer is None or not events:
        return
    group = group_name(session_id)

    async def send() -> None:
        for event in events:
            await layer.group_send(group, {"type": "session.event", "event": event})

    try:
        async_to_sync(send)()
    except Exception:
        # A notification lost is caught up from the database on the next page load; never let it
        # fail the transition that caused it.
        kinds = ", ".join(str(event.get("type")) for event in events)
        logger.warning("could not publish %s for session %s", kinds, session_id, exc_info=True)

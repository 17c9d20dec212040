"""Live notifications to the pages watching a session, over the channel layer.

The database holds the truth; these events only tell open pages that something changed, so a page
that reconnects catches up from the database.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer

logger = logging.getLogger(__name__)


def group_name(session_id: uuid.UUID | str) -> str:
    return f"session.{session_id}"


def publish(session_id: uuid.UUID | str, event: dict[str, Any]) -> None:
    """Send one event (`type` is message, status or progress) to everyone watching the session."""
    layer = get_channel_layer()
    if layer is None:
        return
    try:
        async_to_sync(layer.group_send)(group_name(session_id), {"type": "session.event", "event": event})
    except Exception:
        # A notification lost is caught up from the database on the next page load; never let it
        # fail the transition that caused it.
        logger.warning("could not publish %s for session %s", event.get("type"), session_id, exc_info=True)

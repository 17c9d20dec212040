"""The session websocket: live chat messages, status and progress for one session.

Authorised like the API (owner, lab manager, staff); anyone else is refused with close code 4404,
the websocket's "not found", so the session's existence is not revealed.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from conversions.errors import NotFound
from conversions.realtime import notify
from conversions.services import sessions

CLOSE_UNAUTHENTICATED = 4401
CLOSE_NOT_FOUND = 4404
# Too many failed sign-ins for the key's account or from the address (conversions.services.authentication).
CLOSE_LOCKED_OUT = 4429


class SessionConsumer(AsyncJsonWebsocketConsumer):
    async def connect(self) -> None:
        user = self.scope.get("user")
        if self.scope.get("locked_out"):
            await self._refuse(CLOSE_LOCKED_OUT)
            return
        if user is None or not user.is_authenticated:
            await self._refuse(CLOSE_UNAUTHENTICATED)
            return
        session_id = self.scope["url_route"]["kwargs"]["session_id"]
        catch_up = await self._catch_up(user, session_id, self._after())
        if catch_up is None:
            await self._refuse(CLOSE_NOT_FOUND)
            return
        self.user, self.session_id = user, session_id
        self.group = notify.group_name(session_id)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()
        for event in catch_up:
            await self.send_json(event)

    async def _refuse(self, code: int) -> None:
        # Accept, then close with the code: a close before accepting reaches a browser as a bare
        # HTTP 403 (close code 1006), and the page could not tell "log in again" from "retry".
        await self.accept()
        await self.close(code=code)

    async def disconnect(self, code: int) -> None:
        if hasattr(self, "group"):
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        # Read-only channel: messages and actions go through the API, so every change has one path.
        await self.send_json({"type": "error", "detail": "Send messages with POST /api/sessions/{id}/messages."})

    async def session_event(self, message: dict[str, Any]) -> None:
        event = message["event"]
        await self.send_json(event)
        if event["type"] == "session" and not await self._may_see():
            # Handed to someone else (a reviewer reassigned it): whoever may no longer see the
            # session is told who has it, then hears nothing more of it.
            await self.channel_layer.group_discard(self.group, self.channel_name)
            await self.close(code=CLOSE_NOT_FOUND)

    @database_sync_to_async
    def _may_see(self) -> bool:
        try:
            sessions.get_session(self.user, self.session_id)
        except NotFound:
            return False
        return True

    def _after(self) -> int:
        query = parse_qs(self.scope.get("query_string", b"").decode())
        try:
            return int(query.get("after", ["0"])[0])
        except ValueError:
            return 0

    @database_sync_to_async
    def _catch_up(self, user: Any, session_id: str, after: int) -> list[notify.Event] | None:
        """What a page that reconnects missed: messages after the last one it has, then the status."""
        try:
            session = sessions.get_session(user, session_id)
        except NotFound:
            return None
        events: list[notify.Event] = [
            notify.message_event(sessions.message_payload(m)) for m in session.messages.filter(id__gt=after)
        ]
        events.append(notify.status_event(status=session.status, awaiting=session.awaiting, format=session.format))
        latest = session.attempts.order_by("-number").first()
        if latest is not None and session.status == "converting":
            events.append(notify.progress_event("converting", latest.progress, latest.number))
        return events

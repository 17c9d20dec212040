"""What the session page needs beyond the chat: editing a metadata value from the panel."""

from __future__ import annotations

from ninja import Router

router = Router()

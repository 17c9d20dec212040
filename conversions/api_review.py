"""The admin review queue: sessions that need a human, and what staff can do about them."""

from __future__ import annotations

from ninja import Router

router = Router()

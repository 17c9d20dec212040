"""Lab settings and the lab's subject registry, for lab managers."""

from __future__ import annotations

from ninja import Router

router = Router()

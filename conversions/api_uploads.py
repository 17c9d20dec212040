"""Resumable uploads in pieces and import from the lab's server storage."""

from __future__ import annotations

from ninja import Router

router = Router()

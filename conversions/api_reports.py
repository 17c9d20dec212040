"""Validation reports (JSON and HTML) and what a converted file looks like: its tree and a plot of its first seconds."""

from __future__ import annotations

from ninja import Router

router = Router()

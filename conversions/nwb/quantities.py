"""Sizes and durations in the words a scientist reads, shared by messages, plans and files."""

from __future__ import annotations


def describe_size(size_bytes: int) -> str:
    for unit, factor in (("GB", 1024**3), ("MB", 1024**2), ("kB", 1024)):
        if size_bytes >= factor:
            return f"{size_bytes / factor:.1f} {unit}"
    return f"{size_bytes} bytes"


def describe_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    if seconds < 3600:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

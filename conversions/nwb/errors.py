"""Exceptions the NWB layer raises for the rest of the app to turn into replies.

Each carries two texts: `user_message` in plain words (which file, what went wrong, what to try
next) for the scientist, and `detail` (reader messages, tracebacks) for logs and experts.
"""

from __future__ import annotations


class RecordingProblem(Exception):
    """A problem with the user's recording: `user_message` is plain words naming the file and what to
    try next; `detail` is for experts/logs."""

    def __init__(self, user_message: str, *, detail: str = "") -> None:
        super().__init__(user_message)
        self.user_message = user_message
        self.detail = detail


class ConversionCancelled(Exception):
    """The user asked to stop; nothing was left on disk."""


class ConversionFailed(Exception):
    """The conversion could not finish; `user_message` says why in plain words."""

    def __init__(self, user_message: str, *, detail: str = "") -> None:
        super().__init__(user_message)
        self.user_message = user_message
        self.detail = detail


class AmbiguousRecording(RecordingProblem):
    """The upload can be read as several formats; the user must say which (`candidates`: format keys,
    in registry order). Pass the chosen key to `detect_format(root, format_key=...)`."""

    def __init__(self, user_message: str, *, candidates: tuple[str, ...], detail: str = "") -> None:
        super().__init__(user_message, detail=detail)
        self.candidates = candidates

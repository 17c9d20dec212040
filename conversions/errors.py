"""Domain errors the web layer turns into plain answers, in one place (conversions/http_errors.py)."""

from __future__ import annotations

import errno


class PortalError(Exception):
    status_code = 400

    def __init__(self, user_message: str, *, detail: str = "") -> None:
        super().__init__(user_message)
        self.user_message = user_message
        self.detail = detail


class NotFound(PortalError):
    status_code = 404


class Conflict(PortalError):
    """The request makes no sense in the session's current state."""

    status_code = 409


class BadRequest(PortalError):
    status_code = 400


class TooMany(PortalError):
    """The user made too many of something in too short a time: 429, saying when to try again."""

    status_code = 429


class InsufficientStorage(PortalError):
    """The server has no room for what was sent (its disk is full, or would be): 507, with how much."""

    status_code = 507


class StorageProblem(PortalError):
    """The server could not store or read files (volume gone, an I/O error): not the user's fault."""

    status_code = 503


def storing_failed(name: str, exc: OSError, *, kept: str) -> PortalError:
    """What an OSError while storing the file `name` means for whoever sent it: a name that clashes
    with a file or folder already there is theirs to change (409), a full disk is the server's
    capacity (507), anything else the server's trouble (503). `kept` says what was kept."""
    if isinstance(exc, IsADirectoryError | NotADirectoryError | FileExistsError):
        return Conflict(
            f"“{name}” clashes with a file or folder of the same name already in this session; remove that one first."
        )
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return InsufficientStorage(
            f"The server's disk is full: {name} could not be stored. {kept} Tell the portal's admins."
        )
    return StorageProblem(
        f"The server could not store {name} ({exc.strerror or 'storage error'}). {kept} Try again later or tell the "
        "portal's admins."
    )

"""Domain errors the web layer turns into plain answers, in one place (conversions/api.py)."""


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


class StorageProblem(PortalError):
    """The server could not store or read files (disk full, volume gone): not the user's fault."""

    status_code = 503

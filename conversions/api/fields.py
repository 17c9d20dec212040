"""What the session page needs beyond the chat: editing a metadata value from the panel."""

from __future__ import annotations

import uuid
from typing import Any

from ninja import Router, Schema

from conversions.api.schemas import ErrorOut, TurnOut, turn_detail
from conversions.services import sessions
from conversions.services.authentication import AuthenticatedHttpRequest

router = Router()


class FieldIn(Schema):
    # A string, or a list for the fields that hold several values (experimenter, keywords).
    value: Any = None


@router.post(
    "/sessions/{session_id}/metadata/{name}",
    response={200: TurnOut, 400: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    url_name="session_metadata_field",
)
def edit_field(request: AuthenticatedHttpRequest, session_id: uuid.UUID, name: str, payload: FieldIn) -> dict[str, Any]:
    """Set one metadata value, as if the user had said so in the chat: the turn's replies say what
    the portal made of it, and the session shows the value with the source "user"."""
    session = sessions.get_session(request.user, session_id)
    return turn_detail(sessions.edit_field(session=session, user=request.user, name=name, value=payload.value))

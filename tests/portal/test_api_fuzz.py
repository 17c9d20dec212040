"""The API against its own OpenAPI document, fuzzed (schemathesis): whatever a client sends, valid or
not, the answer is never a server error and always a status code the document lists.

Bounded: a few examples per operation, as the owner of a real session and lab, so that the requests
reach the code behind the checks and not only the "no such session" answer.
"""

from __future__ import annotations

import os
from typing import Any

import hypothesis
import pytest
import schemathesis
from django.core.wsgi import get_wsgi_application
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from conversions.api import api
from tests.conftest import World

# The document as the API builds it (read over HTTP at import, it would meet the production mode's
# ALLOWED_HOSTS before the test settings); requests go to the portal's WSGI application in process.
schema = schemathesis.openapi.from_dict(api.get_openapi_schema(path_prefix="/api/"))
schema.app = get_wsgi_application()
# The suite's bound; FUZZ_EXAMPLES=200 (say) searches deeper by hand.
EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES", "8"))


@pytest.fixture
def owned(live_world: World, settings: Any) -> dict[str, Any]:
    """Path parameters that name things the caller may see, and the caller's token."""
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]  # the host the in-process calls name
    world = live_world
    client = world.client("mia")  # a manager: the lab's settings and subjects are hers to change
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    return {"session_id": session_id, "lab_id": world.lab.id, "token": world.tokens["mia"]}


@schema.parametrize()
@hypothesis.settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(hypothesis.HealthCheck),
    derandomize=True,  # the same requests on every run: a failure here is reproducible
)
@pytest.mark.django_db(transaction=True)
def test_no_request_is_a_server_error_or_an_undocumented_answer(case: Any, owned: dict[str, Any]) -> None:
    for name in ("session_id", "lab_id"):
        if case.path_parameters and name in case.path_parameters:
            case.path_parameters[name] = owned[name]
    case.call_and_validate(
        headers={"Authorization": f"Token {owned['token']}"},
        checks=[not_a_server_error, status_code_conformance],
    )

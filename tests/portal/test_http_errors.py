"""The one place a domain error becomes an answer (conversions/http_errors.py): a page's error gets
a page with its words and status, a missing thing the 404 page, a refused form its page back with
"Not done" and the text typed; other exceptions are left to Django."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.contrib.messages.storage.fallback import FallbackStorage
from django.contrib.sessions.backends.cache import SessionStore
from django.http import HttpRequest, HttpResponse
from django.test import RequestFactory

from conversions.errors import Conflict, NotFound, PortalError, StorageProblem, TooMany
from conversions.http_errors import PortalErrorPages, on_failure_return_to
from tests.conftest import World


def _request(method: str = "get", data: dict[str, str] | None = None) -> HttpRequest:
    request = getattr(RequestFactory(), method)("/somewhere", data or {})
    request.session = SessionStore()
    request._messages = FallbackStorage(request)  # what MessageMiddleware does
    return request


@pytest.mark.parametrize(
    "error",
    [Conflict("The session is converting."), TooMany("Too many sessions today."), StorageProblem("The disk is away.")],
)
def test_a_page_that_raises_a_domain_error_answers_with_its_words_and_status(world: World, error: PortalError) -> None:
    request = _request()
    request.user = world.users["ada"]
    response = PortalErrorPages(lambda _: HttpResponse()).process_exception(request, error)
    assert response is not None and response.status_code == error.status_code
    assert error.user_message in response.content.decode()


def test_a_missing_thing_is_the_404_page_and_other_exceptions_are_left_to_django() -> None:
    pages = PortalErrorPages(lambda _: HttpResponse())
    response = pages.process_exception(_request(), NotFound("No such lab."))
    assert response is not None and response.status_code == 404
    assert pages.process_exception(_request(), ValueError("a bug")) is None


def test_a_refused_form_goes_back_to_its_page_with_the_text_typed() -> None:
    @on_failure_return_to("review_session", "session_id")
    def act(request: HttpRequest, session_id: str, action: str) -> HttpResponse:
        raise Conflict("There is no validated file waiting for a decision.")

    request = _request("post", {"text": "Please look at the units."})
    response = act(request, session_id="1b4e28ba-2fa1-11d2-883f-0016d3cca427", action="note")
    assert (
        response.status_code == 302 and response["Location"] == "/review/sessions/1b4e28ba-2fa1-11d2-883f-0016d3cca427/"
    )
    said = [str(m) for m in get_messages(request)]
    assert said == [
        "Not done: There is no validated file waiting for a decision.",
        "Your text, to copy back: Please look at the units.",
    ]


def test_a_missing_thing_in_a_form_is_still_a_404() -> None:
    @on_failure_return_to("dashboard")
    def make(request: HttpRequest) -> HttpResponse:
        raise NotFound("No such lab.")

    with pytest.raises(NotFound):
        make(_request("post"))

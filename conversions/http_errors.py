"""The one place where a domain error (conversions.errors) becomes an HTTP answer.

- The API answers `{"detail": <the error's words>}` with the error's status (`api_answer`, the
  API root's exception handler).
- A page answers a missing thing with the 404 page that names it (`PortalErrorPages`, a
  middleware), and any other error with a page that says it, under the error's status.
- A form's view names the page its user goes back to when what they asked cannot be done
  (`on_failure_return_to`): that page says "Not done: …" and gives back the text they wrote, so
  nothing typed is lost.

A view may still catch a domain error to show it inside its own page: beside the field of its form
(a key's name, a subject's id), or, on a lab's settings page, who manages the lab when a member may
not change it. It never builds an error answer of its own otherwise.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import TYPE_CHECKING, Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.defaults import page_not_found

from conversions.errors import NotFound, PortalError

if TYPE_CHECKING:
    from ninja import NinjaAPI

View = Callable[..., HttpResponse]


def api_answer(api: NinjaAPI, request: HttpRequest, exc: PortalError) -> HttpResponse:
    return api.create_response(request, {"detail": exc.user_message}, status=exc.status_code)


def on_failure_return_to(url_name: str, *url_arguments: str) -> Callable[[View], View]:
    """For a view that acts on a form: a domain error it raises (other than a missing thing, a 404)
    sends the user to the page `url_name` (reversed with these of the view's own URL arguments),
    which says "Not done: …" and gives back the `text` they wrote."""

    def decorate(view: View) -> View:
        @wraps(view)
        def answered(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
            try:
                return view(request, *args, **kwargs)
            except NotFound:
                raise
            except PortalError as refusal:
                messages.error(request, f"Not done: {refusal.user_message}")
                if text := request.POST.get("text"):
                    messages.info(request, f"Your text, to copy back: {text}")
                return redirect(url_name, **{name: kwargs[name] for name in url_arguments})

        return answered

    return decorate


class PortalErrorPages:
    """A domain error that reaches the top of a page's view: the 404 page for a missing thing (its
    words say what is missing), otherwise a page with the error's words and status. The API answers
    its own (`api_answer`) before any reaches here."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exc: Exception) -> HttpResponse | None:
        if not isinstance(exc, PortalError):
            return None
        if isinstance(exc, NotFound):
            return page_not_found(request, Http404(exc.user_message))
        return render(request, "refused.html", {"refusal": exc.user_message}, status=exc.status_code)

"""The staff pages of the review queue: which conversions need a human, one conversion in full, and
what staff can do about it. Server-rendered; every action is a POST with CSRF that redirects back."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from functools import wraps
from typing import Any

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from conversions.http_errors import on_failure_return_to
from conversions.models import ConversionSession, Lab, Membership
from conversions.services import review, sessions
from conversions.services.authentication import AuthenticatedHttpRequest
from conversions.services.review_queue import REASON_LABELS, Reason, reason_counts, reasons_of, review_queue

View = Callable[..., HttpResponse]

# The queue is shown a page at a time, longest waiting first.
QUEUE_PER_PAGE = 100


def staff_required(view: View) -> View:
    """Staff only: anonymous visitors are sent to log in, other users are refused (403)."""

    @wraps(view)
    def guarded(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied("Only portal staff can see the review queue.")
        return view(request, *args, **kwargs)

    return guarded


def _session(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> ConversionSession:
    return sessions.get_session(request.user, session_id)


@require_GET
@staff_required
def queue_page(request: HttpRequest) -> HttpResponse:
    now = timezone.now()
    reason = request.GET.get("reason") or None
    if reason not in {r.value for r in Reason} | {None}:
        messages.error(request, f"“{reason}” is not a reason of the queue; showing every reason.")
        reason = None
    try:
        lab_id = int(request.GET["lab"]) if request.GET.get("lab") else None
    except ValueError:
        messages.error(request, "That lab is not known; showing every lab.")
        lab_id = None
    page = Paginator(review_queue(now=now, reason=reason, lab_id=lab_id), QUEUE_PER_PAGE).get_page(
        request.GET.get("page")
    )
    rows = [{"session": s, "reasons": reasons_of(s, now=now)} for s in page]
    counts = reason_counts(now=now)
    context = {
        "rows": rows,
        "page": page,
        "counts": [(r.value, REASON_LABELS[r], counts[r.value]) for r in Reason],
        "total": counts["total"],
        "labs": Lab.objects.order_by("name"),
        "reason": reason,
        "lab_id": lab_id,
        "now": now,
    }
    return render(request, "review/queue.html", context)


@require_GET
@staff_required
def session_page(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> HttpResponse:
    now = timezone.now()
    session = _session(request, session_id)
    queued = review_queue(now=now).filter(id=session.id).first()
    attempts = list(session.attempts.prefetch_related("issues"))
    members = (
        Membership.objects.filter(lab=session.lab, user__is_active=True)
        .exclude(user=session.owner)
        .select_related("user")
        .order_by("user__username")
    )
    context = {
        "session": session,
        "reasons": reasons_of(queued, now=now) if queued else [],
        "messages_": session.messages.all(),
        "attempts": attempts,
        "previews": session.previews.all(),
        "files": session.files.all(),
        "metadata": session.metadata_fields.all(),
        "llm_calls": session.llm_calls.order_by("created", "id"),
        "audit": session.audit_events.select_related("actor"),
        "members": members,
        "staff_actions": review.STAFF_ACTIONS,
    }
    return render(request, "review/session.html", context)


@require_GET
@staff_required
def bundle(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> HttpResponse:
    """The debug bundle (conversions.services.review) of one session, as a JSON file."""
    session = _session(request, session_id)
    response = HttpResponse(
        json.dumps(review.debug_bundle(session), indent=2, default=str), content_type="application/json"
    )
    response["Content-Disposition"] = f'attachment; filename="nwbportal-session-{session.id}.json"'
    return response


_DONE = {
    "retry": "Retried: the conversation shows what happens next.",
    "accept_as_is": "Accepted as it is: the file is the session's result.",
    "cancel": "Cancelled: the files and attempts are kept.",
    "note": "Note sent: the user sees it in the conversation.",
    "reassign": "Handed to the new owner.",
    "resolve": "Resolved: the conversion left the review queue.",
}


@require_POST
@staff_required
@on_failure_return_to("review_session", "session_id")
def act(request: AuthenticatedHttpRequest, session_id: uuid.UUID, action: str) -> HttpResponse:
    """One staff action on a session; the outcome, or why it could not be done, is shown on the
    session's review page (what was typed is kept in the audit trail or the form's message)."""
    if action not in _DONE:
        raise Http404("No such review action.")
    session = _session(request, session_id)
    post = request.POST
    if action in review.STAFF_ACTIONS:
        review.staff_action(session=session, user=request.user, action=action)
    elif action == "note":
        review.post_note(session=session, user=request.user, text=post.get("text", ""))
    elif action == "reassign":
        review.reassign(
            session=session, user=request.user, new_owner_id=post.get("owner", ""), note=post.get("text", "")
        )
    else:
        review.resolve(
            session=session, user=request.user, note=post.get("text", ""), tell_user=bool(post.get("tell_user"))
        )
    messages.success(request, _DONE[action])
    return redirect("review_session", session_id=session.id)

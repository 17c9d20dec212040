"""Server-rendered pages. The session page talks to the JSON API and the websocket from static/js."""

from __future__ import annotations

import uuid

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from conversions import services
from conversions.api import session_detail
from conversions.errors import NotFound, PortalError
from conversions.models import Membership


@login_required
def dashboard(request: HttpRequest) -> HttpResponse:
    sessions = services.sessions_visible_to(request.user)
    memberships = Membership.objects.filter(user=request.user).select_related("lab")
    return render(request, "conversions/dashboard.html", {"sessions": sessions, "memberships": memberships})


@login_required
@require_POST
def new_session(request: HttpRequest) -> HttpResponse:
    lab = request.POST.get("lab")
    try:
        session = services.create_session(
            user=request.user, lab_id=int(lab) if lab else None, title=request.POST.get("title", "")
        )
    except (PortalError, ValueError) as exc:
        messages.error(request, getattr(exc, "user_message", "That lab is not one of yours."))
        return redirect("dashboard")
    return redirect("session_page", session_id=session.id)


@login_required
def session_page(request: HttpRequest, session_id: uuid.UUID) -> HttpResponse:
    try:
        session = services.get_session(request.user, session_id)
    except NotFound:
        raise Http404("No such conversion session.") from None
    return render(request, "conversions/session.html", {"session": session, "detail": session_detail(session)})

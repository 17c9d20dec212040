"""Server-rendered pages. The session page talks to the JSON API and the websocket from static/js."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast
from urllib.parse import urlencode

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.db.models import BigIntegerField, Count, IntegerField, OuterRef, Q, QuerySet, Subquery, Sum
from django.db.models.fields.json import KT
from django.db.models.functions import Coalesce
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.timesince import timesince
from django.views.decorators.http import require_POST

from conversions.api.schemas import STATUS_GROUPS, SessionFilters, StatusGroup, session_detail
from conversions.http_errors import on_failure_return_to
from conversions.models import ConversionAttempt, ConversionSession, Membership, SourceFile
from conversions.nwb.fields import CRITICAL_FIELDS, FIELDS, FILE_FACTS, SUBJECT_FIELDS, Placement
from conversions.orchestrator.state import Awaiting, Status
from conversions.services import sessions
from conversions.services.authentication import AuthenticatedHttpRequest

# --- the dashboard ---------------------------------------------------------------------------------

DASHBOARD_PAGE_SIZE = 25
RECENT = timedelta(minutes=1)

# The status filters, in the order the dashboard offers them, and each status group's badge.
STATUS_FILTERS = [
    ("all", "All"),
    ("needs_answer", "Needs an answer"),
    ("running", "Running"),
    ("done", "Done"),
    ("failed", "Failed or stuck"),
    ("cancelled", "Cancelled"),
]
BADGES = {
    "needs_answer": "needs you",
    "running": "running",
    "done": "done",
    "failed": "failed",
    "cancelled": "cancelled",
}

STATUS_WORDS = {
    Status.IDLE: "Waiting for the recording's files",
    Status.DETECTING_FORMAT: "Reading the files",
    Status.AWAITING_USER_INPUT: "Waiting for an answer",
    Status.AWAITING_APPROVAL: "Ready to convert, waiting for approval",
    Status.CONVERTING: "Converting",
    Status.VALIDATING: "Checking the NWB file",
    Status.COMPLETED: "Converted and validated",
    Status.COMPLETED_WITH_ISSUES: "Converted, with validation notes",
    Status.FAILED: "Conversion failed",
    Status.CANCELLED: "Cancelled",
}
AWAITING_WORDS = {
    Awaiting.FORMAT_SELECTION: "Waiting for the choice of format",
    Awaiting.REQUIRED_METADATA: "Waiting for details about the recording",
    Awaiting.APPROVAL: "Ready to convert, waiting for approval",
    Awaiting.CORRECTION: "Converted; waiting for a look at the validation notes",
    Awaiting.NO_PROGRESS_DECISION: "Waiting for a decision on how to go on",
}


@dataclass(frozen=True)
class DashboardRow:
    session: ConversionSession
    status_words: str
    group: str
    badge: str
    own: bool
    ago: str


def _dashboard_row(session: ConversionSession, user: User) -> DashboardRow:
    group = next(name for name, statuses in STATUS_GROUPS.items() if session.status in statuses)
    own = session.owner_id == user.pk
    words = STATUS_WORDS[Status(session.status)]
    if session.status == Status.AWAITING_USER_INPUT and session.awaiting:
        words = AWAITING_WORDS[Awaiting(session.awaiting)]
    return DashboardRow(
        session=session,
        status_words=words,
        group=group,
        badge="needs an answer" if group == "needs_answer" and not own else BADGES[group],
        own=own,
        ago="just now" if timezone.now() - session.updated < RECENT else f"{timesince(session.updated, depth=1)} ago",
    )


def _dashboard_sessions(user: User) -> QuerySet[ConversionSession]:
    """The user's own sessions and every session of the labs they manage. Staff see only these here
    too: everyone's sessions are in the review queue and the admin."""
    managed = Membership.objects.filter(user=user, role=Membership.Role.MANAGER).values("lab_id")
    return sessions.sessions_visible_to(user).filter(Q(owner=user) | Q(lab_id__in=managed))


def _with_totals(sessions: QuerySet[ConversionSession]) -> QuerySet[ConversionSession]:
    """Sizes and counts as subqueries: one query for a whole page, and no join that would multiply
    files by attempts."""
    files = SourceFile.objects.filter(session=OuterRef("pk")).order_by().values("session")
    attempts = ConversionAttempt.objects.filter(session=OuterRef("pk")).order_by().values("session")
    first_file = SourceFile.objects.filter(session=OuterRef("pk")).order_by("relative_path").values("relative_path")
    return sessions.defer("state", "detection").annotate(
        total_bytes=Coalesce(
            Subquery(files.annotate(total=Sum("size_bytes")).values("total")), 0, output_field=BigIntegerField()
        ),
        file_count=Coalesce(Subquery(files.annotate(n=Count("id")).values("n")), 0, output_field=IntegerField()),
        first_file=Subquery(first_file[:1]),
        attempt_count=Coalesce(Subquery(attempts.annotate(n=Count("id")).values("n")), 0, output_field=IntegerField()),
        format_label=KT("detection__format_label"),
    )


def _read_filters(request: HttpRequest, lab_ids: set[int]) -> tuple[SessionFilters, list[str]]:
    """The filters in the query string; what cannot be used is said and left out, never an error page."""
    problems = []
    status = request.GET.get("status") or "all"
    if status not in dict(STATUS_FILTERS):
        problems.append(f"“{status}” is not one of the status filters, so all statuses are shown.")
        status = "all"
    lab = request.GET.get("lab") or ""
    lab_id = int(lab) if lab.isdigit() and int(lab) in lab_ids else None
    if lab and lab_id is None:
        problems.append("That lab is not one of yours, so sessions of all your labs are shown.")
    query = " ".join(request.GET.get("q", "").split())
    if len(query) > 200:
        problems.append("The search was cut to its first 200 characters.")
        query = query[:200]
    # status is one of STATUS_FILTERS, checked above.
    return SessionFilters(status=cast(StatusGroup, status), lab=lab_id, q=query), problems


def _query_string(filters: SessionFilters, *, status: str | None = None, page: int = 1) -> str:
    params: dict[str, Any] = {"status": status or filters.status, "lab": filters.lab, "q": filters.q, "page": page}
    if params["status"] == "all":
        del params["status"]
    if page == 1:
        del params["page"]
    return "?" + urlencode({key: value for key, value in params.items() if value not in (None, "")})


@login_required
def dashboard(request: AuthenticatedHttpRequest) -> HttpResponse:
    user = request.user
    memberships = list(Membership.objects.filter(user=user).select_related("lab").order_by("lab__name"))
    filters, problems = _read_filters(request, {m.lab_id for m in memberships})

    # Counted with the lab and the search applied but not the status, so each tab says how many it holds.
    unfiltered_status = SessionFilters(lab=filters.lab, q=filters.q).apply(_dashboard_sessions(user))
    counts = unfiltered_status.aggregate(
        **{key: Count("pk", filter=SessionFilters.status_condition(key)) for key, _ in STATUS_FILTERS}
    )
    tabs = [
        {
            "key": key,
            "label": label,
            "count": counts[key],
            "url": _query_string(filters, status=key),
            "current": key == filters.status,
        }
        for key, label in STATUS_FILTERS
    ]

    listed = _with_totals(filters.apply(_dashboard_sessions(user))).order_by("-updated", "-created", "id")
    page = Paginator(listed, DASHBOARD_PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [_dashboard_row(session, user) for session in page.object_list]
    manages = any(m.role == Membership.Role.MANAGER for m in memberships)
    context = {
        "memberships": memberships,
        "filters": filters,
        "filtered": filters.status != "all" or filters.lab is not None or bool(filters.q),
        "problems": problems,
        "tabs": tabs,
        "rows": rows,
        "page": page,
        "previous_url": _query_string(filters, page=page.previous_page_number()) if page.has_previous() else "",
        "next_url": _query_string(filters, page=page.next_page_number()) if page.has_next() else "",
        "first_url": _query_string(filters, page=1),
        "last_url": _query_string(filters, page=page.paginator.num_pages),
        "show_owner": manages,
        "show_lab": len(memberships) > 1,
        "has_any": counts["all"] > 0 or filters.lab is not None or bool(filters.q),
        "manages": manages,
    }
    return render(request, "conversions/dashboard.html", context)


@login_required
@require_POST
@on_failure_return_to("dashboard")
def new_session(request: AuthenticatedHttpRequest) -> HttpResponse:
    lab = request.POST.get("lab") or ""
    if lab and not lab.isdigit():
        messages.error(request, "Choose one of your labs from the list.")
        return redirect("dashboard")
    session = sessions.create_session(
        user=request.user, lab_id=int(lab) if lab else None, title=request.POST.get("title", "")
    )
    return redirect("session_page", session_id=session.id)


@login_required
def session_page(request: AuthenticatedHttpRequest, session_id: uuid.UUID) -> HttpResponse:
    session = sessions.get_session(request.user, session_id)
    context = {"session": session, "detail": session_detail(session), "fields": _field_catalogue(session)}
    return render(request, "conversions/session.html", context)


def _field_catalogue(session: ConversionSession) -> list[dict[str, Any]]:
    """Every field the metadata panel shows, set or not, in the order a scientist reads them: what
    NWB and DANDI require first, then the subject DANDI asks for, the rest, and what the files say
    (never typed in, so not editable). What places a video or pose in time is shown only for a
    session whose files hold one."""
    first = [*CRITICAL_FIELDS, "session_start_time", *SUBJECT_FIELDS]
    cameras = {stream.get("kind") for stream in (session.detection or {}).get("streams", ())} & {"pose", "video"}
    order = [
        *first,
        *(name for name in FIELDS if name not in first and (FIELDS[name].placement is not Placement.TIMING or cameras)),
    ]
    fields: list[dict[str, Any]] = []
    for name in order:
        spec = FIELDS[name]
        if name in CRITICAL_FIELDS or name == "session_start_time":
            need = "required"
        elif name in SUBJECT_FIELDS:
            need = "dandi"
        else:
            need = "optional"
        fields.append(
            {
                "name": name,
                "label": spec.label,
                "description": spec.question,
                "example": spec.example,
                "need": need,
                "editable": True,
            }
        )
    fields += [
        {"name": name, "label": label, "description": "", "example": "", "need": "file", "editable": False}
        for name, label in FILE_FACTS.items()
    ]
    return fields

"""Validation reports (JSON and HTML) and what a converted file looks like: its tree and a plot of its first seconds."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from django.http import HttpResponse
from django.template.loader import render_to_string
from django.utils.text import slugify
from ninja import Router

from conversions.api.schemas import ErrorOut, binary_answer, json_answer
from conversions.errors import BadRequest, NotFound, StorageProblem
from conversions.models import ConversionAttempt, ConversionSession, Preview
from conversions.nwb.plot import DEFAULT_SECONDS, MAX_SECONDS, NothingToPlot, plot_nwb
from conversions.nwb.tree import UnreadableFile, nwb_tree
from conversions.services import sessions
from conversions.services.authentication import AuthenticatedHttpRequest
from conversions.services.reports import build_report

router = Router()

# A converted file never changes once written, but who may see it can: only the browser keeps a copy.
_CACHE = "private, max-age=3600"
# The report page and the plot hold no script and load nothing from elsewhere; the browser is told so.
_SELF_CONTAINED = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_NOT_YET: dict[str, str] = {
    ConversionAttempt.State.QUEUED: "it is still waiting to start",
    ConversionAttempt.State.RUNNING: "it is still converting",
    ConversionAttempt.State.FAILED: "it failed",
    ConversionAttempt.State.CANCELLED: "it was cancelled",
}


# --- the report ------------------------------------------------------------------------------------


@router.get(
    "/sessions/{session_id}/report.json", response={200: dict[str, Any], 404: ErrorOut}, url_name="session_report_json"
)
def report_json(request: AuthenticatedHttpRequest, session_id: uuid.UUID, download: bool = False) -> HttpResponse:
    """The validation report: session, recording, metadata with provenance, attempts, the latest
    validated attempt's issues grouped by importance, and the conversation with its audit events."""
    session = sessions.get_session(request.user, session_id)
    response = json_answer(build_report(session))
    if download:
        response["Content-Disposition"] = f'attachment; filename="{_report_name(session)}.json"'
    return response


@router.get(
    "/sessions/{session_id}/report.html",
    response={404: ErrorOut},
    url_name="session_report_html",
    openapi_extra=binary_answer("The report as a self-contained HTML page", "text/html"),
)
def report_html(request: AuthenticatedHttpRequest, session_id: uuid.UUID, download: bool = False) -> HttpResponse:
    """The same report as a self-contained page to read, print or keep (`?download=1`)."""
    session = sessions.get_session(request.user, session_id)
    page = render_to_string("conversions/report.html", {"report": build_report(session)})
    response = HttpResponse(page, content_type="text/html; charset=utf-8")
    response["Content-Security-Policy"] = _SELF_CONTAINED
    if download:
        response["Content-Disposition"] = f'attachment; filename="{_report_name(session)}.html"'
    return response


def _report_name(session: ConversionSession) -> str:
    return f"nwbportal-report-{slugify(session.title)[:60] or session.id}"


# --- the converted file: tree and plot ---------------------------------------------------------------


@router.get(
    "/sessions/{session_id}/attempts/{number}/tree",
    response={200: dict[str, Any], 404: ErrorOut, 503: ErrorOut},
    url_name="session_attempt_tree",
)
def attempt_tree(request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int) -> HttpResponse:
    """The groups and datasets of an attempt's NWB file (see conversions.nwb.tree.nwb_tree)."""
    return _tree(_attempt_file(request, session_id, number))


@router.get(
    "/sessions/{session_id}/attempts/{number}/plot.svg",
    response={400: ErrorOut, 404: ErrorOut, 503: ErrorOut},
    url_name="session_attempt_plot",
    openapi_extra=binary_answer("An SVG drawing of the file's first seconds", "image/svg+xml"),
)
def attempt_plot(
    request: AuthenticatedHttpRequest,
    session_id: uuid.UUID,
    number: int,
    seconds: float = DEFAULT_SECONDS,
    first_channel: int = 0,
    series: str | None = None,
) -> HttpResponse:
    """An SVG of the file's first seconds: a few channels of the main recording, or the first
    patch-clamp sweep. `series` (an HDF5 path, as in the tree) draws another series."""
    return _plot(_attempt_file(request, session_id, number), seconds, first_channel, series)


@router.get(
    "/sessions/{session_id}/previews/{number}/tree",
    response={200: dict[str, Any], 404: ErrorOut, 503: ErrorOut},
    url_name="session_preview_tree",
)
def preview_tree(request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int) -> HttpResponse:
    return _tree(_preview_file(request, session_id, number))


@router.get(
    "/sessions/{session_id}/previews/{number}/plot.svg",
    response={400: ErrorOut, 404: ErrorOut, 503: ErrorOut},
    url_name="session_preview_plot",
    openapi_extra=binary_answer("An SVG drawing of the preview's first seconds", "image/svg+xml"),
)
def preview_plot(
    request: AuthenticatedHttpRequest,
    session_id: uuid.UUID,
    number: int,
    seconds: float = DEFAULT_SECONDS,
    first_channel: int = 0,
    series: str | None = None,
) -> HttpResponse:
    return _plot(_preview_file(request, session_id, number), seconds, first_channel, series)


def _attempt_file(request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int) -> Path:
    session = sessions.get_session(request.user, session_id)
    attempt = session.attempts.filter(number=number).first()
    if attempt is None:
        raise NotFound(f"This session has no conversion attempt {number}.")
    if attempt.state != ConversionAttempt.State.SUCCEEDED:
        raise NotFound(f"Attempt {number} has no NWB file yet: {_NOT_YET.get(attempt.state, attempt.state)}.")
    return _existing(Path(attempt.output_path), f"The NWB file of attempt {number}")


def _preview_file(request: AuthenticatedHttpRequest, session_id: uuid.UUID, number: int) -> Path:
    session = sessions.get_session(request.user, session_id)
    preview = session.previews.filter(number=number).first()
    if preview is None:
        raise NotFound(f"This session has no preview {number}: ask for one with “preview”.")
    if preview.state != Preview.State.SUCCEEDED:
        raise NotFound(f"Preview {number} has no NWB file yet: {_NOT_YET.get(preview.state, preview.state)}.")
    return _existing(Path(preview.output_path), f"The NWB file of preview {number}")


def _existing(path: Path, what: str) -> Path:
    if not path.is_file():
        raise NotFound(f"{what} is no longer on the server.")
    return path


def _tree(path: Path) -> HttpResponse:
    try:
        tree = nwb_tree(path)
    except UnreadableFile as error:
        raise StorageProblem(f"The NWB file could not be read: {error}", detail=str(path)) from error
    response = json_answer(tree)
    response["Cache-Control"] = _CACHE
    return response


def _plot(path: Path, seconds: float, first_channel: int, series: str | None) -> HttpResponse:
    if not 0 < seconds <= MAX_SECONDS:
        raise BadRequest(f"The plot shows between 0 and {MAX_SECONDS:g} seconds; {seconds:g} is outside that.")
    if first_channel < 0:
        raise BadRequest("Channels are counted from 0; give a first channel of 0 or more.")
    try:
        svg = plot_nwb(path, seconds=seconds, first_channel=first_channel, series=series)
    except NothingToPlot as error:
        raise NotFound(str(error)) from error
    except UnreadableFile as error:
        raise StorageProblem(f"The NWB file could not be read: {error}", detail=str(path)) from error
    response = HttpResponse(svg, content_type="image/svg+xml; charset=utf-8")
    response["Cache-Control"] = _CACHE
    response["Content-Security-Policy"] = _SELF_CONTAINED
    response["X-Content-Type-Options"] = "nosniff"
    return response

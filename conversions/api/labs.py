"""Lab settings and the lab's subject registry. Any member of the lab reads them; its managers (and
portal staff) change them. The rules and the writes are in conversions.services.labs."""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from django.http import HttpResponse
from ninja import Query, Router, Schema, Status

from conversions.api.schemas import ErrorOut, Page, page_of
from conversions.errors import NotFound
from conversions.models import Lab, Subject
from conversions.services import labs
from conversions.services.authentication import AuthenticatedHttpRequest

router = Router(tags=["labs"])


class LabSettingsOut(Schema):
    id: int
    name: str
    institution: str
    lab_name: str
    timezone: str
    keywords: list[str]
    experimenters: list[str]
    llm_consent: bool
    # Whether the caller may change the settings and the registry.
    may_change: bool


class LabSettingsIn(Schema):
    """Settings to change; those left out stay as they are. Keywords and experimenters may be given
    as lists or as text ("V1, Neuropixels"; one person a line)."""

    institution: str | None = None
    lab_name: str | None = None
    timezone: str | None = None
    keywords: list[str] | str | None = None
    experimenters: list[str] | str | None = None
    llm_consent: bool | None = None


class SubjectOut(Schema):
    subject_id: str
    species: str
    sex: str
    date_of_birth: date | None
    strain: str
    description: str
    updated: datetime


class SubjectIn(Schema):
    subject_id: str
    species: str = ""
    sex: str = ""
    date_of_birth: str | None = None
    strain: str = ""
    description: str = ""


class SubjectChangeIn(Schema):
    """Fields to change; those left out stay as they are. A new subject_id renames the subject."""

    subject_id: str | None = None
    species: str | None = None
    sex: str | None = None
    date_of_birth: str | None = None
    strain: str | None = None
    description: str | None = None


class InvalidOut(Schema):
    detail: str
    # What each refused field needs instead, keyed by field name.
    errors: dict[str, str]


def _settings(lab: Lab, request: AuthenticatedHttpRequest) -> dict[str, Any]:
    return {
        "id": lab.id,
        "name": lab.name,
        **labs.settings_of(lab),
        "may_change": labs.may_change(request.user, lab),
    }


def _subject(lab: Lab, subject_id: str) -> Subject:
    subject = labs.find_subject(lab, subject_id)
    if subject is None:
        raise NotFound(f"There is no subject “{subject_id.strip()}” in this lab's registry.")
    return subject


def _invalid(refused: labs.InvalidValues) -> Status[dict[str, Any]]:
    return Status(400, {"detail": refused.user_message, "errors": refused.errors})


def _given(payload: Schema) -> dict[str, Any]:
    return payload.model_dump(exclude_none=True)


@router.get("/labs/{lab_id}/settings", response={200: LabSettingsOut, 404: ErrorOut}, url_name="lab_settings_detail")
def get_settings(request: AuthenticatedHttpRequest, lab_id: int) -> dict[str, Any]:
    return _settings(labs.lab_for(request.user, lab_id), request)


@router.put(
    "/labs/{lab_id}/settings",
    response={200: LabSettingsOut, 400: InvalidOut, 403: ErrorOut, 404: ErrorOut},
    url_name="lab_settings_change",
)
def put_settings(request: AuthenticatedHttpRequest, lab_id: int, payload: LabSettingsIn) -> Any:
    lab = labs.lab_for(request.user, lab_id, to_change=True)
    try:
        values = labs.clean_settings(_given(payload))
    except labs.InvalidValues as refused:
        return _invalid(refused)
    labs.change_settings(lab=lab, actor=request.user, values=values)
    return _settings(lab, request)


@router.get("/labs/{lab_id}/subjects", response={200: list[SubjectOut], 404: ErrorOut}, url_name="lab_subjects")
def list_subjects(
    request: AuthenticatedHttpRequest, lab_id: int, page: Query[Page], response: HttpResponse
) -> list[Subject]:
    """The lab's subjects by id, a page at a time (`X-Total-Count`, `Link`)."""
    listed = labs.lab_for(request.user, lab_id).subjects.order_by("subject_id", "id")
    return list(page_of(request, response, listed, page))


@router.post(
    "/labs/{lab_id}/subjects",
    response={201: SubjectOut, 400: InvalidOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    url_name="lab_subjects_add",
)
def add_subject(request: AuthenticatedHttpRequest, lab_id: int, payload: SubjectIn) -> Any:
    lab = labs.lab_for(request.user, lab_id, to_change=True)
    try:
        values = labs.clean_subject(_given(payload))
    except labs.InvalidValues as refused:
        return _invalid(refused)
    return Status(201, labs.add_subject(lab=lab, actor=request.user, values=values))


@router.get("/labs/{lab_id}/subjects/{subject_id}", response={200: SubjectOut, 404: ErrorOut}, url_name="lab_subject")
def get_subject(request: AuthenticatedHttpRequest, lab_id: int, subject_id: str) -> Subject:
    return _subject(labs.lab_for(request.user, lab_id), subject_id)


@router.put(
    "/labs/{lab_id}/subjects/{subject_id}",
    response={200: SubjectOut, 400: InvalidOut, 403: ErrorOut, 404: ErrorOut, 409: ErrorOut},
    url_name="lab_subject_change",
)
def change_subject(request: AuthenticatedHttpRequest, lab_id: int, subject_id: str, payload: SubjectChangeIn) -> Any:
    subject = _subject(labs.lab_for(request.user, lab_id, to_change=True), subject_id)
    try:
        values = labs.clean_subject(_given(payload))
    except labs.InvalidValues as refused:
        return _invalid(refused)
    labs.change_subject(subject=subject, actor=request.user, values=values)
    return subject


@router.delete(
    "/labs/{lab_id}/subjects/{subject_id}",
    response={204: None, 403: ErrorOut, 404: ErrorOut},
    url_name="lab_subject_remove",
)
def remove_subject(request: AuthenticatedHttpRequest, lab_id: int, subject_id: str) -> Status[None]:
    subject = _subject(labs.lab_for(request.user, lab_id, to_change=True), subject_id)
    labs.remove_subject(subject=subject, actor=request.user)
    return Status(204, None)

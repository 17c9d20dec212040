"""The lab settings page: a lab's defaults for new sessions and its subject registry, for the lab's
managers and portal staff. The rules and the writes are in conversions.services.labs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from conversions.errors import Conflict
from conversions.models import Lab, Subject
from conversions.services import labs
from conversions.services.authentication import AuthenticatedHttpRequest

TEMPLATE = "conversions/lab_settings.html"
SUBJECTS_PER_PAGE = 200


def _help(name: str) -> str:
    return str(Lab._meta.get_field(name).help_text)  # type: ignore[union-attr]  # a field, not a relation


class LabSettingsForm(forms.Form):
    error_css_class = "invalid"
    institution = forms.CharField(required=False, help_text=_help("institution"))
    lab_name = forms.CharField(label="Lab (NWB)", required=False, help_text=_help("lab_name"))
    timezone = forms.CharField(
        label="Time zone",
        widget=forms.TextInput(attrs={"list": "timezones", "autocomplete": "off", "spellcheck": "false"}),
        help_text=_help("timezone") + " Used for the lab's new sessions.",
        error_messages={"required": "Choose the lab's time zone, e.g. Europe/Paris or UTC."},
    )
    keywords = forms.CharField(
        required=False,
        help_text="Default keywords for new sessions, separated by commas, e.g. V1, Neuropixels, visual cortex.",
    )
    experimenters = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text=(
            "One person a line, e.g. Jane Smith; kept as “Smith, Jane”, the form DANDI wants. "
            "With exactly one experimenter, new sessions start with that name."
        ),
    )
    llm_consent = forms.BooleanField(label="LLM consent", required=False, help_text=_help("llm_consent"))

    @classmethod
    def of(cls, lab: Lab) -> LabSettingsForm:
        return cls(
            initial={
                **labs.settings_of(lab),
                "keywords": ", ".join(lab.keywords),
                "experimenters": "\n".join(lab.experimenters),
            }
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        given = {name: data[name] for name in labs.SETTINGS_FIELDS if name in data}
        try:
            return labs.clean_settings(given)
        except labs.InvalidValues as refused:
            for name, message in refused.errors.items():
                self.add_error(name, message)
        return data


class SubjectForm(forms.Form):
    error_css_class = "invalid"
    # The id the subject had when its editing began, so an edit may also change the id.
    editing = forms.CharField(required=False, widget=forms.HiddenInput)
    subject_id = forms.CharField(
        label="Subject id",
        help_text="As the lab writes it, e.g. mouse001.",
        error_messages={"required": "Give the subject's id, e.g. mouse001."},
    )
    species = forms.CharField(
        required=False, help_text="Common or Latin name; kept as the Latin name (mouse → Mus musculus)."
    )
    sex = forms.ChoiceField(choices=[("", "—"), *Subject.Sex.choices], required=False)
    date_of_birth = forms.CharField(
        label="Date of birth", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    strain = forms.CharField(required=False, help_text="e.g. C57BL/6J")
    description = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 2}))

    @classmethod
    def of(cls, subject: Subject) -> SubjectForm:
        return cls(
            initial={
                "editing": subject.subject_id,
                **{name: getattr(subject, name) for name in labs.SUBJECT_COLUMNS},
                "date_of_birth": subject.date_of_birth.isoformat() if subject.date_of_birth else "",
            }
        )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        given = {name: data[name] for name in labs.SUBJECT_COLUMNS if name in data}
        try:
            return {"editing": data.get("editing", ""), **labs.clean_subject(given)}
        except labs.InvalidValues as refused:
            for name, message in refused.errors.items():
                self.add_error(name, message)
        return data


class ImportForm(forms.Form):
    file = forms.FileField(label="CSV file", help_text="Columns: " + ", ".join(labs.SUBJECT_COLUMNS) + ".")


# --- access ---------------------------------------------------------------------------------------


def _for_managers(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """The view gets the lab if the user manages it (or is staff). Someone outside the lab gets a 404
    (its existence is not revealed); a member who does not manage it, a page saying who does."""

    @functools.wraps(view)
    @login_required
    def guarded(request: AuthenticatedHttpRequest, lab_id: int, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            lab = labs.lab_for(request.user, lab_id, to_change=True)
        except labs.NotAllowed as refusal:
            lab = labs.lab_for(request.user, lab_id)
            context = {"lab": lab, "refusal": refusal.user_message, "managers": labs.managers_of(lab)}
            return render(request, TEMPLATE, context, status=403)
        return view(request, lab, *args, **kwargs)

    return guarded


# --- pages ----------------------------------------------------------------------------------------


@login_required
def labs_home(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The settings of the (first) lab the user manages."""
    lab = labs.labs_changeable_by(request.user).order_by("name").first()
    if lab is None:
        raise Http404("You manage no lab.")
    return redirect("lab_settings", lab_id=lab.id)


def _page(
    request: AuthenticatedHttpRequest,
    lab: Lab,
    *,
    settings_form: LabSettingsForm | None = None,
    subject_form: SubjectForm | None = None,
    import_form: ImportForm | None = None,
    import_report: labs.ImportReport | None = None,
) -> HttpResponse:
    if subject_form is None:
        editing = labs.find_subject(lab, request.GET.get("subject", "")) if request.GET.get("subject") else None
        subject_form = SubjectForm.of(editing) if editing else SubjectForm()
    context = {
        "lab": lab,
        "labs": labs.labs_changeable_by(request.user).order_by("name"),
        "settings_form": settings_form or LabSettingsForm.of(lab),
        "subject_form": subject_form,
        "import_form": import_form or ImportForm(),
        "import_report": import_report,
        # A registry of thousands is shown a page at a time (LAB_MAX_SUBJECTS bounds it).
        "subjects": Paginator(lab.subjects.order_by("subject_id", "id"), SUBJECTS_PER_PAGE).get_page(
            request.GET.get("page")
        ),
        "timezones": labs.timezone_names().values(),
        "subject_columns": ",".join(labs.SUBJECT_COLUMNS),
    }
    return render(request, TEMPLATE, context)


@_for_managers
def settings_page(request: AuthenticatedHttpRequest, lab: Lab) -> HttpResponse:
    if request.method != "POST":
        return _page(request, lab)
    form = LabSettingsForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The settings were not saved: correct the fields marked below.")
        return _page(request, lab, settings_form=form)
    changed = labs.change_settings(lab=lab, actor=request.user, values=form.cleaned_data)
    if changed:
        labels = ", ".join(str(form.fields[name].label or name.replace("_", " ")).lower() for name in changed)
        messages.success(request, f"Settings saved ({labels}). New sessions start with them.")
    else:
        messages.info(request, "Nothing changed: the settings were already these.")
    return redirect("lab_settings", lab_id=lab.id)


@require_POST
@_for_managers
def save_subject(request: AuthenticatedHttpRequest, lab: Lab) -> HttpResponse:
    """Add a subject, or change one (the one being edited, or the one with the same id)."""
    form = SubjectForm(request.POST)
    if not form.is_valid():
        messages.error(request, "The subject was not saved: correct the fields marked below.")
        return _page(request, lab, subject_form=form)
    values = {name: form.cleaned_data[name] for name in labs.SUBJECT_COLUMNS}
    editing = form.cleaned_data["editing"]
    subject = labs.find_subject(lab, editing or values["subject_id"])
    if subject is not None and not editing:
        # The same id in another case is the registered subject, and keeps its spelling.
        del values["subject_id"]
    try:
        if subject is None:
            subject = labs.add_subject(lab=lab, actor=request.user, values=values)
            messages.success(request, f"{subject.subject_id} added to the registry.")
        elif changed := labs.change_subject(subject=subject, actor=request.user, values=values):
            messages.success(request, f"{subject.subject_id} updated ({', '.join(changed).replace('_', ' ')}).")
        else:
            messages.info(request, f"{subject.subject_id} already had these values.")
    except Conflict as conflict:
        form.add_error("subject_id", conflict.user_message)
        messages.error(request, "The subject was not saved: correct the fields marked below.")
        return _page(request, lab, subject_form=form)
    return redirect("lab_settings", lab_id=lab.id)


@require_POST
@_for_managers
def delete_subject(request: AuthenticatedHttpRequest, lab: Lab, subject_pk: int) -> HttpResponse:
    subject = lab.subjects.filter(pk=subject_pk).first()
    if subject is None:
        raise Http404("No such subject in this lab's registry.")
    labs.remove_subject(subject=subject, actor=request.user)
    messages.success(request, f"{subject.subject_id} removed from the registry.")
    return redirect("lab_settings", lab_id=lab.id)


@require_POST
@_for_managers
def import_subjects(request: AuthenticatedHttpRequest, lab: Lab) -> HttpResponse:
    form = ImportForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Nothing was imported: see below.")
        return _page(request, lab, import_form=form)
    upload = form.cleaned_data["file"]
    report = labs.import_subjects(lab=lab, actor=request.user, content=upload.read(labs.MAX_IMPORT_BYTES + 1))
    if report.errors:
        messages.error(request, report.summary())
        return _page(request, lab, import_report=report)
    messages.success(request, report.summary())
    return redirect("lab_settings", lab_id=lab.id)

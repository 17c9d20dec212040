import json
from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html

from conversions.models import (
    ApiToken,
    AuditEvent,
    ChatMessage,
    ConversionAttempt,
    ConversionSession,
    Lab,
    LlmCall,
    Membership,
    MetadataField,
    Preview,
    SourceFile,
    Subject,
    ValidationIssue,
)
from conversions.services import sessions
from conversions.services.review import debug_bundle


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


class SubjectInline(admin.TabularInline):
    model = Subject
    extra = 0
    fields = ("subject_id", "species", "sex", "date_of_birth", "strain", "description")


@admin.register(Lab)
class LabAdmin(admin.ModelAdmin):
    list_display = ("name", "timezone", "institution", "lab_name", "llm_consent", "created")
    list_filter = ("llm_consent",)
    search_fields = ("name", "institution", "lab_name")
    fieldsets = (
        (None, {"fields": ("name", "timezone", "llm_consent")}),
        ("Defaults for new sessions", {"fields": ("institution", "lab_name", "keywords", "experimenters")}),
        ("Server storage (portal admins only)", {"fields": ("data_root",)}),
    )
    inlines = [MembershipInline, SubjectInline]


@admin.register(Subject)
class SubjectAdmin(admin.ModelAdmin):
    list_display = ("subject_id", "lab", "species", "sex", "date_of_birth", "strain", "updated")
    list_filter = ("lab", "sex")
    search_fields = ("subject_id", "species", "strain")


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "lab", "role")
    list_filter = ("role", "lab")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Staff see which keys exist and revoke them; no key can be read (only its digest is kept) or made
    here (a key is shown once, to the person who makes it on their API keys page)."""

    list_display = ("user", "name", "hint", "created", "last_used", "revoked")
    list_filter = (("revoked", admin.EmptyFieldListFilter),)
    search_fields = ("user__username", "name", "lookup")
    fields = ("user", "name", "hint", "created", "last_used", "revoked")
    readonly_fields = ("user", "name", "hint", "created", "last_used", "revoked")
    actions = ("revoke",)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    @admin.action(description="Revoke the selected API keys")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiToken]) -> None:
        count = queryset.filter(revoked__isnull=True).update(revoked=timezone.now())
        self.message_user(request, f"{count} API key(s) revoked.")


class ConversionRecord:
    """A conversion's rows are changed only through the services (conversions/services, the one
    writer): staff act on a session from its review page, where each action goes through the
    orchestrator and the user sees it. The admin shows these rows; it never edits them."""

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


class SourceFileInline(ConversionRecord, admin.TabularInline):
    model = SourceFile
    extra = 0
    readonly_fields = ("relative_path", "size_bytes", "uploaded")


class MetadataFieldInline(ConversionRecord, admin.TabularInline):
    model = MetadataField
    extra = 0


class AttemptInline(ConversionRecord, admin.TabularInline):
    model = ConversionAttempt
    extra = 0
    fields = ("number", "state", "progress", "validation", "size_bytes", "started_at", "finished_at", "error_message")
    readonly_fields = fields
    show_change_link = True


class PreviewInline(ConversionRecord, admin.TabularInline):
    model = Preview
    extra = 0
    fields = ("number", "state", "streams", "size_bytes", "started_at", "finished_at", "error_message")
    readonly_fields = fields


class ChatMessageInline(ConversionRecord, admin.TabularInline):
    model = ChatMessage
    extra = 0
    fields = ("created", "role", "text")
    readonly_fields = fields


@admin.register(ConversionSession)
class ConversionSessionAdmin(ConversionRecord, admin.ModelAdmin):
    """Sessions are shown, and staff may delete them (with their files, through the services)."""

    list_display = ("id", "owner", "lab", "status", "awaiting", "format", "needs_review", "updated", "review_link")
    list_filter = ("needs_review", "status", "lab")
    search_fields = ("id", "title", "owner__username")
    readonly_fields = ("created", "updated", "review_link")
    actions = ["download_debug_bundle"]

    @admin.display(description="review")
    def review_link(self, obj: ConversionSession) -> str:
        """The staff review page (conversions.web.review): transcript, attempts and actions."""
        return format_html('<a href="{}">Review page</a>', reverse("review_session", args=[obj.id]))

    @admin.action(description="Download the debug bundle (JSON) of the selected sessions")
    def download_debug_bundle(self, request: HttpRequest, queryset: QuerySet[ConversionSession]) -> HttpResponse:
        """Everything about the sessions an expert needs (conversions.services.review), as one JSON file."""
        bundles = [debug_bundle(session) for session in queryset.select_related("owner", "lab")]
        body = json.dumps(bundles[0] if len(bundles) == 1 else bundles, indent=2, default=str)
        name = (
            f"nwbportal-session-{bundles[0]['session']['id']}.json" if len(bundles) == 1 else "nwbportal-sessions.json"
        )
        response = HttpResponse(body, content_type="application/json")
        response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    inlines = [SourceFileInline, MetadataFieldInline, AttemptInline, PreviewInline, ChatMessageInline]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return admin.ModelAdmin.has_delete_permission(self, request, obj)

    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        # The session's own rows (attempts, messages, …) go with it: no permission of theirs is asked.
        deleted, counts, _, protected = super().get_deleted_objects(objs, request)
        return deleted, counts, set(), protected

    def delete_model(self, request: HttpRequest, obj: ConversionSession) -> None:
        sessions.delete_sessions(ConversionSession.objects.filter(id=obj.id))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[ConversionSession]) -> None:
        sessions.delete_sessions(queryset)


class ValidationIssueInline(ConversionRecord, admin.TabularInline):
    model = ValidationIssue
    extra = 0
    readonly_fields = ("check_name", "importance", "message", "location", "explanation")


@admin.register(ConversionAttempt)
class ConversionAttemptAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("session", "number", "state", "validation", "progress", "worker", "started_at", "finished_at")
    list_filter = ("state", "validation")
    inlines = [ValidationIssueInline]


@admin.register(ValidationIssue)
class ValidationIssueAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("attempt", "importance", "check_name", "location")
    list_filter = ("importance", "check_name")


@admin.register(ChatMessage)
class ChatMessageAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("session", "role", "created", "text")
    list_filter = ("role",)


@admin.register(MetadataField)
class MetadataFieldAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("session", "name", "value", "source", "updated")
    list_filter = ("source", "name")


@admin.register(SourceFile)
class SourceFileAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("session", "relative_path", "size_bytes", "uploaded")


@admin.register(AuditEvent)
class AuditEventAdmin(ConversionRecord, admin.ModelAdmin):
    list_display = ("created", "session", "actor", "kind")
    list_filter = ("kind",)
    readonly_fields = ("created", "session", "actor", "kind", "detail")


@admin.register(LlmCall)
class LlmCallAdmin(ConversionRecord, admin.ModelAdmin):
    """Every call to the language model, for cost and failures; a record, so nothing is editable."""

    list_display = ("created", "session", "purpose", "model", "outcome", "input_tokens", "output_tokens", "latency_ms")
    list_filter = ("outcome", "purpose", "model")
    search_fields = ("session__id",)
    readonly_fields = (
        "created",
        "session",
        "purpose",
        "model",
        "outcome",
        "input_tokens",
        "output_tokens",
        "latency_ms",
        "fields",
        "detail",
    )

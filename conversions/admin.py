from django.contrib import admin

from conversions.models import (
    ApiToken,
    AuditEvent,
    ChatMessage,
    ConversionAttempt,
    ConversionSession,
    Lab,
    Membership,
    MetadataField,
    Preview,
    SourceFile,
    ValidationIssue,
)


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0


@admin.register(Lab)
class LabAdmin(admin.ModelAdmin):
    list_display = ("name", "timezone", "institution", "created")
    search_fields = ("name",)
    inlines = [MembershipInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ("user", "lab", "role")
    list_filter = ("role", "lab")


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    list_display = ("user", "created")
    readonly_fields = ("key",)


class SourceFileInline(admin.TabularInline):
    model = SourceFile
    extra = 0
    readonly_fields = ("relative_path", "size_bytes", "uploaded")


class MetadataFieldInline(admin.TabularInline):
    model = MetadataField
    extra = 0


class AttemptInline(admin.TabularInline):
    model = ConversionAttempt
    extra = 0
    fields = ("number", "state", "progress", "validation", "size_bytes", "started_at", "finished_at", "error_message")
    readonly_fields = fields
    show_change_link = True


class PreviewInline(admin.TabularInline):
    model = Preview
    extra = 0
    fields = ("number", "state", "streams", "size_bytes", "started_at", "finished_at", "error_message")
    readonly_fields = fields


class ChatMessageInline(admin.TabularInline):
    model = ChatMessage
    extra = 0
    fields = ("created", "role", "text")
    readonly_fields = fields


@admin.register(ConversionSession)
class ConversionSessionAdmin(admin.ModelAdmin):
    list_display = ("id", "owner", "lab", "status", "awaiting", "format", "needs_review", "updated")
    list_filter = ("needs_review", "status", "lab")
    search_fields = ("id", "title", "owner__username")
    readonly_fields = ("created", "updated")
    inlines = [SourceFileInline, MetadataFieldInline, AttemptInline, PreviewInline, ChatMessageInline]


class ValidationIssueInline(admin.TabularInline):
    model = ValidationIssue
    extra = 0
    readonly_fields = ("check_name", "importance", "message", "location", "explanation")


@admin.register(ConversionAttempt)
class ConversionAttemptAdmin(admin.ModelAdmin):
    list_display = ("session", "number", "state", "validation", "progress", "worker", "started_at", "finished_at")
    list_filter = ("state", "validation")
    inlines = [ValidationIssueInline]


@admin.register(ValidationIssue)
class ValidationIssueAdmin(admin.ModelAdmin):
    list_display = ("attempt", "importance", "check_name", "location")
    list_filter = ("importance", "check_name")


@admin.register(ChatMessage)
class ChatMessageAdmin(admin.ModelAdmin):
    list_display = ("session", "role", "created", "text")
    list_filter = ("role",)


@admin.register(MetadataField)
class MetadataFieldAdmin(admin.ModelAdmin):
    list_display = ("session", "name", "value", "source", "updated")
    list_filter = ("source", "name")


@admin.register(SourceFile)
class SourceFileAdmin(admin.ModelAdmin):
    list_display = ("session", "relative_path", "size_bytes", "uploaded")


@admin.register(AuditEvent)
class AuditEventAdmin(admin.ModelAdmin):
    list_display = ("created", "session", "actor", "kind")
    list_filter = ("kind",)
    readonly_fields = ("created", "session", "actor", "kind", "detail")

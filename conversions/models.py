"""What nwbportal stores: labs, conversion sessions and everything that happens in them."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import shutil
import uuid
import zoneinfo
from enum import StrEnum
from pathlib import Path

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils import timezone

from conversions.errors import Conflict
from conversions.orchestrator.state import Awaiting, Memory, Source, Status


def validate_timezone(value: str) -> None:
    if value not in zoneinfo.available_timezones():
        raise ValidationError(f"“{value}” is not a known time zone (e.g. Europe/Paris, America/New_York, UTC).")


def _choices(enum: type[StrEnum]) -> list[tuple[str, str]]:
    return [(member.value, member.value.replace("_", " ")) for member in enum]


class Lab(models.Model):
    name = models.CharField(max_length=200, unique=True)
    timezone = models.CharField(
        max_length=64,
        default="UTC",
        validators=[validate_timezone],
        help_text="Recording files carry no time zone; their start times are read in this one.",
    )
    institution = models.CharField(max_length=200, blank=True, help_text="Default institution for new sessions.")
    lab_name = models.CharField(
        "lab (NWB)", max_length=200, blank=True, help_text="Default for the NWB 'lab' field of new sessions."
    )
    keywords = models.JSONField(default=list, blank=True, help_text="Default keywords for new sessions (a list).")
    experimenters = models.JSONField(
        default=list,
        blank=True,
        help_text='The lab\'s experimenters ("Last, First"), offered when a session asks who recorded it.',
    )
    data_root = models.CharField(
        max_length=1024,
        blank=True,
        help_text=(
            "A folder on the portal's server (e.g. the institute's shared drive) that lab members may import "
            "recordings from. Nothing outside it is reachable. Empty: no import from server storage."
        ),
    )
    llm_consent = models.BooleanField(
        "LLM consent",
        default=False,
        help_text=(
            "The lab agrees that chat messages the portal's rules cannot read, with the recent "
            "conversation, are sent to the language model (Anthropic) to be understood. Only used when "
            "the portal has an API key (ANTHROPIC_API_KEY). Off: nothing leaves the portal."
        ),
    )
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name


class Subject(models.Model):
    """A lab's subject registry: what the lab knows about an animal, used to fill a session's subject
    fields when its subject id is given (and to compute the age from the date of birth)."""

    class Sex(models.TextChoices):
        MALE = "M"
        FEMALE = "F"
        UNKNOWN = "U"
        OTHER = "O"

    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="subjects")
    subject_id = models.CharField(max_length=200)
    species = models.CharField(max_length=200, blank=True)
    sex = models.CharField(max_length=1, choices=Sex.choices, blank=True)
    date_of_birth = models.DateField(null=True, blank=True)
    strain = models.CharField(max_length=200, blank=True)
    description = models.TextField(blank=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["subject_id"]
        constraints = [models.UniqueConstraint(fields=["lab", "subject_id"], name="one_subject_id_per_lab")]

    def __str__(self) -> str:
        return f"{self.subject_id} ({self.lab})"


class Membership(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member"
        MANAGER = "manager"

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships")
    lab = models.ForeignKey(Lab, on_delete=models.CASCADE, related_name="memberships")
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.MEMBER)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "lab"], name="one_membership_per_lab"),
            models.CheckConstraint(condition=Q(role__in=["member", "manager"]), name="membership_role_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.lab} ({self.role})"


class ApiToken(models.Model):
    """A key a script sends as `Authorization: Token <key>`. Only a digest of the key is kept: the key
    is shown once, when it is made, so a copy of the database or an admin page holds no working key.
    A key reads `nwbp_<lookup>_<secret>`: the lookup finds its row (and tells its owner which key is
    which), the secret is what the digest proves."""

    PREFIX = "nwbp_"
    # Keys made before keys were hashed (40 hex digits) are found by their first characters.
    LEGACY_LOOKUP_LENGTH = 12
    # Touching last_used on every request would write a row per API call; once a minute says enough.
    LAST_USED_RESOLUTION_SECONDS = 60
    MAX_ACTIVE_PER_USER = 20

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=100, help_text="What the key is for, e.g. “analysis server”.")
    lookup = models.CharField(max_length=16, unique=True, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    last_used = models.DateTimeField(null=True, blank=True, editable=False)
    revoked = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"{self.name} ({self.hint}) of {self.user}"

    @property
    def hint(self) -> str:
        """How the key is shown after it was made: enough to recognise it, nothing to use."""
        return f"{self.PREFIX}{self.lookup}_…"

    @property
    def active(self) -> bool:
        return self.revoked is None

    @staticmethod
    def digest_of(key: str) -> str:
        # The secret is 256 random bits: a fast hash is enough, unlike for passwords people choose.
        return hashlib.sha256(key.encode()).hexdigest()

    @classmethod
    def lookup_of(cls, key: str) -> str:
        if key.startswith(cls.PREFIX):
            return key[len(cls.PREFIX) :].partition("_")[0]
        return key[: cls.LEGACY_LOOKUP_LENGTH]

    @classmethod
    def issue(cls, user: models.Model, name: str) -> tuple[ApiToken, str]:
        """A new token of `user` and its key, which is not kept and cannot be shown again."""
        if cls.objects.filter(user=user, revoked__isnull=True).count() >= cls.MAX_ACTIVE_PER_USER:
            raise Conflict(
                f"You already have {cls.MAX_ACTIVE_PER_USER} active API keys: revoke one you no longer use first."
            )
        lookup = secrets.token_hex(6)
        key = f"{cls.PREFIX}{lookup}_{secrets.token_urlsafe(32)}"
        token = cls.objects.create(user=user, name=name, lookup=lookup, digest=cls.digest_of(key))
        return token, key

    @classmethod
    def named_by(cls, key: str) -> ApiToken | None:
        """The token whose lookup the key carries, revoked or not, whether or not the key is right."""
        return cls.objects.select_related("user").filter(lookup=cls.lookup_of(key)).first()

    @classmethod
    def find(cls, key: str) -> ApiToken | None:
        """The active token whose key this is, or None."""
        token = cls.named_by(key)
        return token if token is not None and token.proven_by(key) else None

    def proven_by(self, key: str) -> bool:
        """Whether `key` is this token's, and the token still works."""
        return self.revoked is None and hmac.compare_digest(self.digest, self.digest_of(key))

    def mark_used(self) -> None:
        now = timezone.now()
        if self.last_used is None or (now - self.last_used).total_seconds() >= self.LAST_USED_RESOLUTION_SECONDS:
            ApiToken.objects.filter(pk=self.pk).update(last_used=now)
            self.last_used = now


class ConversionSession(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="conversion_sessions")
    lab = models.ForeignKey(Lab, on_delete=models.PROTECT, related_name="sessions")
    title = models.CharField(max_length=200, blank=True)
    status = models.CharField(max_length=32, choices=_choices(Status), default=Status.IDLE)
    # NULL means "waiting for nothing", which the API reports as null.
    awaiting = models.CharField(max_length=32, choices=_choices(Awaiting), null=True, blank=True)  # noqa: DJ001
    format = models.CharField(max_length=64, blank=True)
    # The detection result (streams, file metadata) as produced by conversions.nwb.detection.
    detection = models.JSONField(null=True, blank=True)
    # The orchestrator's memory (conversions.orchestrator.state.Memory).
    state = models.JSONField(default=dict, blank=True)
    timezone = models.CharField(max_length=64, validators=[validate_timezone])
    needs_review = models.BooleanField(default=False)
    review_reason = models.TextField(blank=True)
    # When the session entered the admin review queue, and when staff were told about it.
    review_since = models.DateTimeField(null=True, blank=True)
    review_notified_at = models.DateTimeField(null=True, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["-updated"]
        constraints = [
            models.CheckConstraint(condition=Q(status__in=[s.value for s in Status]), name="session_status_valid"),
            models.CheckConstraint(
                condition=Q(awaiting__isnull=True) | Q(awaiting__in=[a.value for a in Awaiting]),
                name="session_awaiting_valid",
            ),
        ]
        indexes = [models.Index(fields=["owner", "-updated"]), models.Index(fields=["lab", "-updated"])]

    def __str__(self) -> str:
        return self.title or f"session {self.id}"

    @property
    def memory(self) -> Memory:
        return Memory.model_validate(self.state or {})

    @property
    def directory(self) -> Path:
        return Path(settings.DATA_ROOT) / "sessions" / str(self.id)

    @property
    def source_directory(self) -> Path:
        return self.directory / "source"

    def clean(self) -> None:
        Memory.model_validate(self.state or {})


def remove_session_files(sender: type, instance: ConversionSession, **kwargs: object) -> None:
    """A deleted session takes its uploads and NWB files with it."""
    shutil.rmtree(instance.directory, ignore_errors=True)


class SourceFile(models.Model):
    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="files")
    relative_path = models.CharField(max_length=1024)
    size_bytes = models.BigIntegerField()
    uploaded = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["relative_path"]
        constraints = [models.UniqueConstraint(fields=["session", "relative_path"], name="one_file_per_path")]

    def __str__(self) -> str:
        return self.relative_path


class PendingUpload(models.Model):
    """A file being uploaded in pieces: declared with its size, received chunk by chunk into a part
    file, and registered as a SourceFile once complete. What is missing after an interruption is
    `size_bytes - received_bytes`; only that is sent again."""

    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="pending_uploads")
    relative_path = models.CharField(max_length=1024)
    size_bytes = models.BigIntegerField()
    received_bytes = models.BigIntegerField(default=0)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["relative_path"]
        constraints = [models.UniqueConstraint(fields=["session", "relative_path"], name="one_pending_upload_per_path")]

    def __str__(self) -> str:
        return f"{self.relative_path} ({self.received_bytes}/{self.size_bytes})"


class MetadataField(models.Model):
    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="metadata_fields")
    name = models.CharField(max_length=64)
    value = models.JSONField()
    source = models.CharField(max_length=16, choices=_choices(Source))
    updated = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            models.UniqueConstraint(fields=["session", "name"], name="one_value_per_field"),
            models.CheckConstraint(condition=Q(source__in=[s.value for s in Source]), name="metadata_source_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.name}={self.value!r} ({self.source})"


class ConversionAttempt(models.Model):
    class State(models.TextChoices):
        QUEUED = "queued"
        RUNNING = "running"
        SUCCEEDED = "succeeded"
        FAILED = "failed"
        CANCELLED = "cancelled"

    class Validation(models.TextChoices):
        PENDING = "pending"
        RUNNING = "running"
        PASSED = "passed"
        PASSED_WITH_ISSUES = "passed_with_issues"
        FAILED = "failed"

    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="attempts")
    number = models.PositiveIntegerField()
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    streams = models.JSONField(default=list)
    # The metadata the attempt was converted with, so each attempt can be explained later.
    metadata = models.JSONField(default=dict)
    output_path = models.CharField(max_length=1024, blank=True)
    size_bytes = models.BigIntegerField(null=True, blank=True)
    progress = models.FloatField(default=0.0)
    task_id = models.CharField(max_length=64, blank=True)
    # How many times the job was handed to a worker: a lost worker's job is run again once.
    deliveries = models.PositiveSmallIntegerField(default=0)
    worker = models.CharField(max_length=200, blank=True)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)
    error_detail = models.TextField(blank=True)
    # Form fixes the conversion applied from the files (conversions.nwb.autofix.AppliedFix.to_json()).
    fixes = models.JSONField(default=list, blank=True)
    validation = models.CharField(max_length=32, choices=Validation.choices, default=Validation.PENDING)
    validation_started_at = models.DateTimeField(null=True, blank=True)
    validated_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="one_attempt_per_number"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "succeeded", "failed", "cancelled"]),
                name="attempt_state_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"attempt {self.number} of {self.session_id}"

    @property
    def duration_s(self) -> float | None:
        if self.started_at and self.finished_at:
            return (self.finished_at - self.started_at).total_seconds()
        return None


class Preview(models.Model):
    """A seconds-long stub conversion made before the full run, to see the file's structure and the
    metadata in place. Never validated and never offered as the session's result."""

    # A preview's job goes through the same states as an attempt's.
    State = ConversionAttempt.State

    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="previews")
    number = models.PositiveIntegerField()
    state = models.CharField(max_length=16, choices=State.choices, default=State.QUEUED)
    streams = models.JSONField(default=list)
    metadata = models.JSONField(default=dict)
    output_path = models.CharField(max_length=1024, blank=True)
    size_bytes = models.BigIntegerField(null=True, blank=True)
    # conversions.nwb.preview.describe_nwb() of the file.
    summary = models.JSONField(default=dict, blank=True)
    deliveries = models.PositiveSmallIntegerField(default=0)
    queued_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    error_message = models.TextField(blank=True)
    error_detail = models.TextField(blank=True)

    class Meta:
        ordering = ["session", "number"]
        constraints = [
            models.UniqueConstraint(fields=["session", "number"], name="one_preview_per_number"),
            models.CheckConstraint(
                condition=Q(state__in=["queued", "running", "succeeded", "failed", "cancelled"]),
                name="preview_state_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"preview {self.number} of {self.session_id}"


class ValidationIssue(models.Model):
    attempt = models.ForeignKey(ConversionAttempt, on_delete=models.CASCADE, related_name="issues")
    check_name = models.CharField(max_length=200)
    importance = models.CharField(max_length=64)
    message = models.TextField()
    location = models.CharField(max_length=1024, blank=True)
    object_type = models.CharField(max_length=200, blank=True)
    object_name = models.CharField(max_length=200, blank=True)
    explanation = models.TextField(blank=True)

    class Meta:
        ordering = ["attempt", "id"]

    def __str__(self) -> str:
        return f"{self.importance} {self.check_name}"


class ChatMessage(models.Model):
    class Role(models.TextChoices):
        USER = "user"
        ASSISTANT = "assistant"
        # A note from a portal admin who reviewed the session; the user sees it in the chat.
        REVIEWER = "reviewer"

    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="messages")
    role = models.CharField(max_length=16, choices=Role.choices)
    text = models.TextField()
    card = models.CharField(max_length=32, blank=True)
    data = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.role}: {self.text[:60]}"


class AuditEvent(models.Model):
    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="audit_events", null=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    kind = models.CharField(max_length=64)
    detail = models.JSONField(default=dict, blank=True)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created", "id"]

    def __str__(self) -> str:
        return f"{self.kind} at {self.created:%Y-%m-%d %H:%M:%S}"


class LlmCall(models.Model):
    """One attempt to ask the language model (conversions.language.llm), for cost and failure
    review in the admin. The prompt and the answer are not kept: the chat messages are."""

    class Purpose(models.TextChoices):
        UNDERSTAND = "understand"
        # Phrasing the explanation of validation issues in plain words.
        EXPLAIN = "explain"

    class Outcome(models.TextChoices):
        # Claimed against the session's budget, the answer not in yet (or the process died).
        PENDING = "pending"
        OK = "ok"
        TIMEOUT = "timeout"
        ERROR = "error"
        MALFORMED = "malformed"
        # Not sent: the session had used its LLM_CALLS_PER_SESSION.
        REFUSED_BY_BUDGET = "refused_by_budget"

    session = models.ForeignKey(ConversionSession, on_delete=models.CASCADE, related_name="llm_calls")
    created = models.DateTimeField(auto_now_add=True)
    purpose = models.CharField(max_length=32, choices=Purpose.choices, default=Purpose.UNDERSTAND)
    model = models.CharField(max_length=100)
    outcome = models.CharField(max_length=32, choices=Outcome.choices, default=Outcome.PENDING)
    input_tokens = models.PositiveIntegerField(null=True, blank=True)
    output_tokens = models.PositiveIntegerField(null=True, blank=True)
    latency_ms = models.PositiveIntegerField(null=True, blank=True)
    # Names of the fields the model found in the message, after the checks (never their values).
    fields = models.JSONField(default=list, blank=True)
    detail = models.CharField(max_length=500, blank=True, help_text="What went wrong, or which values were ignored.")

    class Meta:
        verbose_name = "LLM call"
        ordering = ["created", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(outcome__in=["pending", "ok", "timeout", "error", "malformed", "refused_by_budget"]),
                name="llm_call_outcome_valid",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.purpose} by {self.model}: {self.outcome}"


class OutboxJob(models.Model):
    """A job for the workers, written in the same transaction as the change that needs it, and handed
    to the queue once that commits (conversions.services.outbox). A job the queue could not take (the broker
    was down) or lost (the broker restarted empty) is handed again by the recovery that scans this
    table, so a change is never saved without the job that carries it out."""

    # The job's identity: the task and its arguments (one row per job, however often it is sent).
    key = models.CharField(max_length=300, unique=True)
    task = models.CharField(max_length=100)
    args = models.JSONField(default=list)
    task_id = models.CharField(max_length=64, blank=True)
    created = models.DateTimeField(auto_now_add=True)
    # When the job may start (a run again after a failure waits a little).
    due_at = models.DateTimeField()
    sent_at = models.DateTimeField(null=True, blank=True)
    # Which life of the broker took it: Redis's run id (a new one after every restart, which loses
    # what an unpersisted Redis held), or this process's for the embedded in-memory queue.
    sent_to = models.CharField(max_length=64, blank=True)
    sends = models.PositiveSmallIntegerField(default=0)
    last_error = models.CharField(max_length=500, blank=True)

    class Meta:
        ordering = ["due_at", "id"]

    def __str__(self) -> str:
        return f"{self.task}{tuple(self.args)}"


class Housekeeping(models.Model):
    """When each periodic task last ran: the job recovery gives running jobs time to report again
    after a stretch in which it could not run itself (the database or the broker was out of reach)."""

    name = models.CharField(max_length=100, unique=True)
    last_run = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.name} at {self.last_run:%Y-%m-%d %H:%M:%S}"

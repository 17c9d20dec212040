"""The rows tests start from, built by factory_boy: each factory gives a valid row with what a
test does not care about filled in, and a test names only what it is about."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model

from conversions.models import (
    ApiToken,
    ChatMessage,
    ConversionAttempt,
    Lab,
    Membership,
    MetadataField,
    Preview,
    SourceFile,
    Subject,
    ValidationIssue,
)


class LabFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Lab

    name = factory.Sequence(lambda n: f"Lab {n}")


class UserFactory(factory.django.DjangoModelFactory):
    """A person who signs in with the password `<username>-password` (or the one given)."""

    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"person{n}")

    @factory.post_generation
    def password(self, create: bool, extracted: str | None, **kwargs: Any) -> None:
        self.set_password(extracted or f"{self.username}-password")
        if create:
            self.save()


class MembershipFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Membership

    user = factory.SubFactory(UserFactory)
    lab = factory.SubFactory(LabFactory)
    role = Membership.Role.MEMBER


def api_key(user: Any) -> str:
    """A new API key of `user` (its plain text, as shown once)."""
    return ApiToken.issue(user, "tests")[1]


class AttemptFactory(factory.django.DjangoModelFactory):
    """A conversion attempt of a session a test made (through the services, as a user would)."""

    class Meta:
        model = ConversionAttempt

    number = 1
    state = ConversionAttempt.State.SUCCEEDED


class PreviewFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Preview

    number = 1
    state = Preview.State.SUCCEEDED


class SubjectFactory(factory.django.DjangoModelFactory):
    """An animal of a lab's subject registry."""

    class Meta:
        model = Subject

    lab = factory.SubFactory(LabFactory)
    subject_id = factory.Sequence(lambda n: f"mouse{n:03d}")


class SourceFileFactory(factory.django.DjangoModelFactory):
    """A file of a session, as the upload records it (the bytes are the test's to write)."""

    class Meta:
        model = SourceFile

    relative_path = factory.Sequence(lambda n: f"run{n}/recording.bin")
    size_bytes = 1024


class MetadataFieldFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = MetadataField

    source = "user"


class MessageFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = ChatMessage

    role = ChatMessage.Role.USER


class IssueFactory(factory.django.DjangoModelFactory):
    """A validation issue of an attempt."""

    class Meta:
        model = ValidationIssue

    importance = "BEST_PRACTICE_SUGGESTION"
    location = "/"

"""The rows tests start from, built by factory_boy: each factory gives a valid row with what a
test does not care about filled in, and a test names only what it is about."""

from __future__ import annotations

from typing import Any

import factory
from django.contrib.auth import get_user_model

from conversions.models import ApiToken, ConversionAttempt, Lab, Membership, Preview


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

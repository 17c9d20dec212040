"""Create or update a lab member; with --key, the last line printed is a new API key of theirs."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from conversions.models import Lab, Membership
from conversions.services import keys


class Command(BaseCommand):
    help = (
        "Create or update USERNAME as a member (or --manager) of the lab; with --key NAME, prints a new API key last."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--lab", required=True, help="Lab name (created if it does not exist).")
        parser.add_argument("--password", help="Set this password (otherwise an existing one is kept).")
        parser.add_argument("--manager", action="store_true", help="Make the user a manager of the lab.")
        parser.add_argument(
            "--key",
            metavar="NAME",
            help="Make an API key named NAME (what will use it) and print it last; it is not shown again.",
        )

    @transaction.atomic
    def handle(self, *args: Any, **options: Any) -> None:
        user_model = get_user_model()
        user, created = user_model.objects.get_or_create(username=options["username"])
        if options["password"]:
            user.set_password(options["password"])
        elif created:
            user.set_unusable_password()
        user.save()
        lab, _ = Lab.objects.get_or_create(name=options["lab"])
        role = Membership.Role.MANAGER if options["manager"] else Membership.Role.MEMBER
        Membership.objects.update_or_create(user=user, lab=lab, defaults={"role": role})
        self.stdout.write(f"{'Created' if created else 'Updated'} {user.get_username()} ({role} of {lab.name}).")
        if options["key"]:
            _, key = keys.make_key(user, options["key"])
            self.stdout.write(key)

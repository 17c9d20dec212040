"""Make sure the demo lab and user exist (embedded mode only) and print how to log in."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from conversions.models import ApiToken, Lab, Membership
from conversions.services import keys

USERNAME = "demo"
PASSWORD = "demo-nwbportal"
LAB = "Demo Lab"
# A portal admin, to try the review queue and the admin site.
ADMIN_USERNAME = "demo-admin"
ADMIN_PASSWORD = "demo-admin-nwbportal"


class Command(BaseCommand):
    help = "Create the demo lab and user for a local try-out (refused outside the embedded mode)."

    def handle(self, *args: Any, **options: Any) -> None:
        if not settings.EMBEDDED:
            raise CommandError("The demo account exists only in the embedded mode (no DATABASE_URL/REDIS_URL).")
        user, created = get_user_model().objects.get_or_create(username=USERNAME)
        if created:
            user.set_password(PASSWORD)
            user.save()
        lab, _ = Lab.objects.get_or_create(name=LAB)
        Membership.objects.get_or_create(user=user, lab=lab, defaults={"role": Membership.Role.MANAGER})
        password = PASSWORD if created or user.check_password(PASSWORD) else "(changed since it was created)"
        self.stdout.write(f"Demo account: user “{USERNAME}”, password “{password}”, lab “{LAB}”")
        if not ApiToken.objects.filter(user=user).exists():
            # Shown once, like every key; later starts point to the page that makes more.
            _, key = keys.make_key(user, "demo (made by make run)")
            self.stdout.write(f"Demo API key (shown this once): {key}")
        else:
            self.stdout.write(f"Demo API keys: make or revoke them at {settings.PORTAL_URL}/account/keys")
        admin, created = get_user_model().objects.get_or_create(
            username=ADMIN_USERNAME, defaults={"is_staff": True, "is_superuser": True}
        )
        if created:
            admin.set_password(ADMIN_PASSWORD)
            admin.save()
        admin_password = (
            ADMIN_PASSWORD if created or admin.check_password(ADMIN_PASSWORD) else "(changed since it was created)"
        )
        self.stdout.write(
            f"Portal admin: user “{ADMIN_USERNAME}”, password “{admin_password}” (the review queue: /review/)"
        )

"""`make run`'s demo accounts: a lab manager to convert with, a portal admin for the review queue."""

from __future__ import annotations

from io import StringIO
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.http import HttpRequest
from django.test import Client

from conversions.models import Membership

pytestmark = pytest.mark.django_db


def test_the_demo_user_manages_a_lab_and_the_demo_admin_reaches_the_review_queue(settings: Any) -> None:
    settings.EMBEDDED = True
    printed = []
    for _ in range(2):  # every `make run` calls it; the second time changes nothing
        out = StringIO()
        call_command("demo_account", stdout=out)
        printed.append(out.getvalue())
    assert "“demo”" in printed[1] and "“demo-nwbportal”" in printed[1] and "“demo-admin-nwbportal”" in printed[1]
    # The demo key is shown the one time it is made; later starts say where to make another.
    key = printed[0].split("Demo API key (shown this once): ")[1].split()[0]
    assert key not in printed[1] and "/account/keys" in printed[1]
    assert Client(headers={"Authorization": f"Token {key}"}).get("/api/sessions").status_code == 200
    membership = Membership.objects.get(user__username="demo")
    assert membership.role == Membership.Role.MANAGER and membership.lab.name == "Demo Lab"

    admin = Client()
    assert admin.login(request=HttpRequest(), username="demo-admin", password="demo-admin-nwbportal")
    assert admin.get("/review/").status_code == 200
    demo = Client()
    assert demo.login(request=HttpRequest(), username="demo", password="demo-nwbportal")
    assert demo.get("/review/").status_code == 403, "the demo user is not an admin"
    assert demo.get(f"/labs/{membership.lab_id}/settings").status_code == 200


def test_there_are_no_demo_accounts_in_the_production_mode(settings: Any) -> None:
    settings.EMBEDDED = False
    with pytest.raises(CommandError, match="embedded mode"):
        call_command("demo_account", stdout=StringIO())

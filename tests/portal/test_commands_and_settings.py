"""The management commands scripts rely on, and the production mode's refusal to run unsafely."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command

from conversions.models import ApiToken, Membership

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.django_db
def test_labuser_creates_the_user_lab_and_membership_and_prints_a_new_key_last() -> None:
    out = StringIO()
    call_command("labuser", "jane", "--lab", "Smith Lab", "--password", "s3cret-pass", "--key", "lab pc", stdout=out)
    key = out.getvalue().strip().splitlines()[-1]
    membership = Membership.objects.get(user__username="jane", lab__name="Smith Lab")
    assert membership.role == "member"
    token = ApiToken.objects.get(user__username="jane")
    assert token.name == "lab pc" and ApiToken.find(key) == token
    assert key not in (token.digest, token.lookup), "only a digest of the key is kept"
    assert membership.user.check_password("s3cret-pass")


@pytest.mark.django_db
def test_labuser_updates_without_a_new_key_unless_asked() -> None:
    first, second = StringIO(), StringIO()
    call_command("labuser", "jane", "--lab", "Smith Lab", "--key", "laptop", stdout=first)
    call_command("labuser", "jane", "--lab", "Smith Lab", "--manager", stdout=second)
    assert second.getvalue().strip().splitlines() == ["Updated jane (manager of Smith Lab)."]
    assert Membership.objects.get(user__username="jane").role == "manager"
    assert ApiToken.objects.filter(user__username="jane").count() == 1


@pytest.mark.django_db
def test_the_key_from_labuser_opens_the_api(client: object) -> None:
    from django.test import Client

    out = StringIO()
    call_command("labuser", "jane", "--lab", "Smith Lab", "--key", "script", stdout=out)
    key = out.getvalue().splitlines()[-1]
    response = Client(headers={"Authorization": f"Token {key}"}).get("/api/sessions")
    assert response.status_code == 200 and response.json() == []


def _settings_import(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "SECRET_KEY")}
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings; print(settings.EMBEDDED)",
        ],
        cwd=ROOT,
        env={**clean, "DJANGO_SETTINGS_MODULE": "nwbportal.settings", **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_production_mode_refuses_to_start_without_a_secret_key() -> None:
    result = _settings_import({"DATABASE_URL": "postgres://x@127.0.0.1/x", "REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.parametrize(
    "key",
    ["ci-only-secret-key", "a" * 60, "django-insecure-" + "x1y2z3w4v5" * 5],
    ids=["short", "repeated", "insecure"],
)
def test_production_mode_refuses_a_weak_secret_key(key: str) -> None:
    services = {"DATABASE_URL": "postgres://x@127.0.0.1/x", "REDIS_URL": "redis://127.0.0.1:6379/0"}
    result = _settings_import({**services, "SECRET_KEY": key})
    assert result.returncode != 0 and "SECRET_KEY is too weak" in result.stderr
    strong = _settings_import({**services, "SECRET_KEY": secrets.token_urlsafe(50)})
    assert strong.returncode == 0 and strong.stdout.strip() == "False", strong.stderr


def test_half_configured_services_are_refused() -> None:
    result = _settings_import({"REDIS_URL": "redis://127.0.0.1:6379/0"})
    assert result.returncode != 0 and "Set both DATABASE_URL and REDIS_URL" in result.stderr


def test_embedded_mode_needs_nothing() -> None:
    result = _settings_import({})
    assert result.returncode == 0 and result.stdout.strip() == "True"


def test_openapi_schema_lists_the_contract(client: object) -> None:
    from django.test import Client

    twice: list[str] = []

    def no_key_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        names = [name for name, _ in pairs]
        twice.extend(name for name in names if names.count(name) > 1)
        return dict(pairs)

    schema = json.loads(Client().get("/api/openapi.json").content, object_pairs_hook=no_key_twice)
    assert not twice, f"keys named twice (the API docs page cannot read the document): {set(twice)}"
    paths = schema["paths"]
    for path in (
        "/api/sessions",
        "/api/sessions/{session_id}",
        "/api/sessions/{session_id}/files",
        "/api/sessions/{session_id}/messages",
        "/api/sessions/{session_id}/actions",
        "/api/sessions/{session_id}/output",
    ):
        assert path in paths, path

"""The production mode's transport and page policy: HTTPS only (redirect, HSTS, secure cookies) with
`check --deploy` clean, and a Content-Security-Policy on every page that allows no inline script and
no other origin."""

from __future__ import annotations

import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import Client, override_settings

from conversions.services import sessions
from tests.conftest import World

ROOT = Path(__file__).resolve().parents[2]
# What a deployment may set to change the defaults under test; the test takes them away.
OVERRIDES = (
    "SECURE_SSL_REDIRECT",
    "SECURE_HSTS_SECONDS",
    "SESSION_COOKIE_SECURE",
    "DEBUG",
    "DATABASE_URL",
    "REDIS_URL",
)


def test_check_deploy_finds_nothing_with_the_production_defaults() -> None:
    clean = {k: v for k, v in os.environ.items() if k not in OVERRIDES}
    production = {
        "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/nwbportal",
        "REDIS_URL": "redis://127.0.0.1:6379/0",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "portal.example.org",
    }
    result = subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**clean, **production},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


@pytest.mark.django_db
def test_plain_http_is_redirected_and_https_answers_carry_hsts() -> None:
    with override_settings(SECURE_SSL_REDIRECT=True, SECURE_HSTS_SECONDS=31536000):
        plain = Client().get("/accounts/login/")
        assert plain.status_code == 301 and plain["Location"].startswith("https://")
        secure = Client().get("/accounts/login/", secure=True)
        assert secure.status_code == 200
        assert secure["Strict-Transport-Security"].startswith("max-age=31536000")


PAGES = [
    "/accounts/login/",
    "/",
    "/account/keys",
    "/sessions/{session}/",
    "/labs/{lab}/settings",
    "/review/",
    "/review/sessions/{session}/",
    "/admin/",
    "/api/docs",
]


@pytest.mark.parametrize("path", PAGES)
@pytest.mark.django_db
def test_every_page_has_a_policy_without_inline_scripts_or_other_origins(world: World, path: str) -> None:
    world.users["staff"].is_superuser = True
    world.users["staff"].save()
    session = sessions.create_session(user=world.users["ada"])
    page = world.browser("staff").get(path.format(session=session.id, lab=world.lab.id))
    assert page.status_code == 200, path
    policy = dict(part.strip().split(" ", 1) for part in page["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'self'" and policy["script-src"] == "'self'"
    assert policy["object-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert not any("unsafe" in value or "http" in value for value in policy.values()), policy
    inline = re.findall(r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>", page.content.decode())
    assert not inline, f"inline scripts the policy would refuse: {inline}"

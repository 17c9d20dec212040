"""Pages under the Content-Security-Policy (the page fixture fails on anything it refuses): a member
makes an API key and uses it, reads the API docs served by the portal itself, and staff use the
admin; a locked-out sign-in says so on the login page."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import Page, expect

from tests.browser.conftest import log_in
from tests.conftest import World

pytestmark = pytest.mark.django_db(transaction=True)

KEYS = {"name": "#id_name", "make": "Make key", "new_key": ".key-value", "revoke": "Revoke"}


def test_a_member_makes_a_key_sees_it_once_and_revokes_it(page: Page, live_world: World) -> None:
    log_in(page, "ada")
    page.get_by_role("link", name="API keys").click()
    expect(page).to_have_url(re.compile(r"/account/keys$"))
    page.locator(KEYS["name"]).fill("analysis server")
    page.get_by_role("button", name=KEYS["make"]).click()
    key = page.locator(KEYS["new_key"]).input_value()
    assert key.startswith("nwbp_")
    answer = page.request.get("/api/keys", headers={"Authorization": f"Token {key}"})
    assert answer.status == 200 and "analysis server" in answer.text()

    page.goto("/account/keys")
    expect(page.locator(KEYS["new_key"])).to_have_count(0)
    row = page.get_by_role("row", name=re.compile("analysis server"))
    expect(row).to_contain_text("active")
    row.get_by_role("button", name=KEYS["revoke"]).click()
    expect(page.locator(".flash")).to_contain_text("revoked")
    # Asked without the browser's cookie, which would answer for ada by itself.
    assert Client(headers={"Authorization": f"Token {key}"}).get("/api/keys").status_code == 401


def test_the_api_docs_load_from_the_portal_alone(page: Page, live_world: World, base_url: str) -> None:
    outside: list[str] = []
    page.on("request", lambda request: None if request.url.startswith(base_url) else outside.append(request.url))
    log_in(page, "ada")
    page.goto("/api/docs")
    expect(page.locator(".swagger-ui .info .title")).to_contain_text("nwbportal")
    expect(page.locator(".opblock").first).to_be_visible()
    assert not outside, f"requests to other origins: {outside}"


def test_staff_use_the_admin_under_the_policy(page: Page, live_world: World) -> None:
    live_world.users["staff"].is_superuser = True
    live_world.users["staff"].save()
    log_in(page, "sam")
    page.goto("/admin/conversions/apitoken/")
    expect(page.get_by_role("heading", name=re.compile("API token", re.IGNORECASE))).to_be_visible()
    page.locator("select[name=action]").select_option("revoke")
    page.locator("#action-toggle").check()
    page.get_by_role("button", name="Go").click()
    expect(page.locator(".messagelist")).to_contain_text("revoked")
    page.goto("/admin/axes/accessattempt/")
    expect(page.locator("#content h1")).to_be_visible()


def test_a_locked_out_sign_in_says_why_on_the_login_page(page: Page, live_world: World) -> None:
    for _ in range(settings.AXES_FAILURE_LIMIT):
        page.goto("/accounts/login/")
        page.locator("#id_username").fill("ada")
        page.locator("#id_password").fill("not-her-password")
        page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("alert")).to_contain_text("locked for 15 minutes")
    expect(page.get_by_role("alert")).to_contain_text("portal admin")

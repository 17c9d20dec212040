"""API keys (kept as digests, shown once, revocable, last use recorded) and the throttle on every way
in (passwords and keys, per account and per address, lifted by staff), as the owner (ada), a
colleague (ben), the lab's manager (mia), another lab's member (carl), staff (sam) and anonymous."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from asgiref.sync import sync_to_async
from axes.models import AccessAttempt
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from conversions.models import ApiToken, AuditEvent
from conversions.services import sessions
from tests.conftest import World

PEOPLE = ["ada", "ben", "mia", "carl", "staff", None]
LIMIT = 10  # settings.AXES_FAILURE_LIMIT's default


def _key_client(key: str, address: str = "127.0.0.1") -> Client:
    return Client(headers={"Authorization": f"Token {key}"}, REMOTE_ADDR=address)


def _wrong_password(username: str, address: str) -> Any:
    return Client(REMOTE_ADDR=address).post("/accounts/login/", {"username": username, "password": "not-it"})


def _log_in(username: str, address: str) -> Any:
    return Client(REMOTE_ADDR=address).post(
        "/accounts/login/", {"username": username, "password": f"{username}-password"}
    )


# --- keys -------------------------------------------------------------------------------------------


@pytest.mark.django_db
def test_no_column_holds_a_key_and_a_key_works_until_revoked(world: World) -> None:
    key = world.tokens["ada"]
    token = ApiToken.objects.get(user=world.users["ada"])
    stored = [str(value) for value in ApiToken.objects.filter(pk=token.pk).values().first().values()]
    assert not any(key in value or value == key for value in stored), "the key itself is never stored"
    assert token.hint.endswith("_…") and key.startswith(token.hint.removesuffix("…"))
    assert world.client("ada").get("/api/sessions").status_code == 200
    token.refresh_from_db()
    assert token.last_used is not None

    assert world.client("ada").delete(f"/api/keys/{token.id}").status_code == 200, "a key may revoke itself"
    assert world.client("ada").get("/api/sessions").status_code == 401
    assert AuditEvent.objects.filter(kind="api_key_revoked", actor=world.users["ada"]).count() == 1


@pytest.mark.django_db
def test_a_key_with_its_secret_changed_opens_nothing(world: World) -> None:
    key = world.tokens["ada"]
    forged = key[:-4] + ("AAAA" if not key.endswith("AAAA") else "BBBB")
    assert _key_client(forged).get("/api/sessions").status_code == 401
    assert _key_client("nwbp_").get("/api/sessions").status_code == 401
    assert _key_client("x" * 5000).get("/api/sessions").status_code == 401


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.django_db
def test_each_person_lists_only_their_own_keys(world: World, person: str | None) -> None:
    response = world.client(person).get("/api/keys")
    if person is None:
        assert response.status_code == 401
        return
    assert response.status_code == 200
    listed = response.json()
    own = ApiToken.objects.get(user=world.users[person])
    assert [entry["id"] for entry in listed] == [own.id]
    assert listed[0]["hint"] == own.hint and "key" not in listed[0]


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.django_db
def test_only_the_owner_revokes_a_key(world: World, person: str | None) -> None:
    ada_key = ApiToken.objects.get(user=world.users["ada"])
    response = world.client(person).delete(f"/api/keys/{ada_key.id}")
    ada_key.refresh_from_db()
    if person is None:
        assert response.status_code == 401
    elif person == "ada":
        assert response.status_code == 200 and response.json()["revoked"] is not None
    else:
        # Staff too: staff revoke others' keys in the admin, not as themselves through the API.
        assert response.status_code == 404
    assert (ada_key.revoked is not None) == (person == "ada")


@pytest.mark.parametrize("person", PEOPLE)
@pytest.mark.django_db
def test_a_key_is_made_only_by_someone_logged_in_and_shown_once(world: World, person: str | None) -> None:
    by_key = world.client(person).post("/api/keys", {"name": "laptop"}, content_type="application/json")
    assert by_key.status_code == 401, "a key cannot make keys"
    if person is None:
        assert Client().post("/api/keys", {"name": "laptop"}, content_type="application/json").status_code == 401
        return
    browser = world.browser(person)
    browser.get("/account/keys")
    made = browser.post(
        "/api/keys",
        {"name": "laptop"},
        content_type="application/json",
        headers={"X-CSRFToken": browser.cookies["csrftoken"].value},
    )
    assert made.status_code == 201
    key = made.json()["key"]
    assert _key_client(key).get("/api/keys").json()[0]["name"] == "laptop"
    assert key not in browser.get("/api/keys").content.decode()
    assert AuditEvent.objects.filter(kind="api_key_made", actor=world.users[person]).count() == 1


@pytest.mark.django_db
def test_names_and_numbers_of_keys_are_bounded(world: World) -> None:
    browser = world.browser("ada")
    csrf = {"X-CSRFToken": browser.get("/account/keys") and browser.cookies["csrftoken"].value}
    marked = browser.post("/api/keys", {"name": "<b>x</b>"}, content_type="application/json", headers=csrf)
    assert marked.status_code == 400 and "markup" in marked.json()["detail"]
    assert browser.post("/api/keys", {"name": "  "}, content_type="application/json", headers=csrf).status_code == 400
    for number in range(ApiToken.MAX_ACTIVE_PER_USER - 1):  # ada has one already
        ApiToken.issue(world.users["ada"], f"key {number}")
    over = browser.post("/api/keys", {"name": "one more"}, content_type="application/json", headers=csrf)
    assert over.status_code == 409 and "revoke one" in over.json()["detail"]


@pytest.mark.django_db
def test_the_keys_page_shows_a_new_key_once_and_revokes_only_ones_own(world: World) -> None:
    browser = world.browser("ada")
    page = browser.get("/account/keys")
    assert page.status_code == 200 and ApiToken.objects.get(user=world.users["ada"]).hint in page.content.decode()
    csrf = browser.cookies["csrftoken"].value
    made = browser.post("/account/keys", {"name": "analysis server", "csrfmiddlewaretoken": csrf})
    assert made.status_code == 200 and "no-store" in made["Cache-Control"]
    key = made.content.decode().split('readonly value="')[1].split('"')[0]
    assert _key_client(key).get("/api/sessions").status_code == 200
    assert key not in browser.get("/account/keys").content.decode(), "shown once"

    refused = browser.post("/account/keys", {"name": "line\nbreak\u0007", "csrfmiddlewaretoken": csrf})
    assert refused.status_code == 400 and "control character" in refused.content.decode()

    ben_key = ApiToken.objects.get(user=world.users["ben"])
    assert browser.post(f"/account/keys/{ben_key.id}/revoke", {"csrfmiddlewaretoken": csrf}).status_code == 404
    ben_key.refresh_from_db()
    assert ben_key.revoked is None
    token = ApiToken.objects.get(user=world.users["ada"], name="analysis server")
    assert browser.post(f"/account/keys/{token.id}/revoke", {"csrfmiddlewaretoken": csrf}).status_code == 302
    assert _key_client(key).get("/api/sessions").status_code == 401

    anonymous = Client().get("/account/keys")
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


@pytest.mark.django_db
def test_staff_see_keys_in_the_admin_without_the_key_and_revoke_them(world: World) -> None:
    world.users["staff"].is_superuser = True
    world.users["staff"].save()
    admin = world.browser("staff")
    page = admin.get("/admin/conversions/apitoken/")
    assert page.status_code == 200
    assert world.tokens["ada"] not in page.content.decode()
    assert admin.get("/admin/conversions/apitoken/add/").status_code == 403
    ada_key = ApiToken.objects.get(user=world.users["ada"])
    admin.post(
        "/admin/conversions/apitoken/",
        {
            "action": "revoke",
            "_selected_action": [str(ada_key.id)],
            "csrfmiddlewaretoken": admin.cookies["csrftoken"].value,
        },
    )
    assert world.client("ada").get("/api/sessions").status_code == 401
    assert world.browser("ada").get("/admin/conversions/apitoken/").status_code == 302, "members have no admin"


@pytest.mark.django_db(transaction=True)
def test_keys_made_before_keys_were_hashed_keep_working() -> None:
    executor = MigrationExecutor(connection)
    before, after = [("conversions", "0005_outbox")], [("conversions", "0006_hashed_api_tokens")]
    executor.migrate(before)
    old_apps = executor.loader.project_state(before).apps
    user = old_apps.get_model("auth", "User").objects.create(username="old-timer")
    legacy_key = "0123456789abcdef0123456789abcdef01234567"
    old_apps.get_model("conversions", "ApiToken").objects.create(user_id=user.id, key=legacy_key)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    call_command("migrate", verbosity=0)  # the rest, if later migrations exist
    token = ApiToken.find(legacy_key)
    assert token is not None and token.user.username == "old-timer" and token.digest != legacy_key
    assert _key_client(legacy_key).get("/api/sessions").status_code == 200


# --- the throttle -----------------------------------------------------------------------------------


@pytest.mark.django_db
def test_wrong_passwords_lock_the_account_from_every_address_and_are_logged(
    world: World, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO, logger="axes"):
        answers = [_wrong_password("ada", f"10.0.1.{number}").status_code for number in range(LIMIT)]
    # The failure that reaches the limit is answered with the lockout already.
    assert answers == [200] * (LIMIT - 1) + [429]
    assert sum("AXES" in r.getMessage() and "failure" in r.getMessage().lower() for r in caplog.records) >= LIMIT
    locked = _log_in("ada", "10.0.2.1")
    assert locked.status_code == 429 and int(locked["Retry-After"]) > 0
    assert "locked" in locked.content.decode() and "portal admin" in locked.content.decode()
    # The account, not the people near it: a colleague and another lab's member sign in as usual.
    assert _log_in("ben", "10.0.2.1").status_code == 302
    assert _log_in("carl", "10.0.1.3").status_code == 302
    # And the account's keys are locked with it.
    assert _key_client(world.tokens["ada"], "10.0.2.2").get("/api/sessions").status_code == 429


@pytest.mark.django_db
def test_wrong_passwords_from_one_address_lock_that_address(world: World) -> None:
    for number in range(LIMIT):
        _wrong_password(f"guess-{number}", "10.0.3.1")
    assert _log_in("ben", "10.0.3.1").status_code == 429
    assert _key_client(world.tokens["carl"], "10.0.3.1").get("/api/sessions").status_code == 429
    assert _log_in("ben", "10.0.3.2").status_code == 302


@pytest.mark.django_db
def test_random_keys_lock_the_address_and_the_api_says_so_in_json(world: World) -> None:
    answers = [_key_client(f"nwbp_{n:012x}_guess", "10.0.4.1").get("/api/sessions").status_code for n in range(LIMIT)]
    assert answers == [401] * (LIMIT - 1) + [429]
    locked = _key_client(world.tokens["ada"], "10.0.4.1").get("/api/sessions")
    assert locked.status_code == 429 and "locked" in locked.json()["detail"] and int(locked["Retry-After"]) > 0
    assert _key_client(world.tokens["ada"], "10.0.4.2").get("/api/sessions").status_code == 200


@pytest.mark.django_db
def test_wrong_secrets_for_one_key_lock_its_owner_only(world: World) -> None:
    ada_key = world.tokens["ada"]
    for number in range(LIMIT):
        _key_client(ada_key[:-6] + f"{number:06d}", f"10.0.5.{number}").get("/api/sessions")
    assert _key_client(ada_key, "10.0.6.1").get("/api/sessions").status_code == 429
    assert _log_in("ada", "10.0.6.1").status_code == 429
    for person in ("ben", "mia", "carl", "staff"):
        assert _key_client(world.tokens[person], "10.0.6.1").get("/api/sessions").status_code == 200


@pytest.mark.django_db
def test_staff_lift_a_lockout_and_members_cannot(world: World) -> None:
    for number in range(LIMIT):
        _wrong_password("ada", f"10.0.7.{number}")
    assert _log_in("ada", "10.0.8.1").status_code == 429
    assert world.browser("ben").get("/admin/axes/accessattempt/").status_code == 302
    world.users["staff"].is_superuser = True
    world.users["staff"].save()
    admin = world.browser("staff")
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "ada" in listing.content.decode()
    attempts = [str(pk) for pk in AccessAttempt.objects.filter(username="ada").values_list("pk", flat=True)]
    lifted = {"action": "delete_selected", "_selected_action": attempts, "post": "yes"}
    admin.post("/admin/axes/accessattempt/", {**lifted, "csrfmiddlewaretoken": admin.cookies["csrftoken"].value})
    assert _log_in("ada", "10.0.8.1").status_code == 302


@pytest.mark.django_db
def test_the_command_line_lifts_a_lockout_too(world: World) -> None:
    for number in range(LIMIT):
        _wrong_password("ada", f"10.0.9.{number}")
    assert _log_in("ada", "10.0.10.1").status_code == 429
    call_command("axes_reset_username", "ada", verbosity=0)
    assert _log_in("ada", "10.0.10.1").status_code == 302


@pytest.mark.django_db(transaction=True)
async def test_a_locked_out_address_is_refused_on_the_websocket_with_its_own_code(live_world: World) -> None:
    from nwbportal.asgi import application

    session = await sync_to_async(sessions.create_session)(user=live_world.users["ada"])

    async def connect(key: str) -> int:
        headers = [(b"authorization", f"Token {key}".encode())]
        communicator = WebsocketCommunicator(application, f"/ws/sessions/{session.id}/", headers=headers)
        communicator.scope["client"] = ("10.0.11.1", 50000)
        connected, _ = await communicator.connect()
        try:
            assert connected
            output = await communicator.receive_output(timeout=5)
            return output.get("code", 1000) if output["type"] == "websocket.close" else 1000
        finally:
            await communicator.disconnect()

    answers = [await connect(f"nwbp_{number:012x}_guess") for number in range(LIMIT)]
    assert answers == [4401] * (LIMIT - 1) + [4429]
    assert await connect(live_world.tokens["ada"]) == 4429

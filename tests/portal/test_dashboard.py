"""The dashboard: whose sessions it lists, its filters, pages and totals; starting a conversion; and the
same filters on GET /api/sessions."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from conversions.api.schemas import STATUS_GROUPS
from conversions.models import ConversionSession, Membership
from conversions.orchestrator.state import Awaiting, Status
from conversions.web.sessions import AWAITING_WORDS, STATUS_WORDS
from tests.conftest import World
from tests.factories import AttemptFactory, LabFactory, MembershipFactory, SourceFileFactory


def _session(world: World, owner: str, title: str = "", status: str = "idle", **fields: Any) -> ConversionSession:
    lab = fields.pop("lab", world.lab if owner != "carl" else world.other_lab)
    return ConversionSession.objects.create(
        owner=world.users[owner], lab=lab, title=title, status=status, timezone="UTC", **fields
    )


def _page(world: World, person: str, query: str = "") -> str:
    response = world.browser(person).get("/" + query)
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def _listed(page: str) -> list[str]:
    """The ids of the sessions in the table, in order."""
    return re.findall(r'<tr data-session-id="([0-9a-f-]+)"', page)


# --- who sees what --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("person", "sees_adas"),
    [("ada", True), ("ben", False), ("mia", True), ("carl", False), ("staff", False)],
)
def test_the_owner_and_the_labs_manager_see_a_session_others_do_not(world: World, person: str, sees_adas: bool) -> None:
    adas = _session(world, "ada", "Ada V1 run")
    page = _page(world, person)
    assert (str(adas.id) in _listed(page)) is sees_adas
    assert ("Ada V1 run" in page) is sees_adas


def test_anonymous_visitors_are_sent_to_log_in(world: World) -> None:
    _session(world, "ada", "Ada V1 run")
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def test_staff_see_their_own_sessions_and_those_of_a_lab_they_manage(world: World) -> None:
    MembershipFactory(user=world.users["staff"], lab=world.other_lab, role=Membership.Role.MANAGER)
    carls = _session(world, "carl", "Carl A1 run")
    adas = _session(world, "ada", "Ada V1 run")
    listed = _listed(_page(world, "staff"))
    assert str(carls.id) in listed and str(adas.id) not in listed


def test_a_manager_sees_who_owns_each_session_members_do_not_get_that_column(world: World) -> None:
    _session(world, "ada", "Ada V1 run")
    _session(world, "mia", "Mia's own")
    managers = _page(world, "mia")
    assert '<th scope="col">Owner</th>' in managers
    assert "<td>ada</td>" in managers and "<td>you</td>" in managers
    assert '<th scope="col">Owner</th>' not in _page(world, "ada")


# --- what each row says ---------------------------------------------------------------------------


def test_every_status_is_in_exactly_one_group_and_has_words() -> None:
    grouped = [status for statuses in STATUS_GROUPS.values() for status in statuses]
    assert sorted(grouped) == sorted(Status), "each status has one badge"
    assert set(STATUS_WORDS) == set(Status) and set(AWAITING_WORDS) == set(Awaiting)


def test_a_row_shows_the_total_size_of_the_files_and_the_number_of_attempts(world: World) -> None:
    session = _session(
        world,
        "ada",
        "Day 3",
        status="completed",
        format="spikeglx",
        detection={"format_label": "SpikeGLX", "streams": []},
    )
    SourceFileFactory(session=session, relative_path="run_g0/run_g0_t0.imec0.ap.bin", size_bytes=3 * 1024**2)
    SourceFileFactory(session=session, relative_path="run_g0/run_g0_t0.imec0.ap.meta", size_bytes=1024**2)
    for number in (1, 2, 3):
        AttemptFactory(session=session, number=number, state="succeeded")
    row = re.search(rf'<tr data-session-id="{session.id}".*?</tr>', _page(world, "ada"), re.S)
    assert row is not None
    text = " ".join(re.sub(r"<[^>]+>", " ", row.group(0)).split())
    assert "4.0 MB" in text and "2 files" in text
    assert "run_g0/run_g0_t0.imec0.ap.bin and 1 more" in text
    assert "SpikeGLX" in text
    assert re.search(r'<td class="num">3</td>', row.group(0)), "three attempts"
    assert "done" in text and "Converted and validated" in text


@pytest.mark.parametrize(
    ("status", "awaiting", "badge", "words"),
    [
        ("idle", None, "needs you", "Waiting for the recording's files"),
        ("awaiting_user_input", "required_metadata", "needs you", "Waiting for details about the recording"),
        ("awaiting_approval", "approval", "needs you", "Ready to convert, waiting for approval"),
        ("converting", None, "running", "Converting"),
        ("completed_with_issues", None, "done", "Converted, with validation notes"),
        ("failed", None, "failed", "Conversion failed"),
        ("cancelled", None, "cancelled", "Cancelled"),
    ],
)
def test_the_status_is_said_in_plain_words_with_a_badge(
    world: World, status: str, awaiting: str | None, badge: str, words: str
) -> None:
    _session(world, "ada", "Run", status=status, awaiting=awaiting)
    page = _page(world, "ada")
    assert f">{badge}</span>" in page and words in page


def test_a_manager_reads_needs_an_answer_for_a_members_waiting_session(world: World) -> None:
    _session(world, "ada", "Run", status="awaiting_user_input", awaiting="required_metadata")
    assert ">needs an answer</span>" in _page(world, "mia")


def test_a_long_name_is_shown_whole(world: World) -> None:
    title = "V1_" + "x" * 190
    _session(world, "ada", title)
    assert title in _page(world, "ada")


def test_last_activity_is_relative_and_absolute(world: World) -> None:
    session = _session(world, "ada", "Old run")
    ConversionSession.objects.filter(id=session.id).update(updated=timezone.now() - timedelta(days=3, hours=2))
    page = _page(world, "ada")
    assert "3\xa0days ago" in page
    assert re.search(r'<time class="sub" datetime="[0-9T:.+-]+">\d{4}-\d\d-\d\d \d\d:\d\d UTC</time>', page)


# --- filters --------------------------------------------------------------------------------------


@pytest.fixture
def assorted(world: World) -> dict[str, ConversionSession]:
    sessions = {
        "waiting": _session(world, "ada", "Waiting run", status="awaiting_user_input", awaiting="required_metadata"),
        "new": _session(world, "ada", "", status="idle"),
        "running": _session(world, "ada", "Running run", status="converting"),
        "done": _session(world, "ada", "Done run", status="completed"),
        "noted": _session(world, "ada", "Noted run", status="completed_with_issues"),
        "failed": _session(world, "ada", "Failed run", status="failed"),
        "stuck": _session(world, "ada", "Stuck run", status="validating", needs_review=True),
        "cancelled": _session(world, "ada", "Cancelled run", status="cancelled"),
    }
    SourceFileFactory(session=sessions["new"], relative_path="Noise4Sam_g0/Noise4Sam.ap.bin", size_bytes=10)
    return sessions


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        ("needs_answer", {"waiting", "new"}),
        ("running", {"running", "stuck"}),
        ("done", {"done", "noted"}),
        ("failed", {"failed", "stuck"}),
        ("cancelled", {"cancelled"}),
        ("all", {"waiting", "new", "running", "done", "noted", "failed", "stuck", "cancelled"}),
    ],
)
def test_each_status_filter_shows_its_sessions(
    world: World, assorted: dict[str, ConversionSession], status: str, expected: set[str]
) -> None:
    page = _page(world, "ada", f"?status={status}")
    assert set(_listed(page)) == {str(assorted[name].id) for name in expected}
    current = re.search(r'<a href="[^"]*" data-status="(\w+)" aria-current="page">[^<]*<span class="count">(\d+)', page)
    assert current is not None and current.groups() == (status, str(len(expected)))


def test_the_search_finds_titles_and_file_names_and_keeps_the_status_in_the_links(
    world: World, assorted: dict[str, ConversionSession]
) -> None:
    assert _listed(_page(world, "ada", "?q=noise4sam")) == [str(assorted["new"].id)]
    assert set(_listed(_page(world, "ada", "?q=run"))) == {str(s.id) for name, s in assorted.items() if name != "new"}
    page = _page(world, "ada", "?q=run+done")
    assert _listed(page) == [str(assorted["done"].id)], "every word must match"
    # Each status filter keeps the search, so a bookmark of any of them holds both.
    assert 'href="?status=failed&q=run+done"' in page


def test_the_lab_filter_shows_one_lab_for_someone_in_several(world: World) -> None:
    MembershipFactory(user=world.users["ada"], lab=world.other_lab)
    visual = _session(world, "ada", "Visual run")
    auditory = _session(world, "ada", "Auditory run", lab=world.other_lab)
    page = _page(world, "ada", f"?lab={world.other_lab.id}")
    assert _listed(page) == [str(auditory.id)]
    assert '<th scope="col">Lab</th>' in page and 'id="new-lab"' in page
    assert set(_listed(_page(world, "ada"))) == {str(visual.id), str(auditory.id)}


def test_filters_that_cannot_be_used_are_said_and_everything_is_shown(world: World) -> None:
    mine = _session(world, "ada", "Mine")
    secret_lab = LabFactory(name="Secret Lab")
    page = _page(world, "ada", f"?status=bogus&lab={secret_lab.id}")
    assert "“bogus” is not one of the status filters" in page
    assert "That lab is not one of yours" in page
    assert _listed(page) == [str(mine.id)]


def test_an_empty_list_says_what_to_do(world: World) -> None:
    page = _page(world, "ada")
    assert "No conversions yet." in page and "Start a conversion" in page
    assert 'class="status-filters"' not in page, "no filters over nothing"
    _session(world, "ada", "Something")
    page = _page(world, "ada", "?q=nothing-like-it")
    assert "No conversion matches these filters." in page and "No conversions yet." not in page


def test_someone_in_no_lab_is_told_why_they_cannot_start(world: World) -> None:
    page = _page(world, "staff")
    assert "not a member of any lab" in page and 'id="new-session"' not in page


# --- pages and queries ----------------------------------------------------------------------------


def test_many_sessions_come_in_pages_of_25_that_keep_the_filters(world: World) -> None:
    for n in range(30):
        _session(world, "ada", f"Run {n:02d}", status="completed")
    _session(world, "ada", "Still waiting", status="idle")
    first = _page(world, "ada", "?status=done")
    assert len(_listed(first)) == 25
    assert "Page 1 of 2 (30 conversions)" in first
    assert 'href="?status=done&page=2" rel="next"' in first
    second = _page(world, "ada", "?status=done&page=2")
    assert len(_listed(second)) == 5 and not set(_listed(first)) & set(_listed(second))
    assert len(_listed(_page(world, "ada", "?status=done&page=99"))) == 5, "a page past the end shows the last"


def _dashboard_queries(client: Client) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    return len(queries)


def _add_sessions(world: World, count: int) -> None:
    for n in range(count):
        owner = "ada" if n % 2 else "ben"
        session = _session(world, owner, f"Run {n}", status="completed")
        SourceFileFactory(session=session, relative_path=f"run{n}/a.bin", size_bytes=100)
        SourceFileFactory(session=session, relative_path=f"run{n}/a.meta", size_bytes=10)
        AttemptFactory(session=session, number=1, state="succeeded")


def test_the_number_of_queries_does_not_grow_with_the_sessions(world: World) -> None:
    client = world.browser("mia")
    _add_sessions(world, 2)
    few = _dashboard_queries(client)
    _add_sessions(world, 40)
    assert _dashboard_queries(client) == few


# --- starting a conversion ------------------------------------------------------------------------


def _poster(world: World, person: str) -> Client:
    client = Client()
    client.force_login(world.users[person])
    return client


def test_starting_a_conversion_opens_its_page(world: World) -> None:
    response = _poster(world, "ada").post("/sessions/new", {"title": "  V1 day 3  "})
    session = ConversionSession.objects.get(owner=world.users["ada"])
    assert response.status_code == 302 and response["Location"] == f"/sessions/{session.id}/"
    assert session.title == "V1 day 3" and session.lab == world.lab


def test_starting_without_a_title_is_fine(world: World) -> None:
    response = _poster(world, "ben").post("/sessions/new", {})
    assert response.status_code == 302
    assert ConversionSession.objects.get(owner=world.users["ben"]).title == ""


def test_someone_in_two_labs_chooses_the_lab(world: World) -> None:
    MembershipFactory(user=world.users["ada"], lab=world.other_lab)
    _poster(world, "ada").post("/sessions/new", {"title": "A1", "lab": world.other_lab.id})
    assert ConversionSession.objects.get(owner=world.users["ada"]).lab == world.other_lab


@pytest.mark.parametrize("lab", ["other", "nonsense"])
def test_a_lab_that_is_not_ones_own_is_refused_with_a_reason(world: World, lab: str) -> None:
    client = _poster(world, "carl")
    value = world.lab.id if lab == "other" else "nonsense"
    response = client.post("/sessions/new", {"title": "x", "lab": value}, follow=True)
    assert not ConversionSession.objects.exists()
    assert ("not a member of any lab (or not of that one)" in response.content.decode()) is (lab == "other")
    assert ("Choose one of your labs" in response.content.decode()) is (lab == "nonsense")


def test_staff_without_a_lab_cannot_start_and_are_told_why(world: World) -> None:
    response = _poster(world, "staff").post("/sessions/new", {"title": "x"}, follow=True)
    assert not ConversionSession.objects.exists()
    assert "not a member of any lab" in response.content.decode()


def test_starting_needs_a_login_and_a_post(world: World) -> None:
    assert Client().post("/sessions/new", {"title": "x"})["Location"].startswith("/accounts/login/")
    assert _poster(world, "ada").get("/sessions/new").status_code == 405
    assert not ConversionSession.objects.exists()


def test_starting_needs_the_csrf_token(world: World) -> None:
    response = world.browser("ada").post("/sessions/new", {"title": "x"})
    assert response.status_code == 403 and not ConversionSession.objects.exists()


# --- the same filters on the API ------------------------------------------------------------------


def test_the_api_list_takes_the_same_filters(world: World, assorted: dict[str, ConversionSession]) -> None:
    client = world.client("ada")

    def ids(query: str) -> set[str]:
        response = client.get("/api/sessions" + query)
        assert response.status_code == 200, response.content
        return {s["id"] for s in response.json()}

    assert ids("?status=failed") == {str(assorted["failed"].id), str(assorted["stuck"].id)}
    assert ids("?q=noise4sam") == {str(assorted["new"].id)}
    assert ids(f"?lab={world.other_lab.id}") == set()
    assert len(ids("")) == len(assorted)
    assert client.get("/api/sessions?status=bogus").status_code == 422


def test_the_api_list_comes_a_page_at_a_time(world: World, assorted: dict[str, ConversionSession]) -> None:
    client = world.client("ada")
    total = len(assorted)
    first = client.get("/api/sessions?limit=2")
    assert first.status_code == 200 and len(first.json()) == 2
    assert first["X-Total-Count"] == str(total)
    assert 'rel="next"' in first["Link"] and "offset=2" in first["Link"] and "limit=2" in first["Link"]
    seen = [s["id"] for s in first.json()]
    offset = 2
    while offset < total:
        page = client.get(f"/api/sessions?limit=2&offset={offset}")
        seen += [s["id"] for s in page.json()]
        offset += 2
    assert "Link" not in page
    assert sorted(seen) == sorted(str(s.id) for s in assorted.values()), "every session once, none twice"
    assert client.get("/api/sessions?limit=0").status_code == 422
    assert client.get("/api/sessions?limit=501").status_code == 422


@pytest.mark.parametrize(("person", "sees"), [("ada", True), ("ben", False), ("mia", True), ("carl", False)])
def test_the_api_filters_never_widen_what_someone_sees(
    world: World, assorted: dict[str, ConversionSession], person: str, sees: bool
) -> None:
    body = world.client(person).get(f"/api/sessions?status=failed&lab={world.lab.id}").json()
    assert bool(body) is sees

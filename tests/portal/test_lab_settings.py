"""A lab's settings and subject registry: who may see and change them (page and API), how values are
checked and kept, CSV import, the audit record, and the defaults reaching new sessions."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from conversions.models import AuditEvent, ConversionSession, Lab, Membership, Subject
from conversions.services import labs
from tests.conftest import World, real_data, wait_for_status
from tests.factories import SubjectFactory

PEOPLE = ["ada", "ben", "mia", "carl", "staff", None]
# ada and ben are members of the lab, mia manages it, carl manages another lab.
READ = {"ada": 200, "ben": 200, "mia": 200, "carl": 404, "staff": 200, None: 401}
WRITE = {"ada": 403, "ben": 403, "mia": 200, "carl": 404, "staff": 200, None: 401}
PAGE = {"ada": 403, "ben": 403, "mia": 200, "carl": 404, "staff": 200}


@pytest.fixture
def lab(world: World) -> Lab:
    Membership.objects.filter(user=world.users["carl"]).update(role=Membership.Role.MANAGER)
    world.lab.institution = "Old Institute"
    world.lab.save()
    SubjectFactory(lab=world.lab, subject_id="mouse001", species="Mus musculus", sex="M")
    return world.lab


def _browser(world: World, person: str | None) -> Client:
    client = Client()
    if person:
        client.force_login(world.users[person])
    return client


def _write_status(person: str | None, ok: int) -> int:
    return ok if WRITE[person] == 200 else WRITE[person]


def _is_login_redirect(response: Any) -> bool:
    return response.status_code == 302 and response["Location"].startswith("/accounts/login/")


def _settings_post(**changes: Any) -> dict[str, Any]:
    return {
        "institution": "Old Institute",
        "lab_name": "",
        "timezone": "Europe/Paris",
        "keywords": "",
        "experimenters": "",
        **changes,
    }


# --- who may see and change what: the page --------------------------------------------------------


@pytest.mark.parametrize("person", PEOPLE)
def test_settings_page(world: World, lab: Lab, person: str | None) -> None:
    response = _browser(world, person).get(f"/labs/{lab.id}/settings")
    if person is None:
        assert _is_login_redirect(response)
        return
    assert response.status_code == PAGE[person]
    page = response.content.decode()
    if response.status_code == 200:
        assert "Old Institute" in page and "mouse001" in page and 'list="timezones"' in page
    if response.status_code == 403:
        assert "Only the managers of Visual Lab" in page and "Ask mia" in page
        assert "mouse001" not in page and "Old Institute" not in page


@pytest.mark.parametrize("person", PEOPLE)
def test_saving_settings_from_the_page(world: World, lab: Lab, person: str | None) -> None:
    response = _browser(world, person).post(f"/labs/{lab.id}/settings", _settings_post(institution="New Institute"))
    lab.refresh_from_db()
    if person is None:
        assert _is_login_redirect(response)
    else:
        assert response.status_code == (302 if PAGE[person] == 200 else PAGE[person])
    assert lab.institution == ("New Institute" if person in ("mia", "staff") else "Old Institute")


@pytest.mark.parametrize("person", PEOPLE)
def test_adding_a_subject_from_the_page(world: World, lab: Lab, person: str | None) -> None:
    response = _browser(world, person).post(f"/labs/{lab.id}/subjects", {"subject_id": "rat7", "species": "rat"})
    allowed = person in ("mia", "staff")
    if person is None:
        assert _is_login_redirect(response)
    else:
        assert response.status_code == (302 if allowed else PAGE[person])
    assert lab.subjects.filter(subject_id="rat7").exists() is allowed


@pytest.mark.parametrize("person", PEOPLE)
def test_removing_a_subject_from_the_page(world: World, lab: Lab, person: str | None) -> None:
    subject = lab.subjects.get()
    response = _browser(world, person).post(f"/labs/{lab.id}/subjects/{subject.pk}/delete")
    allowed = person in ("mia", "staff")
    if person is None:
        assert _is_login_redirect(response)
    else:
        assert response.status_code == (302 if allowed else PAGE[person])
    assert lab.subjects.exists() is not allowed


@pytest.mark.parametrize("person", PEOPLE)
def test_importing_from_the_page(world: World, lab: Lab, person: str | None) -> None:
    csv = SimpleUploadedFile("subjects.csv", b"subject_id,species\nrat7,rat\n", content_type="text/csv")
    response = _browser(world, person).post(f"/labs/{lab.id}/subjects/import", {"file": csv})
    allowed = person in ("mia", "staff")
    if person is None:
        assert _is_login_redirect(response)
    else:
        assert response.status_code == (302 if allowed else PAGE[person])
    assert lab.subjects.filter(subject_id="rat7").exists() is allowed


def test_a_subject_of_another_lab_cannot_be_removed_through_this_one(world: World, lab: Lab) -> None:
    theirs = SubjectFactory(lab=world.other_lab, subject_id="gerbil1")
    response = _browser(world, "mia").post(f"/labs/{lab.id}/subjects/{theirs.pk}/delete")
    assert response.status_code == 404
    assert Subject.objects.filter(pk=theirs.pk).exists()


@pytest.mark.parametrize("person", PEOPLE)
def test_labs_link_leads_to_the_lab_one_manages(world: World, lab: Lab, person: str | None) -> None:
    response = _browser(world, person).get("/labs/")
    if person is None:
        assert _is_login_redirect(response)
    elif person in ("ada", "ben"):
        assert response.status_code == 404
    else:
        managed = {"mia": lab, "carl": world.other_lab, "staff": world.other_lab}[person]  # staff: first by name
        assert response.status_code == 302 and response["Location"] == f"/labs/{managed.id}/settings"


@pytest.mark.parametrize(
    ("person", "link"),
    [("ada", None), ("mia", "Visual Lab settings"), ("carl", "Auditory Lab settings"), ("staff", "Lab settings")],
)
def test_top_navigation_shows_the_settings_only_to_managers_and_staff(
    world: World, lab: Lab, person: str, link: str | None
) -> None:
    page = _browser(world, person).get("/").content.decode()
    if link is None:
        assert "settings</a>" not in page
    else:
        assert f"{link}</a>" in page
    assert (f'href="/labs/{lab.id}/settings"' in page) is (person == "mia")


def test_page_forms_need_the_csrf_token(world: World, lab: Lab) -> None:
    browser = world.browser("mia")
    assert browser.post(f"/labs/{lab.id}/settings", _settings_post(institution="X")).status_code == 403
    browser.get(f"/labs/{lab.id}/settings")
    token = browser.cookies["csrftoken"].value
    response = browser.post(
        f"/labs/{lab.id}/settings", {**_settings_post(institution="X"), "csrfmiddlewaretoken": token}
    )
    assert response.status_code == 302
    lab.refresh_from_db()
    assert lab.institution == "X"


# --- who may see and change what: the API ---------------------------------------------------------


@pytest.mark.parametrize("person", PEOPLE)
def test_api_reading_settings(world: World, lab: Lab, person: str | None) -> None:
    response = world.client(person).get(f"/api/labs/{lab.id}/settings")
    assert response.status_code == READ[person]
    if response.status_code == 200:
        body = response.json()
        assert body["institution"] == "Old Institute" and body["timezone"] == "Europe/Paris"
        assert body["may_change"] is (person in ("mia", "staff"))
        assert "data_root" not in body


@pytest.mark.parametrize("person", PEOPLE)
def test_api_changing_settings(world: World, lab: Lab, person: str | None) -> None:
    response = world.client(person).put(
        f"/api/labs/{lab.id}/settings", {"institution": "New Institute"}, content_type="application/json"
    )
    assert response.status_code == WRITE[person]
    lab.refresh_from_db()
    assert lab.institution == ("New Institute" if WRITE[person] == 200 else "Old Institute")
    if response.status_code == 403:
        assert "Only the managers" in response.json()["detail"]


@pytest.mark.parametrize("person", PEOPLE)
def test_api_reading_the_registry(world: World, lab: Lab, person: str | None) -> None:
    client = world.client(person)
    listed = client.get(f"/api/labs/{lab.id}/subjects")
    one = client.get(f"/api/labs/{lab.id}/subjects/mouse001")
    assert listed.status_code == one.status_code == READ[person]
    if READ[person] == 200:
        assert [s["subject_id"] for s in listed.json()] == ["mouse001"]
        assert one.json()["species"] == "Mus musculus" and one.json()["sex"] == "M"


@pytest.mark.parametrize("person", PEOPLE)
def test_api_adding_a_subject(world: World, lab: Lab, person: str | None) -> None:
    response = world.client(person).post(
        f"/api/labs/{lab.id}/subjects", {"subject_id": "rat7", "species": "rat"}, content_type="application/json"
    )
    assert response.status_code == _write_status(person, 201)
    assert lab.subjects.filter(subject_id="rat7").exists() is (response.status_code == 201)


@pytest.mark.parametrize("person", PEOPLE)
def test_api_changing_a_subject(world: World, lab: Lab, person: str | None) -> None:
    response = world.client(person).put(
        f"/api/labs/{lab.id}/subjects/mouse001", {"sex": "female"}, content_type="application/json"
    )
    assert response.status_code == WRITE[person]
    assert lab.subjects.get().sex == ("F" if WRITE[person] == 200 else "M")


@pytest.mark.parametrize("person", PEOPLE)
def test_api_removing_a_subject(world: World, lab: Lab, person: str | None) -> None:
    response = world.client(person).delete(f"/api/labs/{lab.id}/subjects/mouse001")
    assert response.status_code == _write_status(person, 204)
    assert lab.subjects.exists() is (response.status_code != 204)


def test_api_for_a_lab_that_does_not_exist(world: World, lab: Lab) -> None:
    client = world.client("staff")
    assert client.get("/api/labs/99999/settings").status_code == 404
    assert client.get(f"/api/labs/{lab.id}/subjects/nobody").status_code == 404
    assert client.put(f"/api/labs/{lab.id}/subjects/nobody", {}, content_type="application/json").status_code == 404


# --- values: checked, kept in NWB's form, nothing typed lost --------------------------------------


def test_settings_are_stored_in_the_form_nwb_wants(world: World, lab: Lab) -> None:
    response = _browser(world, "mia").post(
        f"/labs/{lab.id}/settings",
        _settings_post(
            institution="the University of Lisbon",
            lab_name="  Visual   Lab ",
            timezone="america/new_york",
            keywords="V1, Neuropixels, v1,, visual cortex",
            experimenters="Dr. Jane Smith\n\nLee, Bob\nJane Smith",
            llm_consent="on",
        ),
        follow=True,
    )
    assert "Settings saved" in response.content.decode()
    lab.refresh_from_db()
    assert lab.institution == "University of Lisbon"
    assert lab.lab_name == "Visual Lab"
    assert lab.timezone == "America/New_York"
    assert lab.keywords == ["V1", "Neuropixels", "visual cortex"]
    assert lab.experimenters == ["Smith, Jane", "Lee, Bob"]
    assert lab.llm_consent is True
    page = response.content.decode()
    assert "Smith, Jane\nLee, Bob</textarea>" in page and 'value="V1, Neuropixels, visual cortex"' in page


def test_invalid_settings_are_refused_with_every_value_kept(world: World, lab: Lab) -> None:
    response = _browser(world, "mia").post(
        f"/labs/{lab.id}/settings",
        _settings_post(
            institution="New Institute",
            timezone="Mars/Olympus_Mons",
            keywords="V1",
            experimenters="Smith, Jane, Lee",
            lab_name="x" * 201,
        ),
    )
    assert response.status_code == 200
    page = response.content.decode()
    assert "were not saved" in page
    assert "is not a time zone name" in page and "Mars/Olympus_Mons" in page
    assert "is ambiguous" in page and "Smith, Jane, Lee</textarea>" in page
    assert "under 200 characters" in page
    assert 'value="New Institute"' in page and 'value="V1"' in page
    lab.refresh_from_db()
    assert lab.institution == "Old Institute" and lab.timezone == "Europe/Paris" and lab.keywords == []
    assert not AuditEvent.objects.filter(kind="lab_settings_changed").exists()


def test_an_empty_time_zone_is_asked_for(world: World, lab: Lab) -> None:
    response = _browser(world, "mia").post(f"/labs/{lab.id}/settings", _settings_post(timezone=" "))
    assert "Choose the lab&#x27;s time zone" in response.content.decode()
    lab.refresh_from_db()
    assert lab.timezone == "Europe/Paris"


def test_the_data_root_is_not_the_lab_managers_to_change(world: World, lab: Lab) -> None:
    lab.data_root = "/srv/shared/visual"
    lab.save()
    _browser(world, "mia").post(f"/labs/{lab.id}/settings", _settings_post(data_root="/"))
    world.client("mia").put(f"/api/labs/{lab.id}/settings", {"data_root": "/"}, content_type="application/json")
    lab.refresh_from_db()
    assert lab.data_root == "/srv/shared/visual"
    assert "/srv/shared/visual" not in _browser(world, "mia").get(f"/labs/{lab.id}/settings").content.decode()


def test_api_refuses_invalid_settings_naming_each_field(world: World, lab: Lab) -> None:
    response = world.client("mia").put(
        f"/api/labs/{lab.id}/settings",
        {"timezone": "Paris", "experimenters": ["Jane Smith", "Smith, Jane, Lee"], "institution": "Kept?"},
        content_type="application/json",
    )
    assert response.status_code == 400
    body = response.json()
    assert set(body["errors"]) == {"timezone", "experimenters"}
    assert "Time zone:" in body["detail"]
    lab.refresh_from_db()
    assert lab.institution == "Old Institute", "nothing is stored when any value is refused"


def test_api_settings_accept_lists_or_text(world: World, lab: Lab) -> None:
    client = world.client("mia")
    body = client.put(
        f"/api/labs/{lab.id}/settings",
        {"keywords": "V1; gratings", "experimenters": ["Ada Lovelace"], "llm_consent": True},
        content_type="application/json",
    ).json()
    assert body["keywords"] == ["V1", "gratings"] and body["experimenters"] == ["Lovelace, Ada"]
    assert body["llm_consent"] is True and body["institution"] == "Old Institute", "what is left out stays"


def test_subject_values_are_normalised_and_checked(world: World, lab: Lab) -> None:
    client = world.client("mia")
    added = client.post(
        f"/api/labs/{lab.id}/subjects",
        {
            "subject_id": " rat/7 ",
            "species": "rat",
            "sex": "female",
            "date_of_birth": "2024-01-10",
            "strain": "Long Evans",
        },
        content_type="application/json",
    )
    assert added.status_code == 201
    assert added.json() | {"updated": None} == {
        "subject_id": "rat-7",
        "species": "Rattus norvegicus",
        "sex": "F",
        "date_of_birth": "2024-01-10",
        "strain": "Long Evans",
        "description": "",
        "updated": None,
    }
    refused = client.post(
        f"/api/labs/{lab.id}/subjects",
        {"subject_id": "m2", "species": "unicorn", "sex": "XX", "date_of_birth": "2999-01-01"},
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert set(refused.json()["errors"]) == {"species", "sex", "date_of_birth"}
    assert "in the future" in refused.json()["errors"]["date_of_birth"]
    again = client.post(f"/api/labs/{lab.id}/subjects", {"subject_id": "MOUSE001"}, content_type="application/json")
    assert again.status_code == 409 and "already in the registry" in again.json()["detail"]
    assert list(lab.subjects.values_list("subject_id", flat=True)) == ["mouse001", "rat-7"]


def test_api_changes_only_the_given_subject_fields_and_may_rename(world: World, lab: Lab) -> None:
    client = world.client("mia")
    changed = client.put(
        f"/api/labs/{lab.id}/subjects/%20MOUSE001%20",
        {"subject_id": "mouse001b", "strain": "C57BL/6J"},
        content_type="application/json",
    ).json()
    assert changed["subject_id"] == "mouse001b" and changed["strain"] == "C57BL/6J"
    assert changed["species"] == "Mus musculus" and changed["sex"] == "M"
    client.post(f"/api/labs/{lab.id}/subjects", {"subject_id": "m2"}, content_type="application/json")
    clash = client.put(f"/api/labs/{lab.id}/subjects/m2", {"subject_id": "Mouse001B"}, content_type="application/json")
    assert clash.status_code == 409


def test_invalid_subject_from_the_page_keeps_what_was_typed(world: World, lab: Lab) -> None:
    response = _browser(world, "mia").post(
        f"/labs/{lab.id}/subjects",
        {"subject_id": "m9", "species": "unicorn", "sex": "F", "strain": "Typed strain", "description": "Typed note"},
    )
    page = response.content.decode()
    assert "not a species name I know" in page
    assert 'value="unicorn"' in page and 'value="Typed strain"' in page and "Typed note</textarea>" in page
    assert not lab.subjects.filter(subject_id="m9").exists()


def test_page_updates_a_subject_with_the_same_id_and_edits_may_rename(world: World, lab: Lab) -> None:
    browser = _browser(world, "mia")
    response = browser.post(f"/labs/{lab.id}/subjects", {"subject_id": "Mouse001", "sex": "F"}, follow=True)
    assert "mouse001 updated (species, sex)" in response.content.decode()
    assert lab.subjects.get().sex == "F" and lab.subjects.get().species == "", "a full record: empty clears"
    edit = browser.get(f"/labs/{lab.id}/settings?subject=mouse001").content.decode()
    assert "Change mouse001" in edit and 'name="editing" value="mouse001"' in edit
    browser.post(f"/labs/{lab.id}/subjects", {"editing": "mouse001", "subject_id": "mouse042", "sex": "F"})
    assert list(lab.subjects.values_list("subject_id", flat=True)) == ["mouse042"]
    browser.post(f"/labs/{lab.id}/subjects", {"subject_id": "other"})
    clash = browser.post(f"/labs/{lab.id}/subjects", {"editing": "other", "subject_id": "MOUSE042"})
    assert "already another subject" in clash.content.decode()
    assert sorted(lab.subjects.values_list("subject_id", flat=True)) == ["mouse042", "other"]


# --- importing a CSV file -------------------------------------------------------------------------


def _import(world: World, lab: Lab, content: bytes, *, follow: bool = False) -> str:
    csv = SimpleUploadedFile("subjects.csv", content, content_type="text/csv")
    response = _browser(world, "mia").post(f"/labs/{lab.id}/subjects/import", {"file": csv}, follow=follow)
    return response.content.decode()


def test_importing_good_rows_adds_and_updates(world: World, lab: Lab) -> None:
    content = (
        "\ufeffsubject_id,species,sex,date_of_birth,strain,description\n"
        "MOUSE001,Mus musculus,female,2024-01-10,C57BL/6J,\n"
        'mouse002,mouse,M,10.01.2024,C57BL/6J,"cage 4, left"\n'
        "\n"
        "rat1,Rattus norvegicus,,,,\n"
    ).encode()
    page = _import(world, lab, content, follow=True)
    assert "Imported: 2 added, 1 updated, 0 already up to date." in page
    subjects = {s.subject_id: s for s in lab.subjects.all()}
    assert sorted(subjects) == ["mouse001", "mouse002", "rat1"], "the registered spelling of an id stays"
    assert subjects["mouse001"].sex == "F" and subjects["mouse001"].date_of_birth == date(2024, 1, 10)
    assert subjects["mouse002"].species == "Mus musculus" and subjects["mouse002"].description == "cage 4, left"
    event = AuditEvent.objects.get(kind="subjects_imported")
    assert event.session is None and event.actor == world.users["mia"]
    assert event.detail["added"] == ["mouse002", "rat1"]
    assert set(event.detail["changed"]["mouse001"]) == {"sex", "date_of_birth", "strain"}

    again = _import(world, lab, content, follow=True)
    assert "Imported: 0 added, 0 updated, 3 already up to date." in again


def test_a_column_the_file_lacks_is_left_as_it_is(world: World, lab: Lab) -> None:
    _import(world, lab, b"subject_id;strain\nmouse001;C57BL/6J\n")
    subject = lab.subjects.get()
    assert subject.strain == "C57BL/6J" and subject.species == "Mus musculus" and subject.sex == "M"


def test_importing_bad_rows_imports_nothing_and_names_each_problem(world: World, lab: Lab) -> None:
    content = (
        b"subject_id,species,sex,date_of_birth\n"
        b"good1,mouse,M,2024-01-10\n"
        b"bad2,unicorn,M,2024-01-10\n"
        b"bad3,mouse,sometimes,01/02/2024\n"
        b",mouse,M,\n"
        b"GOOD1,mouse,F,\n"
        b"bad6,mouse,M,2024-01-10,extra\n"
    )
    page = _import(world, lab, content)
    assert "Nothing was imported: 6 problems to fix in the file first." in page
    assert "Row 3 (bad2): species: &#x27;unicorn&#x27; is not a species name I know" in page
    assert "Row 4 (bad3): sex:" in page and "Row 4 (bad3): date of birth:" in page
    assert "Row 5: subject id: Give the subject&#x27;s id" in page
    assert "Row 6: subject “GOOD1” is already in row 2." in page
    assert "Row 7: more cells than the header has columns." in page
    assert list(lab.subjects.values_list("subject_id", flat=True)) == ["mouse001"]
    assert not AuditEvent.objects.filter(kind="subjects_imported").exists()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"subject,species\nm1,mouse\n", "Row 1 (the header) must name the columns"),
        (b"subject_id,spcies\nm1,mouse\n", "It has: subject_id, spcies."),
        (b"subject_id\n", "a header but no subjects"),
        (b"", "The file is empty."),
        ("subject_id,species\nmäuschen,mouse\n".encode("latin-1"), "not UTF-8 text"),
    ],
)
def test_a_file_that_is_not_a_subject_table_is_refused(world: World, lab: Lab, content: bytes, message: str) -> None:
    csv = SimpleUploadedFile("subjects.csv", content, content_type="text/csv")
    response = _browser(world, "mia").post(f"/labs/{lab.id}/subjects/import", {"file": csv})
    page = response.content.decode()
    if content:
        assert message.replace("'", "&#x27;") in page
    else:
        assert "The submitted file is empty." in page, "Django refuses an empty upload before it is read"
    assert lab.subjects.count() == 1


# --- the audit record -----------------------------------------------------------------------------


def test_settings_and_registry_changes_are_audited(world: World, lab: Lab) -> None:
    client = world.client("mia")
    client.put(
        f"/api/labs/{lab.id}/settings",
        {"institution": "Old Institute", "keywords": ["V1"], "timezone": "UTC"},
        content_type="application/json",
    )
    client.put(f"/api/labs/{lab.id}/settings", {"keywords": ["V1"]}, content_type="application/json")
    client.post(f"/api/labs/{lab.id}/subjects", {"subject_id": "rat7"}, content_type="application/json")
    client.put(f"/api/labs/{lab.id}/subjects/rat7", {"species": "rat"}, content_type="application/json")
    client.delete(f"/api/labs/{lab.id}/subjects/rat7")

    events = list(AuditEvent.objects.all())
    assert [e.kind for e in events] == [
        "lab_settings_changed",
        "subject_registered",
        "subject_changed",
        "subject_removed",
    ]
    assert all(e.session is None and e.actor == world.users["mia"] and e.detail["lab_id"] == lab.id for e in events)
    settings_event, _, changed, removed = events
    assert settings_event.detail["changed"] == {
        "keywords": {"before": [], "after": ["V1"]},
        "timezone": {"before": "Europe/Paris", "after": "UTC"},
    }, "only what changed; an unchanged save records nothing"
    assert changed.detail["changed"] == {"species": {"before": "", "after": "Rattus norvegicus"}}
    assert removed.detail["was"]["species"] == "Rattus norvegicus"


# --- the registry lookup --------------------------------------------------------------------------


def test_subject_facts_match_ids_whatever_the_case_and_spaces(world: World, lab: Lab) -> None:
    SubjectFactory(lab=lab, subject_id="Rat7", species="Rattus norvegicus", date_of_birth=date(2024, 1, 10))
    SubjectFactory(lab=world.other_lab, subject_id="gerbil1", species="Meriones unguiculatus")
    assert labs.subject_facts(lab, "  rat7 ") == {"species": "Rattus norvegicus", "date_of_birth": "2024-01-10"}
    assert labs.subject_facts(lab, "MOUSE001") == {"species": "Mus musculus", "sex": "M"}
    assert labs.subject_facts(lab, "gerbil1") == {}, "another lab's subject is not this lab's"
    assert labs.subject_facts(lab, "nobody") == {}
    assert labs.subject_facts(lab, "  ") == {}


# --- defaults reaching new sessions ---------------------------------------------------------------


def test_lab_defaults_start_a_new_sessions_metadata(world: World, lab: Lab) -> None:
    world.client("mia").put(
        f"/api/labs/{lab.id}/settings",
        {"lab_name": "Visual Lab", "keywords": ["V1", "mouse"], "experimenters": ["Jane Smith"]},
        content_type="application/json",
    )
    metadata = world.client("ada").post("/api/sessions", {}, content_type="application/json").json()["metadata"]
    assert metadata == {
        "institution": {"value": "Old Institute", "source": "lab_default"},
        "lab": {"value": "Visual Lab", "source": "lab_default"},
        "keywords": {"value": ["V1", "mouse"], "source": "lab_default"},
        "experimenter": {"value": ["Smith, Jane"], "source": "lab_default"},
    }


def test_of_several_experimenters_none_is_assumed(world: World, lab: Lab) -> None:
    lab.experimenters = ["Smith, Jane", "Lee, Bob"]
    lab.institution = ""
    lab.save()
    metadata = world.client("ada").post("/api/sessions", {}, content_type="application/json").json()["metadata"]
    assert metadata == {}


@pytest.mark.django_db(transaction=True)
def test_the_orchestrator_does_not_ask_for_what_the_lab_gave(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    recording = real_data("spikeglx/Noise4Sam_g0")
    lab = live_world.lab
    settings = live_world.client("mia").put(
        f"/api/labs/{lab.id}/settings",
        {
            "institution": "University of Lisbon",
            "lab_name": "Visual Lab",
            "experimenters": "Jane Smith",
            "keywords": "V1",
        },
        content_type="application/json",
    )
    assert settings.status_code == 200, settings.content
    client = live_world.client("ada")
    session_id = client.post("/api/sessions", {}, content_type="application/json").json()["id"]
    files = sorted(p for p in recording.rglob("*") if p.is_file())
    uploaded = client.post(
        f"/api/sessions/{session_id}/files",
        {
            "files": [SimpleUploadedFile(p.name, p.read_bytes()) for p in files],
            "relative_paths": [p.relative_to(recording.parent).as_posix() for p in files],
        },
    )
    assert uploaded.status_code == 201, uploaded.content

    body = wait_for_status(client, session_id, {"awaiting_user_input", "awaiting_approval", "failed"})
    assert body["status"] == "awaiting_user_input" and body["awaiting"] == "required_metadata", body["messages"][-1]
    question = body["messages"][-1]["text"]
    assert "experiment description" in question
    assert "experimenter" not in question and "institution" not in question
    asking_for = ConversionSession.objects.get(id=session_id).memory.asking_for
    assert "experiment_description" in asking_for
    assert not {"experimenter", "institution", "lab", "keywords"} & set(asking_for)
    assert {name: field["source"] for name, field in body["metadata"].items() if name in asking_for} == {}
    assert body["metadata"]["experimenter"] == {"value": ["Smith, Jane"], "source": "lab_default"}


def test_the_lab_lists_are_bounded(world: World, lab: Lab) -> None:
    client = world.client("mia")
    many_keywords = [f"keyword {i}" for i in range(51)]
    refused = client.put(f"/api/labs/{lab.id}/settings", {"keywords": many_keywords}, content_type="application/json")
    assert refused.status_code == 400 and "at most 50" in refused.content.decode()
    people = [f"Person{i} Smith" for i in range(101)]
    refused = client.put(f"/api/labs/{lab.id}/settings", {"experimenters": people}, content_type="application/json")
    assert refused.status_code == 400 and "at most 100" in refused.content.decode()
    lab.refresh_from_db()
    assert lab.keywords == [] and lab.experimenters == []
    fifty = client.put(
        f"/api/labs/{lab.id}/settings", {"keywords": many_keywords[:50]}, content_type="application/json"
    )
    assert fifty.status_code == 200

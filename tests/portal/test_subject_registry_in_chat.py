"""The lab's subject registry in the conversation: naming a registered subject fills its species,
sex, strain and date of birth, and the age at the session is computed; the user's words win."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import World
from tests.factories import SubjectFactory
from tests.portal.test_golden_dialogues import Scientist, spikeglx_run

pytestmark = pytest.mark.django_db(transaction=True)


def _register(world: World) -> None:
    # The generated recording starts on 2024-03-15: ninety days after this birth date.
    SubjectFactory(
        lab=world.lab,
        subject_id="mouse001",
        species="Mus musculus",
        sex="F",
        date_of_birth=date(2023, 12, 16),
        strain="C57BL/6J",
    )


def test_a_registered_subject_fills_its_fields_and_age(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    _register(live_world)
    user = Scientist.opens_session(live_world, "registry")
    user.uploads(spikeglx_run(tmp_path, "reg", seed=3))
    user.waits()

    turn = user.says("Jane Smith, MIT, V1 recording, subject MOUSE001")

    metadata = turn["session"]["metadata"]
    assert turn["session"]["awaiting"] == "approval", turn["replies"][-1]["text"]
    for name, value in {
        "species": "Mus musculus",
        "sex": "F",
        "strain": "C57BL/6J",
        "date_of_birth": "2023-12-16",
        "age": "P90D",
    }.items():
        assert metadata[name] == {"value": value, "source": "lab_default"}, name
    words = " ".join(r["text"] for r in turn["replies"])
    assert "subject registry" in words and "P90D" in words


def test_what_the_user_says_wins_over_the_registry(
    live_world: World, celery_worker_thread: Any, tmp_path: Path
) -> None:
    _register(live_world)
    user = Scientist.opens_session(live_world, "registry, corrected")
    user.uploads(spikeglx_run(tmp_path, "reg2", seed=4))
    user.waits()

    metadata = user.says("Jane Smith, MIT, V1 recording, mouse001, male, P100D")["session"]["metadata"]

    assert metadata["sex"] == {"value": "M", "source": "user"}
    assert metadata["age"] == {"value": "P100D", "source": "user"}
    assert metadata["species"] == {"value": "Mus musculus", "source": "lab_default"}


def test_another_labs_registry_is_not_used(live_world: World, celery_worker_thread: Any, tmp_path: Path) -> None:
    SubjectFactory(lab=live_world.other_lab, subject_id="mouse001", species="Rattus norvegicus", sex="M")
    user = Scientist.opens_session(live_world, "not ours")
    user.uploads(spikeglx_run(tmp_path, "reg3", seed=5))
    user.waits()

    metadata = user.says("Jane Smith, MIT, V1 recording, mouse001")["session"]["metadata"]

    assert metadata["subject_id"]["value"] == "mouse001"
    assert "species" not in metadata and "sex" not in metadata

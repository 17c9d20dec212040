"""The normalizers fix form and refuse to guess facts."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from conversions.nwb.normalizers import (
    normalize_age,
    normalize_date,
    normalize_datetime,
    normalize_experimenter,
    normalize_field,
    normalize_keywords,
    normalize_sex,
    normalize_species,
)


@pytest.mark.parametrize(
    ("text", "names"),
    [
        ("Dr. Jane Smith", ["Smith, Jane"]),
        ("Jane Smith and Bob Lee", ["Smith, Jane", "Lee, Bob"]),
        ("Smith J; Lee B", ["Smith, J.", "Lee, B."]),
        ("Smith, Jane", ["Smith, Jane"]),
        ("  Smith,   Jane ", ["Smith, Jane"]),
        ("Jane Smith, Bob Lee", ["Smith, Jane", "Lee, Bob"]),
        ("Smith, Jane; Lee, Bob", ["Smith, Jane", "Lee, Bob"]),
        ("Smith, Jane, Lee, Bob", ["Smith, Jane", "Lee, Bob"]),
        ("Prof. Dr. Jane A. Smith PhD", ["Smith, Jane A."]),
        ("J. Smith", ["Smith, J."]),
        ("JA Smith", ["Smith, J. A."]),
        ("Jane Smith & Jane Smith", ["Smith, Jane"]),
        ("Ludwig van Beethoven", ["van Beethoven, Ludwig"]),
        ("Jane Smith\nBob Lee", ["Smith, Jane", "Lee, Bob"]),
    ],
)
def test_normalize_experimenter(text: str, names: list[str]) -> None:
    assert normalize_experimenter(text) == names


@pytest.mark.parametrize("text", ["Dr.", "", "Smith, Jane, Bob Lee"])
def test_normalize_experimenter_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        normalize_experimenter(text)


@pytest.mark.parametrize(
    ("text", "species"),
    [
        ("mouse", "Mus musculus"),
        ("Mice", "Mus musculus"),
        ("mosue", "Mus musculus"),
        ("adult male C57BL/6J mouse", "Mus musculus"),
        ("rat", "Rattus norvegicus"),
        ("Long-Evans", "Rattus norvegicus"),
        ("human", "Homo sapiens"),
        ("macaque", "Macaca mulatta"),
        ("Rhesus monkey", "Macaca mulatta"),
        ("zebrafish", "Danio rerio"),
        ("zebrafsh", "Danio rerio"),
        ("fly", "Drosophila melanogaster"),
        ("Drosophila", "Drosophila melanogaster"),
        ("worm", "Caenorhabditis elegans"),
        ("C. elegans", "Caenorhabditis elegans"),
        ("marmoset", "Callithrix jacchus"),
        ("ferret", "Mustela furo"),
        ("cat", "Felis catus"),
        ("pig", "Sus scrofa"),
        ("mus musculus", "Mus musculus"),
        ("Mus Musculus", "Mus musculus"),
        ("mus musculous", "Mus musculus"),
        ("peromyscus leucopus", "Peromyscus leucopus"),
        ("http://purl.obolibrary.org/obo/NCBITaxon_10090", "http://purl.obolibrary.org/obo/NCBITaxon_10090"),
    ],
)
def test_normalize_species(text: str, species: str) -> None:
    assert normalize_species(text) == species


@pytest.mark.parametrize("text", ["monkey", "animal", "a very strange creature indeed"])
def test_normalize_species_asks_for_the_latin_name(text: str) -> None:
    with pytest.raises(ValueError, match="Latin name"):
        normalize_species(text)


@pytest.mark.parametrize(
    ("text", "sex"),
    [
        ("male", "M"),
        ("M", "M"),
        ("m.", "M"),
        ("Female", "F"),
        ("f", "F"),
        ("unknown", "U"),
        ("U", "U"),
        ("other", "O"),
        ("hermaphrodite", "XX"),
        ("XO", "XO"),
    ],
)
def test_normalize_sex(text: str, sex: str) -> None:
    assert normalize_sex(text) == sex


@pytest.mark.parametrize("text", ["mouse", "both", ""])
def test_normalize_sex_refuses(text: str) -> None:
    with pytest.raises(ValueError, match="male, female, unknown or other"):
        normalize_sex(text)


@pytest.mark.parametrize(
    ("text", "age"),
    [
        ("P90D", "P90D"),
        ("p90d", "P90D"),
        ("90 days", "P90D"),
        ("90d", "P90D"),
        ("8 weeks", "P8W"),
        ("3 months old", "P3M"),
        ("P90", "P90D"),
        ("postnatal day 21", "P21D"),
        ("2 years", "P2Y"),
        ("1 year and 6 months", "P1Y6M"),
        ("1,5 years", "P1.5Y"),
        ("about 90 days.", "P90D"),
        ("8-10 weeks", "P8W/P10W"),
        ("P60D/P90D", "P60D/P90D"),
        ("P90D/", "P90D/"),
        ("36 hours", "PT36H"),
    ],
)
def test_normalize_age(text: str, age: str) -> None:
    assert normalize_age(text) == age


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("adult", "'adult' is not an age NWB accepts; give it in days, weeks, months or years, e.g. 90 days"),
        ("young", "not an age NWB accepts"),
        ("90", "has no unit"),
        ("E15.5", "not an age NWB accepts"),
        ("2 weeks 3 weeks", "twice"),
    ],
)
def test_normalize_age_refuses(text: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        normalize_age(text)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2024-03-15 14:30", "2024-03-15T14:30:00+01:00"),
        ("2024-03-15T14:30:05", "2024-03-15T14:30:05+01:00"),
        ("15 March 2024 2:30pm", "2024-03-15T14:30:00+01:00"),
        ("March 15, 2024 14:30", "2024-03-15T14:30:00+01:00"),
        ("03/15/2024 14:30", "2024-03-15T14:30:00+01:00"),
        ("15/03/2024 14:30", "2024-03-15T14:30:00+01:00"),
        ("15.03.2024 14:30", "2024-03-15T14:30:00+01:00"),
        ("2024-07-15 14:30", "2024-07-15T14:30:00+02:00"),  # summer time
        ("2024-03-15 14:30 America/New_York", "2024-03-15T14:30:00-04:00"),
        ("2024-03-15 14:30 UTC", "2024-03-15T14:30:00+00:00"),
        ("2024-03-15T14:30:00Z", "2024-03-15T14:30:00+00:00"),
        ("2024-03-15T14:30:00+09:00", "2024-03-15T14:30:00+09:00"),
    ],
)
def test_normalize_datetime(text: str, moment: str) -> None:
    assert normalize_datetime(text, "Europe/Paris") == moment


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("03/04/2024 10:00", "day-first or month-first"),
        ("2024-03-15", "no time of day"),
        ("March 2024 10:00", "lacks a full date"),
        ("last Tuesday", "not a date I can read"),
        ((datetime.now() + timedelta(days=3)).strftime("%Y-%m-%d %H:%M"), "in the future"),
    ],
)
def test_normalize_datetime_refuses(text: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        normalize_datetime(text, "Europe/Paris")


def test_normalize_datetime_needs_a_real_timezone() -> None:
    with pytest.raises(ValueError, match="not a timezone"):
        normalize_datetime("2024-03-15 14:30", "Paris")


def test_normalize_date() -> None:
    assert normalize_date("10 January 2024") == "2024-01-10"
    assert normalize_date("2024-01-10") == "2024-01-10"
    with pytest.raises(ValueError, match="in the future"):
        normalize_date((date.today() + timedelta(days=2)).isoformat())


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("V1, Neuropixels", ["V1", "Neuropixels"]),
        ("V1; neuropixels;V1 ; Neuropixels", ["V1", "neuropixels"]),
        ("visual cortex\nmouse", ["visual cortex", "mouse"]),
    ],
)
def test_normalize_keywords(text: str, words: list[str]) -> None:
    assert normalize_keywords(text) == words


def test_normalize_keywords_refuses_nothing() -> None:
    with pytest.raises(ValueError):
        normalize_keywords(" , ;")


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("experimenter", "Jane Smith", ["Smith, Jane"]),
        ("institution", "  MIT  ", "MIT"),
        ("institution", "the University of Lisbon", "University of Lisbon"),
        ("institution", "The Francis Crick Institute", "Francis Crick Institute"),
        ("lab", "Smith Lab\n", "Smith Lab"),
        ("experiment_description", " V1 recordings. ", "V1 recordings."),
        ("session_description", "day 3", "day 3"),
        ("keywords", "V1, Neuropixels", ["V1", "Neuropixels"]),
        ("subject_id", " mouse/001 ", "mouse-001"),
        ("species", "mouse", "Mus musculus"),
        ("sex", "female", "F"),
        ("age", "90 days", "P90D"),
        ("date_of_birth", "2024-01-10", "2024-01-10"),
        ("strain", " C57BL/6J ", "C57BL/6J"),
        ("session_start_time", "2024-03-15 14:30", "2024-03-15T14:30:00-04:00"),
    ],
)
def test_normalize_field(name: str, raw: str, value: Any) -> None:
    assert normalize_field(name, raw, timezone="America/New_York") == value


@pytest.mark.parametrize("raw", ["", "   "])
def test_normalize_field_refuses_empty(raw: str) -> None:
    with pytest.raises(ValueError, match="The institution is empty"):
        normalize_field("institution", raw)


def test_normalize_field_unknown_name() -> None:
    with pytest.raises(KeyError):
        normalize_field("favourite_colour", "blue")


def test_normalized_start_time_is_aware() -> None:
    moment = datetime.fromisoformat(normalize_field("session_start_time", "2024-03-15 14:30", timezone="Asia/Tokyo"))
    assert moment.utcoffset() == ZoneInfo("Asia/Tokyo").utcoffset(moment)

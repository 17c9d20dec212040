"""The normalizers fix form and refuse to guess facts."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from conversions.nwb.normalizers import (
    age_from_birth,
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
        ("García López, María José; Ruiz, Pablo", ["García López, María José", "Ruiz, Pablo"]),
        ("Jane Smith; Bob Lee, Ann Wu", ["Smith, Jane", "Lee, Bob", "Wu, Ann"]),
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
        ("Willem van den Broek", ["van den Broek, Willem"]),
        ("van den Broek, Sanne", ["van den Broek, Sanne"]),
        ("Siobhán Ní Bhriain", ["Ní Bhriain, Siobhán"]),
        ("Priyanka Das", ["Das, Priyanka"]),
        ("Jane Smith\nBob Lee", ["Smith, Jane", "Lee, Bob"]),
        # A lone family name is kept rather than given an invented first name.
        ("Dr. Smith", ["Smith"]),
        ("Prof. Smith and Dr. Jane Lee", ["Smith", "Lee, Jane"]),
        # Typed all in lower case: capitals added; any other casing is the person's own.
        ("jane doe", ["Doe, Jane"]),
        ("lee", ["Lee"]),
        ("ludwig van beethoven", ["van Beethoven, Ludwig"]),
        ("McDonald, ronald", ["McDonald, Ronald"]),
        ("smith j", ["Smith, J."]),
    ],
)
def test_normalize_experimenter(text: str, names: list[str]) -> None:
    assert normalize_experimenter(text) == names


@pytest.mark.parametrize(
    ("text", "names"),
    [
        # Family name first, as Chinese, Japanese, Korean and Vietnamese writers often give their own.
        ("Zhou Jie and Huang Jing", ["Zhou, Jie", "Huang, Jing"]),
        ("tanaka hiroshi", ["Tanaka, Hiroshi"]),
        ("Ishikawa Daiki", ["Ishikawa, Daiki"]),
        ("Kim Ji-woo", ["Kim, Ji-woo"]),
        ("Chen Yu-Ting", ["Chen, Yu-Ting"]),
        ("Bui Van Long", ["Bui, Van Long"]),
        ("Tan Wei Ling", ["Tan, Wei Ling"]),
        # The same people given name first stay as they are.
        ("Jie Zhou", ["Zhou, Jie"]),
        ("Kenta Sato", ["Sato, Kenta"]),
        ("Ji-woo Kim", ["Kim, Ji-woo"]),
        ("Wei Ling Tan", ["Tan, Wei Ling"]),
        # Two common family names: the English order. A name of another language is never turned.
        ("Yang Liu", ["Liu, Yang"]),
        ("Lu Santos", ["Santos, Lu"]),
        ("Abe Simpson", ["Simpson, Abe"]),
        ("Lee Smith", ["Smith, Lee"]),
        ("Dong Kim", ["Kim, Dong"]),
        # Names in characters: a one-character given name is a name, not an initial; two names are two people.
        ("王, 磊", ["王, 磊"]),
        ("王磊, 李婷", ["王, 磊", "李, 婷"]),
        ("佐藤, 美咲", ["佐藤, 美咲"]),
        ("山本 さくら", ["山本, さくら"]),
        ("박지훈, 김민준", ["박, 지훈", "김, 민준"]),
    ],
)
def test_names_written_family_name_first(text: str, names: list[str]) -> None:
    assert normalize_experimenter(text) == names


@pytest.mark.parametrize(
    ("name", "raw", "why"),
    [
        ("experimenter", "Jane <b>Smith</b>", "markup"),
        ("subject_id", "<script>alert(1)</script>", "markup"),
        ("institution", "MIT<!-- note -->", "markup"),
        ("subject_id", "M1\x07", "U+0007"),
        ("lab", "Harris\nlab", "line break"),
        ("institution", "MIT\u202e", "U+202E"),  # a right-to-left override: shows the text reversed
        ("experiment_description", "V1\x1b[31m recording", "U+001B"),
    ],
)
def test_short_fields_refuse_markup_and_control_characters(name: str, raw: str, why: str) -> None:
    with pytest.raises(ValueError, match=re.escape(why)):
        normalize_field(name, raw)


@pytest.mark.parametrize(
    ("name", "raw", "value"),
    [
        ("strain", "R60D05-GAL4>UAS-GCaMP7f", "R60D05-GAL4>UAS-GCaMP7f"),  # a fly cross: ">" is text
        ("experiment_description", "LFP below <5 Hz\nin two lines", "LFP below <5 Hz\nin two lines"),
        ("experimenter", "Smith, Jane\nLee, Bob", ["Smith, Jane", "Lee, Bob"]),  # one a line, as the panel takes them
    ],
)
def test_text_that_only_looks_like_markup_is_kept(name: str, raw: str, value: Any) -> None:
    assert normalize_field(name, raw) == value


def test_a_session_takes_at_most_fifty_keywords() -> None:
    assert len(normalize_keywords(", ".join(f"k{i}" for i in range(50)))) == 50
    with pytest.raises(ValueError, match="at most 50"):
        normalize_keywords(", ".join(f"k{i}" for i in range(51)))


@pytest.mark.parametrize("text", ["Dr.", "", "Smith, Jane, Bob Lee"])
def test_normalize_experimenter_refuses(text: str) -> None:
    with pytest.raises(ValueError):
        normalize_experimenter(text)


def test_lone_family_name_is_only_a_suggestion_for_nwbinspector() -> None:
    from nwbinspector.checks import check_experimenter_form
    from pynwb import NWBFile

    def messages(names: list[str]) -> list[Any]:
        nwbfile = NWBFile(
            session_description="test",
            identifier="test",
            session_start_time=datetime(2025, 8, 15, 10, tzinfo=ZoneInfo("Europe/Paris")),
            experimenter=names,
        )
        return list(check_experimenter_form(nwbfile) or [])

    assert messages(normalize_experimenter("Dr. Jane Smith")) == []
    assert len(messages(normalize_experimenter("Dr. Smith"))) == 1


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
        ("https://purl.obolibrary.org/obo/NCBITaxon_9669", "http://purl.obolibrary.org/obo/NCBITaxon_9669"),
        # DANDI's own table (dandi-cli species_map)
        ("house mouse", "Mus musculus"),
        ("Norway rat", "Rattus norvegicus"),
        ("black rat", "Rattus rattus"),
        ("Rattus rattus", "Rattus rattus"),
        ("rhesus macaque", "Macaca mulatta"),
        ("pig-tailed macaque", "Macaca nemestrina"),
        ("pigtail macaque", "Macaca nemestrina"),
        ("common marmoset", "Callithrix jacchus"),
        ("fruit fly", "Drosophila melanogaster"),
        ("zebra fish", "Danio rerio"),
        ("Mongolian gerbil", "Meriones unguiculatus"),
        # others common in neurophysiology
        ("long-tailed macaque", "Macaca fascicularis"),
        ("long tailed macaque", "Macaca fascicularis"),
        ("crab-eating macaque", "Macaca fascicularis"),
        ("cynomolgus monkey", "Macaca fascicularis"),
        ("Japanese macaque", "Macaca fuscata"),
        ("bonnet macaque", "Macaca radiata"),
        ("marmoset monkey", "Callithrix jacchus"),
        ("zebra finch", "Taeniopygia guttata"),
        ("Bengalese finch", "Lonchura striata"),
        ("canary", "Serinus canaria"),
        ("pigeon", "Columba livia"),
        ("barn owl", "Tyto alba"),
        ("Egyptian fruit bat", "Rousettus aegyptiacus"),
        ("big brown bat", "Eptesicus fuscus"),
        ("Mustela putorius furo", "Mustela furo"),  # nwbinspector's species check rejects trinomials
        ("dog", "Canis familiaris"),
        ("Canis lupus familiaris", "Canis familiaris"),
        ("rabbit", "Oryctolagus cuniculus"),
        ("guinea pig", "Cavia porcellus"),
        ("gerbil", "Meriones unguiculatus"),
        ("hamster", "Mesocricetus auratus"),
        ("tree shrew", "Tupaia belangeri"),
        ("chicken", "Gallus gallus"),
        ("Xenopus", "Xenopus laevis"),
        ("goldfish", "Carassius auratus"),
        ("Aplysia", "Aplysia californica"),
        ("Aotus trivirgatus", "Aotus trivirgatus"),
        ("Aotus nancymaae", "Aotus nancymaae"),
        # misspellings, plurals and abbreviations
        ("rats", "Rattus norvegicus"),
        ("Rattus Norvegicus", "Rattus norvegicus"),
        ("rattus norvegicus", "Rattus norvegicus"),
        ("macaca mulata", "Macaca mulatta"),
        ("drosophila", "Drosophila melanogaster"),
        ("c elegans", "Caenorhabditis elegans"),
        ("C.elegans", "Caenorhabditis elegans"),
        ("M. musculus", "Mus musculus"),
        ("M musculus", "Mus musculus"),
        ("R. norvegicus", "Rattus norvegicus"),
        ("M. mulatta", "Macaca mulatta"),
        ("D. melanogaster", "Drosophila melanogaster"),
        ("D. rerio", "Danio rerio"),
        ("H. sapiens", "Homo sapiens"),
        # strains and genotypes next to the animal
        ("GAD2-Cre mice", "Mus musculus"),
        ("Ai14 x Sst-Cre mouse", "Mus musculus"),
        ("wild-type mice", "Mus musculus"),
        ("Thy1-GCaMP6s mice", "Mus musculus"),
        ("Long-Evans hooded rats", "Rattus norvegicus"),
        ("Sprague-Dawley", "Rattus norvegicus"),
        ("CD-1 mice", "Mus musculus"),
        ("Mus spretus", "Mus spretus"),
    ],
)
def test_normalize_species(text: str, species: str) -> None:
    assert normalize_species(text) == species


@pytest.mark.parametrize("text", ["monkey", "animal", "a very strange creature indeed"])
def test_normalize_species_asks_for_the_latin_name(text: str) -> None:
    with pytest.raises(ValueError, match="Latin name"):
        normalize_species(text)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("owl monkey", "covers several species; give the Latin name, e.g. Aotus nancymaae or Aotus trivirgatus"),
        ("night monkey", "e.g. Aotus nancymaae or Aotus trivirgatus"),
        ("squirrel monkey", "e.g. Saimiri sciureus or Saimiri boliviensis"),
        ("monkeys", "e.g. Macaca mulatta or Callithrix jacchus"),
        ("bat", "e.g. Eptesicus fuscus or Rousettus aegyptiacus"),
        ("songbird", "give the Latin name, e.g. Taeniopygia guttata"),
        ("spiny mouse", "may be a species other than Mus musculus ('spiny' is not a name I know); give the Latin"),
        ("California mouse", "give the Latin name, e.g. Mus musculus"),
        ("rat and mouse", "names more than one species (Mus musculus, Rattus norvegicus); give one"),
        ("spider monkey", "give the Latin name (genus and species), e.g. Mus musculus, or its NCBI Taxonomy link"),
        # A one-letter change turns one real word into another; only slips that keep the letters pass.
        ("moose", "http://purl.obolibrary.org/obo/NCBITaxon_10090"),
        ("bats", "several species"),
        ("cow", "not a species name I know"),
    ],
)
def test_normalize_species_refuses_to_guess(text: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        normalize_species(text)
    assert words in str(caught.value)


@pytest.mark.parametrize("text", ["mouse", "Mus Musculus", "ferret", "Mustela putorius furo", "C. elegans", "pig"])
def test_normalized_species_pass_nwbinspector(text: str) -> None:
    from nwbinspector.checks import check_subject_species_form
    from pynwb.file import Subject

    assert check_subject_species_form(Subject(subject_id="m1", species=normalize_species(text))) is None


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
        ("1,5 years", "P18M"),
        ("about 90 days.", "P90D"),
        ("8-10 weeks", "P8W/P10W"),
        ("P60D/P90D", "P60D/P90D"),
        ("P90D/", "P90D/"),
        ("36 hours", "PT36H"),
        ("P2Y6M", "P2Y6M"),
        ("2 years 6 months", "P2Y6M"),
        ("49 años", "P49Y"),
        ("39歳", "P39Y"),
        ("2 years, 6 months", "P2Y6M"),
        ("P90D/P120D", "P90D/P120D"),
        ("P4W/P1M", "P4W/P1M"),
        ("/P90D", "/P90D"),
        ("8 to 10 weeks", "P8W/P10W"),
        ("between 8 and 10 weeks", "P8W/P10W"),
        ("P21-P25", "P21D/P25D"),
        ("12 wks", "P12W"),
        ("090 days", "P90D"),
        ("P0", "P0D"),
        # A fraction that makes whole smaller units is written in them (DANDI allows a fraction only
        # in the last part); one that does not stays, which ISO 8601 allows.
        ("1.5 years", "P18M"),
        ("1.25 years", "P15M"),
        ("1.5 years 2 months", "P20M"),
        ("1.5 days", "PT36H"),
        ("1.3 years", "P1.3Y"),
        ("1.5 weeks", "P1.5W"),
        ("1.5 months", "P1.5M"),
        ("1 year 6.5 months", "P1Y6.5M"),
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
        ("E15", "counts from conception, NWB from birth; give the postnatal age, e.g. P21D, or the date of birth"),
        ("e15.5", "give the postnatal age, e.g. P21D, or the date of birth"),
        ("embryonic day 15", "give the postnatal age, e.g. P21D, or the date of birth"),
        ("P120D/P90D", "upper bound is not above its lower bound; give it youngest first, e.g. 8-10 weeks"),
        ("P90D/P90D", "give it youngest first"),
        ("P1Y/P12M", "give it youngest first"),
        ("10-8 weeks", "give it youngest first, e.g. 8-10 weeks or P60D/P90D"),
        ("P25-P21", "give it youngest first"),
        ("1.3 years 2 months", "has a fraction before its last unit; give whole numbers, e.g. 1 year 6 months"),
        ("3 months old, adult", "give it in days, weeks, months or years"),
    ],
)
def test_normalize_age_refuses(text: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        normalize_age(text)
    assert words in str(caught.value)


@pytest.mark.parametrize(
    "text", ["P90D", "90 days", "8-10 weeks", "P90D/", "1.5 years", "1.3 years", "1.5 days", "postnatal day 21"]
)
def test_normalized_ages_pass_nwbinspector(text: str) -> None:
    from nwbinspector.checks import check_subject_age, check_subject_proper_age_range
    from pynwb.file import Subject

    subject = Subject(subject_id="m1", age=normalize_age(text))
    assert check_subject_age(subject) is None
    assert check_subject_proper_age_range(subject) is None


@pytest.mark.parametrize(
    ("born", "session", "age"),
    [
        ("2025-05-17", "2025-08-15T10:00:00+02:00", "P90D"),
        ("17 May 2025", "15.08.2025 10:00", "P90D"),
        ("2025-05-17", "2025-08-15 10:00 Europe/Paris", "P90D"),
        ("2024-02-28", "2024-03-01 09:00", "P2D"),  # leap year
        ("2025-08-15", "2025-08-15T09:00:00", "P0D"),
        # The session's own calendar date counts, not the date in UTC.
        ("2025-08-14", "2025-08-15T00:30:00+02:00", "P1D"),
    ],
)
def test_age_from_birth(born: str, session: str, age: str) -> None:
    assert age_from_birth(born, session) == age


@pytest.mark.parametrize(
    ("born", "session", "words"),
    [
        ("2025-08-16", "2025-08-15T10:00", "is after the session (2025-08-15); check both dates, or give the age"),
        ("yesterday", "2025-08-15T10:00", "give the calendar date"),
        ("05/06/2025", "2025-08-15T10:00", "write the date as year-month-day"),
        ("May 2025", "2025-08-15T10:00", "lacks a full date"),
    ],
)
def test_age_from_birth_refuses(born: str, session: str, words: str) -> None:
    with pytest.raises(ValueError) as caught:
        age_from_birth(born, session)
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
        ("15th August 2025 around 10 am", "2025-08-15T10:00:00+02:00"),
        ("August 15th, 2025 at 10am", "2025-08-15T10:00:00+02:00"),
        ("Aug 15, 2025 10:00", "2025-08-15T10:00:00+02:00"),
        ("15.08.2025 10:00", "2025-08-15T10:00:00+02:00"),
        ("05.08.2025 10:00", "2025-08-05T10:00:00+02:00"),  # dots are day-first
        ("15.08.25 10:00", "2025-08-15T10:00:00+02:00"),
        ("15 Aug 2025 10h30", "2025-08-15T10:30:00+02:00"),
        ("~10:00 on 15 Aug 2025", "2025-08-15T10:00:00+02:00"),
        ("2025-08-15T10:00:00Z", "2025-08-15T10:00:00+00:00"),
        ("2025-08-15 10:00 +0200", "2025-08-15T10:00:00+02:00"),
        ("2025-08-15 10:00 GMT+2", "2025-08-15T10:00:00+02:00"),
        ("2025-08-15 10:00 UTC-05:30", "2025-08-15T10:00:00-05:30"),
        ("2025-08-15 10:00 Europe/London", "2025-08-15T10:00:00+01:00"),
        ("le 2 mars 2024 à 9h45", "2024-03-02T09:45:00+01:00"),
        ("20 de junio de 2024 a las 12:00", "2024-06-20T12:00:00+02:00"),
        ("am 5. März 2024 um 11:20 Uhr", "2024-03-05T11:20:00+01:00"),
        ("3 maggio 2024 alle 14:10", "2024-05-03T14:10:00+02:00"),
        ("12 mei 2024 om 10:00", "2024-05-12T10:00:00+02:00"),
        ("9 am 15 March 2024", "2024-03-15T09:00:00+01:00"),  # "am" the morning, not German "on"
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
        ("yesterday", "'yesterday' depends on the day it was said; give the calendar date, e.g. 2024-03-15 14:30"),
        ("yesterday at 10am", "give the calendar date"),
        ("today 10:00", "give the calendar date"),
        ("05/08/2025 10:00", "write the date as year-month-day"),
        ("15 August 2025", "has no time of day; add it"),
        ("2025-08-15 10:00 CET", "can mean several offsets; give a zone name such as Europe/Paris or an offset"),
        ("2025-08-15 10:00 EST", "give a zone name such as Europe/Paris"),
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
    assert normalize_date("05.06.2024") == "2024-06-05"
    with pytest.raises(ValueError, match="give the calendar date"):
        normalize_date("yesterday")
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
        ("subject_id", "#4402", "4402"),
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


@pytest.mark.parametrize(
    "said",
    [
        "Fatima Zahra El Amrani",
        "Willem van den Broek",
        "Siobhán Ní Bhriain",
        "Ludwig van Beethoven and Jane Smith",
        "Hassan Al Masri",
        "Maria das Neves",
        "J. R. Hartley; M. Osei",
    ],
)
def test_experimenters_normalized_twice_stay_the_same(said: str) -> None:
    """The stored form is read again when values are rewritten for DANDI: "El Amrani, Fatima Zahra"
    must stay one person, not become "Amrani, El" and "Zahra, Fatima"."""
    once = normalize_field("experimenter", said)
    assert normalize_field("experimenter", "; ".join(once)) == once


@pytest.mark.parametrize(
    ("said", "seconds"),
    [
        ("0", 0.0),
        ("2.5", 2.5),
        ("2.5 s", 2.5),
        ("300 ms later", 0.3),
        ("1 s before", -1.0),
        ("-1.5", -1.5),
        ("1 minute later", 60.0),
        ("they started together", 0.0),
        ("video and ephys started at the same time", 0.0),
        ("the video started 2 s after the recording: video start 2", 2.0),  # the same time, said twice
    ],
)
def test_when_the_camera_started_is_read_from_a_value_or_a_sentence(said: str, seconds: float) -> None:
    from conversions.nwb.normalizers import normalize_field

    assert normalize_field("behaviour_start_s", said) == pytest.approx(seconds)


@pytest.mark.parametrize(("said", "why"), [("whenever", "holds no time"), ("2 or 3 s", "holds several times")])
def test_a_camera_start_that_is_not_one_time_is_refused(said: str, why: str) -> None:
    from conversions.nwb.normalizers import normalize_field

    with pytest.raises(ValueError, match=why):
        normalize_field("behaviour_start_s", said)


@pytest.mark.parametrize(
    ("said", "rate"), [("30", 30.0), ("29.97 fps", 29.97), ("60 Hz", 60.0), ("25 frames per second", 25.0)]
)
def test_a_frame_rate_is_read_with_or_without_its_unit(said: str, rate: float) -> None:
    from conversions.nwb.normalizers import normalize_field

    assert normalize_field("pose_rate_hz", said) == rate


@pytest.mark.parametrize("said", ["0", "fast", "-30", "200000"])
def test_a_frame_rate_that_is_not_one_is_refused(said: str) -> None:
    from conversions.nwb.normalizers import normalize_field

    with pytest.raises(ValueError, match="is not a frame rate"):
        normalize_field("pose_rate_hz", said)

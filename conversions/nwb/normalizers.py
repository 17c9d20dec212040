"""Turn what a user typed into the form NWB and DANDI expect.

Pure functions. Each fixes form only (spelling, order, notation) and never guesses a fact: when
the text does not say enough, it raises `ValueError` with a message the user can act on.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .fields import FIELDS

# --- experimenter --------------------------------------------------------------------------------

_TITLES = frozenset(
    {
        "dr",
        "prof",
        "professor",
        "phd",
        "ph.d",
        "md",
        "m.d",
        "mr",
        "mrs",
        "ms",
        "mx",
        "msc",
        "bsc",
        "dphil",
        "sir",
    }
)
_PEOPLE_SEPARATORS = re.compile(r"\s*(?:;|\n|&|\band\b)\s*", re.IGNORECASE)
_INITIALS = re.compile(r"^(?:[A-Z]\.?){1,3}$")


def normalize_experimenter(text: str) -> list[str]:
    """Names as DANDI wants them, "Last, First": "Dr. Jane Smith and Bob Lee" →
    ["Smith, Jane", "Lee, Bob"]; "Smith J; Lee B" → ["Smith, J.", "Lee, B."]."""
    people: list[str] = []
    for chunk in _PEOPLE_SEPARATORS.split(text):
        people.extend(_split_comma_list(chunk))
    names = [name for name in (_last_first(person) for person in people) if name]
    if not names:
        raise ValueError("Give the experimenter's name, e.g. Jane Smith or Smith, Jane.")
    return list(dict.fromkeys(names))


def _split_comma_list(chunk: str) -> list[str]:
    """ "Smith, Jane" is one person; "Jane Smith, Bob Lee" and "Smith, Jane, Lee, Bob" are two."""
    parts = [part.strip() for part in chunk.split(",") if _without_titles(part.strip())]
    if len(parts) <= 1:
        return parts
    if all(len(_without_titles(part)) >= 2 for part in parts):
        return parts  # every part is a full name
    if len(parts) % 2 == 0:
        return [f"{parts[i]}, {parts[i + 1]}" for i in range(0, len(parts), 2)]
    raise ValueError(f"'{chunk.strip()}' is ambiguous: separate people with ';' or 'and', e.g. Smith, Jane; Lee, Bob.")


def _without_titles(text: str) -> list[str]:
    words = text.replace(",", " ").split()
    return [word for word in words if word.lower().rstrip(".") not in _TITLES]


def _last_first(person: str) -> str:
    if "," in person:
        last, first = (" ".join(_without_titles(part)) for part in person.split(",", 1))
        if not last or not first:
            return last or first
        return f"{last}, {_initials_with_dots(first)}"
    words = _without_titles(person)
    if len(words) < 2:
        return words[0] if words else ""
    if _INITIALS.match(words[-1]) and not _INITIALS.match(words[0]):
        # "Smith J" / "Smith JA": family name first, initials after.
        return f"{' '.join(words[:-1])}, {_initials_with_dots(words[-1])}"
    particles = 1
    # Keep family-name particles with the family name: "Ludwig van Beethoven" → "van Beethoven, Ludwig".
    while len(words) - particles - 1 >= 1 and words[-particles - 1].lower() in {
        "van",
        "von",
        "de",
        "der",
        "da",
        "di",
        "la",
        "le",
        "du",
        "del",
    }:
        particles += 1
    return f"{' '.join(words[-particles:])}, {_initials_with_dots(' '.join(words[:-particles]))}"


def _initials_with_dots(first: str) -> str:
    words = first.split()
    if len(words) == 1 and _INITIALS.match(words[0]) and words[0].isupper():
        return ". ".join(words[0].replace(".", "")) + "."
    return " ".join(f"{word}." if len(word) == 1 and word.isalpha() else word for word in words)


# --- species -------------------------------------------------------------------------------------

_SPECIES_BY_NAME: dict[str, str] = {
    **dict.fromkeys(
        [
            "mouse",
            "mice",
            "house mouse",
            "c57bl/6",
            "c57bl/6j",
            "c57bl6",
            "c57",
            "bl6",
            "balb/c",
            "cd-1",
            "swiss webster",
        ],
        "Mus musculus",
    ),
    **dict.fromkeys(
        [
            "rat",
            "rats",
            "brown rat",
            "norway rat",
            "sprague dawley",
            "sprague-dawley",
            "long evans",
            "long-evans",
            "wistar",
        ],
        "Rattus norvegicus",
    ),
    **dict.fromkeys(["human", "humans", "person", "people", "patient", "participant"], "Homo sapiens"),
    **dict.fromkeys(
        ["macaque", "macaques", "rhesus", "rhesus macaque", "rhesus monkey", "rhesus monkeys"],
        "Macaca mulatta",
    ),
    **dict.fromkeys(
        ["cynomolgus", "cynomolgus macaque", "crab-eating macaque", "long-tailed macaque"],
        "Macaca fascicularis",
    ),
    **dict.fromkeys(["marmoset", "marmosets", "common marmoset"], "Callithrix jacchus"),
    **dict.fromkeys(["zebrafish", "zebra fish", "danio", "zebrafish larva", "zebrafish larvae"], "Danio rerio"),
    **dict.fromkeys(
        ["fly", "flies", "fruit fly", "fruit flies", "drosophila", "vinegar fly"], "Drosophila melanogaster"
    ),
    **dict.fromkeys(["worm", "worms", "c. elegans", "c elegans", "elegans", "nematode"], "Caenorhabditis elegans"),
    **dict.fromkeys(["ferret", "ferrets"], "Mustela furo"),
    **dict.fromkeys(["cat", "cats", "domestic cat"], "Felis catus"),
    **dict.fromkeys(["pig", "pigs", "swine", "minipig", "mini pig"], "Sus scrofa"),
    **dict.fromkeys(["dog", "dogs"], "Canis familiaris"),
    **dict.fromkeys(["gerbil", "gerbils", "mongolian gerbil"], "Meriones unguiculatus"),
    **dict.fromkeys(["hamster", "syrian hamster", "golden hamster"], "Mesocricetus auratus"),
    **dict.fromkeys(["guinea pig", "guinea pigs"], "Cavia porcellus"),
    **dict.fromkeys(["rabbit", "rabbits"], "Oryctolagus cuniculus"),
    **dict.fromkeys(["zebra finch", "zebra finches"], "Taeniopygia guttata"),
    **dict.fromkeys(["chicken", "chick"], "Gallus gallus"),
    **dict.fromkeys(["barn owl"], "Tyto alba"),
    **dict.fromkeys(["egyptian fruit bat"], "Rousettus aegyptiacus"),
    **dict.fromkeys(["tree shrew"], "Tupaia belangeri"),
    **dict.fromkeys(["sheep"], "Ovis aries"),
    **dict.fromkeys(["xenopus", "african clawed frog"], "Xenopus laevis"),
    **dict.fromkeys(["honeybee", "honey bee"], "Apis mellifera"),
    **dict.fromkeys(["axolotl"], "Ambystoma mexicanum"),
    **dict.fromkeys(["naked mole rat", "naked mole-rat"], "Heterocephalus glaber"),
    **dict.fromkeys(["prairie vole"], "Microtus ochrogaster"),
    **dict.fromkeys(["deer mouse"], "Peromyscus maniculatus"),
}
_KNOWN_BINOMIALS = sorted(set(_SPECIES_BY_NAME.values()))
# Words that qualify an animal without naming its species ("adult male lab mouse").
_QUALIFIERS = frozenset(
    {
        "lab",
        "laboratory",
        "wild",
        "type",
        "wildtype",
        "wild-type",
        "wt",
        "transgenic",
        "adult",
        "male",
        "female",
        "juvenile",
        "young",
        "a",
        "an",
        "the",
    }
)
_NCBI_TAXON = re.compile(r"^https?://purl\.obolibrary\.org/obo/NCBITaxon_\d+$")
_BINOMIAL = re.compile(r"^[A-Za-z]+ [A-Za-z]+$")


def normalize_species(text: str) -> str:
    """A Latin binomial ("Mus musculus") from a common name, a misspelling or a binomial."""
    cleaned = " ".join(text.split())
    if _NCBI_TAXON.match(cleaned):
        return cleaned.replace("https://", "http://")
    words = [word for word in cleaned.lower().replace("_", " ").split() if word not in _QUALIFIERS]
    key = " ".join(words)
    known = {binomial.lower(): binomial for binomial in _KNOWN_BINOMIALS}
    names = {**_SPECIES_BY_NAME, **known}
    if key in names:
        return names[key]
    # "C57BL/6J mouse": every name inside the text points to the same species.
    found = {
        names[" ".join(words[start:stop])]
        for start in range(len(words))
        for stop in range(start + 1, len(words) + 1)
        if " ".join(words[start:stop]) in names
    }
    if len(found) == 1:
        return found.pop()
    close = difflib.get_close_matches(key, list(names), n=1, cutoff=0.8)
    if close:
        return names[close[0]]
    if _BINOMIAL.match(key):
        genus, epithet = key.split()
        return f"{genus.capitalize()} {epithet}"
    raise ValueError(
        f"'{cleaned}' is not a species name I know; give the Latin name (genus and species), e.g. Mus musculus."
    )


# --- sex -----------------------------------------------------------------------------------------

_SEX_BY_WORD: dict[str, str] = {
    **dict.fromkeys(["m", "male", "males", "man", "boy", "♂"], "M"),
    **dict.fromkeys(["f", "female", "females", "woman", "girl", "♀"], "F"),
    **dict.fromkeys(["u", "unknown", "unk", "?", "not known", "n/a", "na", "unsure", "undetermined"], "U"),
    **dict.fromkeys(["o", "other", "intersex"], "O"),
    # C. elegans is the one species NWB records by karyotype.
    **dict.fromkeys(["xx", "hermaphrodite"], "XX"),
    "xo": "XO",
}


def normalize_sex(text: str) -> str:
    """M, F, U or O (and XX/XO, the C. elegans forms) from words such as "male" or "f"."""
    key = " ".join(text.lower().split()).rstrip(".")
    if key in _SEX_BY_WORD:
        return _SEX_BY_WORD[key]
    raise ValueError(f"'{text.strip()}' is not a sex NWB records; say male, female, unknown or other.")


# --- age -----------------------------------------------------------------------------------------

_AGE_UNITS: dict[str, str] = {
    **dict.fromkeys(["y", "yr", "yrs", "year", "years"], "Y"),
    **dict.fromkeys(["m", "mo", "mos", "mon", "month", "months"], "M"),
    **dict.fromkeys(["w", "wk", "wks", "week", "weeks"], "W"),
    **dict.fromkeys(["d", "day", "days"], "D"),
    **dict.fromkeys(["h", "hr", "hrs", "hour", "hours"], "H"),
}
_ISO_DURATION = re.compile(
    r"^P(?!$)(\d+(?:\.\d+)?Y)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?W)?(\d+(?:\.\d+)?D)?"
    r"(T(?=\d)(\d+(?:\.\d+)?H)?(\d+(?:\.\d+)?M)?(\d+(?:\.\d+)?S)?)?$"
)
_POSTNATAL_DAY = re.compile(r"^(?:p|pnd|postnatal day)\s*(\d+)$")
_AGE_PART = re.compile(r"(\d+(?:\.\d+)?)\s*([a-z]+)")
_AGE_RANGE = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:-|–|to)\s*(\d+(?:\.\d+)?)\s*([a-z]+)$")
_AGE_EXAMPLE = "give it in days, weeks, months or years, e.g. 90 days"


def normalize_age(text: str) -> str:
    """An ISO 8601 duration: "90 days" → "P90D", "8 weeks" → "P8W", "P90" (postnatal day) → "P90D"."""
    raw = " ".join(text.split())
    if _ISO_DURATION.match(raw.upper()):
        return raw.upper()
    if "/" in raw:  # a range in ISO form, e.g. P60D/P90D or P90D/ (at least 90 days)
        lower, upper = raw.upper().split("/", 1)
        if all(not bound or _ISO_DURATION.match(bound) for bound in (lower, upper)) and (lower or upper):
            return f"{lower}/{upper}"
    key = re.sub(r"(\d),(\d)", r"\1.\2", raw.lower())  # decimal comma
    key = re.sub(r"\b(old|of age|age|aged|approximately|approx|about|around)\b|[~≈,]|(?<!\d)\.|\.(?!\d)", " ", key)
    key = " ".join(key.split())
    postnatal = _POSTNATAL_DAY.match(key)
    if postnatal:
        return f"P{postnatal.group(1)}D"
    age_range = _AGE_RANGE.match(key)
    if age_range and age_range.group(3) in _AGE_UNITS:
        low, high, unit = age_range.groups()
        return f"{_duration({_AGE_UNITS[unit]: low})}/{_duration({_AGE_UNITS[unit]: high})}"
    parts = _AGE_PART.findall(key)
    leftover = _AGE_PART.sub("", key).replace("and", "").strip()
    if parts and not leftover and all(unit in _AGE_UNITS for _, unit in parts):
        amounts: dict[str, str] = {}
        for number, unit in parts:
            if _AGE_UNITS[unit] in amounts:
                raise ValueError(f"'{raw}' gives the {unit} twice; {_AGE_EXAMPLE}.")
            amounts[_AGE_UNITS[unit]] = number
        return _duration(amounts)
    if re.fullmatch(r"\d+(?:\.\d+)?", key):
        raise ValueError(f"'{raw}' has no unit; {_AGE_EXAMPLE}.")
    raise ValueError(f"'{raw}' is not an age NWB accepts; {_AGE_EXAMPLE}.")


def _duration(amounts: dict[str, str]) -> str:
    date_part = "".join(f"{amounts[unit]}{unit}" for unit in "YMWD" if unit in amounts)
    time_part = f"T{amounts['H']}H" if "H" in amounts else ""
    return f"P{date_part}{time_part}"


# --- dates and times -----------------------------------------------------------------------------

_NUMERIC_DATE = re.compile(r"\b(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{2,4})\b")
_DATE_EXAMPLE = "2024-03-15 14:30"
# Two different defaults: a component the text leaves out takes a different value in each parse.
_PROBE_DEFAULTS = (datetime(2001, 1, 1, 1, 1, 1), datetime(2002, 2, 2, 2, 2, 2))


def normalize_datetime(text: str, timezone: str) -> str:
    """An ISO 8601 date and time with its UTC offset, from common written forms.

    A time written without a zone is taken to be in `timezone`; a zone name at the end
    ("2024-03-15 14:30 Europe/Paris") wins. Dates in the future are refused.
    """
    raw = " ".join(text.split())
    words = raw.split(" ")
    zone = _zone(timezone)
    if len(words) > 1 and _is_zone_name(words[-1]):
        zone, raw = ZoneInfo(words[-1]), " ".join(words[:-1])
    parsed = _parse_written(raw, need_time=True)
    moment = parsed if parsed.tzinfo else parsed.replace(tzinfo=zone)
    if moment > datetime.now(tz=zone):
        raise ValueError(f"'{text.strip()}' is in the future; check the date.")
    return moment.isoformat()


def normalize_date(text: str) -> str:
    """An ISO 8601 date (YYYY-MM-DD), e.g. for a date of birth; future dates are refused."""
    parsed = _parse_written(" ".join(text.split()), need_time=False)
    if parsed.date() > date.today():
        raise ValueError(f"'{text.strip()}' is in the future; check the date.")
    return parsed.date().isoformat()


def _parse_written(raw: str, *, need_time: bool) -> datetime:
    from dateutil import parser

    numeric = _NUMERIC_DATE.search(raw)
    day_first = False
    if numeric:
        first, second = int(numeric.group(1)), int(numeric.group(2))
        if first <= 12 and second <= 12 and first != second:
            raise ValueError(
                f"'{numeric.group(0)}' could be read day-first or month-first; "
                f"write the date as year-month-day, e.g. {_DATE_EXAMPLE}."
            )
        day_first = first > 12
    try:
        readings: list[datetime] = [
            parser.parse(raw, default=default, dayfirst=day_first) for default in _PROBE_DEFAULTS
        ]
    except (ValueError, OverflowError) as error:
        raise ValueError(f"'{raw}' is not a date I can read; write it like {_DATE_EXAMPLE}.") from error
    first_reading, second_reading = readings
    missing_date = any(
        getattr(first_reading, part) != getattr(second_reading, part) for part in ("year", "month", "day")
    )
    if missing_date:
        raise ValueError(f"'{raw}' lacks a full date (day, month and year); write it like {_DATE_EXAMPLE}.")
    if need_time and (first_reading.hour, first_reading.minute) != (
        second_reading.hour,
        second_reading.minute,
    ):
        raise ValueError(f"'{raw}' has no time of day; add it, e.g. {_DATE_EXAMPLE}.")
    # A time given without seconds means zero seconds, not the probe default.
    if first_reading.second != second_reading.second:
        first_reading = first_reading.replace(second=0)
    return first_reading


def _zone(timezone: str) -> ZoneInfo:
    try:
        return ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"'{timezone}' is not a timezone name; use one like Europe/Paris.") from error


def _is_zone_name(word: str) -> bool:
    if "/" not in word and word.upper() not in ("UTC", "GMT"):
        return False
    try:
        ZoneInfo(word)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


# --- keywords and free text ----------------------------------------------------------------------


def normalize_keywords(text: str) -> list[str]:
    """Keywords split on commas, semicolons or new lines, without duplicates."""
    words = [word.strip() for word in re.split(r"[,;\n]", text) if word.strip()]
    if not words:
        raise ValueError("Give at least one keyword, e.g. V1, Neuropixels.")
    unique: dict[str, str] = {}
    for word in words:
        unique.setdefault(word.lower(), word)
    return list(unique.values())


def normalize_subject_id(text: str) -> str:
    """The id as given, with "/" (which DANDI cannot use in paths) replaced by "-"."""
    return text.strip().replace("/", "-")


def _free_text(text: str) -> str:
    return text.strip()


def normalize_institution(text: str) -> str:
    """ "the University of Lisbon" → "University of Lisbon": the article is sentence, not name."""
    return re.sub(r"^the\s+(?=\S)", "", text.strip(), flags=re.IGNORECASE)


_NORMALIZERS: dict[str, Callable[[str], Any]] = {
    "experimenter": normalize_experimenter,
    "institution": normalize_institution,
    "keywords": normalize_keywords,
    "species": normalize_species,
    "sex": normalize_sex,
    "age": normalize_age,
    "date_of_birth": normalize_date,
    "subject_id": normalize_subject_id,
}


def normalize_field(name: str, raw: str, *, timezone: str = "UTC") -> Any:
    """The value of field `name` (see `fields.py`) in NWB's form; ValueError says what to give instead."""
    if name not in FIELDS:
        raise KeyError(f"unknown metadata field {name!r}")
    if not raw or not raw.strip():
        raise ValueError(f"The {FIELDS[name].label} is empty; give it, e.g. {FIELDS[name].example}.")
    if name == "session_start_time":
        return normalize_datetime(raw, timezone)
    return _NORMALIZERS.get(name, _free_text)(raw)

"""Time zones named in words: "Tokyo time", "timezone: Europe/Paris", "2:15pm CET", "Pacific time".

The IANA database's own names are the vocabulary: every zone's city ("Asia/Tokyo" → "tokyo",
"America/New_York" → "new york"), plus the few words people use for a zone that name no city in
it (countries and regions with one zone, "Pacific", "Central European", abbreviations such as CET
or PST, and large research cities that share a zone with a city in the database). A place counts
only next to a word saying it is a time ("Oslo time", "local time in Boston", "time zone Berlin"),
so "recorded in Paris" names where, not when. An abbreviation counts beside a clock time or after
"time zone". Abbreviations that mean several zones ("IST": India, Israel or Ireland; "CST": the
US or China) are refused by name, so the user is asked rather than given the wrong offset.
"""

from __future__ import annotations

import re
import unicodedata
import zoneinfo
from dataclasses import dataclass
from functools import cache
from typing import Literal

# Places and regions people name instead of a zone in the database.
_EXTRA_PLACES: dict[str, str] = {
    # countries and regions with one zone
    "japan": "Asia/Tokyo",
    "korea": "Asia/Seoul",
    "south korea": "Asia/Seoul",
    "china": "Asia/Shanghai",
    "india": "Asia/Kolkata",
    "indian": "Asia/Kolkata",
    "israel": "Asia/Jerusalem",
    "singapore": "Asia/Singapore",
    "taiwan": "Asia/Taipei",
    "uk": "Europe/London",
    "british": "Europe/London",
    "england": "Europe/London",
    "scotland": "Europe/London",
    "ireland": "Europe/Dublin",
    "irish": "Europe/Dublin",
    "france": "Europe/Paris",
    "french": "Europe/Paris",
    "germany": "Europe/Berlin",
    "german": "Europe/Berlin",
    "switzerland": "Europe/Zurich",
    "swiss": "Europe/Zurich",
    "netherlands": "Europe/Amsterdam",
    "dutch": "Europe/Amsterdam",
    "belgium": "Europe/Brussels",
    "italy": "Europe/Rome",
    "italian": "Europe/Rome",
    "spain": "Europe/Madrid",
    "spanish": "Europe/Madrid",
    "portugal": "Europe/Lisbon",
    "austria": "Europe/Vienna",
    "sweden": "Europe/Stockholm",
    "norway": "Europe/Oslo",
    "denmark": "Europe/Copenhagen",
    "finland": "Europe/Helsinki",
    "poland": "Europe/Warsaw",
    "czech": "Europe/Prague",
    "hungary": "Europe/Budapest",
    "greece": "Europe/Athens",
    "turkey": "Europe/Istanbul",
    "new zealand": "Pacific/Auckland",
    "central european": "Europe/Berlin",
    "central europe": "Europe/Berlin",
    "western european": "Europe/Lisbon",
    "eastern european": "Europe/Helsinki",
    "pacific": "America/Los_Angeles",
    "us pacific": "America/Los_Angeles",
    "west coast": "America/Los_Angeles",
    "eastern": "America/New_York",
    "us eastern": "America/New_York",
    "east coast": "America/New_York",
    "central": "America/Chicago",
    "us central": "America/Chicago",
    "mountain": "America/Denver",
    "us mountain": "America/Denver",
    "nz": "Pacific/Auckland",
    "gulf standard": "Asia/Dubai",
    "gulf": "Asia/Dubai",
    "arizona": "America/Phoenix",
    "horário de brasília": "America/Sao_Paulo",
    "istanbul": "Europe/Istanbul",
    # research cities that share a zone with a city in the database
    "boston": "America/New_York",
    "philadelphia": "America/New_York",
    "baltimore": "America/New_York",
    "pittsburgh": "America/New_York",
    "washington": "America/New_York",
    "atlanta": "America/New_York",
    "miami": "America/New_York",
    "durham": "America/New_York",
    "ann arbor": "America/Detroit",
    "houston": "America/Chicago",
    "dallas": "America/Chicago",
    "austin": "America/Chicago",
    "st louis": "America/Chicago",
    "san francisco": "America/Los_Angeles",
    "san diego": "America/Los_Angeles",
    "seattle": "America/Los_Angeles",
    "portland": "America/Los_Angeles",
    "salt lake city": "America/Denver",
    "montreal": "America/Toronto",
    "ottawa": "America/Toronto",
    "oxford": "Europe/London",
    "edinburgh": "Europe/London",
    "bristol": "Europe/London",
    "manchester": "Europe/London",
    "munich": "Europe/Berlin",
    "münchen": "Europe/Berlin",
    "frankfurt": "Europe/Berlin",
    "heidelberg": "Europe/Berlin",
    "hamburg": "Europe/Berlin",
    "bonn": "Europe/Berlin",
    "tübingen": "Europe/Berlin",
    "tuebingen": "Europe/Berlin",
    "göttingen": "Europe/Berlin",
    "goettingen": "Europe/Berlin",
    "freiburg": "Europe/Berlin",
    "leipzig": "Europe/Berlin",
    "geneva": "Europe/Zurich",
    "lausanne": "Europe/Zurich",
    "basel": "Europe/Zurich",
    "bern": "Europe/Zurich",
    "zürich": "Europe/Zurich",
    # the same cities in the users' languages, and the German "…er Zeit"
    "wien": "Europe/Vienna",
    "wiener": "Europe/Vienna",
    "zürcher": "Europe/Zurich",
    "münchner": "Europe/Berlin",
    "kölner": "Europe/Berlin",
    "berliner": "Europe/Berlin",
    "hamburger": "Europe/Berlin",
    "ciudad de méxico": "America/Mexico_City",
    "ciudad de mexico": "America/Mexico_City",
    "cdmx": "America/Mexico_City",
    "lyon": "Europe/Paris",
    "marseille": "Europe/Paris",
    "bordeaux": "Europe/Paris",
    "milan": "Europe/Rome",
    "turin": "Europe/Rome",
    "trieste": "Europe/Rome",
    "barcelona": "Europe/Madrid",
    "leiden": "Europe/Amsterdam",
    "utrecht": "Europe/Amsterdam",
    "nijmegen": "Europe/Amsterdam",
    "leuven": "Europe/Brussels",
    "ghent": "Europe/Brussels",
    "aarhus": "Europe/Copenhagen",
    "tel aviv": "Asia/Jerusalem",
    "rehovot": "Asia/Jerusalem",
    "haifa": "Asia/Jerusalem",
    "beijing": "Asia/Shanghai",
    "kyoto": "Asia/Tokyo",
    "osaka": "Asia/Tokyo",
    "okinawa": "Asia/Tokyo",
    "bangalore": "Asia/Kolkata",
    "bengaluru": "Asia/Kolkata",
    "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata",
    "new delhi": "Asia/Kolkata",
    "hyderabad": "Asia/Kolkata",
    "chennai": "Asia/Kolkata",
    "pune": "Asia/Kolkata",
    "canberra": "Australia/Sydney",
    "brasília": "America/Sao_Paulo",
    "brasilia": "America/Sao_Paulo",
    "rio": "America/Sao_Paulo",
    "hawaii": "Pacific/Honolulu",
    "mexico city": "America/Mexico_City",
    "méxico": "America/Mexico_City",
    "centro de méxico": "America/Mexico_City",
    # the cities as their own languages write them
    "bruxelles": "Europe/Brussels",
    "brussel": "Europe/Brussels",
    "roma": "Europe/Rome",
    "milano": "Europe/Rome",
    "torino": "Europe/Rome",
    "napoli": "Europe/Rome",
    "firenze": "Europe/Rome",
    "köln": "Europe/Berlin",
    "praha": "Europe/Prague",
    "warszawa": "Europe/Warsaw",
    "lisboa": "Europe/Lisbon",
    "genève": "Europe/Zurich",
    "sevilla": "Europe/Madrid",
    "londres": "Europe/London",
    "tokio": "Asia/Tokyo",
    "moskva": "Europe/Moscow",
    "москва": "Europe/Moscow",
    "kraków": "Europe/Warsaw",
    "ankara": "Europe/Istanbul",
    "izmir": "Europe/Istanbul",
    "türkiye": "Europe/Istanbul",
    "krakow": "Europe/Warsaw",
}
# A zone named in Japanese, Chinese or Korean ("（日本時間）", "北京时间", "한국시간").
_EAST_ASIAN_ZONES: dict[str, str] = {
    **dict.fromkeys(["日本時間", "日本时间", "東京時間"], "Asia/Tokyo"),
    **dict.fromkeys(["北京时间", "北京時間", "中国时间", "中國時間"], "Asia/Shanghai"),
    **dict.fromkeys(["한국시간", "한국 시간", "서울시간"], "Asia/Seoul"),
    **dict.fromkeys(["台北時間", "台湾时间", "台灣時間"], "Asia/Taipei"),
    **dict.fromkeys(["香港時間", "香港时间"], "Asia/Hong_Kong"),
}

# Abbreviations that name one zone (standard and daylight forms alike: the zone's own offset on the
# date is used, so "CET" in July is +02:00, as the clocks there showed).
_ABBREVIATIONS: dict[str, str] = {
    "cet": "Europe/Berlin",
    "cest": "Europe/Berlin",
    "mez": "Europe/Berlin",
    "mesz": "Europe/Berlin",
    "wet": "Europe/Lisbon",
    "west": "Europe/Lisbon",
    "eet": "Europe/Helsinki",
    "eest": "Europe/Helsinki",
    "bst": "Europe/London",
    "est": "America/New_York",
    "edt": "America/New_York",
    "et": "America/New_York",
    "cdt": "America/Chicago",
    "mst": "America/Denver",
    "mdt": "America/Denver",
    "pst": "America/Los_Angeles",
    "pdt": "America/Los_Angeles",
    "pt": "America/Los_Angeles",
    "jst": "Asia/Tokyo",
    "eat": "Africa/Nairobi",
    "gst": "Asia/Dubai",
    "wat": "Africa/Lagos",
    "cat": "Africa/Maputo",
    "sast": "Africa/Johannesburg",
    "kst": "Asia/Seoul",
    "hkt": "Asia/Hong_Kong",
    "sgt": "Asia/Singapore",
    "aest": "Australia/Sydney",
    "aedt": "Australia/Sydney",
    "nzst": "Pacific/Auckland",
    "nzdt": "Pacific/Auckland",
}
# Abbreviations in common use for more than one zone.
AMBIGUOUS_ABBREVIATIONS: dict[str, str] = {
    "ist": "India (Asia/Kolkata), Israel (Asia/Jerusalem) or Ireland (Europe/Dublin)",
    "cst": "US Central (America/Chicago) or China (Asia/Shanghai)",
    "ast": "Atlantic (America/Halifax) or Arabia (Asia/Riyadh)",
}

_TIME_WORD = r"(?:(?:local|standard|summer|daylight(?: saving)?)\s{1,3})?time"
_CLOCK = r"\d{1,2}(?:[:.h]\d{2})?(?::\d{2})?\s*(?:[ap]\.?m\.?|h|hrs)?"


@dataclass(frozen=True)
class ZoneMention:
    start: int
    end: int
    zone: str | None  # an IANA name; None for an abbreviation that names several zones
    said: str  # the words that named it, as written


@cache
def _iana_names() -> dict[str, str]:
    return {name.lower(): name for name in zoneinfo.available_timezones() if "/" in name}


@cache
def _places() -> dict[str, str]:
    """Every place word → its zone: the database's cities, then the extra places above."""
    places: dict[str, str] = {}
    for name in sorted(zoneinfo.available_timezones()):
        area, _, city = name.rpartition("/")
        if not area or area.startswith("Etc") or name.startswith(("SystemV", "US/", "posix", "right")):
            continue
        key = city.replace("_", " ").lower()
        # The canonical continents win over aliases ("Europe/Zurich" over "Europe/Busingen"-like duplicates).
        if key not in places or area in ("Europe", "America", "Asia", "Africa", "Australia", "Pacific"):
            places.setdefault(key, name)
    places.update(_EXTRA_PLACES)
    return {_without_accents(key): zone for key, zone in places.items()}  # the text is matched without them


@cache
def _patterns() -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """Each pattern with the words one of which it needs in the message (none: it is cheap, or it
    needs a digit); a message without them is not scanned for the hundreds of place names."""
    places = "|".join(re.escape(p) for p in sorted(_places(), key=len, reverse=True))
    abbreviations = "|".join(sorted({*_ABBREVIATIONS, *AMBIGUOUS_ABBREVIATIONS}, key=len, reverse=True))
    iana = r"[A-Za-z]+(?:/[A-Za-z_+\-]+){1,2}"
    label = r"(?:time ?zone|tz|zone)(?:\s{1,3}is\s{1,3}|\s{0,3}[:=]\s{0,3}|\s{1,3}of\s{1,3}|\s{1,3})"
    return (
        # "timezone: Europe/Paris", "time zone Berlin", "tz = PST"
        (
            re.compile(rf"(?<![\w/]){label}(?P<name>{iana}|{places}|{abbreviations})(?![\w/])", re.IGNORECASE),
            ("zone", "tz"),
        ),
        # "Europe/Paris" anywhere
        (re.compile(rf"(?<![\w/])(?P<name>{iana})(?![\w/])"), ("/",)),
        # "Tokyo time", "Oslo local time", "Central European Summer Time"
        (re.compile(rf"(?<![\w/])(?P<name>{places})\s{{1,3}}{_TIME_WORD}(?![\w])", re.IGNORECASE), ("time",)),
        # "hora de Buenos Aires", "heure de Paris", "horário de São Paulo", "ora di Roma", "Berliner Zeit"
        (
            re.compile(
                rf"(?<![\w/])(?:hora|horario|heure|ora|fuso\s+orario\s+di)\s{{1,3}}(?:de|di|d')\s?(?:la\s{{1,3}}|l')?"
                rf"(?P<name>{places})(?![\w/])",
                re.IGNORECASE,
            ),
            ("hora", "heure", "ora", "fuso"),
        ),
        # "Berliner Zeit", "İstanbul saati"
        (
            re.compile(
                rf"(?<![\w/])(?P<name>{places})\s{{1,3}}(?:Zeit|Ortszeit|saati|saatiyle|saatine)(?![\w])", re.IGNORECASE
            ),
            ("zeit", "saat"),
        ),
        # "hora del centro de México"
        (
            re.compile(r"(?<![\w/])hora\s(?:del\s)?(?P<name>centro\sde\smexico|centro)(?![\w/])", re.IGNORECASE),
            ("hora",),
        ),
        # "（日本時間）", "北京时间", "한국시간"
        (re.compile(rf"(?P<name>{'|'.join(_EAST_ASIAN_ZONES)})"), ()),
        # "at 16:45 on 18 Oct 2024 (Tokyo)": a place in parentheses right after a date or a clock
        (re.compile(rf"(?<=\d)(?P<lead>\s?\(\s?)(?P<name>{places})\s?\)", re.IGNORECASE), ("(",)),
        # "local time in Boston", "Boston local time" is above
        (
            re.compile(
                rf"(?<![\w/])local\s{{1,3}}time\s{{1,3}}(?:in|at)\s{{1,3}}(?P<name>{places})(?![\w/])", re.IGNORECASE
            ),
            ("local",),
        ),
        # "14:00 Uhr, Berlin", "7:45 pm, São Paulo", "at 13:10, we're in Sydney", "at 10 o'clock, Kathmandu",
        # "10:00 in the morning, we're in Auckland": a place right after a clock
        (
            re.compile(
                rf"(?<=\d)(?P<lead>\s?(?:[ap]\.?m\.?|uhr|h|o'?\s?clock)?(?:\s(?:in\s)?the\s(?:morning|afternoon|evening))?"
                rf"\s?,?\s?(?:we'?re\s|we\sare\s)?(?:in\s)?)(?P<name>{places})(?![\w/])",
                re.IGNORECASE,
            ),
            (),
        ),
        # "14:20 CET", "2pm PST", "(JST)"
        (
            re.compile(
                rf"(?<=[\d時分])(?P<lead> ?(?:[ap]\.?m\.?|uhr|h)? ?\(? ?)(?P<name>{abbreviations})(?![\w/])\)?",
                re.IGNORECASE,
            ),
            (),
        ),
    )


def zone_mentions(text: str) -> list[ZoneMention]:
    """The zones `text` names, in order, without overlaps."""
    found: list[ZoneMention] = []
    plain = _without_accents(text)  # "São Paulo time" as "Sao Paulo time", every character in its place
    lowered = plain.lower()
    for pattern, needs in _patterns():
        if needs and not any(word in lowered for word in needs):
            continue  # the pattern's own word is not in the message: scanning for the places is no use
        for m in pattern.finditer(plain):
            start = m.start()
            if "lead" in pattern.groupindex:  # "2pm PST", "9am (JST)": the clock stays the date's
                start = m.start("name") - (1 if text[m.start("name") - 1 : m.start("name")] == "(" else 0)
            if any(start < other.end and other.start < m.end() for other in found):
                continue
            zone = _zone_for(m.group("name"))
            if zone is False:
                continue
            end = m.end()
            opened = re.search(r"\(\s?$", text[max(0, start - 2) : start])
            closed = re.match(r"\s?\)", text[end : end + 2])
            if opened and closed:  # "08:05 (America/New_York)": the parentheses go with it
                start, end = start - len(opened.group()), end + len(closed.group())
            if zone is None and (said := _COUNTRY_AFTER_RE.match(plain, end)):
                resolved = _SETTLED_BY_COUNTRY.get((m.group("name").lower(), said["country"].lower()))
                if resolved:  # "09:00 IST (India)": the country says which of the zones
                    zone, end = resolved, said.end()
            if zone is None:  # "… Bangalore. I recorded … starting 10:30 IST": the one place named says which
                zone = _settled_by_place(m.group("name"), lowered)
            found.append(ZoneMention(start, end, zone or None, m.group("name")))
    return sorted(found, key=lambda mention: mention.start)


# A country named right after an abbreviation that means several zones settles which one.
_COUNTRY_AFTER_RE = re.compile(r"\s?[(,]?\s?(?P<country>[A-Za-z]+)\)?", re.IGNORECASE)
_SETTLED_BY_COUNTRY: dict[tuple[str, str], str] = {
    **{("ist", word): "Asia/Kolkata" for word in ("india", "indian")},
    **{("ist", word): "Asia/Jerusalem" for word in ("israel", "israeli")},
    **{("ist", word): "Europe/Dublin" for word in ("ireland", "irish", "dublin")},
    **{("cst", word): "Asia/Shanghai" for word in ("china", "chinese", "beijing", "shanghai")},
    **{("cst", word): "America/Chicago" for word in ("us", "usa", "chicago")},
    **{("ast", word): "Asia/Riyadh" for word in ("arabia", "saudi", "riyadh")},
    **{("ast", word): "America/Halifax" for word in ("atlantic", "halifax", "canada")},
}


def _settled_by_place(abbreviation: str, lowered: str) -> str | None:
    """The one zone of those an abbreviation may mean whose places the message names ("IST" beside
    "Bangalore" is India's); None when it names none of them, or places of two."""
    key = abbreviation.lower()
    candidates = {zone for (name, _), zone in _SETTLED_BY_COUNTRY.items() if name == key}
    named = {zone for zone in candidates if _places_of(zone).search(lowered)}
    return named.pop() if len(named) == 1 else None


@cache
def _places_of(zone: str) -> re.Pattern[str]:
    """The place words of one zone, as a pattern for a lowercased, accent-free message."""
    words = sorted((place for place, its in _places().items() if its == zone), key=len, reverse=True)
    return re.compile(rf"(?<![\w/])(?:{'|'.join(re.escape(word) for word in words)})(?![\w/])")


def _without_accents(text: str) -> str:
    """Latin letters without their accents ("São" → "Sao"), every other character as it is (a Hangul
    syllable decomposes into letters of its own)."""
    if text.isascii():
        return text
    return "".join(unicodedata.normalize("NFD", ch)[0] if ch < "\u0250" else ch for ch in text)


def _zone_for(name: str) -> str | Literal[False] | None:
    """The IANA zone `name` means; None when it means several; False when it is no zone."""
    key = " ".join(name.lower().split())
    if "/" in key:
        return _iana_names().get(key, False)
    if key in AMBIGUOUS_ABBREVIATIONS:
        return None
    if key in _ABBREVIATIONS:
        return _ABBREVIATIONS[key]
    if name in _EAST_ASIAN_ZONES:
        return _EAST_ASIAN_ZONES[name]
    if key == "centro":
        return "America/Mexico_City"  # "hora del centro": Mexico's central time
    return _places().get(_without_accents(key), False)


def is_place(name: str) -> bool:
    """Whether `name` is a city, country or region the zone table knows ("Berlin", "Los Angeles")."""
    return _without_accents(" ".join(name.lower().split())) in _places()

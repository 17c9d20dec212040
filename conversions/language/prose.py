"""Start times, ages and sexes stated in running text, for the fields the chunk reader left empty.

The chunk reader reads a value when a segment is that value ("male", "2024-03-15 14:30", "P60"). In
prose the same facts come inside sentences: "Recording date: 10 Feb 2024, start 13:05", "the
session was on 28 October 2023 starting 09:00", "Recorded Jan 9 2024, started 11:40 AM", "Rat R-5,
male, P21", "she was 12 weeks old at recording", "sex we did not check". Each function here finds
the one value a message states of its kind, and None when it states none or several that differ
(the field then stays a question rather than a guess).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from conversions.language import east_asian
from conversions.nwb.normalizers import FOREIGN_MONTH, OTHER_LANGUAGE_AGE_UNITS, OTHER_LANGUAGE_SEX

_I = re.IGNORECASE
MONTH = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\.?"
)
ORDINAL = r"\d{1,2}(?:st|nd|rd|th)?"
_DATE_RE = re.compile(
    rf"(?<![\w/.-])(?:\d{{4}}[-/]\d{{1,2}}[-/]\d{{1,2}}(?![\d/-])"
    rf"|\d{{1,2}}[./]\d{{1,2}}[./]\d{{4}}(?![\d./])|\d{{1,2}}-\d{{1,2}}-\d{{4}}(?![\d-])|\d{{4}}\.\d{{1,2}}\.\d{{1,2}}(?![\d.])"
    rf"|(?:the\s)?{ORDINAL}(?:\sof)?\s{MONTH},?\s\d{{4}}"
    rf"|{MONTH}\s{ORDINAL},?\s\d{{4}}"
    rf"|\d{{1,2}}\.?\s(?:de\s)?{FOREIGN_MONTH}\s(?:de\s|del\s)?\d{{4}})(?![\w])",  # "3 de abril de 2024", "7. Mai 2024"
    _I,
)
# A clock time: minutes, or am/pm ("9:15", "9.30", "14h20", "2.30pm", "10 am", "11:40 AM").
_TIME_RE = re.compile(
    r"(?<![\w.:/+-])(?P<hour>\d{1,2})(?:[:.h](?P<minute>\d{2}))?(?::\d{2})?\s?(?P<half>[ap]\.?\s?m\.?)?(?![\w:/])",
    _I,
)
_BIRTH_RE = re.compile(r"\b(?:born|birth|dob|b\.)\b", _I)
# Words that say the date is the session's: without one, a date is still taken, as a guess.
_SESSION_CUE_RE = re.compile(r"record|session|start|began|begin|experiment|done|performed|acquired|ran\b", _I)


def mentions_a_date(text: str) -> bool:
    """Whether `text` holds a calendar date or a clock time ("3 May 2024", "at 9.30")."""
    if _DATE_RE.search(text):
        return True
    return any(m.group("minute") or m.group("half") for m in _TIME_RE.finditer(text))


@dataclass(frozen=True)
class Stated:
    value: str  # raw, in a form the normalizer reads
    cued: bool  # a word in the sentence says what it is (not only its shape)


def _in_numbers(sentence: str) -> str:
    """Dates and times written in words or in CJK characters, as numbers the readers know: "noon" → "12:00",
    "9 o'clock" → "9:00", "half past two in the afternoon" → "2:30 pm", "2024年2月8日 午前10時" → "2024-02-08 10:00 am",
    "15h" → "15:00"."""
    # (a space before: "开始时间是2024年5月20日" has a word character right before the date)
    sentence = _CJK_DATE_RE.sub(
        lambda m: (
            f"{' ' if m.start() and m.string[m.start() - 1].isalnum() else ''}{m[1]}-{int(m[2]):02d}-{int(m[3]):02d} "
        ),
        sentence,
    )
    sentence = _CJK_TIME_RE.sub(_cjk_clock, sentence)
    sentence = _NOON_RE.sub(lambda m: "12:00" if m[0].lower() == "noon" else "00:00", sentence)
    sentence = _OCLOCK_RE.sub(lambda m: f"{m[1]}:00", sentence)
    sentence = _HALF_PAST_RE.sub(_half_past, sentence)
    return _BARE_HOUR_RE.sub(lambda m: f"{m[1]}:00", sentence)


_CJK_DATE_RE = re.compile(r"(\d{4})\s?[年년]\s?(\d{1,2})\s?[月월]\s?(\d{1,2})\s?[日일]")
# "午後3時半", "上午9点", "오후 2시 30분": the half of the day, the hour, its minutes (半 is half past).
_CJK_TIME_RE = re.compile(
    r"(午前|午後|上午|下午|오전|오후)?\s?(\d{1,2})\s?[時时点點시](?:\s?(\d{1,2})\s?[分분]|\s?(半))?"
)
_NOON_RE = re.compile(r"(?<![\w-])(?:noon|midnight)(?![\w-])", _I)
_OCLOCK_RE = re.compile(r"(?<![\w:.])(\d{1,2})\s?o'?\s?clock\b", _I)
_HOURS = {
    w: n
    for n, w in enumerate(
        ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve"], start=1
    )
}
# "half past two", "quarter to ten", "ten past three", "twenty to four", "25 past 9", and the British and
# Irish "half nine" (half past nine); maybe with the part of the day after it.
_HALF_PAST_RE = re.compile(
    r"\b(half|quarter|five|ten|twenty|twenty[\s-]five|\d{1,2})(?:\s+minutes)?\s+(past|to|after|)\s*"
    r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)(?!\s*(?:minutes|hours|days|weeks|[:.]\d))"
    r"(?:\s+(?:o'?clock\s+)?in\s+the\s+(morning|afternoon|evening))?(?=\W|$)",
    _I,
)
_MINUTES = {"half": 30, "quarter": 15, "five": 5, "ten": 10, "twenty": 20, "twenty five": 25, "twenty-five": 25}
# "às 15h", "um 14 Uhr": an hour alone with its sign.
_BARE_HOUR_RE = re.compile(
    r"(?<![\w:.])((?:à|às|as|um|at|a\s+las|alle|ore|ab|from)\s+\d{1,2})\s?(?:h|uhr)(?![\w:.])", _I
)


def _cjk_clock(m: re.Match[str]) -> str:
    minute = "30" if m[4] else f"{int(m[3]):02d}" if m[3] else "00"
    half = " am" if m[1] in ("午前", "上午", "오전") else " pm" if m[1] else ""
    return f"{m[2]}:{minute}{half}"


def _half_past(m: re.Match[str]) -> str:
    said = " ".join(m[1].lower().replace("-", " ").split())
    if not m[2] and said != "half":
        return m[0]  # only "half nine" leaves out the "past"
    hour = int(m[3]) if m[3].isdigit() else _HOURS[m[3].lower()]
    minute = int(said) if said.isdigit() else _MINUTES[said]
    if hour > 12 or minute > 59:
        return m[0]
    if m[2].lower() == "to":
        hour, minute = (hour - 1) or 12, 60 - minute
    half = {"morning": " am", "afternoon": " pm", "evening": " pm"}.get((m[4] or "").lower(), "")
    return f"{hour}:{minute:02d}{half}"


def start_time(text: str, sentences: list[tuple[int, int]]) -> Stated | None:
    """The one date with its time of day the message states for the session."""
    found: list[Stated] = []
    for start, end in sentences:
        sentence = _in_numbers(text[start:end])
        for date in _DATE_RE.finditer(sentence):
            if _BIRTH_RE.search(sentence, max(0, date.start() - 25), date.start()):
                continue
            clock = _clock_near(sentence, date.start(), date.end())
            if clock is None:
                continue
            raw = f"{date.group().removeprefix('the ').strip()} {clock}"
            found.append(Stated(raw, bool(_SESSION_CUE_RE.search(sentence))))
    values = {stated.value for stated in found}
    return found[0] if len(values) == 1 else None


def _clock_near(sentence: str, date_start: int, date_end: int) -> str | None:
    """The time of day next to a date (after it, or before it), as "HH:MM" or "H:MM pm"."""
    for window in (sentence[date_end : date_end + 40], sentence[max(0, date_start - 30) : date_start]):
        for m in _TIME_RE.finditer(window):
            if m.group("minute") is None and m.group("half") is None:
                continue
            hour, minute = int(m.group("hour")), int(m.group("minute") or 0)
            half = (m.group("half") or "").replace(".", "").replace(" ", "").lower()
            if hour > 23 or minute > 59:
                continue
            if half and not 1 <= hour <= 12:
                half = ""  # "um 14:00 am 3.5.2024": German "am", not the morning
            return f"{hour}:{minute:02d}{' ' + half if half else ''}"
    return None


_NUMBER = (
    r"(?:\d+(?:[.,]\d+)?|a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen"
    r"|fifteen|sixteen|seventeen|eighteen|nineteen|(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)"
    r"(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?)"
)
_UNIT = (
    r"(?:days?|weeks?|wks?|wk|months?|mos?|mo|years?|yrs?|yr|y/o|y\.o\.?|yo|y|dph|days?\spost[\s-]?hatch(?:ing)?"
    r"|dpf|hpf|days?\spost[\s-]fertili[sz]ation|歳|才|岁"
    r"|jahre?|monate?|wochen?|tage?|weken|maanden|jaar|dagen|años?|anos?|ans|anni|meses|mois|mesi|semanas?|semaines?|settimane|días|dias|jours"
    rf"|giorni|shuukan|sai|{'|'.join(OTHER_LANGUAGE_AGE_UNITS)})"
)
_AGE_RE = re.compile(
    rf"(?<![\w-])(?:(?:between|from)\s)?{_NUMBER}(?:\s?(?:-|–|to|and)\s?{_NUMBER})?\s?-?\s?{_UNIT}"
    rf"(?:\s?(?:and\s)?{_NUMBER}\s?{_UNIT})?(?:\s?-?\s?old)?(?![\w/])"
    rf"|(?<![\w-])P\d{{1,3}}(?:\s?[-–]\s?P\d{{1,3}})?(?![\w-])"  # and "P28-P35"
    rf"|{east_asian.AGE}",
    _I,
)
# A duration that is not an age: "recorded for 9 days", "over weeks", "every 2 days".
_NOT_AGE_BEFORE_RE = re.compile(r"(?:for|over|during|within|after|every|per|each|in|lasting|since|DIV)\s*$", _I)
_AGE_CUE_RE = re.compile(r"\bold\b|\bage\b|\baged\b|\bP\d", _I)


def one_age(candidates: list[Stated]) -> Stated | None:
    """The one age among those `ages` found ("12 weeks old", "P21", "6 years 3 months", "27 y/o"), or
    None when there are none or several that differ."""
    return candidates[0] if len({s.value.lower() for s in candidates}) == 1 else None


def ages(text: str, sentences: list[tuple[int, int]]) -> list[Stated]:
    """Every age the message states, those said to be ages ("old", "P21") if there are any."""
    found: list[Stated] = []
    for start, end in sentences:
        sentence = text[start:end]
        for m in _AGE_RE.finditer(sentence):
            if _NOT_AGE_BEFORE_RE.search(sentence, max(0, m.start() - 12), m.start()):
                continue
            value = m.group().strip()
            if value.lower().startswith(("a ", "an ")) and not _AGE_CUE_RE.search(value):
                continue  # "a day", "a year" without "old" is a duration in passing
            found.append(Stated(value, bool(_AGE_CUE_RE.search(value))))
    cued = [stated for stated in found if stated.cued]
    return cued or found


_SEX_WORDS = {
    "male": "male",
    "female": "female",
    "man": "male",
    "woman": "female",
    "boy": "male",
    "girl": "female",
    "♂": "male",
    "♀": "female",
    "hermaphrodite": "hermaphrodite",
    "männlich": "male",
    "weiblich": "female",
    "macho": "male",
    "hembra": "female",
    "mâle": "male",
    "femelle": "female",
    "maschio": "male",
    "femmina": "female",
    "homme": "male",
    "femme": "female",
    "masculino": "male",
    "masculina": "male",
    "femenino": "female",
    "femenina": "female",
    "feminino": "female",
    "fêmea": "female",
    "femea": "female",
    "mesu": "female",
    "osu": "male",
    "josei": "female",
    "dansei": "male",
    "vrouwelijk": "female",
    "mannelijk": "male",
    "varón": "male",
    "varon": "male",
    "feminina": "female",
    "hombre": "male",
    "mujer": "female",
    "homem": "male",
    "mulher": "female",
    **dict.fromkeys(["男性", "オス", "雄", "雄性", "수컷", "남성"], "male"),
    **dict.fromkeys(["女性", "メス", "雌", "雌性", "암컷", "여성"], "female"),
    "wether": "male",
    "ewe": "female",
    "hen": "female",
    "sow": "female",
    "mare": "female",
    "cow": "female",
    "heifer": "female",
    "ram": "male",
    "boar": "male",
    "rooster": "male",
    "bull": "male",
    "stallion": "male",
    **{word: "male" if sex == "M" else "female" for word, sex in OTHER_LANGUAGE_SEX.items()},
}
# The singular only: "2 males" or "females" describe a group, not this subject.
_SEX_RE = re.compile(
    r"(?<![\w-])(?:male|female|man|woman|boy|girl|hermaphrodite|männlich|weiblich|macho|hembra|mâle|femelle|maschio"
    r"|femmina|ewe|hen|sow|mare|heifer|boar|rooster|stallion|ram|homme|femme|masculin[oa]|femenin[oa]|feminin[oa]|hombre"
    r"|mujer|homem|mulher|wether|f[êe]mea|mesu|josei|dansei|vrouwelijk|mannelijk|var[óo]n"
    rf"|{'|'.join(OTHER_LANGUAGE_SEX)})(?![\w-])|[♂♀]"
    rf"|{east_asian.SEX}",
    _I,
)
# "sex unknown", "sex not determined", "we never sexed them", "can't tell the sex", "did not check the sex".
_UNKNOWN_SEX_RE = re.compile(
    r"\bsex\s*[:=]?\s*(?:is\s+|was\s+|should\s+be\s+)?(?:unknown|not\s+(?:determined|known|checked|recorded)|undetermined"
    r"|can'?t\s+be\s+told|we\s+did\s*n[o']t\s+check)"
    r"|\bsex\s+(?:was\s*n[o']t|wasn'?t|is\s*n[o']t|isn'?t|can'?t\s+be|cannot\s+be|could\s*n[o']t\s+be)\s+"
    r"(?:recorded|determined|known|checked|noted|told)"
    r"|\b(?:never|not|n't|did\s*n[o']t)\s+(?:noted?|checked?|recorded?|determined?)\s+the\s+sex\b"
    r"|\bso\s+(?:it'?s\s+)?unknown\b"
    r"|\b(?:never|not|n't)\s+sexed\b|\bcan'?t\s+tell\s+the\s+sex\b|\bunsexed\b"
    r"|\bdid\s*n[o']t\s+check\s+the\s+sex\b|\bsex\s+we\s+did\s*n[o']t\s+check\b"
    r"|\b(?:did\s*n[o']t|didn'?t|do\s*n[o']t|don'?t|cannot|can'?t)\s+sex\b"
    r"|\bsex\s+(?:is\s+|was\s+)?(?:not\s+determinable|undeterminable|indeterminate|n/?a)\b"
    # "we don't know the sex", "sex not disclosed", "we actually don't know, please set unknown"
    r"|\b(?:do\s*n[o']t|don'?t|did\s*n[o']t|didn'?t|does\s*n[o']t|doesn'?t)\s+know\s+(?:the\s+|its\s+|their\s+)?sex\b"
    r"|\bsex\s+(?:is\s+|was\s+)?(?:not\s+disclosed|undisclosed|not\s+reported|withheld)\b"
    r"|\bsex\b[^.]{0,40}\b(?:set|put|mark)\s+(?:it\s+(?:as|to)\s+)?unknown\b",
    _I,
)
# Words after which a sex word is about someone else: "a female PI", "both males and females".
_BOTH_RE = re.compile(r"\bboth\s+sexes\b|\bmales?\s+and\s+females?\b|\bfemales?\s+and\s+males?\b", _I)


# "mouse ZM9 F 10wk", "pt SEEG14 F 33yo", "M 58 y": a capital M or F before the age in a terse list.
_SEX_LETTER_RE = re.compile(
    r"(?<![\w.-])(?P<letter>[MF])(?=,?\s~?\d{1,3}(?:\s?[-–]\s?\d{1,3})?\s?(?:y|yo|yrs?|w|wk|wks|weeks?|m|mo|d|days?)\b)"
)


# "not" in the users' languages, before the value a sentence rules out.
NEGATION = r"(?:not|no|non|não|nao|nicht|pas|niet|nie|ne)"
_NOT_BEFORE_RE = re.compile(rf"(?<![\w'])(?:{NEGATION}|rather\s+than|instead\s+of)\s+(?:an?\s+)?$", _I)


def sex(text: str) -> Stated | None:
    """The one sex the message states for the subject, or "unknown" when it says it is not known."""
    if _BOTH_RE.search(text):
        return None
    if _UNKNOWN_SEX_RE.search(text):
        return Stated("unknown", True)
    words = {
        _SEX_WORDS[m.group().lower()]
        for m in _SEX_RE.finditer(text)
        if not _NOT_BEFORE_RE.search(text, max(0, m.start() - 16), m.start())  # "a hermaphrodite, not male"
    }
    words |= {"male" if m.group("letter") == "M" else "female" for m in _SEX_LETTER_RE.finditer(text)}
    if _HUMAN_RE.search(text):  # "pt UI-317, 29F", "pt 044 M 58"
        words |= {
            "male" if (m.group("sex") or m.group("sex2")) == "M" else "female" for m in _AGE_SEX_RE.finditer(text)
        }
    if len(words) != 1:
        return None
    return Stated(words.pop(), True)


# "the Bianchi lab", "from the Rinberg lab": a lab named in a sentence ("Laboratory" with a capital is
# most often an institution's name: "MRC Laboratory of Molecular Biology").
_LAB_RE = re.compile(r"(?<![\w-])(?:[Tt]he\s)?(?P<lab>[A-Z][\w'’-]+(?:[\s-][A-Z][\w'’-]+)?\s(?:lab|group))(?![\w-])")


def lab(text: str) -> Stated | None:
    """The one lab a message names in passing ("I work in the Bianchi lab")."""
    labs = {m.group("lab") for m in _LAB_RE.finditer(text)}
    return Stated(labs.pop(), True) if len(labs) == 1 else None


# "Cell c3 of slice S2", "Slice 4 from mouse …", "the cell was c5": a patch-clamp cell or slice id holds
# a digit ("cells 1-3" and "cell types" are no ids).
_ID_AFTER = (
    r"(?:\s(?:id|ID|number|no\.?|nr\.?|#))?(?:\s(?:is|was)\s|\s?[:=#]\s?|\s)"
    r"(?P<id>[A-Za-z]{0,4}-?\d+[A-Za-z]?)(?![\w-])"
)
_CELL_RE = re.compile(rf"(?<![\w-])(?i:cell|neuron){_ID_AFTER}")
_SLICE_RE = re.compile(rf"(?<![\w-])(?i:slice){_ID_AFTER}")


def cell_id(text: str) -> Stated | None:
    return _one_id(_CELL_RE, text)


def slice_id(text: str) -> Stated | None:
    return _one_id(_SLICE_RE, text)


def _one_id(pattern: re.Pattern[str], text: str) -> Stated | None:
    found = [m for m in pattern.finditer(text) if not re.match(r"\s*(?:-|to|and)\s*\d", text[m.end() :])]
    ids = list(dict.fromkeys(m.group("id") for m in found))
    return Stated(ids[0], True) if ids else None  # "the cell was c5, not c3": the first named


# The writer naming themselves beside "I" or "me": "I (Hana Novak) ran the rig", "recorded by me (Dan
# O'Brien)", "Marta Silva (I recorded)", "lucía fernández (i did the recordings)", "the only
# experimenter (Kwame Mensah)".
_NAME = r"[^\W\d_][\w'’-]+(?:\s[^\W\d_][\w'’-]+){1,3}"
_SELF_NAMED_RES = (
    re.compile(rf"(?<![\w'])(?:I|me|myself)\s?\(\s?(?P<name>{_NAME})\s?[),]"),
    re.compile(rf"(?<![\w'’-])(?P<name>{_NAME})\s?\([^()]{{0,40}}?(?<![\w'])(?:I|i|me)(?![\w'])[^()]{{0,60}}\)"),
    re.compile(rf"(?i:experimenter)\s?\(\s?(?P<name>{_NAME})\s?\)"),
    # "I did the recordings (Marianne Okoye)"
    re.compile(rf"(?<![\w'])I\s(?:did|ran|recorded|performed|made)\b[^.;()]{{0,40}}?\(\s?(?P<name>{_NAME})\s?\)"),
)


def self_named(text: str) -> Stated | None:
    """The name the writer gives for themselves in parentheses, when there is one."""
    names = {m.group("name") for pattern in _SELF_NAMED_RES for m in pattern.finditer(text)}
    return Stated(names.pop(), True) if len(names) == 1 else None


# Where the writer worked, said in a sentence: "I did all the recordings myself at Uni Freiburg", "we're
# the Harvey lab at Harvard Medical School", "for the Moser group, NTNU".
_ORGANISATION = r"(?:the\s)?[A-Z][\w'’&.-]*(?:\s(?:[A-Z][\w'’&.-]*|of|for|de|di|da|del|do|des|and|&|la|le))*"
_WORKED_AT_RES = (
    re.compile(
        r"(?<![\w'])(?:I|i|we|We)(?:'?m|'?re|'ve|\s+am|\s+are|\s+were|\s+have|\s+had)?\s+"
        r"(?:(?:did|recorded|ran|performed|carried\s+out|conducted|made|work|worked|study|studied)\b[^.;!?()]{0,50}?\s)?"
        rf"(?:at|in)\s(?P<place>{_ORGANISATION})"
    ),
    re.compile(rf"\b(?:lab|group|team|unit)\s(?:at|of|in)\s(?P<place>{_ORGANISATION})"),
    re.compile(rf"\b(?:lab|group|team),\s(?P<place>{_ORGANISATION})"),
)


def organisations(text: str) -> list[str]:
    """The places a sentence says the writer worked at, in order (the caller checks each is one)."""
    found = [m.group("place").strip() for pattern in _WORKED_AT_RES for m in pattern.finditer(text)]
    return list(dict.fromkeys(found))


# "electric fish (Gymnotus omarorum)", "bearded dragons (Pogona vitticeps)": a binomial in parentheses.
_BINOMIAL_IN_PARENTHESES = re.compile(r"\((?P<name>[A-Z][a-z]{2,}\s[a-z]{3,}(?:us|a|um|is|i|ae|es|ensis|oides|ii|x))\)")


def binomial(text: str) -> str | None:
    names = {m.group("name") for m in _BINOMIAL_IN_PARENTHESES.finditer(text)}
    return names.pop() if len(names) == 1 else None


# "born 3 January 2024", "DOB 2024-01-03", "date of birth is 2023-12-24", "born on the 2nd of February 2024".
_BORN_DATE_RE = re.compile(
    r"\b(?:born|birth|dob|d\.o\.b\.?)\b(?:\s+(?:date|is|was|on|:|=|the))*[\s:=]*(?P<date>[^,;()\n]{6,30})", _I
)


def date_of_birth(text: str) -> Stated | None:
    """The one date of birth a sentence gives."""
    found: set[str] = set()
    for m in _BORN_DATE_RE.finditer(text):
        date = _DATE_RE.match(m.group("date").strip())
        if date:
            found.add(date.group().removeprefix("the ").strip())
    return Stated(found.pop(), True) if len(found) == 1 else None


_HUMAN_RE = re.compile(
    r"\b(?:patients?|participants?|volunteers?|donors?|human|subjects?\s+with|woman|man|pts?|doentes?|pacientes?)\b", _I
)
# A bare number beside the sex in a human subject's list: "Participant ID: P2, male, 36", "P51, 29, male".
_BARE_AGE_RE = re.compile(
    r"(?:\bage[d]?\s*(?:[:=]|is|was)?\s*(?P<aged>\d{1,3})(?=\s*(?:[,.;)]|$))"
    r"|\b(?:patient|participant|volunteer|subject|donor|he|she)\s+(?:is|was)\s+(?P<is>\d{1,3})(?=\s*(?:[,.;)]|$|\s(?:at|when|not)\b))"
    r"|\b(?:male|female|man|woman|m|f)\s*,\s*(?P<after>\d{1,3})(?=\s*(?:[,.;)]|$))"
    r"|,\s*(?P<before>\d{1,3})\s*,\s*(?:male|female|man|woman|m|f)\b)",
    _I,
)


# "29F", "34M", "66M", "pt 044 M 58": a person's age and sex written together.
_AGE_SEX_RE = re.compile(
    r"(?<![\w#-])(?<!pt\s)(?<!no\s)(?:(?P<age>[1-9]\d{0,2})\s?(?P<sex>[MF])|(?P<sex2>[MF])\s(?P<age2>[1-9]\d{0,2}))(?![\w-])"
)


def human_age(text: str) -> Stated | None:
    """A human subject's age written as a bare number of years next to the sex."""
    if not _HUMAN_RE.search(text):
        return None
    ages = {
        m.group("aged") or m.group("is") or m.group("after") or m.group("before") for m in _BARE_AGE_RE.finditer(text)
    }
    ages |= {m.group("age") or m.group("age2") for m in _AGE_SEX_RE.finditer(text)}
    ages = {age for age in ages if 1 <= int(age) <= 110}
    return Stated(f"{ages.pop()} years", True) if len(ages) == 1 else None


# "… of Cancer borealis", "Hirudo medicinalis, swim CPG recordings", "Manduca sexta antennal lobe": a
# binomial in running text: a capitalised genus and a species name with a Latin ending.
_BINOMIAL_IN_PROSE = re.compile(
    r"(?<![\w-])(?P<name>[A-Z][a-z]{3,}\s[a-z]{3,}(?:us|a|um|is|i|ae|es|ensis|oides|ii|x))(?:\s[a-z]+(?:us|a|um|is|ans))?"
    r"(?=[\s,.;:)]|$)"
)


def binomial_in_prose(text: str, is_word: Callable[[str], bool] = lambda word: False) -> str | None:
    """The one binomial a message writes out; `is_word` tells the capitalised words of ordinary text."""
    names = set()
    for m in _BINOMIAL_IN_PROSE.finditer(text):
        genus, epithet = m.group("name").split()
        if _ENGLISH_PLURAL.search(epithet) and not _LATIN_EPITHET.fullmatch(epithet):
            continue  # "Health issues, sorry", "Surgeries were …": an English plural
        # A genus that is a word too ("Octopus vulgaris") counts before a plainly Latin epithet only:
        # "Mouse retina" and "Rat hippocampus" name no species.
        if not is_word(genus.lower()) or (_LATIN_EPITHET.fullmatch(epithet) and not is_word(epithet)):
            names.add(m.group("name"))
    return names.pop() if len(names) == 1 else None


# Endings of English plurals that Latin epithets of the species the portal knows by name rarely have
# ("Ovis aries" and "Pan troglodytes" are read by their names, not as binomials in prose).
_ENGLISH_PLURAL = re.compile(r"(?:ies|ues|sses|ches|shes|xes)$")
# Epithets no English word ends like: "vulgaris", "bimaculoides", "gambiae", "smithii", "sinensis".
_LATIN_EPITHET = re.compile(r"[a-z]{3,}(?:(?<!s)is|oides|ii|ensis|ae)")

"""Subject ids named in running text: "the slice came from mouse AB-12", "Monkey Bruno", "the rat is
called Pepe", "Mouse number is 0412", "participant P07", "her name is Luna", "#R-0912".

An id follows a word for the animal or person (any species name of the species table, a group word
such as "monkey" or "bird", or "animal", "subject", "participant", "patient", "donor"), maybe with
"id", "number", "name" and "is", ":" or "called" between; or it follows "called"/"named"/"her name
is" in a sentence about the animal. It is a token holding a digit ("AB-12", "or12bk5", "0412") or,
after the word, a capitalised name that is no word of the vocabulary ("Bruno"). Brain areas ("mouse
V1 neurons"), ages ("8 weeks"), strains and sexes are never ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from conversions.language.brain_areas import is_brain_area

_PEOPLE = "subject|participant|patient|donor|volunteer|case|individual|child|subjekt|sujeto|sujet|soggetto|paciente"
_GENERIC = (
    "animal|mouse|mice|rat|monkey|macaque|marmoset|bird|finch|canary|fish|zebrafish|larva|fly|worm|ferret|gerbil"
    "|cat|pig|minipig|bat|owl|pigeon|tadpole|frog|vole|rabbit|hamster|dog|sheep|ferret|songbird|chick|primate"
    "|specimen|pup|embryo|sub|nhp|cricket|locust|bee|moth|snail|leech|lamprey|turtle|lizard|dragon|salamander"
    "|axolotl|octopus|crab|squid|shrew|degu|chinchilla|opossum|culture|organoid"
    "|maus|ratte|rata|ratón|raton|souris|ratto|topo|affe|scimmia|mono|singe|furet|tier|animale|animal"
    "|infant|baby|toddler|adolescent|neonate|ewe|ram|sow|boar|hen|cow|heifer|mare|kid|calf|lamb|pt"
    "|rato|piglet|roach|cockroach|lemur|crayfish|spider|egel|blutegel|kit|budgie|budgerigar|parrot|quail|owl|dog"
    "|ewe|wether|doente|paciente|patientin|patiente|camundongo|ratinho|topolino|muis|rat"
    # "Mysz MW-2", "Sıçan EY-6", "Krysa R-4": the animal in the users' other languages
    "|mysz|szczur|sıçan|fare|mus|råtta|rotte|myš|potkan|krysa|egér|patkány|maymun|małpa|aap|rot|крыса|мышь|обезьяна"
    "|hayvan|zwierzę|zvíře|dyr|djur|dier|állat"
)
_NUMBER = r"(?:id|ID|Id|number|no\.|No\.|nr\.?|#|name|code|tag|label)"
_LINK = (
    r"(?:\s{1,2}(?:is|was)\s{1,2}|\s{0,2}[=:]\s{0,2}|\s{1,2}[-–]\s{1,2}"
    r"|\s{0,2}\(\s{0,2}(?:id|ID|no\.?|\#)?[:=]?\s{0,2}|\s{1,2})"  # "the mouse (id RG-7)"
)
# Things with ids of their own that are not the subject's ("cell ID 3", "session id 12").
_NOT_THE_SUBJECTS = (
    r"(?:cell|slice|session|probe|file|sample|run|trial|neuron|unit|channel|electrode|recording|experiment|dataset"
    r"|user|lab|order|ticket|job|device|rig|stimulus|protocol|study|ethics|license|licence|project|job)"
)
_NOT_THE_SUBJECTS_RE = re.compile(rf"(?i:{_NOT_THE_SUBJECTS})\s*$")
# "the mouse has the number 2231", "Gerbil, no name just number 18"
_HAS_NUMBER = (
    r"(?:\s+(?:has|had|got|is|was)\s+(?:the\s+)?(?:number|id|ID|code|tag)\s+"
    r"|,?\s+no\s+name,?\s+(?:just\s+)?(?:the\s+)?number\s+)"
)
_AN_AGE_OF_A_PERSON = re.compile(r"\d{1,3}")
_CALLED = r"(?:(?:is\s+|was\s+)?(?:called|named|nicknamed)\s+)"
# A token with a digit ("AB-12", "or12bk5", "sub-014", "0412"), or "#12".
_WITH_DIGIT = r"#?(?=[\w./-]*\d)[^\W_][\w./-]*[^\W_]|#?\d"
_NAME = r"[A-Z][a-zà-öø-ÿ]+(?:-[A-Z]?[a-zà-öø-ÿ]+)?"
_QUOTE = "['\"‘’“”]"
_ID = rf"{_QUOTE}?(?P<id>{_WITH_DIGIT}|{_NAME}){_QUOTE}?"
_AGE_AFTER = re.compile(
    r"\s*(?:-|\s)?\s*(?:days?|d|weeks?|wks?|w|months?|mos?|mo|years?|yrs?|yr|y|yo|dpf|hpf|h|hours?)\b", re.IGNORECASE
)
_STRAIN_LIKE = re.compile(r"c57|b6|bl6|balb|cd-?1|129|fvb|dba|wt|ai\d+|thy1|gcamp|cre", re.IGNORECASE)
_CLOCK_OR_DATE = re.compile(
    r"\d{1,2}[.:h]\d{2}|\d{4}-\d{1,2}(?:-\d{1,2})?|\d+(?:st|nd|rd|th)|\d+(?:am|pm)", re.IGNORECASE
)
_FOLLOWED_BY_WORDS = re.compile(
    r"['\"‘’“”]?\s(?:(?!(?:male|female|m|f|and|is|was|who|she|he|the)\b)[a-z]|[\w-]*\d)"  # "Maus M-88": the id follows
)
# After an id that is also a brain area's name, what makes it the animal's: its sex, its age, its species.
_DESCRIBED_AFTER = re.compile(
    r"\s?[,(]\s?(?:(?:an?\s)?(?:male|female|m|f|\d|macaca|rhesus|adult|juvenile|young|old|aged)\b)", re.IGNORECASE
)
_SEX_WORDS = frozenset({"male", "female", "m", "f", "man", "woman", "boy", "girl", "unknown", "hermaphrodite"})


@dataclass(frozen=True)
class SubjectMention:
    start: int  # where the words naming it start ("mouse AB-12", "called Pepe")
    end: int
    subject_id: str
    noun: str  # the word before it ("mouse", "Participant"), or "" after "called"/"#"


@cache
def _patterns() -> tuple[re.Pattern[str], ...]:
    nouns = rf"(?:{_PEOPLE}|{_GENERIC})(?:e?s)?"
    return (
        # "mouse AB-12", "Monkey Bruno", "Mouse number is 0412", "the rat is called Pepe", "subject: Momo"
        re.compile(
            rf"(?<![\w-])(?i:(?:the\s+|our\s+|my\s+|this\s+)?(?P<noun>{nouns}))"
            # "the mouse for this file is CM-55"
            rf"(?i:\s+(?:for|in|of|from)\s+this\s+(?:file|session|recording|dataset|experiment))?"
            rf"(?:\s{{1,2}}{_NUMBER})?(?:{_HAS_NUMBER}|{_LINK}{_CALLED}?|\s{{1,2}}{_CALLED}){_ID}(?![\w-])"
        ),
        # "her name is Luna", "it's the one called Bruno", "named Nutella"
        re.compile(
            rf"(?<![\w-])(?i:(?:(?:her|his|its|the)\s+name\s+is\s+)|(?:called|named|nicknamed)\s+"
            rf"|(?:we\s+)?call(?:ed)?\s+(?:her|him|it)\s+){_ID}(?![\w-])"
        ),
        # "#R-0912"
        re.compile(r"(?<![\w#])#(?P<id>[A-Za-z]*-?\d[\w-]*)"),
        # "ID 0093", "with ID 612090", "the ID is M-0412", "the ID on the cage card is 7781": an id without
        # the animal's word, holding a digit, and not a cell's, a session's or a file's.
        re.compile(
            rf"(?<![\w-])(?i:id|i\.d\.|code)(?:\s+(?:on|of|in)\s+(?:the\s+)?[a-z ]{{1,20}}?)?"
            rf"(?:\s+(?:is|was)\s+|\s?[:=#]\s?|\s)['\"]?(?P<id>{_WITH_DIGIT})(?![\w-])"
        ),
        # "The animal, G7, was a female": the id set off by commas after "the <animal>".
        re.compile(rf"(?<![\w-])(?i:(?:the|our|this|my)\s+(?P<noun>{nouns}))\s?,\s(?P<id>{_WITH_DIGIT})(?=\s?,)"),
    )


def subject_mentions(text: str, vocabulary: frozenset[str]) -> list[SubjectMention]:
    """The subject ids `text` names, in order; `vocabulary` holds lower-case words that have a meaning
    of their own (never a name)."""
    found: list[SubjectMention] = []
    for index, pattern in enumerate(_patterns()):
        for m in _matches(pattern, text):
            value = m.group("id")
            if not _is_id(value, text, m.end("id"), vocabulary, named=index == 1):
                continue
            if index == 3 and _NOT_THE_SUBJECTS_RE.search(text, max(0, m.start() - 24), m.start()):
                continue  # "cell ID 3", "the session id is 12"
            if index == 0 and "(" in text[m.end("noun") : m.start("id")] and not any(ch.isdigit() for ch in value):
                continue  # "an anesthetized pig (Yorkshire)": a breed in parentheses, not a name
            if (
                index == 0
                and _AN_AGE_OF_A_PERSON.fullmatch(value)
                and re.search(rf"(?i:{_PEOPLE})\s+(?:is|was)\s+$", text[m.start() : m.start("id")])
            ):
                continue  # "the patient is 34": an age
            linked = index == 0 and text[m.end("noun") : m.start("id")].strip(" '\"‘’“”:")
            if linked and re.fullmatch(r"P\d{1,3}[DWMY]?", value):
                continue  # "the mouse was P75" is its age; "pig P4" (no word between) names it
            if any(m.start() < other.end and other.start < m.end() for other in found):
                continue
            noun = m.group("noun") if "noun" in pattern.groupindex else ""
            end = m.end()
            if not any(ch.isdigit() for ch in value):
                coded = _CODE_AFTER_NAME_RE.match(text, m.end("id"))
                if coded and _is_id(coded.group("code"), text, coded.end("code"), vocabulary, named=False):
                    value, end = coded.group("code"), coded.end()  # "Monkey Bert (ID M-BRT)": the code, not the name
                elif re.match(r"\s[A-Z][a-z]", text[m.end("id") :]):
                    continue  # "the Primate Research Center": a name of a place, not an animal's
            found.append(SubjectMention(m.start(), end, value.lstrip("#") if index < 2 else value, noun))
    return sorted(found, key=lambda mention: mention.start)


# After an animal's name, the code it goes by: "Bert (ID M-BRT)", "Kiwi (MK-3)", "Hedwig, id OW-H".
_CODE_AFTER_NAME_RE = re.compile(
    r"['\"‘’“”]?\s?(?:\(\s?(?:(?i:id|no\.?|code)\s?[:=]?\s?)?|,\s?(?i:id|code)\s?[:=]?\s?)"
    r"(?P<code>(?=[\w-]*(?:\d|[A-Z]{2}))[A-Za-z0-9][\w-]*[A-Za-z0-9]|[A-Z]{2,})\)?"
)


def _matches(pattern: re.Pattern[str], text: str) -> Iterator[re.Match[str]]:
    """Every match, each searched again from just after its start so that a match the caller refuses
    does not hide one inside it ("Subjekt: Maus M-88": "Maus" is no id, "Maus M-88" names one)."""
    pos = 0
    while (m := pattern.search(text, pos)) is not None:
        yield m
        pos = m.start() + 1


def _is_id(value: str, text: str, end: int, vocabulary: frozenset[str], *, named: bool) -> bool:
    lowered = value.lower().lstrip("#")
    if re.fullmatch(r"L\d(?:/\d)?[ab]?", value):
        return False  # "mouse L5 neurons": a cortical layer
    described = any(ch.isdigit() for ch in value) and bool(_DESCRIBED_AFTER.match(text, end))
    if (lowered in vocabulary and not described) or lowered in _SEX_WORDS:
        return False
    if is_brain_area(value) and not described:
        return False  # "mouse V1 neurons"; but "Macaque M2, male, 5 years" names the monkey
    if not any(ch.isdigit() for ch in value) and _FOLLOWED_BY_WORDS.match(text, end):
        return False  # "Subject: Egyptian fruit bat 0147": a name is not followed by more words
    if any(ch.isdigit() for ch in value):
        # "pig P4": after the animal's word a P-number is its name (an age follows no animal word).
        return not (_AGE_AFTER.match(text, end) or _CLOCK_OR_DATE.fullmatch(value) or _STRAIN_LIKE.match(value))
    return named or value[0].isupper()

"""Institutions named in running text: "I'm a lecturer at University of Lagos", "Hello from the primate
unit at the Institut des Sciences Cognitives Marc Jeannerod in Lyon", "I run the lab (Prof. Hiroshi
Tanaka, Kyoto University)", "I'm a postdoc at UFRJ".

The chunk reader reads an institution where a segment is one ("Institution: KU Leuven", "Ada Byron,
ETH Zurich"), and in prose it may keep words around it ("Osaka University. Recordings", "PI,
Università di Padova") or only its last word ("University of Bonn" → "Bonn"). `named` finds the
names of organisations the message holds: a run of capitalised words (with "of", "de", "für"…
between them) holding a word such as University, Institute or Hospital, a name the portal knows
("Karolinska", "Janelia"), or an acronym after "at", "from" or "@". It returns the one the message
names, or None when it names none or several (the question stays open rather than guessing).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from itertools import pairwise

from conversions.language.brain_areas import is_brain_area
from conversions.language.zones import is_place


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_KEYWORDS = _words(
    """university universität universitat université universite universidad universidade università universiteit
    universitet uniwersytet univerzita universitá institute institut institutet instituto istituto
    college school hospital clinic klinikum clinique center centre centro foundation fondation fundação fundacion
    fundación academy akademie polytechnic politecnico polytechnique scuola escola école ecole hochschule
    charité charite campus univ uni umc mc chu chuv tu ospedale hôpital hopital clínica clinica klinik policlinico
    hospitalier ziekenhuis sjukhus"""
)
_CONNECTORS = _words("""of for de di da do des del della dos das für fur and & the la le du y e en van voor d' l'""")
# Words that open a unit inside an institution; the institution is the name after them.
_UNIT_WORDS = _words("""department dept division faculty lab laboratory group unit section school""")
# Acronyms that are not places of work.
_NOT_INSTITUTIONS = _words("""id pi dob na ok eeg ecog lfp mea emg meg fmri bci dbs vr ttl ai usa uk eu us""")
_TOKEN_RE = re.compile(r"[^\W_][\w'’.-]*|&")
# Before an acronym, the words that make it a place of work: "at UFRJ", "from IPM", "(UCL", ", NYU".
_CUE_BEFORE_RE = re.compile(
    r"(?:\bat|\bfrom|@|\bof|[:(,]|\bde\s+la|\bda|\bde|\balla|\bal|\bà|\bna|\bno|\ben|\bau|\baux|\ban\s+der|\bam)"
    r"\s*(?:the\s+)?$",
    re.I,
)


def named(text: str, is_known: Callable[[str], bool]) -> str | None:
    """The one institution the message names, as written; None when it names none or several."""
    found = _mentions(text, is_known)
    # "Universidade Federal do Rio Grande do Norte (Brain Institute)": a unit in parentheses after its institution
    found = [name for name in found if not _in_parentheses_after(name).search(text)]
    names = list(dict.fromkeys(found))
    # "Universität Bern, Institut für Physiologie": a department after its university is part of it.
    names = [name for name in names if not any(other != name and name in other for other in names)]
    universities = [name for name in names if has_university_word(name)]
    if len(names) > 1 and len(universities) == 1:
        units = [name for name in names if name != universities[0]]
        if _listed_together(text, names) or all(is_a_unit(name) for name in units):
            return universities[0]  # "… University in Taiwan, Institute of Neuroscience"
    return names[0] if len(names) == 1 else None


# The parts of a university: "Institute of Neuroscience", "Brain and Mind Centre", "Faculty of Medicine".
_UNIT_RE = re.compile(
    r"^(?:the\s)?(?:institute|institut|centre|center|faculty|school|department|dept|division|programme|program"
    r"|laboratory|lab|unit|clinic|section)\b|\b(?:centre|center|institute|unit|programme)$",
    re.IGNORECASE,
)


def is_a_unit(name: str) -> bool:
    return bool(_UNIT_RE.search(name))


def _mentions(text: str, is_known: Callable[[str], bool]) -> list[str]:
    tokens = [(m.start(), m.end(), m.group()) for m in _TOKEN_RE.finditer(text)]
    found: list[str] = []
    i = 0
    while i < len(tokens):
        if not _capitalised(tokens[i][2]):
            i += 1
            continue
        k = i + 1
        while k < len(tokens) and _continues(text, tokens, k):
            k += 1
        while k > i + 1 and tokens[k - 1][2].lower() in _CONNECTORS:
            k -= 1
        run = tokens[i:k]
        name = _organisation(text, run, is_known)
        if name:
            found.append(name)
        i = k
    return found


def _continues(text: str, tokens: list[tuple[int, int, str]], k: int) -> bool:
    """Whether token k goes on the name before it: one space between, and a capitalised word or a
    connector that a capitalised word follows."""
    gap = text[tokens[k - 1][1] : tokens[k][0]]
    if gap != " " or tokens[k - 1][2].endswith("."):
        return False
    word = tokens[k][2]
    if _capitalised(word):
        return True
    if word.lower() in _CONNECTORS or word.lower().startswith(("d'", "l'")):
        return (
            k + 1 < len(tokens)
            and text[tokens[k][1] : tokens[k + 1][0]] == " "
            and (_capitalised(tokens[k + 1][2]) or tokens[k + 1][2].lower() in _CONNECTORS)
        )
    return False


def _capitalised(word: str) -> bool:
    if word == "I":
        return False  # "the University of Toronto and I did the recordings"
    elided = re.match(r"(?:[dl]|[dn]?ell|all)['’]", word, re.I)  # "l'Université", "all'Istituto"
    return word[:1].isupper() or bool(elided and word[elided.end() : elided.end() + 1].isupper())


def _organisation(text: str, run: list[tuple[int, int, str]], is_known: Callable[[str], bool]) -> str | None:
    words = [w.strip(".,'’") for _, _, w in run]
    words[0] = re.sub(r"^(?:[dlDL]|[dn]?ell|all)['’](?=[A-ZÀ-Ý])", "", words[0])  # "l'Université", "all'Istituto"
    lowered = [w.lower() for w in words]
    # "Department of Neurophysiology" alone names a unit, not the institution.
    if lowered[0] in _UNIT_WORDS and not any(is_keyword(w) for w in lowered[1:]):
        return None
    words = _without_unit_after(_trimmed(words[_name_start(lowered) :]))
    if not words:
        return None
    name = " ".join(words)
    after = text[run[-1][1] : run[-1][1] + 2]
    if after[:1] in ("/", "-") and after[1:2].isalnum():
        return None  # "APP/PS1", "WAG/Rij": a strain
    if _keyworded([w.lower() for w in words]) and len(words) >= 2:
        campus = _CAMPUS_RE.match(text, run[-1][1])
        if _SYSTEM_RE.fullmatch(name) and campus:
            return f"{name}{campus.group()}"  # "University of California, Berkeley", "University of Texas at Austin"
        return name
    return _named_without_kind(text, run, words, is_known)


def _name_start(lowered: list[str]) -> int:
    """Where the organisation's name starts among the run's words: after a unit that names its
    institution, or after a person's name that "da", "of" or "from" joins to it."""
    start = 0
    for index, word in enumerate(lowered):  # "Department of Physiology of the University of Oslo"
        if word in _UNIT_WORDS and index + 1 < len(lowered) and any(is_keyword(w) for w in lowered[index + 1 :]):
            unit_end = next((j for j in range(index + 1, len(lowered)) if is_keyword(lowered[j])), index + 1)
            if lowered[index + 1] in ("of", "for") and unit_end - index > 2:
                start = unit_end - (1 if unit_end and lowered[unit_end - 1] in ("the",) else 0)
    first_keyword = next((j for j, w in enumerate(lowered) if is_keyword(w)), None)
    if first_keyword and first_keyword > start:
        j = first_keyword - 1
        while j > start and lowered[j] in ("the", "la", "le", "l'"):
            j -= 1
        if lowered[j] in ("da", "de", "di", "of", "from"):
            start = first_keyword  # "Beatriz Carvalho da Universidade de São Paulo": the person, then the place
    return start


# Words a run may open with that are no part of the name: "the", "at", a greeting, a label.
_BEFORE_A_NAME = frozenset(
    {"the", "la", "le", "l'", "at", "of", "and", "from", "hello", "hi", "greetings", "institution", "affiliation"}
)


def _trimmed(words: list[str]) -> list[str]:
    """The words without those before the name and the connectors after it."""
    while words and words[0].lower() in _BEFORE_A_NAME:
        words = words[1:]
    while words and words[-1].lower() in _CONNECTORS:
        words = words[:-1]
    return words


def _without_unit_after(words: list[str]) -> list[str]:
    """The university without a unit named after it in the same run: "University of Bristol School of
    Physiology" → "University of Bristol"."""
    lowered = [w.lower() for w in words]
    for index, word in enumerate(lowered[1:], start=1):
        if (
            word in _UNITS_AFTER
            and index + 1 < len(lowered)
            and lowered[index + 1] in ("of", "for")
            and any(has_university_word(w) for w in words[:index])
        ):
            return words[:index]
    return words


def _named_without_kind(
    text: str, run: list[tuple[int, int, str]], words: list[str], is_known: Callable[[str], bool]
) -> str | None:
    """An organisation no word of which says what it is: a name the portal knows ("Karolinska",
    "Janelia"), or an acronym the words around it make a place of work."""
    name = " ".join(words)
    if len(words) == 1 and re.search(r"\bin\s+$", text[max(0, run[0][0] - 4) : run[0][0]]):
        return None  # "… in Cambridge": a city that shares its name with a university
    if any(ch.isdigit() for ch in name):
        return None  # "UCLA-P51" is a patient's id
    if is_known(name) and len(words) <= 4:
        return name
    return _acronym_of_a_workplace(text, run, words)


def _acronym_of_a_workplace(text: str, run: list[tuple[int, int, str]], words: list[str]) -> str | None:
    """An acronym (with a place after it, "IISER Pune") that "at", "from", "@"… puts before it, or that
    stands alone as a sentence; not one of an experiment's words ("PV cells", "CA1")."""
    before = text[max(0, run[0][0] - 12) : run[0][0]]
    acronym = words[0]
    if len(words) > 2 or not (2 <= len(acronym) <= 8 and acronym.isupper() and acronym.isalpha()):
        return None
    if acronym.lower() in _NOT_INSTITUTIONS or is_brain_area(acronym):
        return None
    if re.match(r"\s(?!(?:in|and|at|on|but|to|for|with|where|since|we|i)\b)[a-z]", text[run[-1][1] :]):
        return None  # "PV cells", "CA1 neurons": a word of the experiment follows
    alone = re.search(r"(?:^|[.!?]\s)$", before) and (
        run[-1][2].endswith(".") or re.match(r"\s?[.!]", text[run[-1][1] :])
    )
    if _CUE_BEFORE_RE.search(before) or (
        alone and len(acronym) >= 3
    ):  # "at UFRJ", "from IPM", "… I didn't. IISER Pune."
        return acronym if len(words) == 1 or (is_place(words[1]) and len(acronym) >= 3) else " ".join(words)
    return None


def is_keyword(word: str) -> bool:
    return word in _KEYWORDS or word.startswith(("universit", "institut", "hochschul", "polytechn", "politecn"))


def _keyworded(lowered: list[str]) -> bool:
    """Whether the words name an organisation by their kind ("… University", "Institut …"); "Laboratory"
    and "Unit" count after an acronym or inside a longer name ("MRC Laboratory of Molecular Biology")."""
    if any(is_keyword(w) for w in lowered):
        return True
    return any(w in ("laboratory", "laboratories", "unit") for w in lowered[1:]) and len(lowered) >= 3


# University systems whose campus follows a comma or "at": "University of California, Berkeley",
# "University of Texas at Austin".
_SYSTEM_RE = re.compile(
    r"University\s+of\s+(?:California|Texas|Wisconsin|Colorado|Illinois|Massachusetts|Maryland|North\s+Carolina"
    r"|Missouri|Hawaii|Nebraska|Tennessee|Minnesota)"
)
_CAMPUS_RE = re.compile(r"(?:, | at )(?P<campus>[A-Z][\w'-]+(?: [A-Z][\w'-]+){0,2})(?![\w'-])")


def with_campus(name: str) -> bool:
    """Whether `name` is a university system with its campus ("University of Texas at Austin"), whose
    last words are a place that belongs to the name."""
    head = _SYSTEM_RE.match(name)
    return bool(head and _CAMPUS_RE.fullmatch(name, head.end()))


def _in_parentheses_after(name: str) -> re.Pattern[str]:
    return re.compile(rf"[A-Za-zÀ-ÿ]\s\(\s?{re.escape(name)}\s?\)")


# Units named after the university in one run: "… University Department of Physiology", "… Institute of
# Neuroscience". "School of Medicine" and "Faculty of Medicine" are often part of the official name: kept.
_UNITS_AFTER = frozenset({"department", "dept", "institute", "division", "centre", "center"})


def has_university_word(name: str) -> bool:
    return any(w.lower() in _KEYWORDS and (w.lower().startswith("univ") or w.lower() == "tu") for w in name.split())


def _listed_together(text: str, names: list[str]) -> bool:
    """Whether the names stand in one comma list ("Universität Bern, Institut für Physiologie")."""
    spans = sorted((text.find(name), text.find(name) + len(name)) for name in names)
    return all(re.fullmatch(r"\s*,\s*", text[end:start]) for (_, end), (start, _) in pairwise(spans))

"""A statistical tagger for the fields a message names by a span of its own words.

The rules (conversions.language.rules) read what they have patterns for; they miss what is phrased in
a way no pattern foresaw ("it's Kai Müller from the Bernstein Center at Uni Freiburg"). This tagger
is a linear-chain CRF (crfsuite), one model per field, trained offline (bench/train_tagger.py) on
labelled messages; the models ship in conversions/language/tagger/ and nothing is downloaded at run
time. Its features are the words and their shapes, what the word lists of the rules say of each word
(a brain area, an animal, an institution word, a possible name), the question the message answers,
and the spans the rules read: the tagger learns when the rules' reading holds and what it misses.

It finds the spans only; the values are tidied and normalized as the rules' are, and the rules keep
everything a span cannot say (species, sex, ages, times, intents, corrections).
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import pycrfsuite
from rapidfuzz import fuzz

from conversions.nwb.normalizers import plain_word

# The fields the tagger reads, and the short name of each model file.
SPAN_FIELDS: dict[str, str] = {
    "experimenter": "experimenter",
    "institution": "institution",
    "experiment_description": "description",
    "location": "location",
    "subject_id": "subject",
    "strain": "strain",
    "lab": "lab",
}
MODELS = Path(__file__).with_name("tagger")

_TOKEN_RE = re.compile(r"\w+(?:['’./:+-]\w+)*|\S")
_PERSON_SPLIT_RE = re.compile(r"\s*;\s*")
_FUZZY_ALIGNMENT = 90  # rapidfuzz partial ratio (0-100) for a value the text writes a little differently


@dataclass(frozen=True)
class Token:
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Span:
    start: int  # character offsets in the message
    end: int
    confidence: float  # the lowest marginal probability of the span's labels


def digest(sets: Mapping[str, Sequence[tuple[str, Sequence[str], Mapping[str, str]]]]) -> str:
    """One fingerprint of the labelled messages the models are trained on (written beside them as
    trained_on.txt, so a test sees when a set changed and the models were not trained again)."""
    content = repr(sorted((name, [(t, tuple(a), sorted(g.items())) for t, a, g in e]) for name, e in sets.items()))
    return hashlib.sha256(content.encode()).hexdigest()


def tokens(text: str) -> list[Token]:
    return [Token(m.start(), m.end(), m.group()) for m in _TOKEN_RE.finditer(text)]


def _shape(word: str) -> str:
    shape = re.sub(r"[A-ZÀ-Þ]", "X", word)
    shape = re.sub(r"[a-zß-ÿ]", "x", shape)
    shape = re.sub(r"\d", "d", shape)
    return re.sub(r"(.)\1{2,}", r"\1\1", shape)


def value_spans(text: str, words: list[Token], field: str, value: str) -> list[tuple[int, int]]:
    """The token ranges [i, j) where `text` writes `value` (a raw or a stored value): each person of
    "Family, Given; Family, Given" where their names stand, anything else where it is written, or
    nearly written, in the text."""
    if field == "experimenter":
        ranges = [_person_range(words, person) for person in _PERSON_SPLIT_RE.split(value) if person.strip()]
        return [r for r in ranges if r is not None]
    found = _text_range(text, words, value.strip().rstrip("."))
    return [found] if found else []


def _person_range(words: list[Token], person: str) -> tuple[int, int] | None:
    names = {plain_word(part) for part in re.split(r"[\s,]+", person) if part}
    best: tuple[int, int] | None = None
    best_cover = 0
    i = 0
    while i < len(words):
        if plain_word(words[i].text) not in names:
            i += 1
            continue
        j = i
        while j < len(words) and (plain_word(words[j].text) in names or words[j].text in {"-", "'"}):
            j += 1
        cover = len({plain_word(w.text) for w in words[i:j]} & names)
        if cover > best_cover:
            best, best_cover = (i, j), cover
        i = j
    return best


def _text_range(text: str, words: list[Token], value: str) -> tuple[int, int] | None:
    if not value:
        return None
    lowered, wanted = text.casefold(), value.casefold()
    whole = re.search(rf"(?<!\w){re.escape(wanted)}(?!\w)", lowered)  # "MIT" as a word, not in "Smith"
    at = whole.start() if whole else lowered.find(wanted)
    if at >= 0:
        start, end = at, at + len(wanted)
    else:
        alignment = fuzz.partial_ratio_alignment(wanted, lowered)
        if alignment is None or alignment.score < _FUZZY_ALIGNMENT:
            return None
        start, end = alignment.dest_start, alignment.dest_end
    inside = [k for k, w in enumerate(words) if w.start < end and start < w.end]
    return (inside[0], inside[-1] + 1) if inside else None


@dataclass(frozen=True)
class Lexicon:
    """What the rules' word lists say of a message's words, as the tagger's features see it."""

    is_word: Callable[[str], bool]  # a lowercase word with a meaning of its own (never a name)
    could_be_name: Callable[[str], bool]
    is_institution_word: Callable[[str], bool]
    areas: Callable[[str], list[tuple[int, int]]]  # brain areas named in a text
    animals: Callable[[str], list[tuple[int, int]]]
    zones: Callable[[str], list[tuple[int, int]]]
    subjects: Callable[[str], list[tuple[int, int]]]


def _covered(words: list[Token], spans: list[tuple[int, int]]) -> list[bool]:
    return [any(w.start < end and start < w.end for start, end in spans) for w in words]


def features(
    text: str, words: list[Token], asked: Sequence[str], read: dict[str, str], lexicon: Lexicon
) -> list[list[str]]:
    """One list of feature strings per token. `read` holds the values the rules read."""
    marks = _rule_marks(text, words, read)
    gazetteers = {
        "area": _covered(words, lexicon.areas(text)),
        "animal": _covered(words, lexicon.animals(text)),
        "zone": _covered(words, lexicon.zones(text)),
        "subj": _covered(words, lexicon.subjects(text)),
    }
    asked_features = [f"ask={name}" for name in asked] or ["ask=none"]
    sentence, position = 0, 0
    per_token: list[list[str]] = []
    for k, word in enumerate(words):
        own = _word_features(word, position, sentence, lexicon)
        own += [name for name, covered in gazetteers.items() if covered[k]]
        own += [f"rule={mark}" for mark in marks[k]] or ["rule=none"]
        per_token.append(own)
        position += 1
        if word.text in {".", "!", "?", ";"} or (word.text == "\n"):
            sentence, position = sentence + 1, 0
    return [own + asked_features + _neighbour_features(words, per_token, k) for k, own in enumerate(per_token)]


def _rule_marks(text: str, words: list[Token], read: dict[str, str]) -> list[list[str]]:
    """For each token, the fields whose value the rules read there, as "B:field" (the value's first
    token) or "I:field" (inside it)."""
    marks: list[list[str]] = [[] for _ in words]
    for name, value in read.items():
        for i, j in value_spans(text, words, name, value):
            for k in range(i, j):
                marks[k].append(("B:" if k == i else "I:") + name)
    return marks


def _word_features(word: Token, position: int, sentence: int, lexicon: Lexicon) -> list[str]:
    """What the word is and where it stands, and what the rules' word lists say of it."""
    lower = word.text.casefold()
    own = [
        f"w={lower}",
        f"shape={_shape(word.text)}",
        f"suf3={lower[-3:]}",
        f"pre3={lower[:3]}",
        f"pos={min(position, 4)}",
        f"sent={min(sentence, 3)}",
    ]
    if word.text[:1].isupper():
        own.append("title")
    if word.text.isupper() and len(word.text) > 1:
        own.append("upper")
    if any(c.isdigit() for c in word.text):
        own.append("digit")
    if lower.isalpha() and lexicon.is_word(lower):
        own.append("vocab")
    if word.text[:1].isalpha() and lexicon.could_be_name(word.text):
        own.append("name")
    if lexicon.is_institution_word(lower):
        own.append("instword")
    return own


def _neighbour_features(words: list[Token], per_token: list[list[str]], k: int) -> list[str]:
    """The words two either side of token k, and the features of the next and the previous token
    (their word and position aside), or "edge" beyond the message."""
    row: list[str] = []
    for offset in (-2, -1, 1, 2):
        at = k + offset
        if 0 <= at < len(words):
            row.append(f"{offset}:w={words[at].text.casefold()}")
            if abs(offset) == 1:
                row += [f"{offset}:{f}" for f in per_token[at] if not f.startswith(("w=", "suf3", "pre3", "pos"))]
        else:
            row.append(f"{offset}:edge")
    return row


_LOCK = threading.Lock()  # a crfsuite tagger holds the sequence it tags: one message at a time
_models = MODELS


@cache
def _tagger(folder: Path, name: str) -> pycrfsuite.Tagger | None:
    path = folder / f"{name}.crfsuite"
    if not path.exists():
        return None
    tagger = pycrfsuite.Tagger()
    tagger.open(str(path))
    return tagger


def use_models(folder: Path) -> None:
    """Tag with the models in `folder` from now on (bench/train_tagger.py scores models it has just
    trained on the sets they were not trained on)."""
    global _models
    _models = folder


def available() -> bool:
    return _models_in(_models)


@cache
def _models_in(folder: Path) -> bool:
    """Whether `folder` holds every field's model (looked at once per folder: the models ship with the
    code and a session never changes them)."""
    return all((folder / f"{name}.crfsuite").exists() for name in SPAN_FIELDS.values())


@dataclass(frozen=True)
class Tagged:
    """What one field's model makes of a message."""

    spans: list[Span]
    outside: list[float]  # per word, the probability that it is no part of the field's value

    def outside_of(self, words: list[Token], ranges: list[tuple[int, int]]) -> float:
        """How sure the model is that none of the words in `ranges` is the field's value (the
        lowest probability among them; 0 for no words)."""
        inside = [self.outside[k] for i, j in ranges for k in range(i, j)]
        return min(inside) if inside else 0.0


def spans(text: str, words: list[Token], rows: list[list[str]]) -> dict[str, Tagged]:
    """What each field's model tags: its spans, each with its confidence, and how sure it is that
    each word is outside the field."""
    found: dict[str, Tagged] = {}
    if not words:
        return found
    with _LOCK:
        for field, name in SPAN_FIELDS.items():
            tagger = _tagger(_models, name)
            if tagger is None:
                continue
            labels = tagger.tag(rows)
            marginals = [tagger.marginal(label, k) for k, label in enumerate(labels)]
            outside = [tagger.marginal("O", k) for k in range(len(words))]
            found[field] = Tagged(_decoded(words, labels, marginals), outside)
    return found


def _decoded(words: list[Token], labels: list[str], marginals: list[float]) -> list[Span]:
    result: list[Span] = []
    k = 0
    while k < len(labels):
        if labels[k] == "O":
            k += 1
            continue
        j = k + 1
        while j < len(labels) and labels[j] == "I":
            j += 1
        result.append(Span(words[k].start, words[j - 1].end, min(marginals[k:j])))
        k = j
    return result


def labels_for(words: list[Token], ranges: list[tuple[int, int]]) -> list[str]:
    """The training labels of one field: B and I over each range, O elsewhere."""
    result = ["O"] * len(words)
    for i, j in ranges:
        if any(label != "O" for label in result[i:j]):
            continue
        result[i] = "B"
        for k in range(i + 1, j):
            result[k] = "I"
    return result

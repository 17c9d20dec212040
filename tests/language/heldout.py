"""Held-out sets of chat messages, scored on the values the portal would store.

Each set (heldout_a.py, heldout_b.py, …) was written by someone who had not read the reader's rules,
and scored by the unchanged reader before any rule was changed for it; the figures of that first run
are kept in FIRST_RUN. Unlike the realistic sets of dialogues.py, which give the raw text a reader
should pick out, these give the stored, normalized value ("Byron, Ada", "Mus musculus", "P9W",
"2024-05-03T09:30:00+02:00"), so a value is right only when what lands in the NWB file is right,
whatever part of the sentence it came from. Free text (descriptions, the recording location) is
right when it is nearly the expected phrase (a leading "we recorded" or a trailing word may differ);
everything else must be equal (letter case aside for institutions, strains and labs).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import isodate
from rapidfuzz import fuzz

from conversions.language.rules import ParsedMessage, parse_message
from conversions.nwb.fields import FIELDS
from conversions.nwb.normalizers import normalize_field
from tests.language.heldout_a import HELD_OUT_A
from tests.language.heldout_b import HELD_OUT_B
from tests.language.heldout_c import HELD_OUT_C
from tests.language.heldout_d import HELD_OUT_D
from tests.language.heldout_e import HELD_OUT_E
from tests.language.heldout_f import HELD_OUT_F
from tests.language.heldout_g import HELD_OUT_G
from tests.language.heldout_h import HELD_OUT_H
from tests.language.heldout_i import HELD_OUT_I
from tests.language.heldout_j import HELD_OUT_J
from tests.language.heldout_k import HELD_OUT_K
from tests.language.heldout_l import HELD_OUT_L
from tests.language.heldout_m import HELD_OUT_M
from tests.language.heldout_n import HELD_OUT_N
from tests.language.heldout_o import HELD_OUT_O
from tests.language.heldout_p import HELD_OUT_P
from tests.language.heldout_q import HELD_OUT_Q
from tests.language.heldout_r import HELD_OUT_R
from tests.language.heldout_s import HELD_OUT_S
from tests.language.heldout_t import HELD_OUT_T
from tests.language.heldout_u import HELD_OUT_U
from tests.language.heldout_v import HELD_OUT_V

HeldOut = tuple[str, tuple[str, ...], dict[str, str]]

HELD_OUT_SETS: dict[str, list[HeldOut]] = {
    "A": HELD_OUT_A,
    "B": HELD_OUT_B,
    "C": HELD_OUT_C,
    "D": HELD_OUT_D,
    "E": HELD_OUT_E,
    "F": HELD_OUT_F,
    "G": HELD_OUT_G,
    "H": HELD_OUT_H,
    "I": HELD_OUT_I,
    "J": HELD_OUT_J,
    "K": HELD_OUT_K,
    "L": HELD_OUT_L,
    "M": HELD_OUT_M,
    "N": HELD_OUT_N,
    "O": HELD_OUT_O,
    "P": HELD_OUT_P,
    "Q": HELD_OUT_Q,
    "R": HELD_OUT_R,
    "S": HELD_OUT_S,
    "T": HELD_OUT_T,
    "U": HELD_OUT_U,
    "V": HELD_OUT_V,
}

# What the reader scored on each set before any rule was changed for it. Set A was scored by the
# reader as it was before this work (130 of its fields are the time zone, the recording location and
# patch-clamp cell and slice ids, which that reader did not know; on the other fields it scored
# 699/1172 = 59.6 %). Set B was written after the rules were changed for set A and scored by that
# reader (commit 33de7bb), so its figure is how well those changes carry over to messages they were
# not written for; the reader from before this work scored 52.1 % (708/1358) on it.
#
# Sets C to G were written by five people who saw neither the rules nor any other set, while the
# reader was being changed, and each was kept unread until its first run:
# - D was scored first by the reader of commit cd415a3 (the first change of that round, made before D
#   existed), then opened to work on;
# - C and E were scored first by the reader of commit d72eba6, after the changes made for D, then
#   opened in turn;
# - F was scored first by the reader of commit 005a690, after every change made for C, D and E, then
#   opened;
# - G was written last and scored once, by the reader of commit 1ab9cda, after every change made for
#   C to F: its first run is the best measure of how the reader does on messages it has not seen.
# The reader from before that round (commit fc846e4) scored C 85.3 %, D 83.5 %, E 74.5 %, F 75.9 %,
# G 81.0 %.
#
# Set H was written after the rules plateaued, by someone who saw neither the rules nor any set, under
# one stated convention (an animal named anywhere gives the species). It was scored once, before any
# change was made for it, by the reader of commit 65f5463: the rules followed by the span tagger
# (conversions/language/tagger.py), whose models had been trained on sets A to G. The rules alone
# (commit 9de3c6b) scored it 91.2 % (1564/1715).
#
# Set I was written next, by another writer asked for less common phrasings, more clinical and
# invertebrate labs and more non-native English, and scored once by the reader of commit 305ebd3
# (the rules and the tagger trained on sets A to H); the rules alone scored it 88.8 % (1531/1725).
#
# Set J was written after the changes made for H and I, under the same brief, told to store what
# the portal stores where the sets had disagreed with it (a ferret as "Mustela furo", a
# hermaphrodite C. elegans as "XX"), and scored once by the reader of commit 6297949 (rules and the
# tagger trained on A to I); the rules alone scored it 93.9 % (1608/1713), the reader from before
# this round (commit 9de3c6b) 91.9 % (1575/1714).
#
# Set K was written last, under the same brief as J, and scored once by the reader of commit 0701ac3
# (rules and the tagger trained on A to J, after the changes made for J): 94.97 %, just under the
# 95 % the chat aims for; the rules alone 94.3 % (1614/1712), the reader from before this round
# (commit 9de3c6b) 93.8 % (1606/1713), so K is an easier set than J for every reader.
#
# Set L was written under the same brief by a writer who saw neither the rules nor any set, with
# more messages in other languages (about 25 of 332 in German, French, Spanish, Portuguese,
# Italian or Japanese, four wholly in Japanese) and more names written family name first. Scored
# once by the reader of commit 08a81d0 (rules and the tagger trained on A to K): 92.3 %, well under
# the 95 % the chat aims for; the rules alone 91.3 % (1730/1894).
#
# Set M was written at the same time as L, under the same brief, by another writer who saw neither
# the rules nor any set (some messages in Chinese as well), and kept unread while the changes made
# for L (names written family name first, brain areas in other languages) were made. Scored once by
# the reader of commit 342b715 (rules and the tagger trained on A to L): 94.1 %; the rules alone
# 92.6 % (1707/1844), the reader from before the changes made for L (commit 08a81d0) 93.4 %
# (1722/1844).
#
# Set N was written under the same brief by another writer who saw neither the rules nor any set
# (about 40 of its 333 messages partly or wholly in German, French, Spanish, Portuguese, Italian,
# Japanese, Chinese, Korean, Dutch, Polish, Turkish, Czech, Norwegian, Greek or Hungarian), and kept
# unread while the changes made for L and M (Japanese and Chinese messages, institutions after
# prepositions of other languages, animals in other languages, brain areas kept whole) were made.
# Scored once by the reader of commit 684ec17 (rules and the tagger trained on A to M): 91.3 %; the
# rules alone 90.0 % (1603/1781), the reader from before those changes (commit 49f19ba) 89.5 %
# (1594/1781), so N is the hardest set since I for every reader, and the changes carried +1.8 points.
#
# Set O was written under the same brief (told also to keep a city that is part of an institution's
# own name, "University of Texas at Austin", "IISER Pune") by a writer who saw neither the rules nor
# any set, while the reader was changed for N (names in Spanish, Hungarian and Singaporean order,
# campuses after "at", sex and age words in six more languages, taken-back institutions left
# unread), and kept unread until then. Scored once by the reader of commit 9b5f6aa (rules and the
# tagger trained on A to N): 91.0 %; the rules alone 89.7 % (1591/1773). The reader from before the
# changes for N (commit 684ec17) scores it 90.1 %, the one from before those for L and M (commit
# 49f19ba) 87.9 %: the two rounds carried +3.1 points to messages they were not made for.
#
# Set P was written under O's brief by another writer who saw neither the rules nor any set, while
# the reader was changed for N and O, and kept unread until then. Scored once by the reader of commit
# 0dfbc17 (rules and the tagger trained on A to O): 92.3 %; the rules alone 91.3 % (1598/1751), the
# reader from the start of the fourth round (commit 49f19ba) 90.6 % (1586/1751).
#
# Sets Q and R were written at the same time, by two writers who saw neither the rules nor any set,
# under one brief that also settled the conventions the earlier sets had disagreed on (a cortical
# layer written with the area stays in the location; an institution is stored without its
# departments, schools and city). Q was asked for more people with roles, first-person intros and
# institutions with their departments around them; R for terse, form-like messages, patch-clamp
# and imaging labs, unusual species and ages, start times and zones in words; both for about 30
# messages in other languages. The reader was changed first for classes seen in N to P (the
# writer beside another recorder, who only did the surgery, names in characters and Hangul,
# university parts), then Q was scored once, by the reader of commit 390b2ea (rules and the tagger
# trained on A to P): 88.1 %; the rules alone 86.5 % (1481/1712); the reader from the start of that
# round (commit 2840f8c) 87.3 % (1494/1712). Q was then opened and worked on (places taken for people,
# "and" in other languages, sex and ages in Korean, Swedish and Russian, locations), and R, kept
# unread until then, was scored once by the reader of commit 7ad4632: 88.9 %; the rules alone
# 87.6 % (1518/1732), the reader from the start of the round 86.0 % (1491/1733), so the round
# carried +2.9 points to a set it was not made for, and both sets are harder than any since I.
#
# Sets S and T were written at the same time, under the brief of Q and R (S asked for more people with
# roles, introductions and institutions wrapped in departments; T for terse forms, patch-clamp and
# imaging labs, unusual species and start times), by two writers who saw neither the rules nor any set.
# The reader was first changed for classes seen in Q and R (terse descriptions of comma parts); then S
# was scored once by the reader of commit c51f97f (rules and the tagger trained on A to R): 88.5 %; the
# rules alone 87.0 % (1390/1598), the reader from the start of that round (commit 9e240df) 88.5 %. Its
# gold had left out the species of 33 messages that name the animal in passing and the location of 3,
# against the brief; with those 36 entries corrected, the same reader scores 90.8 % (1451/1598). S was
# then opened and worked on (a PI who did not record, institutes of universities, a subject inside the
# description, other languages' introductions, labels and animals, names in characters), and T, kept
# unread until then, was scored once by the reader of commit 09c4ec8 (the tagger trained on A to S):
# 92.2 %; the rules alone 90.1 % (1458/1619), the reader from the start of the round 92.0 % (1493/1622).
# Five of T's golds had left out the species of patients, volunteers and a worm; corrected, 92.5 %.
#
# Sets U and V were written at the same time, by two writers who saw neither the rules nor any set,
# under a brief written again from the conventions above (U asked for chatty introductions, people
# with several roles and institutions wrapped in departments; V for terse, form-like messages,
# patch-clamp and imaging labs, unusual species, start times and corrections). That brief also named
# weight and genotype, which the portal does not ask for: those 31 entries of U were left out of the
# golds before any scoring. The reader was first changed for classes seen in S and T (a description
# the rules only guessed is redrawn where the tagger finds it); U was then scored once by the reader of
# commit b62e45d (rules and the tagger trained on A to T): 90.2 %; the rules alone 88.9 % (1619/1821),
# the reader from the start of that round (commit f468dd5) 90.1 % (1641/1822). U was then opened and
# worked on (words taken for a species, negations in other languages, zones from the places around a
# start time, roles of people who did not record, the university after its institute, where the
# electrodes sat), the tagger retrained on A to U, and V, kept unread until then (its 20 weight and
# genotype entries left out as U's were), was scored once by the reader of commit de18454: 92.8 %; the
# rules alone 91.1 % (1658/1819), the reader from the start of the round 92.5 % (1683/1819), so the
# round carried +0.3 points to a set it was not made for.
FIRST_RUN: dict[str, str] = {
    "A": "53.7% (699/1302)",
    "B": "82.0% (1008/1230)",
    "C": "92.1% (1705/1852)",
    "D": "85.0% (1392/1638)",
    "E": "81.8% (1360/1663)",
    "F": "86.2% (1508/1749)",
    "G": "88.9% (1261/1418)",
    "H": "91.9% (1576/1714)",
    "I": "90.1% (1552/1723)",
    "J": "94.8% (1621/1710)",
    "K": "94.97% (1624/1710)",
    "L": "92.3% (1750/1895)",
    "M": "94.1% (1735/1844)",
    "N": "91.3% (1626/1781)",
    "O": "91.0% (1613/1773)",
    "P": "92.3% (1616/1751)",
    "Q": "88.1% (1508/1712)",
    "R": "88.9% (1540/1732)",
    "S": "88.5% (1415/1598)",
    "T": "92.2% (1496/1622)",
    "U": "90.2% (1644/1822)",
    "V": "92.8% (1688/1819)",
}

# Fields added after the sets were written, whose value follows from what the gold already holds: an
# age "counted from fertilisation" ("6 dpf" → age P6D) stores age__reference "gestational" beside it.
NOT_IN_THE_SETS = frozenset({"age__reference"})
DEFAULT_TIMEZONE = "UTC"  # the zone a session has when neither the lab nor the message names one
_FREE_TEXT = frozenset({"experiment_description", "session_description", "location", "keywords"})
_CASELESS = frozenset({"institution", "strain", "lab"})
FREE_TEXT_SIMILARITY = 85  # rapidfuzz ratio (0-100) of the canonical forms


def stored_values(parsed: ParsedMessage, *, timezone: str = DEFAULT_TIMEZONE) -> dict[str, str | None]:
    """What the portal would store from `parsed`, each value as one string; None where the
    normalizer refuses the raw value (the user is told, nothing is stored)."""
    said_zone = parsed.timezone
    zone = said_zone or timezone
    values: dict[str, str | None] = {"timezone": said_zone} if said_zone else {}
    for name, raw in parsed.fields.items():
        if name not in FIELDS:
            values[name] = raw
            continue
        try:
            value: Any = normalize_field(name, raw, timezone=zone)
        except ValueError:
            values[name] = None
            continue
        if isinstance(value, list):
            value = ("; " if name == "experimenter" else ", ").join(value)
        values[name] = str(value)
    return values


def _canonical(text: str) -> str:
    text = re.sub(r"[^\w\s/+-]", " ", text.casefold())
    return " ".join(re.sub(r"^(the|a|an)\s+", "", " ".join(text.split())).split())


def same_value(name: str, found: str | None, expected: str) -> bool:
    if found is None:
        return False
    if name in _FREE_TEXT:
        return fuzz.ratio(_canonical(found), _canonical(expected)) >= FREE_TEXT_SIMILARITY
    if name in _CASELESS:
        return _canonical(found) == _canonical(expected)
    if name == "age" and found != expected:
        return _same_duration(found, expected)
    return found == expected


def _same_duration(found: str, expected: str) -> bool:
    """ "P10W3D" and "P73D" are one age, written two ways; ranges compare end by end."""
    try:
        return all(
            isodate.parse_duration(a) == isodate.parse_duration(b)
            for a, b in zip(found.split("/"), expected.split("/"), strict=True)
        )
    except (ValueError, isodate.ISO8601Error):
        return False


@dataclass
class Score:
    messages: int = 0
    expected: int = 0
    extra: int = 0
    right: int = 0
    exact_messages: int = 0
    misses: list[tuple[str, dict[str, str | None], dict[str, str]]] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        counted = self.expected + self.extra
        return self.right / counted if counted else 1.0

    def line(self) -> str:
        return (
            f"{self.right}/{self.expected + self.extra} = {self.accuracy:.1%} "
            f"({self.messages} messages, {self.expected} fields expected, {self.extra} extra, "
            f"{self.exact_messages} messages exact)"
        )


def score(entries: list[HeldOut], read: Callable[..., ParsedMessage] = parse_message) -> Score:
    """Right values / (expected values + values that should not be there), as field_accuracy counts;
    `read` is the reader scored (bench/train_tagger.py scores the rules alone too)."""
    result = Score()
    for text, asking, gold in entries:
        found = stored_values(read(text, asking_for=asking))
        right = sum(same_value(name, found.get(name), value) for name, value in gold.items())
        extra = len(set(found) - set(gold) - NOT_IN_THE_SETS)
        result.messages += 1
        result.expected += len(gold)
        result.extra += extra
        result.right += right
        if right == len(gold) and not extra:
            result.exact_messages += 1
        else:
            result.misses.append((text, found, gold))
    return result

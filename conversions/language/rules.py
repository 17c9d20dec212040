"""Rule-based reading of a chat message: what the user wants (intents) and which metadata they gave.

Pure Python: no Django, no I/O, no LLM. It is the fallback when no LLM is configured (seed 000,
"Fallback (No LLM)") and the fast path for answers to the question just asked (seed 001, layer 2:
an answer to the question just asked is taken as an answer). Values come out raw, only trimmed (a
pronoun for the animal's sex is the one exception: "she" comes out as F);
`conversions.nwb` normalises them ("mouse" → "Mus musculus", "Dr. Jane Smith" → "Smith, Jane").
The tables it reads with have modules of their own: the words it knows (`vocabulary`), the regular
expressions it cuts and classifies with (`patterns`), the labels of the fields (`labels`) and the
phrases of commands (`intents`).

How a message is read
---------------------
1. The text is cut into *chunks* at line breaks, ";" and sentence ends ("Dr." and "e.g." do not end
   a sentence).
2. In each chunk, *labels* are found: "experimenter: …", "Institution = …", "the lab is …",
   "recorded by …", "change the institution to …", "subject id mouse001", "started 2023-11-02 09:15".
   A labeled value runs to the next label or the end of the chunk, so it may contain commas
   ("Experimenter: Smith, Jane"), except that a comma part plainly about something else is cut off
   and read as unlabeled text ("experimenter: Jane Smith, MIT" → MIT is an institution; "description:
   V1, go ahead"). A labeled list (keywords, experimenters) goes on over ";" parts that have no label
   and are about nothing else ("Keywords: hippocampus; sleep").
3. The unlabeled rest is cut into *segments* at commas (never inside "March 15, 2024", "1,000" or
   parentheses), "|", tabs, spaced dashes, and a colon after a request or a heading ("Please convert
   this SpikeGLX run: Dr. Grace Hopper, …", "Here are the details: …"). A segment is a command ("go
   ahead", "don't cancel"), a refusal to answer ("skip the institution", "I don't know"), a question,
   noise (a file name, "it's SpikeGLX", a heading) or data; chatter in front of data ("actually it's",
   "I think", "by") is dropped.
4. Data is classified by content cues into *pieces*: dates, with the words that say what they date
   ("the session began on …", "born …"); subject terms (ages such as P90D or "8 weeks", sex words,
   species words, strains and crosses, ids such as mouse001, several in one segment: "female C57BL/6
   mouse"; "animal 4471" is the id 4471 and "mouse 5521" names the species too; a body weight and a
   preparation, "head-fixed", "awake", are passed over; "she"/"he" in front of the animal's age or
   species is its sex, read as F or M); a value named after it ("Peter Novak was the
   experimenter"); self-introductions ("Tom Baker here from Oxford", "Priya from the Allen
   Institute", "postdoc at Columbia" gives only the place); people named by what they did ("Peter
   Novak recorded it", "… in V1 by Lucas Martin"); a value with a parenthesised one of another kind
   ("Jane Smith (UCL)", "Dr. Kumar (IISc)"); "person at institution"; lab ("Smith Lab");
   institution (University, Institute…, a known name: MIT, UCL, Janelia…, or a short all-capitals
   name); person (a title, or two to four capitalised words);
   description (research words, or a longer phrase with lowercase words).
5. Pieces are assigned to fields (see the rules below).

Rules for ambiguous cases
-------------------------
- Cues are *hard* when the shape leaves no doubt (date, age, sex, species, strain, id, lab,
  institution, a person with a title) and *soft* otherwise (two capitalised words, a phrase).
- One field asked (one-by-one mode): the unlabeled answer is that field's value, commas included
  ("Smith, Jane"), as long as it fits the field's shape and no part of it has a hard cue for
  another field. "Jane Smith" asked for the institution is the institution (layer 2); "MIT" asked
  for the experimenter is the institution; "female" asked for the age is the sex.
- Several fields asked: each piece goes to the field its cue names (a still-asked one first);
  a piece without cue goes to the first still-asked field it fits, in the order asked. Adjacent
  pieces of the same free-text field are one value ("University of California, Berkeley").
- A labeled value beats an unlabeled one for the same field, and a correction beats both; among
  corrections the last wins; otherwise the first wins.
- Corrections: "change/set/update the X to Y", "X should be Y", "X is actually Y", and every value
  in or after a sentence with "actually", "sorry", "I meant", "instead", "wrong", a leading "no" or
  "yes but". A modification is PROVIDE_METADATA with `corrections`, never REJECT: the user is
  steering, not refusing.
- A bare "yes"/"ok"/"no" only counts (APPROVE/REJECT) when the message says nothing more specific:
  "yes, just finish it" is ACCEPT_AS_IS, "yes but change the lab to Smith Lab" and "no, it's
  Stanford" are corrections, "yes, Jane Smith" just provides metadata. Explicit approvals ("go
  ahead", "convert it", "looks good") always count: "Jane Smith, MIT. Go ahead." is
  PROVIDE_METADATA + APPROVE. "Just convert it, skip all the questions" is APPROVE + SKIP_ALL.
- Negation: an approval under negation ("don't convert", "doesn't look right") is REJECT; any other
  command under negation ("don't cancel", "no need to stop") is dropped, and the segment is still
  read as a command, not as data.
- Words common in descriptions ("stop", "start", "wait", "help", "again") are commands only when
  they make up the whole segment with filler words ("stop it please"), so "stop-signal task" is data.
- Refusals: "skip", "I don't know", "n/a" without a field name apply to the fields asked and not
  given in this message; "skip the subject" / "no subject info" mean subject_id, species, sex and
  age. "unknown" is a refusal, except as the answer to a question about the sex alone.
- A lone unlabeled phrase is a description only when a description was asked for or it corrects
  one ("actually it's a V1 recording"); otherwise it is chatter ("This keeps failing!").
- A part that only says what something is not ("a rat, not a mouse") gives no value, nor does the
  "not …" after a value ("P90 not P60", "experimenter should be Omar Haddad not Omar Hadad").
- A question that matches no command ("what formats do you support?") is HELP.
- GREETING is an opening with no request in it yet: "Hi", "I'd like to convert my data", "how do I
  start?". It counts only when the message asks nothing more specific (a format it names is kept):
  "Hi, Jane Smith, MIT" just provides metadata, "Hi, go ahead" approves. A wish to convert something
  pointed at ("I want to convert it now", "convert this run") approves.
- Recording systems: the last one named without "not" wins; "Convert recording.bin" names a file,
  not a field and not a format.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace
from dataclasses import field as dataclass_field
from functools import cache

from rapidfuzz import fuzz, process

from conversions.language import (
    brain_areas,
    east_asian,
    institutions,
    labels,
    patterns,
    people,
    prose,
    tagger,
    vocabulary,
)
from conversions.language.brain_areas import brain_area
from conversions.language.intents import INTENT_CUES, Intent, IntentCue
from conversions.language.subjects import SubjectMention, subject_mentions
from conversions.language.zones import ZoneMention, is_place, zone_mentions
from conversions.nwb.fields import FIELDS
from conversions.nwb.normalizers import (
    abbreviated_binomial,
    normalize_datetime,
    normalize_experimenter,
    normalize_species,
    plain_word,
    post_fertilisation_age,
    species_mentions,
)

# What the portal imports from here; Intent lives in `intents` and is given from here too.
__all__ = [
    "LEXICON",
    "TAGGER_REDRAWN",
    "Intent",
    "ParsedMessage",
    "parse_message",
    "read_by_rules",
    "runs_over_other_values",
]

_I = re.IGNORECASE


@dataclass(frozen=True)
class ParsedMessage:
    intents: frozenset[Intent]
    fields: dict[str, str]
    skipped: frozenset[str]
    format_choice: str | None
    corrections: frozenset[str]
    # Fields read from an unlabeled phrase only because it fits them ("Jane Smith" → experimenter,
    # a sentence → description), not stated by a label, a shape or a word saying what they are. The
    # orchestrator never lets such a guess replace a value already set without asking.
    guessed: frozenset[str] = dataclass_field(default=frozenset(), compare=False)
    # The time zone the message names in words ("Tokyo time", "timezone: Europe/Paris", "2pm PST"),
    # as an IANA name; `unclear_zone` holds the words when they name several ("IST") or the message
    # names more than one zone, so the portal asks instead of picking an offset.
    timezone: str | None = None
    unclear_zone: str | None = None
    # Fields the message gives two plausible values for ("recordings in rats and mice", "P45 … 3
    # months"): none is taken, and the portal asks which, naming both.
    choices: dict[str, tuple[str, ...]] = dataclass_field(default_factory=dict, compare=False)


# A run of spaces longer than a table's column gap says nothing more, and a 50 kB run of them made patterns
# with two spacing parts ("half past three", "X at Y") try every split of it: runs are kept to four spaces.
_SPACE_RUN_RE = re.compile(r" {5,}")
_SPACES_KEPT = " " * 4


def _prepared(text: str) -> str:
    """The text as the reader reads it: Japanese and Chinese punctuation and endings as Latin ones
    (conversions.language.east_asian), runs of spaces kept short."""
    return _SPACE_RUN_RE.sub(_SPACES_KEPT, east_asian.spaced(text))


def read_by_rules(text: str, *, asking_for: Sequence[str] = ()) -> ParsedMessage:
    """What the rules alone read in one message; `asking_for` lists the fields the portal's last
    question asked for.

    Before the chunks are read, the time zones and the subject ids the message names in running
    text ("…at 2:15pm Oslo time", "the slice came from mouse AB-12") are taken out of it (blanked,
    so every other value keeps its place) and added to what the reader finds; after it, the brain
    area and the species named in passing fill those fields when nothing else did.
    """
    text = _prepared(text)
    asked = tuple(dict.fromkeys(name for name in asking_for if name in FIELDS))
    zones = zone_mentions(text)
    subjects = [
        mention
        for mention in subject_mentions(text, vocabulary.NAME_STOPWORDS)
        if not any(mention.start < zone.end and zone.start < mention.end for zone in zones)
    ]
    if len({mention.subject_id for mention in subjects}) != 1:
        subjects = []  # none, or several: the reader sorts them out
    blanked = text
    spans: list[ZoneMention | SubjectMention] = [*zones, *subjects]
    for span in sorted(spans, key=lambda mention: mention.start, reverse=True):
        blanked = blanked[: span.start] + " " * (span.end - span.start) + blanked[span.end :]
    parsed = _MessageReader(blanked, asked).read()
    parsed = _with_subject(text, parsed, subjects)
    parsed = _with_zone(parsed, zones)
    parsed = _tidied(parsed, text)
    if parsed.intents & _NOT_ABOUT_THE_SUBJECT:  # "this keeps failing on the V1 file": no value in passing
        return parsed
    parsed = _with_prose(blanked, parsed, whole=text)
    parsed = _with_description(blanked, parsed, whole=text, subjects=[(m.start, m.end) for m in subjects])
    parsed = _with_the_sex_of_the_species(_with_age_reference(_with_species(text, _with_location(text, parsed))))
    return _without_the_strain_elsewhere(_without_the_contacts(parsed))


def _without_the_contacts(parsed: ParsedMessage) -> ParsedMessage:
    """A description without where the electrodes sat, said after it ("sEEG during a naming task,
    contacts in the left hippocampus"): that is the recording location, read on its own."""
    described = parsed.fields.get("experiment_description")
    if not described:
        return parsed
    kept = _CONTACTS_AT_END_RE.sub("", described)
    if kept == described:
        return parsed
    return replace(parsed, fields={**parsed.fields, "experiment_description": kept})


def _without_the_strain_elsewhere(parsed: ParsedMessage) -> ParsedMessage:
    """A strain read as a strain ("…, 8주령, SD") is not also the experimenter or the institution."""
    strain = parsed.fields.get("strain")
    taken = [name for name in ("experimenter", "institution", "lab") if strain and parsed.fields.get(name) == strain]
    if not taken:
        return parsed
    fields = {name: value for name, value in parsed.fields.items() if name not in taken}
    return replace(parsed, fields=fields, guessed=parsed.guessed - set(taken))


def parse_message(text: str, *, asking_for: Sequence[str] = ()) -> ParsedMessage:
    """Read one user message; `asking_for` lists the fields the portal's last question asked for.

    The rules read it first (`read_by_rules`); then the tagger (conversions.language.tagger), which
    sees the words and what the rules read, finds the spans of the fields a message names by its own
    words. A value the rules missed is taken from the tagger, as a guess (a guess fills an empty
    field or answers the question just asked, and never replaces a value already set without
    asking). A value the rules only guessed, for a field not asked (and not free text: a description
    or a recording location), goes when the tagger is sure its
    words are no such value, and the tagger's own span takes its place when the tagger is sure of it.
    A description the rules only guessed is redrawn where the tagger finds it. The tagger never
    changes a value the rules read from a label or a cue, nor another answer to the question asked,
    nor a correction.
    """
    text = _prepared(text)
    parsed = read_by_rules(text, asking_for=asking_for)
    if parsed.intents & _NOT_ABOUT_THE_SUBJECT or not tagger.available():
        return parsed
    return _without_the_contacts(_with_tagged_spans(text, tuple(name for name in asking_for if name in FIELDS), parsed))


# How sure a field's model must be of a span (its lowest label marginal) to add a value the rules did
# not find; how sure that the words of a value the rules only guessed are no such value, to drop that
# guess; and how sure of its own span, then, to put it in the guess's place. Chosen on held-out sets
# the models were not trained on (bench/train_tagger.py).
TAGGER_ADDS = 0.5
TAGGER_DOUBTS = 0.9
TAGGER_REPLACES = 0.7
# A description the rules only guessed (no label said where it starts and ends) is redrawn where the
# tagger, sure enough of a span of its own, finds it elsewhere in the message ("Rec by … @ University
# of Crete: whole-cell recordings …", "I ran the 2P acquisition for the Okonkwo lab: GCaMP8m imaging
# …"), unless that span runs over another field's value or leaves out words that describe. Tried
# with the readers of their first runs (and their models), this turned 4 of set S's descriptions and
# 9 of set T's right and none wrong; TAGGER_ADDS suited both sets better than 0.65 or 0.95.
TAGGER_REDRAWN = frozenset({"experiment_description"})
# Free text the tagger fills but never takes away: trained on the sets' long descriptions, its models
# may doubt a short one that is right ("V1 recording").
_TAGGER_KEEPS = frozenset({"experiment_description", "location"})


def _with_tagged_spans(text: str, asked: tuple[str, ...], parsed: ParsedMessage) -> ParsedMessage:
    words = tagger.tokens(text)
    rows = tagger.features(text, words, asked, parsed.fields, LEXICON)
    fields, guessed = dict(parsed.fields), set(parsed.guessed)
    tagged: dict[str, str] = {}
    for name, found in tagger.spans(text, words, rows).items():
        if name in parsed.skipped or name in parsed.corrections:
            continue
        current = fields.get(name)
        sure = [span for span in found.spans if span.confidence >= TAGGER_ADDS]
        value = _tagged_value(name, text, sure)
        best = max(sure, key=lambda span: span.confidence, default=None)
        if current is None:
            others = {other: read for other, read in fields.items() if other != name}
            if value is not None and (
                name not in _OTHER_VALUES or not runs_over_other_values(text, words, sure, others)
            ):
                tagged[name] = value  # not the "Smith" of "Smith Lab at MIT"
            continue
        if value is not None and _same_reading(name, current, value):
            continue
        if name in TAGGER_REDRAWN and name in parsed.guessed:
            if (
                value is not None
                and best is not None
                and not runs_over_other_values(text, words, [best], fields)
                and not _drops_what_describes(current, value)
            ):
                tagged[name] = value  # the question answered by other words of the message
            continue
        ranges = tagger.value_spans(text, words, name, current)
        if name not in parsed.guessed or name in asked or name in _TAGGER_KEEPS:
            continue
        if found.outside_of(words, ranges) < TAGGER_DOUBTS:
            continue
        # the rules only guessed this value, and the tagger is sure its words are no such value
        if value is not None and min(span.confidence for span in sure) >= TAGGER_REPLACES:
            tagged[name] = value
        else:
            del fields[name]
            guessed.discard(name)
    if tagged:
        tidied = _tidied(replace(parsed, fields=tagged, corrections=frozenset(), guessed=frozenset()), text)
        fields.update(tidied.fields)
        guessed |= set(tidied.fields)
    if fields == parsed.fields:
        return parsed
    intents = parsed.intents | {Intent.PROVIDE_METADATA} if fields else parsed.intents
    return replace(parsed, fields=fields, guessed=frozenset(guessed & set(fields)), intents=intents)


_OTHER_VALUES = ("experimenter", "institution", "lab", "subject_id")


def runs_over_other_values(
    text: str, words: list[tagger.Token], spans: list[tagger.Span], fields: dict[str, str]
) -> bool:
    """Whether spans run over words the rules read as a person, an institution, a lab or a subject id
    (a description redrawn as "MIT, V1 recording" from "Jane Smith, MIT, V1 recording"; the person
    "Smith" of "Smith Lab at MIT")."""
    return any(
        words[i].start < span.end and span.start < words[j - 1].end
        for span in spans
        for name in _OTHER_VALUES
        if name in fields
        for i, j in tagger.value_spans(text, words, name, fields[name])
    )


_SUBJECT_WORDS_RE = re.compile(
    rf"{prose._SEX_RE.pattern}|\d|\s{{3,}}|\b(?:adult|juvenile|old|young|aged?|years?|months?|weeks?|days?)\b", re.I
)


def _drops_what_describes(guess: str, redrawn: str) -> bool:
    """Whether a redrawn description inside the rules' guess leaves out words that describe: an
    end that is not about the subject ("…, theta sequences"; "…in a 5-week-old male" may go), or a
    start that names only the animals ("Zebra finch males, LFP in HVC", kept whole as a table test
    keeps it)."""
    at = guess.find(redrawn)
    if at < 0:
        return False  # found elsewhere in the message
    head, tail = guess[:at], guess[at + len(redrawn) :]
    if tail.strip(" ,.;:()") and not _SUBJECT_WORDS_RE.search(tail) and not species_mentions(tail):
        return True
    animals = species_mentions(head)
    left = head
    for mention in sorted(animals, key=lambda m: m.start, reverse=True):
        left = left[: mention.start] + left[mention.end :]
    return bool(animals) and not re.sub(r"[\W\d_]+|\b(?:males?|females?)\b", "", left, flags=re.I)


def _same_reading(name: str, current: str, value: str) -> bool:
    """Whether the tagger's value is the rules' one written otherwise: the same people joined or
    ordered otherwise ("Jane Smith and John Doe", "Zhou, Xin" read from "Zhou Xin (family name first)")."""
    if name != "experimenter":
        return current == value
    try:
        return {plain_word(person) for person in normalize_experimenter(current)} == {
            plain_word(person) for person in normalize_experimenter(value)
        }
    except ValueError:
        return False


def _tagged_value(name: str, text: str, spans: list[tagger.Span]) -> str | None:
    if not spans:
        return None
    if name == "experimenter":
        people_named = [_tidy_person(text[span.start : span.end]) for span in spans]
        return "; ".join(person for person in people_named if person) or None
    best = max(spans, key=lambda span: span.confidence)
    return text[best.start : best.end].strip() or None


def _with_prose(text: str, parsed: ParsedMessage, *, whole: str | None = None) -> ParsedMessage:
    """The start time, age and sex a message states inside its sentences (conversions.language.prose),
    for those of them the chunks did not give. A start time without a word saying it is the
    session's is a guess; an age or a sex word says what it is."""
    sentences = _chunks(text)
    said_ages = prose.ages(text, sentences)
    found = _stated_in_sentences(text, parsed, sentences, said_ages, whole=whole)
    fields, guessed = dict(parsed.fields), set(parsed.guessed)
    _take_whole_values(fields, found)
    crew = _take_recorders(text, parsed, fields, guessed)
    _take_writer(text, parsed, fields, guessed, crew)
    _take_institution(text, parsed, fields, guessed)
    start = found["session_start_time"]
    if start and "session_start_time" in fields and _unreadable_time(fields["session_start_time"]):
        del fields["session_start_time"]  # "Recording date: 10 Feb 2024, start 13:05": the sentence gives the time
    choices = dict(parsed.choices)
    age_values = tuple(dict.fromkeys(s.value for s in said_ages))
    if found["age"] is None and len(age_values) > 1 and "age" not in fields:
        choices["age"] = age_values  # "P45 … she was 3 months": asked, naming both
    skipped = set(parsed.skipped)
    if found["sex"] and found["sex"].value == "unknown":
        skipped.discard("sex")  # "we don't know the sex": not a refusal to answer, the answer
    for name, stated in found.items():
        if stated is None or name in fields or name in skipped:
            continue
        fields[name] = stated.value
        if not stated.cued:
            guessed.add(name)
    if fields == parsed.fields:
        return replace(parsed, choices=choices) if choices != parsed.choices else parsed
    return replace(
        parsed,
        fields=fields,
        guessed=frozenset(guessed),
        intents=parsed.intents | {Intent.PROVIDE_METADATA},
        choices=choices,
        skipped=frozenset(skipped),
    )


def _stated_in_sentences(
    text: str,
    parsed: ParsedMessage,
    sentences: list[tuple[int, int]],
    said_ages: list[prose.Stated],
    *,
    whole: str | None,
) -> dict[str, prose.Stated | None]:
    """Each field prose reads inside the message's sentences, None where they do not state it."""
    found = {
        "session_start_time": prose.start_time(text, sentences),
        "age": prose.one_age(said_ages),
        "sex": prose.sex(text) or (prose.sex(whole) if whole else None),  # "pt 031, 71F": "pt" is blanked
        "lab": prose.lab(text),
        "strain": _strain_in(text),
        "cell_id": prose.cell_id(text),
        "slice_id": prose.slice_id(text),
        "date_of_birth": prose.date_of_birth(text),
    }
    if found["age"] is None and "age" not in parsed.fields and not said_ages:
        found["age"] = prose.human_age(whole or text)  # "Participant ID: P2, male, 36."
    if found["lab"] and _NOT_A_LAB_NAME_RE.match(found["lab"].value):
        found["lab"] = None  # "Our lab manager said…"
    return found


def _take_whole_values(fields: dict[str, str], found: dict[str, prose.Stated | None]) -> None:
    """Where the chunks read a part of what a sentence states, the whole of it in `fields`."""
    age, read = found["age"], fields.get("age", "")
    if age and read and age.value != read and age.value.lower().startswith(read.lower()):
        fields["age"] = age.value  # "6 years 3 months": the whole age, not its first part
    strain, read = found["strain"], fields.get("strain", "")
    if strain and read and strain.value != read and strain.value.startswith(read):
        fields["strain"] = strain.value  # "Vglut2-Cre;Ai148": the cross, not its first line
    if found["date_of_birth"] and "date_of_birth" in fields and _unreadable_time(fields["date_of_birth"]):
        del fields["date_of_birth"]  # "born 14 March 2024, recorded at P60": the sentence gives the date


def _take_recorders(text: str, parsed: ParsedMessage, fields: dict[str, str], guessed: set[str]) -> people.Team | None:
    """The people the sentences say recorded (conversions.language.people), as the experimenter in
    `fields` where they say more than the chunks read; the team read, for the steps after."""
    crew = people.team(text, _vocabulary_word, vocabulary.FILLER_WORDS.__contains__)
    if crew and crew.experimenters and "experimenter" not in parsed.skipped:
        recorders = _family_first(text, "; ".join(crew.experimenters))
        if _takes_over(fields.get("experimenter"), "experimenter" in parsed.guessed, recorders, crew):
            fields["experimenter"] = recorders  # "My student Aisha Bello did the recordings"
        description = fields.get("experiment_description", "")
        if "experiment_description" in guessed and any(name in description for name in crew.named):
            del fields["experiment_description"]  # "Prof. A (PI) and B recorded together" describes no experiment
        if _people_in(fields.get("experimenter", "")) == _people_in(recorders):
            guessed.discard("experimenter")
    return crew


def _take_writer(
    text: str, parsed: ParsedMessage, fields: dict[str, str], guessed: set[str], crew: people.Team | None
) -> None:
    """The writer who names themself as the one who recorded ("I (Hana Novak) ran the rig"), as the
    experimenter in `fields` unless a value there is better or the team already says who recorded."""
    writer = prose.self_named(text)
    name = _tidy_person(writer.value) if writer else ""
    current = fields.get("experimenter")
    replaceable = current is None or "experimenter" in parsed.guessed or not _person(current)
    replaceable = replaceable and not (crew and crew.experimenters)  # the sentence's roles already read
    if name and (_person(name) or _plain_name(name)) and replaceable:
        fields["experimenter"] = name  # "I (Hana Novak) ran the rig"
        guessed.discard("experimenter")
        if writer and fields.get("experiment_description", "").startswith(writer.value):
            del fields["experiment_description"]  # "lucía fernández (i did the recordings)" describes no experiment


def _take_institution(text: str, parsed: ParsedMessage, fields: dict[str, str], guessed: set[str]) -> None:
    """The institution a sentence names, in `fields` where the chunks read none or a lesser one."""
    if "institution" not in parsed.skipped and not _is_organisation(fields.get("institution", "")):
        place = next(
            (p for p in map(_tidy_institution, prose.organisations(text)) if _is_organisation(p) and not is_place(p)),
            None,
        )
        if place and brain_area(place) is None:  # "I did all the recordings myself at Uni Freiburg"
            fields["institution"] = place
            guessed.discard("institution")
    named = _tidy_institution(institutions.named(text, _is_a_known_institution) or "")
    if named and "institution" not in parsed.skipped and _better_institution(fields.get("institution"), named):
        fields["institution"] = named  # "a lecturer at University of Lagos" (the chunks kept "Lagos")
        guessed.discard("institution")


def _tidied(parsed: ParsedMessage, text: str) -> ParsedMessage:
    """Names and institutions without the words around them that a sentence leaves on them:
    "Bonjour! Élodie Roux" → "Élodie Roux", "Tariq Khan who" → "Tariq Khan", "postdoc in Peking
    University" → "Peking University", "Charité in Berlin" → "Charité", "ISTA (Klosterneuburg)" →
    "ISTA"."""
    fields = dict(parsed.fields)
    if "experimenter" in fields:
        fields["experimenter"] = _family_first(text, _whole_given_name(_tidy_people(fields["experimenter"]), text))
    if "institution" in fields:
        fields["institution"] = _tidy_institution(_university_after_its_unit(text, fields["institution"]))
    if "strain" in fields:  # "C57BL/6N from Charles River": the vendor is not the strain
        fields["strain"] = re.sub(
            r"\s*\(?\s*(?:bought|purchased|ordered|obtained)?\s*from\s.*$", "", fields["strain"], flags=_I
        )
    for name in _DATE_FIELDS:  # "8:20 am ⎵⎵⎵ on 12 March 2024": where a zone was taken out
        if name in fields:
            fields[name] = re.sub(r"\s*\([^()\d]*\)$", "", " ".join(fields[name].split()))  # "… 9:05 Uhr (Berlin)"
    for name in ("sex", "age", "species", "subject_id"):
        if name in fields:
            fields[name] = _without_remark(fields[name], closed=name in ("sex", "age"))
    if "location" in fields:  # "The recording was in the left LGN", "left dorsal hippocampus, if you need it"
        fields["location"] = _LOCATION_AFTER_RE.sub("", _LOCATION_BEFORE_RE.sub("", fields["location"])).strip()
        fields["location"] = _KOREAN_PARTICLE_AT_END_RE.sub("", fields["location"])  # "해마에서" → "해마"
    if "lab" in fields and _NOT_A_LAB_NAME_RE.match(fields["lab"]):
        del fields["lab"]  # "Our lab manager said…", "I work in a rat lab": no lab's name
    if "subject_id" in fields:  # "Nr. 4711", "tag 4437", "band or12gr5": the word before the id is none of it
        fields["subject_id"] = _ID_WORD_BEFORE_RE.sub("", fields["subject_id"]) or fields["subject_id"]
    if "subject_id" in fields and not _may_be_an_id(fields["subject_id"]):
        del fields["subject_id"]  # "boy", "adult", "macho", "The animal": words, not an animal's id
    fields = {name: value for name, value in fields.items() if value}
    if fields == parsed.fields:
        return parsed
    return replace(
        parsed, fields=fields, corrections=parsed.corrections & set(fields), guessed=parsed.guessed & set(fields)
    )


# Where the electrodes sat, said after the experiment: the recording location, no part of the description.
_CONTACTS_AT_END_RE = re.compile(
    r"(?<=\w),\s+(?:with\s+)?(?:the\s+)?(?:contacts?|electrodes?|depth\s+electrodes|(?:subdural\s+)?grids?|strips?)"
    r"\s+(?:(?:were|was|are|is)\s+)?(?:in|on|over|into|at|across)\s+[^,;]+$",
    re.IGNORECASE,
)


def _without_remark(value: str, *, closed: bool) -> str:
    """A subject's value without the remark the writer put after it: one cut off at its comma ("unknown
    (forgot to check"), and, when `closed`, one after a dash or in parentheses ("unknown — we never
    sexed the larvae", "P34 (eyes opened ~P31)"); a species keeps its Latin name in parentheses."""
    kept = value
    if closed:
        kept = re.split(r"\s[—–-]\s", kept)[0].strip() or kept
    kept = re.sub(r"\s*\([^()]*$", "", kept).strip() or kept
    if closed:
        kept = re.sub(r"\s*\([^()]*\)$", "", kept).strip() or kept
    return kept


def _unreadable_time(raw: str) -> bool:
    try:
        normalize_datetime(raw, "UTC")
    except ValueError:
        return True
    return False


def _with_subject(text: str, parsed: ParsedMessage, subjects: list[SubjectMention]) -> ParsedMessage:
    """The subject id named in running text, unless the reader found a correction of it elsewhere."""
    corrected = parsed.fields.get("subject_id", "")
    if not subjects or ("subject_id" in parsed.corrections and _may_be_an_id(corrected)):
        return parsed  # "sorry it's so late" corrects no id
    first = subjects[0]
    correction = bool(
        patterns.CORRECTION_MARKER_RE.search(text, 0, first.start) or patterns.CORRECTING_START_RE.match(text)
    )
    fields = {**parsed.fields, "subject_id": first.subject_id}
    # "mouse AB-12" names the animal; "My advisor" of "My advisor, Prof. Levine … SM-23" does not, though
    # it has the shape of a binomial that normalize_species takes from a label
    if "species" not in fields and first.noun and species_mentions(first.noun) and _species_of(first.noun):
        fields["species"] = first.noun
    return replace(
        parsed,
        intents=parsed.intents | {Intent.PROVIDE_METADATA},
        fields=fields,
        skipped=parsed.skipped - {"subject_id"},
        corrections=parsed.corrections | ({"subject_id"} if correction else set()),
        guessed=parsed.guessed - {"subject_id"},
    )


def _with_zone(parsed: ParsedMessage, mentions: list[ZoneMention]) -> ParsedMessage:
    """The time zone the message names, or the words when they name several zones."""
    if not mentions:
        return parsed
    zones = list(dict.fromkeys(mention.zone for mention in mentions))
    if len(zones) == 1 and zones[0] is not None:
        timezone, unclear = zones[0], None
    else:
        timezone, unclear = None, " / ".join(dict.fromkeys(mention.said for mention in mentions))
    intents = parsed.intents | {Intent.PROVIDE_METADATA}
    if Intent.PROVIDE_METADATA not in parsed.intents:  # "timezone: Europe/Paris" alone answers nothing else
        intents -= {Intent.HELP, Intent.GREETING}
    return replace(parsed, intents=frozenset(intents), timezone=timezone, unclear_zone=unclear)


def _with_species(text: str, parsed: ParsedMessage) -> ParsedMessage:
    """The one species a message names in passing ("tetrodes in rats", "an epilepsy patient", "a
    C57BL/6J"), when no part of it was read as the species; outside names of people and places. A
    guess, like any unlabeled value: it fills an empty species, never replaces one."""
    # "can I talk to a human?" asks for help; it names no subject.
    if "species" in parsed.skipped or parsed.intents & _NOT_ABOUT_THE_SUBJECT:
        return parsed
    said = parsed.fields.get("species")
    if said and "species" not in parsed.corrections and _species_of(said) is None:
        reread = _with_species(text, replace(parsed, fields={k: v for k, v in parsed.fields.items() if k != "species"}))
        if "species" in reread.fields:  # "Camundongo CM-12, fêmea": the word read as the species was the sex
            return reread
    written = prose.binomial_in_prose(text, _vocabulary_word)
    person = parsed.fields.get("experimenter", "")
    if written and person and written.split()[0] == person.strip():  # "Lymnaea stagnalis, buccal ganglion …"
        parsed = replace(parsed, fields={k: v for k, v in parsed.fields.items() if k != "experimenter"})
    if "species" in parsed.fields:
        return _more_specific_species(text, parsed)
    for name in ("experimenter", "institution", "lab", "keywords"):
        value = parsed.fields.get(name)
        if value:
            text = text.replace(value, " " * len(value))
    mentions = species_mentions(text)
    named = list(dict.fromkeys(mention.species for mention in mentions))
    latin = prose.binomial(text)
    if latin and _species_of(latin):  # "bearded dragons (Pogona vitticeps)": the Latin name says which
        return replace(
            parsed,
            fields={**parsed.fields, "species": latin},
            intents=parsed.intents | {Intent.PROVIDE_METADATA},
        )
    if len(named) > 1:  # "recordings in rats and mice": asked, naming both
        return replace(parsed, choices={**parsed.choices, "species": tuple(named)})
    if not named:
        latin = abbreviated_binomial(text) or prose.binomial_in_prose(
            text, _vocabulary_word
        )  # "M. mulatta", "Hirudo …"
        if latin and _species_of(latin):  # "the stomatogastric ganglion of Cancer borealis"
            return replace(
                parsed,
                fields={**parsed.fields, "species": latin},
                guessed=parsed.guessed | {"species"},
                intents=parsed.intents | {Intent.PROVIDE_METADATA},
            )
        return parsed
    first = mentions[0]
    written = text[first.start : first.end]
    raw = written if _species_of(written) == first.species else first.name  # "minipigs" reads as "minipig"
    return replace(
        parsed,
        fields={**parsed.fields, "species": raw},
        guessed=parsed.guessed | {"species"},
        intents=parsed.intents | {Intent.PROVIDE_METADATA},
    )


# Messages that ask for something rather than tell: nothing they name in passing is a value.
_NOT_ABOUT_THE_SUBJECT = frozenset({Intent.HELP, Intent.REQUEST_HELP, Intent.FRUSTRATED, Intent.CANCEL, Intent.STATUS})


def _species_of(text: str) -> str | None:
    try:
        return normalize_species(text)
    except ValueError:
        return None


def _with_location(text: str, parsed: ParsedMessage) -> ParsedMessage:
    """A brain area named anywhere ("…tetrodes in dorsal CA1 of rats") is the recording location.
    Unless a label says so, it is a guess: it fills an empty location, never replaces one."""
    if "location" in parsed.fields or "location" in parsed.skipped:
        return parsed
    keywords = parsed.fields.get("keywords")
    area = brain_area(text.replace(keywords, " " * len(keywords)) if keywords else text)  # a keyword is a topic
    if area is None:
        return parsed
    return replace(
        parsed,
        fields={**parsed.fields, "location": area.text},
        intents=parsed.intents | {Intent.PROVIDE_METADATA},
        guessed=parsed.guessed | {"location"},
    )


# --- fields ---------------------------------------------------------------------------------------

_DESCRIPTION_FIELDS = ("experiment_description", "session_description")
# Free text: adjacent pieces of one of these fields join into one value.
_FREE_TEXT_FIELDS = frozenset({"experimenter", "institution", "lab", "keywords", *_DESCRIPTION_FIELDS})
_NAME_FIELDS = frozenset({"experimenter", "institution", "lab"})
# Fields whose labeled value may go on past ";" ("Keywords: hippocampus; sleep").
_LIST_FIELDS = frozenset({"experimenter", "keywords"})
_DATE_FIELDS = ("session_start_time", "date_of_birth")


# --- intents --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Command:
    intents: frozenset[Intent]
    bare: frozenset[Intent]


def _plain(text: str) -> str:
    """Lowercase with typographic apostrophes made plain, for matching intent and refusal phrases."""
    return text.lower().replace("’", "'").replace("‘", "'")


def _command(segment: str) -> _Command | None:
    """The intents of a segment that is a command, or None when the segment is not one."""
    plain = patterns.NO_NEED_RE.sub(" not ", patterns.POLITENESS_RE.sub(" ", _without_noise(_plain(segment))))
    hits: list[tuple[int, int, IntentCue]] = []
    for cue in INTENT_CUES:
        hits.extend((m.start(), m.end(), cue) for m in cue.pattern.finditer(plain))
    if not hits:
        return None
    # Longest first at each position; overlapping hits lose ("try again" is RETRY, not "again").
    hits.sort(key=lambda hit: (hit[0], hit[0] - hit[1]))
    kept: list[tuple[int, int, IntentCue]] = []
    for hit in hits:
        if not kept or hit[0] >= kept[-1][1]:
            kept.append(hit)
    words = [(m.start(), m.group()) for m in patterns.WORD_RE.finditer(plain)]
    positions = [pos for pos, _word in words]
    intents: set[Intent] = set()
    bare: set[Intent] = set()
    negated_from = len(plain)
    for start, _end, cue in reversed(kept):
        if start >= negated_from:
            continue  # this "no" negates a later command ("no don't cancel"): it is not a REJECT
        before = words[max(0, bisect_left(positions, start) - 3) : bisect_left(positions, start)]
        negator = next((pos for pos, word in before if word in vocabulary.NEGATORS), None)
        if negator is not None:
            negated_from = negator
            if cue.intent == Intent.APPROVE:
                intents.add(Intent.REJECT)  # "don't convert", "doesn't look right"
            continue
        (bare if cue.bare else intents).add(cue.intent)
    allowed = 0 if all(cue.alone for _start, _end, cue in kept) else 1
    if _content_words_outside(words, kept) > allowed:
        return None
    return _Command(frozenset(intents), frozenset(bare))


def _content_words_outside(words: list[tuple[int, str]], hits: list[tuple[int, int, IntentCue]]) -> int:
    """How many words that are neither filler nor negation lie outside the (sorted, disjoint) hits."""
    count = 0
    index = 0
    for pos, word in words:
        while index < len(hits) and hits[index][1] <= pos:
            index += 1
        inside = index < len(hits) and hits[index][0] <= pos
        if not inside and word not in vocabulary.FILLER_WORDS and word not in vocabulary.NEGATORS:
            count += 1
    return count


# --- refusals -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Refusal:
    fields: frozenset[str]  # named fields; with `rest`, also the asked fields not given
    rest: bool


def _refusal(segment: str) -> _Refusal | None:
    """A refusal to answer ("skip the age", "no idea", "n/a"), or None."""
    plain = _plain(segment)
    declines = [m.group() for m in patterns.DECLINE_RE.finditer(plain)]
    if not declines:
        return None
    remaining = patterns.DECLINE_RE.sub(" ", plain)
    named: set[str] = set()
    for m in labels.MENTION_RE.finditer(remaining):
        named.update(labels.MENTIONS[" ".join(m.group().split())])
    remaining = labels.MENTION_RE.sub(" ", remaining)
    leftover = [
        w
        for w in patterns.WORD_RE.findall(remaining)
        if w not in vocabulary.FILLER_WORDS and w not in vocabulary.REFUSAL_FILLER
    ]
    if leftover or (set(declines) == {"no"} and not named):
        return None
    rest = labels.REST in named or not named
    return _Refusal(frozenset(named - {labels.REST}), rest)


# --- noise: greetings, file names, format names ---------------------------------------------------


def _without_noise(text: str) -> str:
    """The text without file names and format names, which are never field values."""
    kept = " ".join(token for token in text.split() if not patterns.FILE_RE.search(token.rstrip(".,;:!?)")))
    return patterns.FORMAT_RE.sub(" ", kept)


def _format_mentions(segment: str) -> list[str]:
    """Recording systems the segment names, in order, leaving out negated ones ("not SpikeGLX")."""
    plain = _plain(segment)
    found = []
    files = [m.span() for m in re.finditer(r"\S+", plain) if patterns.FILE_RE.search(m.group().rstrip(".,;:!?)"))]
    for m in patterns.FORMAT_RE.finditer(plain):
        if any(start <= m.start() < end for start, end in files):
            continue
        before = patterns.WORD_RE.findall(plain[max(0, m.start() - 30) : m.start()])[-2:]
        if not vocabulary.NEGATORS.intersection(before):
            found.append(m.lastgroup or "")
    content = [w for w in patterns.WORD_RE.findall(_without_noise(plain)) if w not in vocabulary.FILLER_WORDS]
    if len(content) == 1 and content[0] in vocabulary.AMBIGUOUS_FORMAT_WORDS:
        found.append(vocabulary.AMBIGUOUS_FORMAT_WORDS[content[0]])
    return found


def _is_noise(segment: str) -> bool:
    words = patterns.WORD_RE.findall(_without_noise(_plain(segment)))
    return all(
        w in vocabulary.FILLER_WORDS
        or w in vocabulary.FORMAT_CONTEXT_WORDS
        or w in vocabulary.AMBIGUOUS_FORMAT_WORDS
        or w in vocabulary.NEGATORS
        for w in words
    )


_PREAMBLE_CHARS = 120


def _is_preamble(segment: str) -> bool:
    """Words before a colon that introduce what follows: a request ("Please convert this SpikeGLX
    run"), a greeting or a heading ("Here are the details")."""
    if not segment.strip():
        return False
    return bool(_command(segment)) or _is_heading(segment)


def _is_heading(segment: str) -> bool:
    words = patterns.WORD_RE.findall(_without_noise(_plain(segment)))
    return all(
        w in vocabulary.FILLER_WORDS
        or w in vocabulary.FORMAT_CONTEXT_WORDS
        or w in vocabulary.REFUSAL_FILLER
        or w in vocabulary.HEADINGS
        for w in words
    )


def _is_question(segment: str) -> bool:
    stripped = segment.strip()
    if stripped and set(stripped) == {"?"}:
        return True
    words = patterns.WORD_RE.findall(_plain(stripped))
    if not stripped.endswith("?") or not words:
        return False
    if " or " in f" {stripped.lower()} ":  # "the university or the lab?"
        return True
    # "what should I write here?", and its follow-up "just the technique?": asked, not answered.
    return words[0] in vocabulary.QUESTION_WORDS or not _classify_segment(stripped, 0, len(stripped))[0].hard


# --- content cues ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Piece:
    """A stretch of unlabeled data and the fields its content points to, preferred first."""

    start: int
    end: int
    fields: tuple[str, ...]
    hard: bool  # the cue is a shape that leaves no doubt, not a guess
    value: str | None = None  # what the piece says, when it is not its own text ("she" → F)


def _classify_segment(text: str, start: int, end: int) -> list[_Piece]:
    """Split one data segment into pieces by content cues (see the module docstring)."""
    value = text[start:end]
    date = _date(value)
    if date:
        offset, dates = date
        return [_Piece(start + offset, end, dates, hard=True)]
    terms = _subject_terms(value)
    if terms:
        return [_Piece(start + s, start + e, (name,), hard=True) for name, s, e in terms]
    named = _named_after(text, start, end) or _doer(text, start, end) or _aside(text, start, end)
    if named:
        return named
    affiliation = _affiliation(value)
    if affiliation:
        head_end, tail_start = affiliation
        role = patterns.ROLE_RE.fullmatch(value[:head_end].strip())  # "postdoc at Columbia" says only where
        return [
            *([] if role else _classify_segment(text, start, start + head_end)),
            _Piece(start + tail_start, end, ("institution",), hard=True),
        ]
    if _is_known_institution(value):
        return [_Piece(start, end, ("institution",), hard=True)]
    if is_place(value):  # "McGill University, Montreal": where it is, not a field of its own
        return [_Piece(start, end, (), hard=False)]
    if _is_lab(value):
        return [_Piece(start, end, ("lab",), hard=True)]
    if _is_institution(value):
        return [_Piece(start, end, ("institution",), hard=True)]
    if patterns.ACRONYM_RE.fullmatch(value) and not _vocabulary_word(value.lower()):
        return [_Piece(start, end, ("institution",), hard=False)]
    if written := east_asian.institution_name(value):  # "京都大学", "我是浙江大学"
        return [_Piece(start + written[0], start + written[1], ("institution",), hard=True)]
    if east_asian.romanised_name(value):  # "山田太郎（Yamada Taro）"
        return [_Piece(start, end, ("experimenter",), hard=True)]
    person = _person(value)
    if person:
        return [_Piece(start, end, ("experimenter",), hard=person == "titled")]
    if _is_description(value):
        return [_Piece(start, end, _DESCRIPTION_FIELDS, hard=False)]
    return [_Piece(start, end, (), hard=False)]


def _date(value: str) -> tuple[int, tuple[str, ...]] | None:
    """Where the date starts in a value that is one date after words saying what it dates, and the
    fields it may be."""
    prefix = patterns.DATE_PREFIX_RE.match(value)
    offset = prefix.end() if prefix else 0
    if not patterns.DATE_RE.fullmatch(value, offset):
        return None
    return offset, ("date_of_birth",) if patterns.BORN_RE.search(value, 0, offset) else _DATE_FIELDS


def _named_after(text: str, start: int, end: int) -> list[_Piece] | None:
    """ "Peter Novak was the experimenter": the value before "is/was the <label>"."""
    m = labels.REVERSE_LABEL_RE.search(text, start, end)
    if not m or m.start() <= start:
        return None
    field = labels.LABELS[" ".join(m.group("label").lower().split())].field
    head = _classify_segment(text, start, m.start())
    if any(piece.hard and field not in piece.fields for piece in head) or not _fits(field, text[start : m.start()]):
        return None
    return [_Piece(start, m.start(), (field,), hard=True)]


def _doer(text: str, start: int, end: int) -> list[_Piece] | None:
    """ "Peter Novak recorded it", "Hao Li from Peking University did the recordings": the experimenter
    (and the institution) of a sentence whose verb says who did the work."""
    m = patterns.DOER_RE.search(text, start, end)
    if not m or m.start() <= start:
        return None
    place = m.group("place")
    if place and not _is_affiliation(place.strip()):
        return None
    pieces = _people(text, start, m.start())
    if pieces is None:
        return None
    if place:
        pieces.append(_Piece(m.start("place"), end, ("institution",), hard=True))
    return pieces


def _aside(text: str, start: int, end: int) -> list[_Piece] | None:
    """A description followed by who did it ("… in awake mice by Lucas Martin"), or any value
    followed by a parenthesised one of another kind ("Jane Smith (MIT)")."""
    value = text[start:end]
    if value.endswith(")") and "(" in value:
        opening = start + value.rfind("(")
        inner = _classify_segment(text, opening + 1, end - 1)
        head_start, head_end = _trim(text, start, opening)
        if opening > start and _person(text[head_start:head_end]) and _is_affiliation(text[opening + 1 : end - 1]):
            inner = [_Piece(opening + 1, end - 1, ("institution",), hard=True)]
        if opening > start and inner and all(piece.hard and piece.fields for piece in inner):
            return _classify_segment(text, head_start, head_end) + inner
        return None
    by = max(patterns.BY_RE.finditer(text, start, end), key=lambda m: m.start(), default=None)  # the last "by"
    if by is None or not _is_description(text[start : by.start()]):
        return None
    people = _people(text, by.end(), end)
    if people is None:
        return None
    return [_Piece(start, by.start(), _DESCRIPTION_FIELDS, hard=False), *people]


def _people(text: str, start: int, end: int) -> list[_Piece] | None:
    """People named in `start:end`, maybe with their institution ("Hao Li from Peking University"),
    as certain experimenter (and institution) pieces; None when it names nobody."""
    value = text[start:end]
    affiliation = _affiliation(value)
    name_end = start + affiliation[0] if affiliation else end
    name = text[start:name_end]
    if not (_person(name) or _plain_name(name)):
        return None
    pieces = [_Piece(start, name_end, ("experimenter",), hard=True)]
    if affiliation:
        pieces.append(_Piece(start + affiliation[1], end, ("institution",), hard=True))
    return pieces


def _vocabulary_word(word: str) -> bool:
    """Whether a lowercase word has a meaning of its own here, so it names no one and nothing."""
    return (
        word in vocabulary.FILLER_WORDS
        or word in vocabulary.NOT_NAMES
        or word in vocabulary.DESCRIPTION_WORDS
        or word in vocabulary.BRAIN_AREAS
        or word in vocabulary.SPECIES_WORDS
        or word in vocabulary.INSTITUTION_WORDS
        or word in vocabulary.NEGATORS
    )


def _plain_name(value: str) -> bool:
    """Where a name is expected: "peter novak" (two or three words), "Smith" (one, capitalised), none
    of them a known word."""
    words = value.split()
    if len(words) == 1 and not words[0][:1].isupper():
        return False
    return 1 <= len(words) <= 3 and all(
        word.replace("-", "").replace("'", "").isalpha() and not _vocabulary_word(word.lower()) for word in words
    )


def _subject_terms(value: str) -> list[tuple[str, int, int]]:
    """Ages, sex, species, strains and ids making up the whole value ("a 90-day-old male mouse")."""
    terms: list[tuple[str, int, int]] = []
    pos = 0
    while True:
        gap = patterns.TERM_GAP_RE.match(value, pos)
        pos = gap.end() if gap else pos
        if pos >= len(value):
            return terms
        m = patterns.SUBJECT_TERM_RE.match(value, pos)
        if not m or (m.lastgroup == "subject_id" and m.group().lower() in vocabulary.BRAIN_AREAS):
            return []
        if m.group("id_value"):
            if patterns.SPECIES_RE.fullmatch(m.group("id_word")):
                terms.append(("species", m.start("id_word"), m.end("id_word")))
            terms.append(("subject_id", m.start("id_value"), m.end("id_value")))
        elif m.lastgroup not in ("filler", "weight"):
            terms.append((m.lastgroup or "", m.start(), m.end()))
        pos = m.end()


def _affiliation(value: str) -> tuple[int, int] | None:
    """Where "<person or lab> at/from/of <institution>" splits, as (end of head, start of tail)."""
    if len(value.split()) > 12:
        return None
    for m in patterns.AFFILIATION_RE.finditer(value):
        here = patterns.HERE_RE.search(value, 0, m.start())  # "Tom Baker here from Oxford" introduces oneself
        head_end = here.start() if here else m.start()
        head, tail = value[:head_end], value[m.end() :]
        if (_person(head) or _is_lab(head)) and _is_affiliation(tail):
            return head_end, m.end()
        # A first name alone ("Priya from the Allen Institute") or a role ("postdoc at Columbia").
        named_place = _is_known_institution(tail) or _is_institution(tail)
        role = patterns.ROLE_RE.fullmatch(head.strip())  # after a role, any name is the place: "doing my PhD at NCBS"
        if (named_place and _first_name(head)) or (role and (named_place or _is_affiliation(tail))):
            return head_end, m.end()
    return None


def _first_name(value: str) -> bool:
    """One word that may be a name: letters only, and no word with a meaning of its own here."""
    words = value.split()
    return len(words) == 1 and words[0].replace("-", "").isalpha() and not _vocabulary_word(words[0].lower())


def _is_affiliation(value: str) -> bool:
    """After "<person> at", an institution: a known or keyworded one, or a capitalised name ("Duke")."""
    words = value.split()
    capitalised = 0 < len(words) <= 5 and all(w[0].isupper() or w.lower() in vocabulary.NAME_PARTICLES for w in words)
    return capitalised or _is_known_institution(value) or _is_institution(value)


def _without_article(value: str) -> list[str]:
    words = patterns.WORD_RE.findall(value.lower())
    return words[1:] if words[:1] == ["the"] else words


def _is_known_institution(value: str) -> bool:
    words = _without_article(value)
    if not words or len(words) > 8:
        return False
    if " ".join(words) in vocabulary.KNOWN_INSTITUTIONS or words[0] in vocabulary.KNOWN_INSTITUTIONS:
        return True
    joined = f" {' '.join(words)} "
    return any(f" {name} " in joined for name in vocabulary.KNOWN_INSTITUTIONS if " " in name)


def _is_lab(value: str) -> bool:
    words = _without_article(value)
    if len(words) > 6 or vocabulary.DESCRIPTION_WORDS.intersection(words):
        return False
    lab_of = patterns.LAB_OF_RE.fullmatch(value.strip())
    return bool(patterns.LAB_RE.fullmatch(value.strip()) or (lab_of and _person(lab_of.group("person"))))


def _is_institution(value: str) -> bool:
    words = _without_article(value)
    return (
        0 < len(words) <= 10
        and bool(vocabulary.INSTITUTION_WORDS.intersection(words))
        and not vocabulary.DESCRIPTION_WORDS.intersection(words)
    )


def _person(value: str) -> str | None:
    """Whether the value names people: "titled" (Dr. Smith), "plain" (Zoë Müller) or None; "and" lists too."""
    people = re.split(r"\s+(?:and|&)\s+|\s*,\s*", value.strip())
    kinds = [_one_person(person) for person in people]
    if not all(kinds):
        return None
    return "titled" if "titled" in kinds else "plain"


def _one_person(value: str) -> str | None:
    tokens = value.split()
    titled = bool(tokens) and tokens[0].lower().rstrip(".") in vocabulary.TITLES
    names = tokens[1:] if titled else tokens
    if not names or len(names) > 5:
        return None
    capitalised = 0
    for token in names:
        bare = token.rstrip(".,")
        lowered = bare.lower()
        if lowered in vocabulary.NAME_PARTICLES and not (bare[:1].isupper() and capitalised):
            continue  # "van der Berg"; but "Priyanka Das", "Pedro De Souza": a capitalised name word
        if not bare or not all(ch.isalpha() or ch in "'’-." for ch in bare):
            return None
        if (
            lowered in vocabulary.DESCRIPTION_WORDS
            or lowered in vocabulary.SPECIES_WORDS
            or lowered in vocabulary.INSTITUTION_WORDS
        ):
            return None
        if lowered in vocabulary.BRAIN_AREAS and len(lowered) > 5:  # "Inferior Colliculus"; not "Field", "Stria"
            return None
        initial = len(bare.rstrip(".")) == 1
        if not titled and not (bare[0].isupper() and (initial or any(ch.islower() for ch in bare))):
            return None
        capitalised += 1
    if titled:
        return "titled" if capitalised else None
    return "plain" if capitalised >= 2 else None


def _is_description(value: str) -> bool:
    words = patterns.WORD_RE.findall(value)
    lowered = [w.lower() for w in words]
    if any(
        w in vocabulary.DESCRIPTION_WORDS or w in vocabulary.BRAIN_AREAS or w in vocabulary.SPECIES_WORDS
        for w in lowered
    ):
        return True
    if any(w.islower() and len(w) >= 5 and w.endswith(("ing", "ed")) for w in words):
        return True
    return len(words) >= 3 and any(w.isalpha() and w.islower() and w not in vocabulary.NAME_PARTICLES for w in words)


def _fits(field: str, value: str) -> bool:
    """Whether the value has the shape of the field at all, so an answer may be taken for it."""
    words = value.split()
    has_digit = any(ch.isdigit() for ch in value)
    match field:
        case "experimenter":  # "a student recorded it" names no one; nor does "rest later"
            return (
                not has_digit
                and len(words) <= 8
                and not patterns.DOER_RE.search(value)
                and not all(_vocabulary_word(word.lower().strip(",.!?")) for word in words)
            )
        case "institution" | "lab":
            return len(words) <= 12
        case "subject_id":
            return len(words) <= 3
        case "species":
            return not has_digit and len(words) <= 4
        case "strain":
            return len(words) <= 4
        case "sex":
            return bool(patterns.SEX_VALUE_RE.fullmatch(value.strip()))
        case "age":
            return bool(patterns.AGE_RE.fullmatch(value.strip()))
        case "session_start_time" | "date_of_birth":
            return has_digit or bool(
                vocabulary.DATE_WORDS.intersection(w.lower() for w in patterns.WORD_RE.findall(value))
            )
        case _:
            return True


# The shape of a value that follows its label without separator ("age P60 female" → P60).
_SHAPES = {
    "age": patterns.AGE_RE,
    "sex": patterns.SEX_RE,
    "species": patterns.SPECIES_RE,
    "session_start_time": patterns.DATE_RE,
    "date_of_birth": patterns.DATE_RE,
    "subject_id": patterns.TOKEN_RE,
    "strain": patterns.TOKEN_RE,
}


def _shaped_end(field: str, text: str, start: int, end: int) -> int | None:
    """Where a value of a shaped field that starts at `start` ends, or None for other fields."""
    pattern = _SHAPES.get(field)
    if pattern is None:
        return None
    m = pattern.match(text, start, end)
    return m.end() if m and m.end() > start else None


# --- spans ----------------------------------------------------------------------------------------


def _ends_with_abbreviation(text: str, start: int, dot: int) -> bool:
    words = text[max(start, dot - 12) : dot].split()
    if not words:
        return False
    word = words[-1].lower().lstrip("([\"'")  # "(O. vulgaris)"
    return word in vocabulary.ABBREVIATIONS or (len(word) == 1 and word.isalpha())


def _trim(text: str, start: int, end: int, *, keep: str = "") -> tuple[int, int]:
    """The span without surrounding spaces, quotes, bullets and punctuation (keeping "Dr.", and `keep`)."""
    while start < end and (text[start].isspace() or text[start] in "\"'“”‘’`*•-–—:;,.!|/\\~@"):
        start += 1
    while end > start:
        ch = text[end - 1]
        if ch in keep:
            break
        if (
            ch.isspace()
            or ch in "\"'“”‘’`*•:;,!?|/\\"
            or (unicodedata.category(ch) == "So" and end - 1 > start)  # "Columbia 🙂", but "👍" stays
            or (ch == "." and not _ends_with_abbreviation(text, start, end - 1))
        ):
            end -= 1
        else:
            break
    return start, end


def _strip_trailing_words(text: str, start: int, end: int, words: frozenset[str]) -> int:
    """`end` moved back over trailing words from `words` ("Jane Smith and the" → "Jane Smith")."""
    while True:
        start, end = _trim(text, start, end)
        cut = max(text.rfind(" ", start, end), text.rfind(",", start, end))
        if cut < start or text[cut + 1 : end].lower() not in words:
            return end
        end = cut


def _chunks(text: str) -> list[tuple[int, int]]:
    spans = []
    start = 0
    for m in patterns.CHUNK_END_RE.finditer(text):
        if m.group().startswith(".") and _ends_with_abbreviation(text, start, m.start()):
            continue
        if m.group() in _BARS:
            if not _bar_inside_a_part(text, start, m.start()):
                spans.append((start, m.start()))  # the bar belongs to neither part
                start = m.end()
            continue
        if (
            m.group() == "."
            and patterns.GERMAN_DAY_RE.search(text, 0, m.start())
            and patterns.MONTH_NEXT_RE.match(text, m.end())
        ):
            continue  # "am 7. Mai 2024": a German day of the month, not a sentence's end
        spans.append((start, m.end()))
        start = m.end()
    spans.append((start, len(text)))
    return [(s, e) for s, e in spans if text[s:e].strip()]


_BARS = frozenset("|·•")


def _bar_inside_a_part(text: str, start: int, at: int) -> bool:
    """Whether a bar at `at` sets a label off from its value ("Experimenter | Ingrid Aas") or is a
    cell of a table ("| experimenter | Keiko Sato |"), where it ends no part of the message."""
    line = text[text.rfind("\n", 0, at) + 1 :].lstrip()
    before = text[start:at].strip(" |·•").lower()
    return line.startswith("|") or before.rstrip(":") in labels.LABELS


def _segments(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """Comma (or "|", tab, spaced dash) separated parts of an unlabeled span, not cutting "March 15, 2024";
    and a request or a heading before a colon ("Please convert this run: Dr. Grace Hopper, …")."""
    protected: set[int] = set()
    for pattern in (patterns.DATE_RE, patterns.THOUSANDS_RE, patterns.PARENTHESES_RE):  # "m05 (female, P45)" too
        for m in pattern.finditer(text, start, end):
            protected.update(i for i in range(m.start(), m.end()) if text[i] == ",")
    spans = []
    for m in patterns.SEGMENT_END_RE.finditer(text, start, end):
        # A preamble is short: a long text before a colon is not one, and is not read again.
        if m.group() == ":" and (m.start() - start > _PREAMBLE_CHARS or not _is_preamble(text[start : m.start()])):
            continue
        if m.start() not in protected and not _dash_inside_name(text, start, m):
            spans.append((start, m.start()))
            start = m.end()
    spans.append((start, end))
    # "?" stays: it tells a question from data.
    return [span for s, e in spans if (span := _trim(text, s, e, keep="?"))[0] < span[1]]


def _dash_inside_name(text: str, start: int, separator: re.Match[str]) -> bool:
    """A spaced dash between a known institution and a word of an institution's name is part of the
    name: "Charité – Universitätsmedizin Berlin"; "MIT - Jane Smith" is two parts."""
    if separator.group().strip() not in "–—":
        return False
    after = _NAME_PART_AFTER_DASH_RE.match(text, separator.end())
    return bool(after) and _is_known_institution(text[start : separator.start()].strip())


# The first word after the dash holds an institution word, alone or in a compound ("Universitätsmedizin").
_NAME_PART_AFTER_DASH_RE = re.compile(r"(?=[A-ZÀ-Þ])\w*?(?:[Uu]niversit|[Ii]nstitut|[Kk]linik|[Hh]ospital|[Cc]ollege)")


# --- labels ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _LabelMatch:
    start: int  # where the label, with its verb and article, starts
    value_start: int
    label: labels.Label
    separator: str  # "strict", "copula", "to", "phrase" or "none"
    correction: bool
    opens_part: bool  # the label starts the chunk or a comma part ("…, institution KAUST")


@dataclass
class _Value:
    field: str
    start: int
    end: int
    labeled: bool
    correction: bool = False
    value: str | None = None  # the piece's `value`, when it is not the text itself
    guessed: bool = False  # from a soft cue: the phrase only fits the field
    leads: bool = False  # labeled as the lab's head ("PI: …"), not as who recorded


@cache
def _label_for(phrase: str) -> labels.Label | None:
    """The label a phrase is, or a slip of ("expirementer", "instution", "sepcies"): rapidfuzz's
    ratio against every label of five letters or more, 85 or better. None when it is no label."""
    key = " ".join(phrase.lower().split())
    if key in labels.LABELS:
        return labels.LABELS[key]
    if len(key) < 5:
        return None
    close = process.extractOne(key, _LONG_LABELS, scorer=fuzz.ratio, score_cutoff=85)
    return labels.LABELS[close[0]] if close else None


_LONG_LABELS = [phrase for phrase in labels.LABELS if len(phrase) >= 5]


# What follows "exp": up to the end of its sentence, part or the next label.
_EXP_VALUE_RE = re.compile(r"\s*[:=]?\s*(?P<value>[^|;\n]*?)(?=[.!?](?:\s|$)|[|;\n]|\s//?\s|,\s*\w+\s*[:=]|$)")


def _label_match(text: str, m: re.Match[str], start: int, end: int) -> _LabelMatch | None:
    """The label found by `m` in the chunk `start:end`, if a separator that this label allows follows it."""
    found = _label_for(m.group("label"))
    if found is None:
        return None
    label = found
    if m.group("label").lower() in ("exp", "exp.", "expt"):
        said = _EXP_VALUE_RE.match(text, m.end(), end)
        first = re.split(r",|\s(?:and|&|\+)\s", said["value"])[0].strip() if said else ""
        if (
            said
            and (_names_a_method(said["value"]) or _describes_experiment(said["value"]))
            and not (_person(first) or _plain_name(first))
        ):
            label = labels.LABELS["experiment"]  # "exp = Neuropixels in mouse insular cortex": the experiment, not who
    verb = bool(m.group("verb"))
    before = m.start() - 1
    while before >= start and text[before].isspace():
        before -= 1
    opens_part = before < start or text[before] in ",|"
    # The request before a label is short; looking further back made a long message without commas
    # quadratic ("Tanaka name Tanaka name …" took 85 s for 48 kB).
    request_start = max(_part_start(text, start, m.start()), m.start() - _PREAMBLE_CHARS)
    if label.intro == labels.Intro.STRICT and not opens_part and _command(text[request_start : m.start()]):
        return None  # "Can you convert this Open Ephys session: …": the word belongs to the request
    if label.intro == labels.Intro.PHRASE:
        return _LabelMatch(m.start(), m.end(), label, "phrase", verb, opens_part)
    sep = labels.SEPARATOR_RE.match(text, m.end(), end)
    if sep and sep.group("strict"):
        return _LabelMatch(m.start(), sep.end(), label, "strict", verb, opens_part)
    if sep and sep.group("copula") and label.intro in (labels.Intro.COPULA, labels.Intro.LOOSE):
        correction = verb or " " in sep.group("copula").strip()  # "is actually", "should be"
        return _LabelMatch(m.start(), sep.end(), label, "copula", correction, opens_part)
    if sep and sep.group("to") and verb:
        return _LabelMatch(m.start(), sep.end(), label, "to", True, opens_part)
    if label.intro == labels.Intro.LOOSE and m.end() < end and text[m.end()].isspace():
        return _LabelMatch(m.start(), m.end() + 1, label, "none", verb, opens_part)
    return None


def _part_start(text: str, start: int, position: int) -> int:
    """Where the comma part holding `position` starts, within a chunk starting at `start`."""
    return max(text.rfind(",", start, position), text.rfind("|", start, position), start - 1) + 1


def _is_declined(field: str, value: str) -> bool:
    value = re.sub(r"\s*\([^()]*\)?\s*$", "", value.strip())  # "N/A (it was an automated rig)"
    if field == "sex" and patterns.SEX_VALUE_RE.fullmatch(value):
        return False
    return bool(patterns.DECLINED_VALUE_RE.fullmatch(value))


def _accepts(match: _LabelMatch, text: str, start: int, end: int) -> bool:
    """Whether the value after a label is really that field's value."""
    field = match.label.field
    if start >= end:
        return False
    if match.separator in ("strict", "to") and not match.label.generic:
        return True
    if _is_declined(field, text[start:end]):
        return match.separator != "none"
    if match.separator in ("copula", "none") and field in _FREE_TEXT_FIELDS and _judges(text, start, end):
        return False  # "the description is too short", "is the institution right?": a remark, not a value
    if field == "experimenter" and match.separator in ("copula", "none") and _DOING_RE.match(text, start, end):
        return False  # "my PI is calling", "this is taking forever": what someone is doing, not who
    pieces = _classify_segment(text, start, end)
    if any(piece.hard and field not in piece.fields for piece in pieces):
        return False  # "subject: rat R7" names a species too: read it as unlabeled data
    if any(field in piece.fields for piece in pieces):
        return True
    if field == "experimenter" and match.label.needs_cue and _person(_tidy_person(text[start:end])):
        return True  # "made by our postdoc Tomas Berg"
    if match.label.needs_cue or (match.separator == "none" and not match.opens_part):
        return False
    return _fits(field, text[start:end])


_DOING_RE = re.compile(r"\s*[a-z]{3,}ing\b")
# A person introduced with a role that is not recording: "Isabelle Roy, the PI", "Dr. Sam Foster, postdoc,
# just uploading".
_LEAD_ROLE_RE = re.compile(
    r"(?:,|\()\s*(?:the\s+|his\s+|her\s+|their\s+|our\s+)?(?:pi|supervisor|lab\s+manager|lab\s+head|head\s+of)\b"
    r"|just\s+upload",
    _I,
)
_JUDGEMENT_RE = re.compile(
    r"(?:too|quite|very|so|ok|okay|fine|wrong|right|correct|good|great|short|long|missing|empty|not|still|probably"
    r"|already|enough)(?![\w'])",
    _I,
)


def _judges(text: str, start: int, end: int) -> bool:
    """Whether what follows "the <field> is" judges the value or asks about it, instead of giving it."""
    return (
        bool(_JUDGEMENT_RE.match(text, start))
        or text[start:end].rstrip().endswith("?")
        or (_about_the_conversation(text[start:end]))
    )


def _is_elsewhere(field: str, text: str, start: int, end: int) -> bool:
    """Whether a comma part after a labeled value is plainly not part of it."""
    start, end = _trim(text, start, end)
    if start >= end:
        return False
    if _command(text[start:end]) or _refusal(text[start:end]):
        return True
    if field == "keywords":
        return False
    remark = _PARENTHESIS_AT_END_RE.search(text, start, end)  # "Liu Yang (family names first)"
    if remark and remark.start() > start:
        end = remark.start()
    pieces = _classify_segment(text, start, end)
    if any(piece.hard and piece.fields and field not in piece.fields for piece in pieces):
        return True
    return field in _NAME_FIELDS and any(piece.fields and field not in piece.fields for piece in pieces)


def _cut_value(field: str, text: str, start: int, end: int) -> tuple[int, int]:
    """Where a labeled value really ends, and where the unlabeled text after it starts."""
    splits = list(patterns.VALUE_SPLIT_RE.finditer(text, start, end))
    next_comma = end
    tail_ends = []  # for each split, where the comma part it opens ends
    for m in reversed(splits):
        tail_ends.append(next_comma)
        if m.group() == ",":
            next_comma = m.start()
    tail_ends.reverse()
    for index, m in enumerate(splits):
        if text.count("(", start, m.start()) > text.count(")", start, m.start()):
            continue  # "Jannik Peters (University of Oldenburg)": not inside the parentheses
        following = splits[index + 1].start() if index + 1 < len(splits) else end
        word = (m.group("word") or ",").lower()
        tail_end = tail_ends[index]
        if word in ("at", "from", "@", "of"):
            tail = text[m.end() : tail_end]
            if field in ("experimenter", "lab") and _is_affiliation(tail):
                return m.start(), m.end()
        elif word == "by":
            if field == "institution" and _person(text[m.end() : tail_end]):
                return m.start(), m.end()
        elif word in ("and", "&") and field == "institution" and _is_institution(text[start : m.start()]):
            if _person(text[m.end() : following]) != "titled":
                continue  # "Indian Institute of Science Education and Research Pune" is one name
        elif _is_elsewhere(field, text, m.end(), following):
            return m.start(), m.end()
    return end, end


def _labeled_fields(text: str, start: int, end: int) -> tuple[list[_Value], set[str], list[tuple[int, int]]]:
    """Labeled values in one chunk, the fields declined by value ("age: unknown"), the unlabeled spans."""
    matches = [lm for m in labels.LABEL_RE.finditer(text, start, end) if (lm := _label_match(text, m, start, end))]
    # A label is judged by its value up to the next label; a rejected one ("the effect of age on V1")
    # then stays inside the previous value.
    accepted = [
        match
        for match, limit in zip(matches, _limits(matches, end), strict=True)
        if _accepts(match, text, *_value_span(match, text, limit)[:2])
    ]
    values: list[_Value] = []
    declined: set[str] = set()
    unlabeled = [(start, accepted[0].start if accepted else end)]
    for match, limit in zip(accepted, _limits(accepted, end), strict=True):
        value_start, value_end, rest_start = _value_span(match, text, limit)
        if _is_declined(match.label.field, text[value_start:value_end]):
            declined.add(match.label.field)
        elif value_start < value_end:
            values.append(
                _Value(
                    match.label.field,
                    value_start,
                    value_end,
                    labeled=True,
                    correction=match.correction,
                    leads=match.label.leads or bool(_LEAD_ROLE_RE.search(text, value_start, value_end)),
                )
            )
            place = _place_after(match.label.field, text, value_end, rest_start, limit)
            place = place or _place_aside(match.label.field, text, value_start, value_end)
            if place and place[1] <= value_end:  # "Experimenter: Eva Horváth (University of Szeged)"
                values[-1].end = _trim(text, value_start, text.rfind("(", value_start, place[0]))[1]
            if place:  # "recorded by A. Kumar @ IISc": the place is labeled by its "at" as well
                values.append(_Value("institution", *place, labeled=True, correction=match.correction))
                rest_start = max(rest_start, place[1])
        unlabeled.append((rest_start, limit))
    return values, declined, [(s, e) for s, e in unlabeled if s < e]


def _place_after(field: str, text: str, value_end: int, rest_start: int, limit: int) -> tuple[int, int] | None:
    """The institution after a labeled person or lab that `_cut_value` cut at "at", "from", "@" or "of"."""
    if field not in ("experimenter", "lab") or not patterns.AFFILIATION_RE.fullmatch(text, value_end, rest_start):
        return None
    comma = text.find(",", rest_start, limit)
    start, end = _trim(text, rest_start, comma if comma >= 0 else limit)
    when = patterns.WHEN_RE.search(text, start, end)  # "@ Champalimaud on 2024-02-14 11:00": the date is the session's
    if when and patterns.DATE_RE.fullmatch(text, when.end(), end):
        end = when.start()
    return (start, end) if start < end and _is_affiliation(text[start:end]) else None


def _place_aside(field: str, text: str, value_start: int, value_end: int) -> tuple[int, int] | None:
    """The institution in parentheses after a labeled person or lab: "Eva Horváth (University of Szeged)"."""
    aside = _PLACE_ASIDE_RE.search(text, value_start, value_end)
    if field not in ("experimenter", "lab") or not aside or not _person(text[value_start : aside.start()]):
        return None
    place = aside.group("place")
    return aside.span("place") if _is_named_institution(place) or patterns.ACRONYM_RE.fullmatch(place) else None


_PLACE_ASIDE_RE = re.compile(r"\s*\((?P<place>[^()]+)\)\s*$")


def _limits(matches: list[_LabelMatch], end: int) -> list[int]:
    """Where each label's value must stop: at the next label, the last one at `end`."""
    return [match.start for match in matches[1:]] + [end] if matches else []


def _value_span(match: _LabelMatch, text: str, limit: int) -> tuple[int, int, int]:
    """The value after a label, running at most to `limit` (the next label or the chunk's end), and
    where the unlabeled text after it starts."""
    field = match.label.field
    start, end = _trim(text, match.value_start, limit)
    self_reference = patterns.SELF_RE.match(text, start, end)  # "recorded by me, Sara Nilsson"
    start = self_reference.end() if self_reference else start
    if field in _DATE_FIELDS:  # "started at 9:15 on 2 Nov 2023"
        prefix = patterns.DATE_PREFIX_RE.match(text, start, end)
        if prefix and patterns.DATE_RE.match(text, prefix.end(), end):
            start = prefix.end()
    shaped = _shaped_end(field, text, start, end) if match.separator == "none" else None
    if shaped is None:
        end, rest = _cut_value(field, text, start, end)
        if field not in _DESCRIPTION_FIELDS:  # "Omar Haddad not Omar Hadad"
            negation = patterns.NOT_INSIDE_RE.search(text, start, end)
            end = negation.start() if negation else end
        end = _strip_trailing_words(text, start, end, vocabulary.CONNECTORS | vocabulary.TRAILING_CHATTER)
    else:
        end = rest = shaped
    if field == "experimenter":  # "done by two people: Jane Smith and Omar Ali"
        colon = text.find(": ", start, end)
        if colon > start and not _person(text[start:colon]) and _person(text[colon + 2 : end]):
            start = colon + 2
    return (*_trim(text, start, end), max(rest, end))


# --- the reader -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class _DataSegment:
    order: int
    pieces: list[_Piece]
    correction: bool


class _MessageReader:
    """Reads one message chunk by chunk, then assigns the unlabeled data and assembles the result."""

    def __init__(self, text: str, asked: tuple[str, ...]) -> None:
        self.text = text
        self.asked = asked
        self.labeled: list[_Value] = []
        self.data: list[_DataSegment] = []
        self.intents: set[Intent] = set()
        self.bare: set[Intent] = set()
        self.refusals: list[_Refusal] = []
        self.declined: set[str] = set()
        self.formats: list[str] = []
        self.correction_from: int | None = None
        self.order = 0
        self.open_list: _Value | None = None  # a labeled list that a ";" part may continue

    def read(self) -> ParsedMessage:
        for start, end in _chunks(self.text):
            if not self._continues_list(start, end):
                self._read_chunk(start, end)
        values = self.labeled + _assign(self.text, self.data, self.asked, {v.field for v in self.labeled})
        if self.correction_from is not None:
            for value in values:
                value.correction = value.correction or value.start >= self.correction_from
        if _is_chatter(values, self.asked):
            values = []
        chosen = _resolve(values)
        fields = {name: v.value or self.text[v.start : v.end] for name, v in chosen.items()}
        skipped = set(self.declined)
        for refusal in self.refusals:
            skipped |= refusal.fields
            if refusal.rest:
                skipped |= {name for name in self.asked if name not in fields}
        skipped -= set(fields)
        intents = set(self.intents)
        if fields:
            intents.add(Intent.PROVIDE_METADATA)
        if self.refusals or self.declined:
            intents.add(Intent.SKIP_FIELD)
        format_choice = self.formats[-1] if self.formats else None
        if format_choice:
            intents.add(Intent.SELECT_FORMAT)
        greeted = Intent.GREETING in intents
        intents.discard(Intent.GREETING)
        if not intents:  # a bare "yes"/"no" counts only when nothing more specific was said
            intents = set(self.bare)
        if greeted and not intents - {Intent.SELECT_FORMAT}:  # "Hi, Jane Smith, MIT" greets in passing
            intents.add(Intent.GREETING)
        return ParsedMessage(
            intents=frozenset(intents),
            fields=fields,
            skipped=frozenset(skipped),
            format_choice=format_choice,
            corrections=frozenset(name for name, v in chosen.items() if v.correction),
            guessed=frozenset(name for name, v in chosen.items() if v.guessed and not v.correction),
        )

    def _read_chunk(self, start: int, end: int) -> None:
        if self.correction_from is None and (
            patterns.CORRECTION_MARKER_RE.search(self.text, start, end)
            or patterns.CORRECTING_START_RE.match(self.text, start, end)
        ):
            self.correction_from = start
        values, declined, unlabeled = _labeled_fields(self.text, start, end)
        self.declined |= declined
        last = max(values, key=lambda v: v.end, default=None)
        if last and last.field in _LIST_FIELDS and self.text[end - 1] == ";":
            after_start, after_end = _trim(self.text, last.end, end)
            self.open_list = last if after_start >= after_end else None
        items: list[tuple[int, _Value | tuple[int, int]]] = [(v.start, v) for v in values]
        for span_start, span_end in unlabeled:
            items.extend((s, (s, e)) for s, e in _segments(self.text, span_start, span_end))
        for index, (_position, item) in enumerate(sorted(items, key=lambda pair: pair[0])):
            self.order += 1
            if isinstance(item, _Value):
                self.labeled.append(item)
            elif not (index and _negated_value(self.text, *item)):
                self._read_segment(*item)

    def _continues_list(self, start: int, end: int) -> bool:
        """A ";" part after "Keywords: a; b" or "Experimenters: Smith, J; Lee, B" that has no label of its
        own and is plainly not about something else is one more item of that list."""
        value, self.open_list = self.open_list, None
        item_start, item_end = _trim(self.text, start, end)
        if value is None or item_start >= item_end or _is_elsewhere(value.field, self.text, item_start, item_end):
            return False
        values, declined, _unlabeled = _labeled_fields(self.text, item_start, item_end)
        if values or declined:
            return False
        value.end = item_end
        self.open_list = value if self.text[end - 1] == ";" else None
        return True

    def _read_segment(self, start: int, end: int) -> None:
        segment = self.text[start:end]
        self.formats.extend(_format_mentions(segment))
        if self.asked == ("sex",) and patterns.SEX_VALUE_RE.fullmatch(segment):  # "unknown" answers "which sex?"
            self._read_data(start, end)
            return
        command = _command(segment)
        if command:
            self.intents |= command.intents
            self.bare |= command.bare
            return
        refusal = _refusal(segment)
        if refusal:
            self.refusals.append(refusal)
            return
        if _is_question(segment):
            self.intents.add(Intent.HELP)
            return
        if not _is_noise(segment) and not _is_heading(segment):
            self._read_data(start, end)

    def _read_data(self, start: int, end: int) -> None:
        if patterns.NOT_RE.match(self.text, start, end) or patterns.WEIGHT_RE.fullmatch(self.text, start, end):
            return
        chatter = patterns.LEADING_CHATTER_RE.match(self.text, start, end)
        correction = bool(chatter and patterns.NEGATIVE_START_RE.match(chatter.group().strip()))
        pronoun = patterns.PRONOUN_RE.search(self.text, start, chatter.end()) if chatter else None
        start = chatter.end() if chatter else start
        replace = patterns.REPLACE_RE.match(self.text, start, end)
        if replace:
            start, correction = replace.end(), True
        end = _strip_trailing_words(self.text, start, end, vocabulary.TRAILING_CHATTER)
        negation = patterns.NOT_INSIDE_RE.search(self.text, start, end)
        if negation and all(p.hard for p in _classify_segment(self.text, start, negation.start())):
            end = negation.start()  # "P90 not P60": what it is not is no value
        start, end = _trim(self.text, start, end)
        if start < end and not _is_noise(self.text[start:end]):
            pieces = _classify_segment(self.text, start, end)
            if pronoun and _about_the_animal(pieces):  # "she is 90 days old": the animal is female
                sex = patterns.PRONOUN_SEX[pronoun[0].lower()]
                pieces.insert(0, _Piece(pronoun.start(), pronoun.end(), ("sex",), hard=True, value=sex))
            self.data.append(_DataSegment(self.order, pieces, correction))


# "la rata es hembra, no macho", "femmina, non maschio", "weiblich, nicht männlich": a part after the
# first that says what the value is not (a correction would set "no" off: "female, no, male").
_NEGATED_PART_RE = re.compile(rf"\s*{prose.NEGATION}\s+(?=[^\W\d_])", _I)


def _negated_value(text: str, start: int, end: int) -> bool:
    """Whether a part says what a subject's value is not ("no macho"); "no stimulus" of a description is
    read as written."""
    m = _NEGATED_PART_RE.match(text, start, end)
    return m is not None and any(piece.hard for piece in _classify_segment(text, m.end(), end))


def _about_the_animal(pieces: list[_Piece]) -> bool:
    """Whether "she"/"he" before these pieces is the animal: they are all its age, strain or species, and
    none its sex ("he's a male" says it itself)."""
    return bool(pieces) and all(
        piece.hard and piece.fields and set(piece.fields) <= {"age", "strain", "species"} for piece in pieces
    )


# --- assignment -----------------------------------------------------------------------------------


def _assign(text: str, data: list[_DataSegment], asked: tuple[str, ...], taken: set[str]) -> list[_Value]:
    """Unlabeled pieces → field values, following the rules in the module docstring."""
    pending = [name for name in asked if name not in taken]
    if len(asked) == 1 and pending:
        whole = _whole_answer(text, data, pending[0])
        if whole:
            return [whole]
    values: list[_Value] = []
    filled = set(taken)
    previous: _Value | None = None
    previous_order = 0
    for segment in data:
        for piece in segment.pieces:
            if _better_description(text, piece, values, asked):
                previous = None
                continue
            field = _field_for(text, piece, pending, filled, asked)
            if field is None:
                previous = None
                continue
            adjacent = previous is not None and segment.order - previous_order <= 1
            if previous is not None and adjacent and previous.field == field and field in _FREE_TEXT_FIELDS:
                previous.end = piece.end  # "University of California, Berkeley"
            else:
                previous = _Value(
                    field, piece.start, piece.end, False, segment.correction, piece.value, guessed=not piece.hard
                )
                values.append(previous)
                filled.add(field)
                if field in pending:
                    pending.remove(field)
            previous_order = segment.order
    return values


def _better_description(text: str, piece: _Piece, values: list[_Value], asked: tuple[str, ...]) -> bool:
    """Of several phrases that may describe the experiment, the one that says most about it is its
    description ("We are at Baylor … . It's Neuropixels in the superior colliculus of mice …"): a
    later, richer phrase replaces an earlier guess. True when `piece` took the description's place."""
    if piece.hard or set(piece.fields) != set(_DESCRIPTION_FIELDS) or asked == ("experiment_description",):
        return False
    current = next((v for v in values if v.field == "experiment_description" and v.guessed), None)
    if current is None:
        return False
    candidate = text[piece.start : piece.end]
    if not _describes_experiment(candidate):
        return False
    if _research_words(candidate) <= _research_words(text[current.start : current.end]):
        return False
    current.start, current.end = piece.start, piece.end
    return True


def _whole_answer(text: str, data: list[_DataSegment], field: str) -> _Value | None:
    """The whole unlabeled answer as the one asked field's value, when nothing speaks against it."""
    pieces = [piece for segment in data for piece in segment.pieces]
    orders = [segment.order for segment in data]
    if not pieces or orders != list(range(orders[0], orders[0] + len(orders))):
        return None
    for piece in pieces:
        if field in piece.fields:
            continue
        if piece.hard or not _fits(field, text[piece.start : piece.end]):
            return None
    correction = any(segment.correction for segment in data)
    return _Value(field, pieces[0].start, pieces[-1].end, labeled=False, correction=correction)


def _field_for(text: str, piece: _Piece, pending: list[str], filled: set[str], asked: tuple[str, ...]) -> str | None:
    if piece.fields and not piece.hard and set(piece.fields) == set(_DESCRIPTION_FIELDS):
        return _description_for(text[piece.start : piece.end], pending, filled, asked)
    if piece.fields:
        return next(
            (name for name in piece.fields if name in pending),
            next((name for name in piece.fields if name not in filled), piece.fields[0]),
        )
    value = text[piece.start : piece.end]
    name = next((name for name in pending if _fits(name, value)), None)
    if name in ("institution", "lab") and len(asked) > 1 and not _may_be_a_name(value):
        return None  # "Bee 14, female worker": no place of work, and no other field's value either
    if name == "species" and len(asked) > 1 and not _names_an_animal(value):
        return None  # "My advisor, Prof. Levine, …": two words in the species' place are not its name
    return name


def _names_an_animal(value: str) -> bool:
    """Whether a phrase with no cue names an animal: one the species list knows, or a binomial written
    as one ("Fukomys damarensis"); not any two words normalize_species would take for a binomial."""
    latin = _species_of(value)
    known = latin is not None and latin.casefold() != " ".join(value.casefold().split())  # "Chick embryo"
    return known or bool(species_mentions(value)) or prose.binomial_in_prose(value, _vocabulary_word) == value.strip()


def _may_be_a_name(value: str) -> bool:
    """Whether a phrase with no cue may still be the name of a place of work ("Mount Sinai", "ufrj"),
    when several fields were asked: no digits, no word for an animal, a sex or a research topic ("Bee
    14", "female worker", "Pigeons", "Hirudo verbana" are left unread rather than taken for one)."""
    words = [word.lower().strip(",.!?") for word in value.split()]
    return (
        not any(ch.isdigit() for ch in value)
        and not any(
            word in vocabulary.NOT_NAMES or word in vocabulary.DESCRIPTION_WORDS or word in vocabulary.SPECIES_WORDS
            for word in words
        )
        and not species_mentions(value)
        and prose.binomial_in_prose(value) != value.strip()
    )


def _description_for(value: str, pending: list[str], filled: set[str], asked: tuple[str, ...]) -> str | None:
    """Where an unlabeled phrase that may describe something goes: the description asked for alone
    takes any answer; asked among other fields, a phrase about the experiment (its method, a brain
    area, what the animals did) is its description, while that is still open; not asked for, only a
    phrase naming a method is ("Neuropixels in mouse V1", not "these are Long Evans rats"). A
    session description is never guessed: it comes from a label or its question. A phrase about the
    conversation ("the description is quite long, can I paste a paragraph?") or placed nowhere is
    not stored ("Nice to meet you", "sorry, long day")."""
    if asked in (("experiment_description",), ("session_description",)):
        return asked[0] if asked[0] in pending else None
    if "experiment_description" in filled or _about_the_conversation(value) or not _describes_experiment(value):
        return None
    if "experiment_description" not in asked and not _names_a_method(value):
        return None
    return "experiment_description"


def _describes_experiment(value: str) -> bool:
    """Whether a phrase speaks of the experiment: in more than one word, a research word or a brain
    area, and not only its animals ("fruit flies" is the species); not a date ("Recorded on 3 May
    2024 at 9.30" says when, not what)."""
    words = [w.lower() for w in patterns.WORD_RE.findall(value)]
    if len(words) < 2 or prose.mentions_a_date(value):
        return False
    return (
        any(w in vocabulary.DESCRIPTION_WORDS or w in vocabulary.BRAIN_AREAS for w in words)
        or brain_area(value) is not None
    )


def _names_a_method(value: str) -> bool:
    words = {w.lower() for w in patterns.WORD_RE.findall(value)}
    return bool(words & vocabulary.METHOD_WORDS)


# "field" in the lab's sense: an arena, a neuron's, a bird's brain area, a potential.
_FIELD_OF_RESEARCH_RE = re.compile(
    r"\b(?:open|receptive|visual|place|grid)[\s-]fields?\b|\bfields?\s+(?:L\b|potentials?\b|recordings?\b|e?[ei]psps?\b)",
    _I,
)


def _about_the_conversation(value: str) -> bool:
    value = _FIELD_OF_RESEARCH_RE.sub(" ", value)
    words = {w.lower() for w in patterns.WORD_RE.findall(value)}
    return bool(words & vocabulary.CONVERSATION_WORDS) or bool(patterns.SAID_RE.search(value))


def _research_words(value: str) -> int:
    """How many words of a phrase speak of research: methods, brain areas, animals."""
    words = [w.lower() for w in patterns.WORD_RE.findall(value)]
    return sum(
        w in vocabulary.DESCRIPTION_WORDS or w in vocabulary.BRAIN_AREAS or w in vocabulary.SPECIES_WORDS for w in words
    ) + (2 if brain_area(value) else 0)


def _is_chatter(values: list[_Value], asked: tuple[str, ...]) -> bool:
    """A lone unlabeled phrase nobody asked a description for ("This keeps failing!"), unless it corrects."""
    return (
        len(values) == 1
        and not values[0].labeled
        and not values[0].correction
        and values[0].field in _DESCRIPTION_FIELDS
        and values[0].field not in asked
    )


def _resolve(values: list[_Value]) -> dict[str, _Value]:
    """One value per field: a correction beats a labeled value, which beats an unlabeled one. The
    lab's head ("PI: …", "supervisor …") is the experimenter only when nobody else is named: DANDI's
    experimenter is who recorded ("PI: Prof. Roux. Experimenter: Jonas Meyer" is Meyer)."""
    if any(v.field == "experimenter" and not v.leads for v in values):
        values = [v for v in values if not (v.field == "experimenter" and v.leads)]
    chosen: dict[str, _Value] = {}
    for value in sorted(values, key=lambda v: v.start):
        current = chosen.get(value.field)
        rank = (value.correction, value.labeled)
        current_rank = (current.correction, current.labeled) if current else (False, False)
        # Later corrections win over earlier ones; otherwise the first value of a rank stays.
        if current is None or rank > current_rank or (value.correction and rank == current_rank):
            chosen[value.field] = value
    return chosen


# --- tidying names and institutions -----------------------------------------------------------

_PEOPLE_SPLIT_RE = re.compile(r"(\s*(?:;|&|\band\b)\s*)", _I)


def _tidy_people(value: str) -> str:
    value = _OTHER_AND_RE.sub("; ", value)  # "Julien Moreau et Clara Fontaine", "Marta Lewandowska i Tomasz Wójcik"
    parts = _PEOPLE_SPLIT_RE.split(value)
    people = [part if index % 2 else _tidy_person(part) for index, part in enumerate(parts)]
    for index in range(0, len(people), 2):
        if _not_a_person(people[index]):
            people[index] = ""  # "Universitätsspital Zürich", "La Jolla": where, not who
    return re.sub(r"^(?:\s*(?:;|&|\band\b)\s*)+|(?:\s*(?:;|&|\band\b)\s*)+$", "", "".join(people), flags=_I).strip(
        " ;&"
    )


# "and" between two names in the users' other languages.
_OTHER_AND_RE = re.compile(
    r"(?<=[^\W\d_])\s+(?:und|et|y|e|ed|i|og|och|en|és|a)\s+"
    r"(?=(?:(?:la|el|le|il|lo|l'|dr|dra|dott|dott\.ssa|prof)\.?\s*)?[A-ZÀ-Þ][^\W\d_]+\s[A-ZÀ-Þ])"
)


def _not_a_person(name: str) -> bool:
    """Whether a name the reader found is a place or an organisation ("Warszawa", "Universitätsspital
    Zürich", "Mount Sinai", "Institute of Science and Technology Austria")."""
    words = name.replace(",", " ").split()
    if not words:
        return False
    if is_place(name) or is_place(" ".join(reversed(name.split(", ")))) or _is_known_institution(name):
        return True
    if len(words) == 1 and words[0].lower() in vocabulary.AGE_WORDS:
        return True  # "…, female, adult — Goethe University Frankfurt — Lukas Heine"
    return any(
        w.lower().startswith(people.ORGANISATION_WORDS) or w.lower() in vocabulary.INSTITUTION_WORDS for w in words
    )


def _tidy_person(value: str) -> str:
    if romanised := east_asian.romanised_name(value):
        return romanised
    head, colon, tail = value.partition(":")
    if colon and tail.strip() and len(head.split()) <= 2:  # "Who: Ines Schulz"
        value = tail
    inside = re.fullmatch(r"\s*(?:me|myself|I)\s*\((?P<name>[^()]+)\)\s*", value, _I)
    if inside:  # "me (Dan O'Brien)"
        value = inside.group("name")
    value = re.sub(r"\([^()]*\)?", " ", value)  # "(he recorded himself)", "(PhD student)"
    dashed = [part for part in re.split(r"\s[—–-]\s", value) if _person(part.strip())]
    if len(dashed) == 1 and dashed[0] != value:
        value = dashed[0]  # "Frankfurt — Jonas Weber": the part that is a person
    value = "".join(ch for ch in value if ch.isalnum() or ch in " '’-.,;&" or ch.isspace())  # emoji
    tokens = value.split()
    capitalised = any(token[:1].isupper() for token in tokens)
    while tokens and (
        tokens[0].lower().strip(",!:") in vocabulary.BEFORE_NAME
        # "bin Paula Schmitt" after "Ich": no name starts so; but "van den Broek, Sanne", "van Dijk, Eva" do
        or (
            tokens[0] in vocabulary.NAME_PARTICLES
            and len(tokens) > 2
            and tokens[1] not in vocabulary.NAME_PARTICLES
            and not tokens[1].endswith(",")
        )
    ):
        tokens.pop(0)
    if capitalised:
        for index, token in enumerate(tokens[1:], start=1):  # "Tariq Khan who", "Kofi Mensah (that's"
            bare = token.strip(",.")
            if token.startswith("(") or (bare.islower() and bare not in vocabulary.NAME_PARTICLES) or "'" in bare[-3:]:
                tokens = tokens[:index]
                break
    return " ".join(tokens).strip(" ,.-–—(")


def _whole_given_name(value: str, text: str) -> str:
    """A person named once by the given name alone and once in full ("Priya from CSHL here (Priya
    Desai, grad student)", "it's Callum from Newcastle — Callum Fraser"): the full name."""
    if " " in value or "," in value or not value[:1].isupper():
        return value
    m = re.search(rf"(?<![\w-]){re.escape(value)}\s(?P<family>[A-Z][^\W\d_]+(?:[-'’][A-Z][^\W\d_]+)?)(?![\w-])", text)
    if m and not _vocabulary_word(m["family"].lower()) and not _not_a_person(m["family"]):
        return f"{value} {m['family']}"
    return value


_PLACE_AFTER_RE = re.compile(r"\s+(?:in|at|en|à|em|a)\s+(?P<place>[A-Z][\w'’.-]*(?:\s+[A-Z][\w'’.-]*){0,2})$")
# A spaced dash before lower-case words sets a remark off the name ("Charité – Universitätsmedizin Berlin"
# is one name); a remark that takes the name back leaves the institution unread.
_REMARK_AFTER_DASH_RE = re.compile(r"\s+(?:—|–|--?)\s+(?P<remark>[a-z].*)$", re.DOTALL)
_TAKEN_BACK_RE = re.compile(r"(?:actually|oops|no\b|sorry|well\b|wait\b|i\s+mean|correction|scratch)", _I)
_PARENTHESIS_AT_END_RE = re.compile(r"\s*\([^()]*\)$")
# A clause joined on after the name, in lower case only: "Università di Padova e ho registrato io",
# "MIT and we recorded in V1"; "Scienze e Tecnologie" keeps its capitals, so its "e" stays.
_CLAUSE_AFTER_RE = re.compile(r"\s+(?:e|y|et|und|and|og|en)\s+[^\W\d_A-ZÀ-Þ][^A-ZÀ-Þ]*$")
_LEADING_PLACE_WORDS_RE = re.compile(
    r"^(?:(?:we'?re|we\s+are|i'?m|i\s+am|i\s+work|we\s+work|based)(?:\s+all)?\s+)?(?:at|from|of|in|@)\s+"
    # "Trabajo en el …", "Sou do …", "Je travaille à l'…", "Ich arbeite am …", "Lavoro all'…"
    r"|^(?:trabajo|trabalho|lavoro|je\s+travaille|travaille|ich\s+arbeite|arbeite|estoy|estou|soy|sou|sono|ich\s+bin"
    r"|je\s+suis|venho|vengo)\s+(?:en\s+el|en\s+la|en|em|no|na|do|da|del|de\s+la|de|all['’]|al|nel|nella|alla"
    r"|à\s+l['’]|à\s+la|au|à|am|an\s+der|bei\s+der|im|in\s+der|in)\s*",
    _I,
)
# "postdoc in Peking University", "Francisca Soto y Matías Araya en la Pontificia Universidad…", "Lukas
# Gruber von der Universität Wien", "os escribo desde el Instituto…", "Francesco Bianchi all'Istituto…".
_INSIDE_PLACE_WORD_RE = re.compile(
    r"\s+(?:at|in|from|of|en(?:\s+(?:el|la))?|na|no|em|à|au|von(?:\s+der)?|vom|an\s+der|am|bei(?:\s+der)?"
    r"|desde(?:\s+(?:el|la))?|presso|del|della|dalla|da|do|på|bij|в)\s+"
    r"|\s+(?:all|dell|nell|dall|sull|à\s+l|de\s+l)['’](?=\w)",
    _I,
)
# Lower-case words before a name that is plainly an institution's: "institution Shiraz University",
# "should read Tohoku University", "hospital, correct is Hospital Italiano de Buenos Aires".
_LOWERCASE_BEFORE_RE = re.compile(r"(?:[^\W\d_A-ZÀ-Þ][\w'’-]*[\s,]+)+(?=[A-ZÀ-Þ])")
_DEPARTMENT_AT_END_RE = re.compile(
    r",\s*(?:the\s+)?(?:department|dept\.?|faculty|division|graduate\s+school|school|centre|center|unit|program(?:me)?)"
    r"\s+(?:of|for)\s+[^,]+$",
    _I,
)
# What a sentence in the users' languages leaves in front of an institution's name ("na UNICAMP",
# "all'Istituto …"); in lower case only, so "Del Monte Institute" keeps "Del".
_LEADING_ARTICLE_RE = re.compile(
    r"^(?i:(?:it'?s|it\s+is|this\s+is|that'?s|institution['’]?s)\s+(?:the\s+)?)"
    r"|^(?:(?:do|da|dos|das|del|della|du|des|de\s+la|dal|dalla|vom|von\s+der|am|an\s+der|na|no|nos|nas|em|en"
    r"|en\s+el|en\s+la|au|à|presso|desde|desde\s+el|desde\s+la|bei|bei\s+der|im|in\s+der)\s+"
    r"|(?:dell|all|nell|dall|sull)['’]|à\s+l['’]|de\s+l['’]|l['’]|d['’])(?=[A-ZÀ-Þ])"
)
# Japanese written in Latin letters after the name: "… de jikken shiteimasu", "… no Saito Yui desu".
_ROMAJI_AFTER_RE = re.compile(r"\s+(?:de|ni|no)\s+.*\w(?:desu|masu|mashita|shita)\b.*$|\s+(?:de|ni|no)\s+.*\bdesu\b.*$")
_CAMPUS_AFTER_RE = re.compile(r",\s*(?:campus\s+[\w-]+(?:\s[\w-]+)?|[\w-]+\s+campus)$", _I)
# A university, then one of its parts after a comma or a dash: the university is the institution
# ("Université de Bordeaux, IINS", "LMU München, Department Biologie II", "Universität Zürich — Institut
# für Hirnforschung"). An institute followed by its parent ("Institute of Neuroscience, Chinese Academy
# of Sciences") is left whole.
_UNIT_AFTER_UNIVERSITY_RE = re.compile(
    r"(?P<university>[^,—–]*?(?:\bUniversit\w*|\bUniversidad\w*|\bUniversidade\w*|\bUniversità|\bUniversity"
    r"|\bUC\s\w+|\bTU\s\w+|\bLMU\b(?:\sMünchen)?|\bUMC\s\w+|\bETH\b(?:\sZürich)?|\bEPFL\b"
    r"|\bInstitute\sof\s(?:Science|Technology)\b|\bPolytechnique\sFédérale\sde\sLausanne(?:\s\(EPFL\))?)[^,—–]*?)\s*(?:,|\s[—–-])\s*(?P<unit>[^,—–]+)"
)
_UNIT_WORD_RE = re.compile(
    r"\b(?:institut\w*|instituto|istituto|cent(?:er|re)|centro|department|dept|departement|abteilung|laborator\w*"
    r"|biologie|school|college|faculty|facult[ée]|fakultät|clinic|klinik)\b",
    _I,
)

# A university written with one of its schools, faculties or departments: the university.
_SCHOOL_OF_A_UNIVERSITY_RES = (
    re.compile(  # "Northwestern University Feinberg School of Medicine", "KAIST Dept. of Bio and Brain Engineering"
        r"(?P<university>.*?\bUniversity(?:\sof\s[A-Z][\w'-]+(?:\s[A-Z][\w'-]+)?)?|[A-Z]{2,6})"
        r"\s(?:[A-Z][\w'-]+\s){0,2}(?:(?:Graduate\s)?(?:School|College|Faculty|Dept\.?|Department)\s(?:of|for)\s.+"
        r"|Medical\sSchool)"
    ),
    # An institute of a university, in the users' languages: "Donders Instituut van de Radboud Universiteit",
    # "Instituto do Cérebro da Universidade Federal do Rio Grande do Norte", "Instituto de Neurobiología de
    # la UNAM", "McGovern Institute at MIT"
    re.compile(
        r"(?:[Tt]he\s)?(?:[A-Z][\w'-]+\s){0,3}(?:Institut|Instituut|Instituto|Istituto|Institute|Center|Centre|Centro)\b.*?"
        r"\s(?:der|van\sde|da|de\sla|del|della|dell['’]|of\sthe|at(?:\sthe)?)\s?"
        r"(?P<university>(?:[A-Z][\w'-]+\s){0,3}(?:Universit|Universidad|Universidade|Universiteit)[^,]*|[A-Z]{2,6})"
        r"(?:,\s*[^,]*)?"
    ),
    # "UCL's Sainsbury Wellcome Centre": the university that holds it
    re.compile(r"(?:[a-z]+\s+)*(?P<university>[A-Z]{2,6}|[^,']*\bUniversity\b[^,']*)['’]s\s.+"),
    re.compile(
        r"(?:Institut|Klinik|Abteilung|Lehrstuhl|Department)\s(?:für|of)\s.+?\s(?:der|at\sthe)\s(?P<university>.*Universit.*)"
    ),
    re.compile(r"(?P<university>.+?\bÜniversitesi)\s.+"),
    # "東京大学大学院医学系研究科", "서울대학교 뇌인지과학과"; a university hospital is an institution of its own
    re.compile(
        r"(?P<university>[^\s]+?(?:大学|大學|대학교))(?!病院|医院|醫院|병원|附属|附屬)\s?[\u3400-\u9fff\uac00-\ud7af].*"
    ),
)


def _is_a_part(unit: str) -> bool:
    """Whether what follows a university names one of its parts (an institute, a department, an
    acronym), not a place or a parent ("Birkbeck, University of London")."""
    named = _UNIT_WORD_RE.search(unit) or patterns.ACRONYM_RE.fullmatch(unit.strip())
    return bool(named) and not is_place(unit) and not re.search(r"universit", unit, _I)


_DEPARTMENT_BEFORE_RE = re.compile(
    r"(?:the\s+)?(?:department|dept\.?|division|faculty|school|unit|section)\s+(?:of|for)\s+[^,]+,\s*", _I
)
_DEPARTMENT_AT_START_RE = re.compile(
    r"(?:the\s+)?(?:department|dept\.?|faculty|division|school|centre|center|unit)\s+(?:of|for)\s+[^,]+?\s+(?:at|of|in)\s+",
    _I,
)
_STATE_UNIVERSITY_RE = re.compile(r"university\s+of\s+[^\W\d_]+$", _I)


def _university_after_its_unit(text: str, value: str) -> str:
    """The university written right after the institute, centre or faculty read as the institution
    ("postdoctoral fellow at the Neuroscience Institute, University of Cape Town", "Instituto de Ciências
    Biomédicas, Universidade Federal do Rio de Janeiro"): the institution is the university."""
    if not _UNIT_START_RE.match(value) and not institutions.is_a_unit(value):
        return value
    at = text.find(value)
    after = _UNIVERSITY_AFTER_RE.match(text, at + len(value)) if at >= 0 else None
    if after is None or not institutions.has_university_word(after["university"]):
        return value
    return after["university"].strip()


_UNIT_START_RE = re.compile(
    r"(?:the\s)?(?:institut\w*|istitut\w*|centr\w*|center|facult\w*|school|department|departament\w*|dept)\b", _I
)
# ", University of Cape Town", " (IFIBYNE), Universidad de Buenos Aires (UBA)": up to the clause's end.
_UNIVERSITY_AFTER_RE = re.compile(r"\s*(?:\([^()]*\)\s*)?,\s*(?:the\s+)?(?P<university>[^,.;:()\n]+)")


def _tidy_institution(value: str) -> str:
    value = _PART_AFTER_DASH_RE.sub("", value)  # "École normale supérieure (ENS), Paris - Département d'études …"
    head, colon, tail = value.partition(":")
    if colon and tail.strip() and len(head.split()) <= 2:  # "Uni: Khalifa University"
        value = tail
    remark = _REMARK_AFTER_DASH_RE.search(value)  # "Karolinska Institutet — different lab this time"
    if remark and _TAKEN_BACK_RE.match(remark.group("remark")):
        return ""  # "University of Oxford — actually no, …": which one it was is for the user to say
    if remark:
        value = value[: remark.start()]
    value = _university_without_its_unit(_without_sentence_after(value))
    if _says_who_not_where(value):
        return ""  # "PI", "phd student", "a clinician": who, not where
    value = _institution_after_lead_in(_without_words_around(value))
    return _without_place_after(_without_city_after_comma(value))


def _without_sentence_after(value: str) -> str:
    """The name without what the sentence goes on with after it: a remark in parentheses, a clause, a
    word such as "and" or "again", Japanese or Korean, a department after a comma."""
    value = _PARENTHESIS_AT_END_RE.sub("", value.strip())  # "ISTA (Klosterneuburg)", "(bioscience dept)"
    value = _CLAUSE_AFTER_RE.sub("", value)
    value = _TRAILING_WORDS_RE.sub("", value)
    value = _KANA_OR_HANGUL_AFTER_RE.sub("", value)
    value = re.sub(r"\s+\([^()]*$", "", value)  # a remark cut off by a comma: "… (the Florey is separate btw"
    return _DEPARTMENT_AT_END_RE.sub("", value)  # "University of Cambridge, Department of Zoology"


def _university_without_its_unit(value: str) -> str:
    """The university alone when its institute, school or department is named after it."""
    unit = _UNIT_AFTER_UNIVERSITY_RE.match(value)  # "UC Berkeley, Helen Wills Neuroscience Institute"
    if unit and _is_a_part(unit["unit"]):
        value = unit["university"]
    for school in _SCHOOL_OF_A_UNIVERSITY_RES:  # "Kyoto University Graduate School of Medicine", "复旦大学脑科学研究院"
        if m := school.fullmatch(value.strip()):
            return m["university"]
    return value


def _says_who_not_where(value: str) -> bool:
    """Whether every word speaks of a person ("PI", "phd student", "a clinician"), none of a place."""
    return all(
        word.lower().strip(".,")
        in vocabulary.BEFORE_NAME | vocabulary.FILLER_WORDS | vocabulary.NOT_NAMES | vocabulary.ROLE_WORDS
        for word in value.split()
    )


def _without_words_around(value: str) -> str:
    """The name without the words a sentence puts around it: "I work at", "It's the", "in Berlin", a
    sentence going on in romaji, a campus, the parenthesis a comma left unopened."""
    value = _LEADING_PLACE_WORDS_RE.sub("", value)
    value = _LEADING_ARTICLE_RE.sub("", value)  # "do Instituto …", "l'Hôpital …", "It's the University of Tokyo"
    place = _PLACE_AFTER_RE.search(value)
    if (
        place and _is_organisation(value[: place.start()]) and not institutions.with_campus(value)
    ):  # "Charité in Berlin"
        value = value[: place.start()]
    value = _ROMAJI_AFTER_RE.sub("", value)  # "Tohoku University de jikken shiteimasu", "… no Saito Yui desu"
    value = _CAMPUS_AFTER_RE.sub("", value)  # "EPFL, Campus Biotech"
    if value.endswith(")") and "(" not in value:
        value = value[:-1]  # "(NTNU, Kavli Institute)" cut at its comma
    return value


def _institution_after_lead_in(value: str) -> str:
    """The institution without the department, person or role named before it."""
    unit = _DEPARTMENT_BEFORE_RE.match(value)  # "Department of Neurosurgery, Rigshospitalet"
    if unit and _is_organisation(value[unit.end() :]):
        value = value[unit.end() :]
    department = _DEPARTMENT_AT_START_RE.match(value)  # "Department of Physiology at McGill University"
    if department and _is_organisation(value[department.end() :]):
        value = value[department.end() :]
    value = _after_place_word(value)
    lowered = _LOWERCASE_BEFORE_RE.match(value)
    if lowered and lowered.group().split() != ["the"] and _is_named_institution(value[lowered.end() :]):
        value = value[lowered.end() :]
    return value


def _after_place_word(value: str) -> str:
    """What follows "in", "of", "at"… when it is the institution and what comes before is a person or
    a role, the last such word first: "postdoc in Peking University", "Hiroko Watanabe of Tohoku University"."""
    for m in reversed(list(_INSIDE_PLACE_WORD_RE.finditer(value))):
        before, after = value[: m.start()], value[m.end() :]
        if m.group().strip() == "von" and _GIVEN_NAME_VON_RE.fullmatch(value[: m.end()] + value[m.end() :].split()[0]):
            continue  # "Carl von Ossietzky Universität": a person's name begins the institution's
        english = m.group().strip().lower() in ("at", "in", "from", "of")
        lowercase = any(
            w.islower() and w not in vocabulary.NAME_PARTICLES | {"of", "the", "and", "for"} for w in before.split()
        )
        if english and lowercase and _is_organisation(after):
            return after
        if _is_named_institution(after) and not _is_named_institution(before):
            return after  # "Hiroko Watanabe of Tohoku University"; "University of Padova" stays whole
    return value


def _without_city_after_comma(value: str) -> str:
    """The institution without the city written after it: "Donders Institute, Nijmegen", "Istituto
    Italiano di Tecnologia (IIT) di Genova"."""
    value = _ACRONYM_AND_PLACE_RE.sub("", value)  # "Istituto Italiano di Tecnologia (IIT) di Genova"
    value = _PARENTHESIS_AT_END_RE.sub("", _CITY_SHORT_FORM_RE.sub("", value))  # "… (IIT) a Genova"
    head, comma, last = value.rpartition(",")
    city = is_place(last) or (
        len(last.split()) <= 2
        and last.strip()[:1].isupper()
        and not patterns.ACRONYM_RE.fullmatch(last.strip())
        and not _is_institution(last)
        and not _is_known_institution(last)
        and _is_institution(head)
    )
    if comma and city and _is_organisation(head) and not _STATE_UNIVERSITY_RE.search(head.strip()):
        value = head  # "Donders Institute, Nijmegen", "Hacettepe University, Ankara"
        place = _PLACE_AFTER_RE.search(value)
        if place and is_place(place["place"]) and _is_organisation(value[: place.start()]):
            value = value[: place.start()]  # "Champalimaud Foundation in Lisbon, Portugal"
    return value


def _without_place_after(value: str) -> str:
    """An acronym without the city after it ("SISSA Trieste"; not "University College London" nor
    "University of California, Berkeley"), and no punctuation left at the name's ends."""
    words = value.split()
    if len(words) > 1 and is_place(words[-1]) and not _is_known_institution(value) and not words[-2].endswith(","):
        rest = " ".join(words[:-1])
        if words[-2].lower() in vocabulary.INSTITUTION_WORDS or words[-2].islower():  # "University of Oslo"
            return value.strip(" ,.")
        # "SISSA Trieste"; a name written out keeps its last word ("… Science and Technology Austria")
        if patterns.ACRONYM_RE.fullmatch(rest) and len(rest) >= 3:
            value = rest
    return _PARENTHESIS_AT_END_RE.sub("", value.strip(" ,.-–—"))  # "… (ENS)" once ", Paris" is cut


_PART_AFTER_DASH_RE = re.compile(
    r"\s[-–—]\s(?:d[ée]partement|department|dept\.?|institut[eo]?|faculty|facult[ée]|school|[ée]cole|division)\b.*$", _I
)
_ACRONYM_AND_PLACE_RE = re.compile(r"\s*\([A-Z]{2,8}\)\s+(?:di|de|da|in|a|at|en|à|em)\s+[A-Z][\w'’.-]*$")
# One given name, "von" and a surname that is no institution word: "Carl von Ossietzky".
_GIVEN_NAME_VON_RE = re.compile(r"[A-ZÀ-Þ][a-zß-ÿ]+\s+von\s+(?!(?:Universit|Institut|Klinik|Hochschule))[A-ZÀ-Þ][\w-]+")
# Words trailing a name that belong to the sentence ("University of Padova and", "Karolinska Institutet
# again") and a Turkish case ending ("Boğaziçi Üniversitesi'nden"); a city's short form after a comma (", NYC").
_TRAILING_WORDS_RE = re.compile(
    r"(?:\s+(?:and|or|again|too|also|here|now|btw))+$|(?<=\w)['’](?:n?[dt][ae]n?|y?[ae]|n[ae])$"
)
# Kana or Hangul after a name written in Latin letters is the sentence going on in Japanese or Korean:
# "KAIST에서 왔습니다", "National Institute of Genetics の Watanabe Sho".
_KANA_OR_HANGUL_AFTER_RE = re.compile(r"(?<=[A-Za-z.)])\s*[\u3040-\u30ff\uac00-\ud7af].*$", re.DOTALL)
_CITY_SHORT_FORM_RE = re.compile(r",\s*(?:NYC|SF|DC)$")


def _is_named_institution(value: str) -> bool:
    """An institution by a word of its name or a name the portal knows ("Tohoku University"); a
    capitalised phrase alone ("Hiroko Watanabe") is none."""
    return _is_known_institution(value) or _is_institution(value)


def _is_organisation(value: str) -> bool:
    value = value.strip(" ,")
    return bool(value) and (
        _is_known_institution(value)
        or _is_institution(value)
        or bool(patterns.ACRONYM_RE.fullmatch(value))
        or _is_affiliation(value)
    )


_STRAIN_IN_TEXT_RE = re.compile(
    rf"(?<![\w/-])(?:{patterns.STRAIN})(?![\w/-])|(?<![\w/-])[A-Z][\w]*/[A-Z][\w]*\d(?![\w/-])",  # and "APP/PS1"
    _I,
)


def _strain_in(text: str) -> prose.Stated | None:
    """The one strain or line a message names in passing ("mouse 3312 (DAT-Cre)", "APP/PS1", "strain
    OH15262"); a cross written with ";" or "x" is one ("Sst-IRES-Cre;Ai32", "PV-Cre x Ai14")."""
    named = {m.group("strain") for m in _STRAIN_NAMED_RE.finditer(text)}
    if len(named) == 1:
        return prose.Stated(named.pop(), True)
    matches = [m for m in _STRAIN_IN_TEXT_RE.finditer(text) if m.group().lower() not in ("wt",)]
    strains: list[str] = []
    end = -1
    for m in matches:
        if strains and _CROSS_RE.fullmatch(text, end, m.start()):
            strains[-1] = text[text.rfind(strains[-1], 0, end) : m.end()]
        else:
            strains.append(m.group())
        end = m.end()
    found = set(strains)
    return prose.Stated(found.pop(), True) if len(found) == 1 else None


_STRAIN_NAMED_RE = re.compile(r"\bstrain\s(?P<strain>[A-Z]{1,4}\d{2,}[\w/-]*)(?![\w/-])")
_CROSS_RE = re.compile(r"\s?[;x×/]\s?|\s[x×]\s")


# "(family names first)", "(Tanaka is family name)", "Kim = family name", "surname first".
_FAMILY_FIRST_RE = re.compile(
    r"(?:family\s+names?|surnames?|last\s+names?)\s+(?:come\s+)?first|(?:japanese|chinese|korean|vietnamese|hungarian)"
    r"\s+(?:name\s+)?order",
    _I,
)
_FAMILY_NAMED_RE = re.compile(
    r"(?<![\w'’-])(?P<a>[^\W\d_][\w'’-]{0,30})(?![\w'’-])\s{0,3}(?:is|=|:)\s{0,3}(?:the\s|my\s|our\s)?"
    r"(?:family|sur|last)\s?name"
    r"|(?:family|sur|last)\s?name\s{0,3}(?:is\s|=\s?|:\s?)?(?P<b>[^\W\d_][\w'’-]{0,30})(?![\w'’-])"
    r"|(?<![\w'’-])(?P<j>[^\W\d_][\w'’-]{0,30})\s(?:ga|wa)\s(?:myou?ji|sei)\b",
    _I,
)


def _family_first(text: str, people: str) -> str:
    """People written family name first, as the message says: "Zhang Wei and Liu Yang (family names
    first)" → "Zhang, Wei and Liu, Yang"; "Tanaka Hiroshi (Tanaka is family name)" → "Tanaka, Hiroshi"."""
    if not _FAMILY_CUE_RE.search(text):
        return people
    named = {m.group("a") or m.group("b") or m.group("j") for m in _FAMILY_NAMED_RE.finditer(text)}
    compound = [m.group("c").split() for m in _FAMILY_WORDS_RE.finditer(text)]  # "(apellidos Fernández Gómez)"
    every = bool(_FAMILY_FIRST_RE.search(text))
    shown = [m.group("f") for m in _SHOWN_IN_ORDER_RE.finditer(text)]
    if shown:  # "Minji Park (Park Minji in Korean order)": the parentheses show the order, the name is Western
        named, every = named | set(shown), False
    if not named and not every and not compound:
        return people
    parts = _PEOPLE_SPLIT_RE.split(people)
    for index in range(0, len(parts), 2):
        words = parts[index].split()
        if len(words) < 2 or "," in parts[index]:
            continue
        surname = next((c for c in compound if _contains_run(words, c) and len(c) < len(words)), None)
        if surname:
            given = [w for w in words if w not in surname]
            parts[index] = f"{' '.join(surname)}, {' '.join(given)}"
            continue
        family = next((w for w in words if w in named), words[0] if every else None)
        if family is not None:
            given = [w for w in words if w != family]
            parts[index] = f"{family}, {' '.join(given)}"
    return "".join(parts)


def _contains_run(words: list[str], run: list[str]) -> bool:
    return any(words[i : i + len(run)] == run for i in range(len(words) - len(run) + 1))


_SHOWN_IN_ORDER_RE = re.compile(
    r"\((?P<f>[^\W\d_][\w'’-]*)\s[^\W\d_][\w'’-]*\s(?:is\s)?(?:in\s)?(?i:japanese|chinese|korean|vietnamese"
    r"|hungarian)\s(?i:name\s)?(?i:order)\)"
)
_FAMILY_CUE_RE = re.compile(r"name|order|apellido|sobrenome|cognome|myou?ji|\bsei\b", _I)
# "(apellidos Fernández Gómez)", "apellidos: Ortiz Garrido", "(Han Jiwoo in Korean order)" is _FAMILY_FIRST_RE's
_FAMILY_WORDS_RE = re.compile(
    r"(?i:apellidos?|sobrenomes?|cognomi|cognome|family\s+names?|surnames?)\s?[:=]?\s?"
    r"(?P<c>[A-ZÀ-Þ][\w'’-]+(?:\s(?:de\s|del\s|da\s|y\s)?[A-ZÀ-Þ][\w'’-]+)?)"
)


def _may_be_an_id(value: str) -> bool:
    """An id holds a digit ("M-0412"), or is a name written with a capital ("Bruno") that is no word
    of the reader's vocabulary; "adult", "boy" or "in" are never an animal's id."""
    value = value.strip().strip("'\"‘’“”")
    if re.fullmatch(r"\d{1,2}[h:.]\d{2}(?:\s?[ap]\.?m\.?)?|\d{1,3}\s(?:sai|anni|años|ans|jahre|anos)", value, _I):
        return False  # "16h05, le 12 avril": a clock; "31 sai": an age
    if re.search(r"\d\s?[年月日]", value):
        return False  # "2024年6月3日": a date
    if any(ch.isdigit() for ch in value):
        return True
    lowered = value.lower()
    if lowered in vocabulary.NOT_IDS or lowered in vocabulary.NAME_STOPWORDS or " " in value:
        return False
    return value[:1].isupper() or "-" in value or "_" in value


def _people_in(value: str) -> set[str] | None:
    try:
        return set(normalize_experimenter(value))
    except ValueError:
        return None


def _takes_over(current: str | None, guessed: bool, recorders: str, crew: people.Team) -> bool:
    """Whether the people a sentence says recorded replace the experimenter the chunks read: when the
    chunks read none, only guessed, read a word that names no one ("Sirmadam", "Dr"), read fewer of
    the same people ("Menon" of "Nikhil Rao, Shreya Menon"), or read the PI, supervisor or uploader."""
    if current is None:
        return True
    if not guessed and _FAMILY_GIVEN_LIST_RE.fullmatch(current.strip()):
        return False  # "García López, María José; Ruiz, Pablo": written the way DANDI lists people
    before, after = _people_in(current), _people_in(recorders)
    if before is None or not (_person(current) or _plain_name(current)):
        return True
    if after is None or before == after:
        return False
    if guessed:
        return True
    others = _people_in("; ".join(crew.others)) or set()  # none named: "" reads as no one
    named = _people_in("; ".join(crew.named)) or set()
    dropped = before - after
    if after < before and (
        crew.said or dropped <= others or not any(people.could_be_a_name(p, _vocabulary_word) for p in dropped)
    ):
        return True  # "PI: Dr. Anita Verma (not an experimenter) / Recordings: …"; "…, KEMRI Wellcome Trust …"
    if all(any(_words_of(person) <= _words_of(full) for full in after) for person in before):
        return True  # "Mark" of "I'm Mark, Mark Sullivan", "Menon" of "Nikhil Rao, Shreya Menon"
    if crew.said and before & others:
        return True  # "PI is Dr. Morales but she didn't record - the recordings were by A and B"
    return before <= others or not before & named


_FAMILY_GIVEN = r"[^\W\d_][\w'’.-]*(?:\s[^\W\d_][\w'’.-]*){0,3},\s?[^\W\d_][\w'’.-]*(?:\s[^\W\d_][\w'’.-]*){0,3}"
_FAMILY_GIVEN_LIST_RE = re.compile(rf"{_FAMILY_GIVEN}(?:\s?;\s?{_FAMILY_GIVEN})+")


def _words_of(person: str) -> set[str]:
    return set(person.lower().replace(",", " ").replace(".", " ").split())


def _better_institution(current: str | None, named: str) -> bool:
    """Whether the one institution a message names by name replaces what the chunks read: nothing, words
    that name no organisation by its kind ("Old-school", "maschio", "36"), a city, part of the name
    ("Bonn" of "University of Bonn"), or the name with other words about it ("Osaka University.
    Recordings", "PI, Università di Padova", "de la UNAM")."""
    if current is None or is_place(current):
        return True
    current = re.sub(r"^the\s+", "", current, flags=_I)
    if current == named:
        return False
    if not (
        institutions.named(current, _is_a_known_institution)
        or patterns.ACRONYM_RE.match(current)
        or _is_known_institution(current)
    ):
        return True  # no organisation by its kind, its known name or an acronym
    if named.startswith(current) or re.search(rf"(?<![\w-]){re.escape(current)}(?![\w-])", named):
        return True
    at = current.find(named)
    if at < 0:
        return False
    before, after = current[:at].rstrip(), current[at + len(named) :].lstrip()
    joined = not before or before[-1] in ",:(;" or _CONNECTOR_AT_END_RE.search(before)
    return bool(joined) and (
        not after or after[0] in ".,;:()" or bool(_ME_TOO_RE.match(after)) or bool(_UNIT_AFTER_RE.match(after))
    )


# "University of Leeds School of Biomedical Sciences": a unit of the institution after its name.
_UNIT_AFTER_RE = re.compile(r"(?:department|dept|institute|division|centre|center)\s+(?:of|for)\b", _I)


_ME_TOO_RE = re.compile(r"(?:and|&)\s+(?:I|we|my|our)\b", _I)  # "the University of Toronto and I did the …"


def _is_a_known_institution(value: str) -> bool:
    """Whether the words are, whole, the name of an institution the portal knows ("Karolinska", "ETH
    Zurich"), not only begin with one ("Cambridge NeuroTech")."""
    return " ".join(_without_article(value)) in vocabulary.KNOWN_INSTITUTIONS


_CONNECTOR_AT_END_RE = re.compile(
    r"(?:\b(?:at|from|of|da|de|di|del|la|the|an\s+der|am|au|in)|[àa]\s+l'|[àa]|@)\s*$", _I
)


def _with_description(
    text: str, parsed: ParsedMessage, *, whole: str | None = None, subjects: Sequence[tuple[int, int]] = ()
) -> ParsedMessage:
    """The experiment's description as the sentence gives it: with the comma parts that go on
    describing ("Whole-cell recordings in brainstem slices, cochlear nucleus bushy cells"), without
    the writer's "I did" or "We do" in front, and, when the chunks found none, the clause after
    "we recorded", "I did" or "Recordings by …:" that names a method."""
    if "experiment_description" in parsed.skipped:
        return parsed
    fields, guessed = dict(parsed.fields), set(parsed.guessed)
    current = fields.get("experiment_description")
    if current is None:
        found = _description_in_sentences(text)
        if found is None:
            return parsed
        fields["experiment_description"] = found
        guessed.add("experiment_description")
    elif "experiment_description" in guessed and _NOT_A_DESCRIPTION_RE.match(current):
        del fields["experiment_description"]  # "12 weeks old at recording", "sex wasn't recorded"
        guessed.discard("experiment_description")
    elif (
        "experiment_description" in guessed
        and not _names_a_method(current)
        and (found := _description_in_sentences(text))
    ):
        fields["experiment_description"] = found  # "sleep researcher at King's College London" names no method
    else:
        fields["experiment_description"] = _without_first_person(_continued_description(text, current))
    if whole is not None and subjects and (found := fields.get("experiment_description")):
        fields["experiment_description"] = _over_the_subject(text, whole, found, subjects)
    if fields == parsed.fields:
        return parsed
    return replace(
        parsed, fields=fields, guessed=frozenset(guessed), intents=parsed.intents | {Intent.PROVIDE_METADATA}
    )


# Where the subject was taken out of a sentence ("… of a female minipig (ID GM-2, 8 months old) during
# treadmill walking" is read as "… of a female ⎵⎵⎵⎵, 8 months old) during treadmill walking").
_BLANK_RUN_RE = re.compile(r" {3,}")
_REST_OF_PARENTHESIS_RE = re.compile(r"[^()\n.;!?]*\)")
_GOES_ON_AFTER_SUBJECT_RE = re.compile(
    r"[\s,]*(?P<rest>(?:during|while|with|doing|performing|in\s+response|under|after|before|across)\b[^.;!?\n]*)"
)
_ABOUT_THE_ANIMAL_RE = re.compile(
    r"\b(?:\d+[\s-]?(?:years?|yrs?|months?|weeks?|days?)[\s-]old|\d+\s?y/?o|(?:fe)?male)\s+(?=[^\W\d_])", _I
)


def _over_the_subject(blanked: str, whole: str, description: str, subjects: Sequence[tuple[int, int]]) -> str:
    """A description read up to a subject taken out of its sentence goes on after it, with the animal
    but without its id, age and sex: "ECoG over the motor cortex of a female" + "minipig (ID GM-2,
    8 months old) during treadmill walking" → "ECoG over the motor cortex of a minipig during treadmill
    walking"."""
    start = blanked.find(description)
    if start < 0:
        return description
    end = start + len(description)

    def subject_at(run: re.Match[str]) -> bool:
        return any(a < run.end() and run.start() < b for a, b in subjects)

    def goes_on_after(run: re.Match[str]) -> re.Match[str] | None:
        after = run.end()
        if closing := _REST_OF_PARENTHESIS_RE.match(blanked, after):
            after = closing.end()  # "(ID GM-2, 8 months old)": the rest of the subject's parenthesis
        return _GOES_ON_AFTER_SUBJECT_RE.match(blanked, after)

    cut = False
    for run in _BLANK_RUN_RE.finditer(blanked, start, end):
        if subject_at(run) and not goes_on_after(run):
            end, cut = run.start(), True  # "fiber photometry DLS during habit training ⎵⎵⎵ F 10wk": the subject ends it
            break
    gap = _BLANK_RUN_RE.match(blanked, end + 1 if blanked[end : end + 1] == " " else end)
    if gap and subject_at(gap) and (rest := goes_on_after(gap)):
        end = rest.end()
    elif not cut and not any(subject_at(run) for run in _BLANK_RUN_RE.finditer(blanked, start, end)):
        return description
    taken = [any(a <= k < b for a, b in subjects) for k in range(start, end)]  # the subject's characters
    value = whole[start:end]
    for m in reversed(list(re.finditer(r"\s*\([^()]*\)", value))):
        if any(taken[m.start() : m.end()]):
            value, taken = value[: m.start()] + value[m.end() :], taken[: m.start()] + taken[m.end() :]
    kept = "".join(
        " " if taken[k] and (ch.isdigit() or ch in "()#,") else ch for k, ch in enumerate(value)
    )  # the animal's name stays, its id goes
    kept = re.sub(r"\b(?:ID|id|no|nr|code)\b\s*(?=\s|$)", " ", kept)
    kept = re.sub(r"(?<=\s)[A-Za-z]{1,3}-(?=\s|$)", " ", kept)  # "GM-" of a blanked "GM-2"
    kept = _ABOUT_THE_ANIMAL_RE.sub("", kept)
    return " ".join(kept.split()).strip(" ,;(")


# What a guessed description never starts with: an age, the sex, a pronoun for the animal, a laugh.
_NOT_A_DESCRIPTION_RE = re.compile(
    r"(?:about\s+|around\s+|~\s*)?\d+(?:[.,]\d+)?\s*(?:days?|weeks?|wks?|months?|mos?|years?|yrs?)\b"
    r"|(?:sex|age|he|she|haha|lol)\b",
    _I,
)
_FIRST_PERSON_START_RE = re.compile(
    r"^(?:so\s+|basically\s+|here\s+|mainly\s+)?(?:i|we)\s+(?:(?:mostly|mainly|usually|also|both)\s+)?"
    r"(?:did|do|does|make|made|performed|perform|ran|run|carried\s+out|conduct(?:ed)?|use|used|measured|measure"
    r"|studied|study)\s+"
    r"|^[^:]{0,50}\b(?:myself|me|recordings?|this\s+one|session)\b[^:]{0,10}:\s*"
    r"|^(?:[^:]{0,50}\s)?(?:recorded|did|ran|performed)(?:\s+(?:it|them|together|both|jointly))?\s*:\s*"
    r"|^(?:rec(?:orded|ordings?)?|done|performed)\b[^:]{0,40}?\bby\s[^:]{3,60}:\s*"  # "Rec by Theo P. @ Crete: …"
    r"|^(?:it'?s|this\s+is|these\s+are)\s+(?=\S+\s+\S+)"
    r"|^(?:i|we)\s+(?=(?:record|recorded|image|imaged)\b)"  # "We record place cells …" → "record place cells …"
    r"|^(?:the\s+)?(?:experiment|experience|study|project)\s+(?:is|was|consists\s+(?:in|of))\s+(?:about\s+)?"
    r"|^(?:i|we)\s+(?:was|were|am|are|'m|'re)\s+(?:looking\s+at|studying|investigating|interested\s+in)\s+"
    r"|^[^:]{0,60}\b(?:actually|sorry)\b[^:]{0,40}:\s*"
    r"|^i'?d\s+describe\s+it\s+as\s+"
    r"|^[^:]{0,40}\b(?:experiment|details|project|study)\b[^:]{0,20}:\s*",
    _I,
)


def _without_first_person(value: str) -> str:
    """ "I did patch clamp in acute slices" → "patch clamp in acute slices"; a pasted paragraph stays as
    it was written."""
    if len(value.split()) > 25 or re.search(r"[.!?]\s", value):
        return value
    lead_in = _WE_DO_RE.search(value)
    if lead_in and not _research_words(value[: lead_in.start()]):
        value = value[lead_in.end() :]  # "at the Stazione Zoologica … 🐙 we do chronic LFP from …"
    bare = _FIRST_PERSON_START_RE.sub("", value, count=1)
    return bare if _names_a_method(bare) or _describes_experiment(bare) else value


def _continued_description(text: str, description: str) -> str:
    """The description with the comma parts after it that go on describing the experiment."""
    start = text.find(description)
    if start < 0:
        return description
    end = start + len(description)
    earliest = start
    while (m := _PART_BEFORE_RE.search(text, 0, earliest)) and (
        _continues_description(_without_first_person(m.group("part")), before=True)
        or _names_the_animals(m.group("part"))
    ):
        earliest = m.start("part")
    if earliest < start and _names_a_method(text[earliest:end]):
        # "We record place cells in rats on a rotating arena, tetrodes in CA1"; "tetrodes, CA1, sleep replay"
        start = earliest
    if (m := _ANIMALS_BEFORE_DASH_RE.search(text, 0, start)) and _names_the_animals(m.group("part")):
        start = m.start("part")  # "Zebrafish larvae PTZ seizures — local field potential in optic tectum"
    while (m := _NEXT_PART_RE.match(text, end)) and _continues_description(m.group("part")):
        end = m.end()
    return text[start:end]


_INTENT_WORDS_RE = re.compile(r"\b(?:go\s+ahead|convert|don'?t\s+know|no\s+idea|not\s+sure|skip|later)\b", _I)
# A number standing alone ("12 weeks", "512-electrode", "3.5"); not inside a name ("CA3", "L2/3", "2D").
_WE_DO_RE = re.compile(
    r"(?<![\w'])(?:i|we)(?:'m|\s+am|\s+are|'re)?\s+(?:do|did|doing|make|made|ran|run|use|used|perform(?:ed)?"
    r"|carr(?:y|ied)\s+out)\s+",
    _I,
)
_NUMBER_RE = re.compile(r"(?<![\w/-])\d+(?:[.,]\d+)?(?![\w/])")
# Comma parts, within what a separator (" | ", " / ", " // ") leaves of a form-like line.
_PART_BEFORE_RE = re.compile(r"(?:^|[.!?;:\n|]\s*|\s//?\s+|,\s*)(?P<part>[^,.;:!?\n|]+?),\s*$")
_NEXT_PART_RE = re.compile(r",\s*(?P<part>[^,.;!?\n|]+?)(?=\s*(?:[,;!?\n|]|//?\s|\.(?:\s|$)|$))")
_ANIMALS_BEFORE_DASH_RE = re.compile(r"(?:^|[.!?]\s+|\n)(?P<part>[^.!?\n,;:—–]+?)\s[—–]\s*$")
_LOWERCASE_PEOPLE_RE = re.compile(r"[a-zà-ÿ]+\s[a-zà-ÿ]+(?:\s(?:and|&)\s[a-zà-ÿ]+\s[a-zà-ÿ]+)+")
# A count of what was recorded with ("64 ch", "16-channel", "4 shanks"), which a description may hold.
_COUNT_OF_PARTS_RE = re.compile(
    r"(?<![\w/-])\d+\s?-?\s?(?:ch|chan|channels?|electrodes?|contacts?|shanks?|sites?|tetrodes?|probes?|k?hz)\b", _I
)


def _names_the_animals(part: str) -> bool:
    """ "Drosophila larvae", "Cynomolgus monkeys", "Weakly electric fish (Apteronotus leptorhynchus)": the
    animals an experiment is done in, which open its description."""
    outside = re.sub(r"\([^()]*\)", " ", part)
    words = patterns.WORD_RE.findall(outside)
    return (
        1 < len(words) <= 4
        and not _NUMBER_RE.search(outside)
        and bool(species_mentions(outside))
        and not (prose.sex(outside))
    )


def _continues_description(part: str, *, before: bool = False) -> bool:
    """Whether a comma part goes on describing ("looking at mossy fiber LTP", "fear recall", "cochlear
    nucleus bushy cells") rather than starting the subject, a person, a place or a remark."""
    outside = _COUNT_OF_PARTS_RE.sub(" ", re.sub(r"\([^()]*\)", " ", part))
    words = patterns.WORD_RE.findall(outside)
    lowered = [w.lower() for w in words]
    if not words and outside != part and not _NUMBER_RE.search(outside):
        return True  # "scalp EEG, 64 ch, auditory oddball"
    if (
        len(words) == 1
        and not _NUMBER_RE.search(outside)
        and (lowered[0] in vocabulary.METHOD_WORDS or lowered[0] in vocabulary.BRAIN_AREAS)
    ):
        return True  # "tetrodes, CA1, sleep replay", "GCaMP photometry, BLA, cue-reward task"
    if not 2 <= len(words) <= 16 or _NUMBER_RE.search(outside) or lowered[0] in vocabulary.NOT_A_CONTINUATION_START:
        return False
    if before and _LOWERCASE_PEOPLE_RE.fullmatch(outside.strip()) and not _research_words(outside):
        return False  # "lucas ferreira and beatriz rocha, USP, tetrode recordings …"
    if lowered[0] in vocabulary.SPECIES_WORDS and (len(words) < 3 or prose.sex(outside)):
        return False  # "mice, male"; but "mice doing T-maze alternation" goes on describing
    if prose.sex(outside) and not (
        len(lowered) > 1 and lowered[1] in vocabulary.SPECIES_WORDS and lowered[1].endswith("s")
    ):
        return False  # "female, 12 weeks"; but "female mice, social isolation" describes the animals used
    if _is_organisation(part.strip()) or institutions.named(part, _is_a_known_institution) or _person(part.strip()):
        return False
    if not before and prose.binomial_in_prose(part.strip(), _vocabulary_word) == part.strip():
        return True  # "…, Apteronotus leptorhynchus, during amplitude modulations": the species' Latin name
    if re.search(r"\b[A-Z][a-z]+\s[A-Z][a-z]+\b", outside) or _about_the_conversation(part):
        return False  # "Cambridge NeuroTech", "Maria Lopez"; "sorry for the delay"
    if _command(part) or _refusal(part) or _INTENT_WORDS_RE.search(part):
        return False  # "go ahead and convert", "don't know the rest"
    return (
        any(
            w in vocabulary.DESCRIPTION_WORDS or w in vocabulary.METHOD_WORDS or w in vocabulary.BRAIN_AREAS
            for w in lowered
        )
        or any(w.endswith("ing") and len(w) > 5 for w in lowered)
        or all(w.islower() for w in words)
        # "LTP after theta burst", "LTP induction"; not "instituion NIMHANS"
        or ((len(words) > 2 or words[-1].islower()) and all(w.islower() or (w.isupper() and len(w) > 1) for w in words))
    )


_METHOD_START = (
    r"wide-?field|two-photon|2-?p|in\s+vivo|in\s+vitro|ex\s+vivo|acute|chronic|intra-?op\w*|overnight|fib(?:re|er)"
    r"|single[\s-]units?|single-neuron|multi-?units?|extracellular|intracellular|juxtacellular|whole-cell|patch\w*"
    r"|calcium|optogenetic\w*|chemogenetic\w*|microelectrode|silicon|utah|laminar|tetrodes?|eeg|ecog|seeg|ieeg|lfps?"
    r"|mea|miniscope|light-?sheet|neuropixels|photometry|polysomnography|electrophysiolog\w*|imaging|recordings?"
    r"|dendritic|somatic|scalp|depth|high-density|cortical|hippocampal"
)
# "we recorded EEG in rats after …", "I did whole-cell patch clamp in …", "Recordings by A and B: wireless
# tetrode recordings of place cells …", "Experiment done by A at LMU: juxtacellular recordings …".
_DESCRIPTION_CLAUSE_RES = (
    re.compile(
        r"(?<![\w'])(?:i|we|they|she|he|(?-i:[A-Z][\w'’-]+\s[A-Z][\w'’-]+))(?:\s*\([^()]{0,80}\))?\s+"
        r"(?:(?:also|both|mostly|mainly|then)\s+)?"
        r"(?P<verb>did|do|make|made|performed|ran|use|used|carried\s+out|conducted|recorded|record|imaged|image)\s+"
        r"(?!not\b|never\b)(?!(?:all\s+|both\s+|half\s+)?(?:of\s+)?(?:the|these|this|those|my|our|his|her|its)\s+"
        r"(?:[\w-]+\s+){0,2}?(?:recordings?|sessions?|surger(?:y|ies)|experiments?|analysis|work|data)\b"
        r"|(?:it|them|all|analysis|everything|surgery|surgeries)\b)(?P<rest>[^.!?;\n]+)",
        _I,
    ),
    re.compile(r"(?:^|[.!?]\s+)(?:it'?s|this\s+is|these\s+are)\s+(?P<rest>[^.!?;\n]+)", _I),
    re.compile(
        r"\b(?:recordings?|recorded|experiments?)\s+(?:were\s+|was\s+)?(?:done\s+|made\s+|performed\s+)?by\s+"
        r"[^,.;:!?\n]{3,80}?\s+(?:with|from|using)\s+(?P<rest>[^.!?;\n]+)",
        _I,
    ),
    # A sentence that starts with the method and says where or in what: "Wide-field imaging of the whole dorsal
    # cortex in awake mice …" (not "Recording started at …", "Recording location was …").
    re.compile(
        rf"(?:^|[.!?]\s+|\n\s*|,\s+)(?P<rest>(?:{_METHOD_START})\b(?!\s+(?:started|starts|start|location|site|date|time"
        rf"|was|were|is|are|done|made|by|ran|run)\b)[^.!?;:\n]*?\b(?:in|of|from|during|with)\b[^.!?;:\n]+)",
        _I,
    ),
    re.compile(
        r"\b(?:recordings?|experiments?|sessions?|experiment|it)\s+(?:was\s+|were\s+)?(?:done|made|performed|run|"
        r"carried\s+out)?\s*by\s+[^:.;!?\n]{3,80}?:\s*(?P<rest>[^.!?;\n]+)",
        _I,
    ),
    # A sentence of comma parts that starts with the method: "photometry, NAc, sucrose seeking".
    re.compile(rf"(?:^|[.!?]\s+|\n\s*)(?P<rest>(?!record)(?:{_METHOD_START})\b[^.!?;:\n,]*,[^.!?;:\n]+)", _I),
)


def _animals_sentence(text: str) -> str | None:
    """A sentence that opens with the animals and names a method ("Zebrafish larvae PTZ seizures — local
    field potential in optic tectum, testing cannabidiol")."""
    for m in re.finditer(r"(?:^|(?<=[.!?]\s)|(?<=\n))[A-Z][^.!?\n]{12,}", text):
        sentence = m.group().strip()
        mentions = species_mentions(sentence)
        if mentions and mentions[0].start == 0 and _names_a_method(sentence) and not _about_the_conversation(sentence):
            head = re.match(r"(?:[^,(]|\([^()]*\))+", sentence)
            assert head is not None  # the sentence opens with a capital letter, which the pattern takes
            return _continued_description(text, head.group().strip())
    return None


def _description_in_sentences(text: str) -> str | None:
    for pattern in _DESCRIPTION_CLAUSE_RES:
        for m in pattern.finditer(text):
            rest = m.group("rest")
            first = re.match(r"(?:[^,(]|\([^()]*\))+", rest)  # to the first comma outside parentheses
            if first is None:
                continue
            value = _continued_description(text, first.group().strip())
            verb = (m.groupdict().get("verb") or "").lower()
            if verb in ("recorded", "record", "imaged", "image"):  # "we recorded EEG in rats": the verb says the method
                value = f"{verb} {value}"
            if _names_a_method(value) and not _about_the_conversation(value) and len(value.split()) >= 3:
                return value.strip()
    return _animals_sentence(text)


_LOCATION_BEFORE_RE = re.compile(
    r"^(?:mostly|mainly|largely|primarily)\s+"  # "mostly dorsal CA1, a few channels ended up in the cortex"
    r"|^(?:the\s+)?(?:recording\s+(?:location|site)|recordings?|location|electrodes?|probes?|it|we\s+recorded)\s+"
    r"(?:was|were|is|are|)\s*(?:all\s+)?(?:in|at|from|into)?\s*(?:the\s+)?",
    _I,
)
_ID_WORD_BEFORE_RE = re.compile(r"^(?:nr|no|num|tag|ear\s+tag|band|ring|chip|id)\.?\s+(?=\S*\d)", _I)
_KOREAN_PARTICLE_AT_END_RE = re.compile(r"(?<=[\uac00-\ud7af])(?:에서의|에서|에는|에|의|을|를)$")
_LOCATION_AFTER_RE = re.compile(
    r",\s*(?:if|in\s+case|just|btw|fyi|as\s+far|i\s+think|i\s+forgot|forgot|sorry|i\s+believe|i\s+guess)\b.*$"
    r"|,\s*(?:a\s+)?few\s+(?:channels?|contacts?|electrodes?)\b.*$",  # "dorsal CA1, a few channels ended up in …"
    _I,
)


# A lab is named after a person or a name of its own, not "our lab", "a rat lab", "just our group".
_NOT_A_LAB_NAME_RE = re.compile(
    r"(?i:just\s+|only\s+)?(?:(?i:our|my|a|an|this|that|his|her|their|your|whole|same|new|old|rat|mouse|monkey|fish"
    r"|primate|nhp|imaging|ephys|patch|slice)\b|(?i:the)\s+(?![A-Z]))",
)


def _more_specific_species(text: str, parsed: ParsedMessage) -> ParsedMessage:
    """The species the chunks read, or the longer name it is part of: "macaque" of "a cynomolgus macaque"
    is Macaca fascicularis, not the rhesus that "macaque" alone means."""
    read = parsed.fields["species"]
    latin = prose.binomial(text)  # "African giant pouched rats (Cricetomys gambianus)": the Latin name says which
    if latin and _species_of(latin) and _species_of(latin) != _species_of(read):
        return replace(parsed, fields={**parsed.fields, "species": latin})
    for mention in species_mentions(text):
        written = text[mention.start : mention.end]
        if read != written and read.lower() in written.lower() and mention.species != _species_of(read):
            return replace(parsed, fields={**parsed.fields, "species": written})
    return parsed


def _with_age_reference(parsed: ParsedMessage) -> ParsedMessage:
    """An age counted from fertilisation ("6 dpf", "36 hpf") as NWB keeps it: the duration ("P6D"), with
    the age counted from "gestational" (Subject.age__reference), unless the message says otherwise."""
    age = parsed.fields.get("age")
    duration = post_fertilisation_age(re.sub(r"\s*-?\s*old$", "", age, flags=_I)) if age else None
    if duration is None:
        return parsed
    fields = {**parsed.fields, "age": duration}
    fields.setdefault("age__reference", "gestational")
    return replace(parsed, fields=fields)


def _with_the_sex_of_the_species(parsed: ParsedMessage) -> ParsedMessage:
    """A hermaphrodite is "XX" for C. elegans (nwbinspector's form) and "O" (other) for any other species
    (a leech, Aplysia): the words say "hermaphrodite", the species says which."""
    said = parsed.fields.get("sex", "").strip().lower()
    species = parsed.fields.get("species")
    if said not in ("hermaphrodite", "hermaphrodites") or not species or _species_of(species) in (None, _ELEGANS):
        return parsed
    return replace(parsed, fields={**parsed.fields, "sex": "other"})


_ELEGANS = "Caenorhabditis elegans"


# What the rules' word lists say of a message's words, for the tagger's features.
LEXICON = tagger.Lexicon(
    is_word=_vocabulary_word,
    could_be_name=lambda word: people.could_be_a_name(word, _vocabulary_word),
    is_institution_word=institutions.is_keyword,
    areas=brain_areas.area_spans,
    animals=lambda text: [(m.start, m.end) for m in species_mentions(text)],
    zones=lambda text: [(m.start, m.end) for m in zone_mentions(text)],
    subjects=lambda text: [(m.start, m.end) for m in subject_mentions(text, vocabulary.NAME_STOPWORDS)],
)

"""The labels the rule-based reader (conversions.language.rules) knows: the words that say which field a
value is for ("experimenter: …", "the lab is …", "recorded by …", in the users' languages), how each
introduces its value, and the patterns that find them; and the words that name a field or a group
of fields when the user declines ("skip the subject").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum

from conversions.language import east_asian, patterns
from conversions.nwb.fields import FIELDS, SUBJECT_FIELDS

_I = re.IGNORECASE


class Intro(StrEnum):
    """How a label introduces its value."""

    STRICT = "strict"  # only "label: value" or "label = value": the word is common in free text
    COPULA = "copula"  # also "the label is value"
    LOOSE = "loose"  # also "label value", when the value has the field's shape ("age P60")
    PHRASE = "phrase"  # the phrase itself introduces the value ("recorded by Jane Smith")


@dataclass(frozen=True)
class Label:
    field: str
    intro: Intro
    needs_cue: bool = False  # the value must have a content cue for the field ("I'm Jane Smith")
    generic: bool = False  # even after ":", the value must fit ("mouse: female" is not an id)
    # Names who leads the lab (PI, supervisor) or who writes ("I'm …"): the experimenter only if no one
    # else is named.
    leads: bool = False


_S, _C, _L, _P = Intro.STRICT, Intro.COPULA, Intro.LOOSE, Intro.PHRASE

LABELS: dict[str, Label] = {
    "experimenter": Label("experimenter", _L),
    "experimenters": Label("experimenter", _L),
    "experimentalist": Label("experimenter", _C),
    # Misspellings common enough to be worth reading as the label.
    "experimentor": Label("experimenter", _L),
    "experimentor's": Label("experimenter", _S),
    "expermenter": Label("experimenter", _L),
    "researcher": Label("experimenter", _C),
    "researchers": Label("experimenter", _C),
    "investigator": Label("experimenter", _C),
    "principal investigator": Label("experimenter", _C, leads=True),
    "pi": Label("experimenter", _C, leads=True),
    "scientist": Label("experimenter", _C),
    "who recorded": Label("experimenter", _S),
    "name": Label("experimenter", _S, generic=True),
    "recorded by": Label("experimenter", _P),
    "rec by": Label("experimenter", _P),
    "rec'd by": Label("experimenter", _P),
    "performed by": Label("experimenter", _P),
    "collected by": Label("experimenter", _P),
    "conducted by": Label("experimenter", _P),
    "acquired by": Label("experimenter", _P),
    "done by": Label("experimenter", _P),
    # Who writes is the experimenter unless the message names who recorded ("I'm Ana Costa, the
    # technician. The experiments were performed by Dr. Pedro Alves").
    "my name is": Label("experimenter", _P, leads=True),
    "i am": Label("experimenter", _P, needs_cue=True, leads=True),
    "i'm": Label("experimenter", _P, needs_cue=True, leads=True),
    "institution": Label("institution", _L),
    "affiliation": Label("institution", _L),
    "where": Label("institution", _S, generic=True),
    "place": Label("institution", _S, generic=True),
    "uni": Label("institution", _S),
    "who": Label("experimenter", _S, generic=True),
    "names": Label("experimenter", _S, generic=True),
    "recorder": Label("experimenter", _C),
    "recordist": Label("experimenter", _C),  # an EEG lab's word for who ran the recording
    "recorded": Label("experimenter", _S, generic=True),
    "made by": Label("experimenter", _P, needs_cue=True),
    "on behalf of": Label("experimenter", _P, needs_cue=True),
    "supervisor": Label("experimenter", _C, leads=True),
    "lab head": Label("experimenter", _C, leads=True),
    "head of the lab": Label("experimenter", _C, leads=True),
    # The same labels in the languages of the portal's users ("Experimentador: …", "Instituição: …").
    "experimentador": Label("experimenter", _C),
    "experimentadora": Label("experimenter", _C),
    "experimentator": Label("experimenter", _C),
    "expérimentateur": Label("experimenter", _C),
    "expérimentatrice": Label("experimenter", _C),
    "sperimentatore": Label("experimenter", _C),
    "versuchsleiter": Label("experimenter", _C),
    "versuchsleiterin": Label("experimenter", _C),
    "instituição": Label("institution", _S),
    "institución": Label("institution", _S),
    "istituzione": Label("institution", _S),
    "einrichtung": Label("institution", _S),
    "inst": Label("institution", _S),
    "experimento": Label("experiment_description", _S),
    "esperimento": Label("experiment_description", _S),
    "eksperyment": Label("experiment_description", _S),
    "eksperiment": Label("experiment_description", _S),
    "deney": Label("experiment_description", _S),
    "expérience": Label("experiment_description", _S),
    "expt": Label("experiment_description", _S),
    "exp": Label("experimenter", _S, generic=True),
    "especie": Label("species", _S),
    "espécie": Label("species", _S),
    "espèce": Label("species", _S),
    "sexo": Label("sex", _S),
    "sexe": Label("sex", _S),
    "geschlecht": Label("sex", _S),
    "edad": Label("age", _S),
    "idade": Label("age", _S),
    "âge": Label("age", _S),
    "alter": Label("age", _S),
    "me": Label("experimenter", _S, generic=True),
    "what": Label("experiment_description", _S),
    "research": Label("experiment_description", _S),
    "instituion": Label("institution", _L),
    "insitution": Label("institution", _L),
    "intitution": Label("institution", _L),
    "institusion": Label("institution", _L),
    "university": Label("institution", _C),
    "institute": Label("institution", _C),
    "organization": Label("institution", _C),
    "organisation": Label("institution", _C),
    "recorded at": Label("institution", _P, needs_cue=True),
    "work at": Label("institution", _P),
    "works at": Label("institution", _P),
    "working at": Label("institution", _P),
    "based at": Label("institution", _P),
    "we're at": Label("institution", _P),
    "we are at": Label("institution", _P),
    "i'm at": Label("institution", _P),
    "i am at": Label("institution", _P),
    "i'm from": Label("institution", _P),
    "i am from": Label("institution", _P),
    "we're from": Label("institution", _P),
    "we are from": Label("institution", _P),
    "lab": Label("lab", _C),
    "laboratory": Label("lab", _C),
    "lab name": Label("lab", _C),
    "research group": Label("lab", _C),
    "group": Label("lab", _S),
    "experiment description": Label("experiment_description", _L),
    "description": Label("experiment_description", _L),
    "experiment": Label("experiment_description", _C),
    "about": Label("experiment_description", _S),
    "is about": Label("experiment_description", _P),
    "was about": Label("experiment_description", _P),
    "study": Label("experiment_description", _S),
    "project": Label("experiment_description", _S),
    "summary": Label("experiment_description", _S),
    "session description": Label("session_description", _C),
    "session": Label("session_description", _S),
    "session notes": Label("session_description", _S),
    "keywords": Label("keywords", _C),
    "keyword": Label("keywords", _C),
    "tags": Label("keywords", _S),
    "session start time": Label("session_start_time", _L),
    "session start": Label("session_start_time", _L),
    "start time": Label("session_start_time", _L),
    "recording date": Label("session_start_time", _L),
    "recording time": Label("session_start_time", _L),
    "session date": Label("session_start_time", _L),
    "date/time": Label("session_start_time", _L),
    "date and time": Label("session_start_time", _L),
    "date & time": Label("session_start_time", _L),
    "date of recording": Label("session_start_time", _L),
    "date": Label("session_start_time", _S, generic=True),
    "when": Label("session_start_time", _S, generic=True),
    # "…, started 2023-11-02 09:15", "the session began on 2 Nov 2023 at 9:15": a date must follow.
    **dict.fromkeys(
        ("recorded on", "started", "starting", "start", "began", "begun", "beginning", "commenced"),
        Label("session_start_time", _P, needs_cue=True),
    ),
    # The same label in the users' other languages: "Beginn: 12. April 2024, 9:05 Uhr", "Inicio 10:30 …".
    **dict.fromkeys(
        ("beginn", "aufnahmebeginn", "inicio", "início", "début", "inizio", "başlangıç", "start opname", "starttid"),
        Label("session_start_time", _S),
    ),
    "subject id": Label("subject_id", _L),
    "subject identifier": Label("subject_id", _L),
    "animal id": Label("subject_id", _L),
    "mouse id": Label("subject_id", _L),
    "sub id": Label("subject_id", _L),
    "subj id": Label("subject_id", _L),
    "rat id": Label("subject_id", _L),
    "subject name": Label("subject_id", _C),
    "subject's name": Label("subject_id", _C),
    "animal's name": Label("subject_id", _C),
    "mouse's name": Label("subject_id", _C),
    "rat's name": Label("subject_id", _C),
    "monkey's name": Label("subject_id", _C),
    "animal name": Label("subject_id", _C),
    "subject": Label("subject_id", _C, needs_cue=True, generic=True),
    "animal": Label("subject_id", _C, needs_cue=True, generic=True),
    "mouse": Label("subject_id", _S, generic=True),
    "id": Label("subject_id", _L, generic=True),
    "species": Label("species", _L),
    "organism": Label("species", _L),
    "sex": Label("sex", _L),
    "gender": Label("sex", _L),
    "age": Label("age", _L),
    "date of birth": Label("date_of_birth", _L),
    "birth date": Label("date_of_birth", _L),
    "birthdate": Label("date_of_birth", _L),
    "birthday": Label("date_of_birth", _L),
    "dob": Label("date_of_birth", _L),
    "born on": Label("date_of_birth", _P, needs_cue=True),
    "born": Label("date_of_birth", _P, needs_cue=True),
    "strain": Label("strain", _L),
    "genotype": Label("strain", _L),
    "location": Label("location", _C),
    "recording location": Label("location", _C),
    "recording site": Label("location", _C),
    "brain area": Label("location", _C),
    "brain region": Label("location", _C),
    "area": Label("location", _S, generic=True),
    "region": Label("location", _S, generic=True),
    "target": Label("location", _S, generic=True),
    "cell id": Label("cell_id", _L),
    "cell": Label("cell_id", _S, generic=True),
    "slice id": Label("slice_id", _L),
    "slice": Label("slice_id", _S, generic=True),
    "video start": Label("behaviour_start_s", _C),
    "camera start": Label("behaviour_start_s", _C),
    "video offset": Label("behaviour_start_s", _C),
    "pose frame rate": Label("pose_rate_hz", _C),
    "frame rate": Label("pose_rate_hz", _C),
    "fps": Label("pose_rate_hz", _L),
    "mouse line": Label("strain", _C),
    "line": Label("strain", _S, generic=True),
}
# A field's own name is a label too: "subject_id = SC-2022-07", as a script or a spreadsheet writes it.
LABELS.update({name: Label(name, _S) for name in FIELDS if "_" in name and name not in LABELS})
# Labels in Japanese and Chinese ("実験者：…", "小鼠编号 LY-21"): an id, a sex or an age may follow without a colon.
LABELS.update(
    {
        phrase.lower(): Label(name, _L if name in ("subject_id", "sex", "age") else _S)
        for phrase, name in east_asian.LABELS.items()
    }
)


# Words naming a group of fields when the user declines ("skip the subject", "I don't know the rest").
REST = "*rest*"
_GROUP_MENTIONS: dict[str, tuple[str, ...]] = {
    "subject": SUBJECT_FIELDS,
    "animal": SUBJECT_FIELDS,
    "mouse": SUBJECT_FIELDS,
    "rest": (REST,),
    "others": (REST,),
    "other ones": (REST,),
    "other fields": (REST,),
    "remaining": (REST,),
    "everything else": (REST,),
    "any of it": (REST,),
    "any of them": (REST,),
}
# Strict labels ("about", "when", "line") are too common to name a field in "not sure about the age".
MENTIONS: dict[str, tuple[str, ...]] = {
    **{phrase: (label.field,) for phrase, label in LABELS.items() if label.intro in (_C, _L)},
    "date": ("session_start_time",),
    **_GROUP_MENTIONS,
}


LABEL_RE = re.compile(
    r"(?<![\w'])(?:(?P<verb>change|set|update|correct|switch|fix|make|modify|edit)\s+)?"
    r"(?:(?:the|our|his|her|their|la|le|die|der|das|el|il|o|a)\s+|l['’])?"  # not "my": "my name is" is a label
    rf"(?P<label>{patterns.phrases(LABELS)}|[^\W\d_][^\W\d_-]{{3,19}}(?=\s{{0,2}}[:=]))(?:\(s\))?(?![\w'])",
    _I,
)
SEPARATOR_RE = re.compile(
    r"[ \t]*(?:(?P<strict>:|=>?|->|-(?=\s))"
    r"|(?P<copula>(?:is|was|are|were)(?:\s+actually)?|should\s+(?:be|have\s+been)"
    r"|est|ist|war|es|era|è|é|är|var|jest|был[аи]?)(?![\w'])"  # the same in the users' other languages
    r"|(?P<to>to|with|into)(?![\w']))[ \t]*",
    _I,
)
# A value named after it: "Peter Novak was the experimenter", "MIT is our institution".
REVERSE_LABEL_RE = re.compile(
    r"(?<!\s)\s+(?:is|was|are|were)\s+(?:the|our|my|their|his|her)\s+"
    rf"(?P<label>{patterns.phrases(p for p, label in LABELS.items() if label.intro in (_C, _L) and not label.generic)})"
    r"[\s.!]*$",
    _I,
)
MENTION_RE = re.compile(rf"(?<![\w'])(?:{patterns.phrases(MENTIONS)})(?![\w'])", _I)

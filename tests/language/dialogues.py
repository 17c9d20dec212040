"""Chat messages and what the rule-based reader must make of them, in one place for the tests
(tests/language/test_rules.py) and the figures (bench/dialogues.py).

Two kinds. The tables (LABELED, BULK, …; TABLES, ALL_CASES) give, for one message and the question
it answers, the whole `ParsedMessage` expected: intents, fields, skipped fields, format, corrections.
The realistic answers (FIRST_SET … SIXTH_SET; REALISTIC_SETS, CORPUS) give only the raw field
values a careful reader would extract, and are scored by `field_accuracy`.
"""

from __future__ import annotations

from typing import NamedTuple

from conversions.language.rules import Intent, ParsedMessage, parse_message
from conversions.nwb.fields import CRITICAL_FIELDS, SUBJECT_FIELDS

ASKED_FIRST = (*CRITICAL_FIELDS, *SUBJECT_FIELDS)  # what the portal asks once the format is known
CRITICAL = CRITICAL_FIELDS
SUBJECT = SUBJECT_FIELDS


class Case(NamedTuple):
    text: str
    asking: tuple[str, ...]
    expected: ParsedMessage


def case(
    text: str,
    *intents: Intent,
    asking: tuple[str, ...] = (),
    skipped: tuple[str, ...] = (),
    fmt: str | None = None,
    corrections: tuple[str, ...] = (),
    zone: str | None = None,
    unclear_zone: str | None = None,
    **fields: str,
) -> Case:
    """One message, the question it answers (`asking`) and everything it must yield, exactly."""
    expected = ParsedMessage(
        frozenset(intents),
        fields,
        frozenset(skipped),
        fmt,
        frozenset(corrections),
        timezone=zone,
        unclear_zone=unclear_zone,
    )
    return Case(text, asking, expected)


PM, APPROVE, REJECT = Intent.PROVIDE_METADATA, Intent.APPROVE, Intent.REJECT

LABELED = [
    case("experimenter: Jane Smith; institution: MIT", PM, experimenter="Jane Smith", institution="MIT"),
    case(
        "Experimenter = Dr. Smith, Institution = Stanford University",
        PM,
        experimenter="Dr. Smith",
        institution="Stanford University",
    ),
    case(
        "the experimenter is Jane Smith and the institution is MIT",
        PM,
        experimenter="Jane Smith",
        institution="MIT",
    ),
    case("it was recorded by Jane Smith at MIT", PM, experimenter="Jane Smith", institution="MIT"),
    case("Institution: University College London", PM, institution="University College London"),
    case("subject id mouse001", PM, subject_id="mouse001"),
    # A slash in an id is kept here (the normaliser turns it into a dash DANDI can use), not lost.
    case(
        "Jane Smith, MIT, V1 recording, subject mouse/7, mouse",
        PM,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        subject_id="mouse/7",
        species="mouse",
        location="V1",
    ),
    case("species: mouse, sex: female, age: P60", PM, species="mouse", sex="female", age="P60"),
    case(
        "Experimenter: Smith, Jane\nInstitution: University of California, Berkeley\n"
        "Description: Neuropixels recording in V1, passive viewing\nSubject ID: M12\nSpecies: Mus musculus\n"
        "Sex: F\nAge: P60\nDOB: 2024-01-10\nStrain: C57BL/6J",
        PM,
        experimenter="Smith, Jane",
        institution="University of California, Berkeley",
        experiment_description="Neuropixels recording in V1, passive viewing",
        subject_id="M12",
        species="Mus musculus",
        sex="F",
        age="P60",
        date_of_birth="2024-01-10",
        strain="C57BL/6J",
        location="V1",
    ),
    case(
        "researcher: Zoë Müller, affiliation: ETH Zurich",
        PM,
        experimenter="Zoë Müller",
        institution="ETH Zurich",
    ),
    case("PI: Prof. Ada Lovelace", PM, experimenter="Prof. Ada Lovelace"),
    case(
        "university: Stanford; about: V1 recording",
        PM,
        institution="Stanford",
        experiment_description="V1 recording",
        location="V1",
    ),
    case("experiment: two-photon imaging in V1", PM, experiment_description="two-photon imaging in V1", location="V1"),
    case("animal: M12, organism: rat, gender: male", PM, subject_id="M12", species="rat", sex="male"),
    case("mouse id: m-042", PM, subject_id="m-042", species="mouse"),
    case("birth date: 2023-12-01", PM, date_of_birth="2023-12-01"),
    case("lab: Smith Lab", PM, lab="Smith Lab"),
    case("keywords: V1, Neuropixels, visual cortex", PM, keywords="V1, Neuropixels, visual cortex"),
    case(
        "session start time: 2024-03-15 14:30 Europe/Paris",
        PM,
        session_start_time="2024-03-15 14:30",
        zone="Europe/Paris",
    ),
    case("session description: Passive viewing, day 3", PM, session_description="Passive viewing, day 3"),
    case("experimenter: Jane Smith, MIT", PM, experimenter="Jane Smith", institution="MIT"),
    case("description: V1 recording, go ahead", PM, APPROVE, experiment_description="V1 recording", location="V1"),
    case("Age: unknown", Intent.SKIP_FIELD, skipped=("age",)),
    case("sex: unknown", PM, sex="unknown"),
    case(
        "the effect of age on V1 responses",
        PM,
        asking=("experiment_description",),
        experiment_description="the effect of age on V1 responses",
        location="V1",
    ),
    case("I'm Jane Smith from MIT", PM, experimenter="Jane Smith", institution="MIT"),
    case("my name is Hannah Schmidt", PM, experimenter="Hannah Schmidt"),
]

BULK = [
    case(
        "Dr. Jane Smith, MIT, recording mouse V1 neurons",
        PM,
        asking=ASKED_FIRST,
        experimenter="Dr. Jane Smith",
        institution="MIT",
        experiment_description="recording mouse V1 neurons",
        location="V1",
        species="mouse",
    ),
    # Seed 000, pattern 1: the power user. The file name is neither a field nor a format.
    case(
        "Convert recording.bin, SpikeGLX, Dr. Smith, MIT, V1 recording, mouse001, Mus musculus, P90D, M",
        APPROVE,
        PM,
        Intent.SELECT_FORMAT,
        fmt="spikeglx",
        experimenter="Dr. Smith",
        institution="MIT",
        experiment_description="V1 recording",
        subject_id="mouse001",
        species="Mus musculus",
        age="P90D",
        sex="M",
        location="V1",
    ),
    case(
        "Jane Smith, Stanford, imaging V1 in awake mice, M12, female, 8 weeks",
        PM,
        asking=ASKED_FIRST,
        experimenter="Jane Smith",
        institution="Stanford",
        experiment_description="imaging V1 in awake mice",
        subject_id="M12",
        sex="female",
        age="8 weeks",
        location="V1",
        species="mice",
    ),
    case(
        "Smith, Uppsala, V1 recording",
        PM,
        asking=CRITICAL,
        experimenter="Smith",
        institution="Uppsala",
        experiment_description="V1 recording",
        location="V1",
    ),
    case(
        "University of California, Berkeley, Jane Smith",
        PM,
        asking=CRITICAL,
        institution="University of California, Berkeley",
        experimenter="Jane Smith",
    ),
    case(
        "Jane Smith and John Doe, NYU",
        PM,
        asking=CRITICAL,
        experimenter="Jane Smith and John Doe",
        institution="NYU",
    ),
    case("Smith Lab at MIT", PM, asking=("lab", "institution"), lab="Smith Lab", institution="MIT"),
    case(
        "female C57BL/6 mouse, P60",
        PM,
        asking=SUBJECT,
        sex="female",
        strain="C57BL/6",
        species="mouse",
        age="P60",
    ),
    case("a 90-day-old male mouse", PM, asking=SUBJECT, age="90-day-old", sex="male", species="mouse"),
    case(
        "Stop-signal task in rats",
        PM,
        asking=CRITICAL,
        experiment_description="Stop-signal task in rats",
        species="rats",
    ),
    case("recorded on March 15, 2024 at 2:30 pm", PM, session_start_time="March 15, 2024 at 2:30 pm"),
    case(
        "2024-03-15, mouse001",
        PM,
        asking=("session_start_time", "subject_id"),
        session_start_time="2024-03-15",
        subject_id="mouse001",
    ),
]

ONE_FIELD_ASKED = [
    case("Jane Smith", PM, asking=("experimenter",), experimenter="Jane Smith"),
    case("Stanford", PM, asking=("institution",), institution="Stanford"),
    case("90 days", PM, asking=("age",), age="90 days"),
    case("Smith, Jane", PM, asking=("experimenter",), experimenter="Smith, Jane"),
    case("José Núñez, Zoë Müller", PM, asking=("experimenter",), experimenter="José Núñez, Zoë Müller"),
    # Layer 2: an answer to the question just asked is that answer, unless its shape says otherwise.
    case("Jane Smith", PM, asking=("institution",), institution="Jane Smith"),
    case("MIT", PM, asking=("experimenter",), institution="MIT"),
    case("female", PM, asking=("age",), sex="female"),
    case("mouse001", PM, asking=("species",), subject_id="mouse001"),
    case("12", PM, asking=("subject_id",), subject_id="12"),
    case("unknown", PM, asking=("sex",), sex="unknown"),
    # Several fields asked, one value: its cue decides, else the first asked field it fits.
    case("8 weeks", PM, asking=ASKED_FIRST, age="8 weeks"),
    case("M", PM, asking=ASKED_FIRST, sex="M"),
    case("Uppsala", PM, asking=("institution", "experiment_description"), institution="Uppsala"),
    case("Uppsala", PM, asking=CRITICAL, experimenter="Uppsala"),
]

INTENTS = [
    case("yes, go ahead", APPROVE),
    case("yes", APPROVE),
    case("ok", APPROVE),
    case("👍", APPROVE),
    case("looks good, convert it", APPROVE),
    # A wish to convert is an opening, not the approval of a plan ("I want to convert it" approves).
    case("I want to convert my data", Intent.GREETING),
    case(
        "Jane Smith, MIT, V1 recording. Go ahead.",
        PM,
        APPROVE,
        asking=ASKED_FIRST,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        location="V1",
    ),
    case("no", REJECT),
    case("not yet", REJECT),
    case("wait", REJECT),
    case("don't convert it yet", REJECT),
    case("accept as is", Intent.ACCEPT_AS_IS),
    case("yes, just finish it", Intent.ACCEPT_AS_IS),
    case("good enough, I'll take it", Intent.ACCEPT_AS_IS),
    case("let's fix it", Intent.FIX),
    case("try to fix the issues", Intent.FIX),
    case("cancel", Intent.CANCEL),
    case("stop the conversion", Intent.CANCEL),
    case("never mind, cancel", Intent.CANCEL),
    case("don't cancel"),
    case("no need to stop"),
    case("retry", Intent.RETRY),
    case("try again", Intent.RETRY),
    case("run it again", Intent.RETRY),
    case("where are we?", Intent.STATUS),
    case("status", Intent.STATUS),
    case("what's happening", Intent.STATUS),
    case("how far along is it", Intent.STATUS),
    case("is it done?", Intent.STATUS),
    case("help", Intent.HELP),
    case("what do you need?", Intent.HELP),
    case("what can I say", Intent.HELP),
    case("?", Intent.HELP),
    case("what formats do you support?", Intent.HELP),
    # Seed 000, pattern 2: the minimal user.
    case("Just convert it, skip all the questions", APPROVE, Intent.SKIP_ALL),
    case("skip everything", Intent.SKIP_ALL),
    case("no metadata please", Intent.SKIP_ALL),
    # Seed 000, pattern 3: the interactive user.
    case("Ask me one by one", Intent.ONE_BY_ONE),
    case("one at a time please", Intent.ONE_BY_ONE),
]

CORRECTIONS = [
    # A modification is metadata with corrections, never a REJECT, even after "no".
    case("no, change the institution to Stanford", PM, institution="Stanford", corrections=("institution",)),
    case("actually it's Jane Doe", PM, experimenter="Jane Doe", corrections=("experimenter",)),
    case("sorry, I meant mouse", PM, species="mouse", corrections=("species",)),
    # "yes but …" is not an approval of the plan as it stands.
    case("yes but change the lab to Smith Lab", PM, lab="Smith Lab", corrections=("lab",)),
    case("the institution should be Stanford", PM, institution="Stanford", corrections=("institution",)),
    case("No, it's Stanford", PM, asking=("institution",), institution="Stanford", corrections=("institution",)),
    case("Stanford instead", PM, asking=("institution",), institution="Stanford", corrections=("institution",)),
    case("Institution: MIT. Sorry, Stanford", PM, institution="Stanford", corrections=("institution",)),
    case("a rat, not a mouse", PM, asking=("species",), species="rat"),
    # "wait" in front of a correction steers; alone it still holds the plan back (INTENTS).
    case("wait, the subject is actually mouse-13", PM, subject_id="mouse-13", corrections=("subject_id",)),
    case("sorry I meant P90 not P60", PM, age="P90", corrections=("age",)),
]

REFUSALS = [
    case("skip the subject", Intent.SKIP_FIELD, asking=ASKED_FIRST, skipped=SUBJECT_FIELDS),
    case("I don't know", Intent.SKIP_FIELD, asking=("age",), skipped=("age",)),
    case("skip the institution", Intent.SKIP_FIELD, asking=CRITICAL, skipped=("institution",)),
    case("no idea", Intent.SKIP_FIELD, asking=("date_of_birth",), skipped=("date_of_birth",)),
    case("n/a", Intent.SKIP_FIELD, asking=("strain",), skipped=("strain",)),
    # Found by the golden dialogues: once taken as an experiment description.
    case("I'd rather not say", Intent.SKIP_FIELD, asking=("age",), skipped=("age",)),
    case("I prefer not to share that", Intent.SKIP_FIELD, asking=("experimenter",), skipped=("experimenter",)),
    case("I don't know the age", Intent.SKIP_FIELD, asking=ASKED_FIRST, skipped=("age",)),
    case("no subject info", Intent.SKIP_FIELD, asking=ASKED_FIRST, skipped=SUBJECT_FIELDS),
    case("skip", Intent.SKIP_FIELD, asking=("institution",), skipped=("institution",)),
    case("unknown", Intent.SKIP_FIELD, asking=("age",), skipped=("age",)),
    case(
        "Jane Smith, MIT, V1 recording, don't know the rest",
        PM,
        Intent.SKIP_FIELD,
        asking=ASKED_FIRST,
        skipped=SUBJECT_FIELDS,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        location="V1",
    ),
    case(
        "Jane Smith, MIT, V1 recording. Skip the subject.",
        PM,
        Intent.SKIP_FIELD,
        asking=ASKED_FIRST,
        skipped=SUBJECT_FIELDS,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        location="V1",
    ),
]

FORMATS = [
    case("it's SpikeGLX", Intent.SELECT_FORMAT, fmt="spikeglx"),
    case("Open Ephys", Intent.SELECT_FORMAT, fmt="openephys"),
    case("the format is Intan", Intent.SELECT_FORMAT, fmt="intan"),
    case("not SpikeGLX, it's Open Ephys", Intent.SELECT_FORMAT, fmt="openephys"),
    case("Axon", Intent.SELECT_FORMAT, fmt="axon"),
    case("Neuralynx please", Intent.SELECT_FORMAT, fmt="neuralynx"),
    case("recorded with a Blackrock system", Intent.SELECT_FORMAT, fmt="blackrock"),
]

# Chit-chat is not metadata: a lone phrase is a description only when one was asked for.
CHATTER = [
    # Seed 000's frustrated user: the way out is offered, and the words are never taken as a value.
    case("This keeps failing!", Intent.FRUSTRATED),
    case("Thanks!"),
    case("not now, I need to check the subject id first", REJECT),
    case("This keeps failing!", Intent.FRUSTRATED, asking=("experiment_description",)),
    case(
        "Lots of spontaneous activity",
        PM,
        asking=("experiment_description",),
        experiment_description="Lots of spontaneous activity",
    ),
    case(
        "actually it's a V1 recording",
        PM,
        experiment_description="a V1 recording",
        corrections=("experiment_description",),
        location="V1",
    ),
]

MORE_LABELS = [
    case(
        "experimenter Jane Smith institution MIT description V1 recording",
        PM,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        location="V1",
    ),
    case(
        "The animal was a 3-month-old C57BL/6J male, ID 4471",
        PM,
        age="3-month-old",
        strain="C57BL/6J",
        sex="male",
        subject_id="4471",
        species="C57BL/6J",
    ),
    case("age ~P60", PM, age="P60"),
    case(
        "My name is Hannah Schmidt and I work at Charité",
        PM,
        experimenter="Hannah Schmidt",
        institution="Charité",
    ),
    case(
        "That's wrong, the experimenter is John Doe",
        PM,
        experimenter="John Doe",
        corrections=("experimenter",),
    ),
    case("let's try again with institution MIT", PM, Intent.RETRY, institution="MIT"),
]

MORE_INTENTS = [
    case("fix the timestamps please", Intent.FIX),
    case("please don't stop"),
    case("no, don't accept, fix it", Intent.FIX),
    case("can you start the conversion now?", APPROVE),
    case("Hi! I'd like to convert my SpikeGLX recording.", Intent.GREETING, Intent.SELECT_FORMAT, fmt="spikeglx"),
]

# An opening answered with where things stand; a greeting said in passing adds nothing.
GREETINGS = [
    case("Hi, I'd like to convert my data", Intent.GREETING),
    case("hello", Intent.GREETING),
    case("Good morning!", Intent.GREETING),
    case("how do I start?", Intent.GREETING),
    case("Hi there, I'm new here", Intent.GREETING),
    case("I'd like to use the portal to convert some recordings", Intent.GREETING),
    case(
        "Hello! I want to convert my Open Ephys recordings",
        Intent.GREETING,
        Intent.SELECT_FORMAT,
        fmt="openephys",
    ),
    case(
        "Hey! First time here. How do I convert my Blackrock files?",
        Intent.GREETING,
        Intent.SELECT_FORMAT,
        fmt="blackrock",
    ),
    case("I want to convert it now", APPROVE),
    case("Hey, go ahead", APPROVE),
    case("hi, yes", APPROVE),
    case("good evening, can you help me?", Intent.HELP),
    case(
        "Hello, Jane Smith, MIT",
        PM,
        asking=ASKED_FIRST,
        experimenter="Jane Smith",
        institution="MIT",
    ),
]

# Who did it said with a verb, a start time said in a sentence, a request before a colon.
SENTENCES = [
    case("Peter Novak recorded it", PM, asking=ASKED_FIRST, experimenter="Peter Novak"),
    case("Peter Novak did the recording", PM, experimenter="Peter Novak"),
    case("the experimenter was Dr. Li Wei", PM, experimenter="Dr. Li Wei"),
    case("Peter Novak was the experimenter", PM, experimenter="Peter Novak"),
    case("I'm Jane Doe and I recorded this", PM, asking=ASKED_FIRST, experimenter="Jane Doe"),
    case(
        "Hao Li from Peking University did the recordings, V1 imaging",
        PM,
        asking=CRITICAL,
        experimenter="Hao Li",
        institution="Peking University",
        experiment_description="V1 imaging",
        location="V1",
    ),
    case("a student recorded it", asking=("experimenter",)),
    case(
        "Mouse V1 recording, started 2023-11-02 09:15",
        PM,
        asking=ASKED_FIRST,
        experiment_description="Mouse V1 recording",
        session_start_time="2023-11-02 09:15",
        location="V1",
        species="Mouse",
    ),
    case("recording started at 2023-11-02 09:15", PM, session_start_time="2023-11-02 09:15"),
    case("session began 2 Nov 2023 9:15", PM, session_start_time="2 Nov 2023 9:15"),
    case("start time 2023-11-02T09:15", PM, session_start_time="2023-11-02T09:15"),
    case("we started recording at 14:30 on 15 March 2024", PM, session_start_time="14:30 on 15 March 2024"),
    case(
        "the animal started running at 10 cm/s",
        PM,
        asking=("experiment_description",),
        experiment_description="the animal started running at 10 cm/s",
    ),
    case(
        "Please convert this SpikeGLX run: Dr. Grace Hopper, Harvard, mouse V1 recording",
        APPROVE,
        PM,
        Intent.SELECT_FORMAT,
        asking=ASKED_FIRST,
        fmt="spikeglx",
        experimenter="Dr. Grace Hopper",
        institution="Harvard",
        experiment_description="mouse V1 recording",
        location="V1",
        species="mouse",
    ),
    case(
        "Convert my Intan data — Dr. Grace Hopper, Harvard, mouse V1 recording",
        APPROVE,
        PM,
        Intent.SELECT_FORMAT,
        asking=ASKED_FIRST,
        fmt="intan",
        experimenter="Dr. Grace Hopper",
        institution="Harvard",
        experiment_description="mouse V1 recording",
        location="V1",
        species="mouse",
    ),
    case(
        "Here are the details: Jane Smith, MIT, V1 recording",
        PM,
        asking=CRITICAL,
        experimenter="Jane Smith",
        institution="MIT",
        experiment_description="V1 recording",
        location="V1",
    ),
    # A colon after data is no preamble: the label's own reading decides.
    case("Experimenter: Smith, Jane", PM, experimenter="Smith, Jane"),
    case(
        "Keywords: hippocampus; sharp-wave ripples; sleep",
        PM,
        keywords="hippocampus; sharp-wave ripples; sleep",
    ),
    case("Experimenter: Jane Smith; MIT", PM, experimenter="Jane Smith", institution="MIT"),
    case("male rat, 300 g, P90", PM, asking=SUBJECT, sex="male", species="rat", age="P90"),
]

ODD_INPUT = [
    case(""),
    case("   \n\t "),
    # Nothing is ever evaluated: code is just text.
    case(
        "__import__('os').system('rm -rf /')",
        PM,
        asking=("experiment_description",),
        experiment_description="__import__('os').system('rm -rf /')",
    ),
]

ALL_CASES: list[Case] = (
    LABELED
    + MORE_LABELS
    + BULK
    + ONE_FIELD_ASKED
    + INTENTS
    + MORE_INTENTS
    + CORRECTIONS
    + REFUSALS
    + FORMATS
    + CHATTER
    + GREETINGS
    + SENTENCES
    + ODD_INPUT
)

TABLES = {
    "labeled": LABELED,
    "more labels": MORE_LABELS,
    "bulk": BULK,
    "one field asked": ONE_FIELD_ASKED,
    "intents": INTENTS,
    "more intents": MORE_INTENTS,
    "corrections": CORRECTIONS,
    "refusals": REFUSALS,
    "formats": FORMATS,
    "chatter": CHATTER,
    "greetings": GREETINGS,
    "sentences": SENTENCES,
    "odd input": ODD_INPUT,
}

# --- realistic answers ---------------------------------------------------------------------------
# Each entry: a message, the question it answers, and the raw values a careful reader would extract.
# Every set was written before the rules were run on it; the first run scored 86.5 %, 83.1 %, 70.4 %
# and 76.6 % (that is what to expect of phrasing the rules have never seen). The rules were then made
# more general where a miss showed a gap, never for one message; the misses left are listed in
# KNOWN_MISSES.

Answer = tuple[str, tuple[str, ...], dict[str, str]]

FIRST_SET: list[Answer] = [
    (
        "Experimenter: Maria Garcia\nInstitution: Universidad de Barcelona\n"
        "Description: Patch-clamp recordings of CA1 "
        "pyramidal neurons in acute slices",
        ASKED_FIRST,
        {
            "experimenter": "Maria Garcia",
            "institution": "Universidad de Barcelona",
            "experiment_description": "Patch-clamp recordings of CA1 pyramidal neurons in acute slices",
            "location": "CA1",
        },
    ),
    (
        "it's Tom Baker from UCL, we were recording head-fixed mice running on a wheel",
        ASKED_FIRST,
        {
            "experimenter": "Tom Baker",
            "institution": "UCL",
            "experiment_description": "we were recording head-fixed mice running on a wheel",
            "species": "mice",
        },
    ),
    (
        "Prof. Akira Tanaka, RIKEN, two-photon imaging of L2/3 in barrel cortex, animal TA-07, male, P45",
        ASKED_FIRST,
        {
            "experimenter": "Prof. Akira Tanaka",
            "institution": "RIKEN",
            "experiment_description": "two-photon imaging of L2/3 in barrel cortex",
            "subject_id": "TA-07",
            "sex": "male",
            "age": "P45",
            "location": "L2/3 in barrel cortex",
        },
    ),
    (
        "Lena Fischer; Max Planck Institute for Brain Research; "
        "Neuropixels recordings in the superior colliculus "
        "during looming stimuli",
        ASKED_FIRST,
        {
            "experimenter": "Lena Fischer",
            "institution": "Max Planck Institute for Brain Research",
            "experiment_description": ("Neuropixels recordings in the superior colliculus during looming stimuli"),
            "location": "superior colliculus",
        },
    ),
    (
        "The experimenter was Sam Lee, institution Harvard Medical School.",
        ASKED_FIRST,
        {"experimenter": "Sam Lee", "institution": "Harvard Medical School"},
    ),
    (
        "recorded by Priya Patel at the Allen Institute",
        ASKED_FIRST,
        {"experimenter": "Priya Patel", "institution": "the Allen Institute"},
    ),
    (
        "m12, female, 10 weeks, C57BL/6J",
        SUBJECT,
        {"subject_id": "m12", "sex": "female", "age": "10 weeks", "strain": "C57BL/6J", "species": "C57BL/6J"},
    ),
    ("Rattus norvegicus", ("species",), {"species": "Rattus norvegicus"}),
    ("rat", ("species",), {"species": "rat"}),
    ("about 3 months", ("age",), {"age": "3 months"}),
    ("2024-05-02 10:15", ("session_start_time",), {"session_start_time": "2024-05-02 10:15"}),
    ("Born 2023-11-20", ("date_of_birth", "age"), {"date_of_birth": "2023-11-20"}),
    ("Kim, Soo-jin", ("experimenter",), {"experimenter": "Kim, Soo-jin"}),
    ("University of Washington", ("institution",), {"institution": "University of Washington"}),
    ("Carandini lab", ("lab",), {"lab": "Carandini lab"}),
    (
        "keywords: V1, orientation tuning, Neuropixels",
        (),
        {"keywords": "V1, orientation tuning, Neuropixels"},
    ),
    (
        "Session description: day 3 of training, passive viewing",
        (),
        {"session_description": "day 3 of training, passive viewing"},
    ),
    (
        "We recorded spontaneous activity in anesthetized ferrets",
        ("experiment_description",),
        {"experiment_description": "recorded spontaneous activity in anesthetized ferrets", "species": "ferrets"},
    ),
    (
        "Name: Olivia Brown, affiliation: Brown University",
        (),
        {"experimenter": "Olivia Brown", "institution": "Brown University"},
    ),
    ("oh and the mouse was a female, about P60", (), {"species": "mouse", "sex": "female", "age": "P60"}),
    ("PI: Dr. Rafael Yuste, Columbia", (), {"experimenter": "Dr. Rafael Yuste", "institution": "Columbia"}),
    ("experimenter: J. Doe", (), {"experimenter": "J. Doe"}),
    ("Recorded on March 3, 2024 at 2:15 pm", (), {"session_start_time": "March 3, 2024 at 2:15 pm"}),
    (
        "Ahmed Hassan and Wei Zhang, NYU",
        CRITICAL,
        {"experimenter": "Ahmed Hassan and Wei Zhang", "institution": "NYU"},
    ),
    (
        "Janelia, Svoboda lab, ALM recordings during a delayed response task",
        ASKED_FIRST,
        {
            "institution": "Janelia",
            "lab": "Svoboda lab",
            "experiment_description": "ALM recordings during a delayed response task",
            "location": "ALM",
        },
    ),
    (
        "zebrafish larva, 6 dpf",
        ("species", "age"),
        {"species": "zebrafish", "age": "P6D", "age__reference": "gestational"},
    ),
    (
        "the animal id is R-2231 and it's a Long-Evans rat",
        (),
        {"subject_id": "R-2231", "strain": "Long-Evans", "species": "rat"},
    ),
    (
        "sex: M, age: 12 weeks, species: Mus musculus, subject: M-0042",
        (),
        {"sex": "M", "age": "12 weeks", "species": "Mus musculus", "subject_id": "M-0042"},
    ),
    (
        "Hi, I'm Dr. Nina Kowalski from the University of Warsaw",
        ASKED_FIRST,
        {"experimenter": "Dr. Nina Kowalski", "institution": "the University of Warsaw"},
    ),
    (
        "institution is EPFL and the lab is the Petersen lab",
        (),
        {"institution": "EPFL", "lab": "the Petersen lab"},
    ),
    (
        "description: tetrode recordings from medial entorhinal cortex while rats foraged in an open field",
        (),
        {
            "experiment_description": (
                "tetrode recordings from medial entorhinal cortex while rats foraged in an open field"
            ),
            "location": "medial entorhinal cortex",
            "species": "rats",
        },
    ),
    ("F", ("sex",), {"sex": "F"}),
    ("mouse", ("subject_id", "species"), {"species": "mouse"}),
    ("ID: 4471", (), {"subject_id": "4471"}),
    ("Smith", ("experimenter",), {"experimenter": "Smith"}),
    ("ETH Zurich", ("experimenter", "institution"), {"institution": "ETH Zurich"}),
    (
        "female C57BL/6 mouse, P90",
        SUBJECT,
        {"sex": "female", "strain": "C57BL/6", "species": "mouse", "age": "P90"},
    ),
    (
        "Dr. Smith, MIT. Subject: mouse007, male.",
        ASKED_FIRST,
        {"experimenter": "Dr. Smith", "institution": "MIT", "subject_id": "mouse007", "sex": "male"},
    ),
    (
        "Jane Smith, MIT, V1 recording, go ahead and convert",
        ASKED_FIRST,
        {
            "experimenter": "Jane Smith",
            "institution": "MIT",
            "experiment_description": "V1 recording",
            "location": "V1",
        },
    ),
    (
        "experimenter - Carlos Ruiz, institution - Instituto Cajal",
        (),
        {"experimenter": "Carlos Ruiz", "institution": "Instituto Cajal"},
    ),
    (
        "Experiment: optogenetic silencing of PV interneurons in mPFC",
        (),
        {"experiment_description": "optogenetic silencing of PV interneurons in mPFC", "location": "mPFC"},
    ),
    (
        "Age: 8 weeks; Sex: female; Strain: PV-Cre",
        (),
        {"age": "8 weeks", "sex": "female", "strain": "PV-Cre"},
    ),
    (
        "My name is Hannah Schmidt and I work at Charité",
        (),
        {"experimenter": "Hannah Schmidt", "institution": "Charité"},
    ),
    ("subject is a 3 month old male rat", (), {"age": "3 month old", "sex": "male", "species": "rat"}),
    (
        "we used a Sprague-Dawley rat, ID SD12",
        (),
        {"strain": "Sprague-Dawley", "species": "rat", "subject_id": "SD12"},
    ),
]

SECOND_SET: list[Answer] = [
    (
        "Dr. Emily Chen, Stanford University, "
        "calcium imaging of hippocampal place cells in mice running on a linear "
        "track",
        ASKED_FIRST,
        {
            "experimenter": "Dr. Emily Chen",
            "institution": "Stanford University",
            "experiment_description": ("calcium imaging of hippocampal place cells in mice running on a linear track"),
            "species": "mice",
        },
    ),
    (
        "experimenter: Li Wei\ninstitution: Tsinghua University\n"
        "experiment description: Utah array recordings in "
        "macaque M1 during reaching\nsubject id: monkey-J\nspecies: Macaca mulatta\nsex: male\nage: 7 years",
        ASKED_FIRST,
        {
            "experimenter": "Li Wei",
            "institution": "Tsinghua University",
            "experiment_description": "Utah array recordings in macaque M1 during reaching",
            "subject_id": "monkey-J",
            "species": "Macaca mulatta",
            "sex": "male",
            "age": "7 years",
            "location": "M1",
        },
    ),
    (
        "The recording was done by Pierre Dubois at Institut Pasteur.",
        ASKED_FIRST,
        {"experimenter": "Pierre Dubois", "institution": "Institut Pasteur"},
    ),
    (
        "Marco Rossi | Università di Padova | EEG in awake rats",
        ASKED_FIRST,
        {
            "experimenter": "Marco Rossi",
            "institution": "Università di Padova",
            "experiment_description": "EEG in awake rats",
            "species": "rats",
        },
    ),
    (
        "sub-03, Homo sapiens, F, 34 years",
        SUBJECT,
        {"subject_id": "sub-03", "species": "Homo sapiens", "sex": "F", "age": "34 years"},
    ),
    (
        "I think it was 2023-09-14 around 11am",
        ("session_start_time",),
        {"session_start_time": "2023-09-14 around 11am"},
    ),
    ("Nope, the institution is UCSF", (), {"institution": "UCSF"}),
    (
        "lab: Harris Lab, institution: UCL, keywords: Neuropixels, visual cortex",
        (),
        {
            "lab": "Harris Lab",
            "institution": "UCL",
            "keywords": "Neuropixels, visual cortex",
        },
    ),
    ("Jessica Alvarez", CRITICAL, {"experimenter": "Jessica Alvarez"}),
    ("Baylor College of Medicine", CRITICAL, {"institution": "Baylor College of Medicine"}),
    (
        "whole-cell recordings from layer 5 pyramidal cells",
        CRITICAL,
        {"experiment_description": "whole-cell recordings from layer 5 pyramidal cells"},
    ),
    (
        "Ana Souza, Champalimaud, freely moving mice in an olfactory task, mouse A3, female",
        ASKED_FIRST,
        {
            "experimenter": "Ana Souza",
            "institution": "Champalimaud",
            "experiment_description": "freely moving mice in an olfactory task",
            "subject_id": "A3",
            "species": "mouse",
            "sex": "female",
        },
    ),
    ("Experimenters: Bob Ross, Alice Wong", (), {"experimenter": "Bob Ross, Alice Wong"}),
    ("session start: 15/03/2024 14:30", (), {"session_start_time": "15/03/2024 14:30"}),
    ("genotype: Sst-IRES-Cre x Ai32", (), {"strain": "Sst-IRES-Cre x Ai32"}),
    # "she" is the animal: its sex is read too (since the sixth set).
    ("she is 12 weeks old", ("age",), {"age": "12 weeks old", "sex": "F"}),
    ("she's female", ("sex",), {"sex": "female"}),
    ("It's a male.", ("sex",), {"sex": "male"}),
    (
        "Northwestern University, Chicago",
        ("institution",),
        {"institution": "Northwestern University"},  # a trailing city says where, not which institution
    ),
    (
        "Experimenter is Dr. Ivan Petrov; the lab is Petrov Lab; institution: Skoltech",
        (),
        {"experimenter": "Dr. Ivan Petrov", "lab": "Petrov Lab", "institution": "Skoltech"},
    ),
    (
        "recorded by me, Sara Nilsson, at Karolinska Institutet",
        (),
        {"experimenter": "Sara Nilsson", "institution": "Karolinska Institutet"},
    ),
    (
        "the subject is mouse B12, a 4-month-old female",
        (),
        {"subject_id": "B12", "species": "mouse", "age": "4-month-old", "sex": "female"},
    ),
    (
        "Dr. Müller, Universität Zürich, Widefield imaging",
        CRITICAL,
        {
            "experimenter": "Dr. Müller",
            "institution": "Universität Zürich",
            "experiment_description": "Widefield imaging",
        },
    ),
    (
        "description = Acute Neuropixels recordings in VISp",
        (),
        {"experiment_description": "Acute Neuropixels recordings in VISp", "location": "VISp"},
    ),
    ("Affiliation: Janelia Research Campus, HHMI", (), {"institution": "Janelia Research Campus, HHMI"}),
    ("Gender: female", (), {"sex": "female"}),
    ("DOB 2024-01-10", (), {"date_of_birth": "2024-01-10"}),
    ("organism: Danio rerio", (), {"species": "Danio rerio"}),
    ("It was performed by Kenji Sato", (), {"experimenter": "Kenji Sato"}),
    (
        "Yes. Experimenter Omar Haddad, institution KAUST.",
        (),
        {"experimenter": "Omar Haddad", "institution": "KAUST"},
    ),
    (
        "Pat Kim, University of Michigan",
        ("experimenter", "institution"),
        {"experimenter": "Pat Kim", "institution": "University of Michigan"},
    ),
    (
        "Spike sorting not done yet, raw Open Ephys data from mouse V1",
        ("experiment_description",),
        {
            "experiment_description": "Spike sorting not done yet, raw Open Ephys data from mouse V1",
            "location": "V1",
            "species": "mouse",
        },
    ),
    ("no, the age is P75", ("age",), {"age": "P75"}),
    ("Hmm, it's actually a rat, not a mouse", (), {"species": "rat"}),
    ("Chris Johnson at Duke", CRITICAL, {"experimenter": "Chris Johnson", "institution": "Duke"}),
    ("EPFL", ("experimenter",), {"institution": "EPFL"}),
]

THIRD_SET: list[Answer] = [
    (
        "Jonas Weber, LMU Munich, in vivo patch clamp in mouse barrel cortex",
        CRITICAL,
        {
            "experimenter": "Jonas Weber",
            "institution": "LMU Munich",
            "experiment_description": "in vivo patch clamp in mouse barrel cortex",
            "location": "barrel cortex",
            "species": "mouse",
        },
    ),
    (
        "experimenter: Dr. Aisha Bello / institution: University of Lagos",
        (),
        {"experimenter": "Dr. Aisha Bello", "institution": "University of Lagos"},
    ),
    ("Institution — Weizmann Institute of Science", (), {"institution": "Weizmann Institute of Science"}),
    (
        "The mouse is male, 14 weeks, id JX-22",
        SUBJECT,
        {"species": "mouse", "sex": "male", "age": "14 weeks", "subject_id": "JX-22"},
    ),
    (
        "Hao Li from Peking University did the recordings",
        CRITICAL,
        {"experimenter": "Hao Li", "institution": "Peking University"},
    ),
    (
        "head-fixed Neuropixels 2.0 recordings in dorsal striatum",
        ("experiment_description",),
        {
            "experiment_description": "head-fixed Neuropixels 2.0 recordings in dorsal striatum",
            "location": "dorsal striatum",
        },
    ),
    (
        "Subject ID: R12; species: rat; sex: F; age: P30",
        (),
        {"subject_id": "R12", "species": "rat", "sex": "F", "age": "P30"},
    ),
    ("age 6 months, female, mouse", (), {"age": "6 months", "sex": "female", "species": "mouse"}),
    ("change the experimenter to Dr. Laura Martin", (), {"experimenter": "Dr. Laura Martin"}),
    ("sorry the species should be Rattus norvegicus", (), {"species": "Rattus norvegicus"}),
    (
        "The session started on 2024-02-29T09:05:00+01:00",
        (),
        {"session_start_time": "2024-02-29T09:05:00+01:00"},
    ),
    (
        "Tanaka lab, Kyoto University",
        ("lab", "institution"),
        {"lab": "Tanaka lab", "institution": "Kyoto University"},
    ),
    ("Francesca Romano", ("experimenter",), {"experimenter": "Francesca Romano"}),
    ("University College London", ("institution",), {"institution": "University College London"}),
    ("P21", ("age",), {"age": "P21"}),
    ("unknown", ("sex",), {"sex": "unknown"}),
    ("M", ("sex",), {"sex": "M"}),
    ("Mouse42", ("subject_id",), {"subject_id": "Mouse42"}),
    (
        "Dr Sofia Rossi, IIT Genova, Utah array in rat motor cortex",
        CRITICAL,
        {
            "experimenter": "Dr Sofia Rossi",
            "institution": "IIT Genova",
            "experiment_description": "Utah array in rat motor cortex",
            "location": "motor cortex",
            "species": "rat",
        },
    ),
    ("the experimenter is me, Daniel Cohen", (), {"experimenter": "Daniel Cohen"}),
    (
        "we're at Cold Spring Harbor Laboratory",
        ("institution",),
        {"institution": "Cold Spring Harbor Laboratory"},
    ),
    ("Dr. Smith and Dr. Jones", ("experimenter",), {"experimenter": "Dr. Smith and Dr. Jones"}),
    ("Strain C57BL/6J, 2 males", (), {"strain": "C57BL/6J", "species": "C57BL/6J"}),
    (
        "Recording of grid cells in MEC while rats explore, by Kari Nordmann at NTNU",
        CRITICAL,
        {
            "experiment_description": "Recording of grid cells in MEC while rats explore",
            "experimenter": "Kari Nordmann",
            "institution": "NTNU",
            "location": "MEC",
            "species": "rats",
        },
    ),
    (
        "Keywords: hippocampus; sharp-wave ripples; sleep",
        (),
        {"keywords": "hippocampus; sharp-wave ripples; sleep"},
    ),
    ("Institution: NIH/NIMH", (), {"institution": "NIH/NIMH"}),
    ("Experimenter: O'Connor, Sean", (), {"experimenter": "O'Connor, Sean"}),
    ("rec date: 03/15/2024", (), {"session_start_time": "03/15/2024"}),
    (
        "Species is Macaca mulatta and the monkey's name is Bruno",
        (),
        {"species": "Macaca mulatta", "subject_id": "Bruno"},
    ),
    ("male", SUBJECT, {"sex": "male"}),
]


FOURTH_SET: list[Answer] = [
    (
        "Experimenter: Yuki Sato, Institution: University of Tokyo, "
        "Experiment description: Calcium imaging of PFC in mice during a go/no-go task",
        (),
        {
            "experimenter": "Yuki Sato",
            "institution": "University of Tokyo",
            "experiment_description": "Calcium imaging of PFC in mice during a go/no-go task",
            "location": "PFC",
            "species": "mice",
        },
    ),
    (
        "dr. hernandez, ucsd, auditory cortex recordings",
        CRITICAL,
        {
            "experimenter": "dr. hernandez",
            "institution": "ucsd",
            "experiment_description": "auditory cortex recordings",
            "location": "auditory cortex",
        },
    ),
    (
        "Bianca Rossi - Sapienza University of Rome - visual cortex Neuropixels recordings",
        CRITICAL,
        {
            "experimenter": "Bianca Rossi",
            "institution": "Sapienza University of Rome",
            "experiment_description": "visual cortex Neuropixels recordings",
            "location": "visual cortex",
        },
    ),
    ("subject: rat R7, male, 300 g", SUBJECT, {"subject_id": "R7", "species": "rat", "sex": "male"}),
    (
        "Kavli Institute for Systems Neuroscience, Trondheim",
        ("institution",),
        {"institution": "Kavli Institute for Systems Neuroscience"},
    ),
    ("age is 10 weeks and sex is female", (), {"age": "10 weeks", "sex": "female"}),
    ("It was done by two people: Jane Smith and Omar Ali", (), {"experimenter": "Jane Smith and Omar Ali"}),
    (
        "Species = Callithrix jacchus; Sex = M; Age = 2 years",
        (),
        {"species": "Callithrix jacchus", "sex": "M", "age": "2 years"},
    ),
    (
        "recordings were made in awake head-fixed mice by Lucas Martin (Institut de la Vision)",
        CRITICAL,
        {
            "experimenter": "Lucas Martin",
            "institution": "Institut de la Vision",
            "experiment_description": "recordings were made in awake head-fixed mice",
            "species": "mice",
        },
    ),
    ("mouse ID M-17, born 2023-10-02", (), {"subject_id": "M-17", "date_of_birth": "2023-10-02", "species": "mouse"}),
    ("Our lab is the Buzsáki lab at NYU", (), {"lab": "the Buzsáki lab", "institution": "NYU"}),
    (
        "Hi! Experimenter is Fatima Zahra. We're at Mohammed V University.",
        (),
        {"experimenter": "Fatima Zahra", "institution": "Mohammed V University"},
    ),
    ("imaging", ("experiment_description",), {"experiment_description": "imaging"}),
    ("Monkey", ("species",), {"species": "Monkey"}),
    ("Jan Kowalski", CRITICAL, {"experimenter": "Jan Kowalski"}),
    ("Université de Montréal", CRITICAL, {"institution": "Université de Montréal"}),
    ("2 months", ("age",), {"age": "2 months"}),
    ("Male", SUBJECT, {"sex": "Male"}),
    (
        "The experiment was a visual discrimination task in rats",
        (),
        {"experiment_description": "a visual discrimination task in rats", "species": "rats"},
    ),
    ("Can you set the lab to Svoboda Lab?", (), {"lab": "Svoboda Lab"}),
    (
        "Sarah O'Neil, Trinity College Dublin, EEG in humans, sub-12, female, 25 years",
        ASKED_FIRST,
        {
            "experimenter": "Sarah O'Neil",
            "institution": "Trinity College Dublin",
            "experiment_description": "EEG in humans",
            "subject_id": "sub-12",
            "sex": "female",
            "age": "25 years",
            "species": "humans",
        },
    ),
    ("species: zebra finch", (), {"species": "zebra finch"}),
    ("session started at 2024-06-01 09:30", (), {"session_start_time": "2024-06-01 09:30"}),
    (
        "Institution: Howard Hughes Medical Institute, Janelia Research Campus",
        (),
        {"institution": "Howard Hughes Medical Institute, Janelia Research Campus"},
    ),
    ("it's from Dr. Okafor's lab at Emory", (), {"lab": "Dr. Okafor's lab", "institution": "Emory"}),
]

# Phrasings a new user tried on the portal, and more of each kind: who did it said with a verb or
# after the value, a start time in a sentence, a request or heading before a colon, bulk values in
# odd orders and forms. The first run scored 97.1 % on the 48 written before (rec by … @ …, a cross
# of two strains); "P30 mice" was then judged an age and a species, not a description.
FIFTH_SET: list[Answer] = [
    # Who recorded it, said with a verb or after the value.
    ("Peter Novak recorded it", ASKED_FIRST, {"experimenter": "Peter Novak"}),
    ("peter novak recorded it", ASKED_FIRST, {"experimenter": "peter novak"}),
    ("Peter Novak did the recording", (), {"experimenter": "Peter Novak"}),
    ("Dr. Li Wei did all the recordings himself", (), {"experimenter": "Dr. Li Wei"}),
    ("Kim Lee ran the sessions at KAIST", CRITICAL, {"experimenter": "Kim Lee", "institution": "KAIST"}),
    ("Okafor performed the experiments", ("experimenter",), {"experimenter": "Okafor"}),
    ("the experimenter was Dr. Li Wei", (), {"experimenter": "Dr. Li Wei"}),
    ("Peter Novak was the experimenter", (), {"experimenter": "Peter Novak"}),
    (
        "Prof. Anna Berg is our PI, Karolinska is the institution",
        (),
        {"experimenter": "Prof. Anna Berg", "institution": "Karolinska"},
    ),
    ("I'm Jane Doe and I recorded this", ASKED_FIRST, {"experimenter": "Jane Doe"}),
    (
        "my name is Tomás Ruiz, I'm at the University of Valencia",
        (),
        {"experimenter": "Tomás Ruiz", "institution": "the University of Valencia"},
    ),
    ("Hi, I'm Dr. Maria Lopez from UCSF", ASKED_FIRST, {"experimenter": "Dr. Maria Lopez", "institution": "UCSF"}),
    ("Jane Doe here, from UCL", ASKED_FIRST, {"experimenter": "Jane Doe", "institution": "UCL"}),
    (
        "Jane Smith and Omar Ali did the recordings at NYU",
        CRITICAL,
        {"experimenter": "Jane Smith and Omar Ali", "institution": "NYU"},
    ),
    # When the session started.
    (
        "Mouse V1 recording, started 2023-11-02 09:15",
        ASKED_FIRST,
        {
            "experiment_description": "Mouse V1 recording",
            "session_start_time": "2023-11-02 09:15",
            "location": "V1",
            "species": "Mouse",
        },
    ),
    ("recording started at 2023-11-02 09:15", (), {"session_start_time": "2023-11-02 09:15"}),
    ("session began 2 Nov 2023 9:15", (), {"session_start_time": "2 Nov 2023 9:15"}),
    ("start time 2023-11-02T09:15", (), {"session_start_time": "2023-11-02T09:15"}),
    ("The session started on Nov 2, 2023 at 9:15 am", (), {"session_start_time": "Nov 2, 2023 at 9:15 am"}),
    ("we started recording at 14:30 on 15 March 2024", (), {"session_start_time": "14:30 on 15 March 2024"}),
    ("It began on 02.11.2023 at 09:15", ("session_start_time",), {"session_start_time": "02.11.2023 at 09:15"}),
    # A request or a heading before a colon.
    (
        "Please convert this SpikeGLX run: Dr. Grace Hopper, Harvard, mouse V1 recording",
        ASKED_FIRST,
        {
            "experimenter": "Dr. Grace Hopper",
            "institution": "Harvard",
            "experiment_description": "mouse V1 recording",
            "location": "V1",
            "species": "mouse",
        },
    ),
    (
        "Convert my Intan data — Dr. Grace Hopper, Harvard, mouse V1 recording",
        ASKED_FIRST,
        {
            "experimenter": "Dr. Grace Hopper",
            "institution": "Harvard",
            "experiment_description": "mouse V1 recording",
            "location": "V1",
            "species": "mouse",
        },
    ),
    (
        "Can you convert this Open Ephys session: Jane Smith, MIT, hippocampal recordings",
        ASKED_FIRST,
        {"experimenter": "Jane Smith", "institution": "MIT", "experiment_description": "hippocampal recordings"},
    ),
    (
        "Here's the info: Prof. Alan Turing, Manchester University, EEG in humans",
        ASKED_FIRST,
        {
            "experimenter": "Prof. Alan Turing",
            "institution": "Manchester University",
            "experiment_description": "EEG in humans",
            "species": "humans",
        },
    ),
    (
        "Details: Ines Costa, Champalimaud, odor discrimination task",
        ASKED_FIRST,
        {
            "experimenter": "Ines Costa",
            "institution": "Champalimaud",
            "experiment_description": "odor discrimination task",
        },
    ),
    # Bulk metadata in odd orders and forms.
    (
        "prof. jane smith, mit, v1 recording",
        CRITICAL,
        {"experimenter": "prof. jane smith", "institution": "mit", "experiment_description": "v1 recording"},
    ),
    (
        "J. Smith, UCL, visual cortex recordings",
        CRITICAL,
        {
            "experimenter": "J. Smith",
            "institution": "UCL",
            "experiment_description": "visual cortex recordings",
            "location": "visual cortex",
        },
    ),
    (
        "Dr J. Doe, KCL, slice ephys",
        CRITICAL,
        {"experimenter": "Dr J. Doe", "institution": "KCL", "experiment_description": "slice ephys"},
    ),
    (
        "V1 recording, MIT, Jane Smith",
        CRITICAL,
        {
            "experiment_description": "V1 recording",
            "institution": "MIT",
            "experimenter": "Jane Smith",
            "location": "V1",
        },
    ),
    (
        "Jane Smith (UCL), V1 imaging",
        CRITICAL,
        {"experimenter": "Jane Smith", "institution": "UCL", "experiment_description": "V1 imaging", "location": "V1"},
    ),
    (
        "mouse M3, F, P60, C57BL/6J",
        SUBJECT,
        {"species": "mouse", "subject_id": "M3", "sex": "F", "age": "P60", "strain": "C57BL/6J"},
    ),
    ("f, 8wk, wt", SUBJECT, {"sex": "f", "age": "8wk", "strain": "wt"}),
    (
        "male rat, 300g, P90, Long-Evans",
        SUBJECT,
        {"sex": "male", "species": "rat", "age": "P90", "strain": "Long-Evans"},
    ),
    ("3 months old female mouse", SUBJECT, {"age": "3 months old", "sex": "female", "species": "mouse"}),
    ("age P60, sex M, species mouse, id m17", (), {"age": "P60", "sex": "M", "species": "mouse", "subject_id": "m17"}),
    (
        "animal ID: R-12, species rattus norvegicus, male",
        (),
        {"subject_id": "R-12", "species": "rattus norvegicus", "sex": "male"},
    ),
    (
        "born 2023-08-01, female, C57BL/6J",
        SUBJECT,
        {"date_of_birth": "2023-08-01", "sex": "female", "strain": "C57BL/6J", "species": "C57BL/6J"},
    ),
    ("DOB 01.08.2023", (), {"date_of_birth": "01.08.2023"}),
    ("Smith lab @ MIT", ("lab", "institution"), {"lab": "Smith lab", "institution": "MIT"}),
    ("Our institution is EPFL and the lab is the Petersen Lab", (), {"institution": "EPFL", "lab": "the Petersen Lab"}),
    (
        "Jane Smith from Stanford, Svoboda lab, recorded on 2024-01-05 10:00",
        (),
        {
            "experimenter": "Jane Smith",
            "institution": "Stanford",
            "lab": "Svoboda lab",
            "session_start_time": "2024-01-05 10:00",
        },
    ),
    ("Experimenters: Smith, J; Lee, B", (), {"experimenter": "Smith, J; Lee, B"}),
    (
        "female, 12 weeks old, Ai14 x PV-Cre",
        SUBJECT,
        {"sex": "female", "age": "12 weeks old", "strain": "Ai14 x PV-Cre"},
    ),
    (
        "subject id is M-204 and she is a 6 month old female",
        (),
        {"subject_id": "M-204", "age": "6 month old", "sex": "female"},
    ),
    (
        "Dr. Ng, NUS, P30 mice",
        CRITICAL,
        {"experimenter": "Dr. Ng", "institution": "NUS", "age": "P30", "species": "mice"},
    ),
    (
        "species: Mus musculus; strain: C57BL/6; sex: F; age: P10W",
        (),
        {"species": "Mus musculus", "strain": "C57BL/6", "sex": "F", "age": "P10W"},
    ),
    ("rec by A. Kumar @ IISc", (), {"experimenter": "A. Kumar", "institution": "IISc"}),
]

# Messages a new user tried (the first four below) and more written in the same spirit before the
# rules were run on them: self-introductions ("Tom Baker here from Oxford"), ids named with a word
# ("animal 4471", "sub id is rat_07"), pronouns for the animal's sex, corrections in many forms,
# typos in labels, ages in words, requests and greetings around the data. The first run scored
# 65.0 % (80 of 123: 72/105 on the 48 written here, 8/18 on the four the user tried).
SIXTH_SET: list[Answer] = [
    (
        "sub id is rat_07, Long Evans rat, male, 4 months",
        ASKED_FIRST,
        {"subject_id": "rat_07", "strain": "Long Evans", "species": "rat", "sex": "male", "age": "4 months"},
    ),
    (
        "Hello! Tom Baker here from Oxford. Head-fixed mouse, visual cortex, animal 4471, she is 90 days old",
        ASKED_FIRST,
        {
            "experimenter": "Tom Baker",
            "institution": "Oxford",
            "species": "mouse",
            "experiment_description": "Head-fixed mouse, visual cortex",
            "subject_id": "4471",
            "sex": "F",
            "age": "90 days old",
            "location": "visual cortex",
        },
    ),
    ("wait, the subject is actually mouse-13", (), {"subject_id": "mouse-13"}),
    ("experimenter is lee, institution UCSF", ASKED_FIRST, {"experimenter": "lee", "institution": "UCSF"}),
    # Corrections.
    ("the species is actually rat", (), {"species": "rat"}),
    ("sorry, the institution should be UCL", (), {"institution": "UCL"}),
    ("correction: age is P60", (), {"age": "P60"}),
    ("oops, experimenter should be Omar Haddad not Omar Hadad", (), {"experimenter": "Omar Haddad"}),
    ("actually the sex is female", (), {"sex": "female"}),
    ("no wait, it's a rat, not a mouse", (), {"species": "rat"}),
    ("sorry I meant P90 not P60", (), {"age": "P90"}),
    ("change subject id to M-77 please", (), {"subject_id": "M-77"}),
    ("no, the experimenter is Sam Okoro", (), {"experimenter": "Sam Okoro"}),
    # Self-introductions and greetings.
    (
        "hi! I'm Sarah Chen, postdoc at Columbia 🙂",
        ASKED_FIRST,
        {"experimenter": "Sarah Chen", "institution": "Columbia"},
    ),
    (
        "Marco Rossi here, from SISSA. We did tetrode recordings in dorsal hippocampus",
        ASKED_FIRST,
        {
            "experimenter": "Marco Rossi",
            "institution": "SISSA",
            "experiment_description": "tetrode recordings in dorsal hippocampus",
            "location": "dorsal hippocampus",
        },
    ),
    (
        "this is Priya from the Allen Institute, please convert",
        ASKED_FIRST,
        {"experimenter": "Priya", "institution": "the Allen Institute"},
    ),
    (
        "Good morning, my name is Elena Petrova and I am from Moscow State University",
        ASKED_FIRST,
        {"experimenter": "Elena Petrova", "institution": "Moscow State University"},
    ),
    ("hey, its ben from janelia", ASKED_FIRST, {"experimenter": "ben", "institution": "janelia"}),
    (
        "Hey there! Dr. Omar Haddad, Weizmann Institute, auditory cortex recordings in awake mice",
        ASKED_FIRST,
        {
            "experimenter": "Dr. Omar Haddad",
            "institution": "Weizmann Institute",
            "experiment_description": "auditory cortex recordings in awake mice",
            "location": "auditory cortex",
            "species": "mice",
        },
    ),
    (
        "Name's Kofi Mensah, I'm at the University of Ghana",
        ASKED_FIRST,
        {"experimenter": "Kofi Mensah", "institution": "the University of Ghana"},
    ),
    # Requests around labeled and unlabeled lists.
    (
        "can you convert this? experimenter Jane Doe, institution MIT, description whisker stimulation in "
        "barrel cortex",
        ASKED_FIRST,
        {
            "experimenter": "Jane Doe",
            "institution": "MIT",
            "experiment_description": "whisker stimulation in barrel cortex",
            "location": "barrel cortex",
        },
    ),
    (
        "jane doe, mit, barrel cortex recordings",
        CRITICAL,
        {
            "experimenter": "jane doe",
            "institution": "mit",
            "experiment_description": "barrel cortex recordings",
            "location": "barrel cortex",
        },
    ),
    (
        "please convert it, the experimenter is Maria Silva and we're from USP",
        (),
        {"experimenter": "Maria Silva", "institution": "USP"},
    ),
    (
        "ok so: Li Na, Fudan University, calcium imaging of the optic tectum, 7 dpf",
        ASKED_FIRST,
        {
            "experimenter": "Li Na",
            "institution": "Fudan University",
            "experiment_description": "calcium imaging of the optic tectum",
            "age": "P7D",
            "age__reference": "gestational",
            "location": "optic tectum",
        },
    ),
    (
        "Dr. Kumar (IISc), recordings from songbird HVC",
        CRITICAL,
        {
            "experimenter": "Dr. Kumar",
            "institution": "IISc",
            "experiment_description": "recordings from songbird HVC",
            "location": "HVC",
        },
    ),
    ("@UCSF, recorded by Lee Chang", ASKED_FIRST, {"experimenter": "Lee Chang", "institution": "UCSF"}),
    # Labels with typos and odd separators.
    ("instituion: University of Edinburgh", (), {"institution": "University of Edinburgh"}),
    ("experimentor: Hiro Sato", (), {"experimenter": "Hiro Sato"}),
    (
        "Experimenter - Paul Martin; Institution - Institut Pasteur",
        (),
        {"experimenter": "Paul Martin", "institution": "Institut Pasteur"},
    ),
    (
        "Lab: Häusser lab, institution: UCL, experimenter: Beverley Clark",
        (),
        {"lab": "Häusser lab", "institution": "UCL", "experimenter": "Beverley Clark"},
    ),
    ("I work in the Buzsaki lab at NYU", (), {"lab": "the Buzsaki lab", "institution": "NYU"}),
    (
        "experiment description: mice ran on a treadmill while we imaged CA1",
        (),
        {"experiment_description": "mice ran on a treadmill while we imaged CA1", "location": "CA1", "species": "mice"},
    ),
    # The subject: ids named with a word, pronouns, ages in words.
    ("animal 12, female, 3 weeks old", SUBJECT, {"subject_id": "12", "sex": "female", "age": "3 weeks old"}),
    ("rat R7, male, two months", SUBJECT, {"species": "rat", "subject_id": "R7", "sex": "male", "age": "two months"}),
    (
        "mouse id = VG-22, he's a male, six weeks old",
        (),
        {"subject_id": "VG-22", "sex": "male", "age": "six weeks old", "species": "mouse"},
    ),
    (
        "subject: m3; species: mouse; sex: F; age: 70 days",
        (),
        {"subject_id": "m3", "species": "mouse", "sex": "F", "age": "70 days"},
    ),
    (
        "Subject ID 2231, Sprague Dawley rat, female, P45",
        SUBJECT,
        {"subject_id": "2231", "strain": "Sprague Dawley", "species": "rat", "sex": "female", "age": "P45"},
    ),
    ("she's 12 weeks old", ("age",), {"age": "12 weeks old", "sex": "F"}),
    ("he is a 5 month old male", SUBJECT, {"age": "5 month old", "sex": "male"}),
    (
        "Thanks! The animal was mouse 5521, a female C57BL/6J",
        (),
        {"subject_id": "5521", "species": "mouse", "sex": "female", "strain": "C57BL/6J"},
    ),
    ("animal #4471", ("subject_id",), {"subject_id": "4471"}),
    ("ID is rat-03", (), {"subject_id": "rat-03"}),
    ("mouse number 12", ("subject_id",), {"subject_id": "12", "species": "mouse"}),
    ("its a male, roughly 8 weeks", SUBJECT, {"sex": "male", "age": "8 weeks"}),
    ("age: three months", (), {"age": "three months"}),
    (
        "Strain: Thy1-GCaMP6s, sex: male, age 10 wks",
        (),
        {"strain": "Thy1-GCaMP6s", "sex": "male", "age": "10 wks"},
    ),
    (
        "Rhesus macaque, male, 7 years, monkey Bruno",
        SUBJECT,
        {"species": "Rhesus macaque", "sex": "male", "age": "7 years", "subject_id": "Bruno"},
    ),
    # Dates.
    ("the date of birth was 2023-09-01", (), {"date_of_birth": "2023-09-01"}),
    ("DOB: March 2, 2023", (), {"date_of_birth": "March 2, 2023"}),
    ("session started 15/03/2024 at 10:30", (), {"session_start_time": "15/03/2024 at 10:30"}),
    (
        "Recorded by Ana Lima @ Champalimaud on 2024-02-14 11:00",
        (),
        {"experimenter": "Ana Lima", "institution": "Champalimaud", "session_start_time": "2024-02-14 11:00"},
    ),
    (
        "We're at the Sainsbury Wellcome Centre, Ana Lima did the recordings",
        CRITICAL,
        {"institution": "the Sainsbury Wellcome Centre", "experimenter": "Ana Lima"},
    ),
]

CORPUS = FIRST_SET + SECOND_SET + THIRD_SET + FOURTH_SET + FIFTH_SET + SIXTH_SET

# What the rules still get wrong in the sets above. An id that is a name after the species word
# ("monkey Bruno") is read as a description: a capitalised word after "monkey" could as well be a
# person or a place.
KNOWN_MISSES: list[str] = []

REALISTIC_SETS = {
    "first": FIRST_SET,
    "second": SECOND_SET,
    "third": THIRD_SET,
    "fourth": FOURTH_SET,
    "fifth": FIFTH_SET,
    "sixth": SIXTH_SET,
}


def field_accuracy(corpus: list[Answer]) -> tuple[int, int]:
    """(right values, expected values + values that should not be there)."""
    right = counted = 0
    for text, asking_for, gold in corpus:
        found = parse_message(text, asking_for=asking_for).fields
        right += sum(found.get(name) == value for name, value in gold.items())
        counted += len(gold) + len(set(found) - set(gold))
    return right, counted

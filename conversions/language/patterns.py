"""The regular expressions the rule-based reader (conversions.language.rules) cuts and classifies a
message with: dates and times, subject terms (ages, sexes, species, strains, ids, weights), chunk and
segment ends, file names and recording systems, refusals, chatter and politeness, people and what
they did, negation and corrections.

Every pattern avoids nested or adjacent unbounded quantifiers, so a 50 kB message reads in linear
time; the end-anchored clean-ups are done word by word in Python for the same reason.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from conversions.language import east_asian, prose, vocabulary
from conversions.nwb.normalizers import EAST_ASIAN_SPECIES, FOREIGN_MONTH, OTHER_LANGUAGE_AGE_UNITS, OTHER_LANGUAGE_SEX

_I = re.IGNORECASE


def phrases(words: Iterable[str]) -> str:
    """A regex alternation of literal phrases, longest first, any whitespace between words."""
    ordered = sorted(words, key=lambda phrase: (-len(phrase), phrase))
    return "|".join(r"\s+".join(re.escape(part) for part in phrase.split()) for phrase in ordered)


_MONTH = prose.MONTH
_DAY = prose.ORDINAL
_CLOCK = (
    r"\d{1,2}(?::\d{2}){1,2}(?:\.\d+)?(?:\s*[ap]\.?m\.?)?|\d{1,2}[.h]\d{2}(?:\s*[ap]\.?m\.?)?|\d{1,2}\s*[ap]\.?m\.?"
)
_ZONE = r"z|utc|gmt|[+-]\d{2}:?\d{2}|[a-z]+/[a-z_]+|[ecmp][sd]t|cet|cest|bst"
_CALENDAR = (
    rf"(?:\d{{4}}-\d{{1,2}}-\d{{1,2}}|\d{{1,2}}[/.]\d{{1,2}}[/.]\d{{2,4}}|{_DAY}\s+{_MONTH},?\s+\d{{4}}"
    rf"|{_MONTH}\s+{_DAY},?\s+\d{{4}})"
)
# The date, then maybe the time ("2024-03-15 14:30", "March 15, 2024 at 2:30 pm"), or the time
# first ("9:15 on 2 Nov 2023").
DATE_RE = re.compile(
    rf"(?:{_CALENDAR}(?:(?:\s*(?:,|at|@)\s*|\s+|t)(?:{_CLOCK})(?:\s*(?:{_ZONE}))?)?"
    rf"|(?:{_CLOCK})(?:\s*,\s*|\s+(?:on\s+)?){_CALENDAR})(?![\w/])",
    _I,
)
THOUSANDS_RE = re.compile(r"\d,\d{3}|\d,\d{1,2}\s?(?:years?|yrs?|months?|weeks?|days?|y|mo|w|d)\b")  # and "1,5 years"
PARENTHESES_RE = re.compile(r"\([^()]*\)")
# An all-capitals short name after the person is most often the institution's ("Dr. Ana Ruiz, UAB").
ACRONYM_RE = re.compile(r"[A-Z]{3,6}")
_NUMBER_WORDS = r"one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty|sixty|ninety"
_AGE = (
    r"P\d+(?:\.\d+)?[DWMY]?(?:\s*[-–/]\s*P?\d+(?:\.\d+)?[DWMY]?)?"  # P90, P90D, P60-P90
    r"|P(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?<!P)"  # ISO 8601 durations: P1Y2M
    r"|(?:postnatal\s+day|pnd)\s*\d+"
    rf"|(?:\d+(?:\.\d+)?|{_NUMBER_WORDS})(?:\s*[-–]\s*\d+)?\s*(?:-\s*)?"
    r"(?:days?|d|weeks?|wks?|wk|w|months?|mos?|mo|years?|yrs?|yr|y|dpf|hpf|days\s+post[\s-]fertili[sz]ation"
    r"|jahre?|monate?|wochen?|tage?|weken|maanden|jaar|dagen|años?|anos?|ans|anni|meses|mois|mesi|semanas?"
    rf"|semaines?|settimane|días|dias|jours|giorni|shuukan|sai|{'|'.join(OTHER_LANGUAGE_AGE_UNITS)})(?!\w)"
    r"(?:\s*(?:-\s*)?old)?"
    rf"|{east_asian.AGE}"
)
_SEX = (
    r"female|male|females|males|woman|man|f|m|macho|hembra|var[óo]n|mâle|femelle|homme|femme|männlich|weiblich"
    r"|maschio|femmina|masculino|feminino|femenino|f[êe]mea|mesu|josei|dansei|mannelijk|vrouwelijk"
    rf"|{east_asian.SEX}|{'|'.join(OTHER_LANGUAGE_SEX)}"
)
SEX_VALUE_RE = re.compile(rf"(?:{_SEX}|unknown|not\s+known|u|other|o)", _I)
STRAIN = (
    r"c57bl/?6(?:/?[jn][a-z]*)?|c57|b6|balb/?c|cd-?1|fvb(?:/n)?|dba/?2|129(?:/sv\w*)?|swiss\s+webster"
    r"|long[\s-]evans|sprague[\s-]dawley|wistar|lister\s+hooded|[^\W_][\w/-]*-cre(?:ert2)?"
    r"|ai\d+[a-z]?|(?:tg\(?)?(?:[\w-]+:)?\w+-[\w-]*gcamp\w*\)?|(?:tg\(?)?[\w-]+:[\w-]*gcamp\w*\)?|thy1[\w/-]*"
    r"|wild[\s-]?type|wt"
    r"|fischer\s?344|f344|new\s+zealand\s+white|dutch[\s-]belted|swiss\s+albino|göttingen(?:\s+minipig)?|yucatan"
    r"|large\s+white|landrace|yorkshire|merino|border\s+collie|beagle|labrador|hooded\s+lister"
    r"|wag/rij|gaers|[^\W_][\w-]*-(?:tdtomato|eyfp|gfp|egfp|yfp|chr2|flp|tta|cre\w*|dcre)|cba(?:/\w+)?|c3h(?:/\w+)?"
)
# A genus with its species before the common names: "Octopus vulgaris" is one species, not an "octopus".
_SPECIES = (
    rf"(?:{'|'.join(sorted(vocabulary.GENERA))})\s+[a-z]+"
    rf"|{phrases(vocabulary.SPECIES_NAMES)}|{phrases(EAST_ASIAN_SPECIES)}"
)
# "animal 4471", "mouse #12", "mouse number 12": the id is the number ("rat-03" and "sub_7" stay whole, as
# `_ID` reads them); the word names the species when it is one.
_NAMED_ID = (
    r"(?P<id_word>mouse|mice|rat|animal|subject|sub|monkey|fish)(?:\s+(?:number|no\.|nr\.?))?(?:\s+#?|#)\s*"
    r"(?P<id_value>\d+\w*)"
)
_ID = r"#\d+|(?=[\w./-]*\d)(?=[\w./-]*[^\W\d_])[^\W_](?:[\w.-]|/(?=\w))*"
# Words that may sit between subject terms: "we used a female C57BL/6 mouse, about P60".
# A body weight ("300 g") says nothing NWB's subject fields hold: it is passed over.
_WEIGHT = r"\d+(?:\.\d+)?\s*(?:g|kg|grams?|kilograms?)"
WEIGHT_RE = re.compile(_WEIGHT, _I)
_SUBJECT_FILLER = (
    r"a|an|the|is|was|are|were|it's|its|they're|and|&|of|with|which|who|this|that|also|one|we|i|she|he|she's|he's|they"
    r"|used|using|head-fixed|head\s+fixed|awake|anesthetized|anaesthetized|freely[\s-]moving|behaving"
    r"|had|have|old|aged|adult|adults|young|juvenile|larva|larvae|pup|pups|embryo|animal|animals|subject|sex"
    r"|species|strain|id|about|around|approximately|approx\.?|roughly|circa|ca\.?"
)
SUBJECT_TERM_RE = re.compile(
    rf"(?:(?P<weight>{_WEIGHT})|(?P<age>{_AGE})|(?P<sex>{_SEX})|(?P<subject_id_named>{_NAMED_ID})|(?P<species>{_SPECIES})"
    rf"|(?P<strain>(?:{STRAIN})(?:\s+[x×]\s+(?:{STRAIN}))*)|(?P<subject_id>{_ID})|(?P<filler>{_SUBJECT_FILLER}))(?![\w/'-])",
    _I,
)
TERM_GAP_RE = re.compile(r"[\s,;:~]*")
AGE_RE = re.compile(_AGE, _I)
SPECIES_RE = re.compile(rf"(?:{_SPECIES})(?![\w-])", _I)
SEX_RE = re.compile(rf"(?:{_SEX}|unknown|other)(?![\w-])", _I)
TOKEN_RE = re.compile(r"[^\s,;]+")


CHUNK_END_RE = re.compile(r"\n|;|[.!?]+(?=\s|$)|(?<=\s)[|·•](?=\s)")
GERMAN_DAY_RE = re.compile(r"(?<![\w.])\d{1,2}$")
MONTH_NEXT_RE = re.compile(rf"\s(?:{prose.MONTH}|{FOREIGN_MONTH})\b", _I)
# "Jane Smith - MIT - V1 recording" too; a colon only after a request or a heading (see _segments).
SEGMENT_END_RE = re.compile(r"[,|\t]|\s[-–—/]\s|:(?=\s)")
# Where a labeled value may be cut: comma parts, "and" parts, and "<person> at <institution>".
VALUE_SPLIT_RE = re.compile(r",|\s+(?P<word>and|&|at|from|@|of|by)\s+", _I)
# "Luca Ferri dell'Istituto …", "Claire Dubois de l'Institut Pasteur": an elided article is never part
# of a name written in lower case, unlike "da", "de" or "von der".
AFFILIATION_RE = re.compile(r"\s+(?:at|from|@|of|presso)\s+|\s+(?:dell|dall|de\s+l)['’](?=[A-ZÀ-Þ])", _I)
LAB_RE = re.compile(r"(?:the\s+)?[^\W\d_][\w'’.-]*(?:[\s-][^\W\d_][\w'’.-]*)?(?:'s|’s)?\s+(?:lab|laboratory|group)", _I)
LAB_OF_RE = re.compile(r"(?:the\s+)?(?:lab|laboratory|group)\s+of\s+(?P<person>.+)", _I)
WORD_RE = re.compile(r"[^\W_]+(?:'[^\W_]+)*")
FILE_RE = re.compile(rf"\.(?:{'|'.join(sorted(vocabulary.FILE_EXTENSIONS))})$", _I)
# The recording systems a message may name, by the words that name them.
_FORMATS: tuple[tuple[str, str], ...] = (
    ("spikeglx", r"spike\s*glx"),
    ("openephys", r"open[\s-]*ephys"),
    ("intan", r"intan|rhd|rhs"),
    ("blackrock", r"blackrock|cerebus|ns[1-6]|nev"),
    ("neuralynx", r"neuralynx|nlx|ncs"),
    ("axon", r"axon\s+(?:binary|instruments?|format|files?|abf)|abf|pclamp|axoscope"),
    ("plexon", r"plexon|omniplex|plx|pl2"),
    ("spike2", r"spike\s*2|smrx?|ced"),
    ("edf", r"edf\+?|european\s+data\s+format"),
    ("neuroscope", r"neuroscope"),
)
FORMAT_RE = re.compile("|".join(rf"(?P<{name}>(?<![\w.])(?:{pattern})(?![\w]))" for name, pattern in _FORMATS), _I)
DECLINED_VALUE_RE = re.compile(
    r"n/?a|none|unknown|not\s+known|no\s+idea|no\s+clue|(?:i\s+)?(?:don'?t|do\s+not)\s+know|not\s+sure|unsure"
    r"|idk|dunno|skip|tbd|-+|\?+|(?:left\s+)?(?:blank|empty)(?:\s+for\s+now)?|later|to\s+follow",
    _I,
)
DECLINE_RE = re.compile(
    r"(?<![\w'])(?:skip(?:ping)?|pass|omit|leave\s+(?:it\s+)?(?:out|blank|empty)|left\s+(?:out|blank|empty)"
    r"|(?:i'?d\s+)?(?:rather|prefer)\s+not\s+(?:to\s+)?(?:say|tell|share|give\s+it)|(?:don'?t|do\s+not)\s+"
    r"(?:know|have|remember)|not\s+sure|unsure|no\s+(?:idea|clue)|idk|dunno|n/?a|none|unknown|not\s+"
    r"(?:known|applicable|available|recorded)|(?:can'?t|cannot)\s+remember|no)(?![\w'])",
)
POLITENESS_RE = re.compile(r"(?<![\w'])(?:no\s+problem|no\s+worries|never\s*mind|thank\s+you)(?![\w'])")
NO_NEED_RE = re.compile(r"(?<![\w'])no\s+(?:need|reason)\s+to(?![\w'])")
# Words that speak of what the user said or will do ("I meant", "can I"), not of the experiment.
SAID_RE = re.compile(r"\bi\s+(?:said|wrote|meant|typed|mean)\b|\bcan\s+i\b|\bi'?ll\b|\bdo\s+you\b", re.IGNORECASE)
LEADING_CHATTER_RE = re.compile(
    r"(?:(?:yes|yeah|yep|ok|okay|sure|no|nope|nah|actually|sorry|oops|well|oh|um+|uh+|so|and|also|plus|then"
    r"|hmm+|hi|hello|hey|right|correction|wait|i\s+meant|i\s+mean|meant|it'?s|it\s+is|it\s+was|its|that'?s"
    r"|that\s+is|this\s+is|they\s+are|they're|(?:she|he)\s+(?:is|was)|(?:she|he)'s|the\s+answer\s+is|here\s+you\s+go"
    r"|i'?m|i\s+am|(?:my\s+)?name'?s|my\s+name\s+is|(?:i|we)\s+(?:work|am|are)\s+in|myself"
    r"|bonjour|hola|buenas|buenos\s+d[ií]as|ciao|hallo|salut|namaste|greetings|good\s+(?:morning|afternoon|evening)"
    r"|ol[aá]|soy|je\s+suis|ich\s+bin|sono|dear\s+(?:all|team|sir|madam|sir/madam)|salve|salam|shalom|merhaba"
    r"|buongiorno|buonasera|bonsoir|gr[üu]ezi|goedemorgen|goedemiddag|dzie[ńn]\s+dobry|dobr[ýy]\s+den|god\s+morgen"
    r"|morning|afternoon|evening|good\s+day|hiya|howdy"
    r"|guten\s+(?:tag|morgen|abend)|boa\s+(?:tarde|noite)|bom\s+dia|buenas\s+(?:tardes|noches)|konnichiwa|ni\s+hao"
    r"|hej|hei|moin|servus|namaskar|sawubona|habari"
    # a greeting in another script ("こんにちは", "Привет"), but not an institution ("東京大学") nor a name
    # with its romanisation after it ("鈴木美咲 (Suzuki Misaki)")
    rf"|(?![^\x00-\u024f\s]*(?:{east_asian.INSTITUTION_ENDS})(?![^\x00-\u024f\s]))(?![^\x00-\u024f\s]+\s?\()"
    r"[^\x00-\u024f\s]+[!！]?"
    r"|i\s+(?:think|guess|believe)|by|from)(?![\w'])[\s,:.!-]*)+",
    _I,
)
PRONOUN_RE = re.compile(r"(?<![\w'])(?:she|he)(?![\w])", _I)
PRONOUN_SEX = {"she": "F", "he": "M"}
HERE_RE = re.compile(r"\s+here\s*,?$", _I)
ROLE_RE = re.compile(
    r"(?:doing|finishing|pursuing)\s+(?:my|a|the)\s+(?:phd|doctorate|master'?s|masters|postdoc|thesis)"
    r"|working\s+as\s+(?:an?\s+)?[\w\s]{3,30}"
    r"|(?:an?\s+)?(?:(?:phd|graduate|grad|master'?s|undergrad(?:uate)?)\s+student|student|postdoc|post-doc"
    r"|postdoctoral\s+(?:fellow|researcher)|research\s+(?:fellow|assistant|scientist)|technician|professor|pi"
    r"|researcher|scientist|fellow)",
    _I,
)
SELF_RE = re.compile(r"(?:me|myself|us|ourselves)\s*,\s*", _I)
# "<person> recorded it", "<person> did the recordings (at <institution>)": the person is the experimenter.
DOER_RE = re.compile(
    r"(?<!\s)\s+(?:(?:has|have|had)\s+)?(?:recorded|did|performed|ran|collected|acquired|conducted|carried\s+out|imaged"
    r"|ran)(?:\s+(?:it|this|that|them|these|those|everything|all\s+of\s+(?:it|them)|(?:the|this|that|these|those"
    r"|our|my|all\s+the|both|all)\s+(?:recordings?|sessions?|experiments?|data|surgery|surgeries|imaging|ephys"
    r"|work|runs?|files?|animals?|mice|rats)))?(?:\s+(?:myself|himself|herself|themselves|alone))?"
    r"(?:\s+(?:at|in|from|@)\s+(?P<place>\S.*))?$",
    _I,
)
# "… by <person>" after a description ("recordings in V1 by Lucas Martin").
BY_RE = re.compile(r"(?<!\s)\s+by\s+", _I)
# A part that only names what something is not ("a rat, not a mouse").
WHEN_RE = re.compile(r"\s+(?:on|at)\s+", _I)
NOT_INSIDE_RE = re.compile(r",?\s+(?:not|rather\s+than|instead\s+of|pas|nicht|niet|inte|não|non)\s+", _I)
NOT_RE = re.compile(r"(?:not|rather\s+than|instead\s+of)(?![\w'])", _I)
NEGATIVE_START_RE = re.compile(r"(?:no|nope|nah|wrong|incorrect)(?![\w'])", _I)
REPLACE_RE = re.compile(r"(?:change|replace|switch|update|correct)\s+.+?\s+(?:to|with|by)\s+", _I)
CORRECTION_MARKER_RE = re.compile(
    r"(?<![\w'])(?:actually|sorry|oops|i\s+meant|meant\s+to\s+say|correction|instead|rather\s+than|my\s+bad"
    r"|typo|mistake|wrong|not\s+quite)(?![\w'])"
    r"|(?<![\w'])(?:yes|yeah|yep|ok|okay|sure|fine|good|great|right|correct)[\s,]+(?:but|except|however)"
    r"(?![\w'])",
    _I,
)


# A chunk that opens with "no" or "wait" corrects what the portal said ("No, it's Stanford").
CORRECTING_START_RE = re.compile(
    r"\W*(?:no|nope|nah|wait)(?![\w'])(?![\s,]+(?:idea|clue|need|reason|problem|worries|metadata|questions"
    r"|more|thanks))",
    _I,
)
BORN_RE = re.compile(r"\b(?:born|birth)\b", _I)
# Words before a date that only say what it is the date of ("the session started at …", "born on …").
DATE_PREFIX_RE = re.compile(
    r"(?:(?:the|this|our|my)\s+)?(?:(?:recording|recordings|session|experiment|mouse|rat|animal|subject|it|we|i|she|he"
    r"|they)\s+)?"
    r"(?:(?:was|were|is|got|has\s+been)\s+)?"
    r"(?:(?:recorded|started|starts|start|starting|began|begins|begun|beginning|commenced|done|made|performed"
    r"|acquired|born|took\s+place|happened)\s+)?"
    r"(?:(?:on|at|from|in|of)\s+)*",
    _I,
)

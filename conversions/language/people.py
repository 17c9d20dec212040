"""People named in running text, and which of them recorded the data.

The chunk reader reads a person where a segment is a name ("Experimenter: Ada Byron", "Ada Byron,
ETH Zurich"). In prose, people come inside sentences with what they did: "My student Aisha Bello did
the recordings", "I'm the PI, Robert Hall", "the recordings were made by our research fellow, Dr.
Aisha Bello", "Mustafa Kaya (PhD student) & Prof. Dr. Ulrike Brandt, Ruhr University Bochum".
`team` finds the names, groups those listed together ("A and B", "A, B", "A & B"), and reads the
words around each group: who recorded, who leads the lab or only uploads (a PI or supervisor is no
experimenter unless the message says they recorded too), and who is writing.

Only what the words say counts: a name with no role word, no "I'm" and not opening the message is
left to the chunk reader.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from conversions.language.zones import is_place

_I = re.IGNORECASE

_TITLES = frozenset(
    {"dr", "dr.ssa", "dra", "doctor", "prof", "professor", "mr", "mrs", "ms", "mx", "dott", "dott.ssa", "sir", "dame"}
)
_DEGREE_WORDS = frozenset({"rer", "nat", "med", "phil", "habil", "phd", "md"})
PARTICLES = frozenset(
    {"van", "von", "de", "der", "den", "ten", "ter", "da", "di", "la", "le", "du", "del", "della", "dos", "das", "zu"}
    | {"ní", "nic", "ó", "bin", "al", "el"}
)
# Capitalised words that open sentences or greet, and so name no one.
_NOT_NAME_TEXT = """hi hello hey dear greetings bonjour hola ciao hallo salut namaste guten tag boa tarde dia
    buongiorno buenos
    buenas good morning afternoon evening thanks thank sorry yes no ok okay so also and but the this that these
    those my our his her their we i it its it's he she they you me mine here there what why how when where who
    which please note ps btw fyi re subject experiment experimenter experimenters institution institute
    description species sex age mouse mice rat rats monkey animal patient participant donor recording recordings
    recorded session lab labs group team university college school hospital center centre department dept
    monday tuesday wednesday thursday friday saturday sunday today yesterday
    soy sou sono oi salve saludos ciao je ich bin suis quick g'day gday kia ora zusammen aloha moin servus hej hei
    ahoj cześć czesc merhaba salam shalom namaskar
    english french german spanish italian chinese japanese korean dutch swedish pi supervisor postdoc student only
    phd professor doctor name names hajimemashite konnichiwa ohayou desu c'est voici quem foi die aufnahmen
    messungen registrazioni registros grabaciones enregistrements gravações hoi gozaimasu ohayou kochira watashi
    macho hembra varón mâle femelle homme femme männlich weiblich maschio femmina josei dansei mesu osu
    ici just hier uni research sciences health"""
_NOT_NAME_WORDS = frozenset(_NOT_NAME_TEXT.split())
_ROLE_WORDS = (
    r"(?:the|a|an|just|only|his|her|their|your|one|also|again|now|lab|pi|p\.i\.|supervisor|postdoc|post-doc|student"
    r"|phd|grad|graduate|master'?s|undergrad|undergraduate|research|fellow|scientist|engineer|technician|tech"
    r"|clinician|neurosurgeon|surgeon|neurologist|physician|resident|manager|head|principal|investigator|professor"
    r"|assistant|associate|staff|member|visiting|senior|junior|new|former|here|advisor|adviser|coordinator|lecturer"
    r"|honours|rotation|msc|md|nurse|colleague|labmate|collaborator|doctoral|candidate|intern|our|my"
    r"|dottorand[oa]|doktorand(?:in)?|doctorant[e]?|mestrand[oa]|doutorand[oa]|tesista|estudiante|étudiante?|studentin)"
)
_SELF_BEFORE_RE = re.compile(
    rf"(?:(?<![\w'])(?:i'?m|i’m|i\s+am|im|this\s+is|it'?s\s+(?:me|just\s+me)|that'?s\s+me|here\s+is|here'?s"
    rf"|my\s+name\s+is|my\s+name'?s|name'?s|names?\s*[:=]|me|myself|soy|je\s+suis|ich\s+bin|sono|me\s+llamo|mi\s+chiamo"
    rf"|je\s+m'appelle|m'appelle|ich\s+heiße|ich\s+heisse|sou(?:\s+[ao])?|me\s+chamo|mi\s+nombre\s+es"
    rf"|we\s+are|we'?re|me\s*=|soy\s+(?:la|el)|aqui\s+é(?:\s+[oa])?|aquí\s+(?:es|está)|ici"
    rf"|(?:bonjour|salut|coucou)[\s,!]*c['’]est|jag\s+heter|ik\s+ben|ik\s+heet|nazywam\s+się|меня\s+зовут"
    rf"|jmenuji\s+se|mitt\s+namn\s+är|mein\s+name\s+ist|mi\s+nombre\s+es|o\s+meu\s+nome\s+é"
    rf"|(?:(?:und|y|e|et|og|en|och|és)\s+)(?:ich|yo|moi|io|eu|jeg|ik|jag|én)\s*[(,]"  # "… und ich (Felix Roth)"
    rf"|sono\s+(?:il|la)\s+(?:dott\.?(?:ssa)?|dr\.?|prof\.?(?:essor(?:e|essa)?)?))"
    rf"(?:\s+(?:[A-Z][\w-]+\s){{1,2}}?[A-Z][\w-]*['’]s)?"  # "I'm Rohan Bhatt's grad student Emma Lindholm"
    rf"(?:\s*[,:(—–-]?\s*{_ROLE_WORDS}\b\.?){{0,4}}\s*[,:(—–-]?\s*)$",
    _I,
)
_SELF_AFTER_RE = re.compile(
    r"^\s*(?:\(\s*(?:me|myself|that'?s\s+me|i\b[^()]{0,60})\)|here\b|speaking\b|writing\b|again\b"
    r"|hier\b|aqu[ií]\b|ici\b|desu\b)",
    _I,
)
# "(I'm uploading for her — Dr. Sam Foster)", "just uploading": the writer did not record.
_UPLOADER_BEFORE_RE = re.compile(
    r"(?:upload(?:ing)?|submit(?:ting)?|convert(?:ing)?|doing\s+this)\s+(?:this\s+|it\s+|the\s+data\s+)?"
    r"(?:for|on\s+behalf\s+of)\s+\w+\s*[—–,:(-]*\s*$",
    _I,
)
_UPLOADER_AFTER_RE = re.compile(r"^[\s,(—–-]*(?:\w+\s*,?\s*){0,2}?(?:just\s+|only\s+)upload", _I)
_LEAD = (
    r"(?:pi|p\.i\.|supervisor|advisor|adviser|lab\s+head|head\s+of\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?lab|group\s+leader"
    r"|principal\s+investigator|boss|lead\s+the\s+lab|run\s+the\s+lab|manage\s+the\s+(?:[\w-]+\s+)?lab)"
)
_LEAD_BEFORE_RE = re.compile(
    rf"(?<![\w.]){_LEAD}\s*(?:is|was|[:=,(—–-])?\s*(?:{_ROLE_WORDS}\s+)?$|(?<![\w])(?:prof|professor)\.?\s*$", _I
)
_LEAD_AFTER_RE = re.compile(
    rf"^\s*(?:\(\s*(?:the\s+|our\s+|my\s+)?{_LEAD}\b[^()]*\)"
    rf"|[,—–-]\s*(?:i'?m\s+|i\s+am\s+)?(?:(?:the|our|my|his|her|a)\s+)?{_LEAD}\b"
    rf"|(?:\([^()]*\)\s*)?(?:is|was)\s+(?:(?:the|our|my|his|her)\s+)?{_LEAD}\b"
    rf"|(?:\([^()]*\)\s*)?,?\s*(?:only|just)\s+(?:designed|supervised|planned)"
    rf"|(?:\([^()]*\)\s*)?,?\s*(?:designed|supervised)\b)",
    _I,
)
_NOT_RECORDER_AFTER_RE = re.compile(
    r"^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:who|but\s+(?:she|he|they))\s+)?(?:is|was)\s*n[o']t\s+(?:the\s+|an?\s+)?"
    r"(?:experimenter|one\s+who\s+recorded)"
    r"|^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:who|but\s+(?:she|he|they))\s+)?(?:(?:did|does)\s*n[o']t|never)\s+record"
    r"|^\s*\(\s*not\s+(?:an?\s+|the\s+)?(?:experimenter|recorder|one\s+who)"
    # "… did not participate in recordings", "…, but he wasn't involved", "(PI) supervising remotely"
    r"|^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:who|but\s+(?:she|he|they))\s+)?(?:(?:did|does)\s*n[o']t|never)"
    r"\s+(?:participate|take\s+part|join)"
    r"|^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:who|but\s+(?:she|he|they))\s+)?(?:was|were|is)\s*n[o']t\s+involved"
    r"|^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:only|just)\s+)?supervis(?:ed|es|e|ing)\b"
    # "Dr. Rocha, the neurosurgeon, placed the electrodes": an implant, not the recording
    r"|^\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:the|our)\s+(?:neuro)?surgeon,?\s+)?(?:who\s+)?(?:placed|implanted|inserted)"
    r"\s+(?:the\s+|all\s+the\s+)?(?:electrodes?|probes?|implants?|grids?|arrays?|depth\s+electrodes)\b",
    _I,
)
# "experimenter", misspelt ("expermenter", "experimentor") or in the users' other languages.
_EXPERIMENTER = (
    r"(?:exp[a-z]{0,2}r[a-z]?m[ae]nt[eo]rs?|versuchsleiter(?:in)?|sperimentat(?:ore|rice|ori)|experimentador[a]?"
    r"|eksperymentator(?:zy|ka)?|experimentatorin|experimentat(?:eur|rice)s?|experimentadores"
    r"|exp[ée]rimentat(?:eur|rice))"
)
_OBJECT = (
    r"(?:record\w*|experiment\w*|sessions?|it|them|this|these|all|the\s+rig|data|measurements?|imaging|patch\w*"
    r"|ephys|physiology|acquisition|everything|most"
    r"|surger\w*\s+(?:and|&)\s+(?:the\s+|all\s+the\s+)?(?:record\w*|imaging|experiments?|sessions?))"
)
_DID = (
    r"(?:\w+\s+and\s+)?(?:did|does|do|ran|runs|run|performed|made|carried\s+out|conducted|collected|acquired|handled"
    r"|took|helped(?:\s+with)?)"
)
# Work on the data that is not recording it: who only did these is no experimenter of the session.
_OTHER_TASK = (
    r"(?:surger(?:y|ies)|implant(?:s|ation)?|the\s+implant|histology|analysis|analyses|perfusions?|injections?"
    r"|genotyping|sectioning|staining|spike\s+sorting|stats|design|the\s+design|slice\s+prep(?:aration)?)"
)
# "(neurosurgeon, did the implant only)", "(she only did histology)", "(surgery)": a part of the work that
# is not the recording, with no word that they recorded as well.
_OTHER_TASK_OWN_RE = re.compile(
    rf"\b(?:{_OTHER_TASK}|surgeon|neurosurgeon|histolog\w*|designed|did\s*n[o']t\s+record|not\s+record\w*)\b", _I
)
# "only", "just" or a "not record": what makes a task in parentheses the person's whole part.
_ONLY_RE = re.compile(r"\b(?:only|just|solely)\b|\bn[o']t\s+record|n't\s+record", _I)
# "Selin Kaya did the surgery", "Mariana only did histology": said right after the name.
_OTHER_TASK_AFTER_RE = re.compile(
    rf"^\s*(?:\([^()]*\)\s*)?,?\s*(?:who\s+)?(?:only\s+|just\s+)?(?:did|does|do|performed|handled|was\s+responsible\s+for)"
    rf"\s+(?:(?:the|all\s+the|his|her|their|our)\s+)?(?:[\w-]+\s+)?{_OTHER_TASK}(?:\s+only)?\b(?!\s+(?:too|as\s+well))"
    rf"(?!\s*(?:and|&|,|\+)\s*(?:the\s+|all\s+the\s+)?(?:record|imaging|sessions|experiments))",
    _I,
)
# "Histology was done by Carmen Ruiz", "the implant by Dr. Mehta": named as doing that other part.
_OTHER_TASK_BY_RE = re.compile(
    rf"{_OTHER_TASK}\s+(?:(?:was|were|is)\s+)?(?:(?:done|performed|made|handled|carried\s+out)\s+)?by\s+"
    rf"(?:(?:our|my|the|dr\.?|prof\.?)\s+)?(?:[\w-]+\s+){{0,2}}?$",
    _I,
)
# The writer named beside another who recorded: "me and Priyanka Das", "Recorded by me + Priyanka Das",
# "Jan Petersen und ich (Nina Krüger)", "Camila Rincón y yo, Santiago Peña".
_AND_WORD = r"(?:and|&|\+|plus|und|y|e|et|i|és|og|en|och)"
_ME_BEFORE_NAME_RE = re.compile(
    rf"(?<![\w'])(?:me|myself|i)\s*(?:\([^()]{{0,60}}\)\s*)?{_AND_WORD}\s*(?:(?:my|our)\s+(?:[\w-]+\s+){{0,2}}?)?$", _I
)
_ME_AFTER_NAME_RE = re.compile(
    rf"^\s*(?:\([^()]{{0,60}}\)\s*)?,?\s*{_AND_WORD}\s+(?:me|myself|i|ich|yo|eu|io|moi|ja|én|jeg|ik|jag)(?![\w'])", _I
)
# "Louise Andersson did the recordings with me": the one named is the subject of the clause.
_WITH_ME_AFTER_RE = re.compile(
    rf"^[^.;!?]{{0,60}}?\b(?:recorded|{_DID}\s+(?:\w+\s+){{0,3}}?{_OBJECT})\s+with\s+me\b", _I
)
_RECORDER_AFTER_RE = re.compile(
    rf"^\s*\)?\s*(?:\([^()]*\)\s*)?,?\s*(?:(?:who|she|he|they|both|together|also|all|was\s+the\s+one\s+who"
    rf"|the\s+one\s+who|the\s+ones\s+who"
    rf"|is\s+the\s+one\s+who|(?:she|he)'?s\s+the\s+one\s+who|were\s+the\s+ones\s+who)\s+)*"
    rf"(?:recorded|records|record\b|took\s+over|{_DID}\s+(?:\w+\s+){{0,3}}?{_OBJECT}|did(?=\s*(?:[.!;]|$)))"
    rf"|^\s*\((?![^()]*\b(?:not|never|no)\b|[^()]*n't\b)\s*(?:\w+\s+){{0,2}}?"
    rf"(?:recordings?|recorded|experimenters?|recorder|did\s+(?:the\s+)?recordings?)\b"
    rf"|^\s*,?\s*(?:as|to\s+the)\s+(?:an?\s+|the\s+)?(?:experimenters?|recorders?)\b"
    # "… and I recorded everything together", "… y yo (Lucía Mora) hicimos", "… qui a fait les
    # enregistrements", "… hat die Aufnahmen gemacht": the same in the users' other languages.
    rf"|^\s*(?:and|&)\s+(?:i|me)\s+(?:\w+\s+){{0,2}}?(?:recorded|{_DID}\s+(?:\w+\s+){{0,3}}?{_OBJECT})"
    rf"|^\s*(?:y\s+yo|e\s+eu|e\s+io|und\s+ich|et\s+moi)\b"
    rf"|^\s*qui\s+a\s+(?:fait|réalisé|realise|enregistré|enregistre)\b"
    rf"|^\s*(?:hat|haben)\s+(?:\w+\s+){{0,3}}?(?:gemacht|aufgenommen|durchgeführt)\b",
    _I,
)
_RECORDER_BEFORE_RE = re.compile(
    rf"(?:(?:recorded|recordings?|experiments?|sessions?|data|done|performed|made|carried\s+out|conducted"
    rf"|collected|acquired|run|ran)\s+(?:\w+\s+){{0,2}}?by\s+(?:(?:me|myself)\s*(?:,|and|&|\+|\(|together\s+with)\s*)?"
    rf"(?:(?:two|three|four|both|these|those)\s+[\w-]+\s*:\s*|(?:two|three|four|both|all)\s+of\s+(?:us|them)\s*[,:]\s*)?"
    rf"|(?:recordings?|recorded\s+by|{_EXPERIMENTER}|recorders?|recorded|exp|expt|who|registros|registrazioni"
    rf"|enregistrements|gravações|aufnahmen|opnames|metingen|rejestracje|inspelningar)\.?\)?"
    rf"(?:\s*(?:\+|&|and|/)\s*[\w-]+)?\s*[:=]\s*"
    rf"(?:(?:me|myself)\s*\(\s*)?"
    rf"|(?:record\w*|ran|did|performed|made|conducted)\b[^.;!?]{{0,60}}?\bwith\s+(?:(?:the\s+)?help\s+(?:from|of)\s+)?"
    rf"|(?:enregistr\w*|registr\w*|grab[eé]\w*|grav\w*|aufgenommen|abgeleitet)\b[^.;!?]{{0,60}}?\b(?:avec|con|com|mit)\s+"
    rf"|(?<![\w'])with\s+(?=(?:my|our)\s+)"
    rf"|(?:{_EXPERIMENTER}|recorders?)\s+(?:is|was|are|were|should\s+be)\s+"
    rf"|(?:person|one|people)\s+who\s+(?:\w+\s+)?(?:recorded|{_DID}\s+(?:\w+\s+){{0,3}}?{_OBJECT})(?:\s+it)?"
    rf"\s+(?:is|was|were)\s+"
    rf"|(?<![\w'])(?:me|i|myself)\s*(?:and|&|\+)\s*(?:my\s+)?[\w-]+(?:\s+[\w-]+)?\s*[:—–-]\s*"
    rf"|(?:together\s+with|along\s+with)\s+(?:[\w-]+\s+){{0,3}}?"
    rf"|(?<![\w'])(?:put|write|use|enter)\s+(?:down\s+)?"
    # "Recordings by me, Anna Holm, and by Erik Lund", "done by me and by our undergrad Ben Ross"
    rf"|(?:recorded|recordings?|done|performed|made|run|collected|acquired)\s+(?:\w+\s+){{0,2}}?by\s+[^.;!?]{{0,60}}?"
    rf"(?<![\w'])(?:and|&)\s+(?:also\s+)?by\s+"
    # "Registrazioni di …", "Enregistrements faits par …", "Quem gravou foi a …", "Die Aufnahmen hat …"
    rf"|(?:registrazioni|registros|grabaciones|enregistrements|gravações|gravacoes|aufnahmen|messungen)\s+"
    rf"(?:(?:fatte|faites|hechas|feitas|realizadas|réalisés)\s+)?(?:di|da|dal|de|par|por|von)\s+"
    rf"(?:(?:me|moi|mí|mim)\s*(?:,|e|et|y|und)\s*)?"
    rf"|quem\s+gravou\s+foi\s+(?:o\s+|a\s+)?|(?:die\s+)?(?:aufnahmen|messungen)\s+(?:hat|haben)\s+"
    # "aufgenommen von …", "feitas por mim e pela …", "eseguite da me e dalla dott.ssa …", "réalisés par le Dr …"
    rf"|(?:aufgenommen|gemessen|abgeleitet|durchgeführt|gemacht|aufnahmen|feit[oa]s?|realizad[oa]s?|hech[oa]s"
    rf"|eseguit[eia]|fatt[eia]|réalisée?s?|realisee?s?|faite?s?|enregistrée?s?|grabad[oa]s?|gravad[oa]s?|registrad[oa]s?)"
    rf"\s+(?:von|por|pela|pelo|par|da|dal|dalla|dallo)\s+"
    rf"(?:(?:mim|mí|me|moi|mir)\s*,?\s*(?:e|y|et|und)\s+(?:pela|pelo|por|dalla|dal|dallo|da|par|von)?\s*)?"
    rf"(?:(?:le|la|el|o|a|dott\.?(?:ssa)?|dr\.?|dra\.?|prof\.?)\s+)?"
    rf")(?:(?:our|my|his|her|the|a)\s+(?:[\w-]+[\s,]+){{0,3}}?)?[,:]?\s*(?:{_ROLE_WORDS}s?\s+){{0,2}}$",
    _I,
)
# "recorded", "did the recordings", "ran these sessions": what a subject did when it recorded.
_PAST_RECORDING = (
    rf"(?:\w+\s+){{0,2}}?(?:recorded|(?:did|ran|performed|made|carried\s+out|conducted|collected|acquired)\s+"
    rf"(?:\w+\s+){{0,3}}?{_OBJECT})"
)
# "… by Paul Zimmer and me", "recorded by Dr. Samuel Okoro (neurosurgery fellow) and myself": the writer, named last.
_AND_ME = r"\b(?:by|with)\s+(?:[\w.()'’-]+\s+){0,6}?(?:and|&)\s+(?:me|myself)\b"
_AND_ME_RE = re.compile(_AND_ME, _I)
# The writer says they recorded: "I did the recordings myself", "done by me", "me and my labmate".
_WRITER_RECORDED_RE = re.compile(
    rf"(?<![\w'])i\s+{_PAST_RECORDING}"
    rf"|\bby\s+(?:me|myself)\b|\b(?:por\s+mim|por\s+m[ií]|da\s+me|par\s+moi|von\s+mir)\b|(?<![\w'])(?:me|i|myself)\s*(?:and|&|\+)\s*(?:my\s+)?\w+|{_AND_ME}"
    rf"|(?:^|[.!?]\s+)(?:recorded|recording\s+done)\s+(?:together\s+)?with\b|\bi\s+recorded\s+(?:it\s+|this\s+)?with\b"
    rf"|(?:^|[.!?]\s+)(?:did|ran|performed|made)\s+(?:the\s+|these\s+|this\s+|all\s+(?:the\s+)?)?"
    rf"(?:recordings?|sessions?|experiments?|imaging|it)\s+(?:together\s+)?with\b"
    rf"|\b(?:both|we)\s+recorded\b|\bboth\s+of\s+us\b"
    rf"|(?<![\w'])(?:j['’]ai\s+enregistr|ho\s+registrat|registr[eé]\b|grab[eé]\b|eu\s+registrei|registrei\b"
    rf"|ich\s+habe\s+(?:\w+\s+){{0,5}}?(?:aufgenommen|abgeleitet|gemessen)|rejestrował[ae]m"
    rf"|ik\s+heb\s+(?:\w+\s+){{0,5}}?(?:gedaan|opgenomen|gemeten)|jag\s+(?:gjorde|spelade\s+in|registrerade)"
    rf"|(?:регистрацию|запись)\s+проводил[аи]?\s+я|я\s+(?:сам[аи]?\s+)?(?:записывал|регистрировал)|kayıtları\s+ben)",
    _I,
)
# "we did EEG recordings in rats": the writer among others, unless the message names who ran the session.
_WE_RECORDED_RE = re.compile(rf"(?<![\w'])we\s+{_PAST_RECORDING}", _I)
# The writer says plainly that they recorded, whatever their role: "I did the imaging myself", "… and myself".
_I_RECORDED_RE = re.compile(
    rf"(?<![\w'])i\s+{_PAST_RECORDING}(?:\s+\w+){{0,3}}?\s+(?:myself|too|as\s+well|(?:together\s+)?with)\b|{_AND_ME}",
    _I,
)
_BOTH_OF_US_RE = re.compile(
    r"\bboth\s+of\s+us\b|\bwe\s+(?:both\s+)?(?:did|recorded|ran)\b[^.]*\btogether\b|\bwe\s+both\b", _I
)
# The writer says they did not: "I did not do these recordings", "I'm not an experimenter".
_WRITER_DID_NOT_RE = re.compile(
    r"(?<![\w'])i\s+(?:did\s*n[o']t|didn'?t|never|was\s*n[o']t|wasn'?t|am\s+not|honestly\s+didn'?t)\b"
    r"|(?<![\w'])i'?m\s+not\s+(?:an?\s+|the\s+)?(?:experimenter|one\s+who)|\bnot\s+(?:by\s+)?me\b|\bwasn'?t\s+at\s+the\s+rig",
    _I,
)
# "I'm just the PI", "I am only the supervisor": the writer leads and did not record.
_WRITER_ONLY_LEADS_RE = re.compile(
    rf"(?<![\w'])(?:i'?m|i’m|i\s+am)\s+(?:just|only|merely|simply)\s+(?:the|their|his|her)\s+{_LEAD}\b", _I
)
# "on behalf of Ahmed Haddad", "for my rotation student Keiko Yamamoto": the one the writer uploads for.
_FOR_BEFORE_RE = re.compile(
    rf"(?:on\s+behalf\s+of\s+|(?:\bfor|helping|help)\s+(?:my|our|his|her)\s+(?:{_ROLE_WORDS}\s+|[\w'-]+\s+){{0,3}}?)"
    rf"(?:dr\.?\s*)?$",
    _I,
)
# "… Keiko Yamamoto. She did the slice prep and all the recordings": the one named last before it.
_PRONOUN_RECORDED_RE = re.compile(
    rf"(?:^|[.!?;]\s+)(?:she|he)\s+(?:\w+\s+){{0,2}}?(?:recorded|{_DID}\s+(?:[\w-]+\s+){{0,4}}?{_OBJECT})", _I
)
_BY_PRONOUN_RE = re.compile(
    r"\b(?:recorded|recordings?|done|made|performed|run|carried\s+out)\s+(?:\w+\s+){0,2}?by\s+(?:her|him)\b", _I
)
# Words that begin the names of organisations, in the users' languages.
ORGANISATION_WORDS = (
    "universi",
    "üniversite",
    "uniwersyt",
    "departament",
    "department",
    "départ",
    "dipartiment",
    "facult",
    "fakult",
    "institut",
    "klinik",
    "hospital",
    "college",
    "laborator",
    "scuola",
    "escola",
    "école",
    "ecole",
    "hochschul",
    "akadem",
    "academ",
    "stazione",
    "centro",
    "fondazione",
    "fundação",
    "fundacion",
    "fundación",
    "ospedal",
    "hôpital",
    "hopital",
    "clínic",
    "clinic",
    "spital",
    "centre",
)
# "me and my labmate: A, B", "me + my colleague — I'm A, she's B": the writer and a colleague both.
_PAIR_RE = re.compile(
    r"(?<![\w'])(?:me|i|myself)\s*(?:and|&|\+)\s*(?:my\s+)?(?:colleague|labmate|lab\s+mate|co-?worker|friend|"
    r"student|postdoc|supervisor|partner)",
    _I,
)
_COLLEAGUE_BEFORE_RE = re.compile(r"(?:she|he)'?s\s*$|(?:she|he)\s+is\s*$", _I)
_GROUP_GAP_RE = re.compile(
    # "A and B", "A (PhD student) & B", "A (lab tech) and our postdoc B", "me (A, lab tech) and B"
    rf"^(?:[^()]{{0,40}}\))?\s*(?:\([^()]{{0,60}}\))?\s*(?:,\s*(?=and\b|&))?"
    rf"(?:,|;|and|&|\+|und|y|e|ed|et|i|og|och|en|és|with|together\s+with)\s*"
    rf"(?:,\s*)?(?:(?:{_ROLE_WORDS}|phd|dr)\.?\s+){{0,4}}$"
    # "Dr. Yuki Tanaka AND me (Pablo Ortiz)", "A (neurosurgeon) and me, B"
    r"|^(?:[^()]{0,40}\))?\s*(?:\([^()]{0,60}\))?\s*(?:,\s*)?(?:and|&|\+)\s+(?:me|myself|i)\s*[,(]\s*$",
    _I,
)
_WORD_RE = re.compile(r"(?<![\w'’-])[^\W\d_]+(?:['’-][^\W\d_]+)*(?:\.ssa)?(?![\w])")
_CLAUSE_END_RE = re.compile(r"[.!?](?=\s|$)|\n|;|\s[|/]\s")
_LOWERCASE_SELF_RE = re.compile(
    r"(?<![\w'])(?:i'?m|i\s+am|im|this\s+is|my\s+name\s+is|name'?s|it'?s|its)\s+"
    r"(?P<name>[^\W\d_]{2,}(?:\s(?:van|von|de|der|den|da|di|del|la|le|dos|das)){0,2}(?:\s[^\W\d_]{2,}){1,2})"
    r"(?=\s*(?:[,.(]|$|\s(?:from|at|here|and|&|in|of|with|\()))",
)
_LOWERCASE_PAIR_RE = re.compile(
    r"(?:^|[.!?\n]\s*)(?P<names>[a-z]{2,}\s[a-z]{2,}(?:\s(?:and|&)\s[a-z]{2,}\s[a-z]{2,})+)\s+"
    rf"(?:{_DID}|recorded)\b",
)


# "Chris Ahn, Princeton", "Nadia Petit, Univ Bordeaux", "Ewa Mazur (University of Warsaw)", "Jess Park from the
# Lee lab @ UCSD": a name followed by where the person works signs the message.
# The separator before a name that closes a message of several parts, as a signature does.
_PART_BEFORE_RE = re.compile(r"(?:\s[—–|/-]|;)\s*$")
_SIGNED_AFTER_RE = re.compile(
    r"\s?(?:,\s?[a-zé][\w'’é-]*(?:\s[a-zé][\w'’é-]*){0,2}(?=,))?"  # "Carlos Gutiérrez, postdoc, University of Arizona"
    r"(?:,\s?|\s\(|\s(?:from|at|@)\s(?:the\s)?)(?:[A-Z][\w'’.&-]*|univ\w*|uni\b)"
    r"(?=[^.!?\n]{0,60}(?:universit|universidad|universidade|université|institut|college|hospital|clinic|school|center|"
    r"centre|lab\b|[A-Z]{2,}|\)|$|[.!?\n]))",
)
_LEAD_IN_RE = re.compile(rf"\b{_LEAD}\b", _I)
_NEGATED_BEFORE_RE = re.compile(r"\b(?:no|not|never)\s+$", _I)
_NEGATED_RE = re.compile(r"\b(?:not|never|no)\b|n't\b", _I)
_MY_NAME_RE = re.compile(
    r"\bmy\s+(?:own\s+)?(?:name|surname|first\s+name|last\s+name|family\s+name)\b"
    r"|\b(?:her|his)\s+(?:name|surname)\b(?=[^.]*?\b(?:spell|spelt|wrong|typo|accent|misspel))",
    _I,
)
# A clause that speaks of the experimenter and then names someone: the name is the experimenter's.
_EXPERIMENTER_NAMED_RE = re.compile(
    rf"\b{_EXPERIMENTER}\b(?![^,.;]*\bnot\b)[^.;!?]{{0,60}}?(?:it'?s|is|should\s+be|to|:|=|as)\s*$", _I
)


_LOWERCASE_NAME = (
    r"(?<![\w-])(?!and\s|&)[^\W\d_]+(?:\s(?:van|von|de|der|den|da|di|del|la|le|dos|das))*\s(?!and\b)[^\W\d_]+"
    r"(?:\s(?!and\b)[^\W\d_]+)?"
)


@dataclass
class _Name:
    start: int
    end: int
    text: str  # without titles
    titled: bool
    group: int = 0
    roles: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Team:
    experimenters: tuple[str, ...]  # who recorded, in the order named
    others: tuple[str, ...]  # people named as leading, supervising or only uploading
    named: tuple[str, ...]  # everyone the message names
    said: bool = False  # words say who recorded ("did the recordings", "Recordings: …"), not only who writes


# Roles that say a person did not record: they lead the lab, only upload, or are said not to have.
_NOT_RECORDING = frozenset({"lead", "uploader", "not"})


@dataclass(frozen=True)
class _Writer:
    """What the message says of its writer's part in the recording."""

    recorded: bool  # "I did the recordings myself", "done by me", "we recorded" (unless others are named)
    me_at: int | None  # where the writer's "me" stands beside a recorder's name (see _writer_beside)
    pair: bool  # "me and my labmate": the writer and a colleague both


def team(text: str, is_word: Callable[[str], bool], is_filler: Callable[[str], bool]) -> Team | None:
    """Who the message says recorded, or None when its words do not say. `is_word` tells a lowercase
    word with a meaning of its own here (a species, a brain area, an institution word, filler), so
    that "Long Evans" or "Ruhr University" are not read as people; `is_filler` those of them that
    may follow a name ("here", "did", "from")."""
    names = _names(text, is_word, is_filler)
    if not names:
        return None
    _read_roles(text, names)
    writer = _read_writer(text, names)
    recorders = _said_to_record(text, names, writer)
    others = tuple(n.text for n in names if n.roles & _NOT_RECORDING and n not in recorders)
    if not recorders:
        recorders, others = _recorders_unsaid(names, others)
    named = tuple(n.text for n in names)
    if any("recorder" in n.roles for n in recorders):  # the others named did not record
        others += tuple(n.text for n in names if n not in recorders and n.text not in others)
    if not recorders:
        return Team((), others, named) if others else None
    recorders = _in_recording_order(text, names, recorders, writer.me_at)
    said = any("recorder" in n.roles for n in recorders)
    return Team(tuple(_one_name_each(recorders)), others, named, said=said)


def _read_writer(text: str, names: list[_Name]) -> _Writer:
    """What the message says of its writer. The writer's own name takes the roles the writer gives
    themself ("I'm just the PI", "I didn't touch the rig"); when the writer recorded and no name is
    theirs, the name that opens the message is."""
    did_not = bool(_WRITER_DID_NOT_RE.search(text))
    only_leads = bool(_WRITER_ONLY_LEADS_RE.search(text))
    for n in names:
        if "self" in n.roles and only_leads:
            n.roles.add("lead")  # "This is Dr. Ifeoma Okafor … I'm just the PI"
        if "self" in n.roles and did_not and "recorder" not in n.roles:
            n.roles.add("not")  # "I'm the PI … I honestly didn't touch the rig"
    by_others = any("by" in n.roles for n in names)  # "The session was run by my colleague Andrei Munteanu"
    me_at = None if did_not else _writer_beside(text, names)
    recorded = not did_not and (
        me_at is not None
        or bool(_WRITER_RECORDED_RE.search(text))
        or (bool(_WE_RECORDED_RE.search(text)) and not by_others)
    )
    pair = bool(_PAIR_RE.search(text))
    if (recorded or pair) and not any("self" in n.roles for n in names):
        for n in names:
            if "opening" in n.roles:
                n.roles.add("self")  # "Sofia Andersson, Karolinska. … Recorded with Erik Nilsson"
    return _Writer(recorded=recorded, me_at=me_at, pair=pair)


def _said_to_record(text: str, names: list[_Name], writer: _Writer) -> list[_Name]:
    """Those the words say recorded: a name said to record (and not said not to), the writer when
    they say they recorded, a colleague the writer names as recording with them."""
    return [
        n
        for n in names
        if ("recorder" in n.roles and "not" not in n.roles)
        or ("self" in n.roles and (writer.recorded or writer.pair) and not n.roles & _NOT_RECORDING)
        or ("self" in n.roles and "not" not in n.roles and writer.recorded and _I_RECORDED_RE.search(text))
        or ("self" in n.roles and writer.me_at is not None and not n.roles & {"uploader", "not"})
        or ("colleague" in n.roles and writer.pair)
    ]


def _recorders_unsaid(names: list[_Name], others: tuple[str, ...]) -> tuple[list[_Name], tuple[str, ...]]:
    """Who recorded when no words say it, and the others named then: the one the writer uploads for
    (the writer is then one of the others), else the writer with those listed beside them, else the
    names that open the message; no one when someone named as recording is said not to have."""
    writers = [n for n in names if "self" in n.roles and not n.roles & _NOT_RECORDING]
    helped = [n for n in names if "for" in n.roles and not n.roles & {"self", "lead", "not"}]
    if helped:  # "I'm uploading this on behalf of Ahmed Haddad"
        return helped, others + tuple(n.text for n in writers if n.text not in others)
    if writers:
        group = writers[0].group
        return [n for n in names if n.group == group and not n.roles & _NOT_RECORDING], others
    if any("recorder" in n.roles for n in names):
        return [], others
    opening = [n for n in names if "opening" in n.roles]
    if opening and not any(n.roles & _NOT_RECORDING for n in opening):
        return opening, others
    return [], others


def _in_recording_order(text: str, names: list[_Name], recorders: list[_Name], me_at: int | None) -> list[_Name]:
    """The recorders (the writer's whole list when they say "both of us") in the order the message
    gives them: the writer last after "… and me", where "I" stands when a clause puts them beside a name."""
    if _BOTH_OF_US_RE.search(text):  # "we are A and B from …, both of us recorded": the whole group
        groups = {n.group for n in recorders if "self" in n.roles}
        listed = [n for n in names if n.group in groups and n not in recorders and not n.roles & {"lead", "not"}]
        recorders = sorted(recorders + listed, key=lambda n: n.start)
    if _AND_ME_RE.search(text):  # "Recorded by Dr. Jonah Weiss and myself": the writer last
        return [n for n in recorders if "self" not in n.roles] + [n for n in recorders if "self" in n.roles]
    if me_at is not None and me_at >= 0:  # "I'm Arjun Nair … Hyun-ji Choi and I recorded": where "I" stands
        return sorted(recorders, key=lambda n: me_at if "self" in n.roles else n.start)
    return recorders


def _one_name_each(recorders: list[_Name]) -> list[str]:
    """The recorders' names, each person once: "I'm Mark, Mark Sullivan" names one person."""
    texts = list(dict.fromkeys(n.text for n in recorders))
    words = [set(text.lower().split()) for text in texts]
    return [t for t, w in zip(texts, words, strict=True) if not any(w < other for other in words)]


def _writer_beside(text: str, names: list[_Name]) -> int | None:
    """Where the writer's "me" stands when a clause about the recording names them beside someone
    ("Recordings: me and Priyanka Das", "Jan Petersen und ich", "X did the recordings with me", where
    -1 stands for it); that someone recorded too. None when no clause does. The recorders keep the
    order of their names."""
    for n in names:
        if "self" in n.roles:
            continue
        start = max((m.end() for m in _CLAUSE_END_RE.finditer(text, 0, n.start)), default=0)
        end = next((m.start() for m in _CLAUSE_END_RE.finditer(text, n.end)), len(text))
        if not _RECORDING_CLAUSE_RE.search(text, start, end) or _PLACE_BEFORE_RE.search(text, start, n.start):
            continue  # "at Khalifa University in Abu Dhabi, and I recorded": a place
        at = None
        if before := _ME_BEFORE_NAME_RE.search(text, max(start, n.start - 60), n.start):
            at = before.start()
        elif after := _ME_AFTER_NAME_RE.match(text[n.end : end]):
            at = n.end + after.end() - 1
        elif _WITH_ME_AFTER_RE.match(text[n.end : end]):
            at = -1
        if at is not None:
            for listed in names:  # "Daniela Ortiz, Felipe Castro and me": the whole list
                if listed.group == n.group and "self" not in listed.roles:
                    listed.roles.add("recorder")
            return at
    return None


_PLACE_BEFORE_RE = re.compile(r"\b(?:in|at|from|near)\s+$", _I)
_RECORDING_CLAUSE_RE = re.compile(
    rf"\b(?:record\w*|{_EXPERIMENTER}|did|ran|imag\w+|patch\w*|registr\w*|regist\w+|rejestr\w*|ableitung\w*"
    rf"|aufnahme\w*|enregistr\w*|gravaç\w*|grabaci\w*|hicimos|gemacht|kayıt\w*|opptak\w*|metingen)",
    _I,
)


def could_be_a_name(value: str, is_word: Callable[[str], bool]) -> bool:
    """Whether every word of "Family, Given" or "Given Family" could be a person's ("Programme, Wellcome
    Trust Research" could not: "Programme" and "Research" have meanings of their own)."""
    words = [w for w in re.split(r"[\s,]+", value) if w]
    return bool(words) and all(w.lower() in PARTICLES or _name_word(w, is_word) for w in words)


def _names(text: str, is_word: Callable[[str], bool], is_filler: Callable[[str], bool]) -> list[_Name]:
    """Runs of capitalised name words (with particles and initials), each at least two words or
    titled; then names typed in lower case after "I'm" or before "did the recordings"."""
    tokens = [(m.start(), m.end(), m.group()) for m in _WORD_RE.finditer(text)]
    names: list[_Name] = []
    i = 0
    while i < len(tokens):
        j, titled = i, False
        while j < len(tokens) and _is_title(tokens[j][2]) and _joined(text, tokens, j):
            titled, j = True, j + 1
        k = j
        while k < len(tokens) and (k == j or _joined(text, tokens, k - 1)):
            word = tokens[k][2]
            if _name_word(word, is_word) or (word.lower() in PARTICLES and _particle_of(tokens, k + 1, is_word)):
                k += 1
                continue
            break
        words = [t[2] for t in tokens[j:k]]
        while words and words[-1].lower() in PARTICLES and words[-1].islower():  # "Priyanka Das" keeps "Das"
            words.pop()
            k -= 1
        # A capitalised particle that ends the run is the family name: "Priyanka Das", "Ana Da".
        ends = not (k < len(tokens) and _joined(text, tokens, k - 1) and tokens[k][2][:1].isupper())
        proper = [
            w
            for i, w in enumerate(words)
            if w.lower() not in PARTICLES or (ends and i == len(words) - 1 and w[0].isupper())
        ]
        alone = proper and _stands_alone(text, tokens, j, k, is_word, is_filler)
        if (
            alone
            and (len(proper) >= 2 or titled or _introduced(text, tokens[j][0], tokens[k - 1][1]))
            and len(proper) <= 4
        ):
            lead = 0
            while len(words) - lead > 2 and words[lead] in PARTICLES and not titled:  # "Ich bin Paula Schmitt"
                lead += 1
            start = tokens[i][0] if titled else tokens[j + lead][0]
            names.append(_Name(start, tokens[k - 1][1], " ".join(words[lead:]).rstrip("."), titled))
            i = k
            continue
        i = max(k, i + 1)
    taken = [(n.start, n.end) for n in names]
    for pattern in (_LOWERCASE_SELF_RE, _LOWERCASE_PAIR_RE):
        for m in pattern.finditer(text):
            group = "name" if "name" in pattern.groupindex else "names"
            for part in re.finditer(_LOWERCASE_NAME, m[group]):
                start, end = m.start(group) + part.start(), m.start(group) + part.end()
                words = part.group().split()
                if words[0] in ("and",) or any(is_word(w.lower()) or w.lower() in _NOT_NAME_WORDS for w in words):
                    continue
                doing = any(w.endswith("ing") and len(w) > 5 for w in words)  # "this is taking forever"
                if doing or words[-1].endswith(("ing", "ed")) or any(s <= start < e for s, e in taken):
                    continue
                names.append(_Name(start, end, part.group(), False))
    names.sort(key=lambda n: n.start)
    return names


def _particle_of(tokens: list[tuple[int, int, str]], index: int, is_word: Callable[[str], bool]) -> bool:
    """Whether the words from `index` on are more particles and then a name word ("van den Broek")."""
    while index < len(tokens) and tokens[index][2].lower() in PARTICLES:
        index += 1
    return index < len(tokens) and _name_word(tokens[index][2], is_word)


def _joined(text: str, tokens: list[tuple[int, int, str]], index: int) -> bool:
    """Whether token `index` and the next are one phrase (only spaces between; a period only after an
    initial or a title: "J. R. Hartley", "Dr. rer. nat. Felix Hoffmann")."""
    if index + 1 >= len(tokens):
        return False
    gap = text[tokens[index][1] : tokens[index + 1][0]]
    if gap in (" ", ""):
        return True
    word = tokens[index][2]
    return gap == ". " and (len(word) == 1 or _is_title(word))


# "I'm Lena from …", "this is Kofi, …": one word after a plain introduction.
_INTRODUCED_RE = re.compile(r"(?<![\w'])(?:i'?m|i’m|i\s+am|im|this\s+is|my\s+name\s+is|name'?s)\s+$", _I)


def _introduced(text: str, start: int, end: int) -> bool:
    return bool(_INTRODUCED_RE.search(text, max(0, start - 16), start)) and bool(
        re.match(r"\s*(?:[,(—–-]|from\b|at\b|here\b|in\b|and\b|$)", text[end:])
    )


def _is_title(word: str) -> bool:
    bare = word.rstrip(".").lower()
    return bare in _TITLES or bare in _DEGREE_WORDS


def _name_word(word: str, is_word: Callable[[str], bool]) -> bool:
    bare = word.rstrip(".")
    if not bare or not bare[0].isupper():
        return False
    lowered = bare.lower()
    if any(part.startswith(ORGANISATION_WORDS) for part in lowered.split("-")):  # "Humboldt-Universität"
        return False  # "Universitätsklinikum Freiburg", "National Institutes for …"
    if lowered.endswith(("'s", "’s")) or lowered in _NOT_NAME_WORDS or lowered in _TITLES or is_word(lowered):
        return False
    if len(bare) == 1:
        return True  # an initial: "J. R. Hartley"
    if bare[:2].isalpha() and bare[:2].isupper():
        return False  # "IISc", "UCLA": an acronym ("O'Brien" is a name)
    return any(ch.islower() for ch in bare[1:])  # "UCL", "KU" are acronyms


def _stands_alone(
    text: str,
    tokens: list[tuple[int, int, str]],
    j: int,
    k: int,
    is_word: Callable[[str], bool],
    is_filler: Callable[[str], bool],
) -> bool:
    """Whether the run is a person, not the start of an organisation, a strain or a place."""
    before = text[max(0, tokens[j][0] - 12) : tokens[j][0]].lower()
    if re.search(r"(?:of|the|für|de|del|di|for)\s+$", before):
        return False  # "University of Kwame …", "the Max Planck …", "Institute for Biological Intelligence"
    if j > 0 and _joined(text, tokens, j - 1) and tokens[j - 1][2].lower().startswith(ORGANISATION_WORDS):
        return False  # "Scuola Normale Superiore": the words after an organisation's first word
    if is_place(" ".join(t[2] for t in tokens[j:k])):
        return False  # "New Delhi", "Buenos Aires"
    if k < len(tokens) and _joined(text, tokens, k - 1):
        nxt = tokens[k][2].lower().rstrip(".")
        if is_filler(nxt) or nxt.endswith(("ed", "ing")):
            pass  # "Jan Richter recorded", "Chloé Lefèvre here"
        elif is_word(nxt) or nxt in ("lab", "group", "team") or tokens[k][2][:1].isupper():
            return False  # "Obafemi Awolowo University", "Long Evans rats", "Erasmus MC", "Moser lab"
    after = text[tokens[k - 1][1] :]
    if after.startswith(("'s ", "’s ")):
        return False
    return not _ORGANISATION_AFTER_RE.match(after)  # "Oregon Health & Science University"


_ORGANISATION_AFTER_RE = re.compile(
    r"\s(?:&|and)\s(?:[A-Z][\w'’-]*\s){0,3}(?:University|Institute|College|Center|Centre|Hospital|School|Foundation)"
)


def _read_roles(text: str, names: list[_Name]) -> None:
    _read_group_roles(text, names)
    for n in names:  # "Lucas Silva & Mariana Rocha (Lucas recorded, Mariana only did histology)"
        given = n.text.split()[0] if len(n.text.split()) > 1 else ""
        if not given[:1].isupper() or given.rstrip(".").lower() in _TITLES:
            continue
        for m in re.finditer(rf"(?<![\w-]){re.escape(given)}(?![\w-])", text):
            if n.start <= m.start() < n.end:
                continue
            if _OTHER_TASK_AFTER_RE.match(text[m.end() :]):
                n.roles.add("not")
                n.roles.discard("recorder")
            elif re.match(
                rf"\s+(?:(?:also|alone|only)\s+)?(?:recorded|{_DID}\s+(?:\w+\s+){{0,3}}?{_OBJECT})", text[m.end() :], _I
            ):
                n.roles.add("recorder")
                n.roles.discard("not")
    for m in _BY_PRONOUN_RE.finditer(text):  # "on behalf of Dr. Laura Bianchi. Recordings were done by her and …"
        if _NEGATED_BEFORE_RE.search(text, max(0, m.start() - 8), m.start()):
            continue  # "PI = Dr. Alvarez, no recording by her"
        before = [n for n in names if n.end <= m.start() and "self" not in n.roles]
        if before:
            before[-1].roles.add("recorder")
    for m in _PRONOUN_RECORDED_RE.finditer(text):  # "… Keiko Yamamoto. She did all the recordings"
        before = [n for n in names if n.end <= m.start() and "self" not in n.roles]
        if before:
            before[-1].roles.add("recorder")


def _read_group_roles(text: str, names: list[_Name]) -> None:
    """The roles the words around each list of names give: those before or after the list give them
    to every name in it, those right around a name to that name."""
    _group_listed_names(text, names)
    clause_starts = [0] + [m.end() for m in _CLAUSE_END_RE.finditer(text)]
    opening_end = _opening_end(text)
    for group_id in sorted({n.group for n in names}):
        members = [n for n in names if n.group == group_id]
        first, last = members[0], members[-1]
        clause_start = max(s for s in clause_starts if s <= first.start)
        clause_end = next((m.start() for m in _CLAUSE_END_RE.finditer(text, last.end)), len(text))
        before = text[clause_start : first.start]
        after = text[last.end : clause_end]
        of_the_list = _list_roles(text, first, last, before, after, opening_end)
        for n in members:
            n.roles |= of_the_list | _own_roles(text[clause_start : n.start], text[n.end : clause_end])
        if _UPLOADER_BEFORE_RE.search(before) or _UPLOADER_AFTER_RE.match(after):
            first.roles.add("uploader")
        if _MY_NAME_RE.search(text) and len({n.group for n in names}) == 1:
            first.roles.add("self")  # "Typo in my name, it's Jürgen with an umlaut: Jürgen Weber"
        if _EXPERIMENTER_NAMED_RE.search(before) and not first.roles & {"lead", "not"}:
            for n in members:
                n.roles.add("recorder")  # "the experimenter is spelled wrong, it's Siobhán Ní Bhriain"
        if (
            "recorder" in first.roles
            and len(members) > 1
            and (_RECORDER_AFTER_RE.match(after) or _RECORDER_BEFORE_RE.search(before))
        ):
            for n in members:
                n.roles.discard("lead")  # "Prof. A (PI) and B did the recordings together"


def _group_listed_names(text: str, names: list[_Name]) -> None:
    """Numbers the lists the names stand in: names joined by "and", "&" or a comma ("A and B", "A (PhD
    student) & B") share a group, unless the words between lead in a new role ("…, our PI Susan Whitaker")."""
    group = 0
    for index, name in enumerate(names):
        gap = text[names[index - 1].end : name.start] if index else ""
        said_of_next = re.sub(r"\([^()]*\)|^[^()]*\)", "", gap)  # "(PI) and B" says PI of the one before
        if index and _GROUP_GAP_RE.match(gap) and not _LEAD_IN_RE.search(said_of_next):  # "…, our PI Susan Whitaker"
            name.group = names[index - 1].group
        else:
            group += 1
            name.group = group


def _opening_end(text: str) -> int:
    """Where the words that open the message end: a greeting, or a short lead-in before a name."""
    # "Quick one: Nicolás Paredes, …", "piglets! Chloé Marchand, …"
    opening = re.match(r"[\W_]*(?:(?:[\w']+\s){0,2}[\w']+(?::|!+)\s+)?(?=[A-Z])", text)
    opening_end = opening.end() if opening and opening.end() < 24 else 0
    greeting = re.match(
        r"[\W_]*(?:(?:hi|hello|hey|dear|greetings|good\s+\w+|bonjour|hola|ciao|hallo|salut|"
        r"namaste|guten\s+tag|olá|ola|buongiorno|morning|hiya|yo)\b[\W_]*)*",
        text,
        _I,
    )
    return max(opening_end, greeting.end() if greeting else 0)


def _list_roles(text: str, first: _Name, last: _Name, before: str, after: str, opening_end: int) -> set[str]:
    """The roles the words around a list give every name in it: it opens or signs the message, it is
    named as the one something was done by, or as recording."""
    roles: set[str] = set()
    signed = _SIGNED_AFTER_RE.match(text, last.end)
    if (first.start <= opening_end + 1 or signed) and text[last.end :].strip(" .!"):  # a bare name answers
        roles.add("opening")
    if first.start and not text[last.end :].strip(" .!") and _PART_BEFORE_RE.search(text, 0, first.start):
        roles.add("opening")  # "Bat CP-3, female, adult — Goethe University Frankfurt — Lena Vogt"
    cue = _RECORDER_BEFORE_RE.search(before)
    if cue and re.search(r"\bby\b", cue.group(), _I) and not re.search(r"\b(?:me|myself)\b", cue.group(), _I):
        roles.add("by")  # named as the one something was done by
    if _RECORDER_AFTER_RE.match(after) or cue:
        roles.add("recorder")
    return roles


def _own_roles(own_before: str, own_after: str) -> set[str]:
    """The roles the words right around one name give it (`own_before` from its clause's start,
    `own_after` to its clause's end): the writer, a lead, the one uploaded for, a colleague, one who
    recorded or who only did another part of the work."""
    roles: set[str] = set()
    introduced = _SELF_BEFORE_RE.search(own_before[-60:])
    if introduced or _SELF_AFTER_RE.match(own_after):
        roles.add("self")
    if introduced and _LEAD_IN_RE.search(introduced.group()):
        roles.add("lead")  # "I'm the lab head here (Dr. Nathan Brooks"
    if _FOR_BEFORE_RE.search(own_before[-60:]):
        roles.add("for")
    if _LEAD_BEFORE_RE.search(own_before[-40:]) or _LEAD_AFTER_RE.match(own_after):
        roles.add("lead")
    if _NOT_RECORDER_AFTER_RE.match(own_after):
        roles.add("not")
    if _COLLEAGUE_BEFORE_RE.search(own_before[-12:]):
        roles.add("colleague")
    own = re.match(r"^\s*\(([^()]*)\)", own_after)
    if own and re.search(r"record|experimenter", own.group(1), _I) and not _NEGATED_RE.search(own.group(1)):
        roles.add("recorder")
    elif own and _OTHER_TASK_OWN_RE.search(own.group(1)) and _ONLY_RE.search(own.group(1)):
        roles.add("not")  # "Dr. Arjun Mehta (surgeon, did the implant only)"
    if _OTHER_TASK_AFTER_RE.match(own_after) or _OTHER_TASK_BY_RE.search(own_before[-80:]):
        roles.add("not")  # "Selin Kaya did the surgery", "Histology was done by Carmen Ruiz"
    return roles

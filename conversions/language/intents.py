"""What a user can ask for in a message (`Intent`), and the phrases that ask it: the commands the
rule-based reader (conversions.language.rules) finds in a segment ("go ahead", "skip the
questions", "one by one", "cancel").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class Intent(StrEnum):
    PROVIDE_METADATA = "provide_metadata"
    APPROVE = "approve"
    REJECT = "reject"
    ACCEPT_AS_IS = "accept_as_is"
    FIX = "fix"
    CANCEL = "cancel"
    RETRY = "retry"
    STATUS = "status"
    HELP = "help"
    SKIP_FIELD = "skip_field"
    SKIP_ALL = "skip_all"
    ONE_BY_ONE = "one_by_one"
    SELECT_FORMAT = "select_format"
    PREVIEW = "preview"
    FRUSTRATED = "frustrated"
    REQUEST_HELP = "request_help"
    # An opening with no request in it yet: "Hi", "I'd like to convert my data", "how do I start?".
    GREETING = "greeting"


@dataclass(frozen=True)
class IntentCue:
    intent: Intent
    pattern: re.Pattern[str]
    alone: bool  # only a command when, with filler, it is the whole segment ("stop" vs "stop-signal task")
    bare: bool  # a bare yes/no: it counts only when the message says nothing more specific


def _cue(intent: Intent, *patterns: str, alone: bool = False, bare: bool = False) -> IntentCue:
    alternation = "|".join(patterns)
    # Not next to "/" either: "n/a" is no "n".
    return IntentCue(intent, re.compile(rf"(?<![\w'/])(?:{alternation})(?![\w'/])"), alone, bare)


# What a user wishes to do when opening a conversation, without pointing at anything yet ("I'd like to
# convert my data"; "I want to convert it" approves).
_WISH = r"(?:convert|use\s+(?:this|the\s+portal)(?:\s+to\s+convert)?)(?!\s+(?:it|this|that|them|now)\b)"


# Matched against the lowercased segment with typographic apostrophes made plain.
INTENT_CUES = (
    _cue(
        Intent.SKIP_ALL,
        r"skip\s+(?:all|everything)(?:\s+(?:of\s+)?(?:the\s+)?(?:questions|metadata|fields|it|them))?",
        r"skip\s+(?:the\s+)?(?:questions|metadata)",
        r"no\s+(?:more\s+)?(?:metadata|questions)",
        r"without\s+(?:any\s+)?(?:metadata|questions)",
        r"minimal\s+metadata",
        r"don'?t\s+ask\s+(?:me\s+)?(?:anything|any\s+(?:more\s+)?questions|questions)",
    ),
    _cue(
        Intent.ONE_BY_ONE,
        r"one\s+(?:by|at)\s+(?:one|a\s+time)",
        r"step\s+by\s+step",
        r"individually",
        r"separately",
    ),
    _cue(
        Intent.ACCEPT_AS_IS,
        r"accept(?:\s+(?:it|this|that|them|the\s+(?:file|result|results)))?(?:\s+as[\s-]+(?:it\s+)?is)?",
        r"(?:keep|leave)\s+it\s+(?:as[\s-]+(?:it\s+)?is|like\s+(?:this|that)|be)",
        r"good\s+enough",
        r"finish\s+(?:it|up|the\s+conversion)",
        r"i'?ll\s+take\s+it",
        r"take\s+it\s+as[\s-]+is",
        r"ignore\s+(?:the\s+)?(?:issues|warnings|errors|problems)",
        r"mark\s+it\s+(?:as\s+)?(?:done|complete|finished)",
    ),
    _cue(Intent.ACCEPT_AS_IS, r"as[\s-]+is", r"finish", alone=True),
    _cue(
        Intent.REQUEST_HELP,
        r"(?:ask|get|call|contact|talk\s+to)\s+(?:an?\s+|the\s+)?(?:expert|admin|administrator|human|person|someone)s?",
        r"(?:request|need)\s+(?:expert\s+|human\s+)?help",
        r"escalate(?:\s+(?:it|this))?",
        r"flag\s+(?:it|this)(?:\s+for\s+(?:review|an?\s+admin))?",
        r"seek\s+expert\s+help",
    ),
    _cue(
        Intent.FRUSTRATED,
        r"(?:this|it)\s+(?:keeps|kept)\s+(?:failing|breaking|going\s+wrong|happening)",
        r"keeps\s+(?:failing|breaking)",
        r"(?:this|it)\s+(?:is(?:n'?t|\s+not)|does(?:n'?t|\s+not))\s+(?:working|work)",
        r"nothing\s+(?:works|is\s+working)",
        r"(?:so|really|very)\s+(?:frustrating|annoying)",
        r"(?:i'?m|i\s+am)\s+(?:frustrated|fed\s+up|giving\s+up)",
        r"(?:i\s+)?give\s+up",
        r"why\s+(?:does|is)\s+(?:it|this)\s+(?:keep|still)\s+\w+",
        r"same\s+(?:errors?|issues?|problems?)\s+again",
        r"going\s+(?:around|round)\s+in\s+circles",
        r"ugh+|argh+",
    ),
    _cue(
        Intent.PREVIEW,
        r"(?:a\s+|the\s+)?preview(?:\s+(?:it|first|the\s+(?:file|result|conversion)))?",
        r"stub(?:\s+(?:test|conversion|file|run))?",
        r"(?:a\s+)?(?:test|trial|dry|sample)\s+(?:run|conversion)",
        r"(?:quick|short)\s+(?:test|look|conversion)",
        r"(?:convert|try)\s+(?:only\s+|just\s+)?(?:a\s+few|the\s+first(?:\s+few)?)\s+seconds(?:\s+first)?",
        r"what\s+(?:will|would)\s+(?:the\s+)?(?:file|nwb|result)\s+look\s+like",
    ),
    _cue(
        Intent.FIX,
        r"fix\s+(?:the\s+|these\s+|those\s+)?[\w-]+",  # "fix it", "fix the timestamps"
        r"let'?s\s+fix",
        r"try\s+to\s+fix",
        r"auto-?fix",
        r"repair\s+(?:it|them)",
    ),
    _cue(Intent.FIX, r"fix", r"repair", alone=True),
    _cue(
        Intent.CANCEL,
        r"cancel",
        r"abort",
        r"stop\s+(?:it|this|that|now|everything|converting|(?:the\s+)?(?:conversion|job|process|upload))",
        r"terminate",
        r"forget\s+(?:it|about\s+it)",
        r"start\s+over",
        r"kill\s+(?:it|the\s+job)",
    ),
    _cue(Intent.CANCEL, r"stop", r"quit", r"exit", alone=True),
    _cue(
        Intent.RETRY,
        r"retry",
        r"try\s+(?:it\s+)?again",
        r"(?:run|do|convert)\s+(?:it\s+|that\s+|this\s+)?again",
        r"re-?run",
        r"re-?do",
        r"re-?convert",
        r"one\s+more\s+time",
        r"give\s+it\s+another\s+(?:try|go|shot)",
        r"start\s+again",
    ),
    _cue(Intent.RETRY, r"again", alone=True),
    _cue(
        Intent.STATUS,
        r"where\s+are\s+we",
        r"what'?s\s+(?:happening|going\s+on|the\s+status|up)",
        r"what\s+is\s+(?:happening|going\s+on|the\s+status)",
        r"how\s+far(?:\s+along)?",
        r"how\s+long",
        r"how\s+much\s+longer",
        r"how'?s\s+it\s+going",
        r"(?:is|are)\s+(?:it|you|we|the\s+conversion)\s+(?:done|finished|ready|complete|over)",
        r"done\s+yet",
        r"any\s+(?:news|updates?|progress)",
        r"status",
        r"progress",
        r"still\s+(?:running|working|converting)",
    ),
    _cue(Intent.STATUS, r"eta", r"update", alone=True),
    _cue(
        Intent.HELP,
        r"help",
        r"what\s+do\s+you\s+need",
        r"what\s+can\s+i\s+(?:say|do|type|write)",
        r"what\s+(?:now|next)",
        r"how\s+does\s+(?:this|it)\s+work",
        r"what\s+should\s+i\s+(?:do|say|type)",
        r"what\s+are\s+(?:my|the)\s+options",
        r"i'?m\s+(?:confused|lost|stuck)",
    ),
    _cue(Intent.HELP, r"options", r"commands", alone=True),
    _cue(
        Intent.GREETING,
        rf"(?:i|we)\s*(?:'?d|would)\s+(?:like|love)\s+to\s+{_WISH}",
        rf"(?:i|we)\s+(?:want|wanna|need|wish|hope|(?:am|'m|are|'re)\s+(?:trying|hoping|looking))\s+to\s+{_WISH}",
        r"(?:how|where)\s+(?:do|can|should|shall|would)\s+(?:i|we)\s+(?:start|begin|get\s+started|convert|upload)",
        r"what\s+do\s+(?:i|we)\s+(?:do|need\s+to\s+do)\s+first",
        r"(?:let'?s\s+)?get(?:ting)?\s+started",
        r"(?:i'?m|i\s+am|we'?re|we\s+are)\s+new(?:\s+(?:here|to\s+(?:this|the\s+portal|nwb)))?",
        r"first\s+time\s+(?:here|using\s+(?:this|the\s+portal))",
        r"good\s+(?:morning|afternoon|evening|day)",
        r"hi+|hello|hey|hiya|howdy|greetings|dear\s+(?:portal|assistant)",
    ),
    _cue(
        Intent.REJECT,
        r"not\s+yet",
        r"not\s+now",
        r"not\s+ready",
        r"reject(?:ed)?",
        r"hold\s+(?:on|off)",
        r"hang\s+on",
        r"don'?t\s+think\s+so",
        r"i\s+disagree",
    ),
    # "wait, the subject is actually mouse-13" steers: a bare "wait" counts only when nothing more is said.
    _cue(Intent.REJECT, r"wait", alone=True, bare=True),
    _cue(Intent.REJECT, r"no|nope|nah|n|wrong|incorrect|negative", alone=True, bare=True),
    _cue(
        Intent.APPROVE,
        r"go\s+ahead",
        r"go\s+for\s+it",
        r"proceed",
        r"approved?",
        r"convert(?:\s+(?:it|them|this|that|now|(?:the|my)\s+(?:file|files|data|recording)))?",
        r"start\s+(?:the\s+)?conver(?:sion|ting)",
        r"begin\s+(?:the\s+)?conversion",
        r"do\s+it",
        r"please\s+do",
        r"looks?\s+(?:good|great|fine|right|correct|ok|okay|perfect)",
        r"sounds?\s+(?:good|great|fine|right)",
        r"lgtm",
        r"let'?s\s+(?:go|do\s+(?:it|this))",
        r"ship\s+it",
        r"confirm(?:ed)?",
        r"run\s+it",
    ),
    _cue(Intent.APPROVE, r"start", r"begin", r"continue", r"go", alone=True),
    _cue(
        Intent.APPROVE,
        r"yes(?:\s+please)?|yeah|yep|yup|ya|y|sure|ok|okay|k|fine|alright|all\s+right|all\s+good|correct|right",
        r"perfect|great|cool|absolutely|definitely|of\s+course|agreed|👍|✅",
        r"(?:that'?s|that\s+is|it'?s|everything'?s|everything\s+is)\s+(?:all\s+)?(?:right|correct|fine|good)",
        alone=True,
        bare=True,
    ),
)

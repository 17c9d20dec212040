"""Which streams a user means: "only the AP band", "without the LF", "also the NI-DAQ",
"experiment 3 instead", "all streams".

Stream names are the recording's own (SpikeGLX `imec0.ap`, Open Ephys `ProbeB`, Blackrock `ns2`...),
so the words are matched against the ids and labels detection gave each stream, not a fixed list.
A word names streams only when it tells some streams apart from the others ("ap" in an AP+LF
recording, "probeb" beside "probec"); words every stream shares ("channels", "experiment") name
nothing. Pure: no Django, no I/O.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum


@dataclass(frozen=True)
class StreamOption:
    id: str
    label: str
    group: str = ""
    kind: str = "neural"


class Change(StrEnum):
    ONLY = "only"  # exactly the named streams
    ADD = "add"  # the current selection plus the named streams
    REMOVE = "remove"  # the current selection without the named streams
    ALL = "all"  # every stream (of the named or current experiment)


@dataclass(frozen=True)
class StreamChoice:
    change: Change
    stream_ids: tuple[str, ...]  # the new selection, in the recording's order


_WORD_RE = re.compile(r"[a-z0-9]+")
# Words that describe every stream or none: never a stream's name on their own.
_COMMON = frozenset(
    """
    a an and at the of in on to for with from by more other channel channels stream streams band
    bands file files recording recordings experiment experiments probe data signal signals hz khz
    mhz s ms only just also include including add plus without except exclude drop remove skip leave
    out no not all every both everything instead rather than convert keep use want please i we it
    them this that these those one two three
    """.split()  # noqa: SIM905 - a word list reads better as text
)
_ONLY_RE = re.compile(r"\b(?:only|just|exclusively|solely|nothing\s+but)\b")
_REMOVE_RE = re.compile(r"\b(?:without|except|exclude|excluding|drop|remove|skip|omit|leave\s+out|not\s+the|no)\b")
_ADD_RE = re.compile(r"\b(?:also|add|include|including|plus|as\s+well|too)\b")
_ALL_RE = re.compile(r"\b(?:all|every|both|everything)\b(?:\s+(?:the\s+)?(?:streams?|bands?|probes?|of\s+them))?")
_INSTEAD_RE = re.compile(r"\b(?:instead|rather\s+than|switch\s+to|change\s+to)\b")
_GROUP_RE = re.compile(r"\b(experiment|recording|block|segment|session)\s*#?\s*(\d+)\b")


def parse_stream_choice(text: str, streams: Sequence[StreamOption], selected: Sequence[str]) -> StreamChoice | None:
    """The selection `text` asks for, or None when it does not talk about this recording's streams.

    Streams named by a word several experiments share ("ProbeB" in experiments 1 and 3) are taken
    from the experiment(s) currently selected unless the text names another one.
    """
    if len(streams) < 2:
        return None
    plain = text.lower().replace("’", "'")
    words = _words(plain)
    named_groups = _named_groups(plain, streams)
    named = _named_streams(words, streams)
    all_asked = _ALL_RE.search(plain) is not None and (
        named_groups or re.search(r"\bstreams?\b|\bprobes?\b|\bneural\b", plain)
    )
    if not named and not named_groups and not all_asked:
        return None
    if not _steers(plain) and not _mostly_stream_words(words, streams):
        # A sentence that merely mentions a stream ("the AP band was noisy") chooses nothing.
        return None
    current_groups = {stream.group for stream in streams if stream.id in selected}
    groups = named_groups or current_groups or {stream.group for stream in streams}
    in_groups = [stream for stream in streams if stream.group in groups]

    if not named:
        if not all_asked and not named_groups:
            return None
        if all_asked:
            # "both probes", "all neural streams": the recording proper, not the auxiliary inputs.
            neural_only = re.search(r"\bprobes?\b|\bneural\b|\bephys\b", plain) is not None
            chosen = [stream for stream in in_groups if stream.kind == "neural" or not neural_only]
        else:
            # "experiment 3 instead": the same kinds of stream as now, from the named experiment.
            kinds = {stream.kind for stream in streams if stream.id in selected} or {"neural"}
            chosen = [stream for stream in in_groups if stream.kind in kinds] or in_groups
        return _choice(Change.ALL if all_asked else Change.ONLY, chosen, streams)

    mentioned = [stream for stream in streams if stream.id in named and stream.group in groups]
    if not mentioned:
        # Named streams exist only in other experiments: the name decides the experiment.
        mentioned = [stream for stream in streams if stream.id in named]
    if _REMOVE_RE.search(plain) and not _ONLY_RE.search(plain):
        removed = {stream.id for stream in mentioned}
        return _choice(Change.REMOVE, [s for s in streams if s.id in selected and s.id not in removed], streams)
    if _ADD_RE.search(plain) and not _ONLY_RE.search(plain) and not _INSTEAD_RE.search(plain):
        added = {stream.id for stream in mentioned}
        return _choice(Change.ADD, [s for s in streams if s.id in selected or s.id in added], streams)
    return _choice(Change.ONLY, mentioned, streams)


def only_names_streams(text: str, streams: Sequence[StreamOption]) -> bool:
    """Whether `text` (e.g. a value another reader took for a field, like "experiment 3") says
    nothing but stream and experiment names."""
    vocabulary = set().union(
        *(_stream_words(stream) for stream in streams), *(_words(s.group.lower()) for s in streams)
    )
    tokens = _WORD_RE.findall(text.lower())
    return bool(tokens) and all(t in vocabulary or t in _COMMON or t.isdigit() for t in tokens)


def _steers(text: str) -> bool:
    return (
        any(pattern.search(text) for pattern in (_ONLY_RE, _REMOVE_RE, _ADD_RE, _ALL_RE, _INSTEAD_RE))
        or re.search(r"\b(?:convert|use|keep|want|choose|select|pick)\b", text) is not None
    )


def _mostly_stream_words(words: set[str], streams: Sequence[StreamOption]) -> bool:
    """The message is little more than stream names ("AP and LF", "ProbeB")."""
    vocabulary = set().union(*(_stream_words(stream) for stream in streams))
    single = {word for word in words if word.isalpha() or not word.isdigit()}
    other = [w for w in single if w not in vocabulary and w not in _COMMON and not _is_pair_of(w, words)]
    return len(other) <= 1


def _is_pair_of(word: str, words: set[str]) -> bool:
    """Whether `word` is two neighbouring words written together (made by `_words`)."""
    return any(word.startswith(a) and word[len(a) :] in words for a in words if a and a != word)


def _choice(change: Change, chosen: Sequence[StreamOption], streams: Sequence[StreamOption]) -> StreamChoice:
    ids = {stream.id for stream in chosen}
    return StreamChoice(change=change, stream_ids=tuple(stream.id for stream in streams if stream.id in ids))


# What scientists say for what recordings write: "LFP" for SpikeGLX's LF band, "NI-DAQ" for its
# NIDQ file.
_SYNONYMS = {"lfp": "lf", "nidaq": "nidq", "aps": "ap", "spiking": "spikes"}


def _words(text: str) -> set[str]:
    """The words of `text`, plus each pair of neighbours written together ("probe b" → "probeb",
    "ni daq" → "nidaq", "imec 0" → "imec0"), since ids write them as one."""
    tokens = _WORD_RE.findall(text)
    words = set(tokens) | {a + b for a, b in itertools.pairwise(tokens)}
    return words | {_SYNONYMS[word] for word in words if word in _SYNONYMS}


def _stream_words(stream: StreamOption) -> set[str]:
    # The id's last part (the stream's own name) and the label up to its first "(": the label's
    # parentheses hold file names and channel lists, and the id's earlier parts the folders.
    name = re.split(r"[/\\]", stream.id)[-1]
    label = stream.label.split("(")[0]
    # "File_Reader-106.0": "106" is the node's number only together with its name.
    words = _words(f"{name.lower()} {label.lower()}") | _KIND_WORDS.get(stream.kind, set())
    return {word for word in words if word not in _COMMON and not word.isdigit() and len(word) > 1}


# What a session's parts are called, whichever tool made them: "the units", "the Kilosort output",
# "the DLC tracking", "the camera".
_KIND_WORDS = {
    "spikes": {"units", "sorting", "sorted", "spikes", "clusters", "kilosort", "phy"},
    "pose": {"pose", "poses", "tracking", "keypoints", "bodyparts", "deeplabcut", "dlc", "sleap"},
    "video": {"video", "videos", "camera", "movie", "movies"},
}


def _named_streams(words: set[str], streams: Sequence[StreamOption]) -> set[str]:
    """Ids of the streams a word of the text names: a word some streams have and others do not."""
    vocab = {stream.id: _stream_words(stream) for stream in streams}
    # A word every stream shares tells none apart.
    shared = set.intersection(*vocab.values()) if vocab else set()
    named: set[str] = set()
    for stream in streams:
        if (vocab[stream.id] - shared) & words:
            named.add(stream.id)
    return named


def _named_groups(text: str, streams: Sequence[StreamOption]) -> set[str]:
    """Groups named in the text ("experiment 3", "block 2"), matched to the streams' groups."""
    groups = {stream.group for stream in streams if stream.group}
    found: set[str] = set()
    for match in _GROUP_RE.finditer(text):
        word, number = match.group(1), match.group(2)
        for group in groups:
            if re.search(rf"\b{word}\s*{number}\b", group.lower()):
                found.add(group)
    return found

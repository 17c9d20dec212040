"""How well and how fast the chat is understood without a language model.

Accuracy: the rule-based reader (`parse_message`) on the messages of tests/language/dialogues.py,
scored as the tests score it. Decision time: every one of those messages replayed through the pure
policy (`parse_message` + `policy.handle`, as `services.post_message` calls them), each in the state
the conversation would be in when that message is sent, --repeats times. Checks nothing: read the
figures.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness import REPO_ROOT, format_table, source_revision

from conversions.language.rules import Intent, parse_message
from conversions.nwb.fields import CRITICAL_FIELDS
from conversions.orchestrator import policy
from conversions.orchestrator.state import (
    ConversionSucceeded,
    FilesChanged,
    FormatAmbiguous,
    FormatOption,
    IssueSummary,
    SessionView,
    UserAction,
    UserMessage,
    ValidationCompleted,
)
from tests.language.dialogues import ASKED_FIRST, REALISTIC_SETS, TABLES, field_accuracy
from tests.language.heldout import FIRST_RUN, HELD_OUT_SETS, score
from tests.orchestrator.test_policy import Dialogue
from tests.orchestrator.test_values_change_visibly import plan_shown

TARGET_P99_MS = 5.0

# Answers that move a one-by-one conversation past each question, in the order the policy asks.
_ONE_BY_ONE_ANSWERS = {
    "experimenter": "Jane Smith",
    "institution": "MIT",
    "experiment_description": "V1 recording",
    "session_start_time": "2024-03-15 14:30",
    "subject_id": "mouse001",
    "species": "mouse",
    "sex": "male",
    "age": "P90D",
}


def code_revision(*paths: str) -> str:
    """The commit measured, with a warning when `paths` have uncommitted changes (harness's
    source_revision only looks at conversions/nwb)."""
    commit = source_revision().split(" ")[0]
    status = subprocess.run(
        ["git", "status", "--porcelain", "--", *paths], capture_output=True, text=True, cwd=REPO_ROOT, check=False
    ).stdout
    changed = [path for path in paths if any(line[3:].startswith(path) for line in status.splitlines())]
    return f"{commit} + uncommitted changes in {', '.join(changed)}" if changed else commit


# --- conversations in the state each message is sent in --------------------------------------------


def _detected(start: str | None = "2024-03-15T14:30:00") -> Dialogue:
    """A session whose upload was recognised (the policy tests' `Dialogue`, applying steps the way
    the services do)."""
    conversation = Dialogue()
    conversation.detected(start)
    return conversation


def _checked(fields: Sequence[str], *, outcome: str = "failed") -> Dialogue:
    """Converted once, and the check found issues naming `fields`: the portal asks for them."""
    conversation = _detected()
    conversation.say("Jane Smith, MIT, V1 recording, skip the subject")
    conversation.send(UserAction(action="approve"))
    attempt = conversation.view.memory.attempts
    conversation.send(ConversionSucceeded(attempt=attempt, size_bytes=15_000_000_000))
    issue = IssueSummary(
        check_name="check_fields" if fields else "check_data_orientation",
        importance="CRITICAL" if outcome == "failed" else "BEST_PRACTICE_SUGGESTION",
        explanation="Something DANDI needs is missing or unusable.",
        location="/",
        fields=tuple(fields),
    )
    conversation.send(ValidationCompleted(attempt=attempt, outcome=outcome, issues=(issue,)))  # type: ignore[arg-type]
    return conversation


def _first_request() -> Dialogue:
    return _detected()


def _second_request() -> Dialogue:
    conversation = _detected()
    conversation.say("mouse001, Mus musculus, male, P90D")
    return conversation


def _one_by_one(name: str) -> Dialogue:
    conversation = _detected(None if name == "session_start_time" else "2024-03-15T14:30:00")
    conversation.say("ask me one by one")
    for _ in _ONE_BY_ONE_ANSWERS:
        asking = conversation.view.memory.asking_for
        if not asking or asking == [name]:
            break
        conversation.say(_ONE_BY_ONE_ANSWERS[asking[0]])
    return conversation


def _plan_shown() -> Dialogue:
    conversation = _detected()
    conversation.say("Jane Smith, MIT, V1 recording, skip the subject")
    return conversation


def _converting() -> Dialogue:
    conversation = _plan_shown()
    conversation.send(UserAction(action="approve"))
    return conversation


def _choosing_format() -> Dialogue:
    conversation = Dialogue()
    conversation.send(FilesChanged(added=6, total=6))
    options = (FormatOption(key="spikeglx", label="SpikeGLX"), FormatOption(key="openephys", label="Open Ephys"))
    conversation.send(
        FormatAmbiguous(
            files_version=conversation.view.memory.files_version,
            candidates=options,
            user_message="These files can be read as SpikeGLX or as Open Ephys.",
        )
    )
    return conversation


def state_for(asking: tuple[str, ...], intents: frozenset[Intent]) -> tuple[str, Callable[[], Dialogue]]:
    """Where a message that answers `asking` (and means `intents`, when known) is sent."""
    if asking == ASKED_FIRST:
        return "first metadata request", _first_request
    if asking == CRITICAL_FIELDS:
        return "second metadata request", _second_request
    if len(asking) == 1 and asking[0] in _ONE_BY_ONE_ANSWERS:
        return "one by one", lambda: _one_by_one(asking[0])
    if asking:
        return "fields asked after a check", lambda: _checked(asking)
    if Intent.SELECT_FORMAT in intents and Intent.PROVIDE_METADATA not in intents:
        return "choosing the format", _choosing_format
    if intents & {Intent.CANCEL, Intent.STATUS}:
        return "converting", _converting
    if intents & {Intent.ACCEPT_AS_IS, Intent.FIX, Intent.RETRY}:
        return "issues, nothing to ask", lambda: _checked((), outcome="passed_with_issues")
    return "plan shown", _plan_shown


@dataclass
class Turn:
    text: str
    source: str  # the set or table it comes from
    state: str
    view: SessionView
    parse_ns: list[int] = field(default_factory=list)
    handle_ns: list[int] = field(default_factory=list)

    @property
    def total_ns(self) -> list[int]:
        return [p + h for p, h in zip(self.parse_ns, self.handle_ns, strict=True)]


def replayed_turns() -> tuple[list[Turn], list[str]]:
    """Every message, with the view it is handled in; and the messages whose state does not ask
    what the message answers (there should be none)."""
    messages = [
        (text, name, asking, frozenset[Intent]()) for name, s in REALISTIC_SETS.items() for text, asking, _ in s
    ]
    messages += [(c.text, name, c.asking, c.expected.intents) for name, table in TABLES.items() for c in table]
    built: dict[tuple[str, tuple[str, ...]], SessionView] = {}
    turns, mismatched = [], []
    for text, source, asking, intents in messages:
        state, build = state_for(tuple(asking), intents)
        key = (state, tuple(asking))
        if key not in built:
            built[key] = build().view
        view = built[key]
        if tuple(view.memory.asking_for) != tuple(asking):
            mismatched.append(f"{text!r}: asks {view.memory.asking_for}, the message answers {list(asking)}")
        turns.append(Turn(text=text, source=source, state=state, view=view))
    return turns, mismatched


def time_turns(turns: Sequence[Turn], repeats: int) -> None:
    """parse_message + policy.handle per turn, as services.post_message calls them (the database work
    around them excluded). One untimed pass first: the first call of a path builds caches."""
    for repeat in range(repeats + 1):
        for turn in turns:
            started = time.perf_counter_ns()
            parsed = parse_message(turn.text, asking_for=turn.view.memory.asking_for)
            parsed_at = time.perf_counter_ns()
            policy.handle(turn.view, UserMessage(text=turn.text, parsed=parsed))
            handled_at = time.perf_counter_ns()
            if repeat:
                turn.parse_ns.append(parsed_at - started)
                turn.handle_ns.append(handled_at - parsed_at)


# --- reports ---------------------------------------------------------------------------------------


def percentile(values: Sequence[float], p: int) -> float:
    """The p-th percentile (1..99), interpolated between ranks (statistics.quantiles, inclusive)."""
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def ms(nanoseconds: float) -> str:
    return f"{nanoseconds / 1e6:.3f}"


def accuracy_tables() -> str:
    rows = []
    totals = [0, 0, 0, 0, 0]
    for name, answers in REALISTIC_SETS.items():
        right, counted = field_accuracy(answers)
        expected = sum(len(gold) for _, _, gold in answers)
        exact = sum(parse_message(text, asking_for=asking).fields == gold for text, asking, gold in answers)
        counts = [len(answers), expected, counted - expected, right, exact]
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        rows.append([name, *map(str, counts), f"{right / counted:.1%}"])
    rows.append(["total", *map(str, totals), f"{totals[3] / (totals[1] + totals[2]):.1%}"])
    realistic = format_table(
        ["realistic set", "messages", "fields expected", "extra fields", "right", "messages exact", "accuracy"],
        rows,
        right=range(1, 7),
    )

    rows = []
    totals = [0, 0, 0, 0, 0, 0]
    for name, cases in TABLES.items():
        answers = [(c.text, c.asking, dict(c.expected.fields)) for c in cases]
        right, counted = field_accuracy(answers)
        parsed = [parse_message(c.text, asking_for=c.asking) for c in cases]
        intents = sum(p.intents == c.expected.intents for p, c in zip(parsed, cases, strict=True))
        exact = sum(p == c.expected for p, c in zip(parsed, cases, strict=True))
        expected = sum(len(c.expected.fields) for c in cases)
        counts = [len(cases), intents, expected, counted - expected, right, exact]
        totals = [t + c for t, c in zip(totals, counts, strict=True)]
        rows.append([name, *map(str, counts)])
    rows.append(["total", *map(str, totals)])
    tables = format_table(
        ["table", "messages", "intents right", "fields expected", "extra fields", "right", "messages exact"],
        rows,
        right=range(1, 7),
    )
    return realistic + "\n\n" + tables


def heldout_table(misses: int) -> str:
    """Each held-out set scored on the values the portal would store, beside its first run."""
    rows = []
    listed = []
    for name, entries in HELD_OUT_SETS.items():
        result = score(entries)
        rows.append(
            [
                name,
                str(result.messages),
                str(result.expected),
                str(result.extra),
                str(result.right),
                str(result.exact_messages),
                f"{result.accuracy:.1%}",
                FIRST_RUN.get(name, "(this run)"),
            ]
        )
        listed += [(name, *miss) for miss in result.misses[:misses]]
    table = format_table(
        [
            "held-out set",
            "messages",
            "fields expected",
            "extra fields",
            "right",
            "messages exact",
            "accuracy",
            "first run",
        ],
        rows,
        right=range(1, 7),
    )
    lines = [table]
    for name, text, found, gold in listed:
        wrong = {k: found.get(k) for k in sorted(set(found) | set(gold)) if found.get(k) != gold.get(k)}
        lines.append(f"  {name}: {' '.join(text.split())[:90]!r}\n      got {wrong}\n      want {gold}")
    return "\n".join(lines)


def overwrite_table() -> str:
    """Every held-out message sent once the plan is shown with every field set: how many values it
    changes that it does not state, and how many changes the reply does not show as "X: A → B"."""
    base = plan_shown()  # the plan with every field given
    changed = unstated = silent = 0
    examples: list[str] = []
    for entries in HELD_OUT_SETS.values():
        for text, _asking, gold in entries:
            conversation = Dialogue(view=base.view)
            before = dict(conversation.view.metadata)
            step = conversation.say(text)
            reply = "\n".join(r.text for r in step.replies)
            for name, entry in step.metadata_updates.items():
                old = before.get(name)
                if old is None or old.value == entry.value:
                    continue
                changed += 1
                shown = policy.change_line(name, old.value, entry.value)
                if shown not in reply:
                    silent += 1
                    examples.append(f"  silent: {name} by {' '.join(text.split())[:70]!r}")
                if name not in gold:
                    unstated += 1
                    examples.append(f"  unstated: {name} by {' '.join(text.split())[:70]!r}")
    summary = (
        f"values already set that held-out messages changed: {changed}; of them not stated by the message: "
        f'{unstated}; not shown in the reply as "X: A → B" (silent): {silent}'
    )
    return "\n".join([summary, *examples[:20]])


def timing_tables(turns: Sequence[Turn], worst: int) -> str:
    def row(label: str, group: Sequence[Turn]) -> list[str]:
        parse = [t for turn in group for t in turn.parse_ns]
        handle = [t for turn in group for t in turn.handle_ns]
        total = [t for turn in group for t in turn.total_ns]
        return [
            label,
            str(len(group)),
            f"{len(total):,}",
            ms(statistics.median(parse)),
            ms(statistics.median(handle)),
            ms(statistics.median(total)),
            ms(percentile(total, 99)),
            ms(max(total)),
        ]

    states = list(dict.fromkeys(turn.state for turn in turns))
    rows = [row(state, [turn for turn in turns if turn.state == state]) for state in states]
    rows.append(row("all", turns))
    headers = ["state the message is sent in", "messages", "turns", "parse p50", "handle p50", "p50", "p99", "max"]
    by_state = format_table(headers, rows, right=range(1, 8))

    slowest = sorted(turns, key=lambda turn: statistics.median(turn.total_ns), reverse=True)[:worst]
    rows = [
        [
            " ".join(turn.text.split())[:60] or "(empty)",
            turn.state,
            ms(statistics.median(turn.parse_ns)),
            ms(statistics.median(turn.handle_ns)),
            ms(statistics.median(turn.total_ns)),
            ms(percentile(turn.total_ns, 99)),
            ms(max(turn.total_ns)),
        ]
        for turn in slowest
    ]
    headers = ["slowest messages (by median)", "state", "parse p50", "handle p50", "p50", "p99", "max"]
    return by_state + "\n\n" + format_table(headers, rows, right=range(2, 7))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeats", type=int, default=200, help="timed passes over all messages (default 200)")
    parser.add_argument("--worst", type=int, default=5, help="slowest messages listed (default 5)")
    parser.add_argument("--misses", type=int, default=0, help="held-out misses listed per set (default 0)")
    args = parser.parse_args()

    code = code_revision("conversions/language", "conversions/orchestrator", "conversions/nwb", "tests/language")
    load = os.getloadavg()[0]
    print(
        f"rule-based reader and pure policy, no LLM; Python {sys.version.split()[0]}; load average {load:.1f} "
        f"on {len(os.sched_getaffinity(0))} cores; code: {code}\n"
    )
    print(accuracy_tables())
    print(
        "\nfields: a value is right when it equals the expected raw value; accuracy = right / (expected + extra), "
        "as tests/language/test_rules.py counts it.\nintents right: the set of intents equals the expected one; "
        "messages exact: everything the message yields is as expected (tables) or all fields are (sets).\n"
    )
    print(heldout_table(args.misses))
    print(
        "\nheld-out sets: written before the rules saw them, scored on the values the portal would store "
        "(tests/language/heldout.py); first run: the unchanged reader's figure.\n"
    )
    print(overwrite_table() + "\n")

    turns, mismatched = replayed_turns()
    for line in mismatched:
        print(f"state mismatch: {line}")
    started = time.perf_counter()
    time_turns(turns, args.repeats)
    elapsed = time.perf_counter() - started
    print(timing_tables(turns, args.worst))
    total = [t for turn in turns for t in turn.total_ns]
    p99 = percentile(total, 99) / 1e6
    print(
        f"\ndecision time per turn (ms): parse_message + policy.handle, {len(turns)} messages x {args.repeats} "
        f"passes in {elapsed:.1f} s, one process, garbage collector on. p99 {p99:.3f} ms "
        f"against a target of {TARGET_P99_MS:g} ms: {'within' if p99 <= TARGET_P99_MS else 'OVER'}."
    )


if __name__ == "__main__":
    main()

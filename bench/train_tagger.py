"""Train the chat's span tagger (conversions/language/tagger.py) and measure what it adds.

The training messages are the held-out sets (tests/language/heldout_*.py): messages written by people
who had not read the rules, each with the values the portal should store. For each message the
labels are where its expected values stand in its words (the people's names, the institution, the
description …), and the features include what the rules read, so the models learn when the rules'
reading holds. Messages whose expected value cannot be found in their words give no labels for that
field.

    .venv/bin/python bench/train_tagger.py                  # train on every set, write the models
    .venv/bin/python bench/train_tagger.py --held-out G     # train without G, score G: rules vs both
    .venv/bin/python bench/train_tagger.py --held-out all   # the same for each set in turn

A held-out run writes nothing into the repository: its models go to a temporary folder. Training is
deterministic (L-BFGS from zero), so the same sets give the same models.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pycrfsuite
from harness import format_table

from conversions.language import east_asian, tagger
from conversions.language.rules import LEXICON, ParsedMessage, parse_message, read_by_rules
from tests.language.heldout import HELD_OUT_SETS, NOT_IN_THE_SETS, HeldOut, Score, same_value, score

# L1 and L2 penalties: L1 keeps the models small (most of the ~100 000 candidate features get no
# weight), L2 keeps the weights of correlated features from running off.
C1, C2 = 0.05, 0.01
ITERATIONS = 150


@dataclass
class Example:
    set_name: str
    rows: list[list[str]]
    labels: dict[str, list[str] | None]  # None: the expected value is not in the words


def examples(sets: dict[str, list[HeldOut]]) -> tuple[list[Example], Counter[str]]:
    found: list[Example] = []
    unaligned: Counter[str] = Counter()
    for set_name, entries in sets.items():
        for written, asking, gold in entries:
            text = east_asian.spaced(written)  # as parse_message gives it to the tagger
            words = tagger.tokens(text)
            if not words:
                continue
            read = read_by_rules(text, asking_for=asking)
            rows = tagger.features(text, words, asking, read.fields, LEXICON)
            labels: dict[str, list[str] | None] = {}
            for field in tagger.SPAN_FIELDS:
                if field not in gold:
                    labels[field] = ["O"] * len(words)
                    continue
                ranges = tagger.value_spans(text, words, field, gold[field])
                people = len(gold[field].split(";")) if field == "experimenter" else 1
                if len(ranges) != people:
                    labels[field] = None
                    unaligned[field] += 1
                    continue
                labels[field] = tagger.labels_for(words, ranges)
            found.append(Example(set_name, rows, labels))
    return found, unaligned


def train(training: list[Example], folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for field, name in tagger.SPAN_FIELDS.items():
        trainer = pycrfsuite.Trainer(verbose=False)
        for example in training:
            labels = example.labels[field]
            if labels is not None:
                trainer.append(example.rows, labels)
        trainer.set_params({"c1": C1, "c2": C2, "max_iterations": ITERATIONS, "feature.possible_transitions": True})
        trainer.train(str(folder / f"{name}.crfsuite"))


def scored(entries: list[HeldOut], read: Callable[..., ParsedMessage]) -> tuple[Score, Counter[str], Counter[str]]:
    """The held-out score of a reader, with its misses and extra values by field."""
    result = score(entries, read)
    misses: Counter[str] = Counter()
    extras: Counter[str] = Counter()
    for _text, found, gold in result.misses:
        misses.update(name for name, value in gold.items() if not same_value(name, found.get(name), value))
        extras.update(set(found) - set(gold) - NOT_IN_THE_SETS)
    return result, misses, extras


def held_out(set_name: str, every: list[Example]) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        train([e for e in every if e.set_name != set_name], Path(folder))
        tagger.use_models(Path(folder))
        entries = HELD_OUT_SETS[set_name]
        rules, rules_misses, rules_extras = scored(entries, read_by_rules)
        both, both_misses, both_extras = scored(entries, parse_message)
        tagger.use_models(tagger.MODELS)
    print(f"set {set_name}, models trained on the other sets:")
    rows = [
        [field, f"{rules_misses[field]} / {rules_extras[field]}", f"{both_misses[field]} / {both_extras[field]}"]
        for field in tagger.SPAN_FIELDS
    ]
    print(format_table(["field", "rules: missed / extra", "rules + tagger"], rows))
    return [set_name, rules.line(), both.line()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--held-out", help="a set's letter, or 'all': train without it and score it")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    every, unaligned = examples(HELD_OUT_SETS)
    print(f"{len(every)} messages from sets {', '.join(HELD_OUT_SETS)}; expected values not found in the words:")
    print("  " + (", ".join(f"{field} {count}" for field, count in sorted(unaligned.items())) or "none"))
    if args.held_out:
        letters = list(HELD_OUT_SETS) if args.held_out == "all" else [args.held_out.upper()]
        lines = [held_out(letter, every) for letter in letters]
        print(format_table(["set", "rules alone", "rules + tagger (trained without the set)"], lines))
    else:
        train(every, tagger.MODELS)
        (tagger.MODELS / "trained_on.txt").write_text(tagger.digest(HELD_OUT_SETS) + "\n")
        sizes = sum(path.stat().st_size for path in tagger.MODELS.glob("*.crfsuite"))
        print(f"models written to {tagger.MODELS} ({sizes / 1024:.0f} KiB)")
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The structure of the code, as docs/design/packages.md draws it: which package may import which,
no import loops, and one writer of the rows a conversion lives in (only conversions/services changes
them or queues jobs). Read from the source with `ast`, so a lazy import inside a function counts as
much as one at the top of a module."""

from __future__ import annotations

import ast
import importlib
import pkgutil
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("conversions", "nwbportal")

# What each part may import of the project (prefixes of module names). The longest prefix that names
# a module says which rule it follows; its own part is always allowed.
MAY_IMPORT: dict[str, tuple[str, ...]] = {
    "conversions.nwb": (),
    "conversions.language": ("conversions.nwb",),
    "conversions.orchestrator": ("conversions.language", "conversions.nwb"),
    "conversions.errors": (),
    "conversions.models": ("conversions.errors", "conversions.orchestrator"),
    "conversions.realtime.notify": (),
    "conversions.services": (
        "conversions.errors",
        "conversions.models",
        "conversions.orchestrator",
        "conversions.language",
        "conversions.nwb",
        "conversions.realtime.notify",
        "nwbportal.celery",
    ),
    "conversions.workers": (
        "conversions.services",
        "conversions.models",
        "conversions.errors",
        "conversions.orchestrator",
        "conversions.language",
        "conversions.nwb",
        "conversions.realtime.notify",
    ),
    "conversions.realtime": (
        "conversions.services",
        "conversions.models",
        "conversions.errors",
        "nwbportal.middleware",
    ),
    "conversions.http_errors": ("conversions.errors",),
    "conversions.api": (
        "conversions.services",
        "conversions.models",
        "conversions.errors",
        "conversions.http_errors",
        "conversions.orchestrator",
        "conversions.nwb",
    ),
    "conversions.web": (
        "conversions.api.schemas",
        "conversions.services",
        "conversions.models",
        "conversions.errors",
        "conversions.http_errors",
        "conversions.orchestrator",
        "conversions.nwb",
    ),
    "conversions.admin": ("conversions.models", "conversions.services"),
    "conversions.apps": ("conversions.models", "conversions.workers.tasks"),
    "conversions.management": ("conversions.models", "conversions.services"),
    "conversions.migrations": ("conversions.models", "conversions.orchestrator"),
    "nwbportal": (
        "conversions.api",
        "conversions.realtime",
        "conversions.services",
        "conversions.workers.tasks",
        "nwbportal",
    ),
}

# The rows a conversion lives in: only conversions/services creates, changes or deletes them.
CONVERSION_ROWS = frozenset(
    {
        "ConversionSession",
        "SourceFile",
        "PendingUpload",
        "MetadataField",
        "ConversionAttempt",
        "Preview",
        "ValidationIssue",
        "ChatMessage",
        "AuditEvent",
        "LlmCall",
        "OutboxJob",
        "Housekeeping",
    }
)
WRITES = frozenset(
    {"save", "delete", "create", "update", "bulk_create", "bulk_update", "get_or_create", "update_or_create"}
)
# Celery's own ways of queueing a task: the services queue through the outbox, nothing else does.
QUEUES = frozenset({"delay", "apply_async", "send_task"})
# Where rows may change: the services, the migrations that shape them, the models' own methods.
WRITERS = ("conversions.services", "conversions.migrations", "conversions.models")


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    tree: ast.Module


def _modules() -> list[Module]:
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.append(Module(name, path, ast.parse(path.read_text(), str(path))))
    return found


MODULES = _modules()
NAMES = {m.name for m in MODULES}


def _imports(module: Module, names: set[str]) -> Iterator[tuple[str, int]]:
    """The project's modules that `module` imports, with the line: `from a import b` names a.b when
    b is one of the modules `names`, else a."""
    for node in ast.walk(module.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] in PACKAGES:
                    yield alias.name, node.lineno
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(module, node)
            if source.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                child = f"{source}.{alias.name}"
                yield (child if child in names else source), node.lineno


def _absolute(module: Module, node: ast.ImportFrom) -> str:
    """The module a `from … import` reads from, with a relative one (`from .formats import x`)
    resolved against the importing module's package."""
    if node.level == 0:
        return node.module or ""
    package = module.name.split(".")
    if module.path.name != "__init__.py":
        package = package[:-1]
    package = package[: len(package) - (node.level - 1)]
    return ".".join([*package, *([node.module] if node.module else [])])


def _rule_for(name: str) -> str | None:
    matches = [prefix for prefix in MAY_IMPORT if name == prefix or name.startswith(prefix + ".")]
    return max(matches, key=len, default=None)


def _within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def import_violations(modules: list[Module]) -> list[str]:
    found = []
    names = {m.name for m in modules} | NAMES
    for module in modules:
        if not module.tree.body:
            continue  # an empty __init__
        rule = _rule_for(module.name)
        if rule is None:
            found.append(f"{module.name}: no rule says what it may import (add it to MAY_IMPORT and the map)")
            continue
        allowed = (rule, *MAY_IMPORT[rule])
        for target, line in _imports(module, names):
            if not any(_within(target, prefix) for prefix in allowed):
                found.append(f"{module.path.relative_to(ROOT)}:{line}: {module.name} imports {target}")
    return found


def import_loops(modules: list[Module]) -> list[list[str]]:
    """Groups of modules that import each other, directly or round a loop (Tarjan's algorithm). A
    package's __init__ is left out of the edges its own modules make to it: Python imports it first
    anyway, and it may gather them."""
    edges: dict[str, set[str]] = defaultdict(set)
    names = {m.name for m in modules} | NAMES
    for module in modules:
        for target, _ in _imports(module, names):
            if target != module.name and not _within(module.name, target):
                edges[module.name].add(target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(name: str) -> None:
        index[name] = low[name] = len(index)
        stack.append(name)
        on_stack.add(name)
        for target in edges[name]:
            if target not in index:
                visit(target)
                low[name] = min(low[name], low[target])
            elif target in on_stack:
                low[name] = min(low[name], index[target])
        if low[name] == index[name]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == name:
                    break
            if len(group) > 1:
                loops.append(sorted(group))

    for module in modules:
        if module.name not in index:
            visit(module.name)
    return loops


def _root_name(node: ast.expr) -> str | None:
    """The name a chain of calls and attributes starts from: `ConversionAttempt` for
    `ConversionAttempt.objects.filter(...).update`."""
    while isinstance(node, ast.Attribute | ast.Call | ast.Subscript):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def write_violations(modules: list[Module]) -> list[str]:
    """Outside the writers: a write whose chain starts at a conversion's model, a save() or delete()
    of an instance in a module that imports such a model, or a job queued."""
    found = []
    for module in modules:
        if any(_within(module.name, writer) for writer in WRITERS):
            continue
        imported = {
            alias.asname or alias.name
            for node in ast.walk(module.tree)
            if isinstance(node, ast.ImportFrom) and node.module == "conversions.models"
            for alias in node.names
        }
        holds_rows = bool(imported & CONVERSION_ROWS)
        decorators = {
            id(decorator)
            for node in ast.walk(module.tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
            for decorator in node.decorator_list
        }
        for node in ast.walk(module.tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)) or id(node) in decorators:
                continue
            method, receiver = node.func.attr, node.func.value
            where = f"{module.path.relative_to(ROOT)}:{node.lineno}"
            if method in QUEUES:
                found.append(f"{where}: queues a job ({method})")
            elif method in WRITES and _root_name(receiver) in CONVERSION_ROWS:
                found.append(f"{where}: {_root_name(receiver)}….{method}()")
            elif method in ("save", "delete") and holds_rows and not isinstance(receiver, ast.Call):
                found.append(f"{where}: {ast.unparse(receiver)}.{method}()")
    return found


def test_each_part_imports_only_what_the_map_allows() -> None:
    assert import_violations(MODULES) == []


def test_no_modules_import_each_other() -> None:
    assert import_loops(MODULES) == []


def test_only_the_services_change_the_rows_of_a_conversion_or_queue_jobs() -> None:
    assert write_violations(MODULES) == []


def test_every_module_imports() -> None:
    """A module that names something its imports no longer hold (a management command nobody runs
    in the tests, say) fails here rather than in production."""
    for package in PACKAGES:
        for info in pkgutil.walk_packages([str(ROOT / package)], prefix=f"{package}."):
            if info.name.endswith((".asgi", ".wsgi")):
                continue  # starting the server's recovery and worker is not importing
            importlib.import_module(info.name)


# --- the checks find what they look for -------------------------------------------------------------


def _module(name: str, source: str) -> Module:
    return Module(name, ROOT / (name.replace(".", "/") + ".py"), ast.parse(source))


@pytest.mark.parametrize(
    ("name", "source", "finds"),
    [
        (
            "conversions.web.pages",
            "from conversions.models import Preview\nPreview.objects.filter(id=1).update(x=1)",
            1,
        ),
        (
            "conversions.api.things",
            "from conversions.models import ChatMessage\nChatMessage.objects.create(text='x')",
            1,
        ),
        ("conversions.workers.jobs", "from conversions.models import Preview\ndef f(p):\n    p.save()", 1),
        ("conversions.workers.jobs", "from conversions.workers import tasks\ntasks.convert_attempt.delay(1)", 1),
        ("conversions.services.things", "from conversions.models import Preview\nPreview.objects.create()", 0),
        ("conversions.management.commands.x", "from conversions.models import Lab\nLab.objects.create(name='x')", 0),
        ("conversions.web.pages", "values = {}\nvalues.update(a=1)", 0),
    ],
)
def test_the_writer_check_finds_writes_outside_the_services(name: str, source: str, finds: int) -> None:
    assert len(write_violations([_module(name, source)])) == finds


def test_the_import_checks_find_a_forbidden_import_and_a_loop() -> None:
    services = _module("conversions.services.a", "from conversions.workers import b")
    workers = _module("conversions.workers.b", "def f():\n    from conversions.services import a")
    assert len(import_violations([services, workers])) == 1  # workers may import services, not back
    assert import_loops([services, workers]) == [["conversions.services.a", "conversions.workers.b"]]
    assert import_violations([_module("conversions.newpart", "import json")]) != []  # a part with no rule
    relative = _module("conversions.nwb.reader", "from ..services import sessions")
    assert import_violations([relative]) == [
        "conversions/nwb/reader.py:1: conversions.nwb.reader imports conversions.services.sessions"
    ]

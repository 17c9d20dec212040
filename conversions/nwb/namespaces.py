"""The schema that pynwb's validation reads from each file, built once per distinct schema.

pynwb validates a file against the namespaces cached inside it (`get_cached_namespaces_to_validate`),
and builds them from the file's YAML every time: ~0.18 s of pure Python on a file that takes seconds
to convert, paid once by nwbinspector and again by DANDI's validator. The files the portal writes carry
the same few schemas (those of the installed pynwb, plus any extension neuroconv adds), so this
module keeps what that function builds, keyed by a digest of the cached specification bytes: a file
whose cached schema differs in any byte gets its own entry, built by pynwb as before.

What is kept is the namespace catalog and the type map over it; every call gets a new BuildManager,
as pynwb gives every read its own. A type map is shared by all reads in pynwb itself (its global one),
so sharing one across files of the same schema is how pynwb already works.

`install()` puts the cached version in place of pynwb's function for this process (callers reach
it through `pynwb.validate`, which looks the name up in its module at each call).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, cast

# Distinct schemas kept per process: the portal writes one or two; extensions add a few.
_MOST_KEPT = 16
_SPEC_LOCATION = ".specloc"  # hdmf's attribute naming the group that holds the cached specifications

_lock = threading.Lock()
_kept: OrderedDict[str, tuple[list[str], Any, dict[str, Any]]] = OrderedDict()
_original: Any = None


def install() -> None:
    """Use the cache for every `pynwb.validate(path=...)` in this process (idempotent)."""
    global _original
    import pynwb.validation

    with _lock:
        if _original is None:
            _original = pynwb.validation.get_cached_namespaces_to_validate
            pynwb.validation.get_cached_namespaces_to_validate = cached_namespaces_to_validate


def cached_namespaces_to_validate(
    path: str | None = None, driver: str | None = None, aws_region: str | None = None, io: Any = None
) -> tuple[list[str], Any, dict[str, Any]]:
    """pynwb's `get_cached_namespaces_to_validate`, answered from the cache for a local file whose
    cached specifications were seen before. Anything else (an open io, a remote driver, a file
    without cached specifications or that h5py cannot open) goes to pynwb's own function."""
    from hdmf.build import BuildManager

    install()
    original = _original
    key = specification_digest(Path(path)) if path is not None and io is None and driver is None else None
    if key is None:
        return cast(
            "tuple[list[str], Any, dict[str, Any]]",
            original(path=path, driver=driver, aws_region=aws_region, io=io),
        )
    with _lock:
        kept = _kept.get(key)
        if kept is not None:
            _kept.move_to_end(key)
    if kept is None:
        namespaces, manager, dependencies = original(path=path)
        kept = (namespaces, manager.type_map if manager is not None else None, dependencies)
        with _lock:
            _kept[key] = kept
            while len(_kept) > _MOST_KEPT:
                _kept.popitem(last=False)
    namespaces, type_map, dependencies = kept
    return list(namespaces), BuildManager(type_map) if type_map is not None else None, dependencies


def specification_digest(path: Path) -> str | None:
    """SHA-256 over every cached specification in the file (names and bytes), or None when the file
    has none or cannot be read as HDF5."""
    import h5py

    try:
        with h5py.File(path, "r") as file:
            location = file.attrs.get(_SPEC_LOCATION)
            if location is None:
                return None
            digest = hashlib.sha256()

            def add(name: str, item: Any) -> None:
                if isinstance(item, h5py.Dataset):
                    value = item[()]
                    digest.update(name.encode() + b"\0")
                    digest.update(value if isinstance(value, bytes) else str(value).encode())
                    digest.update(b"\0")

            file[location].visititems(add)
            return digest.hexdigest()
    except (OSError, KeyError, ValueError, TypeError):
        return None


def clear() -> None:
    """Forget every kept schema (tests)."""
    with _lock:
        _kept.clear()

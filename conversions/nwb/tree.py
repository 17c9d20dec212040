"""The layout of an NWB file as a tree: its groups, datasets and links, read with h5py.

For the result panel, which lets a scientist see what the conversion wrote. Only metadata is read
(shapes, types, attributes) and small text values; never recorded data, so a file of tens of GB
answers as fast as a small one. The tree is bounded: past `max_nodes` entries, or `max_children`
in one group, the rest is counted, not listed.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import h5py

MAX_NODES = 2000
MAX_CHILDREN = 200
# A text value longer than this is cut (the tree is for reading, not for copying data out).
_MAX_TEXT_CHARS = 200
# 1-D text datasets of up to this many items (keywords, experimenters) have their values shown.
_MAX_LISTED_VALUES = 10
# The NWB schema the file carries with it: large, identical in every file, and not the user's data.
_SCHEMA_GROUP = "specifications"
# The attributes of a TimeSeries worth reading in the tree, on its group or on its data.
_SERIES_ATTRIBUTES = ("unit", "conversion", "offset", "resolution")


class UnreadableFile(ValueError):
    """The file cannot be opened as HDF5; the message names the file and says why, in plain words."""


def open_nwb(path: Path) -> h5py.File:
    """`path` opened read-only with h5py, or UnreadableFile with a message for a person."""
    import h5py

    try:
        return h5py.File(path, "r")
    except FileNotFoundError as error:
        raise UnreadableFile(f"{path.name} does not exist.") from error
    except OSError as error:
        raise UnreadableFile(f"{path.name} cannot be opened as an NWB (HDF5) file: {error}") from error


def nwb_tree(path: Path, *, max_nodes: int = MAX_NODES, max_children: int = MAX_CHILDREN) -> dict[str, Any]:
    """The file's tree: {"root": node, "nodes": how many are listed, "truncated": bool, "file_size_bytes"}.

    A node has "name", "path" and "kind" (group, dataset, link or external_link). Groups have
    "neurodata_type" (when NWB gives one), "children" and "more" (children not listed); a
    TimeSeries group also has "series" (unit, rate, starting_time, conversion, offset, resolution).
    Datasets have "shape", "dtype", "compression", "chunks", their NWB attributes (unit, conversion...)
    and, for scalars and short text lists, "value". Links have their "target".
    """
    walk = _Walk(max_nodes=max_nodes, max_children=max_children)
    with open_nwb(path) as h5file:
        root = walk.group(h5file, "/", "/")
    return {"root": root, "nodes": walk.count, "truncated": walk.truncated, "file_size_bytes": path.stat().st_size}


class _Walk:
    def __init__(self, *, max_nodes: int, max_children: int) -> None:
        self.max_nodes = max_nodes
        self.max_children = max_children
        self.count = 0
        self.truncated = False

    def group(self, group: h5py.Group, name: str, path: str) -> dict[str, Any]:
        self.count += 1
        node: dict[str, Any] = {"name": name, "path": path, "kind": "group", **_typed(group.attrs)}
        if "data" in group and ("starting_time" in group or "timestamps" in group):
            node["series"] = _series(group)
        if path == f"/{_SCHEMA_GROUP}":
            node["children"] = []
            node["more"] = len(group)
            node["omitted"] = "the NWB schema the file carries with it"
            return node
        children: list[dict[str, Any]] = []
        names = list(islice(group.keys(), self.max_children))
        for child_name in names:
            if self.count >= self.max_nodes:
                self.truncated = True
                break
            children.append(self.child(group, child_name, f"{path.rstrip('/')}/{child_name}"))
        node["children"] = children
        node["more"] = len(group) - len(children)
        if node["more"]:
            self.truncated = True
        return node

    def child(self, parent: h5py.Group, name: str, path: str) -> dict[str, Any]:
        import h5py

        link = parent.get(name, getlink=True)
        if isinstance(link, h5py.SoftLink):
            self.count += 1
            return {"name": name, "path": path, "kind": "link", "target": link.path}
        if isinstance(link, h5py.ExternalLink):
            self.count += 1
            return {"name": name, "path": path, "kind": "external_link", "target": f"{link.filename}:{link.path}"}
        item = parent.get(name)
        if isinstance(item, h5py.Group):
            return self.group(item, name, path)
        if isinstance(item, h5py.Dataset):
            self.count += 1
            return _dataset(item, name, path)
        self.count += 1  # a committed datatype or a dangling link: named, nothing to describe
        return {"name": name, "path": path, "kind": "other"}


def _dataset(dataset: h5py.Dataset, name: str, path: str) -> dict[str, Any]:
    node: dict[str, Any] = {
        "name": name,
        "path": path,
        "kind": "dataset",
        "shape": [int(length) for length in dataset.shape] if dataset.shape is not None else None,
        "dtype": _dtype(dataset),
        "compression": dataset.compression,
        "chunks": list(dataset.chunks) if dataset.chunks else None,
        **_typed(dataset.attrs),
    }
    for attribute in _SERIES_ATTRIBUTES:
        if attribute in dataset.attrs:
            node[attribute] = _plain(dataset.attrs[attribute])
    value = _small_value(dataset)
    if value is not None:
        node["value"] = value
    return node


def _series(group: h5py.Group) -> dict[str, Any]:
    """A TimeSeries' unit and scaling (on its data) and its timing (rate or timestamps)."""
    data = group["data"]
    series: dict[str, Any] = {name: _plain(data.attrs[name]) for name in _SERIES_ATTRIBUTES if name in data.attrs}
    if "starting_time" in group:
        starting = group["starting_time"]
        series["starting_time"] = float(starting[()])
        series["rate"] = float(starting.attrs["rate"]) if "rate" in starting.attrs else None
    else:
        series["rate"] = None
        series["timestamps"] = int(group["timestamps"].shape[0]) if group["timestamps"].shape else 0
    return series


def _typed(attributes: Mapping[str, Any]) -> dict[str, Any]:
    found = {}
    if "neurodata_type" in attributes:
        found["neurodata_type"] = _plain(attributes["neurodata_type"])
    if "description" in attributes:
        found["description"] = _shortened(str(_plain(attributes["description"])))
    return found


def _dtype(dataset: h5py.Dataset) -> str:
    import h5py

    if h5py.check_string_dtype(dataset.dtype) is not None:
        return "text"
    if h5py.check_ref_dtype(dataset.dtype) is not None:
        return "reference"
    if dataset.dtype.names:
        return "compound(" + ", ".join(dataset.dtype.names) + ")"
    return str(dataset.dtype)


def _small_value(dataset: h5py.Dataset) -> Any:
    """A scalar's value, or a short text list's values; None for anything else (data is never read)."""
    import h5py

    is_text = h5py.check_string_dtype(dataset.dtype) is not None
    if dataset.shape == ():
        if dataset.dtype.names or h5py.check_ref_dtype(dataset.dtype) is not None:
            return None
        return _plain(dataset[()])
    if is_text and len(dataset.shape) == 1 and dataset.shape[0] <= _MAX_LISTED_VALUES:
        return [_plain(value) for value in dataset[()]]
    return None


def _plain(value: Any) -> Any:
    """A JSON-friendly copy of an HDF5 value: text decoded and cut, numbers as Python numbers."""
    if isinstance(value, bytes):
        return _shortened(value.decode("utf-8", errors="replace"))
    if isinstance(value, str):
        return _shortened(value)
    if hasattr(value, "item") and getattr(value, "shape", None) == ():
        return _plain(value.item())
    if hasattr(value, "tolist") and getattr(value, "size", _MAX_LISTED_VALUES + 1) <= _MAX_LISTED_VALUES:
        return [_plain(item) for item in value.tolist()]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)  # JSON has no NaN or infinity
    if isinstance(value, int | float | bool):
        return value
    return _shortened(str(value))


def _shortened(text: str) -> str:
    return text if len(text) <= _MAX_TEXT_CHARS else text[: _MAX_TEXT_CHARS - 1] + "…"

"""Spike sorting in the template format Kilosort writes and Phy curates: one folder per sorting.

A sorting folder holds `params.py` (the sample rate, the data file it sorted), `spike_times.npy`
(sample numbers), `spike_clusters.npy` (or, before curation, `spike_templates.npy`), the channel map,
and tables of per-cluster values (`cluster_group.tsv` with Phy's curation labels, Kilosort's
`cluster_KSLabel.tsv`, `cluster_info.tsv` written by Phy with each cluster's main channel `ch`).
The units go into the NWB units table with every such label as a column.

The folder is read here, not with spikeinterface's Phy reader, for three reasons:
- that reader runs `params.py` as Python (`exec`): a file a user uploads must never run;
- it keeps only the clusters every `.tsv` lists, so a `cluster_group.tsv` that names one cluster
  (Phy writes only the clusters a user labelled) drops every other unit from the file; here every
  cluster with spikes is a unit, and one Phy did not label is "unsorted", as Phy itself shows it;
- Kilosort 4 writes its `KSLabel` table again as `cluster_group.tsv`, which that reader turns
  into a second column `KSLabel_repeat`; a table repeated is read once here.

Time: spike times count samples of the recording the sorter read, so a sorting of one of the
session's recordings (same sample rate; `dat_path` naming its data file when the sorter wrote it)
is on that recording's clock and starts where it starts. A unit is linked to its electrode where
the sorter says which channel it came from (`cluster_info.tsv`'s `ch`, or the largest channel of its
template), through the channel map, in the recording's electrodes.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import traceback
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import cache
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import RecordingProblem
from .base import Detection, Stream, SupportedFormat, list_upload_files, part_detection, reader_view, short_reason

if TYPE_CHECKING:
    from neuroconv import NWBConverter

_KEY = "sorting"
_LABEL = "Spike sorting (Kilosort / Phy)"
_NEEDS = (
    "the sorter's output folder as Kilosort or Phy wrote it (params.py, spike_times.npy, spike_clusters.npy "
    "or spike_templates.npy, and its .tsv tables)"
)
_PARAMS, _TIMES, _CLUSTERS, _TEMPLATES = "params.py", "spike_times.npy", "spike_clusters.npy", "spike_templates.npy"
_CHANNEL_MAP, _TEMPLATE_WAVEFORMS, _CLUSTER_INFO = "channel_map.npy", "templates.npy", "cluster_info.tsv"
# A sorter's params.py is a few lines; anything far larger is not one, and is not parsed.
_MAX_PARAMS_BYTES = 1_000_000
# Files Kilosort 4 writes and earlier versions do not.
_KILOSORT4_FILES = ("kept_spikes.npy", "spike_positions.npy")
# Phy's curation label column, and what a cluster no one labelled is called (Phy's own word).
_PHY_GROUP, _UNSORTED = "group", "unsorted"
# Per-cluster columns that restate what the units table holds already, or Phy's display-only counts.
_NOT_WRITTEN = frozenset({"cluster_id", "id", "n_spikes", "fr", "sh"})
# Descriptions of the usual columns, for the units table (a column without one is described by its name).
COLUMN_DESCRIPTIONS = {
    "quality": "Curation label given in Phy (good, mua, noise; unsorted where the cluster was never labelled).",
    "KSLabel": "Kilosort's own label: good (a well-isolated unit) or mua (multi-unit activity).",
    "Amplitude": "Kilosort's template amplitude of the unit.",
    "ContamPct": "Kilosort's estimate of the unit's contamination, in percent.",
    "original_cluster_id": "The cluster's id in the sorter's output folder.",
    "ch": "The unit's main channel, as an index into the sorter's channel map.",
    "depth": "Depth of the unit's main channel along the probe, in micrometres, as the sorter saw it.",
    "amp": "Mean spike amplitude of the unit, as Phy computed it.",
}


@dataclass(frozen=True)
class SortingFolder:
    """What a sorting folder says, read without running anything in it."""

    folder: str  # relative to the upload root, "" for the root itself
    sample_rate_hz: float
    data_file: str  # the name of the file the sorter read (`dat_path`), "" when it does not say
    channel_count: int
    sorter: str
    units: int
    spikes: int
    last_spike_s: float
    labels: dict[str, dict[str, int]]  # column -> label -> units, for the label columns
    files: tuple[str, ...]

    @property
    def name(self) -> str:
        return PurePosixPath(self.folder).name or "sorting"


def _claims(files: Sequence[str]) -> bool:
    return bool(_folders(files))


def _folders(files: Sequence[str]) -> list[str]:
    """Folders holding both `params.py` and `spike_times.npy`: each is one sorting."""
    present = set(files)
    found = []
    for name in files:
        path = PurePosixPath(name)
        if path.name == _TIMES:
            folder = "" if str(path.parent) == "." else str(path.parent)
            if _in(folder, _PARAMS) in present:
                found.append(folder)
    return found


def _in(folder: str, name: str) -> str:
    return f"{folder}/{name}" if folder else name


def _inspect(root: Path, files: Sequence[str]) -> Detection:
    folders = [read_folder(root, folder, files) for folder in _folders(files)]
    if not folders:
        raise RecordingProblem(f"No sorting folder was found in the upload. It needs {_NEEDS}.")
    streams = tuple(
        Stream(
            id=_stream_id(folder, len(folders)),
            label=describe(folder),
            channel_count=folder.units,
            sampling_rate_hz=folder.sample_rate_hz,
            duration_s=folder.last_spike_s,
            size_bytes=sum((root / name).stat().st_size for name in folder.files),
            files=folder.files,
            kind="spikes",
        )
        for folder in folders
    )
    return part_detection(
        _KEY,
        _LABEL,
        streams,
        # The channels of the data the sorter read (its params.py), not the units counted in the streams.
        channel_count=sum(folder.channel_count for folder in folders),
        file_metadata={
            "sortings": {
                stream.id: {
                    "data_file": folder.data_file,
                    "sorter": folder.sorter,
                    "folder": folder.folder,
                    # Whether the folder says each unit's channel (Phy's cluster_info.tsv, or the templates).
                    "says_channels": _says_channels(folder),
                    # What detection read, so the conversion need not read the folder again.
                    "read": dataclasses.asdict(folder),
                }
                for stream, folder in zip(streams, folders, strict=True)
            },
        },
        notes=[note for folder in folders for note in _notes(folder)],
    )


def _stream_id(folder: SortingFolder, count: int) -> str:
    return "sorting" if count == 1 else f"sorting:{folder.folder or 'sorting'}"


def _says_channels(folder: SortingFolder) -> bool:
    names = {PurePosixPath(name).name for name in folder.files}
    return _CHANNEL_MAP in names and (_CLUSTER_INFO in names or _TEMPLATE_WAVEFORMS in names)


def describe(folder: SortingFolder) -> str:
    """ "spike sorting (Kilosort 4, 403 units: 253 good, 150 mua)"."""
    labels = folder.labels.get("quality") or folder.labels.get("KSLabel") or {}
    counts = ", ".join(f"{count} {label}" for label, count in sorted(labels.items(), key=lambda item: -item[1]))
    units = f"{folder.units} unit{'s' if folder.units != 1 else ''}" + (f": {counts}" if counts else "")
    return f"spike sorting ({folder.sorter}, {units})"


def read_folder(root: Path, folder: str, files: Sequence[str]) -> SortingFolder:
    """Check a sorting folder and read its facts; `RecordingProblem` names what is missing or damaged."""
    present = set(files)
    params = read_params(root / _in(folder, _PARAMS))
    rate = params.get("sample_rate")
    where = folder or "the upload"
    if not isinstance(rate, (int, float)) or isinstance(rate, bool) or not rate > 0:
        raise RecordingProblem(
            f"{_in(folder, _PARAMS)} does not state the sample rate (a line such as sample_rate = 30000), so the "
            "spike times cannot be turned into seconds. Upload the params.py the sorter wrote.",
            detail=f"params: {params}",
        )
    cluster_name = _in(folder, _CLUSTERS) if _in(folder, _CLUSTERS) in present else _in(folder, _TEMPLATES)
    if cluster_name not in present:
        raise RecordingProblem(
            f"The sorting in {where} has spike times but no {_CLUSTERS} (nor {_TEMPLATES}), so the spikes "
            "cannot be told apart into units. Upload the whole folder the sorter wrote."
        )
    times, clusters = _load_spikes(root, _in(folder, _TIMES), cluster_name)
    tables = sorted(name for name in files if _is_table_of(name, folder))
    info = read_cluster_tables(root, tables)
    unit_ids = np.unique(clusters)
    columns = _label_columns(info, unit_ids)
    extra = [_in(folder, name) for name in (_CHANNEL_MAP, _TEMPLATE_WAVEFORMS) if _in(folder, name) in present]
    channel_count = int(params.get("n_channels_dat") or 0)
    return SortingFolder(
        folder=folder,
        sample_rate_hz=float(rate),
        data_file=PurePosixPath(str(params.get("dat_path") or "").replace("\\", "/")).name,
        channel_count=channel_count,
        sorter=_sorter(present, folder, info),
        units=len(unit_ids),
        spikes=len(times),
        last_spike_s=float(times.max()) / float(rate) if len(times) else 0.0,
        labels=columns,
        files=(_in(folder, _PARAMS), _in(folder, _TIMES), cluster_name, *tables, *extra),
    )


def _is_table_of(name: str, folder: str) -> bool:
    path = PurePosixPath(name)
    parent = "" if str(path.parent) == "." else str(path.parent)
    return parent == folder and path.name.startswith("cluster_") and path.suffix in (".tsv", ".csv")


def _load_spikes(root: Path, times_name: str, clusters_name: str) -> tuple[np.ndarray, np.ndarray]:
    try:
        times = np.atleast_1d(np.load(root / times_name, mmap_mode="r", allow_pickle=False).squeeze())
        clusters = np.atleast_1d(np.load(root / clusters_name, mmap_mode="r", allow_pickle=False).squeeze())
    except (OSError, ValueError) as error:
        raise RecordingProblem(
            f"{times_name} or {clusters_name} cannot be read as a NumPy array ({short_reason(error)}). Upload the "
            "files the sorter wrote, unchanged.",
            detail=traceback.format_exc(),
        ) from error
    if times.ndim != 1 or clusters.ndim != 1 or len(times) != len(clusters):
        raise RecordingProblem(
            f"{times_name} holds {len(times)} spike times but {clusters_name} holds {len(clusters)} cluster numbers; "
            "they must hold one per spike. The folder may mix files of two sortings: upload one sorter's output.",
            detail=f"shapes {times.shape} {clusters.shape}",
        )
    if not np.issubdtype(times.dtype, np.integer) or not np.issubdtype(clusters.dtype, np.integer):
        raise RecordingProblem(
            f"{times_name} and {clusters_name} must hold whole numbers (samples, cluster ids); they hold "
            f"{times.dtype} and {clusters.dtype}.",
        )
    return times, clusters


def read_params(path: Path) -> dict[str, Any]:
    """The plain `name = value` lines of a `params.py`, read as literals: the file is never run."""
    if path.stat().st_size > _MAX_PARAMS_BYTES:
        raise RecordingProblem(
            f"{path.name} is {path.stat().st_size:,} bytes: not the few lines a sorter writes. Upload the params.py "
            "the sorter wrote."
        )
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"), filename=path.name)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as error:
        raise RecordingProblem(
            f"{path.name} is not the params.py a sorter writes ({_where(error)} cannot be read). Upload the "
            "file the sorter wrote, unchanged.",
            detail=repr(error),
        ) from error
    params: dict[str, Any] = {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            if isinstance(target, ast.Name):
                try:
                    params[target.id] = ast.literal_eval(statement.value)
                except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                    continue  # not a literal: a value the portal does not need
    return params


def _where(error: BaseException) -> str:
    line = getattr(error, "lineno", None)
    return f"line {line}" if line else "it"


def read_cluster_tables(root: Path, names: Sequence[str]) -> dict[str, dict[int, Any]]:
    """Every per-cluster column of the folder's tables: column -> cluster id -> value.

    Phy's `group` column is named `quality`, as spikeinterface and NWB files from it name it. A
    column two tables both hold (Kilosort 4's `cluster_group.tsv` repeats `cluster_KSLabel.tsv`) is
    read once; `cluster_info.tsv`, which Phy writes with every column, is read last and wins.
    """
    import pandas as pd

    columns: dict[str, dict[int, Any]] = {}
    ordered = sorted(names, key=lambda name: PurePosixPath(name).name == _CLUSTER_INFO)
    for name in ordered:
        try:
            table = pd.read_csv(root / name, sep="\t" if name.endswith(".tsv") else ",")
        except (ValueError, OSError, pd.errors.ParserError) as error:
            raise RecordingProblem(
                f"{name} cannot be read as a table of clusters ({short_reason(error)}). Upload the file as the "
                "sorter or Phy wrote it.",
                detail=traceback.format_exc(),
            ) from error
        key = "cluster_id" if "cluster_id" in table.columns else "id" if "id" in table.columns else None
        if key is None:
            continue  # not a per-cluster table
        for column in table.columns:
            if column == key:
                continue
            named = "quality" if column == _PHY_GROUP else str(column)
            values = {int(cluster): _plain(value) for cluster, value in zip(table[key], table[column], strict=True)}
            columns.setdefault(named, {}).update(values)
    return columns


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    return value


def _label_columns(info: Mapping[str, Mapping[int, Any]], unit_ids: np.ndarray) -> dict[str, dict[str, int]]:
    counts: dict[str, dict[str, int]] = {}
    for column in ("quality", "KSLabel"):
        if column not in info:
            continue
        tally: dict[str, int] = {}
        for unit in unit_ids.tolist():
            label = str(info[column].get(int(unit), _UNSORTED))
            tally[label] = tally.get(label, 0) + 1
        counts[column] = tally
    return counts


def _sorter(present: set[str], folder: str, info: Mapping[str, Any]) -> str:
    if any(_in(folder, name) in present for name in _KILOSORT4_FILES):
        sorter = "Kilosort 4"
    elif "KSLabel" in info or _in(folder, "rez.mat") in present:
        sorter = "Kilosort"
    else:
        sorter = "Phy template format"
    return f"{sorter}, curated in Phy" if "quality" in info else sorter


def _notes(folder: SortingFolder) -> list[str]:
    notes = []
    quality = folder.labels.get("quality", {})
    if quality.get(_UNSORTED):
        notes.append(
            f"{_sorting_words(folder)}: {quality[_UNSORTED]} of {folder.units} units have no curation label in "
            f"cluster_group.tsv; they are kept, labelled “{_UNSORTED}” as Phy shows them."
        )
    return notes


def _sorting_words(folder: SortingFolder) -> str:
    return f"The sorting in {folder.folder}" if folder.folder else "The sorting"


def build_sorting(root: Path, folder: SortingFolder) -> Any:
    """A spikeinterface sorting of every cluster with spikes, each column of the tables a property."""
    from spikeinterface.core import NumpySorting
    from spikeinterface.core.base import minimum_spike_dtype

    times, clusters = _load_spikes(root, _in(folder.folder, _TIMES), folder.files[2])
    unit_ids = np.unique(clusters)
    # The spike vector spikeinterface's `from_samples_and_labels` builds, with each spike's unit found
    # by a search rather than one pass over every spike per unit (0.03 s for 403 units here).
    spikes = np.zeros(len(times), dtype=minimum_spike_dtype)
    spikes["sample_index"] = times
    spikes["unit_index"] = np.searchsorted(unit_ids, clusters)
    sorting = NumpySorting(spikes[np.argsort(times, kind="stable")], folder.sample_rate_hz, unit_ids)
    info = read_cluster_tables(root, [name for name in folder.files if _is_table_of(name, folder.folder)])
    sorting.set_property("original_cluster_id", unit_ids)
    for column, values in info.items():
        if column in _NOT_WRITTEN:
            continue
        fallback = _UNSORTED if column == "quality" else None
        filled = [values.get(int(unit), fallback) for unit in unit_ids.tolist()]
        if any(value is None for value in filled):
            filled = [np.nan if value is None else value for value in filled]
        sorting.set_property(column, np.asarray(filled))
    return sorting


def main_channels(root: Path, folder: SortingFolder, unit_ids: np.ndarray) -> list[int] | None:
    """Each unit's main channel as an index of the recording's data file (the channel map applied),
    where the sorter says it: `cluster_info.tsv`'s `ch`, else the largest channel of its template
    when the templates are there; None when the folder does not say."""
    present = set(folder.files)
    map_name = _in(folder.folder, _CHANNEL_MAP)
    if map_name not in present:
        return None
    channel_map = np.load(root / map_name, allow_pickle=False).reshape(-1).astype(np.int64)
    info = read_cluster_tables(root, [name for name in folder.files if _is_table_of(name, folder.folder)])
    main = info.get("ch")
    if main and all(int(unit) in main for unit in unit_ids.tolist()):
        indices = [int(main[int(unit)]) for unit in unit_ids.tolist()]
    elif _in(folder.folder, _TEMPLATE_WAVEFORMS) in present:
        templates = np.load(root / _in(folder.folder, _TEMPLATE_WAVEFORMS), mmap_mode="r", allow_pickle=False)
        if templates.ndim != 3 or templates.shape[0] <= int(unit_ids.max()):
            return None  # after merges in Phy, cluster ids no longer index templates
        peak = np.ptp(np.asarray(templates[unit_ids.astype(np.int64)]), axis=1)
        indices = np.argmax(peak, axis=1).tolist()
    else:
        return None
    if any(index < 0 or index >= len(channel_map) for index in indices):
        return None
    return [int(channel_map[index]) for index in indices]


# In a reader view: what detection read of each chosen sorting, by stream id.
_READ_FILE = "sortings.json"


def _open_for_reading(root: Path, detection: Detection, stream_ids: Sequence[str]) -> AbstractContextManager[Path]:
    """A view of the chosen sortings' files, under their upload paths (a sorting is known by its
    folder), with what detection read of them; a detection stored before it kept that is read again."""
    names = {name: name for stream_id in stream_ids for name in detection.stream(stream_id).files}
    sortings = detection.file_metadata.get("sortings", {})
    read = {}
    for stream_id in stream_ids:
        known = sortings.get(stream_id, {})
        read[stream_id] = known.get("read") or dataclasses.asdict(
            read_folder(root, str(known.get("folder", "")), list_upload_files(root))
        )
    return reader_view(root, {**names, _READ_FILE: _READ_FILE}, contents={_READ_FILE: json.dumps(read).encode()})


def _build_converter(folder: Path, stream_ids: Sequence[str]) -> NWBConverter:
    from neuroconv import ConverterPipe

    TemplateSortingInterface = sorting_interface_class()
    read = json.loads((folder / _READ_FILE).read_text())
    interfaces = {
        stream_id: TemplateSortingInterface(root=folder, folder=_folder_from_json(read[stream_id]))
        for stream_id in stream_ids
    }
    converter: NWBConverter = ConverterPipe(data_interfaces=interfaces)
    return converter


def _folder_from_json(data: Mapping[str, Any]) -> SortingFolder:
    return SortingFolder(**{**data, "files": tuple(data["files"])})


@cache
def sorting_interface_class() -> type:
    """The neuroconv interface of a sorting folder, built on first use: it imports neuroconv, which
    the web process never pays for."""
    from neuroconv.datainterfaces.ecephys.basesortingextractorinterface import BaseSortingExtractorInterface
    from neuroconv.utils import DeepDict

    class TemplateSortingInterface(BaseSortingExtractorInterface):  # type: ignore[misc]  # neuroconv has no type hints
        """Every cluster of one sorting folder as a unit, its labels as columns, linked to its electrode
        when the recording it was sorted from is in the same file."""

        display_name = "Kilosort / Phy sorting"
        associated_suffixes = (".npy", ".tsv", ".py")
        info = "A sorting folder as Kilosort writes it and Phy curates it, read without running params.py."

        def __init__(self, *, root: Path, folder: SortingFolder, verbose: bool = False) -> None:
            self._root, self._folder = root, folder
            super().__init__(verbose=verbose, folder_path=str(root / folder.folder))
            # Where the units link to electrodes: `add_to_nwbfile` says which recording it linked to, or why not.
            self.electrode_link: str = ""

        @classmethod
        def get_extractor_class(cls) -> Any:
            from spikeinterface.core import NumpySorting

            return NumpySorting

        def _initialize_extractor(self, interface_kwargs: dict[str, Any]) -> Any:
            return build_sorting(self._root, self._folder)

        @property
        def folder(self) -> SortingFolder:
            return self._folder

        def get_metadata(self) -> DeepDict:
            metadata: DeepDict = super().get_metadata()
            columns = [key for key in self.sorting_extractor.get_property_keys() if key in COLUMN_DESCRIPTIONS]
            metadata["Ecephys"]["UnitProperties"] = [
                {"name": column, "description": COLUMN_DESCRIPTIONS[column]} for column in columns
            ]
            return metadata

        def add_to_nwbfile(self, nwbfile: Any, metadata: dict[str, Any] | None = None, **options: Any) -> None:
            metadata = metadata if metadata is not None else self.get_metadata()
            options.setdefault("units_description", f"Units of the {describe(self._folder)}.")
            if "unit_electrode_indices" not in options:
                indices = self._electrode_indices(nwbfile)
                if indices is not None:
                    options["unit_electrode_indices"] = indices
            super().add_to_nwbfile(nwbfile=nwbfile, metadata=metadata, **options)

        def _electrode_indices(self, nwbfile: Any) -> list[list[int]] | None:
            """Each unit's main electrode as a row of the file's electrodes table, through the one
            recording in the file the sorter read: the one whose data file `params.py` names, or else the
            only one at the sorter's sample rate with enough channels. None (and `electrode_link` says
            why) when the folder does not say which channel a unit came from, or no one recording fits."""
            unit_ids = np.asarray(self.sorting_extractor.get_unit_ids())
            channels = main_channels(self._root, self._folder, unit_ids)
            if channels is None:
                self.electrode_link = "the sorting does not say which channel each unit came from"
                return None
            fitting = [
                series
                for series in _electrical_series(nwbfile)
                if abs(float(series.rate or 0) - self._folder.sample_rate_hz) < 1e-6 * self._folder.sample_rate_hz
                and len(series.electrodes.data) > max(channels)
            ]
            if len(fitting) != 1:
                self.electrode_link = (
                    "no recording in the file was sampled at the sorter's rate"
                    if not fitting
                    else f"{len(fitting)} recordings in the file match the sorter's rate and channels"
                )
                return None
            (series,) = fitting
            rows = list(series.electrodes.data[:])
            self.electrode_link = f"linked to the electrodes of {series.name}"
            return [[int(rows[channel])] for channel in channels]

    return TemplateSortingInterface


def _electrical_series(nwbfile: Any) -> list[Any]:
    from pynwb.ecephys import ElectricalSeries

    return [item for item in nwbfile.acquisition.values() if isinstance(item, ElectricalSeries)]


FORMAT = SupportedFormat(
    key=_KEY,
    label=_LABEL,
    needs=_NEEDS,
    claims=_claims,
    inspect=_inspect,
    open_for_reading=_open_for_reading,
    build_converter=_build_converter,
    progress="whole",
    companion=True,
)

__all__ = [
    "COLUMN_DESCRIPTIONS",
    "FORMAT",
    "SortingFolder",
    "build_sorting",
    "describe",
    "main_channels",
    "read_folder",
    "read_params",
]

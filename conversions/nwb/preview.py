"""Describe an NWB file for the preview card: its structure and the metadata in place.

The preview is a seconds-long stub conversion; the user reads what it wrote before the full
conversion starts. Only shapes, attributes and small metadata datasets (keywords, experimenter)
are read, plus the first and last timestamp of a series timed by timestamps: never the recorded
data, so a file of tens of GB is described as fast as a small one.

pynwb and h5py are imported inside `describe_nwb`, so a process that only renders a stored
summary with `describe_in_words` stays light.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .fields import CRITICAL_FIELDS, FIELDS, SUBJECT_FIELDS, Placement
from .quantities import describe_duration

if TYPE_CHECKING:
    import h5py
    from hdmf.container import AbstractContainer
    from pynwb import NWBFile, TimeSeries

# Longer reasons (an hdmf builder's repr can run to pages) are cut: the card shows them to a person.
_MAX_REASON_CHARS = 300
# Series listed one per line in the words; the rest are counted.
_MAX_SERIES_LINES = 6
# Descriptions in the words are cut here; the summary keeps them whole.
_MAX_DESCRIPTION_CHARS = 160
_SUBJECT_TEXT_FIELDS = ("subject_id", "species", "sex", "age", "strain", "description")


class _Undescribable(Exception):
    """An object pynwb read but that cannot be described; the message is the reason, in plain words."""


# --- reading ---------------------------------------------------------------------------------------


def describe_nwb(path: Path) -> dict[str, Any]:
    """A JSON-serialisable summary of the NWB file at `path` (structure and metadata, no data).

    Keys: session, subject (None without one), devices, electrode_groups, electrodes (None without
    an electrodes table), acquisition, stimulus, processing (lists of data objects, each with its
    HDF5 path), units (None without a units table), icephys (None without intracellular data) and
    file_size_bytes. An object that cannot be described is listed by name or path with an
    "unreadable" reason. Raises ValueError, with a message naming the file, only when the file
    cannot be opened as NWB at all.
    """
    import h5py
    from pynwb import NWBHDF5IO

    try:
        h5file = h5py.File(path, "r")
    except FileNotFoundError as error:
        raise ValueError(f"{path.name} cannot be previewed: the file does not exist.") from error
    except OSError as error:
        raise ValueError(f"{path.name} is not an NWB file: it is not in HDF5 format ({_reason(error)}).") from error
    with h5file:
        try:
            io = NWBHDF5IO(file=h5file, mode="r", load_namespaces=True)
            nwbfile = io.read()
        except Exception as error:  # whatever pynwb trips on, the file as a whole is not readable NWB
            raise ValueError(f"{path.name} cannot be read as an NWB file: {_reason(error)}") from error
        with io:
            return {
                "session": _described({"name": "session"}, lambda: _session(nwbfile)),
                "subject": _subject(nwbfile),
                "devices": [
                    _described({"name": name}, partial(_device, device)) for name, device in nwbfile.devices.items()
                ],
                "electrode_groups": [
                    _described({"name": name}, partial(_electrode_group, group))
                    for name, group in nwbfile.electrode_groups.items()
                ],
                "electrodes": _table_or_none("electrodes", nwbfile.electrodes),
                "acquisition": _data_objects("acquisition", nwbfile.acquisition, h5file),
                "stimulus": _data_objects("stimulus/presentation", nwbfile.stimulus, h5file),
                "processing": [
                    entry
                    for module_name, module in sorted(nwbfile.processing.items())
                    for entry in _data_objects(f"processing/{module_name}", module.data_interfaces, h5file)
                ],
                "units": _units(nwbfile),
                "icephys": _described({"name": "icephys"}, lambda: _icephys(nwbfile)),
                "file_size_bytes": path.stat().st_size,
            }


def _described(identity: dict[str, Any], describe: Callable[[], Any]) -> Any:
    try:
        return describe()
    except Exception as error:  # one odd object must not hide the rest of the file
        return {**identity, "unreadable": _reason(error)}


def _reason(error: BaseException) -> str:
    from hdmf.build.errors import ConstructError

    if isinstance(error, _Undescribable):
        text = str(error)
    elif isinstance(error, ConstructError) and len(error.args) == 2:
        builder, message = error.args  # the builder's repr is pages long: its path says where
        text = f"{getattr(builder, 'path', builder)}: {message}"
    else:
        text = f"{type(error).__name__}: {error}"
    return _shortened(text, _MAX_REASON_CHARS)


def _session(nwbfile: NWBFile) -> dict[str, Any]:
    return {
        "identifier": _text(nwbfile.identifier),
        "session_id": _text(nwbfile.session_id),
        "session_start_time": nwbfile.session_start_time.isoformat(),
        "session_description": _text(nwbfile.session_description),
        "experiment_description": _text(nwbfile.experiment_description),
        "experimenter": _texts(nwbfile.experimenter),
        "institution": _text(nwbfile.institution),
        "lab": _text(nwbfile.lab),
        "keywords": _texts(nwbfile.keywords),
    }


def _subject(nwbfile: NWBFile) -> dict[str, Any] | None:
    subject = nwbfile.subject
    if subject is None:
        return None

    def fields() -> dict[str, Any]:
        born = subject.date_of_birth
        return {
            **{name: _text(getattr(subject, name, None)) for name in _SUBJECT_TEXT_FIELDS},
            "date_of_birth": born.isoformat() if born is not None else None,
        }

    result: dict[str, Any] = _described({"name": "subject"}, fields)
    return result


def _device(device: Any) -> dict[str, Any]:
    # pynwb 3.1 moved the manufacturer and model into a linked DeviceModel; older files keep them on the device.
    model = device.model
    return {
        "name": device.name,
        "description": _text(device.description),
        "manufacturer": _text(device.manufacturer or (model.manufacturer if model is not None else None)),
        "model": _text(
            device.model_number
            or device.model_name
            or (model.model_number or model.name if model is not None else None)
        ),
    }


def _electrode_group(group: Any) -> dict[str, Any]:
    return {
        "name": group.name,
        "description": _text(group.description),
        "location": _text(group.location),
        "device": group.device.name if group.device is not None else None,
    }


def _table_or_none(name: str, table: Any) -> dict[str, Any] | None:
    if table is None:
        return None
    result: dict[str, Any] = _described({"name": name}, lambda: _table_shape(table))
    return result


def _table_shape(table: Any) -> dict[str, Any]:
    return {"rows": len(table), "columns": list(table.colnames)}


def _units(nwbfile: NWBFile) -> dict[str, Any] | None:
    units = nwbfile.units
    if units is None:
        return None
    result: dict[str, Any] = _described(
        {"name": "units"}, lambda: {"count": len(units), "columns": list(units.colnames)}
    )
    return result


def _icephys(nwbfile: NWBFile) -> dict[str, Any] | None:
    from pynwb.icephys import PatchClampSeries

    patch_clamp = [
        series
        for series in (*nwbfile.acquisition.values(), *nwbfile.stimulus.values())
        if isinstance(series, PatchClampSeries)
    ]
    recordings = nwbfile.intracellular_recordings
    if not nwbfile.icephys_electrodes and recordings is None and not patch_clamp:
        return None
    simultaneous = nwbfile.icephys_simultaneous_recordings
    sweep_numbers = {int(series.sweep_number) for series in patch_clamp if series.sweep_number is not None}
    # A simultaneous recording is one sweep across electrodes (NWB's icephys tables); files without
    # those tables number their sweeps on each series instead.
    if simultaneous is not None:
        sweeps: int | None = len(simultaneous)
    else:
        sweeps = len(sweep_numbers) or None
    return {
        "electrodes": len(nwbfile.icephys_electrodes),
        "sweeps": sweeps,
        "intracellular_recordings": len(recordings) if recordings is not None else None,
    }


def _data_objects(prefix: str, objects: Mapping[str, Any], h5file: h5py.File) -> list[dict[str, Any]]:
    entries = [
        entry for name, container in objects.items() for entry in _data_object(f"{prefix}/{name}", container, h5file)
    ]
    return sorted(entries, key=lambda entry: str(entry["path"]))


def _data_object(path: str, container: AbstractContainer, h5file: h5py.File) -> list[dict[str, Any]]:
    """The entries for one object: a series or a table itself, an interface such as LFP by its children."""
    from hdmf.common import DynamicTable
    from pynwb import TimeSeries

    if isinstance(container, TimeSeries):
        return [_described({"path": path}, lambda: _series(path, container, h5file))]
    if isinstance(container, DynamicTable):
        return [_described({"path": path}, lambda: {"path": path, "type": _type(container), **_table_shape(container)})]
    children = list(container.children)
    if not children:
        return [{"path": path, "type": _type(container)}]
    return [entry for child in children for entry in _data_object(f"{path}/{child.name}", child, h5file)]


def _series(path: str, series: TimeSeries, h5file: h5py.File) -> dict[str, Any]:
    import h5py

    data = series.data
    if not isinstance(data, h5py.Dataset):
        raise _Undescribable(_missing_data_reason(h5file, f"{path}/data"))
    shape = [int(length) for length in data.shape]
    samples = shape[0] if shape else 0
    rate = float(series.rate) if series.rate is not None else None
    starting_time: float | None
    if rate is not None:
        starting_time = float(series.starting_time or 0.0)
        duration: float | None = samples / rate if rate > 0 else None
    else:
        starting_time, duration = _timestamps_span(series.timestamps)
    entry: dict[str, Any] = {
        "path": path,
        "type": _type(series),
        "shape": shape,
        "rate": rate,
        "unit": _text(series.unit),
        "starting_time": starting_time,
        "duration_s": duration,
        "dtype": str(data.dtype),
    }
    electrodes = getattr(series, "electrodes", None)
    if electrodes is not None:
        entry["electrodes"] = len(electrodes)
    return entry


def _timestamps_span(timestamps: Any) -> tuple[float | None, float | None]:
    """The first timestamp and last minus first: two values read, however long the series."""
    if timestamps is None or len(timestamps) == 0:
        return None, None
    first = float(timestamps[0])
    return first, float(timestamps[len(timestamps) - 1]) - first


def _missing_data_reason(h5file: h5py.File, data_path: str) -> str:
    import h5py

    link = h5file.get(data_path, getlink=True)
    if isinstance(link, h5py.ExternalLink):
        return f"its data is a link to {link.path} in {link.filename}, which cannot be opened here"
    return "its data is not stored in the file"


def _type(container: Any) -> str:
    return str(getattr(container, "neurodata_type", type(container).__name__))


def _text(value: Any) -> str | None:
    if value is None:
        return None
    return value.decode() if isinstance(value, bytes) else str(value)


def _texts(values: Iterable[Any] | None) -> list[str]:
    if values is None:
        return []
    return [text for text in (_text(value) for value in values) if text is not None]


# --- words -----------------------------------------------------------------------------------------


def describe_in_words(summary: Mapping[str, Any], *, full_duration_s: float | None = None) -> str:
    """A few "• " lines for the chat: the series (channels, rate, length), how much of the recording
    the preview holds, devices, electrodes, units or patch-clamp sweeps, subject and metadata as written.

    `full_duration_s` is the whole recording's length, when known, to set against the preview's.
    """
    objects = [*summary["acquisition"], *summary["stimulus"], *summary["processing"]]
    series = [entry for entry in objects if "shape" in entry]
    lines = [_series_in_words(entry) for entry in series[:_MAX_SERIES_LINES]]
    if len(series) > _MAX_SERIES_LINES:
        lines.append(f"… and {len(series) - _MAX_SERIES_LINES} more series")
    if not series:
        lines.append("No recorded series")
    lines.append(_extent_in_words(series, full_duration_s))
    lines.extend(
        line
        for line in (
            _devices_in_words(summary["devices"]),
            _electrodes_in_words(summary["electrodes"], summary["electrode_groups"]),
            _units_in_words(summary["units"]),
            _icephys_in_words(summary["icephys"]),
            _subject_in_words(summary["subject"]),
        )
        if line
    )
    lines.extend(_session_in_words(summary["session"]))
    not_set = _not_set(summary["session"], summary["subject"])
    if not_set:
        lines.append(f"Not set: {', '.join(not_set)}")
    unreadable = _unreadable(summary)
    if unreadable:
        lines.append("Could not be described: " + "; ".join(unreadable))
    return "\n".join(f"• {line}" for line in lines)


def _series_in_words(entry: Mapping[str, Any]) -> str:
    shape = entry["shape"]
    samples = shape[0] if shape else 0
    if len(shape) <= 1:
        width = "1 channel"
    elif len(shape) == 2:
        width = f"{shape[1]:,} channel" + ("" if shape[1] == 1 else "s")
    else:
        width = "×".join(f"{length:,}" for length in shape[1:]) + " per sample"
    length = f"{samples:,} samples"
    if entry["rate"] is not None:
        timing = f"at {_rate_in_words(entry['rate'])}"
        if entry["duration_s"] is not None:
            length += f" ({describe_duration(entry['duration_s'])})"
    else:
        timing = "timed by timestamps"
        if entry["duration_s"] is not None:  # first to last timestamp: gaps between sweeps included
            length += f" spanning {describe_duration(entry['duration_s'])}"
    unit = f" in {entry['unit']}" if entry["unit"] else ""
    name = entry["path"].rsplit("/", 1)[-1]
    return f"{name} ({entry['type']}): {width} {timing}, {length}, {entry['dtype']}{unit}"


def _rate_in_words(rate: float) -> str:
    return f"{rate / 1000:g} kHz" if rate >= 1000 else f"{rate:g} Hz"


def _extent_in_words(series: Sequence[Mapping[str, Any]], full_duration_s: float | None) -> str:
    durations = [entry["duration_s"] for entry in series if entry["duration_s"] is not None]
    full = f"the full recording is {describe_duration(full_duration_s)}" if full_duration_s is not None else ""
    if not durations:
        return f"Preview length unknown; {full}" if full else "Preview length unknown"
    held = f"This preview holds {describe_duration(max(durations))}"
    return f"{held}; {full}" if full else held


def _devices_in_words(devices: Sequence[Mapping[str, Any]]) -> str:
    described = []
    for device in devices:
        if "unreadable" in device:
            continue
        details = [value for value in (device["manufacturer"], device["model"]) if value]
        described.append(f"{device['name']} ({' '.join(details)})" if details else device["name"])
    return f"Devices: {', '.join(described)}" if described else ""


def _electrodes_in_words(electrodes: Mapping[str, Any] | None, groups: Sequence[Mapping[str, Any]]) -> str:
    if electrodes is None or "unreadable" in electrodes:
        return ""
    readable = [group for group in groups if "unreadable" not in group]
    in_groups = ", ".join(f"{group['name']} (location: {group['location'] or 'not set'})" for group in readable)
    count = f"{electrodes['rows']:,}"
    if not readable:
        return f"Electrodes: {count}"
    noun = "group" if len(readable) == 1 else "groups"
    return f"Electrodes: {count} in {len(readable)} {noun}: {in_groups}"


def _units_in_words(units: Mapping[str, Any] | None) -> str:
    if units is None or "unreadable" in units:
        return ""
    return f"Units: {units['count']:,} sorted units"


def _icephys_in_words(icephys: Mapping[str, Any] | None) -> str:
    if icephys is None or "unreadable" in icephys:
        return ""
    parts = [f"{icephys['electrodes']} electrode" + ("" if icephys["electrodes"] == 1 else "s")]
    if icephys["sweeps"] is not None:
        parts.append(f"{icephys['sweeps']} sweeps")
    if icephys["intracellular_recordings"] is not None:
        parts.append(f"{icephys['intracellular_recordings']} recordings")
    return "Patch clamp: " + ", ".join(parts)


def _subject_in_words(subject: Mapping[str, Any] | None) -> str:
    if subject is None:
        return "Subject: not set"
    if "unreadable" in subject:
        return ""
    labelled = (
        ("", subject["subject_id"]),
        ("", subject["species"]),
        ("sex ", subject["sex"]),
        ("age ", subject["age"]),
        ("born ", subject["date_of_birth"]),
        ("strain ", subject["strain"]),
    )
    return "Subject: " + ", ".join(f"{label}{value}" for label, value in labelled if value)


def _session_in_words(session: Mapping[str, Any]) -> list[str]:
    if "unreadable" in session:
        return []
    started = f"Session started {session['session_start_time']}"
    if session["session_description"]:
        started += f": {_shortened(session['session_description'])}"
    lines = [started]
    written = [
        f"{label}: {value}"
        for label, value in (
            ("Experimenter", " and ".join(session["experimenter"])),
            ("Institution", session["institution"]),
            ("Lab", session["lab"]),
            ("Keywords", ", ".join(session["keywords"])),
        )
        if value
    ]
    if written:
        lines.append("; ".join(written))
    if session["experiment_description"]:
        lines.append(f"Experiment: {_shortened(session['experiment_description'])}")
    return lines


def _shortened(text: str, limit: int = _MAX_DESCRIPTION_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _not_set(session: Mapping[str, Any], subject: Mapping[str, Any] | None) -> list[str]:
    """The labels of the fields the portal asks before converting that the file leaves empty; the
    subject's only when there is one (a missing subject has its own line)."""
    if "unreadable" in session:
        return []
    missing = []
    for spec in (FIELDS[name] for name in (*CRITICAL_FIELDS, *SUBJECT_FIELDS)):
        if spec.placement is Placement.NWBFILE:
            value = session.get(spec.name)
        elif spec.placement is Placement.SUBJECT and subject is not None and "unreadable" not in subject:
            value = subject.get(spec.name)
        else:  # no subject to read (that has its own line), or a field of the recording itself
            continue
        if not value:
            missing.append(spec.label)
    return missing


def _unreadable(summary: Mapping[str, Any]) -> list[str]:
    entries: list[Any] = [
        summary["session"],
        summary["subject"],
        *summary["devices"],
        *summary["electrode_groups"],
        summary["electrodes"],
        *summary["acquisition"],
        *summary["stimulus"],
        *summary["processing"],
        summary["units"],
        summary["icephys"],
    ]
    return [
        f"{entry.get('path') or entry.get('name')} ({entry['unreadable']})"
        for entry in entries
        if entry is not None and "unreadable" in entry
    ]

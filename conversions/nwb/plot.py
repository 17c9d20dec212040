"""A picture of a converted file's first seconds, as plain SVG text.

Extracellular recordings show the first `seconds` of a few channels of the main ElectricalSeries;
patch-clamp recordings show the first sweep (each electrode's response, and its stimulus when the
file has one). Only the samples shown are read, by slicing the HDF5 datasets, so a 40 GB file is
plotted as fast as a small one. Values are scaled to physical units (data x conversion + offset,
and an ElectricalSeries' channel_conversion) and reduced to the minimum and maximum per pixel
column, which keeps every spike visible however many samples fall in one column.

Each lane of the SVG carries the mapping from its coordinates back to physical values
(data-value-top/bottom at data-y-top/bottom, data-t-left/right at data-x-left/right on the plot),
so what is drawn can be checked against the file.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast
from xml.sax.saxutils import escape, quoteattr

from .tree import open_nwb

if TYPE_CHECKING:
    import h5py
    import numpy as np

DEFAULT_SECONDS = 1.0
MAX_SECONDS = 10.0
MAX_CHANNELS = 8
# A sweep is plotted whole up to this length: sweeps last seconds, a longer one is cut.
MAX_SWEEP_SECONDS = 20.0
# However high the sampling rate, no more samples than this are read per channel.
MAX_SAMPLES_PER_CHANNEL = 1_000_000

WIDTH = 960
_LEFT = 200  # channel names and value labels
_NAME_CHARS = 16
_RIGHT = 16
_TOP = 58
_LANE = 66
_LANE_PAD = 6
_BOTTOM = 46
_COLUMNS = WIDTH - _LEFT - _RIGHT  # one min/max pair per pixel column

_PATCH_CLAMP_TYPES = frozenset(
    {
        "PatchClampSeries",
        "CurrentClampSeries",
        "IZeroClampSeries",
        "VoltageClampSeries",
        "CurrentClampStimulusSeries",
        "VoltageClampStimulusSeries",
    }
)
_SI_UNITS = {"volts": "V", "volt": "V", "v": "V", "amperes": "A", "ampere": "A", "amps": "A", "a": "A"}
_PREFIXES = ((1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n"), (1e-12, "p"))


class NothingToPlot(ValueError):
    """The file (or the series asked for) holds no signal that can be drawn; the message says why."""


@dataclass(frozen=True)
class Trace:
    """One channel's samples in the window, in physical units."""

    label: str
    unit: str
    times: np.ndarray
    values: np.ndarray
    # A second line under the label ("response", "stimulus"), or "".
    role: str = ""


@dataclass(frozen=True)
class Window:
    """What the picture shows: a title, a line saying what part of the file it is, and the traces."""

    title: str
    caption: str
    traces: tuple[Trace, ...]


def plot_nwb(
    path: Path,
    *,
    seconds: float = DEFAULT_SECONDS,
    first_channel: int = 0,
    max_channels: int = MAX_CHANNELS,
    series: str | None = None,
) -> str:
    """The SVG of the file's first `seconds` (see the module's docstring); `series` (an HDF5 path such
    as "acquisition/ElectricalSeriesLF") picks another series than the main one. Raises
    NothingToPlot or tree.UnreadableFile with a message for a person."""
    with open_nwb(path) as h5file:
        window = read_window(
            h5file, seconds=seconds, first_channel=first_channel, max_channels=max_channels, series=series
        )
    return render_svg(window)


def read_window(
    h5file: h5py.File,
    *,
    seconds: float = DEFAULT_SECONDS,
    first_channel: int = 0,
    max_channels: int = MAX_CHANNELS,
    series: str | None = None,
) -> Window:
    """The traces to draw from an open file: the chosen series, else the main ElectricalSeries,
    else the first patch-clamp sweep, else the first other series in acquisition."""
    seconds = min(max(seconds, 0.001), MAX_SECONDS)
    if series is not None:
        group = h5file.get(series.strip("/"))
        if group is None or not _is_series(group):
            raise NothingToPlot(f"The file has no series at “{series}”.")
        return _series_window(h5file, group, seconds, first_channel, max_channels)
    electrical = sorted(_series_of_type(h5file, {"ElectricalSeries"}), key=_main_first)
    if electrical:
        return _series_window(h5file, electrical[0], seconds, first_channel, max_channels)
    sweep = _first_sweep(h5file, max_channels)
    if sweep is not None:
        return sweep
    others = [group for group in _series_of_type(h5file, None) if len(group["data"].shape) in (1, 2)]
    if others:
        return _series_window(h5file, others[0], seconds, first_channel, max_channels)
    raise NothingToPlot("This file holds no recorded signal to plot (it may hold only sorted units, events or tables).")


# --- finding what to draw ------------------------------------------------------------------------------


def _is_series(item: Any) -> bool:
    import h5py

    return (
        isinstance(item, h5py.Group)
        and isinstance(item.get("data"), h5py.Dataset)
        and ("starting_time" in item or "timestamps" in item)
    )


def _series_of_type(h5file: h5py.File, types: set[str] | None) -> Iterator[h5py.Group]:
    """Series in acquisition and processing modules (and one container deep, as LFP holds its
    ElectricalSeries) of the given neurodata types (any type for None), in the file's order."""
    import h5py

    def walk(group: h5py.Group, depth: int) -> Iterator[h5py.Group]:
        for name in group:
            item = group.get(name)
            if not isinstance(item, h5py.Group):
                continue
            if _is_series(item):
                if types is None or _text(item.attrs.get("neurodata_type")) in types:
                    yield item
            elif depth > 0:
                yield from walk(item, depth - 1)

    if "acquisition" in h5file:
        yield from walk(h5file["acquisition"], 1)
    if "processing" in h5file:
        yield from walk(h5file["processing"], 2)


def _main_first(group: h5py.Group) -> tuple[int, float, int]:
    """Raw data in acquisition first, then the highest rate (AP before LF), then the most channels."""
    rate = _rate(group) or 0.0
    shape = group["data"].shape
    return (0 if group.name.startswith("/acquisition/") else 1, -rate, -(shape[1] if len(shape) > 1 else 1))


def _first_sweep(h5file: h5py.File, max_channels: int) -> Window | None:
    """The first sweep of a patch-clamp file: from NWB's intracellular recordings tables, else the
    series with the lowest sweep number. None when the file has no patch-clamp series."""
    table = h5file.get("general/intracellular_ephys/intracellular_recordings")
    if table is not None and "responses" in table:
        return _sweep_from_tables(h5file, table, max_channels)
    series = list(_series_of_type(h5file, set(_PATCH_CLAMP_TYPES)))
    if "stimulus/presentation" in h5file:
        series += [item for item in h5file["stimulus/presentation"].values() if _is_series(item)]
    series = [group for group in series if _text(group.attrs.get("neurodata_type")) in _PATCH_CLAMP_TYPES]
    if not series:
        return None
    first = min(int(group.attrs.get("sweep_number", 0)) for group in series)
    chosen = [group for group in series if int(group.attrs.get("sweep_number", 0)) == first][:max_channels]
    traces = tuple(_segment(group, 0, int(group["data"].shape[0]), _short_name(group)) for group in chosen)
    return Window(
        title=f"Sweep {first}",
        caption=f"The first sweep ({len(traces)} series), up to {MAX_SWEEP_SECONDS:g} s",
        traces=traces,
    )


def _sweep_from_tables(h5file: h5py.File, table: h5py.Group, max_channels: int) -> Window:
    rows = [0]
    simultaneous = h5file.get("general/intracellular_ephys/simultaneous_recordings")
    if simultaneous is not None and "recordings" in simultaneous and "recordings_index" in simultaneous:
        end = int(simultaneous["recordings_index"][0])
        rows = [int(row) for row in simultaneous["recordings"][:end]]
    traces: list[Trace] = []
    for row in rows[:max_channels]:
        for column, role in (("stimuli/stimulus", "stimulus"), ("responses/response", "response")):
            if column not in table:
                continue
            start, count, reference = table[column][row]
            if start < 0 or count <= 0 or not reference:
                continue  # NWB's way of saying "no stimulus (or response) stored for this recording"
            group = h5file[reference]
            traces.append(_segment(group, int(start), int(count), _short_name(group), role=role))
    return Window(
        title="First sweep",
        caption=f"The first sweep: {len(rows)} recording{'s' if len(rows) != 1 else ''}, up to "
        f"{MAX_SWEEP_SECONDS:g} s; values in physical units, min/max per pixel",
        traces=tuple(traces),
    )


# --- reading ----------------------------------------------------------------------------------------------


def _series_window(
    h5file: h5py.File, group: h5py.Group, seconds: float, first_channel: int, max_channels: int
) -> Window:
    import numpy as np

    data = group["data"]
    if len(data.shape) not in (1, 2) or data.shape[0] == 0:
        raise NothingToPlot(f"{_short_name(group)} holds no samples that can be drawn as lines.")
    total_channels = data.shape[1] if len(data.shape) == 2 else 1
    first = min(max(first_channel, 0), total_channels - 1)
    last = min(first + max(max_channels, 1), total_channels)
    count = _samples_within(group, 0, int(data.shape[0]), seconds)
    raw = data[:count, first:last] if len(data.shape) == 2 else data[:count].reshape(-1, 1)
    factors = np.ones(last - first)
    if "channel_conversion" in group:
        factors = np.asarray(group["channel_conversion"][first:last], dtype=float)
    conversion, offset = _scaling(data)
    values = raw.astype(float) * factors * conversion + offset
    times = _times(group, 0, count)
    unit = _text(data.attrs.get("unit")) or ""
    names = _channel_names(h5file, group, first, last)
    shown = f"channel {first + 1}" if last - first == 1 else f"channels {first + 1}–{last}"
    rate = _rate(group)
    timing = f" at {_rate_words(rate)}" if rate else ""
    return Window(
        title=f"{_short_name(group)} ({_text(group.attrs.get('neurodata_type')) or 'series'})",
        caption=f"First {_duration_words(times[-1] - times[0] + (1 / rate if rate else 0))} of "
        f"{total_channels:,} channel{'s' if total_channels != 1 else ''}{timing}; {shown} shown, "
        "min/max per pixel",
        traces=tuple(
            Trace(label=name, unit=unit, times=times, values=values[:, index]) for index, name in enumerate(names)
        ),
    )


def _segment(group: h5py.Group, start: int, count: int, label: str, *, role: str = "") -> Trace:
    """Samples start..start+count of a one-channel series (a sweep), at most MAX_SWEEP_SECONDS."""
    import numpy as np

    data = group["data"]
    stop = start + _samples_within(group, start, start + count, MAX_SWEEP_SECONDS) if count else start
    raw = data[start:stop]
    if raw.ndim > 1:
        raw = raw.reshape(raw.shape[0], -1)[:, 0]
    conversion, offset = _scaling(data)
    return Trace(
        label=label,
        unit=_text(data.attrs.get("unit")) or "",
        times=_times(group, start, stop),
        values=np.asarray(raw, dtype=float) * conversion + offset,
        role=role,
    )


def _samples_within(group: h5py.Group, start: int, stop: int, seconds: float) -> int:
    """How many samples from `start` (before `stop`) fall in the first `seconds`, bounded by
    MAX_SAMPLES_PER_CHANNEL. Timestamps are searched by bisection: a few values read, not all."""
    available = min(stop - start, MAX_SAMPLES_PER_CHANNEL)
    rate = _rate(group)
    if rate:
        return max(1, min(available, math.ceil(seconds * rate)))
    timestamps = group["timestamps"]
    end = float(timestamps[start]) + seconds
    return max(1, bisect_left(_Lazy(timestamps, start, start + available), end))


class _Lazy(Sequence[float]):
    """A slice of an HDF5 dataset that bisect can search, reading one value per step."""

    def __init__(self, dataset: h5py.Dataset, start: int, stop: int) -> None:
        self.dataset, self.start, self.stop = dataset, start, stop

    def __len__(self) -> int:
        return self.stop - self.start

    def __getitem__(self, index: Any) -> Any:
        return float(self.dataset[self.start + index])


def _times(group: h5py.Group, start: int, stop: int) -> np.ndarray:
    import numpy as np

    rate = _rate(group)
    if rate:
        starting = float(group["starting_time"][()])
        return starting + np.arange(start, stop) / rate
    return np.asarray(group["timestamps"][start:stop], dtype=float)


def _rate(group: h5py.Group) -> float | None:
    if "starting_time" not in group:
        return None
    rate = group["starting_time"].attrs.get("rate")
    return float(rate) if rate is not None and float(rate) > 0 else None


def _scaling(data: h5py.Dataset) -> tuple[float, float]:
    return float(data.attrs.get("conversion", 1.0)), float(data.attrs.get("offset", 0.0))


def _channel_names(h5file: h5py.File, group: h5py.Group, first: int, last: int) -> list[str]:
    """The electrodes table's channel names of an ElectricalSeries' channels, else their numbers."""
    fallback = [f"channel {index + 1}" for index in range(first, last)]
    region = group.get("electrodes")
    if region is None or "table" not in region.attrs:
        return fallback
    table = h5file[region.attrs["table"]]
    column = table.get("channel_name") or table.get("id")
    if column is None:
        return fallback
    rows = [int(row) for row in region[first:last]]
    names = [_text(column[row]) for row in rows]
    return [name or default for name, default in zip(names, fallback, strict=True)]


def _short_name(group: h5py.Group) -> str:
    return cast(str, group.name).rsplit("/", 1)[-1]


def _text(value: Any) -> str | None:
    if value is None:
        return None
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    return str(value.item() if hasattr(value, "item") else value)


# --- drawing ---------------------------------------------------------------------------------------------


def render_svg(window: Window) -> str:
    """The window as a self-contained SVG document (no script, no external reference)."""
    traces = window.traces
    if not traces:
        raise NothingToPlot("The first sweep of this file has no stored samples to draw.")
    height = _TOP + _LANE * len(traces) + _BOTTOM
    t_left = min(float(trace.times[0]) for trace in traces)
    t_right = max(float(trace.times[-1]) for trace in traces)
    if t_right <= t_left:
        t_right = t_left + 1e-3
    x_left, x_right = _LEFT, WIDTH - _RIGHT
    plot = _Axis(t_left, t_right, x_left, x_right)
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" '
        f'viewBox="0 0 {WIDTH} {height}" role="img" aria-labelledby="plot-title plot-caption" '
        'font-family="system-ui, -apple-system, Segoe UI, sans-serif" font-size="12">',
        f'<title id="plot-title">{escape(window.title)}</title>',
        f'<desc id="plot-caption">{escape(window.caption)}</desc>',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="12" y="22" font-size="15" font-weight="600" fill="#1d2433">{escape(_cut(window.title, 110))}</text>',
        f'<text x="12" y="42" fill="#5b6475">{escape(_cut(window.caption, 140))}</text>',
        f'<g class="plot" data-t-left="{t_left!r}" data-t-right="{t_right!r}" '
        f'data-x-left="{x_left}" data-x-right="{x_right}">',
    ]
    for index, trace in enumerate(traces):
        parts.extend(_lane(trace, index, plot))
    parts.extend(_time_axis(plot, _TOP + _LANE * len(traces)))
    parts.append("</g></svg>")
    return "\n".join(parts)


@dataclass(frozen=True)
class _Axis:
    t_left: float
    t_right: float
    x_left: float
    x_right: float

    def x(self, t: Any) -> Any:
        return self.x_left + (t - self.t_left) / (self.t_right - self.t_left) * (self.x_right - self.x_left)


def _lane(trace: Trace, index: int, plot: _Axis) -> list[str]:
    import numpy as np

    top = _TOP + index * _LANE
    y_top, y_bottom = top + _LANE_PAD, top + _LANE - _LANE_PAD
    finite = trace.values[np.isfinite(trace.values)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 0.0)
    if high == low:  # a flat line is drawn in the middle of a range around it
        spread = abs(high) * 0.1 or 1.0
        low, high = low - spread, high + spread
    xs, ys = _envelope(trace.times, trace.values)
    px = plot.x(xs)
    py = y_bottom - (ys - low) / (high - low) * (y_bottom - y_top)
    path = _path(px, py)
    symbol, factor = _display_unit(trace.unit, max(abs(low), abs(high)))
    shade = "#f5f7fa" if index % 2 else "#ffffff"
    middle = top + _LANE / 2
    name_y = middle - 3 if trace.role else middle + 4
    role = f'<text x="12" y="{middle + 13:.1f}" fill="#5b6475">{escape(trace.role)}</text>' if trace.role else ""
    decimals = _significant_digits(low, high, factor)
    return [
        f'<g class="lane" data-channel={quoteattr(trace.label)} data-unit={quoteattr(trace.unit)} '
        f'data-y-top="{y_top}" data-y-bottom="{y_bottom}" data-value-top="{high!r}" data-value-bottom="{low!r}">',
        f'<rect x="{plot.x_left}" y="{top}" width="{plot.x_right - plot.x_left}" height="{_LANE}" fill="{shade}"/>',
        f'<text x="12" y="{name_y:.1f}" fill="#1d2433"><title>{escape(trace.label)}</title>'
        f"{escape(_cut_middle(trace.label, _NAME_CHARS))}</text>",
        role,
        f'<text x="{_LEFT - 8}" y="{y_top + 9}" text-anchor="end" fill="#5b6475">'
        f"{escape(_value(high, factor, symbol, decimals))}</text>",
        f'<text x="{_LEFT - 8}" y="{y_bottom}" text-anchor="end" fill="#5b6475">'
        f"{escape(_value(low, factor, symbol, decimals))}</text>",
        f'<path d="{path}" fill="none" stroke="#2458c6" stroke-width="1" stroke-linejoin="round"/>',
        "</g>",
    ]


def _envelope(times: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every sample when they fit in the plot's columns; else each column's minimum and maximum,
    in the order they occur, at the time of the column's middle sample."""
    import numpy as np

    count = values.shape[0]
    if count <= 2 * _COLUMNS:
        return times, values
    edges = (np.arange(_COLUMNS) * count) // _COLUMNS
    safe = np.where(np.isfinite(values), values, np.nan)
    lows = np.fmin.reduceat(safe, edges)
    highs = np.fmax.reduceat(safe, edges)
    ends = np.append(edges[1:], count)
    middles = times[(edges + ends - 1) // 2]
    xs = np.repeat(middles, 2)
    ys = np.column_stack([lows, highs]).ravel()
    return xs, ys


def _path(xs: np.ndarray, ys: np.ndarray) -> str:
    """An SVG path through the finite points; a gap (NaN) starts a new segment."""
    import numpy as np

    commands = []
    move = True
    for x, y in zip(xs.tolist(), ys.tolist(), strict=True):
        if not (np.isfinite(x) and np.isfinite(y)):
            move = True
            continue
        commands.append(f"{'M' if move else 'L'}{x:.2f},{y:.2f}")
        move = False
    return " ".join(commands)


def _time_axis(plot: _Axis, y: int) -> list[str]:
    span = plot.t_right - plot.t_left
    in_ms = span < 1.0
    step = _nice_step(span / 6)
    first = math.ceil(plot.t_left / step) * step
    parts = [f'<line x1="{plot.x_left}" y1="{y}" x2="{plot.x_right}" y2="{y}" stroke="#1d2433"/>']
    tick = first
    while tick <= plot.t_right + step * 1e-9:
        x = plot.x(tick)
        label = f"{tick * 1000:g}" if in_ms else f"{tick:g}"
        parts.append(f'<line x1="{x:.2f}" y1="{y}" x2="{x:.2f}" y2="{y + 5}" stroke="#1d2433"/>')
        parts.append(f'<text x="{x:.2f}" y="{y + 18}" text-anchor="middle" fill="#1d2433">{label}</text>')
        tick = round(tick + step, 12)
    unit = "ms" if in_ms else "s"
    parts.append(
        f'<text x="{(plot.x_left + plot.x_right) / 2:.1f}" y="{y + 38}" text-anchor="middle" fill="#5b6475">'
        f"time ({unit}, from the session start)</text>"
    )
    return parts


def _nice_step(rough: float) -> float:
    magnitude: float = 10 ** math.floor(math.log10(rough))
    for multiple in (1, 2, 5, 10):
        if rough <= multiple * magnitude:
            return multiple * magnitude
    return 10 * magnitude


def _display_unit(unit: str, magnitude: float) -> tuple[str, float]:
    """The unit to print values in: an SI unit gets the prefix that suits `magnitude` (µV, pA...)."""
    symbol = _SI_UNITS.get(unit.strip().lower())
    if symbol is None:
        return unit, 1.0
    for factor, prefix in _PREFIXES:
        if magnitude >= factor:
            return prefix + symbol, factor
    return _PREFIXES[-1][1] + symbol, _PREFIXES[-1][0]


def _significant_digits(low: float, high: float, factor: float) -> int:
    """Enough significant digits that the top and bottom labels of a lane differ (a small signal on
    a large offset needs more than the usual four)."""
    largest = max(abs(low), abs(high)) / factor
    spread = (high - low) / factor
    if largest == 0 or spread == 0:
        return 4
    return min(12, max(4, math.ceil(math.log10(largest / spread)) + 3))


def _value(value: float, factor: float, symbol: str, digits: int) -> str:
    return f"{value / factor:.{digits}g} {symbol}".strip()


def _rate_words(rate: float) -> str:
    return f"{rate / 1000:g} kHz" if rate >= 1000 else f"{rate:g} Hz"


def _duration_words(seconds: float) -> str:
    return f"{seconds * 1000:.3g} ms" if seconds < 1 else f"{seconds:.3g} s"


def _cut_middle(text: str, limit: int) -> str:
    """Long names keep both ends: series and channel names differ at the end more often than not."""
    if len(text) <= limit:
        return text
    tail = (limit - 1) // 2
    return text[: limit - 1 - tail] + "…" + text[-tail:]


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"

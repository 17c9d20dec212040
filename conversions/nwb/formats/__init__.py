"""The recording formats the portal converts: one module per format, registered here in order.

To add a format, write `formats/<name>.py` defining `FORMAT = SupportedFormat(...)` (see
`base.SupportedFormat` for what each field must do; `spikeglx.py` and `openephys_binary.py` are
worked examples) and add its module name, on one line, to `_FORMAT_MODULES` below. The order is
the order formats are listed to users (and tried; every format that claims an upload is inspected).

Layering, so nothing imports in a cycle: `base.py` (types and shared tools) <- each format module
<- this registry <- `detection.py` (`detect_format`) <- `conversion.py`.
"""

from __future__ import annotations

from importlib import import_module

from .base import SupportedFormat

_FORMAT_MODULES = (
    "spikeglx",
    "openephys_binary",
    "intan",
    "blackrock",
    "openephys_legacy",
    "neuroscope",
    "axon",
    "plexon",
    "neuralynx",
    "spike2",
    "edf",
    "sorting",
    "pose",
    "video",
)


def _registry(module_names: tuple[str, ...]) -> dict[str, SupportedFormat]:
    registry: dict[str, SupportedFormat] = {}
    for name in module_names:
        supported = getattr(import_module(f"{__name__}.{name}"), "FORMAT", None)
        if not isinstance(supported, SupportedFormat):
            raise TypeError(f"formats/{name}.py must define FORMAT = SupportedFormat(...)")
        if supported.key in registry:
            raise ValueError(f"formats/{name}.py reuses the format key {supported.key!r}")
        registry[supported.key] = supported
    return registry


SUPPORTED_FORMATS: dict[str, SupportedFormat] = _registry(_FORMAT_MODULES)

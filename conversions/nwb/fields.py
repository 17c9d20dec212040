"""The metadata fields nwbportal collects, keyed by NWB's own names.

One registry shared by the orchestrator (what to ask), the language rules (what a user may name),
the conversion (where each value goes in the NWB file) and the pages (labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Placement(StrEnum):
    NWBFILE = "nwbfile"
    SUBJECT = "subject"
    # Written into the recording's own objects: its electrode groups (and electrodes table) or its
    # patch-clamp electrode, where NWB has a place for the value.
    RECORDING = "recording"
    # How the session's parts sit in time: used to place them (starting times, frame rates), not
    # written as values of their own.
    TIMING = "timing"


@dataclass(frozen=True)
class FieldSpec:
    name: str
    label: str
    question: str
    placement: Placement
    example: str


_SPECS = (
    FieldSpec("experimenter", "experimenter", "Who recorded this session?", Placement.NWBFILE, "Jane Smith"),
    FieldSpec("institution", "institution", "Which institution was it recorded at?", Placement.NWBFILE, "MIT"),
    FieldSpec(
        "experiment_description",
        "experiment description",
        "What was the experiment, in a sentence?",
        Placement.NWBFILE,
        "Neuropixels recording of V1 neurons during visual stimulation",
    ),
    FieldSpec(
        "session_description",
        "session description",
        "How would you describe this session?",
        Placement.NWBFILE,
        "Passive viewing, day 3",
    ),
    FieldSpec("lab", "lab", "Which lab is this from?", Placement.NWBFILE, "Smith Lab"),
    FieldSpec("keywords", "keywords", "Any keywords for this dataset?", Placement.NWBFILE, "V1, Neuropixels"),
    FieldSpec(
        "session_start_time",
        "session start time",
        "When did the recording start (date, time and timezone)?",
        Placement.NWBFILE,
        "2024-03-15 14:30 Europe/Paris",
    ),
    FieldSpec("subject_id", "subject id", "What is the animal's (subject's) id?", Placement.SUBJECT, "mouse001"),
    FieldSpec("species", "species", "Which species?", Placement.SUBJECT, "Mus musculus"),
    FieldSpec("sex", "sex", "The subject's sex (male, female, unknown)?", Placement.SUBJECT, "M"),
    FieldSpec("age", "age", "The subject's age at the session?", Placement.SUBJECT, "P90D"),
    # NWB 2.6's Subject.age__reference: "birth" (the default) or "gestational", for an age counted from
    # fertilisation ("7 dpf" of a zebrafish larva).
    FieldSpec(
        "age__reference",
        "age counted from",
        "Is the age counted from birth or from fertilisation (gestational)?",
        Placement.SUBJECT,
        "gestational",
    ),
    FieldSpec("date_of_birth", "date of birth", "The subject's date of birth?", Placement.SUBJECT, "2024-01-10"),
    FieldSpec("strain", "strain", "The subject's strain?", Placement.SUBJECT, "C57BL/6J"),
    FieldSpec(
        "location",
        "recording location",
        "Where in the brain was it recorded (the brain area)?",
        Placement.RECORDING,
        "CA1",
    ),
    FieldSpec("cell_id", "cell id", "Which cell was recorded (its id in your notes)?", Placement.RECORDING, "c3"),
    FieldSpec("slice_id", "slice id", "Which slice was the cell in (its id in your notes)?", Placement.RECORDING, "S2"),
    # Asked only when a video or pose is converted with a recording (`nwb.parts.needs_behaviour_start`).
    FieldSpec(
        "behaviour_start_s",
        "video start",
        "When did the video start, in seconds after the recording started (0 if they started together)?",
        Placement.TIMING,
        "0",
    ),
    # Asked only for pose whose files and video do not say their frame rate.
    FieldSpec(
        "pose_rate_hz",
        "pose frame rate",
        "At how many frames per second was the video filmed that the pose was tracked in?",
        Placement.TIMING,
        "30",
    ),
)

FIELDS: dict[str, FieldSpec] = {spec.name: spec for spec in _SPECS}

# Seed 000 §3: asked before any conversion, because DANDI needs them for attribution.
CRITICAL_FIELDS: tuple[str, ...] = ("experimenter", "institution", "experiment_description")

# DANDI refuses a file without a subject (nwbinspector raises CRITICAL check_subject_* messages), so
# these are asked together with the critical fields; the user may skip them.
SUBJECT_FIELDS: tuple[str, ...] = ("subject_id", "species", "sex", "age")

# What the files themselves say about the recording (conversions.nwb.detection's file metadata),
# stored with provenance "file" so every value the portal uses says where it came from. neuroconv
# writes them into the NWB file from the files, so they are never asked for and never typed in.
FILE_FACTS: dict[str, str] = {
    "device": "device",
    "probe": "probe",
    "channel_count": "channel count",
    "sampling_rate_hz": "sampling rate (Hz)",
    "duration_s": "duration (s)",
    "size_bytes": "size (bytes)",
}

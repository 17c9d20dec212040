"""Where output files go: names as DANDI expects them (`sub-<subject>_ses-<session>_<modality>.nwb`),
the folder beside an NWB file for the videos it links to, and the temporary name a file is written
under. Light on purpose: the web process imports it.

`dandi organize` names files from the NWB file's subject id and session id; naming the output the
same way from the start means a lab can upload what the portal gives without renaming.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path


def label(value: str) -> str:
    """A DANDI/BIDS label: letters, digits and hyphens only ("mouse_01/a" → "mouse-01-a")."""
    return re.sub(r"[^A-Za-z0-9]+", "-", value).strip("-")


def session_label(session_start_time: datetime | str) -> str:
    """The session id the portal writes when the user gave none: the start time, compact."""
    moment = (
        session_start_time if isinstance(session_start_time, datetime) else datetime.fromisoformat(session_start_time)
    )
    return moment.strftime("%Y%m%dT%H%M%S")


def dandi_file_name(*, subject_id: str | None, session_id: str | None, modality: str, fallback: str) -> str:
    """The output's file name; without a subject id DANDI cannot place the file, so `fallback`
    (e.g. the recording's own name) is used instead."""
    subject = label(subject_id or "")
    if not subject:
        safe = re.sub(r"[^A-Za-z0-9_-]+", "-", fallback).strip("-_")
        return f"{safe or 'recording'}.nwb"
    parts = [f"sub-{subject}"]
    session = label(session_id or "")
    if session:
        parts.append(f"ses-{session}")
    parts.append(modality)
    return "_".join(parts) + ".nwb"


def temporary_path_for(output_path: Path) -> Path:
    """Where the in-progress file is written: hidden, in the destination folder (so the final
    `os.replace` is an atomic rename on the same file system)."""
    # Keeps the .nwb suffix, which pynwb expects of HDF5 files (it warns otherwise).
    return output_path.with_name(f".{output_path.stem}.partial{output_path.suffix}")


def video_folder_name(output_path: Path) -> str:
    """The folder beside `output_path` that holds the videos it links to: the NWB file names each
    by its path relative to itself, "<stem>_video/<name>", so the file and the folder stay side by
    side (as DANDI keeps them)."""
    return f"{output_path.stem}_video"

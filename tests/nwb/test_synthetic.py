"""The generator writes recordings whose files agree with their own .meta."""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np
import pytest

from conversions.nwb.synthetic import write_spikeglx


def _meta(path: Path) -> dict[str, str]:
    lines = path.read_text().splitlines()
    return {key.lstrip("~"): value for key, _, value in (line.partition("=") for line in lines)}


def test_files_match_their_meta_across_write_chunks(tmp_path: Path) -> None:
    # 2.5 s at 30 kHz is 75,000 samples: several 16,384-sample write chunks.
    paths = write_spikeglx(tmp_path, run="chunks", duration_s=2.5, n_channels=4, with_lf=True)

    assert paths["ap_bin"] == tmp_path / "chunks_g0" / "chunks_g0_t0.imec0.ap.bin"
    for band, rate in (("ap", 30000), ("lf", 2500)):
        meta = _meta(paths[f"{band}_meta"])
        raw = paths[f"{band}_bin"].read_bytes()
        assert int(meta["fileSizeBytes"]) == len(raw) == round(2.5 * rate) * 5 * 2
        assert meta["fileSHA1"] == hashlib.sha1(raw).hexdigest().upper()
        assert meta["nSavedChans"] == "5"
        assert meta["fileName"].endswith(f"chunks_g0_t0.imec0.{band}.bin")
    data = np.fromfile(paths["ap_bin"], dtype="<i2").reshape(-1, 5)
    sync = data[:, 4]
    assert set(np.unique(sync)) == {0, 64}
    assert sync[14999] == 0 and sync[15000] == 64  # 1 Hz square wave: high from 0.5 s
    assert 5 < data[:, :4].std() < 30


def test_same_seed_gives_same_data(tmp_path: Path) -> None:
    first = write_spikeglx(tmp_path / "a", duration_s=0.05, n_channels=8, seed=7)
    second = write_spikeglx(tmp_path / "b", duration_s=0.05, n_channels=8, seed=7)
    assert first["ap_bin"].read_bytes() == second["ap_bin"].read_bytes()


def test_omitted_meta_keys_are_left_out(tmp_path: Path) -> None:
    omitted = ["fileCreateTime", "imroTbl"]
    paths = write_spikeglx(tmp_path, duration_s=0.05, n_channels=8, omit_meta_keys=omitted)
    text = paths["ap_meta"].read_text()
    assert "fileCreateTime" not in text
    assert "imroTbl" not in text
    assert "snsChanMap" in text


@pytest.mark.parametrize(("kwargs", "words"), [({"n_channels": 0}, "n_channels"), ({"run": "my run"}, "spaces")])
def test_refuses_what_spikeglx_cannot_write(tmp_path: Path, kwargs: dict[str, object], words: str) -> None:
    with pytest.raises(ValueError, match=words):
        write_spikeglx(tmp_path, duration_s=0.05, **kwargs)  # type: ignore[arg-type]

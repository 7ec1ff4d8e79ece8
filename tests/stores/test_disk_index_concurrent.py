"""Concurrent ``ddrsearch index add`` of different reports: every report lands (issue 26, ddrsearch.stores.disk_index)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ddrsearch.stores.disk_index import build_index
from ddrsearch.stores.generations import current_generation

BASE = (2, 3)
ADDED = (4, 5, 6, 7)
ROUNDS = 3


def _path(folder: Path, n: int) -> Path:
    return next(folder.glob(f"FORGE-16A-78-32_Drilling_{n:03d}_*.pdf"))


@pytest.mark.data
@pytest.mark.model
def test_four_concurrent_adds_of_different_reports_all_land(archive_folder, tmp_path):
    """Before: two `index add` started together both said "added 1 report(s)", but the index then held one more
    report, not two (each read CURRENT, wrote its generation and replaced CURRENT with no lock). After: each writer
    takes the index lock and builds on the generation current under it, so 4 concurrent adds leave 4 more reports,
    on every one of 3 rounds, and the stored passages and vectors agree with the header."""
    from ddrsearch.embedding.encoder import Embedder

    embedder = Embedder()
    base = [_path(archive_folder, n) for n in BASE]
    added = [_path(archive_folder, n) for n in ADDED]
    env = {**os.environ, "DDRSEARCH_INDEX_LOCK_TIMEOUT": "300"}
    for round_ in range(ROUNDS):
        folder = tmp_path / f"ix{round_}"
        build_index(base, folder, embedder=embedder)
        procs = [subprocess.Popen([sys.executable, "-m", "ddrsearch", "index", "add", str(p), "--index", str(folder)],
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
                 for p in added]
        outs = [proc.communicate(timeout=600) for proc in procs]
        for proc, (out, err), p in zip(procs, outs, added):
            assert proc.returncode == 0, err
            assert f"added 1 report(s) ({p.name})" in out
        gen = current_generation(folder)
        names = sorted(r["file_name"] for r in gen.header["reports"])
        assert names == sorted(p.name for p in base + added), f"round {round_}: {names}"
        assert gen.header["generation"] == 1 + len(added)
        assert {p.report for p in gen.passages()} == set(names) and gen.problems() == []
        assert len([d for d in folder.iterdir() if d.name.startswith("gen-")]) == 2  # the new one and the one before

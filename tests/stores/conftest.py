"""Fixtures of the on-disk index tests: one embedder per module, and reports 36 to 41 in a folder of their own."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest


def _paths(folder: Path, numbers) -> list[Path]:
    return [next(folder.glob(f"FORGE-16A-78-32_Drilling_{n:03d}_*.pdf")) for n in numbers]


@pytest.fixture(scope="module")
def embedder():
    from ddrsearch.embedding.encoder import Embedder

    return Embedder()


@pytest.fixture()
def six(archive_folder, tmp_path) -> list[Path]:
    """Reports 36 to 41 copied into a folder of their own (the days of the stuck-pipe story)."""
    folder = tmp_path / "reports"
    folder.mkdir()
    out = []
    for p in _paths(archive_folder, range(36, 42)):
        shutil.copy2(p, folder / p.name)
        out.append(folder / p.name)
    return out

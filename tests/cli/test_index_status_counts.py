"""``ddrsearch index status`` checks the stored passages and vectors, not just the header (issue 26)."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from ddrsearch.cli.command import main
from ddrsearch.stores.disk_index import build_index
from ddrsearch.stores.generations import current_generation


@pytest.mark.data
@pytest.mark.model
def test_status_says_damaged_when_the_vectors_or_passages_disagree_with_the_header(archive_folder, tmp_path, capsys):
    """Before: status read only header.json and said "current: every report ... match" over a vectors.npy that had
    lost rows. After: it counts the stored vectors and passages (per report too) and says DAMAGED, exit 1."""
    from ddrsearch.embedding.encoder import Embedder

    reports = tmp_path / "reports"
    reports.mkdir()
    for n in (2, 3):
        p = next(archive_folder.glob(f"FORGE-16A-78-32_Drilling_{n:03d}_*.pdf"))
        shutil.copy2(p, reports / p.name)
    folder = tmp_path / "ix"
    gen = build_index(sorted(reports.glob("*.pdf")), folder, embedder=Embedder())
    args = ["index", "status", "--dir", str(reports), "--index", str(folder)]
    assert main(args) == 0 and "current: every report" in capsys.readouterr().out
    vectors = gen.vectors()
    np.save(gen.vectors_path, vectors[:-2], allow_pickle=False)  # two vectors lost
    assert main(args) == 1
    out = capsys.readouterr().out
    n = gen.header["n_passages"]
    assert f"DAMAGED: vectors.npy holds {n - 2} vectors for {n} passages" in out and "Rebuild it with" in out
    assert "current: every report" not in out
    np.save(gen.vectors_path, vectors, allow_pickle=False)
    (gen.folder / "passages.json").write_text("[]", encoding="utf-8")  # passages lost, header unchanged
    assert current_generation(folder).problems()[0] == f"passages.json holds 0 passages, the header says {n}"
    assert main(args) == 1 and "DAMAGED" in capsys.readouterr().out

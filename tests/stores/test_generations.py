"""ddrsearch.stores.generations: a process killed during an add leaves the previous index usable."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from ddrsearch.stores.disk_index import add_reports, build_index, open_index
from ddrsearch.stores.generations import current_generation

pytestmark = [pytest.mark.data, pytest.mark.model]


_KILL = textwrap.dedent("""
    import os, signal, sys
    import ddrsearch.stores.generations as store
    where = sys.argv[3]
    if where == "bm25":  # half-way through writing the new generation
        import bm25s
        original = bm25s.BM25.save
        def save(self, *a, **k):
            original(self, *a, **k)
            os.kill(os.getpid(), signal.SIGKILL)
        bm25s.BM25.save = save
    else:  # everything written, just before CURRENT is switched (other renames, e.g. the embedding cache's, go on)
        original = os.replace
        def replace(src, dst, *a, **k):
            if str(dst).endswith("CURRENT"):
                os.kill(os.getpid(), signal.SIGKILL)
            return original(src, dst, *a, **k)
        store.os.replace = replace
    from ddrsearch.stores.disk_index import add_reports
    add_reports([sys.argv[2]], sys.argv[1])
""")


@pytest.mark.data
@pytest.mark.parametrize("where", ["bm25", "switch"])
def test_a_process_killed_during_add_leaves_the_previous_index_usable(six, tmp_path, where, embedder):
    folder = tmp_path / "ix"
    build_index(six[:5], folder, embedder=embedder)
    before = current_generation(folder)
    proc = subprocess.run([sys.executable, "-c", _KILL, str(folder), str(six[5]), where],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == -9, proc.stderr  # killed by SIGKILL, not finished
    assert len([d for d in folder.iterdir() if d.name.startswith("gen-")]) == 2  # the half-written one is beside
    after = current_generation(folder)
    assert after.folder == before.folder and after.header == before.header
    index = open_index(folder, embedder=embedder)
    assert {p.report for p in index.retriever.passages} == {p.name for p in six[:5]}
    assert index.retriever.bm25.search("stuck pipe", 3)  # BM25 leg loads and answers
    result = add_reports([six[5]], folder, embedder=embedder)  # the next add works and tidies up
    assert result.added == [six[5].name] and result.generation.header["generation"] == 2
    assert sorted(d.name for d in folder.iterdir() if d.name.startswith("gen-")) == sorted(
        [before.folder.name, result.generation.folder.name])

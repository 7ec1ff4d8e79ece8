"""ddrsearch.stores.disk_index.add_reports with the ONNX passage embedder (the default when the export is current).

The added report's passages are embedded without PyTorch: the index then equals a full rebuild but for
those vectors, which are within 1e-5 cosine of the model's, its entry says which encoder embedded them,
and the searches rank the same reports.
"""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder, OnnxPassageEmbedder
from ddrsearch.embedding.onnx_encoder import PARITY_TOLERANCE
from ddrsearch.stores.disk_index import add_reports, build_index, open_index
from ddrsearch.stores.generations import current_generation

pytestmark = [pytest.mark.data, pytest.mark.model]

QUERIES = ("stuck pipe", "jarring", "pump pressure", "trip out of hole", "circulate and condition mud")


def test_an_add_embedded_by_onnx_equals_the_rebuild_within_the_tolerance(six, tmp_path, embedder):
    encoder = embedder.query_encoder()
    assert encoder is not None
    onnx = OnnxPassageEmbedder(encoder, cache_dir=tmp_path / "onnx-cache")  # empty: every new passage is run
    grown, full = tmp_path / "grown", tmp_path / "full"
    build_index(six[:5], grown, embedder=embedder)
    result = add_reports(six[5:], grown, embedder=onnx)
    assert result.passages > 0 and onnx.made_by == "onnxruntime" and onnx.misses > 0
    build_index(six, full, embedder=embedder)
    a, b = current_generation(grown), current_generation(full)
    assert a.passages() == b.passages()
    distance = 1.0 - np.sum(a.vectors() * b.vectors(), axis=1)
    assert float(distance.max()) <= PARITY_TOLERANCE
    entries = {e["file_name"]: e for e in a.header["reports"]}
    assert entries[six[5].name]["embedded_by"] == "onnxruntime"
    assert all("embedded_by" not in entries[p.name] for p in six[:5])  # built by sentence-transformers
    ia, ib = open_index(grown, embedder=embedder), open_index(full, embedder=embedder)
    for q in QUERIES:
        assert [h.report for h in ia.search(q, 6)] == [h.report for h in ib.search(q, 6)], q


def test_an_add_with_the_model_says_nothing_of_onnx(six, tmp_path):
    """An explicit plain Embedder (sentence-transformers) writes no embedded_by: the entries say what ran."""
    folder = tmp_path / "idx"
    build_index(six[:5], folder, embedder=Embedder())
    add_reports(six[5:], folder, embedder=Embedder())
    assert all("embedded_by" not in e for e in current_generation(folder).header["reports"])

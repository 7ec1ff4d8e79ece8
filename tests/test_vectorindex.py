"""Exact numpy search against FAISS, on the embedded archive chunks."""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.vectorindex import FaissFlatIndex, FaissHNSWIndex, NumpyIndex, make_index

QUERIES = ["pipe became stuck during the slide", "mud pump failure", "cement returns to surface",
           "gyro survey", "raising the derrick", "temperature too hot for logging tools"]


@pytest.fixture(scope="module")
def vectors(archive):
    emb = Embedder()
    chunks = chunk_reports(archive)
    return emb.encode([c.indexed_text for c in chunks]), emb.encode_uncached(QUERIES)


def test_numpy_and_faiss_flat_return_the_same_top_10(vectors):
    docs, queries = vectors
    s_np, i_np = NumpyIndex(docs).search(queries, 10)
    s_fa, i_fa = FaissFlatIndex(docs).search(queries, 10)
    np.testing.assert_allclose(s_np, s_fa, atol=1e-5)
    assert (i_np == i_fa).mean() == 1.0


def test_hnsw_finds_most_of_the_exact_top_10(vectors):
    docs, queries = vectors
    _, exact = NumpyIndex(docs).search(queries, 10)
    _, approx = FaissHNSWIndex(docs).search(queries, 10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, approx)])
    assert overlap >= 0.9


def test_numpy_ties_by_row_id_and_errors():
    v = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]], dtype=np.float32)
    scores, ids = NumpyIndex(v).search(np.array([1.0, 0.0]), 3)
    assert ids.tolist() == [[0, 2, 1]]
    with pytest.raises(ValueError):
        NumpyIndex(v).search(np.array([1.0, 0.0, 0.0]), 1)
    with pytest.raises(ValueError):
        NumpyIndex(np.array([[np.nan, 1.0]]))
    with pytest.raises(ValueError, match="Unknown index"):
        make_index("annoy", v)

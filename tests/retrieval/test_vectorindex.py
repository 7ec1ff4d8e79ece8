"""Vector indexes (ddrsearch.retrieval.vectorindex): exact numpy search against FAISS, on the embedded archive chunks.

HNSW recall counts a returned copy tied with the exact top k as a hit.
"""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.vectorindex import FaissFlatIndex, FaissHNSWIndex, NumpyIndex, make_index, recall_with_ties

QUERIES = ["pipe became stuck during the slide", "mud pump failure", "cement returns to surface",
           "gyro survey", "raising the derrick", "temperature too hot for logging tools"]


@pytest.fixture(scope="module")
def vectors(archive):
    emb = Embedder()
    chunks = chunk_reports(archive)
    return emb.encode([c.indexed_text for c in chunks]), emb.encode_uncached(QUERIES)


@pytest.mark.data
@pytest.mark.model
def test_numpy_and_faiss_flat_return_the_same_top_10(vectors):
    docs, queries = vectors
    s_np, i_np = NumpyIndex(docs).search(queries, 10)
    s_fa, i_fa = FaissFlatIndex(docs).search(queries, 10)
    np.testing.assert_allclose(s_np, s_fa, atol=1e-5)
    assert (i_np == i_fa).mean() == 1.0


@pytest.mark.data
@pytest.mark.model
def test_hnsw_finds_most_of_the_exact_top_10(vectors):
    docs, queries = vectors
    _, exact = NumpyIndex(docs).search(queries, 10)
    _, approx = FaissHNSWIndex(docs).search(queries, 10)
    overlap = np.mean([len(set(a) & set(b)) / 10 for a, b in zip(exact, approx)])
    assert overlap >= 0.9


@pytest.mark.model
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


def test_tied_copies_count_as_hits():
    """HNSW recall counted a returned copy tied with the exact top k as a miss (at scale 100x); tied copies count as
    hits.
    """
    rng = np.random.default_rng(0)
    base = rng.normal(size=(20, 8)).astype("float32")
    base /= np.linalg.norm(base, axis=1, keepdims=True)
    corpus = np.vstack([base] * 4)  # four copies share their vectors, as in the benchmark's scaled corpus
    index = NumpyIndex(corpus)
    query = base[:1]
    exact_scores, exact_ids = index.search(query, 2)
    assert list(exact_ids[0]) == [0, 20]  # the query's own row and its first copy, ties by row id
    found_ids = np.array([40, 60])  # an approximate index returns the other two copies: other ids, same scores
    found_scores = corpus[found_ids] @ query[0]
    assert not set(found_ids) & set(exact_ids[0])  # by passage id recall would be 0.0
    assert recall_with_ties(found_scores, exact_scores[0]) == 1.0


def test_misses_and_edges():
    """recall_with_ties: misses, the tolerance, never above 1, and an empty exact list refused."""
    assert recall_with_ties([0.9, 0.5, 0.1], [0.9, 0.8, 0.7]) == pytest.approx(1 / 3)
    assert recall_with_ties([0.7 - 1e-8], [0.9, 0.7]) == 0.5  # within tolerance
    assert recall_with_ties([0.9] * 5, [0.9, 0.9]) == 1.0  # never above 1
    assert recall_with_ties([], [0.9]) == 0.0
    with pytest.raises(ValueError, match="empty"):
        recall_with_ties([0.9], [])

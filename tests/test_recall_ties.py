"""HNSW recall counts a returned copy tied with the exact top k as a hit (issue 15, scale 100x)."""

import numpy as np
import pytest

from ddrsearch.retrieval.vectorindex import NumpyIndex, recall_with_ties


def test_tied_copies_count_as_hits():
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
    assert recall_with_ties([0.9, 0.5, 0.1], [0.9, 0.8, 0.7]) == pytest.approx(1 / 3)
    assert recall_with_ties([0.7 - 1e-8], [0.9, 0.7]) == 0.5  # within tolerance
    assert recall_with_ties([0.9] * 5, [0.9, 0.9]) == 1.0  # never above 1
    assert recall_with_ties([], [0.9]) == 0.0
    with pytest.raises(ValueError, match="empty"):
        recall_with_ties([0.9], [])

"""ddrsearch.retrieval.dense: dense search on the real sample."""

from __future__ import annotations

import pytest

from ddrsearch.retrieval.dense import DenseRetriever

pytestmark = [pytest.mark.data, pytest.mark.model]


STUCK = "pipe became stuck during the slide"


@pytest.fixture(scope="module")
def dense(sample, tmp_path_factory):
    return DenseRetriever(cache_dir=tmp_path_factory.mktemp("emb")).index(sample)


def test_dense_search_is_repeatable(dense):
    a = dense.search(STUCK, k=10)
    b = dense.search(STUCK, k=10)
    assert [(h.report, h.score) for h in a] == [(h.report, h.score) for h in b]
    assert len(a) == 10  # dense retrieval scores every report
    assert all(-1.0 <= h.score <= 1.0 for h in a)


def test_dense_matrix_is_column_major_and_scores_as_the_row_major_product(dense):
    """The passage matrix is stored column-major (the faster product); its scores are the row-major ones to 1e-6."""
    import numpy as np

    assert dense.matrix.flags.f_contiguous and dense.matrix.dtype == np.float32
    row_major = np.ascontiguousarray(dense.matrix) @ dense.embed_query(STUCK)
    np.testing.assert_allclose(dense.passage_scores(STUCK), row_major, rtol=0, atol=1e-6)

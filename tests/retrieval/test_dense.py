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

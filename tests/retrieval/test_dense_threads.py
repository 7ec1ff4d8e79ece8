"""ddrsearch.retrieval.dense: a question's products on one BLAS thread, and the process's setting left as it was."""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.retrieval.dense import BLAS_THREADS, scores_one_thread


def test_the_product_on_one_thread_equals_the_exact_one():
    """The scores are the dot products (to float32 rounding), for either memory order of the matrix."""
    rng = np.random.default_rng(0)
    matrix = rng.standard_normal((5000, 384)).astype(np.float32)
    vector = rng.standard_normal(384).astype(np.float32)
    exact = matrix.astype(np.float64) @ vector.astype(np.float64)
    for m in (matrix, np.asfortranarray(matrix)):
        got = scores_one_thread(m, vector)
        assert got.dtype == np.float32 and got.shape == (5000,)
        assert np.max(np.abs(got - exact)) < 1e-4


def test_the_blas_threads_are_restored_after_the_product():
    """Only the product runs on BLAS_THREADS: the process's BLAS threads are as before after it."""
    threadpoolctl = pytest.importorskip("threadpoolctl")
    before = [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"]
    scores_one_thread(np.ones((10, 4), dtype=np.float32), np.ones(4, dtype=np.float32))
    assert [i["num_threads"] for i in threadpoolctl.threadpool_info() if i["user_api"] == "blas"] == before
    assert BLAS_THREADS == 1

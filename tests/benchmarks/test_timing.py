"""benchmarks/_timing.py: the one copy of the benchmarks' timing and memory helpers."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import _timing


class _CountingEmbedder(Embedder):
    """An Embedder whose model is a counter: encode_query's in-memory cache is the real one."""

    def __init__(self):
        self.calls = 0

    def encode_uncached(self, texts):
        self.calls += len(texts)
        return np.ones((len(texts), 3), dtype=np.float32)


def test_median_p95_uses_the_benchmarks_nearest_rank_rule():
    values = list(range(100, 0, -1))  # 100 .. 1, unsorted on purpose
    assert _timing.median_p95(values) == (50.5, 95)  # sorted[int(0.95 * 99)] = sorted[94] = 95
    assert _timing.median_p95([7.0]) == (7.0, 7.0)
    with pytest.raises(ValueError):
        _timing.median_p95([])


def test_clear_query_cache_reaches_the_embedder_under_an_index_or_a_wrapper():
    emb = _CountingEmbedder()
    index = SimpleNamespace(retriever=SimpleNamespace(dense=SimpleNamespace(embedder=emb)))
    emb.encode_query("stuck pipe")
    emb.encode_query("stuck pipe")
    assert emb.calls == 1  # the second came from the in-memory cache
    assert _timing.clear_query_cache(index) == 1
    emb.encode_query("stuck pipe")
    assert emb.calls == 2  # embedded again: the query's embedding counts in its latency
    wrapped = SimpleNamespace(embedder=SimpleNamespace(inner=emb))  # bench_postgres's _SharedVectors
    assert _timing.clear_query_cache(wrapped) == 1
    assert _timing.clear_query_cache(wrapped) == 0  # nothing cached any more


def test_query_latency_times_every_query_and_clears_before_each():
    seen, cleared = [], []
    median, p95 = _timing.query_latency(seen.append, ["a", "b", "c"], lambda: cleared.append(1), warmup=2)
    assert seen == ["a", "b", "a", "b", "c"]  # two untimed warm-up calls, then each query once
    assert len(cleared) == 3
    assert 0 <= median <= p95


@pytest.mark.data
def test_benchmark_queries_vary_the_archive_questions():
    qs = _timing.benchmark_queries(200)
    assert len(qs) == len(set(qs)) == 200  # distinct, so no query-cache hit between them
    n = len(set(_timing.benchmark_queries(1000, suffixes=("",))))  # the archive questions, repeated
    plain = _timing.benchmark_queries(n + 5, suffixes=("",))
    assert plain[n:] == plain[:5] and "stuck pipe" in plain
    assert qs[:n] == plain[:n] and qs[n] == plain[0] + _timing.QUERY_SUFFIXES[1]


def test_verdict_says_met_only_at_or_under_the_target():
    assert [_timing.verdict(v, 1.0) for v in (0.5, 1.0, 1.5)] == ["met", "met", "NOT MET"]

"""ddrsearch.embedding.encoder.Embedder.clear_query_cache: the public way to make the next query run the model.

Defect pinned: chapter 14's profile showed query encoding at 0.01 ms, a cache
hit, because its cell popped ``_query_cache`` from the dense retriever while
the cache lives on the ``Embedder``; there was no public method to clear it.
"""

from __future__ import annotations

import numpy as np

from ddrsearch.embedding.encoder import Embedder


class _CountingEmbedder(Embedder):
    """An Embedder whose model is a counter; encode_query's in-memory cache is the real one."""

    def __init__(self):  # no model to resolve: encode_uncached below stands in for it
        self.calls = 0

    def encode_uncached(self, texts):
        self.calls += len(texts)
        return np.ones((len(texts), 3), dtype=np.float32)


def test_clearing_the_query_cache_makes_the_next_query_run_the_model():
    emb = _CountingEmbedder()
    assert emb.clear_query_cache() == 0  # nothing asked yet
    emb.encode_query("stuck pipe")
    emb.encode_query("stuck pipe")
    emb.encode_query("lost circulation")
    assert emb.calls == 2  # the repeat came from memory
    assert emb.clear_query_cache() == 2
    emb.encode_query("stuck pipe")
    assert emb.calls == 3  # embedded again
    assert emb.clear_query_cache() == 1
    assert emb.clear_query_cache() == 0

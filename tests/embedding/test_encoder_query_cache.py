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


def test_query_text_writes_full_width_letters_plainly_and_drops_format_characters():
    """What the question's encoder embeds: NFKC, without Cf (bidi controls, zero-width space, soft hyphen)."""
    from ddrsearch.embedding.encoder import query_text

    assert query_text("ｓｔｕｃｋ ｐｉｐｅ") == "stuck pipe"
    assert query_text("\u202estuck\u202c pipe\u200b") == "stuck pipe"
    assert query_text("\u2066stuck\u2069 pi\u00adpe \ufeff6,507'") == "stuck pipe 6,507'"
    assert query_text("Stuck at 6,507' [D038]") == "Stuck at 6,507' [D038]"  # plain text unchanged, case kept

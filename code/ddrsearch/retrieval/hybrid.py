"""Hybrid retrieval: BM25 and dense search over the same passages, fused per query.

The fusion formulas (reciprocal rank fusion, convex combination of min-max
normalised scores) and their sources are in :mod:`ddrsearch.retrieval.fusion`; this
module runs both legs and applies them to every passage at once.
"""

from __future__ import annotations

import numpy as np

from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.fusion import RRF_K, Fusion
from ddrsearch.retrieval.legs import TwoLegRetriever
from ddrsearch.retrieval.lexical import BM25Retriever

__all__ = ["HybridRetriever"]


class HybridRetriever(TwoLegRetriever):
    """BM25 and dense retrieval over the same passages, fused per query.

    Args:
        fusion: ``"convex"`` (min-max normalised convex combination, the
            book's default) or ``"rrf"`` (reciprocal rank fusion).
        weight: dense weight for ``"convex"`` (0 = pure BM25, 1 = pure dense).
        rrf_k: the RRF constant.
        candidates: passages each leg contributes per query (default 100;
            ``None``: all). Only reports with a passage among either leg's top
            ``candidates`` are returned at all, so a report both legs rank
            low is absent from the fused list (as in any fusion of top-N
            lists); this bounds recall and average precision, not the top of
            the list.
        bm25, dense: ready-made legs to share (not yet indexed, or indexed on
            the same passages); default new ones. BM25 options
            (``k1``, ``b``, ``expand``) and dense options (``model_path``,
            ``cache_dir``, ``embedder``) can be passed through ``bm25_options``
            and ``dense_options``.
        rollup: see :class:`~ddrsearch.retrieval.base.Retriever`.

    Fusion happens on passages; the base class then rolls passages up to
    reports, so a hit keeps the chunk that earned it.
    """

    name = "hybrid"

    def __init__(self, *, fusion: str = "convex", weight: float = 0.5, rrf_k: int = RRF_K, candidates: int | None = 100,
                 bm25: BM25Retriever | None = None, dense: DenseRetriever | None = None,
                 bm25_options: dict | None = None, dense_options: dict | None = None, rollup: str = "max"):
        super().__init__(rollup)
        self.fuser = Fusion(fusion, weight, rrf_k, candidates)  # checks the four
        self.fusion, self.weight, self.rrf_k, self.candidates = fusion, weight, rrf_k, candidates
        self.bm25 = bm25 or BM25Retriever(**(bm25_options or {}))
        self.dense = dense or DenseRetriever(**(dense_options or {}))

    def with_weight(self, weight: float, fusion: str | None = None) -> HybridRetriever:
        """A new hybrid retriever sharing this one's indexed legs, with another weight (cheap: no re-indexing)."""
        other = HybridRetriever(fusion=fusion or self.fusion, weight=weight, rrf_k=self.rrf_k, candidates=self.candidates,
                                bm25=self.bm25, dense=self.dense, rollup=self.rollup)
        other.passages = self.passages
        return other.attach_reports(self.reports.values())

    def leg_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The BM25 and dense passage scores for ``query`` (nan = not retrieved)."""
        return self.bm25.passage_scores(query), self.dense.passage_scores(query)

    def passage_scores(self, query: str) -> np.ndarray:
        """Fused passage scores (``nan`` outside the candidate union), by :class:`~ddrsearch.retrieval.fusion.Fusion`.

        A test checks it against the dictionary forms :func:`rrf_scores` / :func:`convex_scores`.
        """
        b, v = self.leg_scores(query)
        return self.fuser.scores(b, v, self.top_passages)

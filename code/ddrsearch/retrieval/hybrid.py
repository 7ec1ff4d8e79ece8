"""Hybrid retrieval: BM25 and dense search over the same passages, fused per query.

The fusion formulas (reciprocal rank fusion, convex combination of min-max
normalised scores) and their sources are in :mod:`ddrsearch.retrieval.fusion`; this
module runs both legs and applies them to every passage at once.
"""

from __future__ import annotations

import numpy as np

from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.fusion import RRF_K
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import Passage

__all__ = ["HybridRetriever"]


class HybridRetriever(Retriever):
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
        if fusion not in ("convex", "rrf"):
            raise ValueError(f"fusion must be 'convex' or 'rrf', not {fusion!r}")
        if not 0.0 <= weight <= 1.0:
            raise ValueError(f"weight must be between 0 (pure BM25) and 1 (pure dense), got {weight}")
        if candidates is not None and (isinstance(candidates, bool) or not isinstance(candidates, int) or candidates < 1):
            raise ValueError(f"candidates must be a whole number of at least 1 (or None for all), got {candidates!r}")
        if rrf_k < 0:
            raise ValueError(f"the RRF constant rrf_k must be >= 0, got {rrf_k}")
        self.fusion, self.weight, self.rrf_k, self.candidates = fusion, weight, rrf_k, candidates
        self.bm25 = bm25 or BM25Retriever(**(bm25_options or {}))
        self.dense = dense or DenseRetriever(**(dense_options or {}))

    def _fit(self, passages: list[Passage]) -> None:
        for leg in (self.bm25, self.dense):
            if [p.passage_id for p in leg.passages] != [p.passage_id for p in passages]:
                leg.index(passages)
            leg._reports = self._reports

    def with_weight(self, weight: float, fusion: str | None = None) -> HybridRetriever:
        """A new hybrid retriever sharing this one's indexed legs, with another weight (cheap: no re-indexing)."""
        other = HybridRetriever(fusion=fusion or self.fusion, weight=weight, rrf_k=self.rrf_k, candidates=self.candidates,
                                bm25=self.bm25, dense=self.dense, rollup=self.rollup)
        other.passages, other._reports = self.passages, self._reports
        return other

    def leg_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The BM25 and dense passage scores for ``query`` (nan = not retrieved)."""
        return self.bm25.passage_scores(query), self.dense.passage_scores(query)

    def passage_scores(self, query: str) -> np.ndarray:
        """Fused passage scores (``nan`` outside the candidate union).

        Array form of :func:`rrf_scores` / :func:`convex_scores` over
        passages: each leg's top ``candidates`` passages (ties by report
        name, then passage id), min-max normalised over the union for the
        convex combination. A test checks it against the dictionary forms.
        """
        b, v = self.leg_scores(query)
        n = len(self.passages)
        out = np.full(n, np.nan)
        if self.fusion == "rrf":
            fused = np.zeros(n)
            member = np.zeros(n, dtype=bool)
            for leg in (b, v):
                top = self.top_passages(leg, self.candidates)
                fused[top] += 1.0 / (self.rrf_k + np.arange(1, len(top) + 1))
                member[top] = True
            out[member] = fused[member]
            return out
        union = np.zeros(n, dtype=bool)
        if self.weight < 1.0:
            union[self.top_passages(b, self.candidates)] = True
        if self.weight > 0.0:
            union[self.top_passages(v, self.candidates)] = True
        ids = np.flatnonzero(union)  # work on the union only: a few hundred passages, not every one
        fused = np.zeros(len(ids))
        for leg, w in ((b, 1.0 - self.weight), (v, self.weight)):
            values = leg[ids]
            present = ~np.isnan(values)
            if not present.any():
                continue
            lo, hi = values[present].min(), values[present].max()
            norm = np.ones(len(ids)) if hi == lo else (values - lo) / (hi - lo)
            fused[present] += w * norm[present]
        out[ids] = fused
        return out

    def best_line(self, query, report):
        return self.dense.best_line(query, report) if self.weight >= 0.5 else self.bm25.best_line(query, report)

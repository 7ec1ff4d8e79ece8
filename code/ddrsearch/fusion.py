"""Hybrid retrieval: fuse a BM25 ranking and a dense ranking.

Two ways, both per query:

* **Reciprocal rank fusion** (RRF; Cormack, Clarke and Buettcher, "Reciprocal
  rank fusion outperforms Condorcet and individual rank learning methods",
  SIGIR 2009): ``score(d) = sum over legs of 1 / (k + rank_leg(d))`` with
  ``k = 60``, summed over the legs whose candidate list holds ``d``. It
  needs no tuning and ignores the scores themselves.
* **Convex combination of min-max normalised scores** (Bruch, Gai and
  Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS
  2023): ``score(d) = w * dense_norm(d) + (1 - w) * bm25_norm(d)``, each leg's
  scores min-max normalised over the union of both candidate lists. The
  weight ``w`` (0 = pure BM25, 1 = pure dense) is tuned on development
  questions; Bruch et al. found the tuned combination better than RRF.

In both, a passage that a leg does not retrieve at all (BM25: no query word
in it) earns no credit from that leg. Ties are broken by report name, then
passage id.
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

import numpy as np

from .retrieval import BM25Retriever, DenseRetriever, Passage, Retriever

__all__ = ["RRF_K", "rrf_scores", "minmax_normalise", "convex_scores", "HybridRetriever"]

#: The constant of reciprocal rank fusion (Cormack et al. 2009).
RRF_K = 60


def _ranked(scores: Mapping[str, float], top: int | None) -> list[str]:
    items = [(d, s) for d, s in scores.items() if s is not None and not math.isnan(s)]
    items.sort(key=lambda t: (-t[1], t[0]))
    return [d for d, _ in (items if top is None else items[:top])]


def rrf_scores(rankings: Sequence[Sequence[str]], k: int = RRF_K) -> dict[str, float]:
    """Reciprocal rank fusion of ranked lists.

    Args:
        rankings: one ranked list of ids per leg, best first (rank 1).
        k: the RRF constant (default 60).

    Returns:
        id -> sum over the lists containing it of ``1 / (k + rank)``.

    Raises:
        ValueError: ``k < 0``, or an id twice in one list.

    >>> rrf_scores([["a", "b"], ["b", "c"]], k=60) == {"a": 1/61, "b": 1/62 + 1/61, "c": 1/62}
    True
    """
    if k < 0:
        raise ValueError(f"the RRF constant k must be >= 0, got {k}")
    out: dict[str, float] = {}
    for ranking in rankings:
        if len(set(ranking)) != len(ranking):
            raise ValueError("an id appears twice in one ranked list")
        for rank, d in enumerate(ranking, start=1):
            out[d] = out.get(d, 0.0) + 1.0 / (k + rank)
    return out


def minmax_normalise(scores: Mapping[str, float], over: Sequence[str]) -> dict[str, float]:
    """Min-max normalise ``scores`` to [0, 1] over the ids in ``over`` that have a score.

    Ids in ``over`` without a score (not retrieved by this leg) are left out
    (no credit). When every score is equal (max = min) each retrieved id gets
    1.0: there is nothing to tell them apart, and no division by zero.
    """
    present = {d: scores[d] for d in over if d in scores and scores[d] is not None and not math.isnan(scores[d])}
    if not present:
        return {}
    lo, hi = min(present.values()), max(present.values())
    if hi == lo:
        return {d: 1.0 for d in present}
    return {d: (s - lo) / (hi - lo) for d, s in present.items()}


def convex_scores(bm25: Mapping[str, float], dense: Mapping[str, float], weight: float,
                  candidates: int | None = 100) -> dict[str, float]:
    """Convex combination ``weight * dense_norm + (1 - weight) * bm25_norm``.

    Args:
        bm25, dense: id -> score of each leg (ids a leg does not retrieve are absent or nan).
        weight: weight of the dense leg, 0 (pure BM25) to 1 (pure dense).
        candidates: each leg contributes its top ``candidates`` ids (None: all)
            to the candidate union; a leg with weight 0 contributes none, so
            weight 0 gives exactly the BM25 ranking and weight 1 the dense one.

    Returns:
        id -> fused score, for every id in the candidate union.

    Raises:
        ValueError: ``weight`` outside [0, 1].
    """
    if not 0.0 <= weight <= 1.0:
        raise ValueError(f"weight must be between 0 (pure BM25) and 1 (pure dense), got {weight}")
    union: list[str] = []
    if weight < 1.0:
        union += _ranked(bm25, candidates)
    if weight > 0.0:
        union += [d for d in _ranked(dense, candidates) if d not in set(union)]
    b = minmax_normalise(bm25, union)
    v = minmax_normalise(dense, union)
    return {d: (1.0 - weight) * b.get(d, 0.0) + weight * v.get(d, 0.0) for d in union}


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
        rollup: see :class:`~ddrsearch.retrieval.Retriever`.

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

    def with_weight(self, weight: float, fusion: str | None = None) -> "HybridRetriever":
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
        fused = np.zeros(n)
        for leg, w in ((b, 1.0 - self.weight), (v, self.weight)):
            present = union & ~np.isnan(leg)
            if not present.any():
                continue
            lo, hi = leg[present].min(), leg[present].max()
            norm = np.ones(n) if hi == lo else (leg - lo) / (hi - lo)
            fused[present] += w * norm[present]
        out[union] = fused[union]
        return out

    def best_line(self, query, report):
        return self.dense.best_line(query, report) if self.weight >= 0.5 else self.bm25.best_line(query, report)

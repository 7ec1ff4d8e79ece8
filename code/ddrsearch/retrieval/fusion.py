"""Fusion functions: combine a BM25 ranking and a dense ranking into one.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["RRF_K", "Fusion", "convex_scores", "minmax_normalise", "minmax_normalize", "rrf_scores"]

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


def minmax_normalize(scores: Mapping[str, float], over: Sequence[str]) -> dict[str, float]:
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
    b = minmax_normalize(bm25, union)
    v = minmax_normalize(dense, union)
    return {d: (1.0 - weight) * b.get(d, 0.0) + weight * v.get(d, 0.0) for d in union}


#: The British spelling, kept for code written against earlier versions.
minmax_normalise = minmax_normalize


@dataclass(frozen=True)
class Fusion:
    """How a hybrid retriever fuses its two legs' passage scores: the array form of :func:`rrf_scores` and
    :func:`convex_scores` over every passage at once.

    Attributes:
        kind: ``"convex"`` (min-max normalised convex combination) or ``"rrf"``.
        weight: the dense weight of ``"convex"``, 0 (pure BM25) to 1 (pure dense).
        rrf_k: the RRF constant.
        candidates: passages each leg contributes (``None``: every passage).

    Raises:
        ValueError: an unknown kind, a weight outside [0, 1], ``rrf_k < 0``, or
            ``candidates`` not a whole number of at least 1 (nor ``None``).
    """

    kind: str = "convex"
    weight: float = 0.5
    rrf_k: int = RRF_K
    candidates: int | None = 100

    def __post_init__(self):
        if self.kind not in ("convex", "rrf"):
            raise ValueError(f"fusion must be 'convex' or 'rrf', not {self.kind!r}")
        if not 0.0 <= self.weight <= 1.0:
            raise ValueError(f"weight must be between 0 (pure BM25) and 1 (pure dense), got {self.weight}")
        c = self.candidates
        if c is not None and (isinstance(c, bool) or not isinstance(c, int) or c < 1):
            raise ValueError(f"candidates must be a whole number of at least 1 (or None for all), got {c!r}")
        if self.rrf_k < 0:
            raise ValueError(f"the RRF constant rrf_k must be >= 0, got {self.rrf_k}")

    def scores(self, bm25: np.ndarray, dense: np.ndarray,
               top: Callable[[np.ndarray, int | None], np.ndarray]) -> np.ndarray:
        """Fused scores of every passage (``nan`` outside the candidate union).

        Args:
            bm25, dense: each leg's passage scores, shape ``(n,)`` (``nan``: not retrieved).
            top: ``(scores, n) -> positions`` of the ``n`` best passages, ties
                broken by report name then passage id (the retriever's
                :meth:`~ddrsearch.retrieval.base.Retriever.top_passages`).

        Returns:
            Array of shape ``(n,)``; for ``"convex"`` each leg is min-max
            normalised over the union of both legs' top ``candidates``.
        """
        n = len(bm25)
        out = np.full(n, np.nan)
        if self.kind == "rrf":
            fused = np.zeros(n)
            member = np.zeros(n, dtype=bool)
            for leg in (bm25, dense):
                best = top(leg, self.candidates)
                fused[best] += 1.0 / (self.rrf_k + np.arange(1, len(best) + 1))
                member[best] = True
            out[member] = fused[member]
            return out
        union = np.zeros(n, dtype=bool)
        for leg, used in ((bm25, self.weight < 1.0), (dense, self.weight > 0.0)):
            if not used:
                continue
            if self.candidates is None:  # every retrieved passage: no need to ask for them in order
                union |= ~np.isnan(leg)
            else:
                union[top(leg, self.candidates)] = True
        every = bool(union.all())  # candidates=None: every passage, so no copy of the union's part
        ids = slice(None) if every else np.flatnonzero(union)  # else a few hundred passages, not every one
        fused = np.zeros(n if every else len(ids))
        for leg, w in ((bm25, 1.0 - self.weight), (dense, self.weight)):
            values = leg[ids]
            present = ~np.isnan(values)
            if not present.any():
                continue
            lo, hi = np.fmin.reduce(values), np.fmax.reduce(values)  # nan left out: the present values' range
            norm = np.ones(len(values)) if hi == lo else (values - lo) / (hi - lo)
            # 0 + x is x, so adding where present equals adding to the present positions alone
            fused += np.where(present, w * norm, 0.0)
        out[ids] = fused
        return out

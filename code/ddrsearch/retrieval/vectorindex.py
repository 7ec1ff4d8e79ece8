"""Nearest-neighbour search over embedding vectors: exact with numpy, or with FAISS.

All indexes take unit-length float32 vectors, so the inner product is the
cosine similarity, and answer ``search(queries, k)`` with the ``k`` best
scores and row ids per query.

* :class:`NumpyIndex`: exact; one matrix product, then a partial sort. Ties
  are broken by row id ascending (rows are added in report-name order by the
  retrievers, so this is the package's tie rule).
* :class:`FaissFlatIndex`: exact, FAISS ``IndexFlatIP`` (Johnson, Douze and
  Jégou, "Billion-scale similarity search with GPUs", 2019). Same results as
  numpy up to float rounding. Whether it is faster than numpy depends on the
  machine and the batch size: on the 2-core machine that built the book it
  was not (chapters/08-whole-archive.ipynb measures it); its value is the family of indexes it
  belongs to.
* :class:`FaissHNSWIndex`: approximate, FAISS ``IndexHNSWFlat`` (Malkov and
  Yashunin, "Efficient and robust approximate nearest neighbor search using
  Hierarchical Navigable Small World graphs", IEEE TPAMI 2020). Sub-linear
  query time, at the price of build time and a small loss of recall.
"""

from __future__ import annotations

import numpy as np

__all__ = ["FaissFlatIndex", "FaissHNSWIndex", "NumpyIndex", "make_index", "recall_with_ties"]


def _as_matrix(x: np.ndarray, name: str) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    if x.ndim == 1:
        x = x[None, :]
    if x.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array (n, dim), got shape {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError(f"{name} holds NaN or infinite values")
    return x


class NumpyIndex:
    """Exact inner-product search with numpy.

    Args:
        vectors: float array of shape ``(n, dim)``, one unit vector per row.
    """

    kind = "numpy exact"

    def __init__(self, vectors: np.ndarray):
        self.vectors = _as_matrix(vectors, "vectors")

    def __len__(self) -> int:
        return self.vectors.shape[0]

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(scores, ids)``, each of shape ``(n_queries, min(k, n))``, best first.

        Raises:
            ValueError: ``k < 1``, or a query of the wrong dimension.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        q = _as_matrix(queries, "queries")
        if q.shape[1] != self.vectors.shape[1]:
            raise ValueError(f"queries have dimension {q.shape[1]}, the index {self.vectors.shape[1]}")
        sims = q @ self.vectors.T
        k = min(k, sims.shape[1])
        scores = np.empty((q.shape[0], k), dtype=np.float32)
        ids = np.empty((q.shape[0], k), dtype=np.int64)
        for i, row in enumerate(sims):
            if k < row.shape[0]:
                # keep everything tied with the k-th score, then sort exactly
                kth = np.partition(row, -k)[-k]
                cand = np.flatnonzero(row >= kth)
            else:
                cand = np.arange(row.shape[0])
            order = cand[np.lexsort((cand, -row[cand]))][:k]
            ids[i], scores[i] = order, row[order]
        return scores, ids


class FaissFlatIndex:
    """Exact inner-product search with FAISS ``IndexFlatIP``."""

    kind = "faiss flat (exact)"

    def __init__(self, vectors: np.ndarray):
        import faiss

        v = _as_matrix(vectors, "vectors")
        self.index = faiss.IndexFlatIP(v.shape[1])
        self.index.add(v)

    def __len__(self) -> int:
        return self.index.ntotal

    def search(self, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Return ``(scores, ids)``, each ``(n_queries, min(k, n))``, best first (FAISS's own tie order)."""
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        q = _as_matrix(queries, "queries")
        scores, ids = self.index.search(q, min(k, len(self)))
        return scores, ids.astype(np.int64)


class FaissHNSWIndex(FaissFlatIndex):
    """Approximate inner-product search with FAISS ``IndexHNSWFlat``.

    Args:
        vectors: ``(n, dim)`` unit vectors.
        m: graph neighbours per node (default 32).
        ef_search: candidate list size at query time (default 64; larger is
            slower and more accurate).
        ef_construction: candidate list size while building (default 80).
    """

    kind = "faiss HNSW (approximate)"

    def __init__(self, vectors: np.ndarray, m: int = 32, ef_search: int = 64, ef_construction: int = 80):
        import faiss

        v = _as_matrix(vectors, "vectors")
        self.index = faiss.IndexHNSWFlat(v.shape[1], m, faiss.METRIC_INNER_PRODUCT)
        self.index.hnsw.efConstruction = ef_construction
        self.index.hnsw.efSearch = ef_search
        self.index.add(v)


def make_index(kind: str, vectors: np.ndarray, **options):
    """Build an index by name: ``"numpy"``, ``"faiss-flat"`` or ``"faiss-hnsw"``.

    Raises:
        ValueError: unknown kind.
    """
    kinds = {"numpy": NumpyIndex, "faiss-flat": FaissFlatIndex, "faiss-hnsw": FaissHNSWIndex}
    if kind not in kinds:
        raise ValueError(f"Unknown index kind {kind!r}; choose one of {', '.join(kinds)}.")
    return kinds[kind](vectors, **options)


def recall_with_ties(found_scores, exact_scores, tol: float = 1e-6) -> float:
    """Recall of an approximate top k against the exact top k, counting ties as hits.

    Args:
        found_scores: similarity scores (higher is better, e.g. cosine) of the
            passages the approximate index returned for one query, length <= k.
        exact_scores: scores of the exact top k for the same query, length k >= 1.
        tol: scores closer than this count as equal (float rounding).

    Returns:
        The share in [0, 1] of the exact top k matched: a returned passage
        counts when it scores at least the exact k-th score minus ``tol``, so
        a passage tied with one of the exact list (a copy of it sharing its
        vector) is a hit, not a miss as with passage ids. At most ``k`` count.

    Raises:
        ValueError: ``exact_scores`` is empty.
    """
    exact = [float(s) for s in exact_scores]
    if not exact:
        raise ValueError("recall_with_ties: the exact top k is empty; ask for k >= 1 on a non-empty index")
    kth = min(exact)
    hits = sum(float(s) >= kth - tol for s in found_scores)
    return min(hits, len(exact)) / len(exact)

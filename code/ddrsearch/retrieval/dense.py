"""Dense retrieval: passages and queries as sentence embeddings, ranked by cosine similarity."""

from __future__ import annotations

import contextlib

import numpy as np

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import report_lines

__all__ = ["BLAS_THREADS", "DenseRetriever", "scores_one_thread"]

#: BLAS threads for a question's matrix-vector products (:func:`scores_one_thread`). The product of
#: one vector is bounded by memory, not arithmetic; on a busy 2-core machine a second thread mostly
#: waits to be scheduled: at load 7.5, 60 products each, median / 95th percentile 9.7 / 24.0 ms with
#: 2 threads and 0.47 / 8.5 ms with 1 for the lexicon's 2,838 x 384 vectors, 11.3 / 27.8 ms and
#: 13.8 / 22.1 ms for 76,200 passages. One thread also rounds the same on any number of cores.
BLAS_THREADS = 1


def _blas_limit():
    """A context manager holding numpy's BLAS to :data:`BLAS_THREADS` threads, and restoring each library's after.

    The BLAS libraries are found once (threadpoolctl); each product then only reads and sets their
    thread counts (threadpoolctl's ``limit`` would list every loaded library each time: 0.4 ms a call).
    """
    global _CONTROLLER
    if _CONTROLLER is None:
        try:
            from threadpoolctl import ThreadpoolController

            _CONTROLLER = ThreadpoolController().select(user_api="blas").lib_controllers
        except Exception:  # threadpoolctl missing or unable to read the loaded libraries: BLAS as it is
            _CONTROLLER = False
    if not _CONTROLLER:
        return contextlib.nullcontext()
    return _held(_CONTROLLER)


@contextlib.contextmanager
def _held(libraries):
    changed = []
    for lib in libraries:
        before = lib.num_threads
        if before != BLAS_THREADS:
            lib.set_num_threads(BLAS_THREADS)
            changed.append((lib, before))
    try:
        yield
    finally:
        for lib, before in changed:
            lib.set_num_threads(before)


_CONTROLLER = None


def scores_one_thread(matrix: np.ndarray, vector: np.ndarray) -> np.ndarray:
    """``matrix @ vector`` with numpy's BLAS held to :data:`BLAS_THREADS` thread(s) for the product.

    Args:
        matrix: float32 array ``(n, dim)`` (any memory order); vector: float32 array ``(dim,)``.

    Returns:
        float32 array ``(n,)``: the dot products (their float32 sums may round in another order than
        a product on more threads, by about 1e-7).
    """
    with _blas_limit():
        return matrix @ vector


class DenseRetriever(Retriever):
    """Dense retrieval: cosine similarity of sentence embeddings (all-MiniLM-L6-v2).

    Passages and the query are embedded with :class:`ddrsearch.embedding.encoder.Embedder`
    (normalised vectors, so the dot product is the cosine); passage vectors are
    cached on disk. Every passage gets a score, so every report is retrieved.
    The model reads only the first 254 word pieces of each passage
    (:data:`ddrsearch.embedding.model.CONTENT_PIECES`); a whole report is cut off
    long before its TIME BREAKDOWN (chapters/04-searching-by-meaning.ipynb).

    Args:
        model_path: explicit model folder (see :func:`ddrsearch.embedding.model.resolve_model`).
        cache_dir: embedding cache folder; ``False`` disables the cache.
        embedder: an existing :class:`~ddrsearch.embedding.encoder.Embedder` to share.
        adapter: ``True`` = embed through the packaged linear adapter
            (:class:`ddrsearch.retrieval.adaptation.AdaptedEmbedder`, SHA-256 checked);
            a path or a matrix = that adapter; ``None``/``False`` = the plain
            model. Ignored when ``embedder`` is given.
        rollup: see :class:`Retriever`.
    """

    name = "dense"

    def __init__(self, *, model_path=None, cache_dir=None, embedder=None, adapter=None, rollup: str = "max"):
        super().__init__(rollup)
        if embedder is None and adapter is not None and adapter is not False:
            from ddrsearch.retrieval.adaptation import AdaptedEmbedder

            embedder = AdaptedEmbedder(adapter=None if adapter is True else adapter,
                                       model_path=model_path, cache_dir=cache_dir)
        self.embedder = embedder if embedder is not None else Embedder(model_path=model_path, cache_dir=cache_dir)

    def _fit(self, passages):
        # column-major (Fortran order): the matrix-vector product of every query then streams each of the
        # 384 columns once, about twice as fast as the row-major product at 77,100 passages on a 2-core
        # machine (benchmarks/bench_retrievers.py); the same dot products, their float32 sums possibly
        # rounded in another order (differences of the order of 1e-7)
        self.matrix = np.asfortranarray(self.embedder.encode([p.indexed_text for p in passages]), dtype=np.float32)

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit vector, shape ``(384,)``.

        Queries are not written to the disk cache (it would fill with one-off
        questions); the last 256 are kept in memory.
        """
        return self.embedder.encode_query(query)

    def passage_scores(self, query):
        return scores_one_thread(self.matrix, self.embed_query(query)).astype(float)

    def best_line(self, query, report):
        lines = report_lines(report)
        if not lines:
            return None
        sims = self.embedder.encode([line.text for line in lines]) @ self.embed_query(query)
        return lines[int(np.argmax(sims))]


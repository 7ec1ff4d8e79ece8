"""Sentence embeddings for DDR text, with an offline model and an on-disk cache.

The dense retrievers of the book embed report text with the sentence-transformers
model ``sentence-transformers/all-MiniLM-L6-v2`` (model card:
https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2; library docs:
https://www.sbert.net). Each text becomes one 384-dimensional float32 vector of
unit length (mean pooling over the word-piece vectors, then L2 normalisation),
so the dot product of two vectors is their cosine similarity.

The model itself (which copy, checked by SHA-256) comes from
:mod:`ddrsearch.embedding.model`; only the first :data:`~ddrsearch.embedding.model.CONTENT_PIECES`
= 254 word pieces of a text are seen (:meth:`Embedder.truncation_report`).

Cache: :class:`Embedder` stores every vector as its own ``.npy`` file under
``<cache_dir>/<model key>/<h[:2]>/<h>.npy`` where ``h`` is the SHA-256 of the
exact text (UTF-8). Files are written atomically and read with
``numpy.load(..., allow_pickle=False)``; nothing is ever unpickled.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sys
import tempfile
import unicodedata
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np

from ddrsearch import settings
from ddrsearch.embedding.model import (  # noqa: F401  (re-exported: the names the book's chapters import from here)
    CONTENT_PIECES,
    EMBEDDING_DIM,
    MAX_SEQ_LENGTH,
    MODEL_NAME,
    OFFICIAL_SHA256,
    ModelSource,
    load_source,
    resolve_model,
)
from ddrsearch.errors import CacheWarning, OnnxExportError, QueryEncoderWarning, SettingError
from ddrsearch.hashing import text_sha256

if TYPE_CHECKING:  # heavy imports (torch, transformers) only when a model is loaded
    import pandas as pd
    from sentence_transformers import SentenceTransformer

    from ddrsearch.embedding.onnx_encoder import OnnxQueryEncoder

__all__ = [
    "CACHE_DIR_ENV",
    "QUERY_ENCODER_ENV",
    "QUERY_THREADS",
    "CacheWarning",
    "Embedder",
    "OnnxPassageEmbedder",
    "count_word_pieces",
    "default_cache_dir",
    "embedding_progress",
    "passage_embedder",
    "query_text",
    "query_threads",
    "truncation_report",
]

#: Whether the model's batches show progress on standard error (set by :func:`embedding_progress`).
_PROGRESS: contextvars.ContextVar[bool] = contextvars.ContextVar("ddrsearch_embedding_progress", default=False)


@contextlib.contextmanager
def embedding_progress(show: bool = True):
    """Within the ``with`` block, the model's work is shown on standard error: a line saying how many
    texts it embeds (those not in the cache), then sentence-transformers' progress bar over its batches.

    The batches are the ones the model runs anyway, so the vectors are the same with and without it;
    texts found in the cache show nothing. ``show=False`` leaves the block silent.
    """
    token = _PROGRESS.set(bool(show))
    try:
        yield
    finally:
        _PROGRESS.reset(token)


def query_text(query: str) -> str:
    """``query`` as a question is embedded: Unicode NFKC, format characters (category Cf) removed.

    NFKC writes full-width ``ｓｔｕｃｋ ｐｉｐｅ`` as ``stuck pipe`` (and ``ﬁ`` as
    ``fi``); Cf holds the bidirectional controls (U+202A-U+202E, U+2066-U+2069),
    zero-width spaces and joiners, the soft hyphen and the BOM. The BM25 side
    does the same in :func:`ddrsearch.text.words.normalize`, so a question typed
    either way is searched and answered as the plain one.

    >>> query_text("\u202e\uff53\uff54\uff55\uff43\uff4b pi\u00adpe\u200b")
    'stuck pipe'
    """
    return unicodedata.normalize("NFKC", "".join(ch for ch in query if unicodedata.category(ch) != "Cf"))


#: Environment variable naming the embedding cache folder.
CACHE_DIR_ENV = "DDRSEARCH_CACHE_DIR"
#: Environment variable choosing how a question is embedded: ``onnx`` (default) or ``torch``.
QUERY_ENCODER_ENV = "DDRSEARCH_QUERY_ENCODER"


def default_cache_dir() -> Path:
    """Default folder of the embedding cache.

    Returns:
        ``$DDRSEARCH_CACHE_DIR`` if set; else ``<project root>/.cache/embeddings``
        where the project root is the nearest folder above this file with the
        ddrsearch ``pyproject.toml`` (an editable/source checkout); else
        ``~/.cache/ddrsearch/embeddings`` (package installed elsewhere).
        The folder is not created here.
    """
    env = settings.get_path(CACHE_DIR_ENV)
    if env is not None:
        return env
    root = settings.project_root()
    if root is not None:
        return root / ".cache" / "embeddings"
    return Path.home() / ".cache" / "ddrsearch" / "embeddings"




def _check_texts(texts: Sequence[str]) -> list[str]:
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of strings, not a single string; wrap it in a list")
    out = list(texts)
    for i, text in enumerate(out):
        if not isinstance(text, str):
            raise TypeError(f"texts[{i}] is {type(text).__name__}, expected str")
    return out


# ---------------------------------------------------------------------------
# Embedder
# ---------------------------------------------------------------------------

#: PyTorch threads used to embed one question (a short text). A short text gains nothing from
#: a second thread, and on a busy 2-core machine the two wait on each other: measured here
#: with other jobs running, 30 questions, median / 95th percentile 43 / 349 ms with 2 threads,
#: 16 / 49 ms with 1 (the model alone: 39 / 342 ms and 13 / 16 ms).
QUERY_THREADS = 1


@contextlib.contextmanager
def query_threads(n: int = QUERY_THREADS):
    """Let PyTorch use ``n`` threads inside the block (its setting before is restored after).

    Does nothing when PyTorch is not imported yet (nothing to embed with).
    """
    import sys

    torch = sys.modules.get("torch")
    if torch is None:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(n)
    try:
        yield
    finally:
        torch.set_num_threads(before)


class Embedder:
    """Embed texts with all-MiniLM-L6-v2, caching each vector on disk.

    Args:
        model_path: optional explicit model folder (see :func:`resolve_model`).
            The model is resolved (and hash-checked) at construction, but only
            loaded when something has to be embedded or tokenised, so a fully
            cached run does not even import torch.
        cache_dir: folder of the cache; ``None`` = :func:`default_cache_dir`,
            ``False`` = no disk cache.
        batch_size: texts per forward pass (default 32, as sentence-transformers).

    Attributes:
        source: the resolved :class:`ModelSource`.
        cache_dir: cache root (``None`` when disabled).
        hits: texts answered without running the model (from the disk cache,
            or a repeat of a text already embedded in the same call).
        misses: texts actually run through the model.

    Raises:
        ModelNotFoundError, ModelIntegrityError: from :func:`resolve_model`.

    Cache layout: ``<cache_dir>/<source.key>_len256/<h[:2]>/<h>.npy`` with ``h``
    the SHA-256 of the exact text; one float32 vector of shape (384,) per file.
    A changed text has a new hash, hence a new entry; entries that cannot be
    read with ``allow_pickle=False`` or have the wrong shape/dtype are treated
    as misses, overwritten, and reported with a :class:`CacheWarning`.
    """

    def __init__(
        self,
        model_path: str | os.PathLike[str] | None = None,
        cache_dir: str | os.PathLike[str] | Literal[False] | None = None,
        batch_size: int = 32,
    ) -> None:
        self.source = resolve_model(model_path)
        if cache_dir is False:
            self.cache_dir: Path | None = None
        elif cache_dir is None:
            self.cache_dir = default_cache_dir()
        else:
            self.cache_dir = Path(cache_dir).expanduser()
        self.batch_size = int(batch_size)
        self.hits = 0
        self.misses = 0
        self._cache_broken = False
        self._model: SentenceTransformer | None = None
        # The official weights are known to give 384-d vectors; for any other
        # explicit model the dimension is read from the loaded model.
        known = self.source.kind == "hub" or self.source.sha256 == OFFICIAL_SHA256
        self._dim: int | None = EMBEDDING_DIM if known else None

    def __repr__(self) -> str:
        return (
            f"Embedder(source={self.source.kind}:{self.source.location!r}, "
            f"cache_dir={str(self.cache_dir) if self.cache_dir else None!r}, "
            f"hits={self.hits}, misses={self.misses})"
        )

    # -- model -------------------------------------------------------------
    @property
    def model(self) -> SentenceTransformer:
        """The loaded ``SentenceTransformer`` (loaded on first access, CPU)."""
        if self._model is None:
            self._model = load_source(self.source)
        return self._model

    @property
    def dim(self) -> int:
        """Length of each embedding vector (384 for all-MiniLM-L6-v2)."""
        if self._dim is None:
            model = self.model
            get_dim = getattr(model, "get_embedding_dimension", None) or model.get_sentence_embedding_dimension
            self._dim = int(get_dim())
        return self._dim

    @property
    def model_dir(self) -> Path | None:
        """Cache subfolder of this model (``None`` when the cache is disabled)."""
        if self.cache_dir is None:
            return None
        return self.cache_dir / f"{self.source.key}_len{MAX_SEQ_LENGTH}"

    def cache_path(self, text: str) -> Path | None:
        """Path of the cache file for ``text`` (whether or not it exists yet)."""
        base = self.model_dir
        if base is None:
            return None
        digest = text_sha256(text)
        return base / digest[:2] / f"{digest}.npy"

    def reset_counters(self) -> None:
        """Set :attr:`hits` and :attr:`misses` back to 0."""
        self.hits = 0
        self.misses = 0

    # -- cache I/O ---------------------------------------------------------
    def _read(self, path: Path) -> np.ndarray | None:
        """Cached vector at ``path``, or ``None`` (missing or bad, with a warning)."""
        if not path.is_file():
            return None
        try:
            vec = np.load(path, allow_pickle=False)
            if not isinstance(vec, np.ndarray):
                raise ValueError("not a single .npy array")
            if vec.dtype != np.float32:
                raise ValueError(f"dtype {vec.dtype}, expected float32")
            if vec.shape != (self.dim,):
                raise ValueError(f"shape {vec.shape}, expected ({self.dim},)")
            if not np.all(np.isfinite(vec)):
                raise ValueError("non-finite values")
        except Exception as exc:  # truncated, garbage, pickled object arrays, ...
            warnings.warn(
                f"Unreadable embedding cache entry {path} ({type(exc).__name__}: {exc}); "
                f"treating it as a miss and re-embedding the text.",
                CacheWarning,
                stacklevel=3,
            )
            return None
        return vec

    @staticmethod
    def _write(path: Path, vec: np.ndarray) -> None:
        """Write ``vec`` to ``path`` atomically (temp file in the same folder + os.replace)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.stem[:16]}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as fh:
                np.save(fh, np.ascontiguousarray(vec, dtype=np.float32), allow_pickle=False)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    # -- public API --------------------------------------------------------
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts``, reading/writing the disk cache.

        Args:
            texts: a sequence (list, tuple, pandas Series) of strings; not a bare str.

        Returns:
            float32 array of shape ``(len(texts), 384)``; row ``i`` is the
            L2-normalised embedding of ``texts[i]`` (unit length, so dot
            product = cosine similarity). Only the first 254 word pieces of a
            text are embedded (see :meth:`truncation_report`).

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.

        Updates :attr:`hits` and :attr:`misses`; ``hits + misses == len(texts)``.
        Encoding is deterministic on the CPU: the same text gives the same
        vector (bit-identical for the same batch; within ~1e-6 across different
        batch compositions, because padding changes the float summation order).
        """
        items = _check_texts(texts)
        dim = self.dim
        out = np.empty((len(items), dim), dtype=np.float32)
        todo: dict[str, list[int]] = {}  # text -> positions still needing a vector
        for i, text in enumerate(items):
            if text in todo:
                todo[text].append(i)
                continue
            path = self.cache_path(text)
            vec = self._read(path) if path is not None else None
            if vec is None:
                todo[text] = [i]
            else:
                out[i] = vec
                self.hits += 1
        if todo:
            unique = list(todo)
            vecs = self._embed(unique)
            for text, vec in zip(unique, vecs, strict=True):
                positions = todo[text]
                out[positions] = vec
                self.misses += 1
                self.hits += len(positions) - 1
                path = self.cache_path(text)
                if path is not None and not self._cache_broken:
                    try:
                        self._write(path, vec)
                    except OSError as exc:
                        # the vectors are computed; a cache that cannot be written costs speed, not results
                        self._cache_broken = True
                        warnings.warn(
                            f"The embedding cache {self.cache_dir} cannot be written ({exc}); going on without "
                            f"caching. Set {CACHE_DIR_ENV} to a writable folder to cache embeddings.",
                            CacheWarning,
                            stacklevel=2,
                        )
        return out

    def encode_uncached(self, texts: Sequence[str]) -> np.ndarray:
        """Embed ``texts`` without touching the disk cache or the counters (for queries).

        Same vectors as :meth:`encode`: float32, shape ``(len(texts), dim)``,
        unit length rows.

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        items = _check_texts(texts)
        if not items:
            return np.empty((0, self.dim), dtype=np.float32)
        return self._embed(items)

    def _embed(self, texts: list[str]) -> np.ndarray:
        """Run the model on ``texts`` (no cache): float32 ``(len(texts), dim)``, unit rows.

        The one place vectors are made; a subclass (for example
        :class:`ddrsearch.retrieval.adaptation.AdaptedEmbedder`) changes them here, and
        then also its :attr:`model_dir`, so that its vectors are cached apart.
        """
        return self._model_vectors(texts)

    def _model_vectors(self, texts: list[str]) -> np.ndarray:
        """sentence-transformers' unit vectors of ``texts``: float32 ``(len(texts), dim)``.

        Inside :func:`embedding_progress`, says on standard error how many texts it embeds and shows the
        batches' progress bar there.
        """
        show = _PROGRESS.get()
        if show:
            print(f"Embedding {len(texts)} text(s) not in the embedding cache yet:", file=sys.stderr, flush=True)
        vecs = self.model.encode(
            texts, batch_size=self.batch_size, normalize_embeddings=True,
            convert_to_numpy=True, show_progress_bar=show,
        )
        return np.asarray(vecs, dtype=np.float32)

    def encode_query(self, query: str) -> np.ndarray:
        """One query's unit vector, shape ``(dim,)``: :meth:`encode_uncached`'s of :func:`query_text`, within 1e-5 cosine.

        The question is embedded without PyTorch when it can be
        (:meth:`query_encoder`: the ONNX export of the same model, run with
        onnxruntime on :data:`QUERY_THREADS` thread(s); the export is made once,
        which imports PyTorch that one time); else with sentence-transformers on
        :data:`QUERY_THREADS` PyTorch thread(s), whatever the process uses for
        batches. Queries are not written to the disk cache (it would fill with
        one-off questions); the last 256 are kept in memory, per embedder.

        Raises:
            TypeError: ``query`` is not a string.
            QueryError: on the ONNX path, a query longer than
                :data:`~ddrsearch.embedding.onnx_encoder.MAX_QUERY_CHARS` characters.
            SettingError: ``DDRSEARCH_QUERY_ENCODER`` is neither ``onnx`` nor ``torch``.
        """
        if not isinstance(query, str):
            raise TypeError(f"query is {type(query).__name__}, expected str")
        query = query_text(query)  # full-width letters and bidi controls: embedded as the plain question
        cache = self.__dict__.setdefault("_query_cache", {})
        vec = cache.get(query)
        if vec is None:
            vec = self._query_vector(query)
            if len(cache) >= 256:
                cache.pop(next(iter(cache)))
            cache[query] = vec
        return vec

    def _query_vector(self, query: str) -> np.ndarray:
        onnx = self.query_encoder()
        if onnx is not None:
            return onnx.encode([query])[0]
        with query_threads():
            return self.encode_uncached([query])[0]

    def query_encoder(self) -> OnnxQueryEncoder | None:
        """The ONNX encoder of questions (:mod:`ddrsearch.embedding.onnx_encoder`), or ``None``.

        ``None`` (questions then go through sentence-transformers) when
        ``DDRSEARCH_QUERY_ENCODER=torch``, when the disk cache is disabled
        (``cache_dir=False``: the export lives in it), for a subclass that
        changes the vectors (:meth:`_embed` or :meth:`encode_uncached`
        overridden, such as the adapted embedder), and when the export cannot be made or loaded: then with one
        :class:`~ddrsearch.errors.QueryEncoderWarning` per embedder saying why.
        A missing or stale export is made here (PyTorch is imported that once).
        Decided once per embedder.

        Raises:
            SettingError: ``DDRSEARCH_QUERY_ENCODER`` is neither ``onnx`` nor ``torch``.
        """
        if "_onnx" in self.__dict__:
            return self.__dict__["_onnx"]
        choice = (settings.get(QUERY_ENCODER_ENV) or "onnx").lower()
        if choice not in ("onnx", "torch"):
            raise SettingError(f"{QUERY_ENCODER_ENV}={choice!r}: expected 'onnx' (the default) or 'torch'.")
        encoder = None
        # the model's own vectors: neither method that makes them is replaced by a subclass
        own_vectors = all(getattr(type(self), name) is vars(Embedder)[name] for name in ("_embed", "encode_uncached"))
        if choice == "onnx" and own_vectors and self.cache_dir is not None:
            from ddrsearch.embedding.onnx_encoder import ensure_onnx

            try:
                encoder = ensure_onnx(self.source, self.cache_dir, model=self._model)
            except (OnnxExportError, ImportError, OSError) as exc:
                warnings.warn(f"Questions are embedded with sentence-transformers (PyTorch), not ONNX: {exc}",
                              QueryEncoderWarning, stacklevel=3)
        self.__dict__["_onnx"] = encoder
        return encoder

    def clear_query_cache(self) -> int:
        """Forget the query vectors :meth:`encode_query` keeps in memory, so the next query runs the model.

        For timing or profiling a search with the model's work included (a
        repeated question is otherwise answered from memory). The disk cache of
        passage vectors is not touched.

        Returns:
            The number of query vectors forgotten.
        """
        cache = self.__dict__.get("_query_cache", {})
        n = len(cache)
        cache.clear()
        return n

    def count_word_pieces(self, texts: Sequence[str]) -> list[int]:
        """Number of word pieces the model's tokenizer makes of each text.

        Counted without truncation and without the special tokens ``[CLS]`` and
        ``[SEP]`` (uncased BERT WordPiece vocabulary of all-MiniLM-L6-v2).

        Args:
            texts: sequence of strings.

        Returns:
            list of ints, one per text, in input order.

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        items = _check_texts(texts)
        if not items:
            return []
        enc = self.model.tokenizer(
            items, add_special_tokens=False, truncation=False, verbose=False
        )
        return [len(ids) for ids in enc["input_ids"]]

    @property
    def content_pieces(self) -> int:
        """Word pieces of content the model sees: ``max_seq_length`` minus special tokens.

        Computed from the loaded model (256 - 2 = 254 for all-MiniLM-L6-v2).
        """
        model = self.model
        return int(model.max_seq_length) - int(model.tokenizer.num_special_tokens_to_add(pair=False))

    def truncation_report(self, texts: Sequence[str]) -> pd.DataFrame:
        """How much of each text the model actually reads.

        Args:
            texts: sequence of strings (a pandas Series keeps its index).

        Returns:
            DataFrame, one row per text, columns

            * ``word_pieces`` (int): word pieces of the text, no special tokens;
            * ``seen`` (int): ``min(word_pieces, 254)`` — sentence-transformers
              truncates to ``max_seq_length`` = 256 ids *including* ``[CLS]``
              and ``[SEP]``, leaving 254 for the text;
            * ``cut_off`` (int): ``word_pieces - seen``, pieces ignored by the model;
            * ``share_cut_off`` (float, 0..1): ``cut_off / word_pieces`` (0 for empty text).

        Raises:
            TypeError: ``texts`` is a single string or holds a non-string.
        """
        import pandas as pd

        counts = np.asarray(self.count_word_pieces(texts), dtype=np.int64)
        seen = np.minimum(counts, self.content_pieces)
        cut = counts - seen
        share = np.divide(cut, counts, out=np.zeros(len(counts), dtype=float), where=counts > 0)
        index = texts.index if isinstance(texts, pd.Series) else None
        return pd.DataFrame(
            {"word_pieces": counts, "seen": seen, "cut_off": cut, "share_cut_off": share},
            index=index,
        )


def count_word_pieces(
    texts: Sequence[str], model_path: str | os.PathLike[str] | None = None
) -> list[int]:
    """Module-level shortcut for :meth:`Embedder.count_word_pieces` (no cache involved)."""
    return Embedder(model_path=model_path, cache_dir=False).count_word_pieces(texts)


def truncation_report(
    texts: Sequence[str], model_path: str | os.PathLike[str] | None = None
) -> pd.DataFrame:
    """Module-level shortcut for :meth:`Embedder.truncation_report` (no cache involved)."""
    return Embedder(model_path=model_path, cache_dir=False).truncation_report(texts)


class OnnxPassageEmbedder(Embedder):
    """An :class:`Embedder` whose vectors come from the ONNX export of its model, without PyTorch.

    For a few new passages (``ddrsearch index add``), where importing PyTorch
    and sentence-transformers costs more than embedding them. Each text is one
    forward pass of :meth:`ddrsearch.embedding.onnx_encoder.OnnxQueryEncoder.encode`
    (the first 256 word pieces, ``[CLS]`` and ``[SEP]`` included, as
    sentence-transformers truncates; no padding); on the archive's 771
    passages the vectors are within 1.2e-7 cosine distance of the
    sentence-transformers ones (``tests/embedding/test_encoder_onnx_passages.py``
    asserts 1e-5). A text longer than
    :data:`~ddrsearch.embedding.onnx_encoder.MAX_QUERY_CHARS` characters sends
    the whole call through sentence-transformers instead.

    Its vectors are cached apart from the model's (``<source.key>_len256_onnx``),
    so a vector in the model's cache is always one sentence-transformers made.

    Args:
        encoder: the ONNX export to use (:func:`ddrsearch.embedding.onnx_encoder.open_export`).
        model_path, cache_dir, batch_size: as :class:`Embedder`.

    Attributes:
        made_by: ``"onnxruntime"`` after a call that ran the export, ``"sentence-transformers"``
            after one that fell back to the model; ``None`` before any text was run.
    """

    def __init__(self, encoder: OnnxQueryEncoder, model_path=None, cache_dir=None, batch_size: int = 32) -> None:
        super().__init__(model_path=model_path, cache_dir=cache_dir, batch_size=batch_size)
        self._encoder = encoder
        self.made_by: str | None = None

    @property
    def model_dir(self) -> Path | None:
        base = super().model_dir
        return None if base is None else base.with_name(base.name + "_onnx")

    def _embed(self, texts: list[str]) -> np.ndarray:
        from ddrsearch.embedding.onnx_encoder import MAX_QUERY_CHARS

        if any(len(t) > MAX_QUERY_CHARS for t in texts):
            self.made_by = "sentence-transformers"
            return self._model_vectors(texts)
        self.made_by = "onnxruntime"
        return self._encoder.encode(texts)


def passage_embedder(cache_dir: str | os.PathLike[str] | None = None) -> Embedder:
    """The embedder for a few new passages: :class:`OnnxPassageEmbedder` when the model's ONNX export is current.

    Else (no current export under the cache, ``DDRSEARCH_QUERY_ENCODER=torch``, the cache disabled or an
    export that cannot be loaded) a plain :class:`Embedder`, which runs sentence-transformers. Never exports.
    """
    plain = Embedder(cache_dir=cache_dir)
    if (settings.get(QUERY_ENCODER_ENV) or "onnx").lower() != "onnx" or plain.cache_dir is None:
        return plain
    from ddrsearch.embedding.onnx_encoder import open_export

    try:
        encoder = open_export(plain.cache_dir, plain.source)
    except (OnnxExportError, ImportError, OSError):
        encoder = None
    return plain if encoder is None else OnnxPassageEmbedder(encoder, cache_dir=plain.cache_dir)

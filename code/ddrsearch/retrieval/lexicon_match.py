"""Definition-mediated expansion: a plain-English question matched to the lexicon's terms by meaning.

An engineer asks "when was the mast stood up?"; the report says "Raise
derrick". BM25 cannot bridge that, and the embedding model matches a short
question to a long rig-worded row poorly. Plain English to plain English is
what it does well, so :class:`LexiconMatcher` compares the question with the
definitions and plain phrasings of the drilling lexicon
(:mod:`ddrsearch.text.lexicon`) and returns the best-matching terms; the
tuned pipeline's ``lexicon`` lever adds the terms the reports print to its
BM25 query, each weighted by its similarity (a form of query expansion
through a thesaurus: Voorhees, "Query expansion using lexical-semantic
relations", SIGIR 1994, with the relations written for this field).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import os
import warnings
from pathlib import Path

import numpy as np

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.errors import CacheWarning
from ddrsearch.files import read_regular
from ddrsearch.hashing import text_sha256
from ddrsearch.retrieval.dense import scores_one_thread
from ddrsearch.text.lexicon import Lexicon, LexiconEntry, default_lexicon

__all__ = ["LexiconMatcher"]


def _hash_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


class LexiconMatcher:
    """The lexicon's definitions and plain phrasings, embedded once, matched against questions.

    Args:
        embedder: the embedding model (its disk cache keeps the lexicon's vectors).
        lexicon: the lexicon (default: the one shipped with the package).
    """

    def __init__(self, embedder: Embedder, lexicon: Lexicon | None = None):
        self.embedder = embedder
        self.lexicon = lexicon if lexicon is not None else default_lexicon()
        self.entries: tuple[LexiconEntry, ...] = tuple(self.lexicon)
        texts, owner = [], []
        for i, entry in enumerate(self.entries):
            for text in entry.texts:
                texts.append(text)
                owner.append(i)
        self.matrix = self._vectors(texts)  # (n texts, 384), unit vectors
        self.owner = np.asarray(owner, dtype=np.int64)

    def _vectors(self, texts: list[str]) -> np.ndarray:
        """The texts' vectors, kept as one ``.npy`` in the embedding cache (one file, not one per text).

        The file is named by the SHA-256 of the model's key and the texts
        (``lexicon-<sha256>.npy``), with the SHA-256 of its own bytes beside it
        (``.npy.sha256``). It is not trusted: it is used only when its bytes
        have that hash and it holds a float32 matrix of shape ``(len(texts),
        dim)`` with finite unit rows; otherwise the vectors are computed again
        and the file rewritten, with one :class:`~ddrsearch.errors.CacheWarning`
        line naming it and what was wrong.
        """
        cache = self.embedder.cache_dir
        if cache is None:
            return self.embedder.encode(texts)
        key = text_sha256(self.embedder.source.key + "\n" + "\n".join(texts))
        path = Path(cache) / f"lexicon-{key}.npy"
        if path.is_file():
            matrix, wrong = self._cached(path, len(texts))
            if matrix is not None:
                return matrix
            warnings.warn(f"lexicon vectors {path}: {wrong}; computed again and rewritten", CacheWarning, stacklevel=3)
        matrix = np.ascontiguousarray(self.embedder.encode(texts), dtype=np.float32)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            buf = io.BytesIO()
            np.save(buf, matrix, allow_pickle=False)
            data = buf.getvalue()
            for target, content in ((path, data), (_hash_path(path), hashlib.sha256(data).hexdigest().encode())):
                tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
                tmp.write_bytes(content)
                os.replace(tmp, target)
        return matrix

    def _cached(self, path: Path, n: int) -> tuple[np.ndarray | None, str]:
        """The matrix in ``path`` when it is what its name and hash claim, else ``(None, what is wrong)``."""
        try:
            data = read_regular(path, n * self.embedder.dim * 8 + 4096)  # no link, FIFO or device; at most float64 size
            claimed = read_regular(_hash_path(path), 128).decode("ascii").strip()
        except (OSError, UnicodeDecodeError) as exc:
            return None, f"unreadable or without its hash ({type(exc).__name__})"
        if hashlib.sha256(data).hexdigest() != claimed:
            return None, "its bytes do not have the SHA-256 written beside it"
        dim = self.embedder.dim
        try:  # the header first: a forged one may claim any shape, and np.load would allocate it
            buf = io.BytesIO(data)
            version = np.lib.format.read_magic(buf)
            read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
            shape, _, dtype = read_header(buf)
        except (OSError, ValueError) as exc:
            return None, f"not a .npy array ({exc})"
        if dtype != np.float32 or tuple(shape) != (n, dim):
            return None, f"its header says {dtype} {tuple(shape)}, expected float32 ({n}, {dim})"
        try:
            matrix = np.load(io.BytesIO(data), allow_pickle=False)
        except (OSError, ValueError) as exc:
            return None, f"not a .npy array ({exc})"
        if matrix.dtype != np.float32 or matrix.shape != (n, dim):
            return None, f"{matrix.dtype} {matrix.shape}, expected float32 ({n}, {dim})"
        if not np.isfinite(matrix).all() or not np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-3):
            return None, "rows that are not finite unit vectors"
        return matrix, ""

    def similarities(self, question: str) -> np.ndarray:
        """Each entry's best cosine similarity to ``question`` over its definition and plain phrasings, shape ``(n entries,)``."""
        sims = scores_one_thread(self.matrix, self.embedder.encode_query(question))
        best = np.full(len(self.entries), -1.0)
        np.maximum.at(best, self.owner, sims)
        return best

    def match(self, question: str, k: int = 3, min_similarity: float = 0.5) -> list[tuple[LexiconEntry, float]]:
        """The ``k`` entries most similar to ``question`` with similarity at least ``min_similarity``.

        Returns:
            ``(entry, similarity)`` pairs, best first; ties by term.
        """
        best = self.similarities(question)
        # only the entries similar enough are sorted (they come first in the full order anyway)
        order = sorted(np.flatnonzero(best >= min_similarity).tolist(), key=lambda i: (-best[i], self.entries[i].term))
        return [(self.entries[i], float(best[i])) for i in order[:k]]

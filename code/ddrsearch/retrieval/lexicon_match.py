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
import os
from pathlib import Path

import numpy as np

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.hashing import text_sha256
from ddrsearch.text.lexicon import Lexicon, LexiconEntry, default_lexicon

__all__ = ["LexiconMatcher"]


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
        """The texts' vectors, kept as one ``.npy`` in the embedding cache (one file, not one per text)."""
        cache = self.embedder.cache_dir
        if cache is None:
            return self.embedder.encode(texts)
        key = text_sha256(self.embedder.source.key + "\n" + "\n".join(texts))[:24]
        path = Path(cache) / f"lexicon-{key}.npy"
        if path.is_file():
            with contextlib.suppress(OSError, ValueError):
                matrix = np.load(path, allow_pickle=False)
                if matrix.shape[0] == len(texts):
                    return matrix
        matrix = self.embedder.encode(texts)
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            with open(tmp, "wb") as fh:
                np.save(fh, matrix, allow_pickle=False)
            os.replace(tmp, path)
        return matrix

    def similarities(self, question: str) -> np.ndarray:
        """Each entry's best cosine similarity to ``question`` over its definition and plain phrasings, shape ``(n entries,)``."""
        sims = self.matrix @ self.embedder.encode_query(question)
        best = np.full(len(self.entries), -1.0)
        np.maximum.at(best, self.owner, sims)
        return best

    def match(self, question: str, k: int = 3, min_similarity: float = 0.5) -> list[tuple[LexiconEntry, float]]:
        """The ``k`` entries most similar to ``question`` with similarity at least ``min_similarity``.

        Returns:
            ``(entry, similarity)`` pairs, best first; ties by term.
        """
        best = self.similarities(question)
        order = sorted(range(len(best)), key=lambda i: (-best[i], self.entries[i].term))
        return [(self.entries[i], float(best[i])) for i in order[:k] if best[i] >= min_similarity]

"""Word-matching retrievers: boolean AND keyword search and BM25.

Both cut passages and queries with the one tokenizer
(:func:`ddrsearch.text.tokenizer.make_tokenizer`), optionally with the glossary's
abbreviation expansion, so a query and a report are always cut the same way.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from ddrsearch.errors import EmptyCorpusError, QueryError
from ddrsearch.imports import import_quietly
from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import Passage
from ddrsearch.text.glossary import default_glossary
from ddrsearch.text.tokenizer import make_tokenizer
from ddrsearch.text.words import DEFAULT_STOPWORDS

__all__ = ["BM25Retriever", "InvertedIndex", "KeywordRetriever", "SavedBM25", "summed_scores"]

#: The files of bm25s's saved index that :class:`SavedBM25` reads and writes.
_ARRAYS = {"data": "data.csc.index.npy", "indices": "indices.csc.index.npy", "indptr": "indptr.csc.index.npy"}
_VOCAB, _PARAMS = "vocab.index.json", "params.index.json"
#: The array types each file of a saved index may hold (bm25s writes float32 scores, int32 or int64 positions).
_ARRAY_TYPES = {"data": ("<f4", "<f8"), "indices": ("<i4", "<i8"), "indptr": ("<i4", "<i8")}
#: Most passages a saved index may say it holds (:class:`SavedBM25`; 1000 times the archive is 771,000).
MAX_PASSAGES = 100_000_000
#: Most bytes a saved index's vocabulary or parameter file may have (:class:`SavedBM25`).
JSON_MAX_BYTES = 256 * 1024 * 1024


def summed_scores(scores: dict, term_ids: Sequence[int], dtype="float32") -> np.ndarray:
    """BM25 scores of every passage for the terms ``term_ids``, summed as bm25s sums them.

    Args:
        scores: bm25s's precomputed score matrix in CSC form: ``data`` (the
            per-term, per-passage scores), ``indices`` (passage positions),
            ``indptr`` (term column starts) and ``num_docs``.
        term_ids: vocabulary ids of the query's terms, in query order (a term
            repeated counts again).
        dtype: the index's float type (bm25s's ``float32``).

    Returns:
        Array of shape ``(num_docs,)`` in ``dtype``: the same values, added in
        the same order, as ``bm25s.BM25.get_scores`` gives. A term's column
        holds each passage once, so a plain indexed add equals bm25s's
        ``np.add.at`` and is an order of magnitude faster on long columns.
    """
    data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
    out = np.zeros(int(scores["num_docs"]), dtype=dtype)
    for t in term_ids:
        start, end = int(indptr[t]), int(indptr[t + 1])
        out[indices[start:end]] += data[start:end]
    return out


class SavedBM25:
    """A BM25 index saved by bm25s (its arrays, vocabulary and parameters), read with numpy and json alone.

    Reading it this way spares the command line bm25s's import (and SciPy's,
    which bm25s imports), a third of a second. It scores as bm25s does
    (:func:`summed_scores`) and writes the same files back (:meth:`save`).

    Every file is read by :mod:`ddrsearch.files` (a regular file, no link followed, a JSON file at most
    :data:`JSON_MAX_BYTES`, each array's ``.npy`` header checked against its size before it is read).

    Raises (at construction):
        OSError: a file is missing or unreadable, a link, a FIFO or a device, or over its size limit.
        ValueError: a file is damaged (an array header its bytes disagree with, columns that do not match
            the data, positions outside the passages, a passage count over :data:`MAX_PASSAGES`, term ids
            that are not whole numbers, a score type other than float32 or float64), or the index is not a
            Lucene-method one.
        KeyError, TypeError: the parameters or vocabulary are not bm25s's.
    """

    def __init__(self, folder: str | Path):
        from ddrsearch.files import read_npy, read_regular

        folder = Path(folder)
        if folder.is_symlink():
            raise OSError(f"{folder.name} is a link, not the index's own folder")
        self.params = json.loads(read_regular(folder / _PARAMS, JSON_MAX_BYTES).decode("utf-8"))
        vocab = json.loads(read_regular(folder / _VOCAB, JSON_MAX_BYTES).decode("utf-8"))
        if not isinstance(self.params, dict) or not isinstance(vocab, dict):
            raise TypeError(f"{folder}: the BM25 parameters and vocabulary must be JSON objects")
        if self.params.get("method") != "lucene" or self.params.get("idf_method", "lucene") != "lucene":
            raise ValueError(f"{folder}: a BM25 index of the Lucene method is expected, not {self.params.get('method')!r}")
        if any(isinstance(i, bool) or not isinstance(i, int) or i < 0 for i in vocab.values()):
            raise ValueError(f"{folder}: the vocabulary's term ids must be whole numbers from 0")
        self.vocab_dict: dict[str, int] = vocab
        if self.params.get("dtype", "float32") not in ("float32", "float64"):
            raise ValueError(f"{folder}: the BM25 scores' type must be float32 or float64, not "
                             f"{self.params.get('dtype')!r}")
        self.dtype = np.dtype(self.params.get("dtype", "float32"))
        self.scores = {name: read_npy(folder / file, dtypes=_ARRAY_TYPES[name], ndim=1) for name, file in _ARRAYS.items()}
        indptr = self.scores["indptr"]
        if (len(indptr) == 0 or int(indptr[0]) != 0 or np.any(np.diff(indptr) < 0)
                or int(indptr[-1]) != len(self.scores["data"]) or len(self.scores["indices"]) != len(self.scores["data"])):
            raise ValueError(f"{folder}: the score matrix's columns (indptr) do not match its data")
        num_docs = self.params["num_docs"]
        if isinstance(num_docs, bool) or not isinstance(num_docs, int) or not 0 < num_docs <= MAX_PASSAGES:
            raise ValueError(f"{folder}: num_docs must be a whole number from 1 to {MAX_PASSAGES:,}, not {num_docs!r}")
        indices = self.scores["indices"]
        if len(indices) and (int(indices.min()) < 0 or int(indices.max()) >= num_docs):
            raise ValueError(f"{folder}: the score matrix names passages outside 0 to {num_docs - 1}")
        self.scores["num_docs"] = num_docs
        # bm25s gives the empty token the last id and no column of its own
        if max((i for t, i in vocab.items() if t), default=-1) >= len(self.scores["indptr"]) - 1:
            raise ValueError(f"{folder}: the vocabulary names more terms than the score matrix holds")

    def get_scores(self, tokens: list[str]) -> np.ndarray:
        """Scores of every passage for ``tokens`` (terms outside the vocabulary left out), as bm25s's ``get_scores``."""
        return summed_scores(self.scores, [self.vocab_dict[t] for t in tokens if t in self.vocab_dict], self.dtype)

    def save(self, folder, *, allow_pickle: bool = False, show_progress: bool = False) -> None:
        """Write the index to ``folder`` in bm25s's format (never pickle; ``show_progress`` is ignored)."""
        if allow_pickle:
            raise ValueError("the BM25 index is saved without pickle")
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        for name, file in _ARRAYS.items():
            np.save(folder / file, self.scores[name], allow_pickle=False)
        (folder / _VOCAB).write_text(json.dumps(self.vocab_dict, ensure_ascii=False), encoding="utf-8")
        (folder / _PARAMS).write_text(json.dumps(self.params, indent=4), encoding="utf-8")


class InvertedIndex:
    """An inverted index: term -> {passage position: term frequency}.

    Built with the shared tokenizer. chapters/03-keyword-search.ipynb builds the same thing in a few
    lines; this is the tested version.
    """

    def __init__(self, token_lists: Iterable[list[str]]):
        self.postings: dict[str, dict[int, int]] = defaultdict(dict)
        self.n_docs = 0
        for pos, tokens in enumerate(token_lists):
            self.n_docs += 1
            for term, tf in Counter(tokens).items():
                self.postings[term][pos] = tf

    def and_query(self, terms: Sequence[str]) -> dict[int, int]:
        """Positions of the passages holding *every* term -> total occurrences of the terms.

        An empty ``terms`` list matches nothing.
        """
        terms = list(dict.fromkeys(terms))
        if not terms:
            return {}
        postings = [self.postings.get(t, {}) for t in terms]
        postings.sort(key=len)
        common = set(postings[0])
        for p in postings[1:]:
            common &= set(p)
        return {pos: sum(p[pos] for p in postings) for pos in common}


class KeywordRetriever(Retriever):
    """Boolean AND search: a passage matches when it contains every query term.

    Matches are ranked by the number of occurrences of the query terms in the
    passage (a crude relevance signal), ties by report name. Passages missing
    any term are not retrieved at all, which is why natural questions often
    find nothing (chapters/03-keyword-search.ipynb).

    Args:
        expand: expand rig abbreviations with the glossary, in passages and queries alike.
        rollup: see :class:`Retriever`.
    """

    name = "keyword"

    def __init__(self, *, expand: bool = False, rollup: str = "max"):
        super().__init__(rollup)
        self.expand = expand
        self.tokenize = make_tokenizer(expand=expand)
        self._plain = make_tokenizer()
        self._glossary = default_glossary() if expand else None

    def _fit(self, passages):
        self.inverted = InvertedIndex(self.tokenize(p.indexed_text) for p in passages)

    def query_terms(self, query: str) -> list[str]:
        """The terms a passage must all contain.

        Without expansion, the query's tokens. With expansion, an abbreviation
        in the query is replaced by the words of its expansion (``tih`` ->
        ``trip``, ``in``, ``hole``): passages were indexed with their
        abbreviations expanded, so a passage holding either ``TIH`` or
        ``trip in hole`` holds all three words.
        """
        if not self.expand:
            return self.tokenize(query)
        terms: list[str] = []
        for tok in self._plain(query):
            expansion = self._glossary.expansion_tokens(tok) if self._glossary.get(tok) else None
            terms.extend(expansion or [tok])
        return terms

    def passage_scores(self, query):
        terms = self.query_terms(query)
        if not terms:
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        scores = np.full(len(self.passages), np.nan)
        for pos, n in self.inverted.and_query(terms).items():
            scores[pos] = float(n)
        return scores


class BM25Retriever(Retriever):
    """Ranked BM25 with the Lucene IDF, via the bm25s library.

    score(q, d) = sum over query terms t of
    IDF(t) * tf(t, d) / (tf(t, d) + k1 * (1 - b + b * |d| / avgdl)),
    with IDF(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)) (Lucene's form,
    never negative; Robertson and Zaragoza, "The Probabilistic Relevance
    Framework: BM25 and Beyond", 2009; Kamphuis et al., ECIR 2020, for the
    variants). This is bm25s's ``method="lucene"``, which, like Lucene
    since version 8, leaves out the constant factor ``(k1 + 1)`` of the
    classic formula: scores are the classic ones divided by ``k1 + 1``, and
    rankings are the same. Unlike rank-bm25's BM25Okapi, a term found in every report
    still scores a little above zero (chapters/03-keyword-search.ipynb shows why that matters on
    ten reports).

    Args:
        k1: term-frequency saturation (default 1.5; 1.2 to 2.0 is usual).
        b: length normalisation, 0 (none) to 1 (full); default 0.75.
        expand: expand rig abbreviations with the glossary.
        stem: Snowball-stem the words of passages and queries
            (:func:`ddrsearch.text.tokenizer.tokenize`'s ``stem``).
        stop_extra: words dropped besides :data:`ddrsearch.text.words.DEFAULT_STOPWORDS`
            (the default pipeline drops ``while``: chapters/12-improving-retrieval.ipynb).
        rollup: see :class:`Retriever`.

    Raises (at :meth:`index`):
        EmptyCorpusError: no passage holds a searchable word (the message
            names the reports).

    A passage that shares no term with the query is not retrieved (score
    ``nan``), so a fusion method gives it no credit from BM25.
    """

    name = "bm25"

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, expand: bool = False, stem: bool = False,
                 stop_extra: Iterable[str] = (), rollup: str = "max"):
        super().__init__(rollup)
        if not (k1 >= 0 and 0 <= b <= 1):
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        if isinstance(stop_extra, str):
            raise ValueError(f"stop_extra must be a list of words, not the string {stop_extra!r}")
        self.k1, self.b, self.expand, self.stem = k1, b, expand, stem
        self.stop_extra = tuple(sorted({w.lower() for w in stop_extra}))
        stopwords = DEFAULT_STOPWORDS | set(self.stop_extra)
        self.tokenize = make_tokenizer(expand=expand, stem=stem, stopwords=stopwords)

    def _fit(self, passages):
        bm25s = import_quietly("bm25s")
        tokens = [self.tokenize(p.indexed_text) for p in passages]
        self._vocab = set(t for ts in tokens for t in ts)
        if not self._vocab:
            reports = sorted({p.report for p in passages})
            raise EmptyCorpusError(
                f"Nothing to search: none of the {len(passages)} passage(s) of {len(reports)} report(s) holds a "
                f"searchable word (only blanks, stop words or punctuation): {', '.join(reports[:10])}"
                f"{', ...' if len(reports) > 10 else ''}. Check that these PDFs have a text layer and filled-in rows."
            )
        self._bm25 = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        self._bm25.index(tokens, show_progress=False)
        self.__dict__.pop("_df", None)

    @property
    def engine(self):
        """The BM25 index itself (its arrays and vocabulary), for sizes and reference checks.

        A ``bm25s.BM25`` after :meth:`index`; a :class:`SavedBM25` (the same
        ``scores``, ``vocab_dict`` and ``get_scores``) after :meth:`restore`.
        """
        return self._bm25

    @property
    def vocabulary(self) -> frozenset[str]:
        """Every term of the indexed passages, as :attr:`tokenize` writes them."""
        return frozenset(self._vocab)

    def document_frequencies(self) -> dict[str, int]:
        """Passages holding each indexed term (its document frequency), read from the index (no re-tokenizing)."""
        if "_df" not in self.__dict__:
            indptr = np.asarray(self._bm25.scores["indptr"])
            counts = np.diff(indptr)
            self._df = {t: int(counts[i]) for t, i in self._bm25.vocab_dict.items() if i < len(counts) and t}
        return self._df

    def postings(self, term: str) -> np.ndarray:
        """Positions of the passages whose terms hold ``term`` (as :attr:`tokenize` writes it), ascending, int64.

        Read from the index's column of ``term`` (no passage is tokenized); empty for a term it does not hold.
        """
        vocab = self._bm25.vocab_dict
        if term not in self._vocab or term not in vocab:
            return np.empty(0, dtype=np.int64)
        scores = self._bm25.scores
        t = vocab[term]
        return np.sort(np.asarray(scores["indices"][int(scores["indptr"][t]):int(scores["indptr"][t + 1])],
                                  dtype=np.int64))

    def term_scores(self, term: str) -> np.ndarray:
        """BM25 score of every passage for the one term ``term``, shape ``(n passages,)`` (0 where it is absent)."""
        if term not in self._vocab:
            return np.zeros(len(self.passages))
        return np.asarray(self._scores([term]), dtype=float)

    def weighted_term_scores(self, weighted: Sequence[tuple[str, float]]) -> np.ndarray:
        """Sum of ``weight * term_scores(term)`` over ``weighted``, shape ``(n passages,)``, float64.

        The same values, added in the same order, as summing the dense
        :meth:`term_scores` arrays (a term's column holds each passage once and
        a passage without the term adds 0), but only the passages holding a
        term are touched: RM3's feedback terms cost their postings, not a pass
        over every passage each. The postings of all the terms are summed in
        one ``np.bincount``, which adds them in term order, as the sum does.
        """
        engine = self._bm25
        vocab, scores = engine.vocab_dict, engine.scores
        data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
        where, values = [], []
        for term, weight in weighted:
            if term not in self._vocab or term not in vocab:
                continue
            t = vocab[term]
            start, end = int(indptr[t]), int(indptr[t + 1])
            where.append(indices[start:end])
            values.append(weight * data[start:end].astype(float))
        if not where:
            return np.zeros(len(self.passages))
        return np.bincount(np.concatenate(where), weights=np.concatenate(values), minlength=len(self.passages))

    def _scores(self, terms: list[str]) -> np.ndarray:
        """bm25s's ``get_scores(terms)``, summed by :func:`summed_scores` (same values, no ``np.add.at``)."""
        engine = self._bm25
        vocab = engine.vocab_dict
        return summed_scores(engine.scores, [vocab[t] for t in terms if t in vocab], np.dtype(engine.dtype))

    def save(self, folder, *, allow_pickle: bool = False, show_progress: bool = False) -> None:
        """Write the BM25 index to ``folder`` in bm25s's own format (JSON and ``.npy``; never pickle).

        ``allow_pickle`` must stay ``False`` (the keyword is bm25s's own, accepted so that
        :func:`ddrsearch.stores.generations.write_generation` can save this or a bare bm25s index).
        """
        if allow_pickle:
            raise ValueError("the BM25 index is saved without pickle")
        self._bm25.save(folder, allow_pickle=False, show_progress=show_progress)

    def restore(self, folder, passages: Sequence[Passage]) -> BM25Retriever:
        """Load an index written by :meth:`save` over ``passages`` (the same passages, in the same order).

        Returns:
            ``self``, searchable without re-indexing.

        The files are read with numpy and json (:class:`SavedBM25`), without importing bm25s.

        Raises:
            OSError, ValueError, KeyError, TypeError: the files are missing or damaged.
        """
        saved = SavedBM25(folder)
        if saved.scores["num_docs"] != len(passages):
            raise ValueError(f"{folder}: the BM25 index holds {saved.scores['num_docs']:,} passages, the index "
                             f"{len(passages):,}")
        self._bm25 = saved
        self._vocab = set(self._bm25.vocab_dict)
        self.__dict__.pop("_df", None)
        self.passages = list(passages)
        return self

    def passage_scores(self, query):
        terms = self.tokenize(query)
        if not terms:
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        known = [t for t in terms if t in self._vocab]
        scores = np.full(len(self.passages), np.nan)
        if not known:
            return scores
        raw = np.asarray(self._scores(known), dtype=float)
        # With the Lucene IDF every term weighs more than zero, so a passage holding
        # a query term scores above zero, and one holding none scores exactly zero.
        hit = raw > 0
        scores[hit] = raw[hit]
        return scores

    def passage_hits(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The passages :meth:`passage_scores` scores for ``query`` and their scores, without the ``nan`` of the rest.

        Returns:
            ``(positions, scores)``: int64 positions ascending and float64 scores, the
            values of ``passage_scores(query)`` that are not ``nan``; a short lexicon term
            hits a few passages, and the other ``n`` need no pass each.

        Raises:
            QueryError: no searchable words.
        """
        terms = self.tokenize(query)
        if not terms:
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        known = [t for t in terms if t in self._vocab]
        if not known:
            return np.empty(0, dtype=np.int64), np.empty(0)
        raw = self._scores(known)
        where = np.flatnonzero(raw > 0)
        return where, raw[where].astype(float)


"""Retrievers: one interface for keyword, BM25 and dense search over reports.

Every retriever indexes a list of *passages* (a whole report, or later a
chunk of one) and answers ``search(query, k)`` with a ranked list of
:class:`Hit`: the report's file name, the score, the rank and, where the
retriever knows it, the matching text and where it sits in the report (page,
operation row). Hits are per report: when several passages of one report
match, the report appears once, with its best passage (see
:meth:`Retriever.search`).

Ranking rule, everywhere in ddrsearch: score descending, ties broken by
report file name ascending (:func:`ddrsearch.metrics.rank_by_score`), so a
search gives the same list every time.

Errors: an empty query (nothing but spaces) raises :class:`QueryError`; so
does a query with no searchable words for a word-based retriever (only stop
words or punctuation). ``k < 1`` raises :class:`ValueError`; an unknown
method name in :func:`make_retriever` raises :class:`ValueError` listing the
known ones; searching before indexing raises :class:`RuntimeError`.
"""

from __future__ import annotations

import math
import os
from abc import ABC, abstractmethod
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from typing import Callable, Iterable, Mapping, Sequence

import numpy as np

from .errors import DDRSearchError
from .report import Report
from .text import default_glossary, make_tokenizer

__all__ = [
    "Passage", "Hit", "QueryError", "Retriever", "KeywordRetriever", "BM25Retriever", "DenseRetriever",
    "METHODS", "make_retriever", "whole_report_passages", "report_lines", "page_lines", "InvertedIndex",
]


class QueryError(DDRSearchError, ValueError):
    """The query is empty, or has no searchable words for this retriever."""


@dataclass(frozen=True)
class Passage:
    """A unit of text that a retriever indexes.

    Attributes:
        passage_id: unique id; the report file name for a whole report,
            ``"<file name>#<suffix>"`` for a part of one.
        report: the report's file name (what evaluation counts).
        text: the text to index.
        page: page number from 1, when the passage sits on one page.
        row: TIME BREAKDOWN row index (from 0), for an operation row.
        start, end: FROM and TO times of that row (``"HH:MM"``).
        kind: ``"report"`` (whole report), ``"operation"``, ``"header"`` or
            ``"window"``.
        span: ``(start, end)`` character offsets of the text, for window
            chunks: offsets into the report's text with whitespace collapsed,
            ``" ".join(report.text.split())`` (see
            :func:`ddrsearch.chunking.window_chunks`).
        context: text prepended when embedding or indexing (for example the
            report date and phase of a chunk); empty for a whole report.
    """

    passage_id: str
    report: str
    text: str
    page: int | None = None
    row: int | None = None
    start: str | None = None
    end: str | None = None
    kind: str = "report"
    span: tuple[int, int] | None = None
    context: str = ""

    @property
    def indexed_text(self) -> str:
        """The text that is indexed or embedded: ``context`` then ``text``."""
        return f"{self.context}\n{self.text}" if self.context else self.text


@dataclass(frozen=True)
class Hit:
    """One report in a ranked result list.

    Attributes:
        report: the report's file name.
        score: the retriever's score (higher is better; not comparable across
            retrievers).
        rank: position in the list, from 1.
        text: the matching text: the passage that earned the score or, for a
            whole-report hit, the report line that best matches the query.
        page, row, start, end: where ``text`` sits in the report (page from 1;
            operation row index from 0 and its FROM/TO times), when known.
        passage_id: the passage that earned the score.
    """

    report: str
    score: float
    rank: int
    text: str | None = None
    page: int | None = None
    row: int | None = None
    start: str | None = None
    end: str | None = None
    passage_id: str | None = None


def whole_report_passages(reports: Iterable[Report]) -> list[Passage]:
    """One passage per report: its whole page text (the unit most tutorials use)."""
    return [
        Passage(passage_id=r.file_name, report=r.file_name, text=r.text, page=1 if len(r.pages) == 1 else None)
        for r in reports
    ]


def report_lines(report: Report) -> list[Passage]:
    """The lines a reader looks at to see why a report matched.

    Returns:
        The header's PRESENT OPERATIONS and ACTIVITY PLANNED, then one passage
        per TIME BREAKDOWN row (its OPERATIONS text, with page, row and
        times). A report without rows (the completion layout) gives its
        non-empty page text lines instead.
    """
    out: list[Passage] = []
    for label, value in (("PRESENT OPERATIONS", report.present_operations), ("ACTIVITY PLANNED", report.activity_planned)):
        if value:
            out.append(Passage(f"{report.file_name}#{label}", report.file_name, f"{label}: {value}", page=1, kind="header"))
    for r in report.operations:
        out.append(
            Passage(
                f"{report.file_name}#row{r.index}", report.file_name, r.operations, page=r.page, row=r.index,
                start=r.start, end=r.end or None, kind="operation",
            )
        )
    if not report.operations:
        out.extend(page_lines(report))
    return out


def page_lines(report: Report) -> list[Passage]:
    """Every non-trivial line of the report's page text (more than 3 characters), with its page."""
    out = []
    for pno, page in enumerate(report.pages, start=1):
        for i, line in enumerate(l.strip() for l in page.splitlines()):
            if len(line) > 3:
                out.append(Passage(f"{report.file_name}#p{pno}l{i}", report.file_name, line, page=pno, kind="line"))
    return out


def _check_k(k: int) -> int:
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer, not {k!r}")
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    return int(k)


def _check_query(query: str) -> str:
    if not isinstance(query, str):
        raise TypeError(f"the query must be a string, not {type(query).__name__}")
    if not query.strip():
        raise QueryError("The query is empty: type some words to search for.")
    try:
        query.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = query[exc.start:exc.end]
        raise QueryError(
            f"The query holds bytes that are not valid text ({bad.encode('utf-8', 'surrogateescape')!r}); "
            "check your terminal's character encoding (UTF-8) and type the query again."
        ) from None
    return query


class Retriever(ABC):
    """Common interface of every ddrsearch retriever.

    Subclasses implement :meth:`_fit` (build the index over passages) and
    :meth:`passage_scores` (score every passage for a query). The base class
    handles reports versus passages, the roll-up of passages to reports, the
    ranking and tie rule, and the matching line shown for each hit.

    Attributes:
        name: short method name (``"bm25"``, ``"dense"``, ...).
        rollup: how passage scores become a report score: ``"max"`` (the best
            passage; default) or ``"sum3"`` (sum of the report's three best
            passage scores).
    """

    name = "retriever"

    def __init__(self, rollup: str = "max"):
        if rollup not in ("max", "sum3"):
            raise ValueError(f"rollup must be 'max' or 'sum3', not {rollup!r}")
        self.rollup = rollup
        self.passages: list[Passage] = []
        self._reports: dict[str, Report] = {}

    # --- indexing -----------------------------------------------------------------
    def index(self, items: Sequence[Report] | Sequence[Passage]) -> "Retriever":
        """Index reports (each one becomes one whole-report passage) or ready-made passages.

        Args:
            items: a list of :class:`~ddrsearch.report.Report` or of
                :class:`Passage` (not a mix).

        Returns:
            ``self``, so ``BM25Retriever().index(reports)`` reads well.

        Raises:
            ValueError: nothing to index, a mix of reports and passages, or
                two passages with the same id.
        """
        items = list(items)
        if not items:
            raise ValueError("Nothing to index: the list of reports or passages is empty.")
        if all(isinstance(i, Report) for i in items):
            self._reports = {r.file_name: r for r in items}
            passages = whole_report_passages(items)
        elif all(isinstance(i, Passage) for i in items):
            passages = items
        else:
            raise ValueError("index() takes a list of Report or a list of Passage, not a mix.")
        ids = [p.passage_id for p in passages]
        if len(set(ids)) != len(ids):
            dup = next(i for i, c in Counter(ids).items() if c > 1)
            raise ValueError(f"Two passages have the id {dup!r}; passage ids must be unique.")
        self.passages = list(passages)
        self._fit(self.passages)
        return self

    def attach_reports(self, reports: Iterable[Report]) -> "Retriever":
        """Give the retriever the reports behind its passages, so whole-report hits can show a matching line."""
        self._reports.update({r.file_name: r for r in reports})
        return self

    @abstractmethod
    def _fit(self, passages: list[Passage]) -> None:
        """Build the index over ``passages``."""

    @abstractmethod
    def passage_scores(self, query: str) -> np.ndarray:
        """Score every indexed passage for ``query``.

        Returns:
            A float array of shape ``(len(self.passages),)``; ``nan`` marks a
            passage the method does not retrieve at all (for example a BM25
            passage sharing no word with the query).
        """

    # --- searching ----------------------------------------------------------------
    def report_scores(self, query: str) -> dict[str, float]:
        """Score each report for ``query`` (passages rolled up); reports not retrieved are absent."""
        _check_query(query)
        if not self.passages:
            raise RuntimeError(f"{type(self).__name__}: call index() before searching.")
        scores = self.passage_scores(query)
        return {rep: score for rep, (score, _) in self._rollup(scores).items()}

    @property
    def tie_key(self) -> np.ndarray:
        """Integer rank of each passage by (report name, passage id): the tie-break order, shape ``(n,)``."""
        key = self.__dict__.get("_tie_key")
        if key is None or len(key) != len(self.passages):
            order = sorted(range(len(self.passages)), key=lambda i: (self.passages[i].report, self.passages[i].passage_id))
            key = np.empty(len(order), dtype=np.int64)
            key[order] = np.arange(len(order))
            self._tie_key = key
        return key

    def top_passages(self, scores: np.ndarray, n: int | None) -> np.ndarray:
        """Positions of the ``n`` best-scoring passages (all retrieved ones if ``n`` is None).

        Best first: score descending, ties by report name then passage id.
        ``nan`` scores (not retrieved) are left out.
        """
        idx = np.flatnonzero(~np.isnan(scores))
        if n is not None and len(idx) > n:
            kth = np.partition(scores[idx], len(idx) - n)[len(idx) - n]
            idx = idx[scores[idx] >= kth]  # keeps every passage tied with the n-th
        order = idx[np.lexsort((self.tie_key[idx], -scores[idx]))]
        return order if n is None else order[:n]

    def _rollup_top(self, scores: np.ndarray, k: int) -> dict[str, tuple[float, int]]:
        """:meth:`_rollup` restricted to what the top ``k`` reports need (same result, much faster)."""
        if self.rollup != "max":
            return self._rollup(scores)
        n, take = len(self.passages), max(4 * k, 64)
        while True:
            top = self.top_passages(scores, take)
            reports = []
            for i in top:
                rep = self.passages[i].report
                if rep not in reports:
                    reports.append(rep)
                    if len(reports) == k:
                        break
            if len(reports) == k or len(top) < take or take >= n:
                break
            take *= 4
        if not len(top):
            return {}
        threshold = scores[top[-1]] if len(reports) < k else min(scores[i] for i in top if self.passages[i].report in reports)
        subset = np.flatnonzero(~np.isnan(scores) & (np.nan_to_num(scores, nan=-np.inf) >= threshold))
        return self._rollup(scores, subset)

    def _rollup(self, scores: np.ndarray, subset: np.ndarray | None = None) -> dict[str, tuple[float, int]]:
        per_report: dict[str, list[tuple[float, int]]] = defaultdict(list)
        positions = range(len(scores)) if subset is None else subset
        for i in positions:
            s = scores[i]
            if not math.isnan(s):
                per_report[self.passages[i].report].append((float(s), int(i)))
        out: dict[str, tuple[float, int]] = {}
        for rep, items in per_report.items():
            # best passage first; ties by passage order in the index (stable)
            items.sort(key=lambda t: (-t[0], t[1]))
            score = items[0][0] if self.rollup == "max" else sum(s for s, _ in items[:3])
            out[rep] = (score, items[0][1])
        return out

    def search(self, query: str, k: int = 10) -> list[Hit]:
        """Return the top ``k`` reports for ``query``.

        Args:
            query: the question or words to search for.
            k: how many reports to return at most (fewer when fewer reports
                are retrieved at all).

        Returns:
            Hits ranked by score (descending), ties by report file name
            (ascending); each report at most once, with the passage that
            earned its score, or, for a whole-report passage, the report's
            best matching line (:meth:`best_line`; ``text`` is ``None`` when
            no single line holds a query term).

        Raises:
            QueryError: empty query, or no searchable words (word-based methods).
            ValueError: ``k < 1``.
            RuntimeError: :meth:`index` was not called.
        """
        k = _check_k(k)
        _check_query(query)
        if not self.passages:
            raise RuntimeError(f"{type(self).__name__}: call index() before searching.")
        rolled = self._rollup_top(self.passage_scores(query), k)
        order = sorted(rolled, key=lambda rep: (-rolled[rep][0], rep))[:k]
        hits = []
        for rank, rep in enumerate(order, start=1):
            score, i = rolled[rep]
            p = self.passages[i]
            text = p.text
            if p.kind == "report" and rep in self._reports:
                line = self.best_line(query, self._reports[rep])
                p = line if line is not None else Passage(p.passage_id, p.report, "", page=p.page)
                text = line.text if line is not None else None
            hits.append(
                Hit(report=rep, score=score, rank=rank, text=text, page=p.page, row=p.row, start=p.start,
                    end=p.end, passage_id=self.passages[i].passage_id)
            )
        return hits

    def query_terms(self, query: str) -> list[str]:
        """The terms of ``query`` as this retriever matches them (its own tokenizer; the shared one by default)."""
        return (getattr(self, "tokenize", None) or make_tokenizer())(query)

    def best_line(self, query: str, report: Report) -> Passage | None:
        """The line of ``report`` that best matches ``query`` (see :func:`report_lines`).

        The default counts the query's distinct terms in each line (the
        retriever's own tokenizer, so abbreviation expansion applies when it is
        on) and keeps the first line with the most; ``None`` when no line
        shares a term. The dense retriever overrides it with embedding
        similarity.
        """
        tok = getattr(self, "tokenize", None) or make_tokenizer()
        terms = set(self.query_terms(query))
        best, best_n = None, 0
        for line in report_lines(report) + page_lines(report):
            n = len(terms & set(tok(line.text)))
            if n > best_n:
                best, best_n = line, n
        return best

    def __repr__(self) -> str:
        return f"{type(self).__name__}(passages={len(self.passages)})"


# --- keyword AND search ---------------------------------------------------------------

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


# --- BM25 --------------------------------------------------------------------------------

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
        rollup: see :class:`Retriever`.

    A passage that shares no term with the query is not retrieved (score
    ``nan``), so a fusion method gives it no credit from BM25.
    """

    name = "bm25"

    def __init__(self, *, k1: float = 1.5, b: float = 0.75, expand: bool = False, rollup: str = "max"):
        super().__init__(rollup)
        if not (k1 >= 0 and 0 <= b <= 1):
            raise ValueError(f"BM25 needs k1 >= 0 and 0 <= b <= 1, got k1={k1}, b={b}")
        self.k1, self.b, self.expand = k1, b, expand
        self.tokenize = make_tokenizer(expand=expand)

    def _fit(self, passages):
        from .embeddings import _import_quietly

        bm25s = _import_quietly("bm25s")
        tokens = [self.tokenize(p.indexed_text) for p in passages]
        self._vocab = set(t for ts in tokens for t in ts)
        self._bm25 = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        self._bm25.index(tokens, show_progress=False)

    def passage_scores(self, query):
        terms = self.tokenize(query)
        if not terms:
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        known = [t for t in terms if t in self._vocab]
        scores = np.full(len(self.passages), np.nan)
        if not known:
            return scores
        raw = np.asarray(self._bm25.get_scores(known), dtype=float)
        # With the Lucene IDF every term weighs more than zero, so a passage holding
        # a query term scores above zero, and one holding none scores exactly zero.
        hit = raw > 0
        scores[hit] = raw[hit]
        return scores


# --- dense -------------------------------------------------------------------------------

class DenseRetriever(Retriever):
    """Dense retrieval: cosine similarity of sentence embeddings (all-MiniLM-L6-v2).

    Passages and the query are embedded with :class:`ddrsearch.embeddings.Embedder`
    (normalised vectors, so the dot product is the cosine); passage vectors are
    cached on disk. Every passage gets a score, so every report is retrieved.
    The model reads only the first 254 word pieces of each passage
    (:data:`ddrsearch.embeddings.CONTENT_PIECES`); a whole report is cut off
    long before its TIME BREAKDOWN (chapters/04-searching-by-meaning.ipynb).

    Args:
        model_path: explicit model folder (see :func:`ddrsearch.embeddings.resolve_model`).
        cache_dir: embedding cache folder; ``False`` disables the cache.
        embedder: an existing :class:`~ddrsearch.embeddings.Embedder` to share.
        rollup: see :class:`Retriever`.
    """

    name = "dense"

    def __init__(self, *, model_path=None, cache_dir=None, embedder=None, rollup: str = "max"):
        super().__init__(rollup)
        from .embeddings import Embedder

        self.embedder = embedder if embedder is not None else Embedder(model_path=model_path, cache_dir=cache_dir)

    def _fit(self, passages):
        self.matrix = self.embedder.encode([p.indexed_text for p in passages])

    def embed_query(self, query: str) -> np.ndarray:
        """The query's unit vector, shape ``(384,)``.

        Queries are not written to the disk cache (it would fill with one-off
        questions); the last 256 are kept in memory.
        """
        cache = self.__dict__.setdefault("_query_cache", {})
        vec = cache.get(query)
        if vec is None:
            vec = self.embedder.encode_uncached([query])[0]
            if len(cache) >= 256:
                cache.pop(next(iter(cache)))
            cache[query] = vec
        return vec

    def passage_scores(self, query):
        return (self.matrix @ self.embed_query(query)).astype(float)

    def best_line(self, query, report):
        lines = report_lines(report)
        if not lines:
            return None
        sims = self.embedder.encode([l.text for l in lines]) @ self.embed_query(query)
        return lines[int(np.argmax(sims))]


# --- factory ---------------------------------------------------------------------------------

def _hybrid(**options) -> Retriever:
    from .fusion import HybridRetriever

    return HybridRetriever(**options)


#: Method name -> retriever factory, for :func:`make_retriever` and the command line.
METHODS: dict[str, Callable[..., Retriever]] = {
    "keyword": KeywordRetriever,
    "bm25": BM25Retriever,
    "dense": DenseRetriever,
    "hybrid": _hybrid,
}


def make_retriever(method: str, **options) -> Retriever:
    """Create a retriever by method name.

    Args:
        method: one of :data:`METHODS`: ``"keyword"``, ``"bm25"``, ``"dense"``,
            ``"hybrid"`` (:class:`ddrsearch.fusion.HybridRetriever`).
        **options: passed to the retriever's constructor.

    Raises:
        ValueError: unknown method; the message lists the known ones.
    """
    try:
        factory = METHODS[method]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown retrieval method {method!r}; choose one of: {', '.join(METHODS)}.") from None
    return factory(**options)

"""The retriever interface shared by keyword, BM25, dense and hybrid search.

Every retriever indexes a list of *passages* (a whole report, or later a
chunk of one) and answers ``search(query, k)`` with a ranked list of
:class:`Hit`: the report's file name, the score, the rank and, where the
retriever knows it, the matching text and where it sits in the report (page,
operation row). Hits are per report: when several passages of one report
match, the report appears once, with its best passage (see
:meth:`Retriever.search`).

Ranking rule, everywhere in ddrsearch: score descending, ties broken by
report file name ascending (:func:`ddrsearch.evaluation.metrics.rank_by_score`), so a
search gives the same list every time.

Limit: a query longer than ``DDRSEARCH_MAX_QUESTION_WORDS`` words (default
:data:`MAX_QUESTION_WORDS` = 100; the longest question of the book's sets has
far fewer) is cut to that many words before it is searched, with a
:class:`~ddrsearch.errors.QueryCutWarning` (:func:`cut_query`): a 5,000-word
question took minutes in the default pipeline.

Errors: an empty query (nothing but spaces) raises :class:`QueryError`; so
does a query with no searchable words for a word-based retriever (only stop
words or punctuation). ``k < 1`` raises :class:`ValueError`; an unknown
method name in :func:`ddrsearch.retrieval.pipeline.make_retriever` raises
:class:`ValueError` listing the known ones; searching before indexing raises :class:`RuntimeError`.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType

import numpy as np

from ddrsearch import settings
from ddrsearch.checks import check_k
from ddrsearch.errors import QueryCutWarning, QueryError
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.matching import excerpt
from ddrsearch.retrieval.passages import Hit, Passage, page_lines, report_lines, whole_report_passages
from ddrsearch.text.spelling import Spelling
from ddrsearch.text.tokenizer import make_tokenizer

__all__ = ["MAX_QUESTION_WORDS", "QueryError", "Retriever", "check_query", "cut_query", "limited_query"]

#: Default longest query searched, in words (``DDRSEARCH_MAX_QUESTION_WORDS`` changes it).
MAX_QUESTION_WORDS = 100


#: Passages per block of :func:`_top_candidates`, and the fewest passages for which it is used.
TOP_BLOCK, TOP_MIN_PASSAGES = 64, 8192


def _top_candidates(scores: np.ndarray, n: int) -> np.ndarray | None:
    """Positions (ascending) of a few passages that include every one scoring at least the ``n``-th best.

    A partial sort of every passage costs about 1 ms at 76,200 passages, a maximum a hundredth of
    that; so the maxima of blocks of :data:`TOP_BLOCK` passages (any split of the passages would do)
    are taken first. The ``n``-th
    largest of those maxima is at most the ``n``-th best score (they are ``n`` scores at least as
    high), so the passages scoring at least it hold every one the top ``n`` needs, and the partial
    sort then runs over those few (:meth:`Retriever.top_passages`: the same passages, in the same order).

    Returns:
        The positions, or ``None`` (use every retrieved passage) for fewer than
        :data:`TOP_MIN_PASSAGES` passages or fewer blocks with a retrieved passage than ``2 * n``.
    """
    total = len(scores)
    if total < TOP_MIN_PASSAGES or n < 1 or 2 * n > total // TOP_BLOCK:
        return None
    whole = total - total % TOP_BLOCK
    # block j: passages j, j + m, j + 2m, ... (m = whole / TOP_BLOCK), so the maxima are one elementwise
    # pass down TOP_BLOCK rows; nan only for a block without a score
    maxima = np.fmax.reduce(scores[:whole].reshape(TOP_BLOCK, -1), axis=0)
    if whole < total:
        maxima = np.append(maxima, np.fmax.reduce(scores[whole:]))
    maxima = maxima[~np.isnan(maxima)]
    if len(maxima) < 2 * n:
        return None
    bound = np.partition(maxima, len(maxima) - n)[len(maxima) - n]
    with np.errstate(invalid="ignore"):  # nan >= bound is False: not retrieved
        return np.flatnonzero(scores >= bound)


def check_query(query: str) -> str:
    """Return ``query`` after checking that it is a non-empty string of valid text.

    Raises:
        TypeError: not a string.
        QueryError: blank, or holding bytes that are not valid UTF-8 text.
    """
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


def cut_query(query: str) -> tuple[str, str]:
    """``query`` cut to at most ``DDRSEARCH_MAX_QUESTION_WORDS`` words (default 100), and a note when it was cut.

    Args:
        query: the question as typed.

    Returns:
        ``(query, "")`` when it is short enough (unchanged, white space
        included); else ``(its first N words joined by single spaces, note)``,
        the note saying how many words it had and how to raise the limit.

    Raises:
        SettingError: ``DDRSEARCH_MAX_QUESTION_WORDS`` is not a positive whole number.
    """
    limit = int(settings.get_number("DDRSEARCH_MAX_QUESTION_WORDS", MAX_QUESTION_WORDS, integer=True))
    words = query.split()
    if len(words) <= limit:
        return query, ""
    return " ".join(words[:limit]), (f"the question has {len(words):,} words; only its first {limit} were searched "
                                     "(raise the limit with DDRSEARCH_MAX_QUESTION_WORDS=<words>)")


def limited_query(query: str) -> str:
    """:func:`cut_query`'s query; when it was cut, its note as a :class:`~ddrsearch.errors.QueryCutWarning`."""
    query, note = cut_query(query)
    if note:
        warnings.warn(note[0].upper() + note[1:], QueryCutWarning, stacklevel=3)
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
    def index(self, items: Sequence[Report] | Sequence[Passage]) -> Retriever:
        """Index reports (each one becomes one whole-report passage) or ready-made passages.

        Args:
            items: a list of :class:`~ddrsearch.reading.report.Report` or of
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
            odd = next((i for i in items if not isinstance(i, (Report, Passage))), None)
            what = (f"{type(odd).__name__} {odd!r}: read the PDFs first with ddrsearch.reading.report.read_reports(paths)"
                    if odd is not None else "a mix of the two")
            raise ValueError(f"index() takes a list of Report or a list of Passage, not a mix; got {what}.")
        ids = [p.passage_id for p in passages]
        if len(set(ids)) != len(ids):
            dup = next(i for i, c in Counter(ids).items() if c > 1)
            raise ValueError(f"Two passages have the id {dup!r}; passage ids must be unique.")
        self.passages = list(passages)
        self._fit(self.passages)
        return self

    def attach_reports(self, reports: Iterable[Report]) -> Retriever:
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
        query = limited_query(check_query(query))
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
        idx = None if n is None else _top_candidates(scores, n)
        if idx is None:
            idx = np.flatnonzero(~np.isnan(scores))
        if n is not None and len(idx) > n:
            kth = np.partition(scores[idx], len(idx) - n)[len(idx) - n]
            idx = idx[scores[idx] >= kth]  # keeps every passage tied with the n-th
        order = idx[np.lexsort((self.tie_key[idx], -scores[idx]))]
        return order if n is None else order[:n]

    def _report_codes(self) -> tuple[np.ndarray, list[str]]:
        """Each passage's report as an integer code, shape ``(n,)``, and the report names by code: once per passages."""
        cached = self.__dict__.get("_report_codes_cache")
        if cached is None or cached[0] is not self.passages or cached[1] != len(self.passages):
            names: dict[str, int] = {}
            codes = np.array([names.setdefault(p.report, len(names)) for p in self.passages], dtype=np.int64)
            cached = (self.passages, len(self.passages), codes, list(names))
            self._report_codes_cache = cached
        return cached[2], cached[3]

    def _rollup_top(self, scores: np.ndarray, k: int) -> dict[str, tuple[float, int]]:
        """:meth:`_rollup` restricted to what the top ``k`` reports need (same result, much faster)."""
        codes, names = self._report_codes()
        if self.rollup != "max" or k >= len(names):
            return self._rollup(scores)  # every report asked for: no shortcut to take
        n, take = len(self.passages), max(4 * k, 64)
        while True:
            top = self.top_passages(scores, take)
            top_codes = codes[top]
            first = np.sort(np.unique(top_codes, return_index=True)[1])[:k]  # each report's first (best) passage
            if len(first) == k or len(top) < take or take >= n:
                break
            take *= 4
        if not len(top):
            return {}
        if len(first) < k:
            threshold = scores[top[-1]]
        else:
            threshold = scores[top[np.isin(top_codes, top_codes[first])]].min()
        with np.errstate(invalid="ignore"):  # nan >= threshold is False: not retrieved
            subset = np.flatnonzero(scores >= threshold)
        return self._rollup(scores, subset)

    def _rollup(self, scores: np.ndarray, subset: np.ndarray | None = None) -> dict[str, tuple[float, int]]:
        """Report -> (rolled-up score, position of its best passage), over ``subset`` (sorted positions; all if None).

        A report's best passage: the highest score, ties by position. Reports
        come in the order of their first retrieved passage.
        """
        idx = np.arange(len(scores)) if subset is None else np.asarray(subset, dtype=np.int64)
        idx = idx[~np.isnan(scores[idx])]
        if not len(idx):
            return {}
        codes, names = self._report_codes()
        values, groups = scores[idx], codes[idx]
        order = np.lexsort((idx, -values, groups))  # by report, best passage first, ties by position
        sorted_groups = groups[order]
        change = np.ones(len(sorted_groups), dtype=bool)
        np.not_equal(sorted_groups[1:], sorted_groups[:-1], out=change[1:])
        starts = np.flatnonzero(change)
        # reports in the order of their first retrieved passage (positions ascending)
        first_seen = np.argsort(idx[np.unique(groups, return_index=True)[1]], kind="stable")
        if self.rollup == "max":
            best = order[starts[first_seen]]
            return dict(zip([names[c] for c in groups[best].tolist()],
                            zip(values[best].tolist(), idx[best].tolist(), strict=True), strict=True))
        ends = np.append(starts[1:], len(order))
        out: dict[str, tuple[float, int]] = {}
        for g in first_seen:
            s, e = starts[g], ends[g]
            best = order[s]
            score = float(values[best]) if self.rollup == "max" else sum(float(v) for v in values[order[s:min(s + 3, e)]])
            out[names[sorted_groups[s]]] = (score, int(idx[best]))
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
            no single line holds a query term). Each hit carries the query
            terms its text holds and, when only the row's CODE cell holds
            them, that cell (:attr:`Hit.terms`, :attr:`Hit.code`).

        Raises:
            QueryError: empty query, or no searchable words (word-based methods).
            ValueError: ``k < 1``.
            RuntimeError: :meth:`index` was not called.
        """
        k = check_k(k)
        query = limited_query(check_query(query))  # a longer question is cut, with a QueryCutWarning
        if not self.passages:
            raise RuntimeError(f"{type(self).__name__}: call index() before searching.")
        return self.rank(query, self.passage_scores(query), k)

    def rank(self, query: str, scores: np.ndarray, k: int) -> list[Hit]:
        """The top ``k`` reports given every passage's ``scores`` for ``query`` (see :meth:`search`)."""
        return [self.describe(query, hit) for hit in self.ranked_passages(query, scores, k)]

    def ranked_passages(self, query: str, scores: np.ndarray, k: int) -> list[Hit]:
        """The top ``k`` reports and the passage (or best line) that earned each score, not yet described.

        :meth:`rank` is these hits passed through :meth:`describe`.

        A subclass that shows another passage of the report describes the hit
        once, after choosing it.
        """
        rolled = self._rollup_top(scores, k)
        order = sorted(rolled, key=lambda rep: (-rolled[rep][0], rep))[:k]
        hits = []
        for rank, rep in enumerate(order, start=1):
            score, i = rolled[rep]
            p = self.passages[i]
            text = p.text
            if p.kind == "report" and rep in self._reports:
                line = self.best_line(query, self._reports[rep])
                p = line if line is not None else Passage(p.passage_id, p.report, "", page=p.page, ocr=p.ocr)
                text = line.text if line is not None else None
            hits.append(Hit(
                report=rep, score=score, rank=rank, text=text, page=p.page, row=p.row, start=p.start,
                end=p.end, passage_id=self.passages[i].passage_id, ocr=p.ocr))
        return hits

    def describe(self, query: str, hit: Hit) -> Hit:
        """``hit`` with the query terms its text holds and, where only its row's CODE cell holds them, that cell."""
        terms = set(self.query_terms(query))
        held = tuple(sorted(terms & self.text_terms(hit.text))) if hit.text else ()
        return replace(hit, terms=held, code=self.code_match(query, hit, held))

    def code_match(self, query: str, hit: Hit, held: Sequence[str] = ()) -> str | None:
        """The CODE cell of ``hit``'s row when it, and not the row's text, holds the query's words, else ``None``.

        The CODE (``Cond Mud & Circ``) is indexed with the row (its context) but
        not shown, so a row found through it says so. Needs the reports
        (:meth:`attach_reports`); an index restored from disk has none.
        """
        if hit.row is None or not hit.text or held:
            return None
        cell = self._code_cell(hit.report, hit.row)
        return cell[0] if cell is not None and not cell[1].isdisjoint(self.query_terms(query)) else None

    def _code_cell(self, report_name: str, row: int) -> tuple[str, frozenset[str]] | None:
        """The CODE cell of a report's row and its terms (``None``: no such report, row or code), remembered per row."""
        report = self._reports.get(report_name)
        cache = self.__dict__.setdefault("_code_cells", {})
        cached = cache.get((report_name, row))
        if cached is None or cached[0] is not report:  # a report attached again is looked at again
            cell = None
            if report is not None and row < len(report.operations) and report.operations[row].code:
                code = report.operations[row].code
                cell = (code, frozenset(self.match_tokenizer(code)))
            cached = (report, cell)
            cache[(report_name, row)] = cached
        return cached[1]

    # --- what the front ends show ------------------------------------------------
    @property
    def reports(self) -> Mapping[str, Report]:
        """The reports behind the passages (file name -> report), when attached; empty for an index from disk."""
        return MappingProxyType(self._reports)

    @property
    def match_options(self) -> dict[str, bool]:
        """``{"expand": ..., "stem": ...}`` of the tokenizer this retriever matches words with."""
        return {"expand": bool(getattr(self, "expand", False)), "stem": bool(getattr(self, "stem", False))}

    @property
    def match_tokenizer(self) -> Callable[[str], list[str]]:
        """text -> the terms this retriever matches (its own tokenizer; the shared one by default)."""
        return getattr(self, "tokenize", None) or make_tokenizer()

    def excerpt(self, text: str, query: str, width: int = 60) -> str:
        """The part of ``text`` that shows why it matched ``query`` (:func:`ddrsearch.retrieval.matching.excerpt`)."""
        return excerpt(text, query, width, **self.match_options)

    def unknown_words(self, query: str) -> dict[str, list[str]]:
        """Words of ``query`` that no report prints, each with the nearest printed words (:class:`Spelling`).

        Over the attached reports' whole text (their passages' text when none is attached).
        """
        if "_spelling" not in self.__dict__:
            texts = [r.text for r in self._reports.values()] or [p.indexed_text for p in self.passages]
            self._spelling = Spelling(texts, phrases=[p.text for p in self.passages])  # a row's words side by side
        return self._spelling.unknown(query)

    def words_found(self, query: str) -> bool:
        """Whether the ranking rests on words of ``query`` the passages hold (``True`` unless a retriever knows better)."""
        return True

    def query_terms(self, query: str) -> list[str]:
        """The terms of ``query`` as this retriever matches them (its own tokenizer; the shared one by default)."""
        return self.match_tokenizer(query)

    def best_line(self, query: str, report: Report) -> Passage | None:
        """The line of ``report`` that best matches ``query`` (see :func:`report_lines`).

        The default counts the query's distinct terms in each line (the
        retriever's own tokenizer, so abbreviation expansion applies when it is
        on) and keeps the first line with the most; ``None`` when no line
        shares a term. The dense retriever overrides it with embedding
        similarity.
        """
        terms = set(self.query_terms(query))
        best, best_n = None, 0
        for line, held in self.line_terms(report):
            n = len(terms & held)
            if n > best_n:
                best, best_n = line, n
        return best

    def line_terms(self, report: Report) -> list[tuple[Passage, frozenset[str]]]:
        """Each line of ``report`` (:func:`report_lines`, then :func:`page_lines`) with its terms, tokenized once.

        Kept per report for this retriever (its tokenizer), so that a search
        that shows many reports does not cut the same lines again.
        """
        cache = self.__dict__.setdefault("_line_terms", {})
        key = (report.file_name, id(report))
        if key not in cache:
            tok = self.match_tokenizer
            cache[key] = [(line, frozenset(tok(line.text))) for line in report_lines(report) + page_lines(report)]
        return cache[key]

    def text_terms(self, text: str) -> frozenset[str]:
        """The terms of ``text`` by this retriever's tokenizer, remembered for the texts of the last hits shown."""
        cache = self.__dict__.setdefault("_text_terms", {})
        if text not in cache:
            if len(cache) > 4096:
                cache.clear()
            cache[text] = frozenset(self.match_tokenizer(text))
        return cache[text]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(passages={len(self.passages)})"


"""A first answerer over a few reports: BM25 over single operation rows, weighed by meaning and by words.

Chapter 5's answerer, built only from what chapters 1-4 built: each TIME
BREAKDOWN row of the reports is one passage
(:func:`ddrsearch.retrieval.passages.report_lines`), ranked by BM25 with
abbreviations expanded (:class:`ddrsearch.retrieval.lexical.BM25Retriever`);
each of the ``k`` best rows gets an *evidence*

    evidence = (cosine + share) / 2,

the mean of the row's cosine similarity to the searched words (the dense
retriever of chapter 4, :class:`ddrsearch.retrieval.dense.DenseRetriever`)
and the share of the searched words' BM25 terms that the row holds (each
term counted once). A row supports the answer when its evidence reaches the
threshold, which :meth:`RowAnswerer.calibrate` chooses on a handful of
questions (:data:`TOY_QUESTIONS`): a toy, set on ten questions. The archive's
answerer (:class:`ddrsearch.answers.answerer.Answerer`, chapter 10) weighs
terms by IDF, adds each row's margin over the other candidates and
calibrates on the development split of the archive's question set.

Cards are :class:`ddrsearch.answers.answerer.AnswerCard` objects (their rows'
``score`` is the BM25 score, ``coverage`` the share, ``margin`` 0 and
``support`` the evidence), so they print and render as the archive's do.
(chapters/05-answers-with-sources.ipynb)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ddrsearch.answers.answerer import AnswerCard, SupportRow, calibrate_threshold, search_words, shown_words
from ddrsearch.errors import QueryError
from ddrsearch.reading.names import row_id, short_name
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.base import check_query

__all__ = ["TOY_QUESTIONS", "TOY_UNANSWERABLE", "RowAnswerer", "toy_answerer"]

#: Questions about the ten-report sample and the report that answers each (chapter 4's five questions).
TOY_QUESTIONS: dict[str, str] = {
    "stuck pipe": "D038",
    "packers failed to set": "D049",
    "milling up lost pieces of bit": "D050",
    "mud seepage losses": "D019",
    "rigging up before spud": "D003",
}

#: Questions the sample cannot answer, each with a regular expression for the event's words that
#: matches no sample report's page text (the chapter checks it, case-insensitive).
TOY_UNANSWERABLE: dict[str, str] = {
    "coiled tubing unit rigged up": r"\bcoil",
    "well kicked and was shut in": r"\bkick",
    "cement plug set": r"cement\w* plug|plug\w* (with|of) cement",
    "H2S alarm": r"\bH2S\b|hydrogen sulfide",
    "hurricane shut down": r"hurricane",
}


class RowAnswerer:
    """Answer cards over a few reports from BM25 over their operation rows and the rows' evidence.

    Args:
        reports: the reports to answer from (the ten-report sample).
        dense: an indexed dense retriever over the same rows, to share its
            vectors (default: a :class:`~ddrsearch.retrieval.dense.DenseRetriever`
            built here).
        threshold: the evidence a row needs; ``None`` until :meth:`calibrate` sets it.

    Attributes:
        rows: the operation-row passages, in report order.
        bm25: the BM25 retriever over them (abbreviations expanded).
        dense: the dense retriever over them.

    Raises:
        ValueError: no report has an operation row.
    """

    def __init__(self, reports: Sequence[Report], *, dense=None, threshold: float | None = None):
        from ddrsearch.retrieval.dense import DenseRetriever
        from ddrsearch.retrieval.lexical import BM25Retriever
        from ddrsearch.retrieval.passages import report_lines

        self.reports = list(reports)
        self.by_name = {r.file_name: r for r in self.reports}
        self.rows = [p for r in self.reports for p in report_lines(r) if p.kind == "operation"]
        if not self.rows:
            raise ValueError(f"none of the {len(self.reports)} report(s) has an operation row to answer from")
        self.bm25 = BM25Retriever(expand=True).index(self.rows)
        self.dense = dense if dense is not None else DenseRetriever().index(self.rows)
        self.threshold = threshold

    def candidates(self, question: str, k: int = 3) -> list[SupportRow]:
        """The ``k`` best rows for ``question`` by BM25 (ties by report name, then row), with their evidence.

        Rows holding none of the searched terms are not candidates, so a
        question whose words no row holds has none.

        Raises:
            QueryError: nothing is left to search once question words and stop words are removed.
            ValueError: ``k < 1``.
        """
        if k < 1:
            raise ValueError(f"k must be at least 1, got {k}")
        words = search_words(check_query(question))
        terms = set(self.bm25.tokenize(words)) if words.strip() else set()
        if not terms:
            raise QueryError(f"The question {question!r} has nothing to search once its question words "
                             "(when, did, we, ...) and stop words are removed.")
        scores = self.bm25.passage_scores(words)
        cosine = self.dense.passage_scores(words)
        order = sorted((i for i, s in enumerate(scores) if not math.isnan(s)),
                       key=lambda i: (-scores[i], self.rows[i].report, self.rows[i].row))
        out = []
        for i in order[:k]:
            p = self.rows[i]
            report = self.by_name[p.report]
            row = report.operations[p.row]
            share = len(terms & set(self.bm25.tokenize(row.operations))) / len(terms)
            cos = float(cosine[i])
            evidence = (cos + share) / 2
            out.append(SupportRow(
                row_id=row_id(report, row), report=report.file_name, label=short_name(report),
                report_number=report.report_number, date=report.report_date, start=row.start, end=row.end,
                page=row.page, row=row.index, text=row.operations, score=float(scores[i]), cosine=cos,
                coverage=share, evidence=evidence, margin=0.0, support=evidence))
        return out

    def best_evidence(self, question: str, k: int = 3) -> float:
        """The best evidence among the candidates of ``question`` (0 when there are none)."""
        return max((c.evidence for c in self.candidates(question, k)), default=0.0)

    def calibrate(self, answerable: Sequence[str], unanswerable: Sequence[str], k: int = 3) -> float:
        """Set :attr:`threshold` to the best balanced accuracy on these questions and return it.

        Each question's best evidence is compared, with
        :func:`ddrsearch.answers.answerer.calibrate_threshold` (midpoints,
        ties to the lowest, 3 decimals).

        Raises:
            ValueError: either list is empty.
        """
        self.threshold = calibrate_threshold([self.best_evidence(q, k) for q in answerable],
                                             [self.best_evidence(q, k) for q in unanswerable])
        return self.threshold

    def ask(self, question: str, k: int = 3) -> AnswerCard:
        """The card for ``question``: the candidates whose evidence reaches the threshold, in BM25 order.

        The card's order is ``"bm25"``: rows as BM25 ranked them, not by their support.

        Raises:
            ValueError: no threshold yet (call :meth:`calibrate` or pass one), or ``k < 1``.
            QueryError: as :meth:`candidates`.
        """
        if self.threshold is None:
            raise ValueError("RowAnswerer has no threshold yet: call calibrate() or pass threshold=")
        cands = self.candidates(question, k)
        rows = [c for c in cands if c.evidence >= self.threshold]
        return AnswerCard(question=question, searched=shown_words(search_words(question)), order="bm25", rows=rows,
                          candidates=cands, threshold=self.threshold)


def toy_answerer(reports: Sequence[Report], questions: Mapping[str, str] = TOY_QUESTIONS,
                 unanswerable: Mapping[str, str] = TOY_UNANSWERABLE, dense=None) -> RowAnswerer:
    """A :class:`RowAnswerer` over ``reports`` calibrated on the toy questions (chapter 5's)."""
    answerer = RowAnswerer(reports, dense=dense)
    answerer.calibrate(list(questions), list(unanswerable))
    return answerer

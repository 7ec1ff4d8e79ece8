"""What every retriever with a BM25 leg and a dense leg shares: indexing both, the reports, the words matched.

:class:`~ddrsearch.retrieval.hybrid.HybridRetriever` and
:class:`~ddrsearch.retrieval.levered.TunedHybridRetriever` each *hold* a
:class:`~ddrsearch.retrieval.lexical.BM25Retriever` (``self.bm25``) and a
:class:`~ddrsearch.retrieval.dense.DenseRetriever` (``self.dense``) and fuse
their scores; this base class indexes the legs over the retriever's own
passages, attaches the reports to them, and matches words as the BM25 leg does.
"""

from __future__ import annotations

from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import Passage

__all__ = ["TwoLegRetriever"]


class TwoLegRetriever(Retriever):
    """A retriever over the passages of its two legs, ``self.bm25`` and ``self.dense`` (set by the subclass)."""

    def _fit(self, passages: list[Passage]) -> None:
        for leg in (self.bm25, self.dense):
            if [p.passage_id for p in leg.passages] != [p.passage_id for p in passages]:
                leg.index(passages)
            leg.attach_reports(self.reports.values())

    def attach_reports(self, reports):
        """Attach the reports to this retriever and to both legs; return ``self``."""
        reports = list(reports)
        super().attach_reports(reports)
        for leg in (self.bm25, self.dense):
            leg.attach_reports(reports)
        return self

    @property
    def match_options(self) -> dict[str, bool]:
        return self.bm25.match_options

    @property
    def match_tokenizer(self):
        return self.bm25.tokenize

    def best_line(self, query, report):
        return self.dense.best_line(query, report) if self.weight >= 0.5 else self.bm25.best_line(query, report)

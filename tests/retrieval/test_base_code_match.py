"""Retriever.code_match (ddrsearch.retrieval.base): a hit found through its row's CODE cell says so.

The cell and its terms are kept per row; a report attached again under the same name is read again.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np

from ddrsearch.retrieval.base import Retriever
from ddrsearch.retrieval.passages import Hit, Passage


class _Given(Retriever):
    """A retriever with no scoring of its own (code_match is what is tested)."""

    def _fit(self, passages):
        pass

    def passage_scores(self, query):
        return np.zeros(len(self.passages))


def _report(*codes):
    return SimpleNamespace(file_name="A.pdf", operations=[SimpleNamespace(code=c) for c in codes])


def test_the_code_cell_is_shown_only_when_it_alone_holds_the_words():
    r = _Given().index([Passage("A.pdf#0", "A.pdf", "pump out of hole", row=0)]).attach_reports([_report("Circulate", "")])
    hit = Hit(report="A.pdf", score=1.0, rank=1, text="pump out of hole", row=0)
    assert r.code_match("circulate", hit) == "Circulate"
    assert r.code_match("circulate", hit, held=("pump",)) is None  # the row's text holds a word
    assert r.code_match("trip", hit) is None
    assert r.code_match("circulate", Hit(report="A.pdf", score=1.0, rank=1, text="x", row=1)) is None  # no code
    assert r.code_match("circulate", Hit(report="A.pdf", score=1.0, rank=1, text="x", row=5)) is None  # no such row
    assert r.code_match("circulate", Hit(report="B.pdf", score=1.0, rank=1, text="x", row=0)) is None  # no report


def test_a_report_attached_again_is_read_again():
    r = _Given().index([Passage("A.pdf#0", "A.pdf", "pump out of hole", row=0)]).attach_reports([_report("Circulate")])
    hit = Hit(report="A.pdf", score=1.0, rank=1, text="pump out of hole", row=0)
    assert r.code_match("circulate", hit) == "Circulate"
    r.attach_reports([_report("Trips")])
    assert r.code_match("circulate", hit) is None
    assert r.code_match("trips", hit) == "Trips"

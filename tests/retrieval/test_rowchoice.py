"""The row shown for a hit (ddrsearch.retrieval.rowchoice), on the real reports.

The rules choose among one report's operation-row chunks (and header lines)
of the 76-report archive; the search terms and IDF are those of the default
pipeline's BM25 leg (abbreviations expanded, Snowball stems, 'while' dropped).
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from conftest import REPORT_38
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.rowchoice import ROW_RULES, RowTable, choose_row, lucene_idf, prints_depth

pytestmark = [pytest.mark.data, pytest.mark.model]  # chunking reads the embedding model's tokenizer

REPORT_25 = "FORGE-16A-78-32_Drilling_025_2020-11-13.pdf"


@pytest.fixture(scope="module")
def leg(archive):
    """The default pipeline's BM25 leg over the archive's operation-row chunks, and the global IDF."""
    bm25 = BM25Retriever(expand=True, stem=True, stop_extra=["while"]).index(chunk_reports(archive, "operation"))
    df = Counter(t for p in bm25.passages for t in set(bm25.tokenize(p.indexed_text)))
    idf = {t: lucene_idf(c, len(bm25.passages)) for t, c in df.items()}
    return bm25, idf


def _choose(leg, report, question, rule):
    bm25, idf = leg
    candidates = [i for i, p in enumerate(bm25.passages) if p.report == report]
    chosen = choose_row(candidates, rule=rule, terms=set(bm25.tokenize(question)),
                        row_terms=lambda i: set(bm25.tokenize(bm25.passages[i].text)), idf=idf,
                        scores=bm25.passage_scores(question), kinds=[p.kind for p in bm25.passages],
                        texts=[p.text for p in bm25.passages])
    return bm25.passages[chosen]


@pytest.mark.parametrize("rule", ["terms", "answer", "local"])
def test_stuck_pipe_shows_the_row_where_the_pipe_stuck(leg, rule):
    p = _choose(leg, REPORT_38, "stuck pipe", rule)
    assert (p.start, p.end) == ("23:30", "04:00") and "stuck" in p.text.lower()


def test_local_rarity_picks_the_cementing_row(leg):
    # dev question A95: the cement job row (the only row of D025 holding "barrels") answers it; the global
    # weights prefer the row printing "casing" and "9 5/8" (the well head being welded)
    question = "how many barrels of cement went into the 9 5/8 casing job"
    local = _choose(leg, REPORT_25, question, "local")
    answer = _choose(leg, REPORT_25, question, "answer")
    assert "Pumped 428 bbls" in local.text and local.start == "13:00"
    assert "Pumped 428 bbls" not in answer.text and "9 5/8" in answer.text


def test_local_weights_are_rarity_within_the_report(leg):
    bm25, _ = leg
    rows = [p for p in bm25.passages if p.report == REPORT_25]
    holding = sum("barrel" in set(bm25.tokenize(p.text)) for p in rows)
    assert holding == 1  # so "barrels" weighs the most a word can weigh within D025
    assert lucene_idf(holding, len(rows)) == pytest.approx(math.log(1 + (len(rows) - 0.5) / 1.5))


def test_fused_keeps_the_best_scored_passage_and_answer_prefers_what_was_done(leg):
    bm25, idf = leg
    candidates = [i for i, p in enumerate(bm25.passages) if p.report == REPORT_38]
    scores = bm25.passage_scores("pipe free")
    best = choose_row(candidates, rule="fused", terms=set(), row_terms=lambda i: set(), idf=idf, scores=scores,
                      kinds=[], texts=[])
    # the short PRESENT OPERATIONS line "PIPE FREE, TRIP OUT OF HOLE ..." scores highest in BM25
    assert scores[best] == np.nanmax(scores[candidates]) and bm25.passages[best].kind == "header"
    # it holds the same words as the 04:00-06:00 row, which says what was done: the answer rules show that row
    for rule in ("answer", "local"):
        p = _choose(leg, REPORT_38, "pipe free", rule)
        assert p.kind == "operation" and p.start == "04:00" and "Pipe free" in p.text


def test_depth_in_range_comes_first(report38):
    row = next(o for o in report38.operations if o.start == "23:30")
    assert prints_depth(row.operations, (6400.0, 6500.0)) is False  # 6,360' and 6,507' lie outside
    assert prints_depth(row.operations, (6500.0, 6510.0))
    assert not prints_depth("Service rig", (0.0, 20000.0))


def test_bad_rule_or_no_rows_is_an_error():
    assert ROW_RULES == ("fused", "terms", "answer", "local")
    kw = {"terms": set(), "row_terms": lambda i: set(), "idf": {}, "scores": np.zeros(1), "kinds": ["operation"],
          "texts": [""]}
    with pytest.raises(ValueError, match="row must be one of"):
        choose_row([0], rule="best", **kw)
    with pytest.raises(ValueError, match="at least one passage"):
        choose_row([], rule="local", **kw)


def test_the_table_chooses_the_rows_choose_row_chooses(leg, archive_questions):
    # RowTable.choose does for every report at once what choose_row does for one: same position, for
    # every rule, every report and the archive's questions; with a depth range for some reports
    bm25, idf = leg
    ps = bm25.passages
    table = RowTable([p.report for p in ps], [p.kind for p in ps], [p.text for p in ps], bm25.tokenize)
    reports = sorted({p.report for p in ps})
    candidates = {r: [i for i, p in enumerate(ps) if p.report == r] for r in reports}
    depths = {REPORT_38: (6300.0, 6600.0), REPORT_25: (0.0, 20000.0)}
    checked = 0
    for q in list(archive_questions)[:20]:
        terms, scores = set(bm25.tokenize(q.question)), bm25.passage_scores(q.question)
        for rule in ROW_RULES:
            got = table.choose(reports, rule=rule, terms=terms, idf=idf, scores=scores, depths=depths)
            for r, (pos, held) in zip(reports, got, strict=True):
                want = choose_row(candidates[r], rule=rule, terms=terms, row_terms=table.terms_of, idf=idf,
                                  scores=scores, kinds=[p.kind for p in ps], texts=[p.text for p in ps],
                                  depth=depths.get(r))
                assert pos == want, (q.question, rule, r)
                assert held == tuple(sorted(terms & table.terms_of(pos)))
                checked += 1
    assert checked == 20 * len(ROW_RULES) * len(reports)


def test_the_table_chooses_the_same_rows_whatever_the_order_of_the_reports(leg, archive_questions):
    # the table works over the reports in name order (their joined blocks kept) and puts the choices
    # back in the order asked: every order, asked again, gives each report the same row
    bm25, idf = leg
    ps = bm25.passages
    table = RowTable([p.report for p in ps], [p.kind for p in ps], [p.text for p in ps], bm25.tokenize)
    reports = sorted({p.report for p in ps})
    rng = np.random.default_rng(0)
    for q in list(archive_questions)[:5]:
        terms, scores = set(bm25.tokenize(q.question)), bm25.passage_scores(q.question)
        want = dict(zip(reports, table.choose(reports, rule="local", terms=terms, idf=idf, scores=scores),
                        strict=True))
        for size in (1, 5, len(reports), len(reports)):
            asked = [reports[j] for j in rng.permutation(len(reports))[:size]]
            got = table.choose(asked, rule="local", terms=terms, idf=idf, scores=scores)
            assert got == [want[r] for r in asked], (q.question, size)


def test_the_table_refuses_a_bad_rule_and_chooses_nothing_for_no_report():
    table = RowTable(["a.pdf"], ["operation"], ["pipe stuck"], str.split)
    assert table.choose([], rule="local", terms={"pipe"}, idf={}, scores=np.zeros(1)) == []
    assert table.choose(["a.pdf"], rule="local", terms={"pipe"}, idf={}, scores=np.zeros(1)) == [(0, ("pipe",))]
    with pytest.raises(ValueError, match="row must be one of"):
        table.choose(["a.pdf"], rule="best", terms=set(), idf={}, scores=np.zeros(1))
    with pytest.raises(ValueError, match="as long as each other"):
        RowTable(["a.pdf"], [], ["x"], str.split)

"""Keyword and BM25 retrievers (ddrsearch.retrieval.lexical) on the real reports.

Shorthand, glued units and slashes in queries; ties; passages without words.
"""

from __future__ import annotations

import math

import pytest

from conftest import REPORT_38
from ddrsearch.errors import EmptyCorpusError, QueryError
from ddrsearch.retrieval.lexical import BM25Retriever, InvertedIndex, KeywordRetriever
from ddrsearch.retrieval.passages import Passage
from ddrsearch.text.tokenizer import tokenize

STUCK = "pipe became stuck during the slide"


@pytest.mark.data
def test_and_search_finds_report_38_for_stuck(sample):
    hits = KeywordRetriever().index(sample).search("stuck", k=10)
    assert [h.report for h in hits] == [REPORT_38]
    assert (hits[0].start, hits[0].end) == ("23:30", "04:00")
    assert "became stuck" in hits[0].text


@pytest.mark.data
def test_and_search_finds_nothing_for_a_natural_question(sample):
    # every word must occur: "failed" is not in report 49, which says "did not set"
    assert KeywordRetriever().index(sample).search("packers failed to set", k=5) == []


def test_inverted_index_by_hand():
    idx = InvertedIndex([["trip", "in", "hole"], ["trip", "out", "hole", "hole"], ["stuck"]])
    assert idx.postings["hole"] == {0: 1, 1: 2}
    assert idx.and_query(["trip", "hole"]) == {0: 2, 1: 3}
    assert idx.and_query(["trip", "stuck"]) == {}
    assert idx.and_query([]) == {}


@pytest.mark.data
def test_expanded_keyword_search_matches_the_spelled_out_words(sample):
    plain = KeywordRetriever().index(sample).search("TIH", k=10)
    expanded = KeywordRetriever(expand=True).index(sample).search("TIH", k=10)
    assert plain == []  # no sample report writes "TIH"
    assert len(expanded) >= 5
    by_name = {r.file_name: r for r in sample}
    for h in expanded:  # every hit holds all three words of the expansion (not necessarily as a phrase)
        assert {"trip", "in", "hole"} <= set(tokenize(by_name[h.report].text))
    # a report that writes the phrase itself is among them: report 38, "Trip in hole to 5,200'"
    assert REPORT_38 in [h.report for h in expanded]


@pytest.mark.data
def test_bm25_scores_are_finite_and_non_negative(sample, bm25):
    for q in [STUCK, "stuck pipe", "trip out of hole", "drilling", "the", "BHA"]:
        try:
            scores = bm25.report_scores(q)
        except QueryError:
            assert q == "the"
            continue
        assert scores, q
        assert all(math.isfinite(s) and s >= 0 for s in scores.values()), q


@pytest.mark.data
def test_bm25_ranks_report_38_first_for_stuck_pipe(bm25):
    hits = bm25.search(STUCK, k=5)
    assert hits[0].report == REPORT_38
    assert hits[0].start == "23:30"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_ties_are_broken_by_report_name():
    passages = [Passage(f"p{i}", name, "stuck pipe") for i, name in enumerate(["c.pdf", "a.pdf", "b.pdf"])]
    for retriever in (KeywordRetriever(), BM25Retriever()):
        hits = retriever.index(passages).search("stuck", k=3)
        assert [h.report for h in hits] == ["a.pdf", "b.pdf", "c.pdf"]
        assert len({h.score for h in hits}) == 1


@pytest.mark.data
@pytest.mark.parametrize("method", [KeywordRetriever, BM25Retriever])
def test_pu_weight_three_ways_on_the_sample(sample, method):
    """"PU weight", "P/U weight" and "P.U. weight" find the same reports: slash and dotted shorthand are one token."""
    r = method().index(sample)
    found = [sorted(h.report for h in r.search(q, k=10)) for q in ("PU weight", "P/U weight", "P.U. weight")]
    assert found[0] == found[1] == found[2]
    if method is KeywordRetriever:
        assert len(found[0]) == 9  # the nine reports that "PU weight" finds


@pytest.mark.data
@pytest.mark.parametrize("method", [KeywordRetriever, BM25Retriever])
def test_other_slash_shorthand_on_the_sample(sample, method):
    """Other slash shorthand (S/O, M/U, R/U) ranks as its plain spelling does."""
    r = method().index(sample)
    for plain, slashed in (("SO", "S/O"), ("MU", "M/U"), ("RU", "R/U")):
        assert [h.report for h in r.search(f"{slashed} weight", 10)] == [h.report for h in r.search(f"{plain} weight", 10)]


@pytest.mark.data
def test_glued_units_in_keyword_search(archive):
    """Numbers glued to their units in the reports ("250psi") are found by keyword search for "250 psi"."""
    kw = KeywordRetriever().index(archive)
    d018 = "FORGE-16A-78-32_Drilling_018_2020-11-06.pdf"
    d025 = "FORGE-16A-78-32_Drilling_025_2020-11-13.pdf"
    assert d018 in {h.report for h in kw.search("DIFF 250 psi", 76)}
    assert d025 in {h.report for h in kw.search("500 psi over", 76)}


@pytest.mark.data
def test_while_is_dropped_only_where_asked():
    """"while" is dropped only by a retriever given it as an extra stop word; a string there is refused."""
    assert BM25Retriever(stop_extra=["while"]).tokenize("pipe stuck while sliding") == ["pipe", "stuck", "sliding"]
    assert "while" in BM25Retriever().tokenize("pipe stuck while sliding")  # the shared stop list keeps it
    with pytest.raises(ValueError):
        BM25Retriever(stop_extra="while")


def test_bm25_over_passages_without_words_names_the_reports():
    passages = [Passage("a#1", "a.pdf", ""), Passage("b#1", "b.pdf", "the of and"), Passage("c#1", "c.pdf", "  ")]
    with pytest.raises(EmptyCorpusError) as exc:
        BM25Retriever().index(passages)
    assert "a.pdf, b.pdf, c.pdf" in str(exc.value)


def _toy_bm25() -> BM25Retriever:
    texts = ["pipe stuck while sliding, pipe worked free", "trip in hole with pipe", "circulate bottoms up",
             "stuck pipe at 8,000 ft", "rig service"]
    passages = [Passage(f"R{i}.pdf#row0", f"R{i}.pdf", t) for i, t in enumerate(texts)]
    return BM25Retriever(stem=True).index(passages)


@pytest.mark.parametrize("query", ["stuck pipe", "pipe pipe stuck", "trip hole", "circulate", "rig stuck free"])
def test_bm25_scores_equal_bm25s_own_for_repeated_and_missing_terms(query):
    """BM25's query scores are bm25s's get_scores to the last bit (float32 sums in the same order)."""
    import numpy as np

    bm25 = _toy_bm25()
    terms = [t for t in bm25.tokenize(query) if t in bm25.vocabulary]
    assert np.array_equal(bm25._scores(terms), bm25.engine.get_scores(terms))


def test_bm25_restored_without_bm25s_scores_as_the_index_it_was_saved_from(tmp_path):
    """An index saved and read back by SavedBM25 (numpy and json only) gives the same scores, and saves again."""
    import numpy as np

    bm25 = _toy_bm25()
    bm25.save(tmp_path / "a")
    back = BM25Retriever(stem=True).restore(tmp_path / "a", bm25.passages)
    back.engine.save(tmp_path / "b")
    again = BM25Retriever(stem=True).restore(tmp_path / "b", bm25.passages)
    for query in ("stuck pipe", "pipe worked free", "bottoms"):
        assert np.array_equal(back.passage_scores(query), bm25.passage_scores(query), equal_nan=True)
        assert np.array_equal(again.passage_scores(query), bm25.passage_scores(query), equal_nan=True)
    assert back.vocabulary - {""} == bm25.vocabulary  # bm25s saves the empty token too
    assert back.document_frequencies() == bm25.document_frequencies()


def test_bm25_restore_names_a_damaged_vocabulary(tmp_path):
    """A vocabulary naming more terms than the score matrix holds is refused with the folder named."""
    import json

    bm25 = _toy_bm25()
    bm25.save(tmp_path / "a")
    vocab = json.loads((tmp_path / "a" / "vocab.index.json").read_text())
    vocab["zzz"] = 10_000
    (tmp_path / "a" / "vocab.index.json").write_text(json.dumps(vocab))
    with pytest.raises(ValueError, match="score matrix"):
        BM25Retriever(stem=True).restore(tmp_path / "a", bm25.passages)


def test_weighted_term_scores_equal_the_sum_of_each_terms_scores_to_the_last_bit():
    """RM3's sparse feedback sum gives the bits of summing the dense term_scores arrays, unknown terms adding 0."""
    import numpy as np

    bm25 = _toy_bm25()
    weighted = [("pipe", 0.5), ("nosuchterm", 0.2), ("stuck", 0.3), ("pipe", 0.125)]
    dense = np.zeros(len(bm25.passages))
    for term, weight in weighted:
        dense += weight * bm25.term_scores(term)
    assert dense.any()
    assert np.array_equal(bm25.weighted_term_scores(weighted), dense)
    assert not bm25.weighted_term_scores([("nosuchterm", 1.0)]).any()


@pytest.mark.parametrize("query", ["stuck pipe", "pipe pipe stuck", "circulate", "nosuchterm", "rig nosuchterm"])
def test_passage_hits_are_the_scored_passages_of_passage_scores_to_the_last_bit(query):
    """passage_hits gives the positions and values of passage_scores that are not nan (the lexicon lever's sparse add)."""
    import numpy as np

    bm25 = _toy_bm25()
    full = bm25.passage_scores(query)
    where, values = bm25.passage_hits(query)
    assert where.tolist() == np.flatnonzero(~np.isnan(full)).tolist()
    assert values.dtype == np.float64 and np.array_equal(values, full[where])
    with pytest.raises(QueryError):
        bm25.passage_hits("the of")

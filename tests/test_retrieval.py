"""Keyword, BM25 and dense retrievers on the real ten-report sample."""

from __future__ import annotations

import math

import numpy as np
import pytest
from rank_bm25 import BM25Okapi

from conftest import REPORT_38
from ddrsearch.cli.command import main
from ddrsearch.errors import QueryError
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.lexical import BM25Retriever, InvertedIndex, KeywordRetriever
from ddrsearch.retrieval.passages import Passage
from ddrsearch.retrieval.pipeline import make_retriever
from ddrsearch.text.tokenizer import tokenize

STUCK = "pipe became stuck during the slide"


@pytest.fixture(scope="module")
def bm25(sample):
    return BM25Retriever().index(sample)


@pytest.fixture(scope="module")
def dense(sample, tmp_path_factory):
    return DenseRetriever(cache_dir=tmp_path_factory.mktemp("emb")).index(sample)


def test_and_search_finds_report_38_for_stuck(sample):
    hits = KeywordRetriever().index(sample).search("stuck", k=10)
    assert [h.report for h in hits] == [REPORT_38]
    assert (hits[0].start, hits[0].end) == ("23:30", "04:00")
    assert "became stuck" in hits[0].text


def test_and_search_finds_nothing_for_a_natural_question(sample):
    # every word must occur: "failed" is not in report 49, which says "did not set"
    assert KeywordRetriever().index(sample).search("packers failed to set", k=5) == []


def test_inverted_index_by_hand():
    idx = InvertedIndex([["trip", "in", "hole"], ["trip", "out", "hole", "hole"], ["stuck"]])
    assert idx.postings["hole"] == {0: 1, 1: 2}
    assert idx.and_query(["trip", "hole"]) == {0: 2, 1: 3}
    assert idx.and_query(["trip", "stuck"]) == {}
    assert idx.and_query([]) == {}


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


def test_bm25_scores_are_finite_and_non_negative(sample, bm25):
    for q in [STUCK, "stuck pipe", "trip out of hole", "drilling", "the", "BHA"]:
        try:
            scores = bm25.report_scores(q)
        except QueryError:
            assert q == "the"
            continue
        assert scores, q
        assert all(math.isfinite(s) and s >= 0 for s in scores.values()), q


def test_bm25_ranks_report_38_first_for_stuck_pipe(bm25):
    hits = bm25.search(STUCK, k=5)
    assert hits[0].report == REPORT_38
    assert hits[0].start == "23:30"
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:]))


def test_rank_bm25_okapi_gives_a_common_word_no_weight(sample):
    """The reason the package does not use BM25Okapi on ten reports."""
    docs = [tokenize(r.text) for r in sample]
    okapi = BM25Okapi(docs)
    in_all = [t for t in set(docs[0]) if all(t in d for d in docs)]
    assert "rig" in in_all
    idf = okapi.idf["rig"]
    assert idf <= 0.25 * okapi.average_idf + 1e-12  # floored to epsilon * mean idf, or below
    # rank-bm25's floor is epsilon * average_idf; when most terms are common it goes negative
    common = BM25Okapi([["rig", "trip"], ["rig", "trip"], ["rig", "stuck"]])
    assert common.idf["rig"] < 0 and common.idf["trip"] < 0
    assert np.all(common.get_scores(["rig"]) < 0)
    # the package's BM25 (Lucene IDF) keeps such a term positive
    lucene = BM25Retriever().index([Passage(str(i), f"r{i}", " ".join(d)) for i, d in enumerate([["rig", "trip"], ["rig", "trip"], ["rig", "stuck"]])])
    assert all(s > 0 for s in lucene.report_scores("rig").values())


def test_ties_are_broken_by_report_name():
    passages = [Passage(f"p{i}", name, "stuck pipe") for i, name in enumerate(["c.pdf", "a.pdf", "b.pdf"])]
    for retriever in (KeywordRetriever(), BM25Retriever()):
        hits = retriever.index(passages).search("stuck", k=3)
        assert [h.report for h in hits] == ["a.pdf", "b.pdf", "c.pdf"]
        assert len({h.score for h in hits}) == 1


def test_dense_search_is_repeatable(dense):
    a = dense.search(STUCK, k=10)
    b = dense.search(STUCK, k=10)
    assert [(h.report, h.score) for h in a] == [(h.report, h.score) for h in b]
    assert len(a) == 10  # dense retrieval scores every report
    assert all(-1.0 <= h.score <= 1.0 for h in a)


@pytest.mark.parametrize("method", ["keyword", "bm25"])
def test_errors(sample, method):
    r = make_retriever(method).index(sample)
    with pytest.raises(QueryError, match="empty"):
        r.search("   ", k=5)
    with pytest.raises(QueryError, match="no searchable words"):
        r.search("the of and", k=5)
    with pytest.raises(ValueError, match="at least 1"):
        r.search("stuck", k=0)
    with pytest.raises(RuntimeError, match="index"):
        make_retriever(method).search("stuck", k=5)


def test_unknown_method():
    with pytest.raises(ValueError, match="keyword, bm25, dense, hybrid"):
        make_retriever("tfidf")


def test_cli_search_prints_report_38_first(capsys, archive_folder):
    assert main(["search", STUCK, "--method", "bm25", "-k", "3", "--corpus", "sample"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["rank", "report", "date", "score", "row"]
    first = out[2].split()
    assert first[:3] == ["1", "D038", "2020-11-26"] and first[4] == "23:30-04:00"


def test_cli_search_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = capsys.readouterr().out
    for option in ("--method", "-k", "--corpus", "--expand", "--archive", "--width"):
        assert option in text


def test_a_query_with_undecodable_bytes_is_a_clear_error(bm25):
    with pytest.raises(QueryError, match="not valid text"):
        bm25.search("stuck \udcff pipe", k=3)  # what Python makes of byte 0xFF on a UTF-8 command line

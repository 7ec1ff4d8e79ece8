"""Tests of ddrsearch.evaluation.trec: TREC qrels/run files (trec_eval's reading of them is in tests/reference/)."""

from __future__ import annotations

import string
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.errors import DuplicateDocumentError, TrecFormatError
from ddrsearch.evaluation.metrics import evaluate, rank_by_score
from ddrsearch.evaluation.trec import read_qrels, read_run, write_qrels, write_run

A = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


B = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


C = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"


# ids without whitespace, as TREC requires
token = st.text(alphabet=string.ascii_letters + string.digits + "-_.()", min_size=1, max_size=12)


scores = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


def test_write_qrels_format_and_order(tmp_path):
    path = tmp_path / "qrels.txt"
    write_qrels({"q2": {B: 0, A: 2}, "q1": {C: 1}}, path)
    assert path.read_text() == (
        f"q1 0 {C} 1\n"
        f"q2 0 {A} 2\n"
        f"q2 0 {B} 0\n"
    )


def test_write_run_from_scores_uses_package_tie_order(tmp_path):
    path = tmp_path / "run.txt"
    write_run({"q1": {B: 0.5, C: 0.9, A: 0.5}}, path, tag="bm25")
    assert path.read_text().splitlines() == [
        f"q1 Q0 {C} 1 0.9 bm25",
        f"q1 Q0 {A} 2 0.5 bm25",  # tie: A before B (doc id ascending)
        f"q1 Q0 {B} 3 0.5 bm25",
    ]


def test_write_run_from_ranked_lists_scores_decrease(tmp_path):
    path = tmp_path / "run.txt"
    write_run({"q2": [C, A], "q1": [B, A, C]}, path)
    assert path.read_text().splitlines() == [
        f"q1 Q0 {B} 1 3.0 ddrsearch",
        f"q1 Q0 {A} 2 2.0 ddrsearch",
        f"q1 Q0 {C} 3 1.0 ddrsearch",
        f"q2 Q0 {C} 1 2.0 ddrsearch",
        f"q2 Q0 {A} 2 1.0 ddrsearch",
    ]
    # trec_eval sorts by score, and keeps our order because scores are distinct
    run = read_run(path)
    assert rank_by_score(run["q1"]) == [B, A, C]
    assert rank_by_score(run["q2"]) == [C, A]


def test_empty_ranking_writes_no_line_and_evaluates_the_same(tmp_path):
    path = tmp_path / "run.txt"
    run = {"q1": [A], "q2": []}
    qrels = {"q1": {A: 1}, "q2": {B: 1}}
    write_run(run, path)
    parsed = read_run(path)
    assert parsed == {"q1": {A: 1.0}}
    assert evaluate(parsed, qrels, 5).equals(evaluate(run, qrels, 5))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(token, st.dictionaries(token, st.integers(0, 4), min_size=1, max_size=8), max_size=5))
def test_qrels_round_trip(qrels):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "qrels.txt"
        write_qrels(qrels, path)
        assert read_qrels(path) == qrels


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(token, st.dictionaries(token, scores, min_size=1, max_size=8), max_size=5))
def test_run_scores_round_trip_exactly(run):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        write_run(run, path)
        back = read_run(path)
        assert back == run  # floats identical, not just close
        for qid in run:
            assert rank_by_score(back[qid]) == rank_by_score(run[qid])
        # rank column is 1..n in the package tie order
        lines = path.read_text().splitlines()
        for qid in run:
            mine = [ln.split() for ln in lines if ln.split()[0] == qid]
            assert [int(f[3]) for f in mine] == list(range(1, len(mine) + 1))
            assert [f[2] for f in mine] == rank_by_score(run[qid])


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(token, st.lists(token, min_size=1, max_size=10, unique=True), max_size=5))
def test_run_rankings_round_trip(run):
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        write_run(run, path)
        back = read_run(path)
        assert {q: rank_by_score(s) for q, s in back.items()} == run


@pytest.mark.parametrize("bad", ["Daily report 38.pdf", "a\tb", ""])
def test_doc_id_with_whitespace_is_rejected(tmp_path, bad):
    with pytest.raises(ValueError, match="doc id") as info:
        write_qrels({"q1": {bad: 1}}, tmp_path / "q.txt")
    assert repr(bad) in str(info.value)
    with pytest.raises(ValueError, match="doc id"):
        write_run({"q1": {bad: 1.0}}, tmp_path / "r.txt")
    with pytest.raises(ValueError, match="doc id"):
        write_run({"q1": [A, bad]}, tmp_path / "r.txt")


def test_qid_and_tag_with_whitespace_are_rejected(tmp_path):
    with pytest.raises(ValueError, match="question id 'q 1'"):
        write_qrels({"q 1": {A: 1}}, tmp_path / "q.txt")
    with pytest.raises(ValueError, match="question id 'q 1'"):
        write_run({"q 1": [A]}, tmp_path / "r.txt")
    with pytest.raises(ValueError, match="run tag"):
        write_run({"q1": [A]}, tmp_path / "r.txt", tag="my run")


def test_write_errors_on_bad_values(tmp_path):
    with pytest.raises(ValueError, match="negative"):
        write_qrels({"q1": {A: -1}}, tmp_path / "q.txt")
    with pytest.raises(TypeError, match="grade"):
        write_qrels({"q1": {A: 1.0}}, tmp_path / "q.txt")
    with pytest.raises(TypeError):
        write_qrels({1: {A: 1}}, tmp_path / "q.txt")
    with pytest.raises(ValueError, match="finite"):
        write_run({"q1": {A: float("nan")}}, tmp_path / "r.txt")
    with pytest.raises(DuplicateDocumentError, match=A):
        write_run({"q1": [A, B, A]}, tmp_path / "r.txt")
    with pytest.raises(TypeError):
        write_run({"q1": A}, tmp_path / "r.txt")  # a string, not a list
    with pytest.raises(TypeError):
        write_run({"q1": {A, B}}, tmp_path / "r.txt")  # a set has no order


@pytest.mark.parametrize(
    "content, line, problem",
    [
        (f"q1 0 {A} 1\nq1 0 {B}\n", 2, "expected 4 fields"),
        (f"q1 0 {A} 1\n\nq1 0 {B} 1 extra\n", 3, "expected 4 fields"),
        (f"q1 0 {A} high\n", 1, "not an integer"),
        (f"q1 0 {A} 1.5\n", 1, "not an integer"),
        (f"q1 0 {A} -1\n", 1, "negative"),
        (f"q1 0 {A} 1\nq1 0 {A} 2\n", 2, "judged twice.*line 1"),
    ],
)
def test_read_qrels_errors_name_file_and_line(tmp_path, content, line, problem):
    path = tmp_path / "bad_qrels.txt"
    path.write_text(content)
    with pytest.raises(TrecFormatError, match=problem) as info:
        read_qrels(path)
    assert isinstance(info.value, ValueError)
    assert str(path) in str(info.value)
    assert f"line {line}:" in str(info.value)
    assert info.value.lineno == line


@pytest.mark.parametrize(
    "content, line, problem",
    [
        (f"q1 Q0 {A} 1 0.5\n", 1, "expected 6 fields"),
        (f"q1 Q0 {A} 1 0.5 t\nq1 Q0 {B} 2 0.4 t x\n", 2, "expected 6 fields"),
        (f"q1 Q0 {A} one 0.5 t\n", 1, "rank 'one'"),
        (f"q1 Q0 {A} 0 0.5 t\n", 1, "rank '0'"),
        (f"q1 Q0 {A} 1 high t\n", 1, "not a number"),
        (f"q1 Q0 {A} 1 nan t\n", 1, "not finite"),
        (f"q1 Q0 {A} 1 0.5 t\n\nq1 Q0 {A} 2 0.4 t\n", 3, "listed twice.*line 1"),
    ],
)
def test_read_run_errors_name_file_and_line(tmp_path, content, line, problem):
    path = tmp_path / "bad_run.txt"
    path.write_text(content)
    with pytest.raises(TrecFormatError, match=problem) as info:
        read_run(path)
    assert str(path) in str(info.value)
    assert f"line {line}:" in str(info.value)


def test_readers_skip_blank_lines_and_accept_other_whitespace(tmp_path):
    (tmp_path / "q.txt").write_text(f"\nq1\t0\t{A}\t2\n  \nq1 0 {B} 0\n")
    assert read_qrels(tmp_path / "q.txt") == {"q1": {A: 2, B: 0}}
    (tmp_path / "r.txt").write_text(f"q1\tQ0\t{A}\t1\t1e-3\tx\n\n")
    assert read_run(tmp_path / "r.txt") == {"q1": {A: 0.001}}


def test_missing_file_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        read_qrels(tmp_path / "nope.txt")
    with pytest.raises(OSError):
        read_run(tmp_path / "nope.txt")

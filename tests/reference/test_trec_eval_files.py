"""The TREC files ddrsearch.evaluation.trec writes, read and evaluated by trec_eval (through pytrec_eval)."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import pytrec_eval
from hypothesis import given, settings
from hypothesis import strategies as st

from ddrsearch.evaluation.metrics import evaluate, metric_columns
from ddrsearch.evaluation.trec import read_qrels, read_run, write_qrels, write_run

TOL = 1e-9


A = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


B = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


C = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"


def test_written_files_are_readable_by_pytrec_eval_parsers(tmp_path):
    qrels = {"q1": {A: 1, B: 0}, "q2": {C: 3}}
    run = {"q1": {A: 0.25, B: 1.5e-7}, "q2": {A: -3.0, C: 2.0}}
    write_qrels(qrels, tmp_path / "q.txt")
    write_run(run, tmp_path / "r.txt")
    with open(tmp_path / "q.txt") as f:
        assert pytrec_eval.parse_qrel(f) == qrels
    with open(tmp_path / "r.txt") as f:
        assert pytrec_eval.parse_run(f) == run


POOL = [f"FORGE-16A-78-32_Drilling_{i:03d}.pdf" for i in range(30)]


@st.composite
def question_set(draw):
    qrels, run = {}, {}
    for i in range(draw(st.integers(1, 4))):
        qid = f"q{i}"
        judged = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=10, unique=True))
        grades = draw(st.lists(st.integers(0, 3), min_size=len(judged), max_size=len(judged)))
        grades[0] = max(grades[0], 1)
        qrels[qid] = dict(zip(judged, grades))
        run[qid] = draw(st.lists(st.sampled_from(POOL), min_size=1, max_size=20, unique=True))
    return run, qrels


@settings(max_examples=60, deadline=None)
@given(question_set(), st.integers(1, 15))
def test_written_run_evaluated_by_trec_eval_matches_evaluate(data, k):
    run, qrels = data
    measures = [f"P_{k}", f"recall_{k}", f"success_{k}", "recip_rank", "map", f"ndcg_cut_{k}"]
    with tempfile.TemporaryDirectory() as tmp:
        qpath, rpath = Path(tmp) / "qrels.txt", Path(tmp) / "run.txt"
        write_qrels(qrels, qpath)
        write_run(run, rpath)
        with open(qpath) as f:
            te_qrels = pytrec_eval.parse_qrel(f)
        with open(rpath) as f:
            te_run = pytrec_eval.parse_run(f)
        ours = evaluate(read_run(rpath), read_qrels(qpath), k)
    ref = pytrec_eval.RelevanceEvaluator(te_qrels, set(measures)).evaluate(te_run)
    direct = evaluate(run, qrels, k)
    assert ours.equals(direct)
    for qid in qrels:
        for measure, col in zip(measures, metric_columns(k)):
            assert ours.loc[qid, col] == pytest.approx(ref[qid][measure], abs=TOL)


def test_tied_scores_in_a_run_file_are_ranked_differently_by_trec_eval(tmp_path):
    write_run({"q": {A: 1.0, B: 1.0}}, tmp_path / "run.txt")
    write_qrels({"q": {A: 1}}, tmp_path / "qrels.txt")
    run, qrels = read_run(tmp_path / "run.txt"), read_qrels(tmp_path / "qrels.txt")
    assert evaluate(run, qrels, 1).loc["q", "RR"] == 1.0  # A first (ascending)
    te = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert te["q"]["recip_rank"] == pytest.approx(0.5)  # B first (descending)

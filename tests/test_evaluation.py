"""The evaluation harness, the default pipeline's tuned weight, and ``ddrsearch eval``."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from ddrsearch.cli.command import main
from ddrsearch.evaluation.evaluate import (
    breakdown,
    compare,
    evaluate_retriever,
    evaluate_run,
    follow,
    run,
    sweep_weight,
)
from ddrsearch.evaluation.metrics import metric_columns
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import DEFAULT_WEIGHT, build_retriever


@pytest.fixture(scope="module")
def starter(archive_folder):
    return load_questions("starter")


def test_per_question_table_by_hand(starter, sample):
    bm25 = build_retriever("bm25", sample)
    table = evaluate_retriever(bm25, starter, k=3)
    assert list(table.index) == ["S01", "S02", "S03", "S04", "S05"]
    assert set(metric_columns(3)) <= set(table.columns)
    # S01 (pipe got stuck while sliding): the table's rank is where a plain search puts report 38
    hits = [h.report for h in bm25.search(starter["S01"].question, k=10)]
    rank38 = hits.index("FORGE-16A-78-32_Drilling_038_2020-11-26.pdf") + 1
    assert table.loc["S01", "ranks"] == f"38:{rank38}" and table.loc["S01", "first_rank"] == rank38
    for qid, row in table.iterrows():
        r = row.first_rank
        # one relevant report: recall@3 = hit@3, RR = 1/rank, NDCG@3 = 1/log2(rank+1) within 3
        assert row["recall@3"] == row["hit@3"] == (1.0 if r <= 3 else 0.0)
        assert row["RR"] == pytest.approx(0.0 if math.isnan(r) else 1.0 / r)
        assert row["NDCG@3"] == pytest.approx(1.0 / math.log2(r + 1) if r <= 3 else 0.0)


def test_a_question_keyword_search_cannot_answer_counts_as_not_found(starter, sample):
    ranked = run(build_retriever("keyword", sample), starter)
    # S03 asks about "milling up junk from a broken bit": report 50 says "Milled up lost pieces of bit"
    assert ranked["S03"] == []
    table = evaluate_run(ranked, starter, k=5)
    assert table.loc["S03", "ranks"] == "50:-" and math.isnan(table.loc["S03", "first_rank"])
    assert table.loc["S03", "RR"] == 0.0 and table.loc["S03", "recall@5"] == 0.0


def test_compare_breakdown_follow(starter, sample):
    results = {m: evaluate_retriever(build_retriever(m, sample), starter, k=3) for m in ("keyword", "bm25")}
    table = compare(results, k=3)
    assert list(table.index) == ["keyword", "bm25"]
    assert table.loc["bm25", "MRR"] == pytest.approx(results["bm25"]["RR"].mean())
    by_cat = breakdown(results, "category", "recall@3")
    assert by_cat["questions"].sum() == 5
    with pytest.raises(KeyError):
        breakdown(results, "colour", "recall@3")
    f = follow(starter["S02"], {"bm25": build_retriever("bm25", sample), "keyword": build_retriever("keyword", sample)})
    assert f.loc["keyword", "report 49"] == 1 and f.loc["keyword", "retrieved"] == 1  # "packers would not set"
    assert f.loc["bm25", "report 49"] == results["bm25"].loc["S02", "first_rank"]


def test_default_weight_is_what_the_dev_sweep_picks(archive, archive_questions):
    """DEFAULT_WEIGHT was tuned on the dev questions only, with the default's levers (DEFAULT_LEVERS) switched on.

    ``build_retriever("hybrid")`` is the default pipeline, levers included, and ``sweep_weight`` keeps them
    (``TunedHybridRetriever.with_weight``): re-running the sweep over it must still pick DEFAULT_WEIGHT.
    """
    hybrid = build_retriever("hybrid", archive)
    assert all(getattr(hybrid.with_weight(0.3), k) == getattr(hybrid, k)
               for k in ("candidates", "asker", "prf", "structured", "row", "proximity"))
    table, best = sweep_weight(hybrid, archive_questions.split("dev"))
    assert best == DEFAULT_WEIGHT
    assert list(table.index) == [round(i / 10, 4) for i in range(11)]
    assert table["NDCG@5"].max() == table.loc[DEFAULT_WEIGHT, "NDCG@5"]


def test_cli_eval_prints_and_writes_csv(tmp_path, capsys, archive_folder):
    out = tmp_path / "starter.csv"
    assert main(["eval", "starter", "--methods", "keyword,bm25", "-k", "3", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "starter: 5 answerable questions over 10 reports, k = 3" in text
    per_q = pd.read_csv(out)
    assert len(per_q) == 10 and set(per_q.method) == {"keyword", "bm25"}
    means = pd.read_csv(tmp_path / "starter_means.csv", index_col=0)
    assert means.loc["bm25", "recall@3"] == pytest.approx(per_q[per_q.method == "bm25"]["recall@3"].mean())
    assert "evidence@3" in text and 0 <= means.loc["bm25", "evidence@3"] <= 1
    assert main(["eval", "starter", "--methods", "bm25,tfidf"]) == 2


def test_cli_eval_expand_is_the_books_best_single_method(tmp_path, capsys, archive, archive_folder):
    # chapter 12 compares the default with "BM25 + expansion"; before, eval could not run that method
    out = tmp_path / "fresh.csv"
    assert main(["eval", "fresh", "--methods", "bm25", "--expand", "--out", str(out)]) == 0
    assert "bm25+expand" in capsys.readouterr().out
    means = pd.read_csv(tmp_path / "fresh_means.csv", index_col=0)
    same = evaluate_retriever(build_retriever("bm25", archive, expand=True), load_questions("fresh").answerable())
    assert list(means.index) == ["bm25+expand"]
    assert means.loc["bm25+expand", "NDCG@5"] == pytest.approx(same["NDCG@5"].mean())
    assert means.loc["bm25+expand", "hit@5"] == pytest.approx(same["hit@5"].mean())
    assert main(["eval", "fresh", "--methods", "dense,hybrid", "--expand"]) == 2
    assert "--expand applies to keyword and bm25, not dense, hybrid" in capsys.readouterr().err


def test_cli_eval_prints_intervals_and_the_paired_gain(tmp_path, capsys, archive, archive_folder):
    # eval printed means only, while the book's rule is that a method is better only beyond its interval
    from ddrsearch.evaluation.significance import bootstrap_ci, paired_bootstrap

    out = tmp_path / "dev.csv"
    assert main(["eval", "archive", "--split", "dev", "--methods", "bm25,bm25+expand", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    questions = load_questions("archive").split("dev").answerable()
    plain = evaluate_retriever(build_retriever("bm25", archive), questions)
    expanded = evaluate_retriever(build_retriever("bm25", archive, expand=True), questions)
    mean, lo, hi = bootstrap_ci(plain["NDCG@5"].to_numpy(), n=2000, seed=0)
    assert f"{mean:.3f} [{lo:.3f}, {hi:.3f}]" in text
    gain, lo, hi = paired_bootstrap(expanded["NDCG@5"].to_numpy(), plain["NDCG@5"].to_numpy(), n=2000, seed=0)
    assert "NDCG@5 gain over bm25, paired on the same questions" in text
    verdict = "better" if lo > 0 else "worse" if hi < 0 else "cannot be told apart"
    assert f"bm25+expand  {gain:+.3f} [{lo:+.3f}, {hi:+.3f}]  {verdict}" in text
    means = pd.read_csv(tmp_path / "dev_means.csv", index_col=0)
    assert list(means.index) == ["bm25", "bm25+expand"]  # both in one run: --expand alone cannot do that
    assert means.loc["bm25+expand", "NDCG@5 gain"] == pytest.approx(gain)
    assert means.loc["bm25+expand", "NDCG@5 gain low"] == pytest.approx(lo)
    assert means.loc["bm25", "NDCG@5 gain"] == 0
    _, lo, hi = bootstrap_ci(plain["NDCG@5"].to_numpy(), n=2000, seed=0)
    assert means.loc["bm25", "NDCG@5 ±"] == pytest.approx((hi - lo) / 2)


def test_cli_eval_refuses_a_method_named_twice_and_a_stray_baseline(capsys, archive_folder):
    # before, "--methods bm25,bm25" printed one row, and "--methods bm25 --expand" could not sit beside bm25
    assert main(["eval", "starter", "--methods", "bm25,bm25"]) == 2
    assert "names bm25 more than once" in capsys.readouterr().err
    assert main(["eval", "starter", "--methods", "bm25,bm25+expand", "--expand"]) == 2
    assert "bm25+expand already has it" in capsys.readouterr().err
    assert main(["eval", "starter", "--methods", "bm25,dense", "--baseline", "hybrid"]) == 2
    err = capsys.readouterr().err
    assert "--baseline hybrid is not among the methods (bm25, dense)" in err
    assert main(["eval", "starter", "--methods", "bm25", "-k", "3"]) == 0
    text = capsys.readouterr().out
    assert "95% bootstrap intervals over the 5 questions" in text and "gain over" not in text
    assert "write at least 10" in text  # five questions: no verdict, and a note saying why


def test_cli_eval_by_style_prints_the_per_style_hit_table(capsys, archive, archive_folder):
    # the per-style table (hit@5 by style) could only be had from the chapter; now from eval --by style
    assert main(["eval", "fresh", "--methods", "bm25+expand", "--by", "style,kind"]) == 0
    out = capsys.readouterr().out
    table = evaluate_retriever(build_retriever("bm25", archive, expand=True), load_questions("fresh").answerable())
    part = out.split("hit@5 by style:")[1].split("\n\n")[0].splitlines()
    rows = {line.split()[0]: line.split() for line in part[2:]}
    for style, mean in table.groupby("style")["hit@5"].mean().items():
        assert rows[style][-1] == f"{mean:.3f}"
        assert int(rows[style][1]) == int((table["style"] == style).sum())
    assert "recall@5 by kind:" in out and "by category" not in out
    with pytest.raises(SystemExit):
        main(["eval", "fresh", "--by", "styles"])
    assert "'styles': choose one or more of category, style, kind, difficulty" in capsys.readouterr().err

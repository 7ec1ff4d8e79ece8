"""``ddrsearch eval``: the printed tables, intervals and verdicts, the CSV files, and its errors.

A mistake in the options (``--out``, a split, a method, a question set) is refused
before the evaluation runs.
"""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
import yaml

from ddrsearch.cli.command import main
from ddrsearch.evaluation.evaluate import evaluate_retriever
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import build_retriever


def _never(*args, **kwargs):
    raise AssertionError("the evaluation ran before --out was checked")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_eval_out_that_cannot_be_created_is_refused_before_the_evaluation(capsys, monkeypatch):
    """``eval --out`` that cannot be created ran the whole evaluation, then failed with [Errno 2]; it is refused before
    the evaluation.
    """
    # before: the whole evaluation ran (minutes with dense/hybrid), printed its table, then
    # "ddrsearch eval: [Errno 2] No such file or directory: '/proc/run.csv'" and exit 1 with no CSV.
    # (A read-only folder does the same with [Errno 13] for a non-root user.)
    import ddrsearch.evaluation.questionfiles

    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", _never)
    assert main(["eval", "fresh", "--methods", "bm25", "--out", "/proc/run.csv"]) == 1
    err = capsys.readouterr().err
    assert "--out /proc/run.csv" in err and "Errno" not in err


def test_eval_out_whose_means_file_is_a_folder_is_refused_before_the_evaluation(tmp_path, capsys, monkeypatch):
    """``eval --out run.csv`` with run_means.csv a folder lost the means after the evaluation ([Errno 21]); it is
    refused before.
    """
    # --out run.csv also writes run_means.csv; when that is a folder the evaluation ran, wrote run.csv,
    # then "ddrsearch eval: [Errno 21] Is a directory: '.../run_means.csv'" (the means are lost).
    import ddrsearch.evaluation.questionfiles

    (tmp_path / "run_means.csv").mkdir()
    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", _never)
    assert main(["eval", "fresh", "--methods", "bm25", "--out", str(tmp_path / "run.csv")]) == 1
    err = capsys.readouterr().err
    assert "run_means.csv" in err and "Errno" not in err


def test_eval_out_empty_is_refused(capsys):
    """``eval --out ''`` is refused as empty."""
    assert main(["eval", "fresh", "--methods", "bm25", "--out", ""]) == 1
    assert "--out is empty" in capsys.readouterr().err


@pytest.mark.data
def test_eval_of_a_split_the_set_does_not_have_says_which_splits_it_has(capsys, archive_folder):
    """``eval --split dev`` of a set without a dev split says which split it has."""
    assert main(["eval", "fresh", "--methods", "bm25", "--split", "dev"]) == 1
    err = capsys.readouterr().err
    assert "no questions in the dev split" in err and "--split test" in err


def test_a_question_set_path_that_is_a_folder_is_named_as_one(tmp_path, capsys):
    """A question-set path that is a folder said "No question-set file at"; it says it is a folder and names the
    shipped sets.
    """
    # before: "No question-set file at <folder>." although something is there
    assert main(["eval", str(tmp_path), "--methods", "bm25"]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path} is a folder, not a question-set file" in err and "starter, archive, fresh" in err


def _one_question_set(tmp_path, archive_folder):
    starter = load_questions("starter")
    q = starter["S01"]
    data = {"name": "one", "description": "one question", "corpus": "sample", "questions": [{
        "id": "Q1", "question": q.question, "category": q.category, "difficulty": q.difficulty,
        "style": q.style, "split": "dev",
        "relevant": [{"report": j.report, "grade": j.grade, "evidence": j.evidence} for j in q.relevant]}]}
    path = tmp_path / "one.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


@pytest.mark.data
def test_one_question_gets_intervals_but_no_verdict(tmp_path, capsys, archive_folder):
    """One question gave "+0.631 [+0.631, +0.631] better"; it gets no verdict, too few questions."""
    # before: "+0.631 [+0.631, +0.631]  better" from a single question
    path = _one_question_set(tmp_path, archive_folder)
    assert main(["eval", str(path), "--methods", "keyword,hybrid"]) == 0
    out = capsys.readouterr().out
    assert "better: the whole" not in out and "no verdict: 1 question is too few" in out


@pytest.mark.data
def test_intervals_are_printed_as_computed_and_stay_within_the_metric(tmp_path, capsys, archive_folder):
    """"0.900 ± 0.150" read as reaching 1.05 and the CSV kept only the half width; intervals are printed as computed,
    within the metric.
    """
    # before: "0.900 ± 0.150" read as reaching 1.05; the CSV kept only the half width
    out_csv = tmp_path / "s.csv"
    assert main(["eval", "starter", "--methods", "bm25,hybrid", "-k", "3", "--out", str(out_csv)]) == 0
    means = pd.read_csv(tmp_path / "s_means.csv", index_col=0)
    for metric in ("hit@3", "MRR", "NDCG@3"):
        assert (means[f"{metric} low"] >= 0).all() and (means[f"{metric} high"] <= 1).all()
        assert (means[f"{metric} low"] <= means[metric]).all() and (means[metric] <= means[f"{metric} high"]).all()
    assert list(means["baseline"]) == ["bm25", "bm25"]
    assert list(means["verdict"]) == ["baseline", "no verdict"]
    assert "questions scored differently" in means.columns
    text = capsys.readouterr().out
    row = means.loc["hybrid"]
    assert f"{row['MRR']:.3f} [{row['MRR low']:.3f}, {row['MRR high']:.3f}]" in text


@pytest.mark.data
def test_expand_and_baseline_mistakes_are_named_as_such(capsys, archive_folder):
    """``--expand`` with bm25+expand, and an empty ``--baseline`` (silently the first method), are named as such."""
    # before: "names bm25+expand more than once" and "--expand applies to keyword and bm25, not bm25+expand"
    assert main(["eval", "starter", "--methods", "bm25+expand", "--expand"]) == 2
    assert "bm25+expand already has it" in capsys.readouterr().err
    # before: --baseline "" silently took the first method
    assert main(["eval", "starter", "--methods", "bm25,dense", "--baseline", ""]) == 2
    assert "--baseline is empty" in capsys.readouterr().err
    assert main(["eval", "starter", "--methods", "bm25,dense", "--baseline", " dense", "-k", "3"]) == 0
    assert "gain over dense" in capsys.readouterr().out


@pytest.mark.data
def test_shipped_sets_are_named_in_help_and_for_a_wrong_name(capsys, archive_folder):
    """``eval --help`` and a wrong set name listed the shipped sets without fresh2; every shipped set is named."""
    # before: eval --help listed starter, archive, fresh; "fresh3" gave "No question-set file at fresh3."
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert "fresh2" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError, match="starter, archive, fresh, fresh2"):
        load_questions("fresh3")


@pytest.mark.data
@pytest.mark.parametrize("target", ["/dev/null", "-"])
def test_eval_out_refuses_a_device_and_a_dash(target, capsys, archive_folder, tmp_path, monkeypatch):
    """``eval --out /dev/null`` wrote /dev/null_means.csv and ``--out -`` files named "-"; both are refused."""
    # before: /dev/null wrote /dev/null_means.csv; "-" wrote files named "-" and "-_means.csv"
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "starter", "--methods", "bm25", "--out", target]) == 1
    assert "give a CSV file name" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


@pytest.fixture(scope="module")
def starter(archive_folder):
    return load_questions("starter")


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
def test_eval_scores_a_stop_word_question_zero_instead_of_stopping(archive_folder, tmp_path, capsys):
    """A question of stop words only stopped ``eval`` with no table; it scores zero, with a note naming the question."""
    import yaml

    from ddrsearch.evaluation.questionfiles import question_set_path

    data = yaml.safe_load(question_set_path("starter").read_text(encoding="utf-8"))
    data["questions"][0]["question"] = "the of ?"  # accepted by load_questions
    qfile = tmp_path / "stop.yaml"
    qfile.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    # before: "ddrsearch eval: The query 'the of ?' has no searchable words" and no table at all
    # (evidence_agreement searched it again without the care evaluate_retriever takes)
    assert main(["eval", str(qfile), "--methods", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "note: bm25 had no searchable words in question(s) S01; they score zero." in out
    assert "recall@5" in out


def test_eval_out_below_a_file_is_refused_before_the_evaluation_runs(tmp_path, capsys, monkeypatch):
    """``eval --out`` below a file ran the whole evaluation, then failed with [Errno 17]; it is refused before the
    evaluation.
    """
    import ddrsearch.evaluation.questionfiles

    afile = tmp_path / "results"
    afile.write_text("")

    def never(*args, **kwargs):
        raise AssertionError("the evaluation ran before --out was checked")

    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", never)
    # before: the whole evaluation ran, then "ddrsearch eval: [Errno 17] File exists: '.../results'"
    # and the per-question CSV was never written
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(afile / "run.csv")]) == 1
    err = capsys.readouterr().err
    assert f"--out {afile / 'run.csv'} cannot be written: {afile} is a file, not a folder" in err
    assert "Errno" not in err


@pytest.mark.data
def test_eval_with_no_method_and_with_k_above_the_corpus(archive_folder, capsys):
    """``--methods ' , '`` said "unknown method(s) []"; ``-k`` above the number of reports searched is noted, not
    silent.
    """
    assert main(["eval", "starter", "--methods", " , "]) == 2
    assert "--methods names no method" in capsys.readouterr().err  # before: "unknown method(s) []"
    assert main(["eval", "starter", "--methods", "bm25", "-k", "50"]) == 0
    out = capsys.readouterr()
    assert "-k 50 is more than the 10 reports searched" in out.err and "P@50" in out.out


@pytest.mark.data
def test_eval_out_ending_in_a_slash_is_not_written_as_a_file_without_extension(tmp_path, archive_folder, capsys):
    """``eval --out results/`` wrote a CSV file named ``results``; a path ending in a slash is a folder."""
    # --out results/ (a folder that does not exist yet) writes a CSV *file* named "results" and
    # "results_means.csv" beside it.
    out = str(tmp_path / "results") + os.sep
    main(["eval", "starter", "--methods", "bm25", "--out", out])
    assert not (tmp_path / "results").is_file()


@pytest.mark.data
def test_eval_by_category_table_has_three_decimals(archive_folder, capsys):
    """The recall@5-by-category table printed 1.0 and 0.5 while every other mean has three decimals."""
    # commit 2e9f748: "eval prints every mean with three decimals"; the recall@5-by-category table still prints
    # "1.0" and "0.5" (.round(3).to_string()).
    assert main(["eval", "starter", "--methods", "keyword,bm25", "--expand"]) == 0
    out = capsys.readouterr().out
    by_cat = out.split("by category:")[1].strip().split("\n\n")[0].splitlines()[2:]
    assert by_cat and all(line.split()[-1].count(".") == 1 and len(line.split()[-1].split(".")[1]) == 3
                          for line in by_cat), out


def test_a_shipped_set_against_your_own_manifest_says_so_in_one_line(tmp_path, capsys, monkeypatch):
    """Before: eval plain with DDRSEARCH_MANIFEST set to one's own manifest printed 119 'not a report in the
    manifest' lines. After: one line saying the shipped sets judge the FORGE reports, and how to point at them."""
    from ddrsearch.data.resources import resource_path

    lines = resource_path("manifest.csv").read_text(encoding="utf-8").splitlines()[:3]
    mine = tmp_path / "mine.csv"
    mine.write_text("\n".join([lines[0], *(line.replace("FORGE-16A-78-32", "MYWELL-1") for line in lines[1:])]) + "\n",
                    encoding="utf-8")
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(mine))
    assert main(["eval", "plain"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "not a report in the manifest" not in err
    assert err.startswith("ddrsearch eval: the shipped question set 'plain' judges the FORGE archive's reports")
    assert f"(DDRSEARCH_MANIFEST={mine}) lacks 76 of its 76. Unset DDRSEARCH_MANIFEST" in err


@pytest.mark.data
def test_evidence_of_a_method_that_finds_no_relevant_report_is_named_not_nan(archive_folder, capsys):
    """keyword search finds no relevant report for any zero-overlap question: evidence@5 printed NaN; now n/a, said why."""
    assert main(["eval", "plain", "--split", "dev", "--methods", "keyword,bm25", "--corpus", "archive"]) == 0
    out = capsys.readouterr().out
    table = out.split("\n\n")[1]
    assert "NaN" not in out and "nan" not in table
    assert table.splitlines()[2].split()[0] == "keyword" and table.splitlines()[2].split()[-1] == "n/a"
    assert "evidence@5 n/a: keyword put no relevant report in any top 5" in out


def test_eval_compares_the_default_with_what_it_was_built_from(capsys):
    """``--methods hybrid,plain-hybrid,dense-chunks``: chapter 12's held-out comparison from the command line."""
    from ddrsearch.cli.evaluate import COMPARED, eval_methods

    assert eval_methods("hybrid,plain-hybrid,dense-chunks") == ["hybrid", *COMPARED]
    with pytest.raises(ValueError, match="plain-hybrid, dense-chunks"):
        eval_methods("plain")


@pytest.mark.data
@pytest.mark.model
def test_the_plain_hybrid_has_no_lever_and_dense_chunks_searches_rows(sample):
    """plain-hybrid is chapter 9's hybrid (leverbench.PLAIN: dense weight 0.5, each leg's best 100, BM25 with
    expansion, every lever off); dense-chunks searches the operation-row chunks the default pipeline searches."""
    from ddrsearch.cli.evaluate import build_method
    from ddrsearch.evaluation.leverbench import PLAIN

    plain = build_method("plain-hybrid", sample)
    assert (plain.weight, plain.candidates, plain.prf, plain.structured, plain.lexicon, plain.sections,
            plain.loose_dates, plain.asker) == (PLAIN["weight"], 100, None, 0.0, 0.0, 0.0, 0.0, False)
    default = build_method("hybrid", sample)
    dense = build_method("dense-chunks", sample)
    assert [p.passage_id for p in dense.passages] == [p.passage_id for p in default.passages]


def test_a_baseline_with_control_characters_is_named_without_them(capsys):
    """The adversarial pass: ``--baseline $'\\x1b[2Jx\\x07'`` was echoed raw to the terminal (the escape cleared
    the screen, the bell rang) in 'is not among the methods'; the method names were already shown escaped."""
    assert main(["eval", "starter", "--methods", "hybrid,plain-hybrid", "--baseline", "\x1b[2Jdense\x07"]) == 2
    err = capsys.readouterr().err
    assert "--baseline dense is not among the methods (hybrid, plain-hybrid)" in err
    assert "\x1b" not in err and "\x07" not in err

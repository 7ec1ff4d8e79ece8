"""The ``ddrsearch eval`` command: score retrieval methods on a question set, with intervals.

It prints each method's mean P@k, recall@k, hit@k, MRR, MAP, NDCG@k and
evidence@k, then the 95% percentile-bootstrap interval of hit@k, MRR and
NDCG@k (:func:`ddrsearch.evaluation.significance.comparison_table`, 2,000 resamples of
the questions, seed 0) and each method's paired NDCG@k gain over a baseline
(the first method named, or ``--baseline``), with the book's verdict: a
method is better or worse only when the whole interval of its gain is above
or below zero (chapter 11). Then recall@k and hit@k per category (or per
style, kind or difficulty: ``--by``), and optionally CSV.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ddrsearch.cli.outputs import unwritable_csv

__all__ = ["COMPARED", "EXPANDED", "add_eval_parser", "build_method", "eval_methods"]

#: Method names eval accepts beyond :data:`ddrsearch.retrieval.pipeline.METHODS`: the lexical methods with
#: rig abbreviations expanded (chapter 12's best single method is ``bm25+expand``).
EXPANDED = ("keyword+expand", "bm25+expand")

#: What the default pipeline (``hybrid``) is measured against in chapter 12's held-out table: ``plain-hybrid``,
#: the hybrid of chapter 9 without any lever (:data:`ddrsearch.evaluation.leverbench.PLAIN`), and
#: ``dense-chunks``, the dense leg alone over the same operation-row chunks.
COMPARED = ("plain-hybrid", "dense-chunks")

_RESAMPLES, _SEED = 2000, 0


def eval_methods(text: str, expand: bool = False) -> list[str]:
    """The method labels that ``--methods text`` (and ``--expand``) ask for, in order.

    Args:
        text: comma-separated names, e.g. ``"bm25,bm25+expand,hybrid"``.
        expand: ``--expand``: ``keyword`` and ``bm25`` become ``keyword+expand`` and ``bm25+expand``.

    Returns:
        Labels from :data:`ddrsearch.retrieval.pipeline.METHODS`, :data:`EXPANDED` and :data:`COMPARED`.

    Raises:
        ValueError: no method, an unknown one, one named twice, or ``--expand`` with no lexical method;
            the message names the value and the choices.
    """
    from ddrsearch.retrieval.pipeline import METHODS

    choices = ", ".join([*METHODS, *EXPANDED, *COMPARED])
    methods = [m.strip() for m in text.split(",") if m.strip()]
    if not methods:
        raise ValueError(f"--methods names no method; choose from {choices}")
    unknown = [m for m in methods if m not in METHODS and m not in EXPANDED and m not in COMPARED]
    if unknown:
        raise ValueError(f"unknown method(s) {unknown}; choose from {choices}")
    if expand:
        named = [m for m in methods if m in EXPANDED]
        if named:
            raise ValueError(f"--expand adds +expand to keyword and bm25, and {', '.join(named)} already has it: "
                             "drop --expand, or name the plain method")
        if not {"keyword", "bm25"} & set(methods):
            raise ValueError(f"--expand applies to keyword and bm25, not {', '.join(methods)}")
        methods = [f"{m}+expand" if m in ("keyword", "bm25") else m for m in methods]
    twice = sorted({m for m in methods if methods.count(m) > 1})
    if twice:
        raise ValueError(f"--methods names {', '.join(twice)} more than once; name each method once")
    return methods


GROUPINGS = ("category", "style", "kind", "difficulty")


def build_method(label: str, reports):
    """The indexed retriever an :func:`eval_methods` label names, over ``reports``.

    Raises:
        ValueError: a label that is not one of them.
    """
    from ddrsearch.retrieval.pipeline import build_retriever, make_retriever, passages_for

    if label == "plain-hybrid":
        from ddrsearch.evaluation.leverbench import PLAIN

        retriever = make_retriever("hybrid", **{k: dict(v) if isinstance(v, dict) else v for k, v in PLAIN.items()})
        retriever.index(passages_for(reports, "operation"))
        retriever.attach_reports(reports)
        return retriever
    if label == "dense-chunks":
        return build_retriever("dense", reports, unit="operation")
    method, _, expand = label.partition("+")
    return build_retriever(method, reports, **({"expand": True} if expand else {}))


def _groupings(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    wrong = [n for n in names if n not in GROUPINGS]
    if not names or wrong:
        raise argparse.ArgumentTypeError(f"{text!r}: choose one or more of {', '.join(GROUPINGS)}, comma-separated")
    return list(dict.fromkeys(names))


#: Fewer questions than this get intervals but no verdict: the percentile bootstrap of a handful of
#: questions can only resample the few values there are, so its interval is too narrow to trust
#: (one question gives an interval of width 0). Chapter 11 and the README speak of a few dozen.
MIN_FOR_VERDICT = 10


def _verdict(low: float, high: float, n_questions: int) -> str:
    if n_questions < MIN_FOR_VERDICT:
        many = "1 question is" if n_questions == 1 else f"{n_questions} questions are"
        return f"no verdict: {many} too few for the interval to be trusted (need {MIN_FOR_VERDICT})"
    if low > 0:
        return "better: the whole interval is above 0"
    if high < 0:
        return "worse: the whole interval is below 0"
    return "cannot be told apart: the interval holds 0"


def _print_intervals(results: dict, k: int, baseline: str, n_questions: int):
    import pandas as pd

    from ddrsearch.evaluation.significance import comparison_table

    table = comparison_table(results, baseline, metrics=(f"hit@{k}", "RR", f"NDCG@{k}"), gain_on=f"NDCG@{k}",
                             n=_RESAMPLES, seed=_SEED)
    print(f"\nMeans with their 95% bootstrap intervals over the {n_questions} questions "
          f"({_RESAMPLES:,} resamples, seed {_SEED}):")
    shown = {label: [f"{row[label]:.3f} [{row[label + ' low']:.3f}, {row[label + ' high']:.3f}]"
                     for _, row in table.iterrows()]
             for label in (f"hit@{k}", "MRR", f"NDCG@{k}")}
    print(pd.DataFrame(shown, index=table.index).to_string())
    verdicts = {m: _verdict(lo, hi, n_questions) for m, lo, hi
                in zip(table.index, table["gain low"], table["gain high"], strict=True) if m != baseline}
    table["verdict"] = [verdicts[m].split(":")[0] if m in verdicts else "baseline" for m in table.index]
    if verdicts:
        print(f"\nNDCG@{k} gain over {baseline}, paired on the same questions (95% interval):")
        width = max(len(m) for m in verdicts)
        for m, verdict in verdicts.items():
            gain, low, high = table.loc[m, ["gain", "gain low", "gain high"]]
            print(f"  {m:<{width}}  {gain:+.3f} [{low:+.3f}, {high:+.3f}]  {verdict}; "
                  f"{int(table.loc[m, 'changed'])} of {n_questions} questions scored differently")
    if n_questions < MIN_FOR_VERDICT:
        print(f"note: {n_questions} questions give wide or degenerate intervals; write at least "
              f"{MIN_FOR_VERDICT} (a few dozen is better) before deciding between methods.")
    return table


def _manifest_mismatch(questions: str) -> str:
    """One sentence when a shipped question set is evaluated against another manifest than the FORGE one, else ``""``.

    The shipped sets judge the FORGE archive's reports; against a manifest
    of one's own reports (``DDRSEARCH_MANIFEST``) every judgement would be
    refused, one line each.
    """
    from ddrsearch.data.manifest import load_manifest, manifest_path
    from ddrsearch.data.resources import resource_path
    from ddrsearch.evaluation.questionfiles import QUESTION_SETS

    shipped = resource_path("manifest.csv")
    if questions not in QUESTION_SETS or manifest_path() == shipped:
        return ""
    forge = {e.file_name for e in load_manifest(shipped)}
    missing = forge - {e.file_name for e in load_manifest()}
    if not missing:
        return ""
    return (f"the shipped question set {questions!r} judges the FORGE archive's reports, and the manifest in use "
            f"(DDRSEARCH_MANIFEST={manifest_path()}) lacks {len(missing)} of its {len(forge)}. Unset "
            "DDRSEARCH_MANIFEST (the FORGE manifest ships with the package) and point --archive or "
            "DDRSEARCH_ARCHIVE_DIR at the FORGE PDFs (ddrsearch fetch), or give a question set of your own "
            "reports (a YAML file).")


def _cmd_eval(args: argparse.Namespace) -> int:
    import pandas as pd

    from ddrsearch.data.folders import corpus_paths
    from ddrsearch.evaluation.evaluate import breakdown, compare, evaluate_retriever, evidence_agreement
    from ddrsearch.evaluation.questionfiles import load_questions
    from ddrsearch.reading.report import read_reports

    try:
        methods = eval_methods(args.methods, args.expand)
    except ValueError as exc:
        print(f"ddrsearch eval: {exc}", file=sys.stderr)
        return 2
    if args.baseline is not None and not args.baseline.strip():
        print("ddrsearch eval: --baseline is empty; name one of the methods, or leave it out (the first method)",
              file=sys.stderr)
        return 2
    baseline = args.baseline.strip() if args.baseline is not None else methods[0]
    if args.expand and baseline in ("keyword", "bm25"):
        baseline += "+expand"
    if baseline not in methods:
        from ddrsearch.answers.generation import strip_controls  # the value as typed, without escape sequences

        print(f"ddrsearch eval: --baseline {strip_controls(args.baseline)} is not among the methods "
              f"({', '.join(methods)}); name one of them", file=sys.stderr)
        return 2
    if args.out is not None:  # checked before the evaluation runs, which can take minutes, not after it
        problem = unwritable_csv(args.out, also="_means.csv")
        if problem:
            print(f"ddrsearch eval: {problem}", file=sys.stderr)
            return 1
        out = Path(args.out)
    problem = _manifest_mismatch(args.questions)
    if problem:
        print(f"ddrsearch eval: {problem}", file=sys.stderr)
        return 2
    everything = load_questions(args.questions)
    questions = everything.split(args.split) if args.split != "all" else everything
    name, n_unanswerable = questions.name, len(questions.unanswerable())
    questions = questions.answerable()  # retrieval metrics need judgements
    if not len(questions):
        if args.split != "all" and len(everything.answerable()):
            splits = sorted({q.split or "none" for q in everything.answerable()})
            print(f"ddrsearch eval: {args.questions} has no questions in the {args.split} split (its answerable "
                  f"questions are in: {', '.join(splits)}); use --split {splits[0]} or --split all", file=sys.stderr)
        else:
            where = "" if args.split == "all" else f" in the {args.split} split"
            print(f"ddrsearch eval: {args.questions} has no answerable questions{where}", file=sys.stderr)
        return 1
    corpus = args.corpus or questions.corpus
    reports = read_reports(corpus_paths(corpus, args.archive))
    names = {r.file_name for r in reports}
    outside = sorted({j for q in questions for j in q.relevant_reports if j not in names})
    if outside:
        print(f"warning: {len(outside)} judged report(s) are not in the {corpus} corpus "
              f"({', '.join(outside[:3])}{', ...' if len(outside) > 3 else ''}); no method can retrieve them, "
              "so recall stays below 1. Use the question set's own corpus.", file=sys.stderr)
    if args.k > len(reports):
        print(f"note: -k {args.k} is more than the {len(reports)} reports searched: P@{args.k} still divides by "
              f"{args.k} (ranks past the last report count as misses), so it is small.", file=sys.stderr)
    results, agreement = {}, {}
    for label in methods:
        retriever = build_method(label, reports)
        results[label] = evaluate_retriever(retriever, questions, k=args.k)
        # share of the relevant reports in the top k whose shown row holds the judgement's quoted evidence
        agreement[label] = evidence_agreement(retriever, questions, k=args.k).attrs["agreement"]
    table = compare(results, k=args.k)
    table[f"evidence@{args.k}"] = pd.Series(agreement)
    with pd.option_context("display.width", 160, "display.max_columns", 20):
        left_out = f" ({n_unanswerable} unanswerable ones left out)" if n_unanswerable else ""
        print(f"{name}: {len(questions)} answerable questions over {len(reports)} reports, k = {args.k}{left_out}\n")
        print(table.to_string(float_format="{:.3f}".format, na_rep="n/a"))
        no_evidence = [m for m, v in agreement.items() if pd.isna(v)]
        if no_evidence:  # no relevant report in any top k: no shown row to check (not a score of zero)
            print(f"evidence@{args.k} n/a: {', '.join(no_evidence)} put no relevant report in any top {args.k}, "
                  "so there is no shown row to check.")
        intervals = _print_intervals(results, args.k, baseline, len(questions))
        for by in args.by:
            for metric in (f"recall@{args.k}", f"hit@{args.k}"):
                print(f"\n{metric} by {by}:")
                print(breakdown(results, by, metric).to_string(float_format="{:.3f}".format))
    skipped = {m: list(df.index[df.note != ""]) for m, df in results.items() if (df.note != "").any()}
    for m, ids in skipped.items():
        print(f"note: {m} had no searchable words in question(s) {', '.join(ids)}; they score zero.")
    if args.out:
        out.parent.mkdir(parents=True, exist_ok=True)
        per_question = pd.concat({m: df for m, df in results.items()}, names=["method", "id"])
        per_question.to_csv(out)
        extra = intervals.drop(columns=[c for c in intervals.columns if c in table.columns])
        extra = extra.rename(columns={"gain": f"NDCG@{args.k} gain", "gain low": f"NDCG@{args.k} gain low",
                                      "gain high": f"NDCG@{args.k} gain high",
                                      "changed": "questions scored differently"})
        extra.insert(0, "baseline", baseline)
        extra.insert(0, "questions", len(questions))
        table.join(extra).to_csv(out.with_name(out.stem + "_means.csv"))
        gains = f", and the NDCG@{args.k} gain over {baseline} with its verdict" if len(methods) > 1 else ""
        print(f"\nWrote {out} (one row per method and question) and {out.with_name(out.stem + '_means.csv')} "
              f"(means with their 95% intervals{gains}).")
    return 0


def add_eval_parser(sub) -> None:
    """Add the ``eval`` sub-command to an argparse sub-parser collection."""
    from ddrsearch.retrieval.pipeline import METHODS

    p = sub.add_parser(
        "eval",
        help="evaluate retrieval methods on a question set",
        description=(
            "Run each method over a question set (datasets/eval/*.yaml) and print the mean P@k, recall@k, "
            "hit@k, MRR, MAP and NDCG@k of each method, its evidence agreement (evidence@k: of the relevant "
            "reports in the top k, the share whose shown row holds the quoted evidence), the 95% bootstrap "
            "interval of hit@k, MRR and NDCG@k, each method's paired NDCG@k gain over the baseline with its "
            "interval, and recall@k and hit@k per category (or --by style, kind, difficulty); optionally "
            "write CSV."
        ),
    )
    from ddrsearch.evaluation.questionset import QUESTION_SETS

    p.add_argument("questions",
                   help=f"question-set YAML file, or the name of a shipped set: {', '.join(QUESTION_SETS)}")
    p.add_argument("--methods", default="keyword,bm25,dense,hybrid",
                   help=f"comma-separated methods among {', '.join([*METHODS, *EXPANDED, *COMPARED])} "
                        "(default keyword,bm25,dense,hybrid)")
    p.add_argument("--baseline", metavar="METHOD", default=None,
                   help="the method the others' NDCG@k gain is measured against (default: the first method)")
    p.add_argument("-k", type=int, default=5, help="metric cut-off (default 5)")
    p.add_argument("--expand", action="store_true",
                   help="expand rig abbreviations in keyword and bm25 (shown as bm25+expand; hybrid always does)")
    p.add_argument("--split", choices=["all", "dev", "test"], default="all",
                   help="evaluate all questions (default), the development part or the held-out part")
    p.add_argument("--corpus", choices=["sample", "archive"], default=None,
                   help="reports to search (default: the question set's own corpus)")
    p.add_argument("--archive", metavar="DIR", default=None, help="folder of the report PDFs")
    p.add_argument("--by", default="category", type=_groupings,
                   help="comma-separated groupings of the per-group tables, among category, style, kind, "
                        "difficulty (default category)")
    p.add_argument("--out", metavar="CSV", default=None,
                   help="write per-question results to CSV (and the means to <name>_means.csv)")
    p.set_defaults(func=_cmd_eval)

"""How often ``ddrsearch ask`` answers or refuses on the zero-overlap questions (datasets/eval/plain.yaml).

Usage: ``python benchmarks/plain_ask.py [--split test]`` or
``python benchmarks/plain_ask.py --refusal`` (development questions only).

For each question of the split, the answer card of :class:`ddrsearch.answers.answerer.Answerer`
(the default pipeline over the archive, the calibrated threshold) either finds rows or says
"Not found in these reports". Prints, for the answerable questions, how many were refused and,
of those answered, how many cite a row of a relevant report; for the unanswerable ones, how
many were refused. Targets (issue 23): at most 1 in 5 answerable refused, at least 4 in 5
unanswerable refused.

``--refusal`` studies the refusal rule on the development questions of the
archive and zero-overlap sets (answerable and unanswerable): the spread of
each question's best support, the threshold with the best balanced accuracy
on the pooled questions (:func:`ddrsearch.answers.answerer.calibrate_threshold`), and
a per-question rule (answer when the support reaches the threshold *or* the
best candidate's cosine stands out from the median of the ``k`` candidates' by
a margin chosen on the pooled questions), each with balanced accuracy per set
and the paired bootstrap interval of its change (questions resampled within
answerable and unanswerable, 2000 draws, seed 0); the rules and the table are
``ddrsearch.answers.refusals``.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ddrsearch.answers.answerer import ANSWER_THRESHOLD, Answerer
from ddrsearch.answers.refusals import refusal_scores, refusal_table
from ddrsearch.data.folders import archive_dir
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive


def refusal_study(answerer: Answerer, reports) -> None:
    scores = refusal_scores(answerer, reports)
    print("best support per question (median, quartiles) and cosine margin (median):")
    for (s, a), part in scores.groupby(["set", "answerable"]):
        v = part["support"]
        print(f"  {s:8s} {'answerable' if a else 'unanswerable':12s} n={len(v):2d} median {v.median():.3f} "
              f"[{v.quantile(0.25):.3f}, {v.quantile(0.75):.3f}]; margin {part['margin'].median():.3f}")
    table, pooled_t, _ = refusal_table(scores)
    print(f"threshold with the best balanced accuracy on pooled dev: {pooled_t:.3f} "
          f"(ANSWER_THRESHOLD {ANSWER_THRESHOLD:.3f}, archive dev only)")
    print(table.round(3).to_string())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="test", choices=["dev", "test", "all"])
    ap.add_argument("--set", default="plain")
    ap.add_argument("--refusal", action="store_true", help="study the refusal rule on the dev questions")
    args = ap.parse_args()
    reports = load_archive(archive_dir())
    answerer = Answerer(reports)
    if args.refusal:
        refusal_study(answerer, reports)
        return
    qs = load_questions(args.set, reports=reports)
    qs = qs if args.split == "all" else qs.split(args.split)
    answered = refused = right = un_refused = un_total = 0
    for q in qs.questions:
        card = answerer.ask(q.question)
        if q.kind == "unanswerable":
            un_total += 1
            un_refused += not card.found
            continue
        if not card.found:
            refused += 1
            continue
        answered += 1
        relevant = {j.report for j in q.relevant}
        right += any(r.report in relevant for r in card.rows)
    n = answered + refused
    print(f"{args.set} {args.split}: answerable {n}: refused {refused} ({refused / max(n, 1):.2f}; target <= 0.20), "
          f"answered {answered}, of which citing a relevant report {right}")
    print(f"unanswerable {un_total}: refused {un_refused} ({un_refused / max(un_total, 1):.2f}; target >= 0.80)")


if __name__ == "__main__":
    main()

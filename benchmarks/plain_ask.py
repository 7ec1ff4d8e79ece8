"""How often ``ddrsearch ask`` answers or refuses on the zero-overlap questions (datasets/eval/plain.yaml).

Usage: ``python benchmarks/plain_ask.py [--split test]``

For each question of the split, the answer card of :class:`ddrsearch.answers.answerer.Answerer`
(the default pipeline over the archive, the calibrated threshold) either finds rows or says
"Not found in these reports". Prints, for the answerable questions, how many were refused and,
of those answered, how many cite a row of a relevant report; for the unanswerable ones, how
many were refused. Targets (issue 23): at most 1 in 5 answerable refused, at least 4 in 5
unanswerable refused.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ddrsearch.answers.answerer import Answerer
from ddrsearch.data.folders import archive_dir
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="test", choices=["dev", "test", "all"])
    ap.add_argument("--set", default="plain")
    args = ap.parse_args()
    reports = load_archive(archive_dir())
    qs = load_questions(args.set, reports=reports)
    qs = qs if args.split == "all" else qs.split(args.split)
    answerer = Answerer(reports)
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

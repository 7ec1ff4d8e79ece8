"""Reference solution of the evaluation challenge (see README.md in this folder).

Run it from anywhere (paths are resolved from this file's location):

    python code/chapter_11/challenge/solution.py

It loads the 15 questions of ``solution_questions.yaml`` (checking every evidence
quotation against its report), searches all 76 reports with two methods, the
whole-report dense search and the book's default pipeline, computes recall@5,
MRR and NDCG@5 by hand from the ranked lists, checks them against
``ddrsearch.evaluation.metrics``, and prints one table row per method.
"""

from __future__ import annotations

import math
import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")  # no progress bars
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the embedding model comes with the package; never download

from ddrsearch.data.folders import archive_dir
from ddrsearch.errors import QueryError
from ddrsearch.evaluation.metrics import evaluate, mean_metrics, rank_by_score
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.pipeline import build_retriever

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "solution_questions.yaml"
K = 5

#: The two methods compared: name printed -> (method, options) for build_retriever.
METHODS = {
    "dense (whole report)": ("dense", {}),
    "hybrid (default pipeline)": ("hybrid", {}),
}


def ranked_lists(retriever, questions) -> dict[str, list[str]]:
    """Every question's ranked list of report file names, best first.

    The same lists as ``ddrsearch.evaluation.evaluate.run`` (score descending, ties by
    file name), without looking up the matching line of each hit, which only
    a reader needs.
    """
    ranked = {}
    for q in questions:
        try:
            ranked[q.id] = rank_by_score(retriever.report_scores(q.question))
        except QueryError:  # no searchable words for this method: it finds nothing
            ranked[q.id] = []
    return ranked


def recall_at_k(ranking: list[str], grades: dict[str, int], k: int) -> float:
    """Share of the relevant reports found in the first k (the denominator counts all of them)."""
    found = sum(1 for report in ranking[:k] if grades.get(report, 0) >= 1)
    return found / sum(1 for g in grades.values() if g >= 1)


def reciprocal_rank(ranking: list[str], grades: dict[str, int]) -> float:
    """1 / rank of the first relevant report, 0 when none was returned."""
    for rank, report in enumerate(ranking, start=1):
        if grades.get(report, 0) >= 1:
            return 1.0 / rank
    return 0.0


def ndcg_at_k(ranking: list[str], grades: dict[str, int], k: int) -> float:
    """DCG of the first k with the grade as gain, divided by the DCG of the best possible order."""
    dcg = sum(grades.get(report, 0) / math.log2(rank + 1) for rank, report in enumerate(ranking[:k], start=1))
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum(g / math.log2(rank + 1) for rank, g in enumerate(ideal, start=1))
    return dcg / idcg


def main() -> int:
    questions = load_questions(QUESTIONS, check_evidence=True)
    reports = load_archive(archive_dir())
    qrels = questions.qrels()
    n_relevant = len({j.report for q in questions for j in q.relevant})
    print(f"{questions.name}: {len(questions)} questions over {len(reports)} reports "
          f"({n_relevant} different relevant reports), k = {K}")

    rows = {}
    ranks_table = {}
    for name, (method, options) in METHODS.items():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            retriever = build_retriever(method, reports, **options)
        ranked = ranked_lists(retriever, questions)
        recall = [recall_at_k(ranked[q.id], qrels[q.id], K) for q in questions]
        rr = [reciprocal_rank(ranked[q.id], qrels[q.id]) for q in questions]
        ndcg = [ndcg_at_k(ranked[q.id], qrels[q.id], K) for q in questions]
        row = {f"recall@{K}": sum(recall) / len(recall), "MRR": sum(rr) / len(rr), f"NDCG@{K}": sum(ndcg) / len(ndcg)}

        # the hand-written metrics must agree with the package's tested ones
        package = mean_metrics(evaluate(ranked, qrels, K))
        for metric, value in row.items():
            if abs(package[metric] - value) > 1e-12:
                raise AssertionError(f"{name}: {metric} by hand {value!r} != ddrsearch {package[metric]!r}")
        rows[name] = row
        ranks_table[name] = {
            q.id: " ".join(f"{j.report_number}:{ranked[q.id].index(j.report) + 1 if j.report in ranked[q.id] else '-'}"
                           for j in q.relevant)
            for q in questions
        }

    print()
    print("Rank of each relevant report (report:rank, '-' = not returned)")
    width = max(len(q.question) for q in questions)
    print(f"{'id':4} {'question':{width}}  " + "  ".join(f"{n:26}" for n in METHODS))
    for q in questions:
        print(f"{q.id:4} {q.question:{width}}  " + "  ".join(f"{ranks_table[n][q.id]:26}" for n in METHODS))

    print()
    cols = [f"recall@{K}", "MRR", f"NDCG@{K}"]
    print(f"{'method':28}" + "".join(f"{c:>10}" for c in cols))
    for name, row in rows.items():
        print(f"{name:28}" + "".join(f"{row[c]:10.4f}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main())

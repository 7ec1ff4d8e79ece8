"""The evaluation challenge: your starter file (see README.md in this folder).

Run it from anywhere (paths are resolved from this file's location):

    python code/chapter_11/challenge/challenge.py

As given, it loads ``my_questions.yaml`` (the five starter questions, checking
every evidence quotation), runs the book's default pipeline over the 76
reports and prints where each relevant report ranks. The places marked
``# TODO`` are yours: TODO 1 and 2 (the questions, in the YAML file),
TODO 3 (recall@k of one question) and TODO 4 (its mean, and the comparison of
two methods). ``check.py`` checks your file and your two functions. ``solution.py`` is a reference solution; try
first, then compare.
"""

from __future__ import annotations

import os
import sys
import warnings
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")  # no progress bars
os.environ.setdefault("HF_HUB_OFFLINE", "1")  # the embedding model comes with the package; never download

from ddrsearch.data.folders import archive_dir
from ddrsearch.errors import QueryError
from ddrsearch.evaluation.metrics import rank_by_score
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive
from ddrsearch.retrieval.pipeline import build_retriever

HERE = Path(__file__).resolve().parent
QUESTIONS = HERE / "my_questions.yaml"
K = 5


def ranked_lists(retriever, questions) -> dict[str, list[str]]:
    """Every question's ranked list of report file names, best first (given: nothing to do here)."""
    ranked = {}
    for q in questions:
        try:
            ranked[q.id] = rank_by_score(retriever.report_scores(q.question))
        except QueryError:  # no searchable words for this method: it finds nothing
            ranked[q.id] = []
    return ranked


def recall_at_k(ranking: list[str], grades: dict[str, int], k: int) -> float | None:
    """Recall@k of one question: the share of its relevant reports found in the first k.

    Args:
        ranking: report file names, best first.
        grades: report file name -> grade (1, 2 or 3) of the question's relevant reports.
        k: the cut-off, e.g. 5.
    """
    # TODO 3: count the relevant reports (grade >= 1) among ranking[:k] and divide by the
    # number of relevant reports of the question (ALL of them, found or not).
    # Then delete the next line.
    return None


def mean_recall_at_k(ranked: dict[str, list[str]], qrels: dict[str, dict[str, int]], k: int) -> float | None:
    """Mean recall@k over the questions: every question weighs the same.

    Args:
        ranked: question id -> report file names, best first (as ``ranked_lists`` returns).
        qrels: question id -> {report file name: grade} (``questions.qrels()``).
        k: the cut-off, e.g. 5.
    """
    # TODO 4 (part 1): the mean of recall_at_k(ranked[qid], qrels[qid], k) over every question
    # id of qrels (a question the method returned nothing for has recall 0, not "missing").
    # Then delete the next line.
    return None


def main() -> int:
    questions = load_questions(QUESTIONS, check_evidence=True)  # stops with a clear message if a quotation is wrong
    reports = load_archive(archive_dir())
    qrels = questions.qrels()
    n_reports = len({j.report for q in questions for j in q.relevant})
    print(f"{questions.name}: {len(questions)} questions, {n_reports} different relevant reports")
    if len(questions) < 15 or n_reports < 10:
        print("TODO 1-2: extend my_questions.yaml to at least 15 questions over at least 10 reports.")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hybrid = build_retriever("hybrid", reports)  # the book's default pipeline
    ranked = ranked_lists(hybrid, questions)

    print()
    print("Default pipeline: rank of each relevant report (report:rank, '-' = not returned)")
    for q in questions:
        ranks = " ".join(
            f"{j.report_number}:{ranked[q.id].index(j.report) + 1 if j.report in ranked[q.id] else '-'}"
            for j in q.relevant
        )
        recall = recall_at_k(ranked[q.id], qrels[q.id], K)
        shown = "TODO" if recall is None else f"{recall:.2f}"
        print(f"  {q.id:4} {q.question:45} {ranks:28} recall@{K} = {shown}")

    mean = mean_recall_at_k(ranked, qrels, K)
    if mean is not None:
        print(f"\nmean recall@{K}, default pipeline: {mean:.4f}")

    # TODO 4 (part 2): compare methods. Build a second retriever, e.g. build_retriever("dense",
    # reports) (dense search over whole reports) or build_retriever("bm25", reports, expand=True),
    # compute its ranked lists and mean_recall_at_k the same way, and print one line per method.
    # Which questions does each method miss, and why? (Read the top hits: retriever.search(...).)
    # check.py tells you whether recall_at_k and mean_recall_at_k agree with ddrsearch.evaluation.metrics.
    return 0


if __name__ == "__main__":
    sys.exit(main())

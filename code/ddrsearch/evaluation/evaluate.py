"""Run retrievers over a question set and measure them.

The harness turns a retriever and a :class:`~ddrsearch.evaluation.questionfiles.QuestionSet`
into a pandas DataFrame with one row per question: the rank of each of its
relevant reports and every metric of :mod:`ddrsearch.evaluation.metrics` (P@k,
recall@k, hit@k, reciprocal rank, average precision, NDCG@k). On top of that:
a method-by-method comparison table, breakdowns by category, difficulty,
style or split, and a table that follows one question's ranks across
several retrievers.

Each retriever is asked for its full ranking (``depth``, default every
report), so a relevant report's rank is known even beyond ``k``, and MRR and
average precision see the whole list. The run can be written in TREC format
(:func:`ddrsearch.evaluation.trec.write_run`) and checked with trec_eval or ranx.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence

import pandas as pd

from ddrsearch.errors import QueryError
from ddrsearch.evaluation.metrics import evaluate, mean_metrics, metric_columns, rank_by_score
from ddrsearch.evaluation.questionfiles import Question, QuestionSet
from ddrsearch.retrieval.base import Retriever

__all__ = ["breakdown", "compare", "evaluate_retriever", "evaluate_run", "evidence_agreement", "follow", "format_ranks", "run",
           "shown_text", "sweep_weight"]


def run(retriever: Retriever, questions: QuestionSet | Sequence[Question], depth: int | None = None,
        notes: dict[str, str] | None = None) -> dict[str, list[str]]:
    """Search every question and return the ranked report lists.

    Args:
        retriever: an indexed retriever.
        questions: a question set (or a list of questions). Unanswerable
            questions (kind ``unanswerable``: no judgements) are skipped:
            retrieval metrics are undefined for them.
        depth: how many reports to ask for per question; default all the
            retriever has indexed.
        notes: if given, filled with question id -> why the method
            retrieved nothing for it (a query with no searchable words for a
            word-based method, e.g. only stop words); such a question gets an
            empty list and scores zero, and is also reported by a warning.

    Returns:
        ``{question id: [report file name, ...]}``, best first (package tie
        rule). A method that retrieves fewer reports (keyword AND, BM25)
        gives a shorter list, possibly empty.
    """
    reports = {p.report for p in retriever.passages}
    depth = depth or len(reports)
    out: dict[str, list[str]] = {}
    skipped: dict[str, str] = {}
    for q in questions:
        if not q.answerable:
            continue
        try:
            # the ranking search() returns, without looking up each hit's matching line
            out[q.id] = rank_by_score(retriever.report_scores(q.question))[:depth]
        except QueryError as exc:  # no searchable words for this method (only stop words): it retrieves nothing
            out[q.id] = []
            skipped[q.id] = str(exc)
    if skipped:
        warnings.warn(
            f"{type(retriever).__name__} retrieved nothing for {len(skipped)} question(s) with no searchable words: "
            f"{', '.join(skipped)}; they score zero.",
            stacklevel=2,
        )
        if notes is not None:
            notes.update(skipped)
    return out


def format_ranks(ranking: Sequence[str], question: Question) -> str:
    """``"38:1 39:7 50:-"``: each relevant report's number and its rank (``-`` = not retrieved)."""
    pos = {r: i for i, r in enumerate(ranking, start=1)}
    parts = []
    for j in question.relevant:
        label = f"C{j.report_number}" if j.phase == "Completion" else str(j.report_number)
        parts.append(f"{label}:{pos.get(j.report, '-')}")
    return " ".join(parts)


def evaluate_run(ranked: Mapping[str, Sequence[str]], questions: QuestionSet, k: int = 5, gain: str = "linear",
                 notes: Mapping[str, str] | None = None) -> pd.DataFrame:
    """Score ranked lists against a question set's judgements.

    Returns:
        One row per question (index: question id) with columns ``question,
        category, difficulty, style, split, kind, ranks`` (see :func:`format_ranks`),
        ``first_rank`` (rank of the first relevant report, ``NaN`` if none
        was retrieved), ``note`` (why a method retrieved nothing, from
        :func:`run`; empty otherwise) and the metrics ``P@k, recall@k, hit@k,
        RR, AP, NDCG@k``. Unanswerable questions (no judgements) have no
        row: retrieval metrics are undefined for them.
    """
    notes = notes or {}
    qrels = questions.qrels()
    metrics = evaluate({qid: list(ranked.get(qid, [])) for qid in qrels}, qrels, k, gain=gain)
    rows = []
    for q in questions:
        if not q.answerable:
            continue
        ranking = list(ranked.get(q.id, []))
        rel = set(q.relevant_reports)
        first = next((i for i, r in enumerate(ranking, start=1) if r in rel), None)
        rows.append({
            "id": q.id, "question": q.question, "category": q.category, "difficulty": q.difficulty,
            "style": q.style, "split": q.split, "kind": q.kind, "ranks": format_ranks(ranking, q),
            "first_rank": float(first) if first is not None else float("nan"),
            "note": notes.get(q.id, ""),
        })
    frame = pd.DataFrame(rows).set_index("id")
    return frame.join(metrics)


def evaluate_retriever(retriever: Retriever, questions: QuestionSet, k: int = 5, depth: int | None = None,
                       gain: str = "linear") -> pd.DataFrame:
    """:func:`run` then :func:`evaluate_run`; the per-question table of one retriever."""
    notes: dict[str, str] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the skipped questions are in the table's note column
        ranked = run(retriever, questions, depth, notes)
    return evaluate_run(ranked, questions, k, gain, notes)


def compare(results: Mapping[str, pd.DataFrame], k: int = 5) -> pd.DataFrame:
    """One row per method: the mean of each metric over the questions (MRR = mean RR, MAP = mean AP).

    Args:
        results: method name -> the per-question table of :func:`evaluate_run`.
    """
    cols = metric_columns(k)
    table = pd.DataFrame({name: mean_metrics(df[cols]) for name, df in results.items()}).T
    if table.index.nlevels == 1:
        table.index.name = "method"
    return table


def breakdown(results: Mapping[str, pd.DataFrame], by: str = "category", metric: str = "recall@5") -> pd.DataFrame:
    """Mean of one metric per group (rows: the values of ``by``; columns: methods), with a question count.

    Args:
        results: method name -> per-question table.
        by: ``"category"``, ``"difficulty"``, ``"style"``, ``"split"`` or ``"kind"``.
        metric: a metric column, e.g. ``"recall@5"``, ``"NDCG@5"``, ``"RR"``.

    Raises:
        KeyError: unknown column.
    """
    any_df = next(iter(results.values()))
    if by not in any_df.columns or metric not in any_df.columns:
        raise KeyError(f"by={by!r} and metric={metric!r} must be columns of the results: {list(any_df.columns)}")
    table = pd.DataFrame({name: df.groupby(by, sort=True)[metric].mean() for name, df in results.items()})
    table.insert(0, "questions", any_df.groupby(by, sort=True).size())
    return table


def follow(question: Question, retrievers: Mapping[str, Retriever], depth: int | None = None) -> pd.DataFrame:
    """Follow one question through several retrievers: the rank of each relevant report under each.

    Returns:
        One row per method; one column per relevant report (``"report 39"``),
        holding its rank (integer; ``<NA>`` if not retrieved), plus
        ``retrieved`` (how many reports the method returned) and ``top report``.
    """
    rows = []
    for name, r in retrievers.items():
        ranked = run(r, [question], depth)[question.id]
        pos = {rep: i for i, rep in enumerate(ranked, start=1)}
        row = {"method": name}
        for j in question.relevant:
            label = f"completion {j.report_number}" if j.phase == "Completion" else f"report {j.report_number}"
            row[label] = pos.get(j.report)
        row["retrieved"] = len(ranked)
        row["top report"] = ranked[0] if ranked else None
        rows.append(row)
    frame = pd.DataFrame(rows).set_index("method")
    rank_cols = [c for c in frame.columns if c.startswith(("report ", "completion "))]
    return frame.astype({c: "Int64" for c in rank_cols})  # <NA> = not retrieved


def sweep_weight(hybrid, questions: QuestionSet, weights: Sequence[float] | None = None, k: int = 5,
                 metric: str | None = None) -> tuple[pd.DataFrame, float]:
    """Evaluate a hybrid retriever at several dense weights and pick the best.

    Args:
        hybrid: an indexed :class:`~ddrsearch.retrieval.fusion.HybridRetriever` (its
            legs are reused; nothing is re-indexed).
        questions: the questions to tune on: the *development* split, never
            the held-out one.
        weights: dense weights to try; default 0.0, 0.1, ..., 1.0.
        k: metric cut-off.
        metric: the column to maximise; default ``NDCG@k``.

    Returns:
        ``(table, best)``: one row per weight with the mean metrics, and the
        weight with the highest ``metric`` (ties: the smaller weight, i.e.
        the one closer to plain BM25).
    """
    import numpy as np

    weights = [round(float(w), 4) for w in (weights if weights is not None else np.linspace(0.0, 1.0, 11))]
    metric = metric or f"NDCG@{k}"
    table = compare({w: evaluate_retriever(hybrid.with_weight(w, "convex"), questions, k) for w in weights}, k)
    table.index.name = "weight"
    best = min(weights, key=lambda w: (-round(float(table.loc[w, metric]), 12), w))
    return table, best


def _words(text: str) -> str:
    from ddrsearch.text.words import split_words

    return " " + " ".join(split_words(text)) + " "


def shown_text(hit, reports: Mapping) -> str:
    """The text a reader sees for a hit: the whole operation row it points at (all parts), else its own text."""
    report = reports.get(hit.report)
    if report is not None and hit.row is not None:
        row = next((o for o in report.operations if o.index == hit.row), None)
        if row is not None:
            return row.operations
    return hit.text or ""


def evidence_agreement(retriever: Retriever, questions: QuestionSet, k: int = 5) -> pd.DataFrame:
    """Whether the row shown for each relevant report in the top ``k`` holds the quoted evidence.

    For every answerable question, search ``k`` reports; for each relevant
    report among them whose judgement quotes evidence, check that the
    evidence's words (:func:`ddrsearch.text.words.split_words`, so case,
    punctuation, thousands commas and spacing do not matter) appear, in
    order and contiguous, in the shown row (:func:`shown_text`). The metric
    is the share of such (question, report) pairs that agree.

    Returns:
        One row per (question, relevant report in the top k): ``id``,
        ``report``, ``rank``, ``shown`` (the row's FROM-TO or passage id),
        ``agrees`` (bool) and ``findable`` (bool: some row or header line of
        the report holds the evidence at all, so agreement was possible),
        then, to read a disagreement, ``question``, ``evidence`` (the quoted
        text) and ``row`` (the text of the row shown, :func:`shown_text`).
        ``frame.attrs["agreement"]`` is the mean of ``agrees``.
    """
    from ddrsearch.retrieval.passages import report_lines

    reports = retriever.reports
    rows = []
    for q in questions:
        if not q.answerable:
            continue
        evidence = {j.report: j.evidence for j in q.relevant if j.evidence}
        try:
            hits = retriever.search(q.question, k=k)
        except QueryError:  # no searchable words for this method: evaluate_retriever scores it zero and names it
            continue
        for h in hits:
            if h.report not in evidence:
                continue
            needle = _words(evidence[h.report])
            report = reports.get(h.report)
            lines = [shown_text(p, reports) for p in report_lines(report)] if report is not None else []
            row = shown_text(h, reports)
            rows.append({"id": q.id, "report": h.report, "rank": h.rank,
                         "shown": f"{h.start}-{h.end}" if h.start else (h.passage_id or ""),
                         "agrees": needle in _words(row),
                         "findable": any(needle in _words(t) for t in lines),
                         "question": q.question, "evidence": evidence[h.report], "row": row})
    frame = pd.DataFrame(rows, columns=["id", "report", "rank", "shown", "agrees", "findable",
                                        "question", "evidence", "row"])
    frame.attrs["agreement"] = float(frame["agrees"].mean()) if len(frame) else float("nan")
    return frame

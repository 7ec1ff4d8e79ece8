"""The evaluation wing: question sets, runs, metrics, intervals, and the lever bench of chapter 12.

Modules: ``metrics`` (recall@k, MRR, NDCG@k, ...), ``trec`` (qrels and run
files), ``significance`` (bootstrap intervals), ``questionset`` (the question
set model: questions, graded judgements), ``questionfiles`` (YAML files,
checked against the PDFs), ``evaluate`` (run retrievers over a set),
``leverbench`` (levers tried one at a time), ``plots``.
Imports the retrieval wing and those before it.
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "load_questions": "questionfiles",
    "write_qrels": "questionfiles",
    "Question": "questionset",
    "QuestionSet": "questionset",
    "compare": "evaluate",
    "evaluate_retriever": "evaluate",
    "bootstrap_ci": "significance",
    "paired_bootstrap": "significance",
    "hit_at_k": "metrics",
    "ndcg_at_k": "metrics",
    "recall_at_k": "metrics",
    "reciprocal_rank": "metrics",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

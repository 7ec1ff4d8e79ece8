"""Retrieval metrics for one question and means over a question set.

Why one module: every metric here follows one reference, trec_eval, shares
one set of input checks (grades, duplicates, ``k``) and one tie rule, and the
property-based tests compare them side by side with pytrec_eval; each
function is short, and splitting them would scatter the shared definitions.

Vocabulary used throughout this module:

* a *doc id* is a report file name such as
  ``FORGE-16A-78-32_Drilling_038_2020-11-26.pdf``;
* a *ranking* is the ordered sequence of doc ids a retriever returned for one
  question, best first (rank 1 is the first element);
* the *qrels* of a question (relevance judgements) is a mapping
  ``doc id -> grade`` with integer grades ``>= 0``. A grade ``>= 1`` means
  *relevant*; grade ``0`` means *judged not relevant*. A doc id that is absent
  from the qrels counts as grade 0.

Every metric reproduces a measure of ``trec_eval`` (the reference tool of the
TREC evaluations, used here through ``pytrec_eval``) with its default
relevance level 1; the tests check this on random inputs. The one exception
is NDCG with exponential gain, which trec_eval's ``ndcg_cut`` does not offer
(it equals ``ndcg_cut`` on grades transformed to ``2**grade - 1``). The trec_eval
measure name is given in each docstring.

Rules shared by all the per-question metrics (checked in this order):

1. ``qrels`` must hold integer grades ``>= 0``; a negative grade raises
   :class:`ValueError` (trec_eval accepts negative grades and treats them as
   not relevant; this package refuses them because they are usually typos).
2. ``qrels`` must hold at least one relevant doc (grade ``>= 1``), otherwise
   :class:`NoRelevantDocumentsError` is raised. trec_eval silently scores such
   a question 0 on every measure, which drags the mean down without telling
   anyone that the question cannot be answered.
3. ``k`` (where there is one) must be an integer ``>= 1``; else
   :class:`ValueError`.
4. ``ranking`` must be an ordered sequence (list, tuple, NumPy array, ...), not
   a single string, a set or a mapping (:class:`TypeError`); a doc id that
   appears twice anywhere in it raises :class:`DuplicateDocumentError`.
5. ``k`` larger than the ranking is allowed: the missing positions count as
   not relevant (so P@k still divides by ``k``).
6. An empty ranking is allowed and scores 0.0 on every metric.

Ties between equal scores are broken by :func:`rank_by_score`: doc id
ascending (trec_eval uses doc id *descending*).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import Literal

import pandas as pd

from ddrsearch.checks import check_k as _check_k
from ddrsearch.errors import DuplicateDocumentError, NoRelevantDocumentsError

__all__ = [
    "DuplicateDocumentError",
    "NoRelevantDocumentsError",
    "average_precision",
    "evaluate",
    "hit_at_k",
    "mean_metrics",
    "metric_columns",
    "ndcg_at_k",
    "ndcg_at_k_from_rank",
    "precision_at_k",
    "rank_by_score",
    "recall_at_k",
    "recall_at_k_from_rank",
    "reciprocal_rank",
    "reciprocal_rank_from_rank",
]

Gain = Literal["linear", "exponential"]
_GAINS = ("linear", "exponential")


# --------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------


def _check_gain(gain: str) -> str:
    if gain not in _GAINS:
        raise ValueError(f"gain must be 'linear' or 'exponential', got {gain!r}")
    return gain


def _check_qrels(qrels: Mapping, qid: Hashable | None) -> int:
    """Validate grades; return the number of relevant docs (grade >= 1)."""
    if not isinstance(qrels, Mapping):
        raise TypeError(
            f"qrels must be a mapping doc id -> grade, got {type(qrels).__name__}"
        )
    where = f" of question {qid!r}" if qid is not None else ""
    n_rel = 0
    for doc, grade in qrels.items():
        if isinstance(grade, bool) or not isinstance(grade, numbers.Integral):
            raise TypeError(
                f"grade of document {doc!r}{where} must be an integer >= 0, "
                f"got {grade!r}"
            )
        if grade < 0:
            raise ValueError(
                f"grade of document {doc!r}{where} is negative ({grade}); grades "
                "must be integers >= 0 (0 = judged not relevant, >= 1 = relevant)"
            )
        if grade >= 1:
            n_rel += 1
    if n_rel == 0:
        raise NoRelevantDocumentsError(qid)
    return n_rel


def _check_ranking(ranking: Iterable, qid: Hashable | None) -> list:
    if isinstance(ranking, (str, bytes)):
        raise TypeError(
            "ranking must be a sequence of doc ids, got a single string "
            f"{ranking!r}; wrap it in a list"
        )
    if isinstance(ranking, (Mapping, AbstractSet)):
        raise TypeError(
            f"ranking must be an ordered sequence of doc ids, got a "
            f"{type(ranking).__name__}; for a mapping doc id -> score use "
            "rank_by_score() first"
        )
    docs = list(ranking)
    seen: set = set()
    for doc in docs:
        if doc in seen:
            raise DuplicateDocumentError(doc, qid)
        seen.add(doc)
    return docs


def _prepare(ranking, qrels, qid, k=None):
    """Run the shared checks in the documented order."""
    n_rel = _check_qrels(qrels, qid)
    if k is not None:
        k = _check_k(k)
    docs = _check_ranking(ranking, qid)
    return docs, n_rel, k


def _is_rel(qrels: Mapping, doc) -> bool:
    return qrels.get(doc, 0) >= 1


def _check_rank(rank: int | None) -> int | None:
    if rank is None:
        return None
    if isinstance(rank, bool) or not isinstance(rank, numbers.Integral):
        raise TypeError(f"rank must be an integer >= 1 or None, got {rank!r}")
    if rank < 1:
        raise ValueError(
            f"rank must be an integer >= 1 (ranks are 1-based) or None "
            f"(not found), got {rank!r}"
        )
    return int(rank)


# --------------------------------------------------------------------------
# Tie rule
# --------------------------------------------------------------------------


def rank_by_score(scores: Mapping[str, float]) -> list[str]:
    """Turn a mapping of scores into a ranking, using the package tie rule.

    Args:
        scores: mapping ``doc id -> score`` (``float`` or anything ``float()``
            accepts); a higher score means more relevant.

    Returns:
        ``list[str]``: the doc ids ordered by score descending; docs with equal
        scores are ordered by doc id ascending (``"a" < "b"``, Python string
        order). This is the tie rule of the whole package, so that rankings are
        reproducible.

    Note:
        trec_eval sorts a run by score descending and breaks ties by doc id
        *descending* (it ignores the rank column of the run file). A run with
        tied scores can therefore be scored differently by trec_eval; give
        trec_eval distinct scores (as :func:`ddrsearch.evaluation.trec.write_run` does
        for rankings without scores) to keep the two in agreement.

    Raises:
        TypeError: if ``scores`` is not a mapping.
        ValueError: if a score is NaN or infinite (naming the doc).
    """
    if not isinstance(scores, Mapping):
        raise TypeError(
            f"scores must be a mapping doc id -> score, got {type(scores).__name__}"
        )
    clean = {}
    for doc, score in scores.items():
        value = float(score)
        if not math.isfinite(value):
            raise ValueError(
                f"score of document {doc!r} is {value!r}; scores must be finite"
            )
        clean[doc] = value
    return sorted(clean, key=lambda doc: (-clean[doc], doc))


# --------------------------------------------------------------------------
# Per-question metrics
# --------------------------------------------------------------------------


def precision_at_k(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    k: int,
    *,
    qid: Hashable | None = None,
) -> float:
    """Precision at cut-off k (trec_eval ``P_k``).

    Formula: ``P@k = |relevant docs in ranking[:k]| / k``. The divisor is
    always ``k``, even when fewer than ``k`` docs were returned (the missing
    positions count as not relevant), exactly as trec_eval.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        k: ``int >= 1``, the cut-off.
        qid: optional question id, only used in error messages.

    Returns:
        ``float`` in [0, 1]; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: ``k < 1`` or a negative grade.
        TypeError: ``k`` or a grade is not an integer, ``ranking`` is a
            string, set or mapping.
    """
    docs, _, k = _prepare(ranking, qrels, qid, k)
    return sum(_is_rel(qrels, d) for d in docs[:k]) / k


def recall_at_k(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    k: int,
    *,
    qid: Hashable | None = None,
) -> float:
    """Recall at cut-off k (trec_eval ``recall_k``).

    Formula: ``recall@k = |relevant docs in ranking[:k]| / |relevant docs|``,
    where the denominator counts ALL docs with grade >= 1 in ``qrels``,
    retrieved or not.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        k: ``int >= 1``, the cut-off (may exceed ``len(ranking)``).
        qid: optional question id, only used in error messages.

    Returns:
        ``float`` in [0, 1]; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: ``k < 1`` or a negative grade.
        TypeError: as :func:`precision_at_k`.
    """
    docs, n_rel, k = _prepare(ranking, qrels, qid, k)
    return sum(_is_rel(qrels, d) for d in docs[:k]) / n_rel


def hit_at_k(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    k: int,
    *,
    qid: Hashable | None = None,
) -> float:
    """Hit (success) at cut-off k (trec_eval ``success_k``).

    Formula: ``hit@k = 1.0`` if at least one doc of ``ranking[:k]`` has grade
    >= 1, else ``0.0``. Its mean over questions is often called "hit rate" or
    "success@k". With a single relevant doc it equals recall@k.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        k: ``int >= 1``, the cut-off.
        qid: optional question id, only used in error messages.

    Returns:
        ``float``, 0.0 or 1.0; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: ``k < 1`` or a negative grade.
        TypeError: as :func:`precision_at_k`.
    """
    docs, _, k = _prepare(ranking, qrels, qid, k)
    return 1.0 if any(_is_rel(qrels, d) for d in docs[:k]) else 0.0


def reciprocal_rank(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    *,
    qid: Hashable | None = None,
) -> float:
    """Reciprocal rank of the first relevant doc (trec_eval ``recip_rank``).

    Formula: ``RR = 1 / r`` where ``r`` is the 1-based rank of the first doc
    with grade >= 1 in the whole ranking (no cut-off), and ``RR = 0`` when
    no relevant doc was returned. Its mean over questions is the MRR.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        qid: optional question id, only used in error messages.

    Returns:
        ``float`` in [0, 1]; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: a negative grade.
        TypeError: as :func:`precision_at_k`.
    """
    docs, _, _ = _prepare(ranking, qrels, qid)
    for i, doc in enumerate(docs, start=1):
        if _is_rel(qrels, doc):
            return 1.0 / i
    return 0.0


def average_precision(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    *,
    qid: Hashable | None = None,
) -> float:
    """Average precision (trec_eval ``map``, per question).

    Formula: ``AP = (sum over ranks i where ranking[i] is relevant of P@i) /
    |relevant docs|``. The denominator counts ALL relevant docs in ``qrels``,
    so relevant docs that were never retrieved contribute 0. The whole
    ranking is used (no cut-off). Its mean over questions is the MAP.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        qid: optional question id, only used in error messages.

    Returns:
        ``float`` in [0, 1]; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: a negative grade.
        TypeError: as :func:`precision_at_k`.
    """
    docs, n_rel, _ = _prepare(ranking, qrels, qid)
    found = 0
    total = 0.0
    for i, doc in enumerate(docs, start=1):
        if _is_rel(qrels, doc):
            found += 1
            total += found / i
    return total / n_rel


def _gain(grade: int, gain: str) -> float:
    return float(grade) if gain == "linear" else float(2**grade - 1)


def _dcg(grades: Iterable[int], gain: str) -> float:
    return sum(
        _gain(g, gain) / math.log2(i + 1) for i, g in enumerate(grades, start=1)
    )


def ndcg_at_k(
    ranking: Sequence[str],
    qrels: Mapping[str, int],
    k: int,
    gain: Gain = "linear",
    *,
    qid: Hashable | None = None,
) -> float:
    """Normalised discounted cumulative gain at cut-off k.

    Source: Järvelin & Kekäläinen (2002), "Cumulated gain-based evaluation of
    IR techniques", ACM TOIS 20(4); with ``gain="linear"`` this is trec_eval
    ``ndcg_cut_k``.

    Formula::

        DCG@k  = sum_{i=1..min(k, len(ranking))} gain(grade(ranking[i])) / log2(i + 1)
        IDCG@k = DCG@k of the ideal ranking: ALL judged grades of the
                 question sorted descending (relevant docs that were not
                 retrieved still count)
        NDCG@k = DCG@k / IDCG@k

    with ``gain(g) = g`` (``"linear"``, trec_eval) or ``gain(g) = 2**g - 1``
    (``"exponential"``, Burges et al. 2005). The two agree when every grade is
    0 or 1. Docs absent from ``qrels`` have grade 0.

    Args:
        ranking: ``Sequence[str]``, doc ids best first.
        qrels: ``Mapping[str, int]``, doc id -> grade (>= 1 relevant).
        k: ``int >= 1``, the cut-off.
        gain: ``"linear"`` (default) or ``"exponential"``.
        qid: optional question id, only used in error messages.

    Returns:
        ``float`` in [0, 1]; 0.0 for an empty ranking.

    Raises:
        NoRelevantDocumentsError: no grade >= 1 in ``qrels``.
        DuplicateDocumentError: a doc id appears twice in ``ranking``.
        ValueError: ``k < 1``, a negative grade or an unknown ``gain``.
        TypeError: as :func:`precision_at_k`.
    """
    _check_gain(gain)
    docs, _, k = _prepare(ranking, qrels, qid, k)
    dcg = _dcg((qrels.get(d, 0) for d in docs[:k]), gain)
    ideal = sorted(qrels.values(), reverse=True)[:k]
    idcg = _dcg(ideal, gain)  # > 0: at least one grade >= 1 and k >= 1
    return dcg / idcg


# --------------------------------------------------------------------------
# Simple forms: one expected report, found at rank `rank` (1-based) or not
# --------------------------------------------------------------------------


def recall_at_k_from_rank(rank: int | None, k: int) -> float:
    """Recall@k when the question has exactly one relevant report.

    Formula: ``1.0 if rank is not None and rank <= k else 0.0``. Equal to
    :func:`recall_at_k` (and to :func:`hit_at_k`) for a question with a single
    relevant doc (trec_eval ``recall_k`` / ``success_k``).

    Args:
        rank: ``int >= 1``, the 1-based rank at which the expected report was
            found, or ``None`` if it was not returned.
        k: ``int >= 1``, the cut-off.

    Returns:
        ``float``, 0.0 or 1.0.

    Raises:
        ValueError: ``rank < 1`` or ``k < 1``.
        TypeError: ``rank`` or ``k`` not an integer.
    """
    rank = _check_rank(rank)
    k = _check_k(k)
    return 1.0 if rank is not None and rank <= k else 0.0


def reciprocal_rank_from_rank(rank: int | None) -> float:
    """Reciprocal rank when the question has exactly one relevant report.

    Formula: ``1 / rank``, or ``0.0`` when ``rank is None`` (not found). Equal
    to :func:`reciprocal_rank` (trec_eval ``recip_rank``) for a question with
    a single relevant doc.

    Args:
        rank: ``int >= 1`` (1-based rank of the expected report) or ``None``.

    Returns:
        ``float`` in [0, 1].

    Raises:
        ValueError: ``rank < 1``.
        TypeError: ``rank`` not an integer.
    """
    rank = _check_rank(rank)
    return 0.0 if rank is None else 1.0 / rank


def ndcg_at_k_from_rank(rank: int | None, k: int) -> float:
    """NDCG@k when the question has exactly one relevant report (of any grade).

    Formula: ``1 / log2(rank + 1)`` if ``rank <= k``, else ``0.0`` (also 0.0
    when ``rank is None``). The ideal ranking puts the report at rank 1, whose
    DCG is the gain divided by ``log2(2) = 1``, so the gain cancels out. Equal,
    up to floating-point rounding in the last bit, to :func:`ndcg_at_k`
    (Järvelin & Kekäläinen 2002; trec_eval ``ndcg_cut_k``) for a question with
    a single relevant doc, whatever its grade and the gain.

    Args:
        rank: ``int >= 1`` (1-based rank of the expected report) or ``None``.
        k: ``int >= 1``, the cut-off.

    Returns:
        ``float`` in [0, 1].

    Raises:
        ValueError: ``rank < 1`` or ``k < 1``.
        TypeError: ``rank`` or ``k`` not an integer.
    """
    rank = _check_rank(rank)
    k = _check_k(k)
    if rank is None or rank > k:
        return 0.0
    return 1.0 / math.log2(rank + 1)


# --------------------------------------------------------------------------
# Question sets
# --------------------------------------------------------------------------


def metric_columns(k: int) -> list[str]:
    """Column names of the table returned by :func:`evaluate` for cut-off k.

    Args:
        k: ``int >= 1``.

    Returns:
        ``list[str]``: ``["P@k", "recall@k", "hit@k", "RR", "AP", "NDCG@k"]``
        with the actual number in place of ``k`` (e.g. ``"recall@5"``).

    Raises:
        ValueError / TypeError: as for ``k`` in :func:`precision_at_k`.
    """
    k = _check_k(k)
    return [f"P@{k}", f"recall@{k}", f"hit@{k}", "RR", "AP", f"NDCG@{k}"]


def evaluate(
    run: Mapping[str, Sequence[str] | Mapping[str, float]],
    qrels: Mapping[str, Mapping[str, int]],
    k: int,
    gain: Gain = "linear",
) -> pd.DataFrame:
    """Score every question of a question set.

    Args:
        run: ``Mapping[qid, Sequence[str]]``, the ranking returned for each
            question, best first. A value may also be a mapping
            ``doc id -> score`` (as returned by
            :func:`ddrsearch.evaluation.trec.read_run`); it is then ranked with
            :func:`rank_by_score` (package tie rule).
        qrels: ``Mapping[qid, Mapping[str, int]]``, the judgements of each
            question. The questions evaluated are exactly the keys of
            ``qrels``.
        k: ``int >= 1``, the cut-off of P, recall, hit and NDCG.
        gain: ``"linear"`` or ``"exponential"``, see :func:`ndcg_at_k`.

    Returns:
        ``pandas.DataFrame`` with one row per question (index ``qid``, in the
        order of ``qrels``) and the float columns ``P@k``, ``recall@k``,
        ``hit@k``, ``RR``, ``AP``, ``NDCG@k`` (the actual ``k`` in the names,
        e.g. ``recall@5``), computed by :func:`precision_at_k`,
        :func:`recall_at_k`, :func:`hit_at_k`, :func:`reciprocal_rank`,
        :func:`average_precision` and :func:`ndcg_at_k`.

        A question that is in ``qrels`` but missing from ``run`` counts as an
        empty ranking: it scores 0.0 everywhere and is kept in the table (and
        therefore in the means). This is trec_eval's ``-c`` option; plain
        trec_eval would drop the question from its averages instead.

    Raises:
        ValueError: a qid of ``run`` is not in ``qrels`` (naming it); ``qrels``
            is empty; ``k < 1``; unknown ``gain``; a negative grade.
        NoRelevantDocumentsError: a question without relevant doc (naming it).
        DuplicateDocumentError: a ranking lists a doc twice (naming the doc
            and the question).
    """
    cols = metric_columns(k)
    _check_gain(gain)
    if not isinstance(run, Mapping) or not isinstance(qrels, Mapping):
        raise TypeError("run and qrels must both be mappings keyed by question id")
    unknown = [q for q in run if q not in qrels]
    if unknown:
        raise ValueError(
            f"the run has question(s) {unknown!r} that have no judgements in "
            "qrels; add their judgements or remove them from the run"
        )
    if len(qrels) == 0:
        raise ValueError("qrels is empty: there is no question to evaluate")

    rows = []
    for qid, judged in qrels.items():
        ranking = run.get(qid, [])
        if isinstance(ranking, Mapping):
            ranking = rank_by_score(ranking)
        rows.append(
            [
                precision_at_k(ranking, judged, k, qid=qid),
                recall_at_k(ranking, judged, k, qid=qid),
                hit_at_k(ranking, judged, k, qid=qid),
                reciprocal_rank(ranking, judged, qid=qid),
                average_precision(ranking, judged, qid=qid),
                ndcg_at_k(ranking, judged, k, gain, qid=qid),
            ]
        )
    index = pd.Index(list(qrels), name="qid")
    return pd.DataFrame(rows, index=index, columns=cols, dtype=float)


def mean_metrics(df: pd.DataFrame) -> pd.Series:
    """Mean of each metric over the questions of a table from :func:`evaluate`.

    Formula: the arithmetic mean of each column over the rows (every question
    weighs the same). The mean of ``RR`` is reported as ``MRR`` and the mean
    of ``AP`` as ``MAP`` (trec_eval ``recip_rank`` / ``map`` averaged over
    questions); the other columns keep their names (``P@5`` etc.).

    Args:
        df: ``pandas.DataFrame``, one row per question, numeric columns.

    Returns:
        ``pandas.Series`` named ``"mean"``, indexed by metric name.

    Raises:
        ValueError: ``df`` has no rows (the mean would be undefined).
    """
    if len(df) == 0:
        raise ValueError("cannot average an empty table: it has no questions")
    means = df.mean(axis=0, numeric_only=False).rename({"RR": "MRR", "AP": "MAP"})
    means.name = "mean"
    return means

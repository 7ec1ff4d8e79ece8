"""Refusal rules of the answer cards, compared by balanced accuracy with paired bootstrap intervals.

An answer card (:class:`ddrsearch.answers.answerer.Answerer`) answers a question
when its best support reaches :data:`ddrsearch.answers.answerer.ANSWER_THRESHOLD`
and refuses it otherwise. :func:`refusal_scores` records, for every development
question of some question sets (answerable or not), the best support and the
*cosine margin* (the best candidate's cosine minus the median of the ``k``
candidates'); :func:`refusal_table` sets two other rules beside today's: the
threshold recalibrated on the pooled questions
(:func:`ddrsearch.answers.answerer.calibrate_threshold`), and "answer when the
support reaches the threshold *or* the cosine margin reaches a cut-off" (the
cut-off of :data:`MARGINS` with the best pooled balanced accuracy).

Balanced accuracy is half the share of answerable questions answered plus half
the share of unanswerable ones refused. Its change between two rules gets a
95% percentile-bootstrap interval (Efron and Tibshirani, 1993) with the questions resampled
within the answerable and within the unanswerable ones, so each draw keeps both kinds.
Choose a rule on development questions only.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np
import pandas as pd

from ddrsearch.answers.answerer import ANSWER_THRESHOLD, Answerer, calibrate_threshold
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import Report

__all__ = ["MARGINS", "answers_regardless", "balanced_accuracy", "paired_change", "refusal_scores", "refusal_table"]

#: Cosine-margin cut-offs tried by :func:`refusal_table` (cosine units; the best on the pooled questions is kept).
MARGINS = (0.04, 0.05, 0.06, 0.07, 0.08, 0.09, 0.10, 0.12)


def _kinds(answered, answerable) -> tuple[np.ndarray, np.ndarray]:
    answered, answerable = np.asarray(answered, bool), np.asarray(answerable, bool)
    if answered.shape != answerable.shape or answered.ndim != 1:
        raise ValueError(f"answered and answerable must be 1-D and of one length, got shapes "
                         f"{answered.shape} and {answerable.shape}")
    if answerable.all() or not answerable.any():
        raise ValueError(f"balanced accuracy needs answerable and unanswerable questions; got "
                         f"{int(answerable.sum())} answerable of {len(answerable)}")
    return answered, answerable


def balanced_accuracy(answered: Sequence[bool], answerable: Sequence[bool]) -> float:
    """Half the share of answerable questions answered plus half the share of unanswerable ones refused.

    Args:
        answered: per question, True when the rule answers it.
        answerable: per question, True when it has an answer in the reports.

    Raises:
        ValueError: the two differ in length, or all questions are of one kind.

    >>> balanced_accuracy([True, False, False, True], [True, True, False, False])
    0.5
    """
    answered, answerable = _kinds(answered, answerable)
    return float((answered[answerable].mean() + (~answered[~answerable]).mean()) / 2)


def paired_change(new: Sequence[bool], old: Sequence[bool], answerable: Sequence[bool], n: int = 2000,
                  seed: int = 0) -> tuple[float, float, float]:
    """Balanced-accuracy change of rule ``new`` over rule ``old`` on the same questions, with its 95% interval.

    Args:
        new, old: per question, True when that rule answers it.
        answerable: per question, True when it has an answer.
        n: bootstrap draws; each resamples the answerable and the unanswerable questions apart.
        seed: seed of the draws (fixed: the same interval at every run).

    Returns:
        ``(change, low, high)``: the change and the 2.5 and 97.5 percentiles of the resampled changes.

    Raises:
        ValueError: the three differ in length, all questions are of one kind, or ``n`` < 1.
    """
    new, answerable = _kinds(new, answerable)
    old, _ = _kinds(old, answerable)
    if n < 1:
        raise ValueError(f"n must be at least 1 bootstrap draw, got {n}")
    rng = np.random.default_rng(seed)
    a, u = np.flatnonzero(answerable), np.flatnonzero(~answerable)
    diffs = []
    for _ in range(n):
        i = np.concatenate([rng.choice(a, len(a)), rng.choice(u, len(u))])
        diffs.append(balanced_accuracy(new[i], answerable[i]) - balanced_accuracy(old[i], answerable[i]))
    low, high = np.percentile(diffs, [2.5, 97.5])
    return balanced_accuracy(new, answerable) - balanced_accuracy(old, answerable), float(low), float(high)


def refusal_scores(answerer: Answerer, reports: Sequence[Report],
                   sets: Sequence[str] = ("archive", "plain")) -> pd.DataFrame:
    """Each development question of ``sets`` through ``answerer``: its set, kind, best support and cosine margin.

    Args:
        answerer: the answer cards (the default pipeline over ``reports``).
        reports: the reports the question sets are checked against (:func:`~ddrsearch.evaluation.questionfiles.load_questions`).
        sets: names of question sets with a development split.

    Returns:
        One row per question: ``set``, ``answerable`` (bool), ``support`` (the
        card's best support), ``margin`` (the best candidate's cosine minus
        the median of the candidates', 0 when the card has none) and ``typed``
        (bool: the card answers whatever the threshold, as a depth passed or the
        rows of a day are quoted whatever their support: found by ``answerer``
        with an unreachable threshold).

    Raises:
        ValueError: an unknown set name (from ``load_questions``).
        ddrsearch.errors.QuestionSetError: a set whose file has problems (from ``load_questions``).
    """
    rows = []
    for set_name in sets:
        for q in load_questions(set_name, reports=reports).split("dev").questions:
            card = answerer.ask(q.question)
            cos = [c.cosine for c in card.candidates] or [0.0]
            rows.append({"set": set_name, "answerable": q.answerable, "support": card.support,
                         "margin": max(cos) - float(np.median(cos)), "typed": answers_regardless(answerer, q.question)})
    return pd.DataFrame(rows)


def answers_regardless(answerer: Answerer, question: str) -> bool:
    """Whether ``answerer``'s card for ``question`` quotes rows whatever the threshold (a depth passed, a
    quantity on a day, the rows of a day): the card found with the threshold set above any support (3)."""
    strict = copy.copy(answerer)  # the same retriever and caches
    strict.threshold = 3.0  # a support is at most 2
    return strict.ask(question).found


def refusal_table(scores: pd.DataFrame, margins: Sequence[float] = MARGINS) -> tuple[pd.DataFrame, float, float]:
    """Balanced accuracy per set and pooled, today and under the two rules tried.

    Args:
        scores: a :func:`refusal_scores` table.
        margins: the cosine-margin cut-offs to choose from.

    Returns:
        ``(table, pooled threshold, margin cut-off)``. ``table`` is indexed by
        (rule, set), the sets being each of ``scores`` and ``"pooled"``; its
        columns: ``today`` and ``rule BA`` (balanced accuracy under today's
        threshold and under the rule), ``change``, ``low``, ``high`` (the paired
        change and its 95% interval), ``answerable refused`` and
        ``unanswerable refused`` (shares under the rule). The rules, in order:
        the pooled threshold, then today's threshold or the cosine margin. A
        question whose card answers whatever the threshold (column ``typed``,
        when there is one) is answered under every rule, today's too.

    Raises:
        ValueError: ``margins`` is empty, a column is missing, or a set lacks answerable or unanswerable questions.
    """
    missing = {"set", "answerable", "support", "margin"} - set(scores.columns)
    if missing or not len(margins):
        raise ValueError(f"refusal_table needs the refusal_scores columns and at least one margin; "
                         f"missing columns {sorted(missing)}, {len(margins)} margins")
    sets, ans = scores["set"].to_numpy(), scores["answerable"].to_numpy(bool)
    support, margin = scores["support"].to_numpy(), scores["margin"].to_numpy()
    typed = scores["typed"].to_numpy(bool) if "typed" in scores else np.zeros(len(scores), bool)
    pooled_t = calibrate_threshold(support[ans], support[~ans])
    old = (support >= ANSWER_THRESHOLD) | typed
    best = max(margins, key=lambda m: (balanced_accuracy(old | (margin >= m), ans), -m))
    every = {s: sets == s for s in dict.fromkeys(sets)} | {"pooled": np.ones(len(sets), bool)}
    rows = []
    for label, new in ((f"threshold {pooled_t:.3f} (pooled dev)", (support >= pooled_t) | typed),
                       (f"or cosine margin >= {best:.2f}", old | (margin >= best))):
        for s, mask in every.items():
            gain, low, high = paired_change(new[mask], old[mask], ans[mask])
            rows.append({"rule": label, "set": s, "today": balanced_accuracy(old[mask], ans[mask]),
                         "rule BA": balanced_accuracy(new[mask], ans[mask]), "change": gain, "low": low,
                         "high": high, "answerable refused": float((~new[mask & ans]).mean()),
                         "unanswerable refused": float((~new[mask & ~ans]).mean())})
    return pd.DataFrame(rows).set_index(["rule", "set"]), pooled_t, best

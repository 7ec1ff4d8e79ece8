"""benchmarks/plain_ask.py: the support scores ``--support`` tries and how they are judged."""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

import plain_ask


def _entry(term, kind="operation", of=""):
    return SimpleNamespace(term=term, kind=kind, printed=of or term)


def test_with_margin_adds_each_value_its_lead_on_the_mean_of_the_others():
    assert plain_ask.with_margin([0.5, 0.3, 0.1]) == pytest.approx([0.8, 0.3, -0.2])
    assert plain_ask.with_margin([0.4]) == pytest.approx([0.4])


def test_question_concepts_are_the_nearest_non_measurement_terms_by_printed_term_and_its_own_terms_at_one():
    entries = [_entry("psi", kind="measurement"), _entry("POOH", of="trip out of hole"), _entry("trip out of hole"),
               _entry("stuck pipe"), _entry("kick")]
    sims = np.array([0.99, 0.8, 0.6, 0.55, 0.4])
    weights = plain_ask.concept_weights(sims, entries, ["kick"], k=2, least=0.5)
    # psi is a measurement (left out); POOH and its printed term are one concept at the higher similarity;
    # stuck pipe is third nearest (k = 2); kick is below 0.5 by meaning but the question prints it
    assert weights == pytest.approx({"trip out of hole": 0.8, "kick": 1.0})


def test_concept_coverage_is_the_weighted_share_of_the_question_concepts_the_row_uses():
    weights = {"trip out of hole": 0.8, "kick": 1.0, "bha": 0.2}
    assert plain_ask.concept_coverage(weights, ["trip out of hole", "bha", "bit"]) == pytest.approx(0.5)
    assert plain_ask.concept_coverage({}, ["bit"]) == 0.0


def test_folds_deal_each_sets_answerable_and_unanswerable_questions_evenly():
    sets = np.array(["archive"] * 12 + ["plain"] * 8)
    answerable = np.array([True] * 10 + [False] * 2 + [True] * 5 + [False] * 3)
    fold = plain_ask.folds(sets, answerable, n=5, seed=0)
    assert np.array_equal(fold, plain_ask.folds(sets, answerable, n=5, seed=0))
    for s in ("archive", "plain"):
        for a in (True, False):
            counts = np.bincount(fold[(sets == s) & (answerable == a)], minlength=5)
            assert counts.max() - counts.min() <= 1


def test_a_cross_validated_threshold_is_chosen_without_the_fold_it_judges():
    # fold 0 alone puts the threshold at 0.74, which refuses all of fold 1; fold 1 alone puts it at 0.575,
    # which answers fold 0's unanswerable 0.58. All six together would be split perfectly at 0.59.
    score = np.array([0.9, 0.58, 0.1, 0.62, 0.55, 0.6])
    answerable = np.array([True, False, False, True, False, True])
    fold = np.array([0, 0, 0, 1, 1, 1])
    assert plain_ask.calibrate_threshold([0.9], [0.58, 0.1]) == pytest.approx(0.74)
    assert plain_ask.calibrate_threshold([0.62, 0.6], [0.55]) == pytest.approx(0.575)
    answered = plain_ask.cv_threshold_rule(score, answerable, fold)
    assert answered.tolist() == [True, True, False, False, False, False]
    assert plain_ask.calibrate_threshold(score[answerable], score[~answerable]) == pytest.approx(0.59)


def test_the_support_table_answers_a_typed_path_question_under_every_variant():
    """As the card does: before, a question a typed path answers whatever its support counted as refused."""
    import pandas as pd

    rng = np.random.default_rng(0)
    n = 60
    sets = np.array(["archive"] * 30 + ["plain"] * 30)
    answerable = np.arange(n) % 3 != 0
    columns = {name: np.where(answerable, rng.uniform(0.4, 0.6, n), rng.uniform(0.3, 0.46, n))
               for name in [*plain_ask.SUPPORT_VARIANTS, "cosine", "margin", "concept"]}
    scores = pd.DataFrame({"set": sets, "answerable": answerable, **columns})
    scores.loc[[1, 2], list(columns)] = 0.0  # two answerable questions no score answers ...
    scores["typed"] = scores.index.isin([1, 2])  # ... whose cards answer from a typed path
    table = plain_ask.support_table(scores)
    refused = table.xs("archive", level="set")["answerable refused"]
    without = plain_ask.support_table(scores.drop(columns="typed")).xs("archive", level="set")["answerable refused"]
    assert (refused <= without - 2 / 20 + 1e-9).all()  # 20 answerable archive questions, both answered

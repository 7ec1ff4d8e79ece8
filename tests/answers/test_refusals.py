"""ddrsearch.answers.refusals: balanced accuracy, its paired interval and the table of refusal rules."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from ddrsearch.answers.answerer import ANSWER_THRESHOLD, calibrate_threshold
from ddrsearch.answers.refusals import MARGINS, balanced_accuracy, paired_change, refusal_table


def test_balanced_accuracy_weighs_the_two_kinds_equally():
    # 3 of 4 answerable answered (0.75), 1 of 2 unanswerable refused (0.5)
    answered = [True, True, True, False, True, False]
    answerable = [True, True, True, True, False, False]
    assert balanced_accuracy(answered, answerable) == pytest.approx((0.75 + 0.5) / 2)
    assert balanced_accuracy(answerable, answerable) == 1.0


def test_balanced_accuracy_refuses_a_single_kind_or_unequal_lengths():
    with pytest.raises(ValueError, match="answerable and unanswerable"):
        balanced_accuracy([True, False], [True, True])
    with pytest.raises(ValueError, match="one length"):
        balanced_accuracy([True, False, True], [True, False])


def test_paired_change_of_a_rule_against_itself_is_zero_with_a_zero_interval():
    ans = np.array([True] * 6 + [False] * 4)
    rule = np.array([True, True, False, True, False, True, False, True, False, False])
    assert paired_change(rule, rule, ans, n=200) == (0.0, 0.0, 0.0)


def test_paired_change_is_the_difference_and_its_interval_holds_it():
    ans = np.array([True] * 6 + [False] * 4)
    old = np.array([True, True, False, False, False, True, False, True, False, False])
    new = ans.copy()  # answers every answerable one and refuses every unanswerable one
    change, low, high = paired_change(new, old, ans, n=500, seed=3)
    assert change == pytest.approx(balanced_accuracy(new, ans) - balanced_accuracy(old, ans))
    assert low <= change <= high
    assert paired_change(new, old, ans, n=500, seed=3) == (change, low, high)  # seeded
    with pytest.raises(ValueError, match="bootstrap draw"):
        paired_change(new, old, ans, n=0)


def _scores():
    rng = np.random.default_rng(0)
    rows = []
    for set_name, n in (("archive", 30), ("plain", 20)):
        for i in range(n):
            answerable = i % 3 != 0
            support = rng.uniform(0.40, 0.60) if answerable else rng.uniform(0.30, 0.46)
            margin = rng.uniform(0.0, 0.15) if answerable else rng.uniform(0.0, 0.06)
            rows.append({"set": set_name, "answerable": answerable, "support": support, "margin": margin})
    return pd.DataFrame(rows)


def test_refusal_table_sets_two_rules_beside_today_on_every_set_and_pooled():
    scores = _scores()
    table, pooled_t, cut = refusal_table(scores)
    ans = scores["answerable"].to_numpy()
    assert pooled_t == calibrate_threshold(scores["support"][ans], scores["support"][~ans])
    assert cut in MARGINS
    assert [s for _, s in table.index] == ["archive", "plain", "pooled"] * 2
    old = scores["support"].to_numpy() >= ANSWER_THRESHOLD
    assert table.xs("pooled", level="set")["today"].iloc[0] == pytest.approx(balanced_accuracy(old, ans))
    margin_rule = old | (scores["margin"].to_numpy() >= cut)
    row = table.xs("pooled", level="set").iloc[1]
    assert row["rule BA"] == pytest.approx(balanced_accuracy(margin_rule, ans))
    assert row["unanswerable refused"] == pytest.approx((~margin_rule[~ans]).mean())
    # the cut-off chosen is the best of the margins tried on the pooled questions
    assert row["rule BA"] == pytest.approx(max(balanced_accuracy(old | (scores["margin"].to_numpy() >= m), ans)
                                               for m in MARGINS))


def test_refusal_table_refuses_a_table_without_the_score_columns():
    with pytest.raises(ValueError, match="missing columns \\['margin'\\]"):
        refusal_table(_scores().drop(columns="margin"))


def test_a_question_the_card_answers_whatever_the_threshold_is_answered_under_every_rule():
    """Before: the table counted a question answered when its support reached the threshold, so the two archive
    dev questions a typed path answers (a depth passed, the rows of Christmas Day) were refused in the study
    though their cards quote rows: archive dev 18 of 41 answerable refused there, 16 on the cards."""
    scores = _scores()
    low = scores.index[scores["answerable"]][:2]
    scores.loc[low, "support"] = 0.1  # below every threshold: refused by their support
    scores["typed"] = scores.index.isin(low)
    assert pooled_threshold(scores) > 0.1
    table, _, _ = refusal_table(scores)
    ans = scores["answerable"].to_numpy()
    old = (scores["support"].to_numpy() >= ANSWER_THRESHOLD) | scores["typed"].to_numpy()
    pooled = table.xs("pooled", level="set")
    assert pooled["today"].iloc[0] == pytest.approx(balanced_accuracy(old, ans))
    assert pooled["answerable refused"].iloc[0] == pytest.approx(
        (~((scores["support"].to_numpy() >= pooled_threshold(scores)) | scores["typed"].to_numpy()))[ans].mean())
    untyped, _, _ = refusal_table(scores.drop(columns="typed"))
    fewer = (table["answerable refused"] - untyped["answerable refused"]).xs("pooled", level="set")
    assert fewer.iloc[0] == pytest.approx(-2 / ans.sum()) and fewer.iloc[1] <= 0  # the threshold rule: both


def pooled_threshold(scores):
    ans = scores["answerable"].to_numpy()
    return calibrate_threshold(scores["support"][ans], scores["support"][~ans])


@pytest.mark.data
@pytest.mark.model
def test_answers_regardless_is_true_only_for_a_typed_path_card(archive):
    from ddrsearch.answers.answerer import Answerer
    from ddrsearch.answers.refusals import answers_regardless

    answerer = Answerer(archive)
    assert answers_regardless(answerer, "when did the well get past 5,000 feet")  # the MD field's report, its rows
    assert answers_regardless(answerer, "what were we doing on Christmas Day 2020")  # the day's rows
    assert not answers_regardless(answerer, "when did we last get stuck?")  # answered by its support alone
    assert answerer.threshold == ANSWER_THRESHOLD  # the answerer is left as it was

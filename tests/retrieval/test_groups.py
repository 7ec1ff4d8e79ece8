"""ddrsearch.retrieval.groups: the question's likely activity groups against each row's time code and phase."""

from __future__ import annotations

import types

import numpy as np
import pytest

from ddrsearch.retrieval.groups import CODE_GROUPS, PHASE_GROUPS, group_scores, question_groups, row_groups
from ddrsearch.text.lexicon import GROUPS


def test_every_code_and_phase_maps_to_lexicon_groups():
    assert all(set(gs) <= set(GROUPS) for gs in (*CODE_GROUPS.values(), *PHASE_GROUPS.values()))
    assert row_groups("Other", "Production Drilling") == frozenset()
    assert row_groups("Trips", "Surface Casing") == {"trips", "casing_cement"}


def test_the_question_groups_are_similarity_shares():
    entry = types.SimpleNamespace
    matches = [(entry(group="trips"), 0.6), (entry(group="rig_moves"), 0.3), (entry(group="trips"), 0.3),
               (entry(group="drilling"), -0.1)]
    assert question_groups(matches) == pytest.approx({"rig_moves": 0.25, "trips": 0.75})
    assert question_groups([]) == {}


def test_a_passage_scores_the_share_of_its_likeliest_group():
    scores = group_scores({"trips": 0.75, "rig_moves": 0.25},
                          [frozenset({"trips"}), frozenset({"rig_moves", "casing_cement"}), frozenset()])
    assert scores == pytest.approx(np.array([0.75, 0.25, 0.0]))


@pytest.mark.data
@pytest.mark.model
def test_the_lever_favours_the_rows_of_the_questions_group_and_off_changes_nothing(archive):
    from ddrsearch.retrieval.pipeline import build_retriever

    default = build_retriever("hybrid", archive)
    on = default.with_weight(default.weight)
    on.groups = 0.1
    question = "when was the mast stood up?"
    bonus = on.group_scores(question)
    codes = [on.reports[p.report].operations[p.row].code if p.kind == "operation" else "" for p in on.passages]
    rig_up = np.array([c == "Rig Up & Tear Down" for c in codes])
    assert bonus[rig_up].min() > 0 and bonus[rig_up].mean() > bonus[~rig_up].mean()
    fused_on, fused_off = on.passage_scores(question), default.passage_scores(question)
    assert np.allclose(np.nan_to_num(fused_on - fused_off), 0.1 * bonus)
    assert default.groups == 0.0 and [h.report for h in default.search(question, 5)] == \
        [h.report for h in default.with_weight(default.weight).search(question, 5)]
    with pytest.raises(ValueError, match="groups"):
        build_retriever("hybrid", archive[:2], groups=-1.0)

"""The activity group as a signal: the question's likely groups against each row's time code and phase.

A daily report files every TIME BREAKDOWN row under a time code (``Trips``,
``Cond Mud & Circ``, ``Test B.O.P.``, ...) and the day under a phase (``Rig
Move In``, ``Surface Casing``, ...). The drilling lexicon
(:mod:`ddrsearch.text.lexicon`) puts each of its terms in one of the same
activity groups (:data:`ddrsearch.text.lexicon.GROUPS`). A plain-English question
matched to the lexicon by meaning (:class:`ddrsearch.retrieval.lexicon_match.LexiconMatcher`)
so gets a distribution over groups (:func:`question_groups`), and a row whose
code or phase falls in a likely group earns a bonus (:func:`group_scores`):
"when was the mast stood up?" favours rows coded ``Rig Up & Tear Down``.

:data:`CODE_GROUPS` and :data:`PHASE_GROUPS` map the codes and phases the
archive prints to the lexicon's groups (``Other`` and an empty code map to
none); the tuned pipeline's ``groups`` lever adds ``groups`` times a row's
score to its fused score.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

__all__ = ["CODE_GROUPS", "PHASE_GROUPS", "group_scores", "question_groups", "row_groups"]

#: Time code as printed -> the lexicon groups it belongs to.
CODE_GROUPS: dict[str, tuple[str, ...]] = {
    "Trips": ("trips",),
    "Reaming": ("trips", "fishing_stuck"),
    "Cond Mud & Circ": ("circulating",),
    "Drilling": ("drilling",),
    "Dir Work": ("drilling", "logging_surveys"),
    "Rig Up & Tear Down": ("rig_moves",),
    "Run Csg & Cement": ("casing_cement",),
    "Wait on Cement": ("casing_cement",),
    "Wire Line Logs": ("logging_surveys",),
    "Coring": ("logging_surveys",),
    "Cut off Drill Line": ("repairs_npt",),
    "Rig Service": ("repairs_npt",),
    "Repair Rig": ("repairs_npt",),
    "Lubricate Rig": ("repairs_npt",),
    "Nipple Up B.O.P.": ("bop_testing",),
    "Test B.O.P.": ("bop_testing",),
    "Fishing": ("fishing_stuck",),
}

#: Phase as printed -> the lexicon groups it belongs to (the drilling phases: none beyond the code's).
PHASE_GROUPS: dict[str, tuple[str, ...]] = {
    "Rig Move In": ("rig_moves",),
    "Surface Casing": ("casing_cement",),
    "Intermediate Casing": ("casing_cement",),
    "Production Casing": ("casing_cement",),
}


def row_groups(code: str, phase: str) -> frozenset[str]:
    """The groups of a row with time code ``code`` in a report of phase ``phase`` (empty when neither maps)."""
    return frozenset(CODE_GROUPS.get(code.strip(), ()) + PHASE_GROUPS.get(phase.strip(), ()))


def question_groups(matches: Sequence[tuple[object, float]]) -> dict[str, float]:
    """The question's likely groups: each matched lexicon entry's similarity summed per group, summing to 1.

    Args:
        matches: ``(entry, similarity)`` pairs (:meth:`ddrsearch.retrieval.lexicon_match.LexiconMatcher.match`);
            an entry has a ``group``.

    Returns:
        Group -> share; ``{}`` when nothing matched (or every similarity is at most 0).
    """
    out: dict[str, float] = {}
    for entry, sim in matches:
        if sim > 0:
            out[entry.group] = out.get(entry.group, 0.0) + float(sim)
    total = sum(out.values())
    return {g: v / total for g, v in sorted(out.items())} if total else {}


def group_scores(groups: Mapping[str, float], passage_groups: Sequence[frozenset[str]]) -> np.ndarray:
    """Each passage's score: the question's share of the likeliest of the passage's groups (0 to 1).

    Args:
        groups: :func:`question_groups`' output.
        passage_groups: each passage's groups (:func:`row_groups`), in passage order.

    Returns:
        Array of shape ``(passages,)``.
    """
    return np.array([max((groups.get(g, 0.0) for g in pg), default=0.0) for pg in passage_groups])

"""ddrsearch.book.diagram: the book's one pipeline diagram, drawn from the package's settings.

Defect pinned: the book had no pipeline diagram while the default pipeline has
a dozen levers; a diagram drawn by hand would drift from DEFAULT_LEVERS. The
figure draws every stage from the PDF to the card or refusal, places every
lever of the default pipeline at its stage, and refuses a lever it has no
place for.
"""

from __future__ import annotations

import io

import pytest

from ddrsearch.answers.answerer import ANSWER_THRESHOLD
from ddrsearch.book.diagram import LEVER_STAGES, STAGES, lever_labels, pipeline_figure
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT


def _texts(fig) -> str:
    return "\n".join(t.get_text() for ax in fig.axes for t in ax.texts)


def test_the_diagram_draws_every_stage_and_every_lever():
    """Each stage's text and each lever's label is on the figure, and the figure renders to PNG."""
    fig = pipeline_figure()
    drawn = _texts(fig)
    assert all(text in drawn for _, text in STAGES), [t for _, t in STAGES if t not in drawn]
    labels = [item for items in lever_labels().values() for item in items]
    assert len(labels) == len(DEFAULT_LEVERS) + 2  # the levers, the dense weight and the threshold
    assert all(f"lever: {label}" in drawn for label in labels)
    assert f"dense weight {DEFAULT_WEIGHT:g}" in drawn and f"{ANSWER_THRESHOLD:.3f}" in drawn
    png = io.BytesIO()
    fig.savefig(png, format="png", dpi=50)
    assert png.getvalue()[:8] == b"\x89PNG\r\n\x1a\n"


def test_every_default_lever_has_a_stage():
    """A lever added to DEFAULT_LEVERS must be placed on the diagram; each place is a drawn stage."""
    assert set(DEFAULT_LEVERS) <= set(LEVER_STAGES)
    assert set(LEVER_STAGES.values()) <= {key for key, _ in STAGES}
    assert lever_labels()["bm25"][0] == "expanded, stemmed, 'while' dropped"
    assert "RM3 feedback" in lever_labels()["bm25"]


def test_a_lever_without_a_place_is_named():
    """An unknown lever is an error naming it and where to add it, not a diagram that leaves it out."""
    with pytest.raises(ValueError, match=r"rerank.*LEVER_STAGES"):
        pipeline_figure({**DEFAULT_LEVERS, "rerank": "cross-encoder"})

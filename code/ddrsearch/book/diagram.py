"""The book's one picture of the default pipeline: from the PDF to an answer card or a refusal, with its levers.

Drawn once here, so every chapter that shows it shows the same picture, and
drawn from the package's own settings: the levers are the keys of
:data:`ddrsearch.retrieval.pipeline.DEFAULT_LEVERS` (with the dense weight
:data:`~ddrsearch.retrieval.pipeline.DEFAULT_WEIGHT` and the answer threshold
:data:`~ddrsearch.answers.answerer.ANSWER_THRESHOLD`), each placed at the stage
where it acts (:data:`LEVER_STAGES`). A lever added to the pipeline without a
place here is an error, not a picture that quietly leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping

from ddrsearch.answers.answerer import ANSWER_THRESHOLD
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT

__all__ = ["LEVER_STAGES", "STAGES", "lever_labels", "pipeline_figure"]

#: The stages, top to bottom: (key, text). ``bm25`` and ``dense`` are drawn side by side.
STAGES: tuple[tuple[str, str], ...] = (
    ("pdf", "report PDF"),
    ("rows", "header fields and TIME BREAKDOWN rows"),
    ("chunks", "one chunk per operation row, with its context"),
    ("question", "the question"),
    ("bm25", "BM25 leg"),
    ("dense", "dense leg (MiniLM vectors)"),
    ("fusion", "fusion of the two legs"),
    ("rollup", "roll-up: passages to reports"),
    ("row", "the row shown for each report"),
    ("card", "answer card, or refusal"),
)

#: Where each lever acts: lever -> stage key. Keys of DEFAULT_LEVERS, plus "weight" and "threshold".
LEVER_STAGES: dict[str, str] = {
    "asker": "question",
    "bm25_options": "bm25",
    "prf": "bm25",
    "proximity": "bm25",
    "numbers": "bm25",
    "lexicon": "bm25",
    "lexicon_k": "bm25",
    "lexicon_gate": "bm25",
    "segments": "dense",
    "weight": "fusion",
    "candidates": "fusion",
    "structured": "fusion",
    "loose_dates": "fusion",
    "sections": "fusion",
    "row": "row",
    "threshold": "card",
}


#: Labels of the levers whose label is one expression of their value.
_LABELS = {
    "loose_dates": lambda v: f"  loose dates: the period's reports (x{v:g})" if v else "  exact dates only",
    "sections": lambda v: f"  well sections: their reports (x{v:g})" if v else "  no well sections",
    "weight": lambda v: f"convex, dense weight {v:g}",
    "threshold": lambda v: f"refuse below support {v:.3f}",
}


def _describe(lever: str, value) -> str:
    """A short label for a lever and its value in the default pipeline."""
    if lever == "bm25_options":
        parts = [name for name, on in (("expanded", value.get("expand")), ("stemmed", value.get("stem"))) if on]
        parts += [f"'{w}' dropped" for w in value.get("stop_extra") or []]
        return ", ".join(parts) or "plain"
    if lever == "prf":
        return f"{str(value).upper()} feedback" if value else "no feedback"
    if lever == "asker":
        return "asker's shorthand spelled out" if value else "asked as typed"
    if lever == "proximity":
        return f"term proximity (x{value:g})" if value else "no proximity"
    if lever == "numbers":
        return "a number matched with its unit" if value == "units" else f"numbers: {value}"
    if lever == "lexicon":
        return f"lexicon terms by meaning (x{value:g})" if value else "no lexicon terms"
    if lever == "lexicon_k":
        return f"  at most {value} of them"
    if lever == "lexicon_gate":
        return f"  when its best row holds < {value:.0%} of it" if value is not None else "  for every question"
    if lever == "segments":
        return f"a long row also by its best {value} words" if value else "whole rows only"
    if lever == "candidates":
        return "every passage a candidate" if value is None else f"top {value} of each leg"
    if lever == "structured":
        return f"typed fields for numbers, dates (x{value:g})" if value else "no typed fields"
    if lever in _LABELS:
        return _LABELS[lever](value)
    if lever == "row":
        return f"row rule: {value}" + (" (rare question words)" if value == "local" else "")
    return f"{lever}: {value}"


def lever_labels(levers: Mapping | None = None, *, weight: float = DEFAULT_WEIGHT,
                 threshold: float = ANSWER_THRESHOLD) -> dict[str, list[str]]:
    """The lever labels drawn at each stage: stage key -> labels, in :data:`LEVER_STAGES` order.

    Args:
        levers: lever -> value (default :data:`DEFAULT_LEVERS`).
        weight: the dense weight of the fusion.
        threshold: the answer card's support threshold.

    Raises:
        ValueError: a lever has no stage in :data:`LEVER_STAGES` (the message names it).
    """
    values = dict(DEFAULT_LEVERS if levers is None else levers)
    values.update(weight=weight, threshold=threshold)
    unplaced = sorted(set(values) - set(LEVER_STAGES))
    if unplaced:
        raise ValueError(f"the pipeline diagram has no place for the lever(s) {', '.join(unplaced)}: add each to "
                         "ddrsearch.book.diagram.LEVER_STAGES with the stage where it acts")
    out: dict[str, list[str]] = {}
    for lever, stage in LEVER_STAGES.items():
        if lever in values:
            out.setdefault(stage, []).append(_describe(lever, values[lever]))
    return out


def pipeline_figure(levers: Mapping | None = None, *, weight: float = DEFAULT_WEIGHT,
                    threshold: float = ANSWER_THRESHOLD, width: float = 7.0):
    """Draw the default pipeline, top to bottom, with each lever beside the stage where it acts.

    Args:
        levers, weight, threshold: as :func:`lever_labels` (default: the
            package's default pipeline).
        width: figure width in inches (the height follows; 7 fits the PDF's text block).

    Returns:
        A :class:`matplotlib.figure.Figure` (not registered with pyplot: a
        notebook shows it as the cell's value; ``fig.savefig(path)`` writes it).

    Raises:
        ValueError: a lever has no stage (:func:`lever_labels`).
    """
    from matplotlib.figure import Figure
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    labels = lever_labels(levers, weight=weight, threshold=threshold)
    text = dict(STAGES)
    # (x centre, y centre, box width) in axes units; y runs from the top (1) down
    rows = ["pdf", "rows", "chunks", "question", "legs", "fusion", "rollup", "row", "card"]
    ys = {key: 1 - (i + 0.5) / len(rows) for i, key in enumerate(rows)}
    boxes = {key: (0.27, ys[key], 0.44) for key in ("pdf", "rows", "chunks", "question", "fusion", "rollup", "row",
                                                   "card")}
    boxes["dense"] = (0.14, ys["legs"], 0.25)  # BM25 on the right, beside its levers
    boxes["bm25"] = (0.41, ys["legs"], 0.23)
    height = 0.55 / len(rows)

    fig = Figure(figsize=(width, width * 1.05))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_axis_off()
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    shade = {"pdf": "#e8e8e8", "rows": "#e8e8e8", "chunks": "#e8e8e8", "question": "#fdf3d0", "card": "#d9ead3"}
    for key, (x, y, w) in boxes.items():
        ax.add_patch(FancyBboxPatch((x - w / 2, y - height / 2), w, height, boxstyle="round,pad=0.006",
                                    facecolor=shade.get(key, "#dce6f2"), edgecolor="#333333", linewidth=0.8))
        ax.text(x, y, text[key], ha="center", va="center", fontsize=8.5, wrap=True)

    def arrow(a, b, dx=0.0):
        (xa, ya, _), (xb, yb, _) = boxes[a], boxes[b]
        ax.add_patch(FancyArrowPatch((xa + dx, ya - height / 2), (xb, yb + height / 2), arrowstyle="-|>",
                                     mutation_scale=9, color="#333333", linewidth=0.8))

    for a, b in (("pdf", "rows"), ("rows", "chunks"), ("question", "bm25"), ("question", "dense"),
                 ("bm25", "fusion"), ("dense", "fusion"), ("fusion", "rollup"), ("rollup", "row"), ("row", "card")):
        arrow(a, b)
    # the chunks are indexed by both legs: a line down the left margin into each leg
    x0, y0, w0 = boxes["chunks"]
    ax.add_patch(FancyArrowPatch((x0 - w0 / 2, y0), (boxes["dense"][0] - boxes["dense"][2] / 2, ys["legs"]),
                                 connectionstyle="angle,angleA=180,angleB=90,rad=0", arrowstyle="-|>",
                                 mutation_scale=9, color="#777777", linewidth=0.8, linestyle="--"))
    ax.add_patch(FancyArrowPatch((x0 + w0 / 2, y0), (boxes["bm25"][0] + boxes["bm25"][2] / 2, ys["legs"]),
                                 connectionstyle="angle,angleA=0,angleB=90,rad=0", arrowstyle="-|>",
                                 mutation_scale=9, color="#777777", linewidth=0.8, linestyle="--"))
    ax.text(0.005, (y0 + ys["legs"]) / 2, "indexed", fontsize=7, color="#555555", rotation=90, va="center")
    # the levers, beside their stage, on the right
    for stage, items in labels.items():
        if stage in ("bm25", "dense"):
            y = ys["legs"]
        else:
            y = boxes[stage][1]
        ax.text(0.575, y, "\n".join(f"lever: {item}" for item in items), ha="left", va="center", fontsize=7.5,
                color="#7a3b00", linespacing=1.25)
        ax.plot([0.54, 0.565], [y, y], color="#7a3b00", linewidth=0.8)
    return fig

"""The row shown for a hit: which passage of a report answers the question.

A hybrid search ranks *reports* by their best passage's fused score
(:meth:`ddrsearch.retrieval.base.Retriever.search`), but the engineer reads one row
of the report first, and the passage that earned the report its rank is not
always the row that says what the question asks: in report 38 the fused score
of *stuck pipe* may peak on the 04:00-06:00 row ("... Pipe free") while the
pipe became stuck in the 23:30-04:00 row. Choosing the shown row never
changes the ranking of reports; it only picks, within each report found,
the passage whose citation (page, row, FROM-TO) the hit carries.

The rules (:data:`ROW_RULES`), each a key that the report's passages are
sorted by, best first:

``"fused"``
    the passage that earned the report its score (no re-choice).
``"terms"``
    the most *covered* passage: the sum, over the question's distinct terms
    (the BM25 leg's tokenizer: stemmed and expanded as it is) that the
    passage's own text holds, of each term's IDF over every indexed passage
    (Lucene form ``ln(1 + (N - df + 0.5) / (df + 0.5))``, as BM25 weighs it),
    so the rare event word *stuck* outweighs the common *pipe*; ties by the
    fused score.
``"answer"``
    as ``"terms"``, but among passages of equal weight a TIME BREAKDOWN row
    (what was done) comes before the header's PRESENT OPERATIONS and ACTIVITY
    PLANNED (what was going on at 06:00, what is planned), then the fused
    score.
``"local"``
    as ``"answer"``, but each term weighs by its IDF over the *report's own*
    passages (same formula, ``N`` the report's passages): the row choice is a
    search within one report, so a word every row of that report holds (*drill*
    on a drilling day) tells its rows apart no better than *the*, and a word
    only one of its rows holds picks that row, however common it is elsewhere.
    Ties: the global weight of ``"answer"``, then the header rule, then the
    fused score. The development questions of ``datasets/eval/archive.yaml``
    chose it over ``"answer"`` (chapters/12-improving-retrieval.ipynb).

For a numeric question that the structured path answered with a depth range
(:class:`ddrsearch.retrieval.structured.StructuredMatch`), every rule but ``"fused"``
first prefers a passage printing a depth in that range (:func:`prints_depth`).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["ROW_RULES", "choose_row", "drills_across", "lucene_idf", "prints_depth"]

#: The rules for the row shown for a hit (see the module docstring).
ROW_RULES: tuple[str, ...] = ("fused", "terms", "answer", "local")

#: A depth as the reports print it: ``10,923'``, ``4595 ft``, ``6,360 -`` (feet).
_DEPTH = re.compile(r"(\d{1,2},\d{3}|\d{3,5})(?=\s*'|\s*ft|\s*feet|\s*-)")


def lucene_idf(df: int, n: int) -> float:
    """``ln(1 + (n - df + 0.5) / (df + 0.5))``: the IDF BM25 uses (Lucene form), for ``df`` of ``n`` passages."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


#: A drilled interval as the reports print it: ``from 7,990' to 8,024'``, ``4,460' - 4,552'``.
_INTERVAL = re.compile(r"(\d{1,2},\d{3}|\d{3,5})\s*(?:'|ft\.?|feet)?\s*(?:to|-)\s*(\d{1,2},\d{3}|\d{3,5})\s*(?:'|ft|feet)")
#: Words of a row that makes hole (drilling, not tripping, logging, casing or coring summaries).
_DRILLING = re.compile(r"\b(?:drill(?:ed|ing)?|rotary|rotat(?:e|ed|ing)|slid(?:e|ing))\b", re.IGNORECASE)


def drills_across(text: str, depth: float) -> bool:
    """Whether ``text`` is a drilling row that prints an interval ``A to B`` (feet) with ``A < depth <= B``.

    ``"Rotary drill from 7,990' to 8,024'"`` drills across 8,000 ft; ``"Run in hole to 5,750'"`` (no
    drilling) and ``"Trip in hole to 8,024'"`` (one depth) do not; no slack at either end.
    """
    if not _DRILLING.search(text):
        return False
    for a, b in _INTERVAL.findall(text):
        low, high = float(a.replace(",", "")), float(b.replace(",", ""))
        if low < depth <= high:
            return True
    return False


def prints_depth(text: str, depth: tuple[float, float]) -> bool:
    """Whether ``text`` prints a depth (feet) within ``depth = (low, high)``, one foot of slack either side."""
    return any(depth[0] - 1 <= float(d.replace(",", "")) <= depth[1] + 1 for d in _DEPTH.findall(text))


def choose_row(candidates: Sequence[int], *, rule: str, terms: set[str], row_terms: Callable[[int], set[str]],
               idf: Mapping[str, float], scores: np.ndarray, kinds: Sequence[str], texts: Sequence[str],
               depth: tuple[float, float] | None = None) -> int:
    """The passage to show for one report, among ``candidates`` (that report's passages).

    Args:
        candidates: positions (in the retriever's passage list) of the
            report's passages; at least one.
        rule: one of :data:`ROW_RULES`.
        terms: the question's distinct search terms (the BM25 leg's tokens).
        row_terms: position -> the distinct terms of that passage's own text
            (its context line not included).
        idf: term -> IDF over every indexed passage (terms absent weigh 0).
        scores: fused passage scores, shape ``(passages,)``; ``nan`` = not
            retrieved (sorts last).
        kinds, texts: each passage's kind (``"operation"``, ``"header"``, ...)
            and text, indexed by position.
        depth: the depth range (feet) the structured path answered, or ``None``.

    Returns:
        The chosen position; with ``rule="fused"`` the best fused passage
        (ties: the first candidate).

    Raises:
        ValueError: unknown ``rule`` or no candidates.
    """
    if rule not in ROW_RULES:
        raise ValueError(f"row must be one of {', '.join(map(repr, ROW_RULES))}, not {rule!r}")
    if not candidates:
        raise ValueError("choose_row needs at least one passage of the report to choose from")

    def fused(i: int) -> float:
        value = float(scores[i])
        return -math.inf if value != value else value  # nan (not retrieved) sorts last

    if rule == "fused":
        return max(candidates, key=fused)
    held_by = {i: terms & row_terms(i) for i in candidates}  # each passage's terms, intersected once
    local: dict[str, float] = {}
    if rule == "local":
        df = Counter(t for i in candidates for t in held_by[i])
        local = {t: lucene_idf(c, len(candidates)) for t, c in df.items()}

    def key(i: int) -> tuple:
        held = held_by[i]
        prints = depth is not None and prints_depth(texts[i], depth)
        covered = round(sum(idf.get(t, 0.0) for t in held), 9)
        if rule == "terms":
            return (prints, covered, fused(i))
        if rule == "answer":
            return (prints, covered, kinds[i] != "header", fused(i))
        return (prints, round(sum(local[t] for t in held), 9), covered, kinds[i] != "header", fused(i))

    return max(candidates, key=key)

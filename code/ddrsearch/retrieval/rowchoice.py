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

:func:`choose_row` applies a rule to one report, term sets in hand;
:class:`RowTable` applies it to every report of a result list at once, from
what does not depend on the question and is worked out once per report (each
passage's terms as ids, the header flags), so that showing 76 reports costs a
few array operations, not 76 Python sorts.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence

import numpy as np

__all__ = ["ROW_RULES", "RowTable", "choose_row", "drilled_intervals", "drills_across", "lucene_idf", "printed_depths",
           "prints_depth"]

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


def drilled_intervals(text: str) -> list[tuple[float, float]]:
    """The intervals ``A to B`` (feet, ``A < B``) a drilling row prints; ``[]`` for a row that drills nothing.

    >>> drilled_intervals("Drill rotate and slide from 6,526' - 6,724'. 198 ft @ 28.23 FPH")
    [(6526.0, 6724.0)]
    >>> drilled_intervals("Trip in Hole from 5,119' to 6,526'")
    []
    """
    if not _DRILLING.search(text):
        return []
    out = []
    for a, b in _INTERVAL.findall(text):
        low, high = float(a.replace(",", "")), float(b.replace(",", ""))
        if low < high:
            out.append((low, high))
    return out


def drills_across(text: str, depth: float) -> bool:
    """Whether ``text`` is a drilling row that prints an interval ``A to B`` (feet) with ``A < depth <= B``.

    ``"Rotary drill from 7,990' to 8,024'"`` drills across 8,000 ft; ``"Run in hole to 5,750'"`` (no
    drilling) and ``"Trip in hole to 8,024'"`` (one depth) do not; no slack at either end.
    """
    return any(low < depth <= high for low, high in drilled_intervals(text))


def printed_depths(text: str) -> list[float]:
    """The depths in feet ``text`` prints (``6,526'``, ``5,119 ft``, ``6,526' - 6,724'``), in order."""
    return [float(d.replace(",", "")) for d in _DEPTH.findall(text)]


def prints_depth(text: str, depth: tuple[float, float]) -> bool:
    """Whether ``text`` prints a depth (feet) within ``depth = (low, high)``, one foot of slack either side."""
    return any(depth[0] - 1 <= d <= depth[1] + 1 for d in printed_depths(text))


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


class RowTable:
    """The question-independent part of the row choice, over one list of passages, for :meth:`choose`.

    Per report, worked out at its first search and kept: its passages'
    positions (in passage order), each passage's distinct terms (``tokenize``
    of its own text) as ids into a vocabulary of the terms met so far, and
    whether it is a header line. The table never changes the choice
    :func:`choose_row` makes; it only does the work once per report.

    Args:
        reports, kinds, texts: each passage's report name, kind and own text
            (its context line not included), in passage order.
        tokenize: text -> terms (the BM25 leg's tokenizer, as for :func:`choose_row`).

    Raises:
        ValueError: ``reports``, ``kinds`` and ``texts`` differ in length.
    """

    def __init__(self, reports: Sequence[str], kinds: Sequence[str], texts: Sequence[str],
                 tokenize: Callable[[str], Sequence[str]]):
        if not len(reports) == len(kinds) == len(texts):
            raise ValueError(f"reports, kinds and texts must be as long as each other, got {len(reports)}, "
                             f"{len(kinds)} and {len(texts)}")
        self.kinds, self.texts, self.tokenize = kinds, texts, tokenize
        by_report: dict[str, list[int]] = {}
        for i, rep in enumerate(reports):
            by_report.setdefault(rep, []).append(i)
        self.positions = {rep: np.asarray(pos, dtype=np.int64) for rep, pos in by_report.items()}
        self.vocabulary: dict[str, int] = {}
        self._blocks: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
        self._text_ids: dict[str, np.ndarray] = {}  # the same text (a repeated header line) is cut once
        self._joined_cache: dict[tuple[str, ...], tuple[np.ndarray, ...]] = {}

    def terms_of(self, i: int) -> frozenset[str]:
        """The distinct terms of passage ``i``'s own text (:attr:`tokenize`)."""
        return frozenset(self.tokenize(self.texts[i]))

    def _ids(self, text: str) -> np.ndarray:
        ids = self._text_ids.get(text)
        if ids is None:
            vocab = self.vocabulary
            ids = np.array(sorted({vocab.setdefault(t, len(vocab)) for t in self.tokenize(text)}), dtype=np.int64)
            self._text_ids[text] = ids
        return ids

    def block(self, report: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """``(positions, term ids, term counts, header)`` of ``report``'s passages.

        The passage ``positions[m]`` holds ``counts[m]`` distinct terms, whose
        ids follow those of the passages before it in ``term ids``;
        ``header[m]`` says whether it is a header line.

        Raises:
            KeyError: no passage of that report.
        """
        if report not in self._blocks:
            positions = self.positions[report]
            ids = [self._ids(self.texts[i]) for i in positions]
            counts = np.array([len(a) for a in ids], dtype=np.int64)
            header = np.array([self.kinds[i] == "header" for i in positions], dtype=bool)
            self._blocks[report] = (np.concatenate(ids), counts, header)
        ids, counts, header = self._blocks[report]
        return self.positions[report], ids, counts, header

    def choose(self, reports: Sequence[str], *, rule: str, terms: set[str], idf: Mapping[str, float],
               scores: np.ndarray, depths: Mapping[str, tuple[float, float]] | None = None,
               keep: np.ndarray | None = None) -> list[tuple[int, tuple[str, ...]]]:
        """For each of ``reports``, the position :func:`choose_row` picks and the question's terms it holds.

        Args:
            reports: report names, each with at least one passage in the table.
            rule: one of :data:`ROW_RULES`.
            terms: the question's distinct search terms.
            idf: term -> IDF over every indexed passage (terms absent weigh 0).
            scores: fused passage scores, shape ``(passages,)``; ``nan`` = not retrieved.
            depths: report -> the depth range (feet) the structured path answered for it.
            keep: shape ``(passages,)``, bool: the passages a report's row is chosen among when it has
                any (the rows that began on the day a question names); ``None``: all of them.

        Returns:
            One ``(position, held terms sorted)`` per report, in the order of ``reports``.

        Raises:
            ValueError: unknown ``rule``.
            KeyError: a report with no passage in the table.
        """
        if rule not in ROW_RULES:
            raise ValueError(f"row must be one of {', '.join(map(repr, ROW_RULES))}, not {rule!r}")
        if not reports:
            return []
        # each report's choice is its own: worked out over the reports in name order, whose joined blocks
        # are kept (a result list of every report asks for the same ones at every search), then put back
        names = tuple(sorted(reports))
        pos, group, sizes, starts, header, ids, owner = self._joined(names)
        slot = {rep: g for g, rep in enumerate(names)}
        back = np.array([slot[rep] for rep in reports], dtype=np.int64)
        words = sorted(terms)
        column = np.full(len(self.vocabulary) + 1, -1, dtype=np.int64)
        for j, t in enumerate(words):
            if t in self.vocabulary:
                column[self.vocabulary[t]] = j
        cols = column[ids]
        found = cols >= 0
        held = np.zeros((len(pos), len(words)), dtype=bool)
        held[owner[found], cols[found]] = True
        fused = scores[pos].astype(float)
        fused[np.isnan(fused)] = -np.inf  # nan (not retrieved) sorts last
        kept = np.ones(len(pos), dtype=bool) if keep is None else keep[pos]
        if rule == "fused":
            order = np.lexsort((pos, -fused, ~kept, group))
        else:
            covered = np.round(held @ np.array([idf.get(t, 0.0) for t in words], dtype=float), 9)
            prints = np.zeros(len(pos), dtype=bool)
            for g, rep in enumerate(names):
                depth = depths.get(rep) if depths else None
                if depth is not None:
                    for m in range(starts[g], starts[g] + sizes[g]):
                        prints[m] = prints_depth(self.texts[pos[m]], depth)
            if rule == "terms":
                keys = (pos, -fused, -covered, ~prints, ~kept, group)
            elif rule == "answer":
                keys = (pos, -fused, header, -covered, ~prints, ~kept, group)
            else:
                df = np.add.reduceat(held.astype(np.int64), starts, axis=0) if len(words) else held[:len(names)]
                n = sizes[:, None].astype(float)
                local_idf = np.log(1 + (n - df + 0.5) / (df + 0.5))
                local = np.round(np.where(held, local_idf[group], 0.0).sum(axis=1), 9)
                keys = (pos, -fused, header, -covered, -local, ~prints, ~kept, group)
            order = np.lexsort(keys)
        chosen = order[starts][back]  # sorted by report first: each report's best is at its start
        held_by: list[list[str]] = [[] for _ in reports]
        rows, cols = np.nonzero(held[chosen])
        for m, j in zip(rows.tolist(), cols.tolist(), strict=True):
            held_by[m].append(words[j])  # row by row, each row's terms in the order of words
        return [(p, tuple(h)) for p, h in zip(pos[chosen].tolist(), held_by, strict=True)]

    def _joined(self, names: tuple[str, ...]) -> tuple[np.ndarray, ...]:
        """The blocks of the reports ``names``, joined: ``(positions, report of each, sizes, starts, header,
        term ids, passage of each id)``; the last few sets of reports are kept."""
        joined = self._joined_cache.get(names)
        if joined is None:
            positions, id_lists, counts, headers = zip(*(self.block(rep) for rep in names), strict=True)
            sizes = np.array([len(p) for p in positions], dtype=np.int64)
            starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
            pos = np.concatenate(positions)
            group = np.repeat(np.arange(len(names)), sizes)
            owner = np.repeat(np.arange(len(pos)), np.concatenate(counts))  # the passage (row of held) of each id
            joined = (pos, group, sizes, starts, np.concatenate(headers), np.concatenate(id_lists), owner)
            if len(self._joined_cache) >= 16:
                self._joined_cache.clear()
            self._joined_cache[names] = joined
        return joined

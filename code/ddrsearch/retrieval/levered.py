"""The tuned hybrid pipeline: the levers of chapters/12-improving-retrieval.ipynb, each an option.

:class:`TunedHybridRetriever` holds the legs of a :class:`~ddrsearch.retrieval.hybrid.HybridRetriever`
(BM25 and dense over the same passages, fused per query) and these levers,
every one off unless asked for, so the chapter can switch them on one at a
time and measure each on the development questions:

* ``framing`` / ``asker`` / ``reverse`` / ``rig_terms``: query rewrites of
  :mod:`ddrsearch.text.rewriting` (drop the question's framing; spell out the
  asker's shorthand; add the shorthand after plain words; add the reports'
  words after the asker's plain ones). Stemming is a
  BM25 option (``bm25_options={"stem": True}``).
* ``prf``: pseudo-relevance feedback. ``"rm3"`` adds to the BM25 query the
  ``fb_terms`` most weighted terms of its ``fb_docs`` best passages (RM3:
  Abdul-Jaleel et al., "UMass at TREC 2004", 2004; Lavrenko and Croft,
  "Relevance-based language models", SIGIR 2001), each term's BM25 scores
  weighted by its relevance-model probability and the whole by
  ``1 - fb_weight``/``fb_weight`` against the original query; ``"rocchio"``
  moves the dense query vector toward the mean of its ``fb_docs`` best
  passages (Rocchio, 1971: ``q' = q + fb_weight * mean(d)``, renormalised);
  ``"both"`` does both.
* ``structured``: weight of the structured path
  (:class:`ddrsearch.retrieval.structured.StructuredIndex`), added to the fused score
  of every passage of a report it finds (0 = off).
* ``candidates=None`` (the HybridRetriever option): every passage is a
  candidate, so no report drops out because both legs ranked it low.
* ``proximity``: weight of a term-proximity feature added to the BM25
  leg, after the sequential dependence model (Metzler and Croft, "A Markov
  random field model for term dependencies", SIGIR 2005): for each pair of
  adjacent query words (stemmed as BM25 stems them, *not* expanded), a
  passage holding both within ``window`` words of each other earns the
  pair's IDF over the passages (Lucene form). ``"DIFF 250 psi"`` then
  favours the row printing ``DIFF 250psi`` over rows that hold ``250`` and
  ``psi`` far apart. 0 = off. With ``numbers=True`` only pairs holding a
  number count (a quantity and its label or unit: ``DIFF 250``, ``250 psi``);
  with ``numbers="units"`` only the pairs around a number the question gives
  with a unit of :data:`QUANTITY_UNITS` (the word before it, the number and
  its unit, the unit and the word after): ``9 5/8 casing`` or ``13 3/8
  shoe`` then add nothing, and depths in feet are left to the structured path.
* ``row``: the row shown for a hit, one of
  :data:`ddrsearch.retrieval.rowchoice.ROW_RULES`: ``"fused"`` keeps the best fused
  passage; ``"terms"`` the passage holding the question's rarest words;
  ``"answer"`` the same with TIME BREAKDOWN rows before header lines;
  ``"local"`` weighs each word by its rarity among the report's own rows
  (:mod:`ddrsearch.retrieval.rowchoice` gives the rules and their sources).

* ``segments``: the dense leg also scores each long row by its best stretch
  of ``segments`` words (windows overlapping by half, each embedded with the
  row's context), and a row's dense score is the higher of the whole row's
  and its best stretch's (after "max-passage" scoring, Dai and Callan,
  "Deeper text understanding for IR with contextual neural language
  modeling", SIGIR 2019). A six-hour drilling row that mentions "seepage
  losses" among fifty parameters is otherwise as far from "mud losses" as
  its parameters make it. 0 = off.
* ``lexicon`` / ``groups``: the drilling lexicon's terms nearest the question
  by meaning added to the BM25 query (:mod:`ddrsearch.retrieval.lexicon_match`), and
  the question's likely activity groups matched against each row's time code
  and phase (:mod:`ddrsearch.retrieval.groups`).

The dense leg's model is chosen with ``dense_options`` (``model_path``, or a
ready ``embedder``), the hook for a domain-adapted model.
"""

from __future__ import annotations

import os
import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ddrsearch.errors import QueryError
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.fusion import RRF_K, Fusion
from ddrsearch.retrieval.legs import TwoLegRetriever
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import Hit
from ddrsearch.retrieval.rowchoice import ROW_RULES, RowTable
from ddrsearch.retrieval.structured import StructuredIndex, check_scores
from ddrsearch.text.rewriting import load_rig_terms, rewrite_query
from ddrsearch.text.spelling import Spelling, query_words
from ddrsearch.text.tokenizer import make_tokenizer

__all__ = ["NUMBERS_MODES", "QUANTITY_UNITS", "TunedHybridRetriever", "proximity_pairs"]

#: Units after which a number in a question is a quantity the reports print
#: (pressure, flow, pump and rotary rates, volume, weight, mud weight, hours,
#: degrees), as BM25's tokenizer writes them. Feet are not among them: a depth
#: in a question ("past 8,000 ft") is a threshold the structured path answers
#: from the MD field, not a figure printed beside its label.
QUANTITY_UNITS = frozenset({"psi", "ppg", "gpm", "spm", "rpm", "bbl", "bbls", "fph", "klb", "klbs", "k", "lb",
                            "lbs", "hr", "hrs", "deg", "gal"})


#: The values of the ``numbers`` option (:func:`proximity_pairs`).
NUMBERS_MODES = (False, True, "units")


def _is_number(word: str) -> bool:
    return bool(re.fullmatch(r"\d[\d.,/]*", word))


def proximity_pairs(words: Sequence[str], numbers: bool | str = False) -> list[tuple[str, str]]:
    """The pairs of neighbouring query words the proximity feature looks for, sorted.

    Args:
        words: the query's words as BM25 tokenizes them (stemmed, not expanded).
        numbers: ``False`` every neighbouring pair; ``True`` the pairs holding
            a number; ``"units"`` only the pairs around a number followed by a
            unit of :data:`QUANTITY_UNITS`.

    Returns:
        Distinct ``(first, second)`` pairs of different words.

    Raises:
        ValueError: ``numbers`` is none of the three.

    >>> proximity_pairs(["diff", "250", "psi"], "units")
    [('250', 'psi'), ('diff', '250')]
    >>> proximity_pairs(["run", "9", "5/8", "case"], "units")
    []
    """
    if numbers not in NUMBERS_MODES:
        raise ValueError(f"numbers must be False, True or 'units', not {numbers!r}")
    pairs = {(a, b) for a, b in zip(words, words[1:], strict=False) if a != b}
    if numbers is True:
        pairs = {(a, b) for a, b in pairs if a[:1].isdigit() or b[:1].isdigit()}
    elif numbers == "units":
        keep = set()
        for i, (a, b) in enumerate(zip(words, words[1:], strict=False)):
            if _is_number(a) and b in QUANTITY_UNITS:
                keep.update({(a, b), *(((words[i - 1], a),) if i > 0 else ()),
                             *(((b, words[i + 2]),) if i + 2 < len(words) else ())})
        pairs = {p for p in keep if p[0] != p[1]}
    return sorted(pairs)


class TunedHybridRetriever(TwoLegRetriever):
    """A hybrid retriever with the levers of the module docstring.

    It *holds* its legs (a :class:`~ddrsearch.retrieval.lexical.BM25Retriever`,
    a :class:`~ddrsearch.retrieval.dense.DenseRetriever` and the structured
    path's :class:`~ddrsearch.retrieval.structured.StructuredIndex`) and a
    :class:`~ddrsearch.retrieval.fusion.Fusion`, as a plain
    :class:`~ddrsearch.retrieval.hybrid.HybridRetriever` does.

    Args:
        framing, asker, reverse, rig_terms: query rewrites (:func:`ddrsearch.text.rewriting.rewrite_query`);
            ``rig_terms`` is ``True`` for the shipped table or the path of your own
            rig-terms CSV (:func:`ddrsearch.text.rewriting.load_rig_terms`).
        prf: ``None``, ``"rm3"``, ``"rocchio"`` or ``"both"``.
        fb_docs, fb_terms, fb_weight: feedback passages, RM3 terms, and the
            weight of the feedback part (0 to 1).
        structured: weight of the structured path (0 = off; 1 puts a report
            it finds above any report it does not).
        proximity, window, numbers: weight of the proximity feature, its
            window in words, and which pairs count: ``False`` all, ``True``
            those holding a number, ``"units"`` those around a number with
            its unit (see the module docstring and :func:`proximity_pairs`).
        row: one of :data:`ddrsearch.retrieval.rowchoice.ROW_RULES` (see the module docstring).
        fusion, weight, rrf_k, candidates: the fusion of the two legs
            (:class:`~ddrsearch.retrieval.fusion.Fusion`).
        bm25, dense: ready-made legs to share, or ``bm25_options`` and
            ``dense_options`` for new ones (as :class:`~ddrsearch.retrieval.hybrid.HybridRetriever`).
        lexicon, lexicon_k, lexicon_min: weight of the definition-mediated
            expansion (0 = off; :mod:`ddrsearch.retrieval.lexicon_match`), how
            many lexicon terms it adds at most, and the least similarity of one.
        lexicon_gate: expand only when the question's best BM25 passage holds
            less than this share of the question's IDF weight
            (:meth:`lexical_cover`): a question whose own words find a row
            that holds most of them is left alone; ``None``: always expand.
        groups, groups_k: weight of the activity-group signal (0 = off;
            :mod:`ddrsearch.retrieval.groups`): ``groups`` times the passage's
            :meth:`group_scores` is added to its fused score; ``groups_k``
            lexicon entries give the question's groups.
        adaptive, adaptive_cover: the dense weight used instead of ``weight``
            when the question's words give weak lexical evidence (the best BM25
            passage holds less than ``adaptive_cover`` of the question's IDF
            weight); ``None`` = off.
        bare_depths, depth_still, depth_next, loose_dates: options of the structured path
            (:meth:`ddrsearch.retrieval.structured.StructuredIndex.score`): a depth without its unit read
            as a depth mentioned; the score (0 to 1, 0 = none) of the reports that stayed at a depth
            mentioned, and of every report going on from it; the score of the reports covering a loose
            date (``late November``, ``before spud``; 0 = off). All off by default.
        sections: score (0 to 1; 0 = off) the structured path gives each report whose drilled interval
            meets a well section the question names (``in the 12-1/4``, ``in the curve``, ``at the toe``:
            :class:`ddrsearch.retrieval.sections.WellSections`), when no other pattern matched.
        structured_index: the structured path's typed fields, when they are
            at hand without the reports (an index on disk); default: built
            from the attached reports at the first numeric or date question.
        segments: words in a stretch of a long row that the dense leg also
            scores (0 = off; see the module docstring and :meth:`segment_scores`).
        rollup: see :class:`~ddrsearch.retrieval.base.Retriever`.

    Raises:
        ValueError: an unknown ``prf``, ``row`` or ``numbers``, a weight outside its range, or a
            ``rig_terms`` that is neither a bool nor a path.
        GlossaryError: the rig-terms CSV at ``rig_terms`` cannot be read or is malformed.
    """

    name = "hybrid"

    def __init__(self, *, framing: bool = False, asker: bool = False, reverse: bool = False,
                 rig_terms: bool | str | os.PathLike = False, prf: str | None = None, fb_docs: int = 5,
                 fb_terms: int = 10, fb_weight: float = 0.3, structured: float = 0.0,
                 proximity: float = 0.0, window: int = 8, numbers: bool | str = False, row: str = "fused",
                 fusion: str = "convex", weight: float = 0.5, rrf_k: int = RRF_K, candidates: int | None = 100,
                 bm25: BM25Retriever | None = None, dense: DenseRetriever | None = None,
                 bm25_options: dict | None = None, dense_options: dict | None = None, rollup: str = "max",
                 structured_index: StructuredIndex | None = None, lexicon: float = 0.0, lexicon_k: int = 3,
                 lexicon_min: float = 0.5, lexicon_gate: float | None = None, adaptive: float | None = None,
                 adaptive_cover: float = 0.5, groups: float = 0.0, groups_k: int = 5, segments: int = 0,
                 bare_depths: bool = False, depth_still: float = 0.0, depth_next: float = 0.0,
                 loose_dates: float = 0.0, sections: float = 0.0):
        super().__init__(rollup)
        self.fuser = Fusion(fusion, weight, rrf_k, candidates)  # checks the four
        self.fusion, self.weight, self.rrf_k, self.candidates = fusion, weight, rrf_k, candidates
        self.bm25 = bm25 or BM25Retriever(**(bm25_options or {}))
        self.dense = dense or DenseRetriever(**(dense_options or {}))
        if prf not in (None, "rm3", "rocchio", "both"):
            raise ValueError(f"prf must be None, 'rm3', 'rocchio' or 'both', not {prf!r}")
        if row not in ROW_RULES:
            raise ValueError(f"row must be one of {', '.join(map(repr, ROW_RULES))}, not {row!r}")
        if not 0.0 <= fb_weight <= 1.0 or structured < 0 or proximity < 0 or window < 2:
            raise ValueError(f"need 0 <= fb_weight <= 1, structured >= 0, proximity >= 0 and window >= 2, "
                             f"got {fb_weight}, {structured}, {proximity}, {window}")
        if numbers not in NUMBERS_MODES:
            raise ValueError(f"numbers must be False, True or 'units', not {numbers!r}")
        if not isinstance(rig_terms, (bool, str, os.PathLike)) or rig_terms == "":
            raise ValueError(f"rig_terms must be True, False or the path of a rig-terms CSV, not {rig_terms!r}")
        self.framing, self.asker, self.reverse, self.rig_terms = framing, asker, reverse, rig_terms
        # the table itself: the shipped one (True), none (False), or the CSV at that path, read now
        self._rig_table = rig_terms if isinstance(rig_terms, bool) else load_rig_terms(rig_terms)
        self.prf, self.fb_docs, self.fb_terms, self.fb_weight = prf, fb_docs, fb_terms, fb_weight
        self.structured, self.row = structured, row
        self.proximity, self.window, self.numbers = proximity, window, numbers
        self.structured_index = structured_index
        if lexicon < 0 or lexicon_k < 1 or not -1.0 <= lexicon_min <= 1.0:
            raise ValueError(f"need lexicon >= 0, lexicon_k >= 1 and -1 <= lexicon_min <= 1, "
                             f"got {lexicon}, {lexicon_k}, {lexicon_min}")
        if lexicon_gate is not None and not 0.0 < lexicon_gate <= 1.0:
            raise ValueError(f"lexicon_gate must be None or a share above 0 and at most 1, got {lexicon_gate}")
        if (adaptive is not None and not 0.0 <= adaptive <= 1.0) or not 0.0 <= adaptive_cover <= 1.0:
            raise ValueError(f"adaptive must be None or a dense weight from 0 to 1, and adaptive_cover from 0 to 1, "
                             f"got {adaptive}, {adaptive_cover}")
        self.lexicon, self.lexicon_k, self.lexicon_min = lexicon, lexicon_k, lexicon_min
        self.lexicon_gate = lexicon_gate
        self.adaptive, self.adaptive_cover = adaptive, adaptive_cover
        if groups < 0 or groups_k < 1:
            raise ValueError(f"need groups >= 0 and groups_k >= 1, got {groups}, {groups_k}")
        self.groups, self.groups_k = groups, groups_k
        if segments != 0 and segments < 4:
            raise ValueError(f"segments must be 0 (off) or at least 4 words, got {segments}")
        self.segments = segments
        check_scores(depth_still=depth_still, depth_next=depth_next, loose_dates=loose_dates, sections=sections)
        self.bare_depths, self.depth_still, self.depth_next = bool(bare_depths), depth_still, depth_next
        self.loose_dates, self.sections = loose_dates, sections

    # --- indexing --------------------------------------------------------------------
    def query_terms(self, query: str) -> list[str]:
        """The terms BM25 matches for ``query`` after the rewrites (shorthand spelt out, expanded, stemmed)."""
        # remembered per query: every hit shown asks again (twice per hit with a row rule)
        cache = self.__dict__.setdefault("_query_terms_cache", {})
        if query not in cache:
            if len(cache) > 1024:
                cache.clear()
            cache[query] = tuple(self.bm25.tokenize(self.rewrite(query)))
        return list(cache[query])

    def _tokens(self, text: str) -> tuple[str, ...]:
        """BM25's tokens of a short text (a rewritten question, a lexicon term), remembered: a search asks several times."""
        cache = self.__dict__.setdefault("_tokens_cache", {})
        if text not in cache:
            if len(cache) > 1024:
                cache.clear()
            cache[text] = tuple(self.bm25.tokenize(text))
        return cache[text]

    def rewrite(self, query: str) -> str:
        """The query as both legs read it, after the rewrites switched on."""
        cache = self.__dict__.setdefault("_rewrite_cache", {})
        if query not in cache:
            if len(cache) > 1024:
                cache.clear()
            cache[query] = rewrite_query(query, framing=self.framing, asker=self.asker, reverse=self.reverse,
                                         rig_terms=self._rig_table)
        return cache[query]

    def with_weight(self, weight: float, fusion: str | None = None) -> TunedHybridRetriever:
        """A new tuned retriever sharing this one's indexed legs and levers, with another dense weight."""
        other = TunedHybridRetriever(
            framing=self.framing, asker=self.asker, reverse=self.reverse, rig_terms=False,
            prf=self.prf, fb_docs=self.fb_docs, fb_terms=self.fb_terms, fb_weight=self.fb_weight,
            structured=self.structured, row=self.row, proximity=self.proximity, window=self.window,
            numbers=self.numbers, fusion=fusion or self.fusion, weight=weight, rrf_k=self.rrf_k,
            candidates=self.candidates, bm25=self.bm25, dense=self.dense, rollup=self.rollup,
            structured_index=self.structured_index, lexicon=self.lexicon, lexicon_k=self.lexicon_k,
            lexicon_min=self.lexicon_min, lexicon_gate=self.lexicon_gate, adaptive=self.adaptive,
            adaptive_cover=self.adaptive_cover, groups=self.groups, groups_k=self.groups_k, segments=self.segments,
            bare_depths=self.bare_depths, depth_still=self.depth_still, depth_next=self.depth_next,
            loose_dates=self.loose_dates, sections=self.sections)
        other.passages = self.passages
        other.attach_reports(self.reports.values())
        other.rig_terms, other._rig_table = self.rig_terms, self._rig_table  # the table as read, not the file again
        other.__dict__.update({k: v for k, v in self.__dict__.items() if k in (
            "_idf_cache", "_positions", "_plain_tok", "_row_terms_cache", "_matcher", "_passage_groups",
            "_passage_counts_cache", "_row_table_cache", "_segments_cache")})
        return other

    # --- the legs --------------------------------------------------------------------
    #: Questions whose leg and fused scores are remembered (:meth:`_remembered`): the app asks for one
    #: question's scores several times in a rerun; a timing loop over more questions than this never hits.
    SCORE_MEMO = 4

    def forget_scores(self) -> int:
        """Forget the remembered scores (before timing what a search costs); returns how many were forgotten."""
        memo = self.__dict__.pop("_score_memo", None)
        return len(memo[2]) if memo else 0

    def _state(self) -> tuple:
        """What the scores depend on besides the question: the legs, the passages and every lever's value."""
        objects = (self.passages, self.bm25, self.dense, self.fuser, self.structured_index, self._rig_table)
        levers = (len(self.passages), len(self._reports), self.fusion, self.weight, self.rrf_k, self.candidates,
                  self.prf, self.fb_docs, self.fb_terms, self.fb_weight, self.structured, self.proximity, self.window,
                  self.numbers, self.framing, self.asker, self.reverse, self.lexicon, self.lexicon_k,
                  self.lexicon_min, self.lexicon_gate, self.adaptive, self.adaptive_cover, self.groups, self.groups_k,
                  self.segments, self.bare_depths, self.depth_still, self.depth_next, self.loose_dates,
                  self.sections)
        return objects, tuple(id(o) for o in objects) + levers

    def _remembered(self, what: str, query: str, compute):
        """``compute()`` for ``(what, query)``, remembered for the last :attr:`SCORE_MEMO` questions.

        One question asks for the same scores several times (the search, its
        three signals, the explanation, the answer card); they are computed
        once while the retriever's passages, legs and levers stay as they were
        (any change starts the memo afresh). Each caller gets its own copies.
        """
        objects, state = self._state()
        memo = self.__dict__.get("_score_memo")
        if memo is None or memo[1] != state:
            memo = (objects, state, {})  # holding the objects keeps their ids from being reused
            self._score_memo = memo
        cache = memo[2]
        key = (what, query)
        if key in cache:
            value = cache.pop(key)
        else:
            value = compute()
            if len(cache) >= 2 * self.SCORE_MEMO:
                cache.pop(next(iter(cache)))
        cache[key] = value  # most recent last
        return tuple(a.copy() for a in value) if isinstance(value, tuple) else value.copy()

    def leg_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        """The two legs' passage scores for ``query`` after the levers: ``(bm25, dense)``, each of shape ``(n,)``.

        Raises:
            QueryError: no searchable words once rewritten.
        """
        return self._remembered("legs", query, lambda: self._leg_scores(query))

    def _leg_scores(self, query: str) -> tuple[np.ndarray, np.ndarray]:
        q = self.rewrite(query)
        if not self._tokens(q):  # name the query as typed, not its rewrite (which may be '')
            raise QueryError(f"The query {query!r} has no searchable words (only stop words or punctuation).")
        b = self.bm25.passage_scores(q)
        if self.lexicon > 0:
            b = self._lexicon_expand(q, b)
        v = self.dense.passage_scores(q) if self.weight > 0 or self.adaptive else np.zeros(len(self.passages))
        if self.segments and (self.weight > 0 or self.adaptive):
            v = np.maximum(v, self.segment_scores(q))
        if self.prf in ("rm3", "both"):
            b = self._rm3(q, b)
        if self.proximity > 0:
            near = self.proximity_scores(q)
            if near.any():  # most questions hold no pair it looks for: b stays as it is
                b = np.where(near > 0, np.nan_to_num(b) + self.proximity * near, b)
        if self.prf in ("rocchio", "both") and self.weight > 0:
            v = self._rocchio(q, v)
        return b, v

    def segment_scores(self, query: str) -> np.ndarray:
        """Each passage's best cosine over its stretches of ``segments`` words; shape ``(n,)``.

        A passage of more than ``1.5 * segments`` words is cut into stretches of
        ``segments`` words, each starting ``segments // 2`` words after the last
        (the last one reaching the end), and each is embedded after the
        passage's context, as the passage itself is; a shorter passage has no
        stretch and gets ``-1`` (the whole passage's cosine stands). ``query``
        is rewritten already. The stretches' vectors are computed once per
        passages (and kept in the embedding cache on disk).
        """
        seg = self._segment_vectors()
        out = np.full(len(self.passages), -1.0)
        if len(seg[1]):
            np.maximum.at(out, seg[1], (seg[2] @ self.dense.embed_query(query)).astype(float))
        return out

    def _segment_vectors(self) -> tuple:
        cached = self.__dict__.get("_segments_cache")
        if cached is not None and cached[0] is self.passages and cached[3] == (len(self.passages), self.segments):
            return cached
        size, step = self.segments, max(1, self.segments // 2)
        owners, texts = [], []
        for i, p in enumerate(self.passages):
            words = p.text.split()
            if len(words) <= size + step:
                continue
            starts = [*range(0, len(words) - size, step), len(words) - size]
            for a in starts:
                stretch = " ".join(words[a:a + size])
                texts.append(f"{p.context}\n{stretch}" if p.context else stretch)
                owners.append(i)
        matrix = self.dense.embedder.encode(texts) if texts else np.zeros((0, 1), dtype=np.float32)
        self._segments_cache = (self.passages, np.array(owners, dtype=int), np.asarray(matrix, dtype=np.float32),
                                (len(self.passages), self.segments))
        return self._segments_cache

    def lexicon_terms(self, query: str) -> list[tuple[str, float]]:
        """The printed lexicon terms the ``lexicon`` lever adds for ``query`` (after the rewrites), with their similarity."""
        return self._lexicon_terms(self.rewrite(query))

    def _lexicon_terms(self, rewritten: str) -> list[tuple[str, float]]:
        # ``rewritten`` is the query after the rewrites, as the dense leg embeds it: matched as it is, not rewritten
        # again (a second rewrite spelt the asker's shorthand out twice and embedded a second text)
        if self.lexicon <= 0:
            return []
        seen, out = set(), []
        for entry, sim in self._lexicon_matcher().match(rewritten, self.lexicon_k, self.lexicon_min):
            if entry.printed.lower() not in seen and self._tokens(entry.printed):
                seen.add(entry.printed.lower())
                out.append((entry.printed, sim))
        return out

    def warm(self) -> None:
        """Compute now what the first question would otherwise pay for: the lexicon's vectors (kept in the
        embedding cache, so an index build leaves the first search on it as fast as the next)."""
        if self.lexicon:
            self._lexicon_matcher()

    def _lexicon_matcher(self):
        if "_matcher" not in self.__dict__:
            from ddrsearch.retrieval.lexicon_match import LexiconMatcher

            self._matcher = LexiconMatcher(self.dense.embedder)
        return self._matcher

    def group_scores(self, query: str) -> np.ndarray:
        """Each passage's activity-group score for ``query`` (:mod:`ddrsearch.retrieval.groups`; 0 to 1).

        The question's likely groups come from its ``groups_k`` nearest lexicon
        entries (similarity at least ``lexicon_min``), a passage's groups from
        its row's time code and its report's phase (the attached reports; a
        passage that is not an operation row, or whose report is not attached, has none).
        """
        from ddrsearch.retrieval.groups import group_scores, question_groups, row_groups

        if "_passage_groups" not in self.__dict__:
            pg = []
            for p in self.passages:
                report = self._reports.get(p.report)
                ok = report is not None and p.kind == "operation" and p.row is not None \
                    and p.row < len(report.operations)
                pg.append(row_groups(report.operations[p.row].code, report.phase) if ok else frozenset())
            self._passage_groups = pg
        wanted = question_groups(self._lexicon_matcher().match(self.rewrite(query), self.groups_k, self.lexicon_min))
        return group_scores(wanted, self._passage_groups)

    def _lexicon_expand(self, query: str, scores: np.ndarray) -> np.ndarray:
        # ``query`` is rewritten already (leg_scores)
        if self.lexicon_gate is not None and self._cover(set(self._tokens(query)), scores) >= self.lexicon_gate:
            return scores
        weight = self.lexicon
        extra = np.zeros(len(scores))
        for term, sim in self._lexicon_terms(query):
            # only the passages the term hits: elsewhere its score is 0 and adds nothing
            where, values = self.bm25.passage_hits(term)
            extra[where] += sim * values
        if not extra.any():
            return scores
        out = np.nan_to_num(scores) + weight * extra
        return np.where(np.isnan(scores) & (extra == 0), np.nan, out)

    def lexical_cover(self, query: str, scores: np.ndarray) -> float:
        """The share of ``query``'s IDF weight (its BM25 terms after the rewrites) that the best BM25 passage holds."""
        return self._cover(set(self._tokens(self.rewrite(query))), scores)

    def _cover(self, terms: set[str], scores: np.ndarray) -> float:
        top = self.top_passages(scores, 1)
        if not terms or not len(top):
            return 0.0
        idf = self._idf()
        unseen = max(idf.values(), default=1.0) if any(t not in idf for t in terms) else None
        weight = {t: idf.get(t, unseen) for t in terms}
        held = terms & self._row_terms(int(top[0]))
        return sum(weight[t] for t in held) / sum(weight.values())

    def _rm3(self, query: str, scores: np.ndarray) -> np.ndarray:
        top = self.top_passages(scores, self.fb_docs)
        if not len(top):
            return scores
        model: Counter = Counter()
        weights = scores[top] / scores[top].sum()
        for w, i in zip(weights, top, strict=True):
            counts, length = self._passage_counts(int(i))
            for t, n in counts.items():
                model[t] += w * n / length
        original = set(self._tokens(query))
        terms = [(t, p) for t, p in model.most_common() if t not in original and not t[0].isdigit()][:self.fb_terms]
        if not terms:
            return scores
        total = sum(p for _, p in terms)
        fb = self.bm25.weighted_term_scores([(t, p / total) for t, p in terms])
        base = np.nan_to_num(scores)
        mixed = (1 - self.fb_weight) * base / (base.max() or 1.0) + self.fb_weight * fb / (fb.max() or 1.0)
        out = np.where(mixed > 0, mixed, np.nan)
        return out

    def _passage_counts(self, i: int) -> tuple[Counter, int]:
        """BM25's term counts of passage ``i`` and its length in terms, computed once per passage (RM3's feedback)."""
        cache = self.__dict__.setdefault("_passage_counts_cache", {})
        p = self.passages[i]
        if p.passage_id not in cache:  # by id: a retriever indexed again over other passages does not reuse them
            toks = self.bm25.tokenize(p.indexed_text)
            cache[p.passage_id] = (Counter(toks), len(toks))
        return cache[p.passage_id]

    def _rocchio(self, query: str, scores: np.ndarray) -> np.ndarray:
        top = self.top_passages(scores, self.fb_docs)
        q = self.dense.embed_query(query) + self.fb_weight * self.dense.matrix[top].mean(axis=0)
        q = q / np.linalg.norm(q)
        return (self.dense.matrix @ q).astype(float)

    def _plain_tokenize(self, text: str) -> list[str]:
        tok = self.__dict__.get("_plain_tok")
        if tok is None:
            tok = self._plain_tok = make_tokenizer(stem=getattr(self.bm25, "stem", False))
        return tok(text)

    def query_pairs(self, query: str) -> list[tuple[str, str]]:
        """The word pairs the proximity feature looks for in ``query`` as typed (after the rewrites).

        Returns:
            Sorted ``(first, second)`` pairs (:func:`proximity_pairs` with this
            retriever's ``numbers``); ``[]`` when the proximity weight is 0.
        """
        if self.proximity <= 0:
            return []
        return proximity_pairs(self._plain_tokenize(self.rewrite(query)), self.numbers)

    def proximity_scores(self, query: str) -> np.ndarray:
        """The proximity feature of every passage for ``query`` (0 where no pair of adjacent query words is near).

        Returns:
            Array of shape ``(passages,)``: the sum, over pairs of adjacent
            query words found within ``window`` words of each other in the
            passage's indexed text, of the pair's IDF
            ``ln(1 + (N - df + 0.5) / (df + 0.5))`` (df: passages holding
            the pair that near).
        """
        n = len(self.passages)
        out = np.zeros(n)
        pairs = proximity_pairs(self._plain_tokenize(query), self.numbers)
        if not pairs:  # most queries, with numbers="units": no word positions are needed at all
            return out
        for a, b in pairs:
            near = np.zeros(n, dtype=bool)
            for i in self._pair_candidates(a, b):
                pos = self._word_positions(int(i))
                if pos.get(a) and pos.get(b) and any(abs(x - y) < self.window for x in pos[a] for y in pos[b]):
                    near[i] = True
            df = int(near.sum())
            if df:
                out[near] += np.log(1 + (n - df + 0.5) / (df + 0.5))
        return out

    def _word_positions(self, i: int) -> dict[str, list[int]]:
        """Word -> its positions in passage ``i``'s indexed text (the plain tokens), worked out once per passage."""
        cache = self.__dict__.get("_positions")
        if cache is None or cache[0] is not self.passages or cache[1] != len(self.passages):
            cache = self._positions = (self.passages, len(self.passages), {})
        where = cache[2].get(i)
        if where is None:
            where = defaultdict(list)
            for j, t in enumerate(self._plain_tokenize(self.passages[i].indexed_text)):
                where[t].append(j)
            cache[2][i] = where = dict(where)
        return where

    def _pair_candidates(self, a: str, b: str) -> np.ndarray:
        """Positions of the passages that may hold both plain words ``a`` and ``b``: those whose BM25 terms hold both.

        BM25's tokenizer writes every plain word as the plain tokenizer does (its glossary expansion only
        appends words), except the words it drops besides the common stop words (``stop_extra``); a pair
        holding one of those is looked for in every passage.
        """
        extra = self.__dict__.get("_extra_stops")
        if extra is None:
            extra = self._extra_stops = frozenset(t for w in getattr(self.bm25, "stop_extra", ())
                                                  for t in self._plain_tokenize(w))
        if a in extra or b in extra:
            return np.arange(len(self.passages))
        return np.intersect1d(self.bm25.postings(a), self.bm25.postings(b), assume_unique=True)

    def words_found(self, query: str) -> bool:
        """Whether any indexed passage holds a BM25 word of ``query`` (after the rewrites).

        ``False`` means the BM25 leg found nothing and the ranking is by meaning
        alone (the dense leg), which for a misspelt query or one in another
        language may be unrelated to it.
        """
        q = self.rewrite(query)
        return bool(self.bm25.tokenize(q)) and bool(np.any(np.nan_to_num(self.bm25.passage_scores(q)) > 0))

    def unknown_words(self, query: str) -> dict[str, list[str]]:
        """Words of ``query`` that look misspelt or foreign to the reports, each with the printed words nearest to it.

        :meth:`ddrsearch.text.spelling.Spelling.unknown` over the whole text of the
        attached reports (their passages' text when none is attached); a word
        whose BM25 terms, after this retriever's rewrites (shorthand spelt
        out, expansion, stemming), are in the index also counts as matched.

        Returns:
            Word -> up to 3 printed words within its edit distance, in query
            order; ``{}`` when no word needs a note.
        """
        vocab = self.bm25.vocabulary

        def matched(word: str) -> bool:
            return any(t in vocab for t in self.bm25.tokenize(self.rewrite(word)))

        if all(matched(w) for w in query_words(query)):
            return {}  # every word is searched: no need to count the reports' words (a fifth of a second)
        if "_spelling" not in self.__dict__:
            texts = [r.text for r in self._reports.values()] or [p.indexed_text for p in self.passages]
            self._spelling = Spelling(texts, phrases=[p.text for p in self.passages])  # a row's words side by side
        return self._spelling.unknown(query, matched)

    # --- the structured path ---------------------------------------------------------
    def structured_match(self, query: str):
        """The structured path's :class:`~ddrsearch.retrieval.structured.StructuredMatch` for ``query`` (``None``: none)."""
        if self.structured <= 0:
            return None
        if self.structured_index is None:
            if not self._reports:
                return None
            self.structured_index = StructuredIndex(list(self._reports.values()))
        # remembered for the last questions: the scores and the row shown both ask for it
        index, cache = self.__dict__.get("_structured_cache", (None, {}))
        if index is not self.structured_index or len(cache) > 64:
            index, cache = self.structured_index, {}
            self._structured_cache = (index, cache)
        options = {"bare_depths": self.bare_depths, "depth_still": self.depth_still, "depth_next": self.depth_next,
                   "loose_dates": self.loose_dates, "sections": self.sections}
        key = (query, *options.values())
        if key not in cache:
            cache[key] = index.score(query, **options)
        return cache[key]

    def passage_scores(self, query: str) -> np.ndarray:
        """Fused passage scores of the two legs (after the levers), plus the structured path's bonus; shape ``(n,)``."""
        return self._remembered("fused", query, lambda: self._passage_scores(query))

    def _passage_scores(self, query: str) -> np.ndarray:
        b, v = self.leg_scores(query)
        fuser = self.fuser
        if self.adaptive is not None and self.lexical_cover(query, b) < self.adaptive_cover:
            fuser = Fusion(self.fusion, self.adaptive, self.rrf_k, self.candidates)  # weak lexical evidence
        fused = fuser.scores(b, v, self._candidate_pool if fuser.kind == "convex" else self.top_passages)
        if self.groups > 0:
            bonus = self.groups * self.group_scores(query)
            fused = np.where(np.isnan(fused), np.where(bonus > 0, bonus, np.nan), fused + bonus)
        match = self.structured_match(query)
        if match is None or not match.scores:
            return fused
        # the bonus of each passage's report, through the reports' integer codes (no loop over the passages)
        codes, names = self._report_codes()
        bonus = np.array([match.scores.get(name, 0.0) or 0.0 for name in names], dtype=float)[codes]
        if match.kind == "date" and match.day is not None:  # a day: the covering reports' rows that began on it
            bonus = np.where(self.day_passages(match), bonus, 0.0)
        found = bonus != 0
        out = fused.copy()
        out[found] = np.nan_to_num(out[found], nan=0.0) + self.structured * bonus[found]
        return out

    def day_passages(self, match) -> np.ndarray:
        """Which passages answer a ``"date"`` match: shape ``(n,)``, bool.

        The operation rows of the reports in ``match.scores`` (those covering
        ``match.day``, :func:`~ddrsearch.retrieval.structured.covering_reports`) that began on
        that day (:func:`ddrsearch.reading.layout.row_start`: a report dated D covers 06:00
        on D-1 to 06:00 on D); every passage of a covering report none of whose rows
        began on the day (a FROM that is not a clock time). The report dates are the
        structured path's.
        """
        from ddrsearch.reading.layout import row_start

        key = (id(self.passages), len(self.passages), match.day, tuple(sorted(match.scores)))
        cached = self.__dict__.get("_day_passages_cache")
        if cached is not None and cached[0] == key:
            return cached[1]
        dates = {r["report"]: r["date"] for r in self.structured_index.rows} if self.structured_index else {}
        mask = np.zeros(len(self.passages), dtype=bool)
        covering: dict[str, list[int]] = {}
        for i, p in enumerate(self.passages):
            if p.report in match.scores:
                covering.setdefault(p.report, []).append(i)
        for positions in covering.values():
            began = []
            for i in positions:
                p = self.passages[i]
                if p.kind != "operation" or p.report not in dates:
                    continue
                try:
                    if row_start(dates[p.report], p.start or "").date() == match.day:
                        began.append(i)
                except ValueError:  # a FROM that is not a clock time gives no day
                    continue
            mask[began or positions] = True
        self._day_passages_cache = (key, mask)
        return mask

    def _candidate_pool(self, scores: np.ndarray, n: int | None) -> np.ndarray:
        """The convex fusion's candidates of one leg: :meth:`top_passages`, unsorted when every passage is one.

        Convex fusion only marks a leg's candidates (their order plays no
        part), so with ``n=None`` (the default's every passage) the retrieved
        positions are returned as they lie, without sorting them all.
        """
        return np.flatnonzero(~np.isnan(scores)) if n is None else self.top_passages(scores, n)

    def _idf(self) -> dict[str, float]:
        """Lucene IDF of every BM25 term over the passages, computed once."""
        idf = self.__dict__.get("_idf_cache")
        if idf is None:
            n = len(self.passages)
            idf = {t: float(np.log(1 + (n - c + 0.5) / (c + 0.5))) for t, c in self.bm25.document_frequencies().items()}
            self._idf_cache = idf
        return idf

    # --- the row shown ---------------------------------------------------------------
    def _row_terms(self, i: int) -> set[str]:
        cache = self.__dict__.setdefault("_row_terms_cache", {})
        if i not in cache:
            cache[i] = set(self.bm25.tokenize(self.passages[i].text))
        return cache[i]

    def _row_table(self) -> RowTable:
        """The row choice's question-independent table (:class:`~ddrsearch.retrieval.rowchoice.RowTable`), once per passages."""
        table = self.__dict__.get("_row_table_cache")
        if table is None or table[0] is not self.passages or table[1] != len(self.passages):
            ps = self.passages
            table = (ps, len(ps), RowTable([p.report for p in ps], [p.kind for p in ps], [p.text for p in ps],
                                           self.bm25.tokenize))
            self._row_table_cache = table
        return table[2]

    def _hit_fields(self) -> list[tuple]:
        """Each passage's ``(text, page, row, start, end, passage_id, ocr)``, the fields of :class:`Hit` after ``rank``
        in their order: once per passages."""
        cached = self.__dict__.get("_hit_fields_cache")
        if cached is None or cached[0] is not self.passages or cached[1] != len(self.passages):
            cached = (self.passages, len(self.passages),
                      [(p.text, p.page, p.row, p.start, p.end, p.passage_id, p.ocr) for p in self.passages])
            self._hit_fields_cache = cached
        return cached[2]

    def prepare_rows(self) -> None:
        """Work out the row choice's table (:class:`~ddrsearch.retrieval.rowchoice.RowTable`) for every report now.

        Otherwise each report's part is worked out at the first search that
        ranks it; a long-lived process (the app) pays it once, before any question.
        """
        if self.row == "fused":
            return
        table = self._row_table()
        for report in sorted(table.positions):
            table.block(report)

    def rank(self, query: str, scores: np.ndarray, k: int) -> list[Hit]:
        """The top ``k`` reports, each showing the row the ``row`` rule picks (the fused scores computed once).

        The rows of all ``k`` reports are chosen together (:meth:`RowTable.choose`) and each hit is
        made once, with the question's terms its row holds.
        """
        if self.row == "fused":
            return super().rank(query, scores, k)
        rolled = self._rollup_top(scores, k)
        order = sorted(rolled, key=lambda rep: (-rolled[rep][0], rep))[:k]
        if not order:
            return []
        terms = set(self.query_terms(query))
        match = self.structured_match(query)
        keep = self.day_passages(match) if match is not None and match.kind == "date" and match.day else None
        chosen = self._row_table().choose(order, rule=self.row, terms=terms, idf=self._idf(), scores=scores,
                                          depths=match.depths if match is not None else None, keep=keep)
        fields = self._hit_fields()
        out = []
        for rank, (rep, (best, held)) in enumerate(zip(order, chosen, strict=True), start=1):
            hit = Hit(rep, rolled[rep][0], rank, *fields[best], held)  # positional: in Hit's field order
            if not held and hit.text:
                code = self.code_match(query, hit, held)
                if code is not None:
                    hit = replace(hit, code=code)
            out.append(hit)
        return out

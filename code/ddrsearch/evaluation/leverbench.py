"""Levers: changes to the search, each tried alone on the development questions, with intervals.

chapters/12-improving-retrieval.ipynb starts from the *plain* hybrid of
chapters/09-hybrid-retrieval.ipynb (:data:`PLAIN`: BM25 with abbreviation
expansion and dense search over operation-row chunks, convex fusion with dense
weight :data:`ddrsearch.retrieval.pipeline.PLAIN_WEIGHT` over each leg's best 100
passages) and switches on one lever of :data:`LEVERS` at a time
(:class:`ddrsearch.retrieval.levered.TunedHybridRetriever` options, or a change to the
chunks' context). :class:`LeverBench` builds those retrievers over one
archive, sharing what two of them can share (the chunks, the BM25 index of a
tokenizer, the dense vectors of a chunk text), so trying a dozen levers costs
little more than trying one. :func:`lever_table` sets each lever's means
beside the plain hybrid's, with percentile-bootstrap intervals
(:mod:`ddrsearch.evaluation.significance`): the mean's, and the paired one of its gain
over the plain hybrid on the same questions. :data:`PLAIN_VARIANTS` are the
variants tried for plain-English questions over the default pipeline, and
:func:`adapted_embedder` trains the adapters some of them use.

Tune on the development split only; the held-out split is for the one look
at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import pandas as pd

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.evaluation.evaluate import evaluate_retriever
from ddrsearch.evaluation.significance import comparison_table
from ddrsearch.reading.report import Report
from ddrsearch.retrieval.adaptation import AdaptedEmbedder, lexicon_pairs, train_adapter, training_pairs
from ddrsearch.retrieval.chunking import chunk_reports
from ddrsearch.retrieval.concepts import default_tagger
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.levered import TunedHybridRetriever
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.pipeline import DEFAULT_LEVERS, DEFAULT_WEIGHT, PLAIN_WEIGHT

__all__ = [
    "ADAPTER_RECIPES", "BASELINE", "DEFAULT", "LEVERS", "OFF", "PLAIN", "PLAIN_VARIANTS", "RIG_TERMS", "LeverBench",
    "adapted_embedder", "in_default", "lever_results", "lever_table",
]

#: Name of the plain hybrid in the tables.
BASELINE = "plain hybrid"
#: Name of the default pipeline in the tables.
DEFAULT = "default pipeline"

#: Options of the plain hybrid of chapters/09-hybrid-retrieval.ipynb.
PLAIN: dict = {"weight": PLAIN_WEIGHT, "candidates": 100, "bm25_options": {"expand": True}}

#: Each lever: its name in the tables -> the options that switch it on over
#: :data:`PLAIN`. ``chunks`` holds :func:`ddrsearch.retrieval.chunking.operation_chunks`
#: options (the chunk context); ``adapter: True`` embeds through the packaged
#: linear adapter (:class:`ddrsearch.retrieval.adaptation.AdaptedEmbedder`, trained on
#: the reports' own rows without any question); everything else is a
#: :class:`~ddrsearch.retrieval.levered.TunedHybridRetriever` option.
LEVERS: dict[str, dict] = {
    "all candidates": {"candidates": None},
    "stemming": {"bm25_options": {"expand": True, "stem": True}},
    "'while' stop word": {"bm25_options": {"expand": True, "stop_extra": ["while"]}},
    "framing dropped": {"framing": True},
    "asker's shorthand": {"asker": True},
    "shorthand added": {"reverse": True},
    "RM3 (BM25)": {"prf": "rm3"},
    "Rocchio (dense)": {"prf": "rocchio"},
    "structured path": {"structured": 1.0},
    "term proximity": {"proximity": 1.0, "numbers": False},
    "quantity pairs": {"proximity": 1.0, "numbers": "units"},
    "no context": {"chunks": {"context": False}},
    "MD in context": {"chunks": {"depth": True}},
    "adapted model": {"adapter": True},
    "lexicon terms": {"lexicon": 0.6, "lexicon_k": 5, "lexicon_gate": 0.7},
}


#: The rig-terms table (:func:`ddrsearch.text.rewriting.add_rig_terms`) as a lever over
#: the default pipeline. Not in :data:`LEVERS` on purpose: the table was written
#: while reading the development questions the default missed, so the development
#: questions cannot judge it; chapters/12-improving-retrieval.ipynb scores it on
#: the held-out questions (a second look at them, said there) and leaves it out
#: of the default.
RIG_TERMS: dict = {"rig_terms": True}


#: The variants tried for plain-English questions, each alone over the
#: default pipeline on the pooled development questions of the archive and
#: zero-overlap sets: name -> options over the default, each as it was tried.
#: The lexicon variants come from before the lexicon's gate (``lexicon_gate:
#: None``), adaptive fusion over the default of that day without the lexicon.
#: ``chunks`` holds chunk-context options of :meth:`LeverBench.retriever`
#: (``concepts``: the plain words of a row's lexicon terms put in its context,
#: ``concepts_legs``: the one leg that reads them); ``embedder`` names an
#: adapter recipe of :data:`ADAPTER_RECIPES`, trained by :func:`adapted_embedder`.
#: ``benchmarks/plain_levers.py`` prints their tables; the book's appendix
#: (chapters/appendix-more-held-out.ipynb) scores the ones not kept.
PLAIN_VARIANTS: dict[str, dict] = {
    "lexicon 0.3": {"lexicon": 0.3, "lexicon_k": 3, "lexicon_gate": None},
    "lexicon 0.6": {"lexicon": 0.6, "lexicon_k": 3, "lexicon_gate": None},
    "lexicon 1.0": {"lexicon": 1.0, "lexicon_k": 3, "lexicon_gate": None},
    "lexicon 0.6 k5": {"lexicon": 0.6, "lexicon_k": 5, "lexicon_gate": None},
    "lexicon 1.0 k5": {"lexicon": 1.0, "lexicon_k": 5, "lexicon_gate": None},
    "lexicon 0.6 k8": {"lexicon": 0.6, "lexicon_k": 8, "lexicon_gate": None},
    "lexicon 0.6 k5 min0.4": {"lexicon": 0.6, "lexicon_k": 5, "lexicon_min": 0.4, "lexicon_gate": None},
    "lexicon 0.6 k5 min0.6": {"lexicon": 0.6, "lexicon_k": 5, "lexicon_min": 0.6, "lexicon_gate": None},
    "without lexicon": {"lexicon": 0.0},
    "lexicon ungated": {"lexicon_gate": None},
    "lexicon gate 0.5": {"lexicon_gate": 0.5},
    "lexicon gate 0.7": {"lexicon_gate": 0.7},
    "adaptive 0.8": {"adaptive": 0.8, "lexicon": 0.0},
    "adaptive 0.9": {"adaptive": 0.9, "lexicon": 0.0},
    "adaptive 1.0": {"adaptive": 1.0, "lexicon": 0.0},
    # document-side expansion: the chunk's context carries the plain words of its row's terms
    # (plain: the terms' plain phrasings; defs: their definitions' heads), read by both legs or by one
    "docs plain": {"chunks": {"concepts": "plain"}},
    "docs defs": {"chunks": {"concepts": "definition"}},
    "docs plain BM25": {"chunks": {"concepts": "plain", "concepts_legs": "bm25"}},
    "docs plain dense": {"chunks": {"concepts": "plain", "concepts_legs": "dense"}},
    "docs defs dense": {"chunks": {"concepts": "definition", "concepts_legs": "dense"}},
    # the activity group as a signal: the question's lexicon groups against each row's CODE and PHASE
    "groups 0.05": {"groups": 0.05},
    "groups 0.1": {"groups": 0.1},
    "groups 0.2": {"groups": 0.2},
    # the linear adapter trained on the lexicon's own pairs (ADAPTER_RECIPES), in-process
    "adapter lexicon": {"embedder": "lexicon"},
    "adapter lex+rows": {"embedder": "lexicon+rows"},
    # the structured path (ddrsearch.retrieval.structured): a depth written without its unit ("near 6,945") read as
    # a depth mentioned, alone or with a lower score for the reports that stayed at it or went on from it; loose
    # dates ("late November", "before spud") scoring every report covering the period; "loose dates 0.3" was
    # kept (DEFAULT_LEVERS), the others tried over the default of that day, without it
    "bare depths": {"bare_depths": True},
    "bare depths still 0.25": {"bare_depths": True, "depth_still": 0.25},
    "bare depths next 0.25": {"bare_depths": True, "depth_next": 0.25},
    "bare depths still 0.5": {"bare_depths": True, "depth_still": 0.5},
    "loose dates 0.15": {"loose_dates": 0.15},
    "loose dates 0.3": {"loose_dates": 0.3},
    "loose dates 0.5": {"loose_dates": 0.5},
    # well sections ("in the 12-1/4", "in the curve", "at the toe": ddrsearch.retrieval.sections) scoring every
    # report whose drilled interval meets the section, when the question has no other structured pattern
    "sections 0.15": {"sections": 0.15},
    "sections 0.3": {"sections": 0.3},
    "sections 0.5": {"sections": 0.5},
}

#: Adapter recipes of the ``embedder`` option of :data:`PLAIN_VARIANTS`: which pairs
#: train it (:func:`ddrsearch.retrieval.adaptation.lexicon_pairs`, plus, for
#: ``"lexicon+rows"``, the unlabeled row pairs of
#: :func:`ddrsearch.retrieval.adaptation.training_pairs`), with the default TrainingConfig.
ADAPTER_RECIPES = ("lexicon", "lexicon+rows")


def adapted_embedder(recipe: str, reports: Sequence[Report], embedder: Embedder) -> AdaptedEmbedder:
    """An adapter over ``embedder`` trained in-process by ``recipe``, never on a question of any set.

    Args:
        recipe: one of :data:`ADAPTER_RECIPES`.
        reports: the reports whose operation rows give the row pairs (``"lexicon+rows"``).
        embedder: the embedding model the adapter is trained over.

    Returns:
        The :class:`~ddrsearch.retrieval.adaptation.AdaptedEmbedder`; its
        ``pairs`` attribute holds the number of training pairs, its
        ``adapter_sha256`` the hash of its matrix. Trained anew at each call.

    Raises:
        ValueError: ``recipe`` is not one of :data:`ADAPTER_RECIPES`.
    """
    if recipe not in ADAPTER_RECIPES:
        raise ValueError(f"adapter recipe must be one of {', '.join(map(repr, ADAPTER_RECIPES))}, not {recipe!r}")
    pairs = training_pairs(chunk_reports(reports)) if recipe == "lexicon+rows" else []
    pairs += lexicon_pairs(group_start=max((p.group for p in pairs), default=-1) + 1)
    adapted = AdaptedEmbedder(train_adapter(pairs, embedder))
    adapted.pairs = len(pairs)
    return adapted

#: How to switch each lever of the default pipeline off again (its value in
#: :data:`PLAIN`), for the leave-one-out check of the chapter.
OFF: dict[str, dict] = {
    "all candidates": {"candidates": 100},
    "stemming": {"bm25_options": {"stem": False}},
    "'while' stop word": {"bm25_options": {"stop_extra": []}},
    "asker's shorthand": {"asker": False},
    "RM3 (BM25)": {"prf": None},
    "structured path": {"structured": 0.0},
    "quantity pairs": {"proximity": 0.0},
    "lexicon terms": {"lexicon": 0.0},
}


def _merge(*parts: Mapping) -> dict:
    out: dict = {}
    for part in parts:
        for key, value in part.items():
            out[key] = {**out.get(key, {}), **value} if isinstance(value, dict) else value
    return out


def in_default(options: Mapping) -> bool:
    """Whether the default pipeline has this lever on (its options hold in DEFAULT_LEVERS over PLAIN).

    >>> in_default(LEVERS["stemming"]), in_default(LEVERS["no context"])
    (True, False)
    """
    default = _merge(PLAIN, DEFAULT_LEVERS)
    for key, value in options.items():
        have = default.get(key, {} if isinstance(value, dict) else None)
        if isinstance(value, dict):
            if any(have.get(k) != v for k, v in value.items()):
                return False
        elif have != value:
            return False
    return True


class LeverBench:
    """Builds tuned hybrid retrievers over one archive, sharing chunks, BM25 indexes and dense vectors.

    Args:
        reports: the reports to search (the 76 of the archive).
        embedder: the embedding model of the dense leg (default: the
            book's all-MiniLM-L6-v2, :class:`ddrsearch.embedding.encoder.Embedder`).
    """

    def __init__(self, reports: Sequence[Report], embedder: Embedder | None = None):
        self.reports = list(reports)
        self.embedder = embedder if embedder is not None else Embedder()
        self._passages: dict = {}
        self._bm25: dict = {}
        self._dense: dict = {}
        self._adapted: AdaptedEmbedder | None = None

    def passages(self, context: bool = True, depth: bool = False, concepts: str = "") -> list:
        """The operation-row chunks with the given context options (computed once)."""
        key = (context, depth, concepts)
        if key not in self._passages:
            self._passages[key] = chunk_reports(self.reports, "operation", context=context, depth=depth,
                                                concepts=concepts)
        return self._passages[key]

    def _one_leg(self, concepts: str, context: bool, depth: bool) -> list:
        """The chunks without plain words, each with its row's plain words added to its context (same ids)."""
        tagger = default_tagger()
        out = []
        for p in self.passages(context, depth):
            words = tagger.plain_words(p.text, concepts) if p.context else ""
            out.append(replace(p, context=f"{p.context} {words}.") if words else p)
        return out

    def retriever(self, *options: Mapping) -> TunedHybridRetriever:
        """An indexed :class:`~ddrsearch.retrieval.levered.TunedHybridRetriever` with ``options`` merged in order.

        Args:
            *options: option dicts (later ones win; ``bm25_options`` and
                ``chunks`` are merged key by key), e.g. ``(PLAIN, LEVERS["stemming"])``.
                ``chunks`` takes ``context``, ``depth`` and ``concepts``
                (:func:`ddrsearch.retrieval.chunking.operation_chunks`), and
                ``concepts_legs``: ``"both"`` (default), or ``"bm25"`` /
                ``"dense"`` for the one leg that reads the plain words.
                ``embedder`` picks another embedding model for the dense leg,
                ``adapter=True`` the packaged adapted one.

        Raises:
            ValueError: an unknown option value (from the retriever, the chunker or ``concepts_legs``).
        """
        opts = _merge(*options)
        chunks = opts.pop("chunks", {})
        embedder = opts.pop("embedder", self.embedder)
        if opts.pop("adapter", False):
            if self._adapted is None:
                self._adapted = AdaptedEmbedder()
            embedder = self._adapted
        key = (chunks.get("context", True), chunks.get("depth", False), chunks.get("concepts", ""))
        passages = self.passages(*key)
        legs = chunks.get("concepts_legs", "both")
        if legs not in ("both", "bm25", "dense"):
            raise ValueError(f"concepts_legs must be 'both', 'bm25' or 'dense', not {legs!r}")
        if key[2] and legs != "both":  # one leg reads the plain words, the other and the row choice the chunks without
            key = (key[0], key[1], f"{key[2]}:{legs}")
            if key not in self._passages:
                self._passages[key] = self._one_leg(key[2].split(":")[0], *key[:2])
            passages = self._passages[key]
        bm25_opts = opts.pop("bm25_options", {})
        bkey = (key, repr(sorted(bm25_opts.items())))
        plain = self.passages(*key[:2]) if legs != "both" and key[2] else passages
        if bkey not in self._bm25:
            self._bm25[bkey] = BM25Retriever(**bm25_opts).index(plain if legs == "dense" else passages)
        dkey = (key, id(embedder))
        if dkey not in self._dense:
            self._dense[dkey] = DenseRetriever(embedder=embedder).index(plain if legs == "bm25" else passages)
        r = TunedHybridRetriever(bm25=self._bm25[bkey], dense=self._dense[dkey], **opts)
        r.index(self.passages(*key[:2]) if legs != "both" and key[2] else passages)
        r.attach_reports(self.reports)
        return r

    def default(self) -> TunedHybridRetriever:
        """The default pipeline (:data:`ddrsearch.retrieval.pipeline.DEFAULT_LEVERS`, dense weight DEFAULT_WEIGHT)."""
        return self.retriever(DEFAULT_LEVERS, {"weight": DEFAULT_WEIGHT})


def lever_results(bench: LeverBench, questions, levers: Mapping[str, Mapping] | None = None,
                  k: int = 5) -> dict[str, pd.DataFrame]:
    """Per-question tables (:func:`ddrsearch.evaluation.evaluate.evaluate_retriever`) of the plain hybrid and each lever alone.

    Args:
        bench: the retriever builder.
        questions: the questions to tune on (the development split).
        levers: name -> options over :data:`PLAIN` (default :data:`LEVERS`).

    Returns:
        ``{BASELINE: table, lever name: table, ...}`` in that order.
    """
    levers = LEVERS if levers is None else levers
    out = {BASELINE: evaluate_retriever(bench.retriever(PLAIN), questions, k)}
    for name, options in levers.items():
        out[name] = evaluate_retriever(bench.retriever(PLAIN, options), questions, k)
    return out


def lever_table(results: Mapping[str, pd.DataFrame], baseline: str = BASELINE,
                metrics: Sequence[str] = ("hit@5", "RR", "NDCG@5"), gain_on: str = "NDCG@5",
                n: int = 2000, seed: int = 0) -> pd.DataFrame:
    """Each lever's means with 95% bootstrap half-widths, and its paired gain over ``baseline`` (the plain hybrid).

    :func:`ddrsearch.evaluation.significance.comparison_table` with this module's baseline; see it for the columns
    and the errors raised.
    """
    return comparison_table(results, baseline, metrics=metrics, gain_on=gain_on, n=n, seed=seed)

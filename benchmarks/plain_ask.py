"""How often ``ddrsearch ask`` answers or refuses on the zero-overlap questions (datasets/eval/plain.yaml).

Usage: ``python benchmarks/plain_ask.py [--split test]``,
``python benchmarks/plain_ask.py --refusal`` or ``--support`` (development questions only).

For each question of the split, the answer card of :class:`ddrsearch.answers.answerer.Answerer`
(the default pipeline over the archive, the calibrated threshold) either finds rows or says
"Not found in these reports". Prints, for the answerable questions, how many were refused and,
of those answered, how many cite a row of a relevant report; for the unanswerable ones, how
many were refused. Targets (issue 23): at most 1 in 5 answerable refused, at least 4 in 5
unanswerable refused.

``--refusal`` studies the refusal rule on the development questions of the
archive and zero-overlap sets (answerable and unanswerable): the spread of
each question's best support, the threshold with the best balanced accuracy
on the pooled questions (:func:`ddrsearch.answers.answerer.calibrate_threshold`), and
a per-question rule (answer when the support reaches the threshold *or* the
best candidate's cosine stands out from the median of the ``k`` candidates' by
a margin chosen on the pooled questions), each with balanced accuracy per set
and the paired bootstrap interval of its change (questions resampled within
answerable and unanswerable, 2000 draws, seed 0); the rules and the table are
``ddrsearch.answers.refusals``.

``--support`` tries support scores that do not count the question's own words
(:data:`SUPPORT_VARIANTS`), one at a time, on the same development questions:
the overlap of lexicon concepts instead of words, the dense cosine of the best
row (alone, with its margin, or with the cosine to the plain words of the
row's concepts), today's support measured on the question as the retriever
rewrites it (``rewritten``), today's support with the question's day, loose
date or depth held by the rows the structured path matched (``structured``,
``structured_full``) and a logistic regression on a few features. Each is scored by
balanced accuracy per set with the threshold calibrated on the pooled dev
questions (in-sample) and chosen on four fifths and applied to the fifth left
out (5-fold, stratified by set and answerability, seed 0), with the paired
interval of its change against today's support at ``ANSWER_THRESHOLD``. It
also prints how many answerable questions have a row of a relevant report
among the ``k`` candidates at all: no score over those rows can answer the
others rightly. Both studies count a question whose card quotes rows whatever
the threshold (a depth passed, a quantity on a day, the rows of a day:
:func:`ddrsearch.answers.refusals.answers_regardless`) as answered under every
rule, so today's figures are the cards'. A variant is kept only when its cross-validated pooled change
is above zero beyond its interval and the archive's is not below it.
"""

from __future__ import annotations

import argparse
import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")

import numpy as np
import pandas as pd

from ddrsearch.answers.answerer import ANSWER_THRESHOLD, Answerer, calibrate_threshold, search_words
from ddrsearch.answers.refusals import (
    answers_regardless,
    balanced_accuracy,
    paired_change,
    refusal_scores,
    refusal_table,
)
from ddrsearch.data.folders import archive_dir
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.report import load_archive


def refusal_study(answerer: Answerer, reports) -> None:
    scores = refusal_scores(answerer, reports)
    print("best support per question (median, quartiles) and cosine margin (median):")
    for (s, a), part in scores.groupby(["set", "answerable"]):
        v = part["support"]
        print(f"  {s:8s} {'answerable' if a else 'unanswerable':12s} n={len(v):2d} median {v.median():.3f} "
              f"[{v.quantile(0.25):.3f}, {v.quantile(0.75):.3f}]; margin {part['margin'].median():.3f}")
    table, pooled_t, _ = refusal_table(scores)
    print(f"threshold with the best balanced accuracy on pooled dev: {pooled_t:.3f} "
          f"(ANSWER_THRESHOLD {ANSWER_THRESHOLD:.3f}, archive dev only)")
    print(table.round(3).to_string())


#: Support scores tried by ``--support``: name -> what it is (the columns of :func:`support_scores`).
SUPPORT_VARIANTS = {
    "support": "today's support, its threshold chosen the same way (the reference: what choosing costs)",
    "concept": "(cosine + concept coverage) / 2 + margin: the similarity-weighted share of the question's "
               "lexicon concepts (5 nearest by meaning, similarity >= 0.5, and the terms it prints) the row uses",
    "concept_or_word": "as concept, with coverage max(word coverage, concept coverage)",
    "cosine": "the best candidate's cosine to the question",
    "cosine_margin": "cosine + margin: the best candidate's cosine plus its lead on the mean of the others'",
    "gloss": "(cosine + cosine of the question to the plain words of the row's concepts) / 2 + margin",
    "rewritten": "today's support measured against the question as the retriever rewrites it (asker's "
                 "shorthand spelled out: Answerer(support_words='rewritten')), in the coverage and the cosine",
    "structured": "today's support with the question's structured part (day, loose date, depth) held by a row "
                  "of a report the structured path matched that began on the day (in the period), to the "
                  "match's score: Answerer(structured_credit='score')",
    "structured_full": "as structured, the part held whole (structured_credit='full')",
    "logistic": "logistic regression (balanced class weights, C = 1) on support, best cosine, cosine margin "
                "and concept support, fitted on four folds, p >= 0.5 on the fifth",
}

#: Concepts of a question: its ``QUESTION_CONCEPTS`` nearest non-measurement lexicon entries by meaning
#: with similarity at least ``CONCEPT_MIN`` (the ``lexicon`` lever's 5 and 0.5), and the terms it prints.
QUESTION_CONCEPTS, CONCEPT_MIN = 5, 0.5

#: Folds of the cross-validated thresholds and of the logistic regression.
FOLDS = 5


def with_margin(values) -> np.ndarray:
    """Each value plus its lead on the mean of the others (the answerer's margin rule); one value unchanged."""
    v = np.asarray(values, dtype=float)
    return v if len(v) < 2 else 2 * v - (v.sum() - v) / (len(v) - 1)


def concept_weights(similarities: np.ndarray, entries, printed_terms, k: int = QUESTION_CONCEPTS,
                    least: float = CONCEPT_MIN) -> dict[str, float]:
    """The question's concepts: printed term (lower case) -> weight.

    Args:
        similarities: each lexicon entry's similarity to the question, shape ``(n entries,)``.
        entries: the lexicon entries, in the same order.
        printed_terms: the printed terms (lower case) of the entries the question's own words use (weight 1).
        k, least: the ``k`` nearest non-measurement entries with similarity at least ``least`` are taken,
            weighted by their similarity (ties by term).
    """
    sims = np.where([e.kind == "measurement" for e in entries], -1.0, similarities)
    order = sorted(range(len(sims)), key=lambda i: (-sims[i], entries[i].term))[:k]
    out: dict[str, float] = {}
    for i in order:
        if sims[i] >= least:
            t = entries[i].printed.lower()
            out[t] = max(out.get(t, 0.0), float(sims[i]))
    out.update({t: 1.0 for t in printed_terms})
    return out


def concept_coverage(weights: dict[str, float], row_terms) -> float:
    """The weighted share of the question's concepts (:func:`concept_weights`) whose term the row uses; 0 for none."""
    total = sum(weights.values())
    held = set(row_terms)
    return sum(w for t, w in weights.items() if t in held) / total if total else 0.0


def support_scores(answerer: Answerer, reports) -> pd.DataFrame:
    """Per development question of the archive and zero-overlap sets: set, answerability, whether a row of
    a relevant report is among the candidates, today's support and each variant of :data:`SUPPORT_VARIANTS`
    but ``logistic`` (the columns it is fitted on are here)."""
    from ddrsearch.retrieval.concepts import default_tagger
    from ddrsearch.retrieval.lexicon_match import LexiconMatcher

    ret = answerer.retriever
    embedder = ret.dense.embedder
    matcher, tagger = LexiconMatcher(embedder), default_tagger()
    rewrite = getattr(ret, "rewrite", lambda q: q)
    rewritten = Answerer(answerer.reports, ret, answerer.threshold, support_words="rewritten")
    credited = {name: Answerer(answerer.reports, ret, answerer.threshold, structured_credit=how)
                for name, how in (("structured", "score"), ("structured_full", "full"))}
    rows = []
    for set_name in ("archive", "plain"):
        for q in load_questions(set_name, reports=reports).split("dev").questions:
            card = answerer.ask(q.question)
            words = search_words(q.question)
            cands = card.candidates
            weights = concept_weights(matcher.similarities(rewrite(words)), matcher.entries,
                                      [e.printed.lower() for e in tagger.concepts(q.question)])
            cos = np.array([c.cosine for c in cands] or [0.0])
            held = [concept_coverage(weights, [e.printed.lower() for e in tagger.concepts(c.text)]) for c in cands]
            glosses = [tagger.plain_words(c.text) or c.text for c in cands]
            gloss = embedder.encode(glosses) @ embedder.encode_query(words) if cands else np.zeros(1)
            word = np.array([c.coverage for c in cands] or [0.0])
            held = np.array(held or [0.0])
            relevant = {j.report for j in q.relevant}
            rows.append({
                "set": set_name, "answerable": q.answerable,
                "candidate relevant": any(c.report in relevant for c in cands),
                "typed": answers_regardless(answerer, q.question),
                "support": card.support, "rewritten": rewritten.ask(q.question).support,
                **{name: other.ask(q.question).support for name, other in credited.items()},
                "concept": with_margin((cos + held) / 2).max(),
                "concept_or_word": with_margin((cos + np.maximum(held, word)) / 2).max(),
                "cosine": cos.max(), "cosine_margin": with_margin(cos).max(),
                "gloss": with_margin((cos + gloss) / 2).max(),
                "margin": cos.max() - float(np.median(cos)),
            })
    return pd.DataFrame(rows)


def folds(sets: np.ndarray, answerable: np.ndarray, n: int = FOLDS, seed: int = 0) -> np.ndarray:
    """Fold of each question (0 to ``n - 1``): each set's answerable and unanswerable ones dealt in turn
    after a seeded shuffle, so every fold holds about a fifth of each."""
    rng = np.random.default_rng(seed)
    out = np.zeros(len(sets), dtype=int)
    for s in sorted(set(sets)):
        for a in (True, False):
            idx = np.flatnonzero((sets == s) & (answerable == a))
            rng.shuffle(idx)
            out[idx] = np.arange(len(idx)) % n
    return out


def cv_threshold_rule(score: np.ndarray, answerable: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Answered or not, each question by the threshold calibrated on the other folds' questions."""
    out = np.zeros(len(score), dtype=bool)
    for f in np.unique(fold):
        train = fold != f
        t = calibrate_threshold(score[train & answerable], score[train & ~answerable])
        out[fold == f] = score[fold == f] >= t
    return out


def logistic_rule(features: np.ndarray, answerable: np.ndarray, fold: np.ndarray) -> np.ndarray:
    """Answered or not, each question by a logistic regression fitted on the other folds (p >= 0.5)."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    out = np.zeros(len(features), dtype=bool)
    for f in np.unique(fold):
        train = fold != f
        model = make_pipeline(StandardScaler(), LogisticRegression(class_weight="balanced", random_state=0))
        model.fit(features[train], answerable[train])
        out[fold == f] = model.predict_proba(features[fold == f])[:, 1] >= 0.5
    return out


def support_table(scores: pd.DataFrame) -> pd.DataFrame:
    """Balanced accuracy per set (archive, plain, pooled) of each variant, in-sample and cross-validated.

    Returns:
        One row per variant, fit (``in-sample``: threshold calibrated on the pooled dev questions;
        ``5-fold``: :func:`cv_threshold_rule`, or :func:`logistic_rule`) and set: the threshold, balanced
        accuracy today and under the variant, the paired change with its 95% interval, the shares refused,
        and ``kept`` (on the pooled row of the 5-fold fit). A question whose card answers whatever the
        threshold (column ``typed``: a depth passed, the rows of a day) is answered under every variant,
        today's too, as the card does.
    """
    sets, ans = scores["set"].to_numpy(), scores["answerable"].to_numpy(bool)
    typed = scores["typed"].to_numpy(bool) if "typed" in scores else np.zeros(len(scores), bool)
    old = (scores["support"].to_numpy() >= ANSWER_THRESHOLD) | typed
    fold = folds(sets, ans)
    every = {"archive": sets == "archive", "plain": sets == "plain", "pooled": np.ones(len(sets), bool)}
    rows = []
    for name in SUPPORT_VARIANTS:
        if name == "logistic":
            x = scores[["support", "cosine", "margin", "concept"]].to_numpy(float)
            fits = {"5-fold": (logistic_rule(x, ans, fold) | typed, float("nan"))}
        else:
            x = scores[name].to_numpy(float)
            t = calibrate_threshold(x[ans], x[~ans])
            fits = {"in-sample": ((x >= t) | typed, t), "5-fold": (cv_threshold_rule(x, ans, fold) | typed, float("nan"))}
        for fit, (new, t) in fits.items():
            changes = {s: paired_change(new[m], old[m], ans[m]) for s, m in every.items()}
            kept = changes["pooled"][1] > 0 and changes["archive"][2] >= 0
            for s, mask in every.items():
                gain, low, high = changes[s]
                rows.append({"variant": name, "fit": fit, "set": s, "threshold": t,
                             "today": balanced_accuracy(old[mask], ans[mask]), "variant BA": balanced_accuracy(new[mask], ans[mask]),
                             "change": gain, "low": low, "high": high,
                             "answerable refused": (~new[mask & ans]).mean(),
                             "unanswerable refused": (~new[mask & ~ans]).mean(),
                             "kept": kept if (fit == "5-fold" and s == "pooled") else ""})
    return pd.DataFrame(rows).set_index(["variant", "fit", "set"])


def support_study(answerer: Answerer, reports) -> None:
    scores = support_scores(answerer, reports)
    print("answerable dev questions with a row of a relevant report among the candidates, and median support "
          "(today) of those with one, without one, and of the unanswerable:")
    for s, part in scores.groupby("set"):
        a = part[part["answerable"]]
        hit = a["candidate relevant"].to_numpy(bool)
        print(f"  {s:8s} {hit.sum()}/{len(a)} ({hit.mean():.2f}); support {a['support'][hit].median():.3f} / "
              f"{a['support'][~hit].median():.3f} / {part['support'][~part['answerable']].median():.3f}")
    for name, what in SUPPORT_VARIANTS.items():
        print(f"  {name}: {what}")
    print(support_table(scores).round(3).to_string())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--split", default="test", choices=["dev", "test", "all"])
    ap.add_argument("--set", default="plain")
    ap.add_argument("--refusal", action="store_true", help="study the refusal rule on the dev questions")
    ap.add_argument("--support", action="store_true", help="try support scores without the question's words (dev)")
    args = ap.parse_args()
    reports = load_archive(archive_dir())
    answerer = Answerer(reports)
    if args.refusal:
        refusal_study(answerer, reports)
        return
    if args.support:
        support_study(answerer, reports)
        return
    qs = load_questions(args.set, reports=reports)
    qs = qs if args.split == "all" else qs.split(args.split)
    answered = refused = right = un_refused = un_total = 0
    for q in qs.questions:
        card = answerer.ask(q.question)
        if q.kind == "unanswerable":
            un_total += 1
            un_refused += not card.found
            continue
        if not card.found:
            refused += 1
            continue
        answered += 1
        relevant = {j.report for j in q.relevant}
        right += any(r.report in relevant for r in card.rows)
    n = answered + refused
    print(f"{args.set} {args.split}: answerable {n}: refused {refused} ({refused / max(n, 1):.2f}; target <= 0.20), "
          f"answered {answered}, of which citing a relevant report {right}")
    print(f"unanswerable {un_total}: refused {un_refused} ({un_refused / max(un_total, 1):.2f}; target >= 0.80)")


if __name__ == "__main__":
    main()

"""Domain adaptation of the embedding model to the archive's own text, without labels.

all-MiniLM-L6-v2 was trained on web text; it has never seen ``POOH``,
``L/D BHA`` or ``W&R``. This module teaches it a little of the reports'
language *without any question or judgement*: it builds training pairs from
the reports' own operation rows and the rig glossary, and trains a small
**linear adapter** on top of the frozen model. The adapter is a 384 x 384
float32 matrix ``W``; an adapted vector is ``normalize(W @ v)`` where ``v`` is
the model's unit vector. It ships with the package
(``ddrsearch/resources/`` :data:`ADAPTER_FILE`, 0.6 MB) with its SHA-256
pinned here (:data:`ADAPTER_SHA256`) and checked at load.

Training data (:func:`training_pairs`), from the chunks of
:func:`ddrsearch.retrieval.chunking.chunk_reports` (operation rows, PRESENT OPERATIONS,
ACTIVITY PLANNED; windows for the completion report):

* **shorthand pairs**: a row written in rig shorthand (every multi-word
  glossary expansion replaced by its abbreviation, :func:`contract`) paired
  with the same row written out (every upper-case abbreviation replaced by its
  expansion, :func:`expand`); only rows where the two differ.
* **pseudo-queries** (the inverse cloze task of Lee et al., 2019,
  https://arxiv.org/abs/1906.00300): a random run of 3 to 8 words of the row,
  in shorthand or written out at random, paired with the chunk's indexed text
  (context + row), i.e. what the dense retriever stores.

The loss is the symmetric in-batch-negatives contrastive loss (InfoNCE, as
sentence-transformers' ``MultipleNegativesRankingLoss``; van den Oord et al.,
2018, https://arxiv.org/abs/1807.03748) with temperature 0.05; pairs of the
*same* row text are never used as each other's negatives. A penalty
``identity_weight * ||W - I||^2`` keeps the adapter close to the identity
(the unadapted model). The questions of ``datasets/eval/archive.yaml`` are
never read here. Everything is seeded (Python ``random``, torch), and the
matrix is trained in float64 on the CPU, so a retrain on the same machine
gives the same bytes.

Reproduce the packaged adapter: ``python -m ddrsearch.retrieval.adaptation --out FILE``
(prints the training time and the SHA-256). With the embedding cache warm
it gives the packaged bytes again; cold (``--no-cache``) every entry agrees
within 2e-6 (the model's own vectors move by ~1e-6 with batch composition),
so the hash differs. Cold, on this project's shared 2-core machine: 110 s of
CPU time, 9 min wall clock at a load average of 16; warm: 18 s of CPU.

Use it::

    DenseRetriever(adapter=True)                                   # dense leg only
    build_retriever("hybrid", reports, dense_options={"adapter": True})
    AdaptedEmbedder()                                              # an Embedder

Measured on the development questions with ``benchmarks/adapter_dev.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ddrsearch.data.folders import archive_dir
from ddrsearch.data.resources import resource_path
from ddrsearch.embedding.encoder import Embedder
from ddrsearch.embedding.model import EMBEDDING_DIM, MAX_SEQ_LENGTH, OFFICIAL_SHA256
from ddrsearch.errors import AdapterIntegrityError
from ddrsearch.hashing import sha256_file
from ddrsearch.retrieval.passages import Passage
from ddrsearch.text.glossary import Glossary, default_glossary

__all__ = [
    "ADAPTER_FILE", "ADAPTER_SHA256", "AdaptedEmbedder", "Pair", "TrainingConfig", "adapter_path", "contract",
    "expand", "lexicon_pairs", "load_adapter", "main", "train_adapter", "training_pairs",
]

#: File name of the packaged adapter in ``ddrsearch/resources/``.
ADAPTER_FILE = "minilm_adapter.npy"
#: SHA-256 of the packaged adapter file (checked by :func:`load_adapter`).
ADAPTER_SHA256 = "dd65c1c459ae9a9048ab20756d2d108f2806083d0446ca34e05dd938818d7ac2"

_UPPER_WORD = re.compile(r"(?<![A-Za-z0-9])[A-Z][A-Z.&/]*[A-Z](?:'?s)?(?![A-Za-z0-9])")


def expand(text: str, glossary: Glossary) -> str:
    """Write out every rig abbreviation of ``text`` (``"POOH w/ BHA"`` -> ``"pull out of hole w/ bottom hole assembly"``).

    Only words in capitals (two letters or more, ``.``, ``&``, ``/`` allowed
    inside) are looked up, so English words that are also abbreviations
    (``so``, ``in``) stay as they are.
    """
    def repl(m: re.Match) -> str:
        word = m.group(0)
        entry = glossary.get(word) or (glossary.get(word[:-2]) if word.endswith("'s") else None)
        return entry.expansion if entry is not None else word

    return _UPPER_WORD.sub(repl, text)


def _contractions(glossary: Glossary) -> list[tuple[re.Pattern, str]]:
    seen: set[str] = set()
    out = []
    for e in sorted(glossary, key=lambda e: (-len(e.expansion_tokens), e.line, e.abbreviation)):
        words = re.findall(r"[A-Za-z0-9]+", e.expansion)
        key = " ".join(words).lower()
        if len(words) < 2 or key in seen:
            continue
        seen.add(key)
        pattern = r"(?<![A-Za-z0-9])" + r"[\s-]+".join(map(re.escape, words)) + r"(?![A-Za-z0-9])"
        out.append((re.compile(pattern, re.IGNORECASE), e.abbreviation))
    return out


def contract(text: str, glossary: Glossary) -> str:
    """Write ``text`` in rig shorthand: each multi-word glossary expansion becomes its abbreviation.

    ``"Trip out of hole with bottom hole assembly"`` -> ``"TOOH with BHA"``.
    Longer expansions are replaced first (``heavy-weight drill pipe`` before
    ``drill pipe``); of two abbreviations with the same expansion the first
    in the glossary wins.
    """
    for pattern, abbreviation in _contractions(glossary):
        text = pattern.sub(abbreviation, text)
    return text


@dataclass(frozen=True)
class Pair:
    """One training pair: ``anchor`` should embed close to ``positive``.

    Attributes:
        anchor: the query side (shorthand row or pseudo-query).
        positive: the passage side (written-out row or the chunk's indexed text).
        group: number of the distinct row text the pair comes from; pairs of
            one group are not each other's negatives.
        kind: ``"shorthand"``, ``"query"`` or ``"lexicon"`` (:func:`lexicon_pairs`).
    """

    anchor: str
    positive: str
    group: int
    kind: str


def training_pairs(passages: Sequence[Passage], glossary: Glossary | None = None, *,
                   queries_per_passage: int = 2, seed: int = 0) -> list[Pair]:
    """The unlabeled training pairs of the adapter (see the module docstring).

    Args:
        passages: chunks of the reports (:func:`ddrsearch.retrieval.chunking.chunk_reports`).
        glossary: abbreviations; default :func:`ddrsearch.text.glossary.default_glossary`.
        queries_per_passage: pseudo-queries drawn from each distinct row text.
        seed: seed of the random windows and shorthand choices.

    Returns:
        Pairs in passage order (shorthand pair first, then pseudo-queries);
        the same inputs always give the same list.

    Raises:
        ValueError: ``passages`` is empty or ``queries_per_passage < 0``.
    """
    if not passages:
        raise ValueError("training_pairs needs at least one passage; chunk the reports first (chunk_reports).")
    if queries_per_passage < 0:
        raise ValueError(f"queries_per_passage must be >= 0, got {queries_per_passage}")
    glossary = glossary if glossary is not None else default_glossary()
    rng = random.Random(seed)
    groups: dict[str, int] = {}
    pairs: list[Pair] = []
    for p in passages:
        key = " ".join(p.text.split()).lower()
        if not key:
            continue
        group = groups.setdefault(key, len(groups))
        short, full = contract(p.text, glossary), expand(p.text, glossary)
        if short != full:
            pairs.append(Pair(short, full, group, "shorthand"))
        words = p.text.split()
        for _ in range(queries_per_passage):
            n = min(len(words), rng.randint(3, 8))
            start = rng.randint(0, len(words) - n)
            window = " ".join(words[start:start + n])
            query = contract(window, glossary) if rng.random() < 0.5 else expand(window, glossary)
            if sum(ch.isalpha() for ch in query) >= 4:
                pairs.append(Pair(query, p.indexed_text, group, "query"))
    return pairs


def lexicon_pairs(lexicon=None, group_start: int = 0) -> list[Pair]:
    """Supervised pairs from the drilling lexicon (:mod:`ddrsearch.text.lexicon`): its own words, no question.

    Each entry gives (definition, printed term) and (plain phrasing, printed
    term) pairs, kind ``"lexicon"``: the adapter then moves an engineer's
    plain words toward the rig's term a row prints. The entries of one
    printed term (its synonym rows too) share a group, so they are never
    each other's negatives.

    Args:
        lexicon: default :func:`ddrsearch.text.lexicon.default_lexicon`.
        group_start: first group number (to follow the groups of other pairs).

    Returns:
        Pairs in lexicon order; the same lexicon always gives the same list.
    """
    from ddrsearch.text.lexicon import default_lexicon

    lexicon = lexicon if lexicon is not None else default_lexicon()
    groups: dict[str, int] = {}
    out: list[Pair] = []
    for entry in lexicon:
        group = groups.setdefault(entry.printed.lower(), group_start + len(groups))
        for text in entry.texts:
            if text.strip().lower() != entry.printed.lower():
                out.append(Pair(text, entry.printed, group, "lexicon"))
    return out


@dataclass(frozen=True)
class TrainingConfig:
    """Hyper-parameters of :func:`train_adapter` (the packaged adapter uses the defaults).

    Attributes:
        epochs: passes over the pairs.
        batch_size: pairs per step (in-batch negatives: ``batch_size - 1`` each).
        lr: Adam learning rate.
        temperature: softmax temperature of the contrastive loss (0.05 =
            sentence-transformers' scale 20).
        identity_weight: weight of the ``||W - I||^2`` penalty.
        queries_per_passage: pseudo-queries per distinct row (:func:`training_pairs`).
        seed: seed of the pairs, the batch order and torch.
    """

    epochs: int = 10
    batch_size: int = 64
    lr: float = 1e-3
    temperature: float = 0.05
    identity_weight: float = 0.01
    queries_per_passage: int = 2
    seed: int = 0


def train_adapter(pairs: Sequence[Pair], embedder: Embedder, config: TrainingConfig = TrainingConfig()) -> np.ndarray:
    """Train the linear adapter on pairs embedded by the frozen model.

    Args:
        pairs: from :func:`training_pairs`.
        embedder: the unadapted :class:`~ddrsearch.embedding.encoder.Embedder` (its
            disk cache makes a retrain fast; ``cache_dir=False`` to time it cold).
        config: hyper-parameters.

    Returns:
        ``W``, float32 array of shape ``(dim, dim)`` (384 x 384); adapted
        vector = ``normalize(W @ v)``.

    Raises:
        ValueError: fewer than two pairs.
    """
    import torch

    if len(pairs) < 2:
        raise ValueError(f"train_adapter needs at least two pairs (in-batch negatives), got {len(pairs)}")
    texts = sorted({t for p in pairs for t in (p.anchor, p.positive)})
    row = {t: i for i, t in enumerate(texts)}
    vectors = torch.from_numpy(embedder.encode(texts).astype(np.float64))
    anchors = torch.tensor([row[p.anchor] for p in pairs])
    positives = torch.tensor([row[p.positive] for p in pairs])
    groups = torch.tensor([p.group for p in pairs])
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # one thread: the same sums in the same order on any machine, and no oversubscription
    try:
        return _fit(vectors, anchors, positives, groups, config, torch)
    finally:
        torch.set_num_threads(threads)


def _fit(vectors, anchors, positives, groups, config: TrainingConfig, torch) -> np.ndarray:
    torch.manual_seed(config.seed)
    dim = vectors.shape[1]
    eye = torch.eye(dim, dtype=torch.float64)
    weight = torch.nn.Parameter(eye.clone())
    optimizer = torch.optim.Adam([weight], lr=config.lr)
    order_rng = random.Random(config.seed)
    order = list(range(len(anchors)))
    for _ in range(config.epochs):
        order_rng.shuffle(order)
        for b in range(0, len(order), config.batch_size):
            idx = torch.tensor(order[b:b + config.batch_size])
            if len(idx) < 2:
                continue
            a = torch.nn.functional.normalize(vectors[anchors[idx]] @ weight.T, dim=1)
            p = torch.nn.functional.normalize(vectors[positives[idx]] @ weight.T, dim=1)
            logits = a @ p.T / config.temperature
            g = groups[idx]
            same = (g[:, None] == g[None, :]) & ~torch.eye(len(idx), dtype=torch.bool)
            logits = logits.masked_fill(same, float("-inf"))
            target = torch.arange(len(idx))
            loss = (torch.nn.functional.cross_entropy(logits, target)
                    + torch.nn.functional.cross_entropy(logits.T, target)) / 2
            loss = loss + config.identity_weight * ((weight - eye) ** 2).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    return weight.detach().numpy().astype(np.float32)


def adapter_path() -> Path:
    """Path of the packaged adapter, ``ddrsearch/resources/`` :data:`ADAPTER_FILE`.

    Raises:
        DataNotFoundError: the file is not in the installed package.
    """
    return resource_path(ADAPTER_FILE)


def load_adapter(path: str | os.PathLike | None = None, sha256: str | None = None) -> tuple[np.ndarray, str]:
    """Read an adapter matrix and check its SHA-256.

    Args:
        path: an ``.npy`` file; default the packaged one (:func:`adapter_path`).
        sha256: the hash the file must have; default :data:`ADAPTER_SHA256`
            for the packaged file and no check for an explicit ``path``.

    Returns:
        ``(W, digest)``: float32 square matrix and the file's hex SHA-256.

    Raises:
        AdapterIntegrityError: the file is missing, its hash differs, or it
            does not hold a finite float32 square matrix.
    """
    packaged = path is None
    path = adapter_path() if packaged else Path(path)
    expected = sha256 or (ADAPTER_SHA256 if packaged else None)
    if not path.is_file():
        raise AdapterIntegrityError(f"Adapter file {path} does not exist; pass an existing .npy file "
                                    f"or train one with `python -m ddrsearch.retrieval.adaptation --out {path}`.")
    digest = sha256_file(path)
    if expected is not None and digest != expected:
        raise AdapterIntegrityError(
            f"Adapter file {path} has SHA-256 {digest}, expected {expected}. The file is damaged or not the "
            f"pinned adapter: reinstall ddrsearch, or retrain with `python -m ddrsearch.retrieval.adaptation --out FILE` "
            f"and pass that file explicitly.")
    try:
        matrix = np.load(path, allow_pickle=False)
    except Exception as exc:  # not an .npy file at all
        raise AdapterIntegrityError(f"Adapter file {path} is not a NumPy .npy array ({exc}).") from exc
    if matrix.dtype != np.float32 or matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] \
            or not np.all(np.isfinite(matrix)):
        raise AdapterIntegrityError(f"Adapter file {path} holds a {matrix.dtype} array of shape {matrix.shape}; "
                                    f"expected a finite float32 square matrix ({EMBEDDING_DIM} x {EMBEDDING_DIM}).")
    return matrix, digest


class AdaptedEmbedder(Embedder):
    """An :class:`~ddrsearch.embedding.encoder.Embedder` whose vectors go through the linear adapter.

    Vector of a text = ``normalize(W @ v)`` with ``v`` the unadapted unit
    vector. The unadapted vectors come from an inner :class:`Embedder` (cached
    under the model's own key); the adapted ones are cached under
    ``<model key>+adapter-<first 16 hex of the adapter's SHA-256>_len256``, so
    vectors of different adapters, or with and without one, never mix.
    Encoding a query costs one extra 384 x 384 product.

    Args:
        adapter: ``None`` = the packaged adapter (hash-checked against
            :data:`ADAPTER_SHA256`); a path to an ``.npy`` file (hash recorded,
            not checked); or a float32 square matrix (hash of its bytes).
        model_path, cache_dir, batch_size: as for :class:`Embedder`.

    Attributes:
        adapter: the matrix ``W``; adapter_sha256: its hash.

    Raises:
        AdapterIntegrityError: see :func:`load_adapter`; also when the packaged
            adapter is combined with a model other than the official weights it
            was trained on, or the matrix does not match the model's dimension.
    """

    def __init__(self, adapter: str | os.PathLike | np.ndarray | None = None, model_path=None, cache_dir=None,
                 batch_size: int = 32) -> None:
        super().__init__(model_path=model_path, cache_dir=cache_dir, batch_size=batch_size)
        if isinstance(adapter, np.ndarray):
            matrix = np.ascontiguousarray(adapter, dtype=np.float32)
            digest = hashlib.sha256(matrix.tobytes()).hexdigest()
        else:
            matrix, digest = load_adapter(adapter)
        if adapter is None and self.source.sha256 not in (None, OFFICIAL_SHA256):
            raise AdapterIntegrityError(
                f"The packaged adapter was trained on the official {OFFICIAL_SHA256[:12]}... weights, but the model "
                f"at {self.source.location} has SHA-256 {self.source.sha256}; use the official model or train an "
                f"adapter for this one (python -m ddrsearch.retrieval.adaptation).")
        if self._dim is not None and matrix.shape != (self._dim, self._dim):
            raise AdapterIntegrityError(f"Adapter of shape {matrix.shape} does not fit {self._dim}-d vectors.")
        self.adapter, self.adapter_sha256 = matrix, digest
        self.base = Embedder(model_path=model_path, cache_dir=cache_dir, batch_size=batch_size)

    def __repr__(self) -> str:
        return super().__repr__().replace("Embedder(", f"AdaptedEmbedder(adapter={self.adapter_sha256[:16]}, ", 1)

    @property
    def model_dir(self) -> Path | None:
        """Cache subfolder of the adapted vectors (model key + adapter hash)."""
        if self.cache_dir is None:
            return None
        return self.cache_dir / f"{self.source.key}+adapter-{self.adapter_sha256[:16]}_len{MAX_SEQ_LENGTH}"

    def _embed(self, texts: list[str]) -> np.ndarray:
        out = self.base.encode(texts) @ self.adapter.T
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12)
        return out.astype(np.float32, copy=False)


def train_from_reports(reports, config: TrainingConfig = TrainingConfig(), *, embedder: Embedder | None = None,
                       glossary: Glossary | None = None) -> tuple[np.ndarray, dict]:
    """The whole recipe: chunk the reports, build the pairs, train the adapter.

    Args:
        reports: parsed reports (:func:`ddrsearch.reading.report.load_archive`); the
            packaged adapter was trained on all 76 FORGE reports.
        config: hyper-parameters (defaults = the packaged adapter).
        embedder: the unadapted embedder; default ``Embedder()`` with the disk cache.
        glossary: default :func:`ddrsearch.text.glossary.default_glossary`.

    Returns:
        ``(W, info)``: the matrix and a dict with ``chunks``, ``pairs``,
        ``shorthand_pairs``, ``query_pairs`` and ``seconds`` (wall time of
        embedding + training).
    """
    from ddrsearch.retrieval.chunking import chunk_reports

    start = time.perf_counter()
    passages = chunk_reports(reports)
    pairs = training_pairs(passages, glossary, queries_per_passage=config.queries_per_passage, seed=config.seed)
    matrix = train_adapter(pairs, embedder if embedder is not None else Embedder(), config)
    info = {"chunks": len(passages), "pairs": len(pairs),
            "shorthand_pairs": sum(p.kind == "shorthand" for p in pairs),
            "query_pairs": sum(p.kind == "query" for p in pairs),
            "seconds": round(time.perf_counter() - start, 1)}
    return matrix, info


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m ddrsearch.retrieval.adaptation --out FILE``: retrain the adapter on the archive and save it."""
    from ddrsearch.reading.report import load_archive

    parser = argparse.ArgumentParser(prog="python -m ddrsearch.retrieval.adaptation", description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="where to write the adapter (.npy)")
    parser.add_argument("--archive", default=None, help="folder of report PDFs (default: the archive folder)")
    parser.add_argument("--no-cache", action="store_true", help="embed without the disk cache (time it cold)")
    parser.add_argument("--epochs", type=int, default=TrainingConfig.epochs)
    parser.add_argument("--seed", type=int, default=TrainingConfig.seed)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    reports = load_archive(args.archive or archive_dir())
    embedder = Embedder(cache_dir=False) if args.no_cache else Embedder()
    config = TrainingConfig(epochs=args.epochs, seed=args.seed)
    matrix, info = train_from_reports(reports, config, embedder=embedder)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.save(out, matrix, allow_pickle=False)
    digest = sha256_file(out)
    print(f"reports {len(reports)}, chunks {info['chunks']}, pairs {info['pairs']} "
          f"({info['shorthand_pairs']} shorthand, {info['query_pairs']} pseudo-queries)")
    print(f"trained in {info['seconds']} s (total with reading the PDFs {time.perf_counter() - start:.1f} s)")
    print(f"wrote {out}  sha256 {digest}")
    print("matches the packaged adapter" if digest == ADAPTER_SHA256 else
          f"differs from the packaged adapter ({ADAPTER_SHA256[:16]}...)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""The embedding adapter: its unlabeled training pairs, the pinned file, determinism, and the plug-in embedder."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.embedding.model import EMBEDDING_DIM
from ddrsearch.errors import AdapterIntegrityError, DDRSearchError
from ddrsearch.hashing import sha256_file
from ddrsearch.retrieval.adaptation import (
    ADAPTER_SHA256,
    AdaptedEmbedder,
    TrainingConfig,
    adapter_path,
    contract,
    expand,
    load_adapter,
    train_adapter,
    training_pairs,
)
from ddrsearch.retrieval.chunking import operation_chunks
from ddrsearch.text.glossary import default_glossary


@pytest.fixture(autouse=True)
def _no_env_overrides(monkeypatch):
    monkeypatch.delenv("DDRSEARCH_MODEL_PATH", raising=False)
    monkeypatch.delenv("DDRSEARCH_CACHE_DIR", raising=False)


# --------------------------------------------------------------------------- shorthand variants

def test_contract_writes_the_glossary_shorthand():
    g = default_glossary()
    assert contract("Trip out of hole with bottom hole assembly #20", g) == "TOOH with BHA #20"
    # the longer expansion wins over the shorter one inside it
    assert contract("lay out heavy-weight drill pipe", g).endswith("HWDP")


def test_expand_writes_out_capitals_only():
    g = default_glossary()
    assert expand("PU DP, TIH with BHA", g) == "pick up drill pipe, trip in hole with bottom hole assembly"
    assert expand("so we went in", g) == "so we went in"  # English words that are also abbreviations stay


@pytest.mark.data
def test_training_pairs_from_report_38(report38):
    chunks = operation_chunks(report38)
    pairs = training_pairs(chunks, seed=0)
    assert pairs == training_pairs(chunks, seed=0)
    assert pairs != training_pairs(chunks, seed=1)
    kinds = {p.kind for p in pairs}
    assert kinds == {"shorthand", "query"}
    by_text = {c.indexed_text: c for c in chunks}
    g = default_glossary()

    def words(text):
        return set(re.findall(r"[a-z]+", expand(text, g).lower()))

    for p in pairs:
        if p.kind == "query":  # a run of the row's own words, in shorthand or written out
            row = by_text[p.positive].text
            assert words(p.anchor) <= words(row) | set(re.findall(r"[a-z]+", row.lower())), p
        else:
            assert p.anchor != p.positive and words(p.anchor) == words(p.positive), p
    # every distinct row text is its own group, so two rows never serve as each other's positives
    assert len({p.group for p in pairs}) <= len({" ".join(c.text.split()).lower() for c in chunks})


def test_training_pairs_refuse_nothing():
    with pytest.raises(ValueError, match="at least one passage"):
        training_pairs([])


# --------------------------------------------------------------------------- the pinned file

def test_packaged_adapter_hash_is_pinned():
    path = adapter_path()
    assert sha256_file(path) == ADAPTER_SHA256
    matrix, digest = load_adapter()
    assert digest == ADAPTER_SHA256
    assert matrix.dtype == np.float32 and matrix.shape == (EMBEDDING_DIM, EMBEDDING_DIM)
    assert path.stat().st_size < 1_000_000
    # it is trained, not the identity
    assert not np.allclose(matrix, np.eye(EMBEDDING_DIM), atol=1e-3)


def test_tampered_adapter_is_refused(tmp_path):
    data = bytearray(adapter_path().read_bytes())
    data[-7] ^= 0x01
    bad = tmp_path / "adapter.npy"
    bad.write_bytes(bytes(data))
    with pytest.raises(AdapterIntegrityError, match=ADAPTER_SHA256) as info:
        load_adapter(bad, sha256=ADAPTER_SHA256)
    assert str(bad) in str(info.value) and isinstance(info.value, DDRSearchError)


def test_adapter_that_is_not_a_matrix_is_refused(tmp_path):
    bad = tmp_path / "vector.npy"
    np.save(bad, np.ones(3, dtype=np.float32))
    with pytest.raises(AdapterIntegrityError, match="square matrix"):
        load_adapter(bad)
    with pytest.raises(AdapterIntegrityError, match="does not exist"):
        load_adapter(tmp_path / "missing.npy")


# --------------------------------------------------------------------------- training and embedding

@pytest.mark.model
@pytest.mark.data
def test_tiny_retraining_is_deterministic(by_name):
    reports = [by_name[n] for n in sorted(by_name)[30:32]]
    chunks = [c for r in reports for c in operation_chunks(r)]
    config = TrainingConfig(epochs=2, batch_size=16, identity_weight=0.0)
    pairs = training_pairs(chunks, queries_per_passage=1, seed=config.seed)
    first = train_adapter(pairs, Embedder(cache_dir=False), config)
    second = train_adapter(pairs, Embedder(cache_dir=False), config)
    assert first.tobytes() == second.tobytes()
    assert not np.allclose(first, np.eye(first.shape[0]))
    other = train_adapter(pairs, Embedder(cache_dir=False), TrainingConfig(epochs=2, batch_size=16, seed=1))
    assert not np.array_equal(first, other)


@pytest.mark.model
def test_adapted_vectors_and_their_cache(tmp_path):
    texts = ["POOH with BHA #20", "Pull out of hole with bottom hole assembly", "Cut and slip drilling line"]
    base = Embedder(cache_dir=tmp_path)
    adapted = AdaptedEmbedder(cache_dir=tmp_path)
    vectors = adapted.encode(texts)
    expected = base.encode(texts) @ adapted.adapter.T
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(adapted.encode_uncached(texts), vectors, atol=1e-6)
    # adapted vectors live under their own key, which names the adapter
    assert adapted.model_dir != base.model_dir and ADAPTER_SHA256[:16] in adapted.model_dir.name
    assert adapted.cache_path(texts[0]).is_file() and base.cache_path(texts[0]).is_file()
    assert not np.allclose(np.load(adapted.cache_path(texts[0])), np.load(base.cache_path(texts[0])))
    # a different adapter (the identity) gives the plain vectors, in yet another folder
    identity = AdaptedEmbedder(adapter=np.eye(EMBEDDING_DIM, dtype=np.float32), cache_dir=tmp_path)
    assert identity.model_dir not in (adapted.model_dir, base.model_dir)
    np.testing.assert_allclose(identity.encode(texts), base.encode(texts), atol=1e-6)


@pytest.mark.model
def test_dense_retriever_takes_the_adapter():
    from ddrsearch.retrieval.dense import DenseRetriever

    assert isinstance(DenseRetriever(adapter=True, cache_dir=False).embedder, AdaptedEmbedder)
    assert type(DenseRetriever(cache_dir=False).embedder) is Embedder


def test_lexicon_pairs_are_the_lexicons_own_words_toward_the_printed_term():
    from ddrsearch.retrieval.adaptation import lexicon_pairs
    from ddrsearch.text.lexicon import default_lexicon

    lexicon = default_lexicon()
    pairs = lexicon_pairs(lexicon, group_start=10)
    texts = {t for e in lexicon for t in e.texts}
    assert pairs and {p.anchor for p in pairs} <= texts  # never a question of any set
    assert {p.positive for p in pairs} <= {e.printed for e in lexicon} and {p.kind for p in pairs} == {"lexicon"}
    group = {}
    for p in pairs:
        assert group.setdefault(p.positive.lower(), p.group) == p.group  # one group per printed term
    assert min(group.values()) == 10
    pooh = [p for p in pairs if p.anchor.startswith("Pull out of hole")]
    assert pooh and all(p.positive == "trip out of hole" for p in pooh)

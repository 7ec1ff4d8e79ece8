"""ddrsearch.embedding.encoder: the embedding cache, duplicates, word pieces and the token budget."""

from __future__ import annotations

import os

# Never touch the network: must be set before sentence_transformers / transformers are imported.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
import hashlib
import re
import warnings
from pathlib import Path

import numpy as np
import pytest

from ddrsearch import hashing as _util
from ddrsearch.embedding import encoder as emb
from ddrsearch.embedding.encoder import (
    Embedder,
    count_word_pieces,
    default_cache_dir,
    truncation_report,
)
from ddrsearch.embedding.model import (
    EMBEDDING_DIM,
    MAX_SEQ_LENGTH,
    OFFICIAL_SHA256,
    check_packaged_model,
    packaged_model_dir,
    resolve_model,
)
from ddrsearch.errors import (
    CacheWarning,
    ModelNotFoundError,
)

pytestmark = pytest.mark.model


# Lines in the style of the Utah FORGE 16A(78)-32 daily drilling reports.
DDR_LINES = [
    "During the slide lost tool face and became assembly became stuck",  # report 38
    "Work pipe, circulate lube sweep, work tool back in position Pipe free",
    "Drill 8.75in hole from 5,230 ft to 5,412 ft, WOB 25-30 klbs, 60 RPM, 550 gpm",
    "Trip out of hole for bit change, hole taking proper fill",
    "Pump high-vis sweep, circulate bottoms up, flow check well static",
    "Rig service, grease top drive and crown, function test BOP",
    "Lost circulation at 6,102 ft, pumped LCM pill, regained returns",
    "Run casing 9-5/8in 47# L-80 to 7,500 ft, circulate and condition mud",
    "Survey at 5,600 ft: inclination 12.4 deg, azimuth 105 deg",
    "Wait on cement, nipple up wellhead and test to 3,000 psi",
]


# A long morning-report narrative: well over 254 word pieces.
LONG_TEXT = " ".join(DDR_LINES * 4)


def test_hash_is_cached_per_file(monkeypatch):
    weights = packaged_model_dir() / "model.safetensors"
    for key in [k for k in _util._HASH_MEMO if k[0] == str(weights.resolve())]:
        del _util._HASH_MEMO[key]
    calls = []
    real = _util.hashlib.sha256
    monkeypatch.setattr(_util.hashlib, "sha256", lambda *a: calls.append(a) or real(*a))
    for _ in range(3):
        assert check_packaged_model(weights.parent).sha256 == OFFICIAL_SHA256
    assert len(calls) == 1


def test_missing_explicit_path_raises_with_path(tmp_path, monkeypatch):
    missing = tmp_path / "no-such-model"
    with pytest.raises(ModelNotFoundError, match=re.escape(str(missing))) as info:
        resolve_model(missing)
    assert "DDRSEARCH_MODEL_PATH" in str(info.value)
    monkeypatch.setenv("DDRSEARCH_MODEL_PATH", str(missing))
    with pytest.raises(ModelNotFoundError, match=re.escape(str(missing))):
        resolve_model()
    with pytest.raises(ModelNotFoundError, match=re.escape(str(missing))):
        Embedder(cache_dir=False)


def test_cache_hits_and_misses(model, tmp_path):
    cold = Embedder(cache_dir=tmp_path)
    a = cold.encode(DDR_LINES)
    assert (cold.hits, cold.misses) == (0, len(DDR_LINES))

    warm = Embedder(cache_dir=tmp_path)
    b = warm.encode(DDR_LINES)
    assert (warm.hits, warm.misses) == (len(DDR_LINES), 0)
    assert np.array_equal(a, b)
    assert warm._model is None  # fully cached run never needed the model

    changed = list(DDR_LINES)
    changed[3] = changed[3] + " "  # any change to the exact text is a new key
    warm.reset_counters()
    c = warm.encode(changed)
    assert (warm.hits, warm.misses) == (len(DDR_LINES) - 1, 1)
    np.testing.assert_array_equal(np.delete(c, 3, axis=0), np.delete(a, 3, axis=0))


def test_duplicates_within_a_call_are_embedded_once(plain):
    plain.reset_counters()
    out = plain.encode([DDR_LINES[0], DDR_LINES[1], DDR_LINES[0]])
    assert (plain.misses, plain.hits) == (2, 1)
    assert np.array_equal(out[0], out[2])


@pytest.mark.parametrize("damage", ["truncated", "float64", "wrong_shape", "pickled", "garbage"])
def test_corrupt_cache_entry_is_a_miss_with_warning(model, tmp_path, damage):
    texts = DDR_LINES[:3]
    good = Embedder(cache_dir=tmp_path).encode(texts)
    emb_ = Embedder(cache_dir=tmp_path)
    path = emb_.cache_path(texts[1])
    assert path.is_file()
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:100])
    elif damage == "float64":
        np.save(path, good[1].astype(np.float64))
    elif damage == "wrong_shape":
        np.save(path, good[1][:100])
    elif damage == "pickled":
        np.save(path, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    else:
        path.write_bytes(b"not a numpy file at all")

    with pytest.warns(CacheWarning, match=re.escape(str(path))):
        again = emb_.encode(texts)
    assert (emb_.hits, emb_.misses) == (2, 1)
    np.testing.assert_allclose(again, good, atol=1e-5)
    # the entry was overwritten with a good vector
    fixed = np.load(path, allow_pickle=False)
    assert fixed.dtype == np.float32 and fixed.shape == (EMBEDDING_DIM,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        emb_.encode(texts)


def test_cache_holds_only_plain_npy(model, tmp_path):
    e = Embedder(cache_dir=tmp_path)
    e.encode(DDR_LINES)
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert len(files) == len(DDR_LINES)
    for p in files:
        assert p.suffix == ".npy"
        arr = np.load(p, allow_pickle=False)
        assert arr.dtype == np.float32 and arr.shape == (EMBEDDING_DIM,)
    # keyed by the model identity (weights hash) and the text hash
    text_hash = hashlib.sha256(DDR_LINES[0].encode("utf-8")).hexdigest()
    assert e.cache_path(DDR_LINES[0]).name == f"{text_hash}.npy"
    assert OFFICIAL_SHA256 in e.cache_path(DDR_LINES[0]).parent.parent.name


def test_default_cache_dir(monkeypatch, tmp_path):
    root = Path(emb.__file__).resolve().parents[3]  # code/ddrsearch/embedding/encoder.py
    assert (root / "pyproject.toml").is_file()
    assert default_cache_dir() == root / ".cache" / "embeddings"
    monkeypatch.setenv("DDRSEARCH_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    assert Embedder(cache_dir=None).cache_dir == tmp_path / "c"
    assert Embedder(cache_dir=False).cache_path("x") is None


def test_count_word_pieces_matches_tokenizer(model, plain):
    texts = DDR_LINES + [LONG_TEXT, ""]
    counts = plain.count_word_pieces(texts)
    direct = [len(model.tokenizer.tokenize(t)) for t in texts]
    ids = [len(model.tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]) for t in texts]
    assert counts == direct == ids
    assert counts[-1] == 0
    assert count_word_pieces(texts[:2]) == counts[:2]


def test_truncation_report(plain):
    import pandas as pd

    report = plain.truncation_report([DDR_LINES[0], LONG_TEXT, ""])
    assert list(report.columns) == ["word_pieces", "seen", "cut_off", "share_cut_off"]
    n = len(plain.model.tokenizer.tokenize(LONG_TEXT))
    assert n > MAX_SEQ_LENGTH
    short, long_, empty = report.to_dict("records")
    assert short["cut_off"] == 0 and short["share_cut_off"] == 0.0
    assert short["seen"] == short["word_pieces"] == 11
    assert long_["word_pieces"] == n and long_["seen"] == 254
    assert long_["cut_off"] == n - 254
    assert long_["share_cut_off"] == pytest.approx((n - 254) / n)
    assert empty == {"word_pieces": 0, "seen": 0, "cut_off": 0, "share_cut_off": 0.0}
    series = pd.Series([DDR_LINES[2]], index=["r38-l4"])
    assert list(truncation_report(series).index) == ["r38-l4"]


def test_a_cache_that_cannot_be_written_is_a_warning_not_a_failure(tmp_path):
    from ddrsearch.embedding.encoder import Embedder
    from ddrsearch.errors import CacheWarning

    not_a_folder = tmp_path / "cache"
    not_a_folder.write_text("I am a file")
    emb = Embedder(cache_dir=not_a_folder)
    with pytest.warns(CacheWarning, match="cannot be written"):
        vecs = emb.encode(["Work pipe, circulate lube sweep, work tool back in position Pipe free"])
    assert vecs.shape == (1, 384) and emb.misses == 1


def test_embedding_progress_shows_the_models_batches_on_stderr_and_changes_no_vector(model, tmp_path, capsys,
                                                                                        monkeypatch):
    """``ddrsearch index build`` ran two minutes in a new clone without a word; inside embedding_progress the
    texts the model embeds are counted and its batches shown on stderr (stdout untouched), with the same
    vectors; cached texts and the block's end show nothing."""
    from ddrsearch.embedding.encoder import embedding_progress

    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    quiet = Embedder(cache_dir=False).encode(DDR_LINES)
    assert capsys.readouterr().err == ""
    shown = Embedder(cache_dir=tmp_path)
    with embedding_progress():
        vecs = shown.encode(DDR_LINES)
    out, err = capsys.readouterr()
    assert np.array_equal(vecs, quiet)
    assert out == ""
    assert f"Embedding {len(DDR_LINES)} text(s) not in the embedding cache yet:" in err and "Batches" in err
    with embedding_progress():
        shown.encode(DDR_LINES)  # all in the cache now: nothing to show
    shown.encode(["Pick up BHA"])  # outside the block: silent
    assert capsys.readouterr() == ("", "")

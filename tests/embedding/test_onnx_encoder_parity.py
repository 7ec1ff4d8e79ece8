"""ddrsearch.embedding.onnx_encoder and Embedder.encode_query: questions embedded without PyTorch.

Issue 25: a search from a new process spent 12 s importing PyTorch to embed one
question. The question is now embedded with onnxruntime from a one-time ONNX
export of the same model; these tests pin that the vectors are the
sentence-transformers ones, that a stale export is not used, and that a question
with a current export does not import PyTorch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.embedding.model import load_model, resolve_model
from ddrsearch.embedding.onnx_encoder import (
    MANIFEST,
    MAX_QUERY_CHARS,
    OnnxQueryEncoder,
    export_dir,
    installed_versions,
    open_export,
)
from ddrsearch.errors import QueryError, SettingError
from ddrsearch.evaluation.questionfiles import load_questions

SHIPPED_SETS = ("starter", "archive", "fresh", "fresh2")


@pytest.fixture(autouse=True)
def _plain_settings(monkeypatch):
    """Tests must not depend on the caller's DDRSEARCH_* settings."""
    for name in ("DDRSEARCH_MODEL_PATH", "DDRSEARCH_CACHE_DIR", "DDRSEARCH_QUERY_ENCODER"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture(scope="module")
def model():
    """The packaged model, loaded once for the module (the reference vectors and the export)."""
    return load_model()


@pytest.fixture(scope="module")
def exported(model, tmp_path_factory):
    """An embedding cache folder holding a fresh export of the packaged model."""
    cache = tmp_path_factory.mktemp("onnx-cache")
    emb = Embedder(cache_dir=cache)
    assert emb.query_encoder() is not None
    return cache


def test_onnx_question_vectors_equal_sentence_transformers_on_every_shipped_question(model, exported):
    """Every question of the four shipped sets gets, through encode_query, the vector sentence-transformers
    gives it (batch of one, as the old encode_query) within 1e-5 cosine distance: the search ranks as before."""
    questions = [q.question for name in SHIPPED_SETS for q in load_questions(name)]
    assert len(questions) >= 200
    reference = Embedder(cache_dir=False)
    onnx = Embedder(cache_dir=exported)
    worst = 0.0
    for text in questions:
        want = reference.encode_uncached([text])[0]
        got = onnx.encode_query(text)
        assert got.dtype == np.float32 and got.shape == (384,)
        assert abs(float(np.linalg.norm(got)) - 1.0) < 1e-5
        worst = max(worst, 1.0 - float(want @ got))
    assert worst <= 1e-5, f"largest cosine distance {worst:.2e}"


def test_onnx_reads_the_same_256_word_pieces_as_sentence_transformers(model, exported):
    """A text longer than the model's 256 word pieces is cut where sentence-transformers cuts it (not at the
    128 the model's tokenizer.json carries), and empty or accented texts pool the same way."""
    texts = ["casing " * 400, "", "Ünïcödé  stuck\tpipe\n", "x"]
    want = Embedder(cache_dir=False).encode_uncached(texts)
    encoder = open_export(exported, resolve_model())
    assert encoder is not None
    got = encoder.encode(texts)
    assert np.max(1.0 - np.sum(want * got, axis=1)) <= 1e-5


def test_a_stale_export_is_not_used(exported):
    """An export whose export.json names another model SHA-256, other exporting versions or a file of
    another size is stale: open_export returns None (and encode_query would export again)."""
    source = resolve_model()
    folder = export_dir(exported, source)
    original = (folder / MANIFEST).read_text(encoding="utf-8")
    assert open_export(exported, source) is not None
    changes = [
        lambda m: m.update(model_sha256="0" * 64),
        lambda m: m["versions"].update(torch="0.0.1"),
        lambda m: m["files"]["model.onnx"].update(bytes=1),
        lambda m: m.update(max_seq_length=128),
    ]
    try:
        for change in changes:
            manifest = json.loads(original)
            change(manifest)
            (folder / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
            assert open_export(exported, source) is None
        (folder / MANIFEST).write_text("{not json", encoding="utf-8")
        assert open_export(exported, source) is None
    finally:
        (folder / MANIFEST).write_text(original, encoding="utf-8")
    assert json.loads(original)["versions"] == installed_versions()


def test_a_question_with_a_current_export_does_not_import_torch(exported):
    """With a current export, a new process embeds a question without importing torch, transformers or
    sentence_transformers (the 12 s of issue 25), and gets a unit vector."""
    code = (
        "import sys\n"
        "from ddrsearch.embedding.encoder import Embedder\n"
        f"vec = Embedder(cache_dir={str(exported)!r}).encode_query('stuck pipe')\n"
        "heavy = sorted(m for m in ('torch', 'transformers', 'sentence_transformers') if m in sys.modules)\n"
        "print(heavy, round(float((vec * vec).sum()), 4))\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("DDRSEARCH_")}
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[2] / "code")
    env["HF_HUB_OFFLINE"] = "1"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[] 1.0"


def test_the_setting_chooses_the_encoder_and_a_bad_value_is_named(exported, monkeypatch):
    """DDRSEARCH_QUERY_ENCODER=torch keeps questions on sentence-transformers; another value is a SettingError
    naming the variable; an embedder without a disk cache, or a subclass with its own vectors, has no ONNX path."""
    monkeypatch.setenv("DDRSEARCH_QUERY_ENCODER", "torch")
    assert Embedder(cache_dir=exported).query_encoder() is None
    monkeypatch.setenv("DDRSEARCH_QUERY_ENCODER", "tensorflow")
    with pytest.raises(SettingError, match="DDRSEARCH_QUERY_ENCODER"):
        Embedder(cache_dir=exported).encode_query("stuck pipe")
    monkeypatch.delenv("DDRSEARCH_QUERY_ENCODER")
    assert Embedder(cache_dir=False).query_encoder() is None

    class Doubled(Embedder):
        def _embed(self, texts):
            return super()._embed(texts) * 2

    assert Doubled(cache_dir=exported).query_encoder() is None
    assert isinstance(Embedder(cache_dir=exported).query_encoder(), OnnxQueryEncoder)


def test_an_overlong_question_is_refused_with_its_limit(exported):
    """A question longer than MAX_QUERY_CHARS characters is a QueryError that says the limit, not minutes
    of tokenising; a non-string is a TypeError."""
    emb = Embedder(cache_dir=exported)
    with pytest.raises(QueryError, match=f"{MAX_QUERY_CHARS:,}"):
        emb.encode_query("a" * (MAX_QUERY_CHARS + 1))
    with pytest.raises(TypeError):
        emb.encode_query(b"stuck pipe")

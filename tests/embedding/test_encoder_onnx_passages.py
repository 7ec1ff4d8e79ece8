"""ddrsearch.embedding.encoder.OnnxPassageEmbedder: passages embedded without PyTorch, as sentence-transformers does.

``index add`` embeds a day's few passages; importing PyTorch for them cost more than the rest of the add.
These tests pin that the ONNX export gives every archive passage the sentence-transformers vector (1e-5
cosine), that a passage longer than the model reads is cut where sentence-transformers cuts it, that its
vectors are cached apart from the model's, and that ``DDRSEARCH_QUERY_ENCODER=torch`` keeps the model.
"""

from __future__ import annotations

import numpy as np
import pytest

from ddrsearch.embedding.encoder import Embedder, OnnxPassageEmbedder, passage_embedder
from ddrsearch.embedding.onnx_encoder import PARITY_TOLERANCE

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def onnx_encoder():
    """The model's current ONNX export in the default cache (exported once if missing)."""
    encoder = Embedder().query_encoder()
    assert encoder is not None
    return encoder


@pytest.fixture(scope="module")
def passages(archive):
    from ddrsearch.retrieval.chunking import chunk_reports

    return [p.indexed_text for p in chunk_reports(archive, "operation")]


@pytest.mark.data
def test_every_archive_passage_gets_the_sentence_transformers_vector(passages, onnx_encoder, tmp_path):
    """All 771 operation-row passages of the archive: the ONNX vector within PARITY_TOLERANCE cosine of the model's."""
    reference = Embedder().encode(passages)  # the model's cache holds only vectors sentence-transformers made
    emb = OnnxPassageEmbedder(onnx_encoder, cache_dir=tmp_path)
    got = emb.encode(passages)
    assert emb.made_by == "onnxruntime" and emb.misses == len(set(passages))
    distance = 1.0 - np.sum(reference * got, axis=1)
    assert len(passages) > 700 and float(distance.max()) <= PARITY_TOLERANCE


@pytest.mark.data
def test_a_passage_past_256_word_pieces_is_cut_as_sentence_transformers_cuts_it(passages, onnx_encoder, tmp_path):
    """Rows joined to 300 to 900 word pieces, embedded in one padded batch by the model: same vectors."""
    long = [" ".join(passages[i:i + n]) for i, n in ((0, 12), (100, 25), (400, 40))]
    model = Embedder(cache_dir=False)
    pieces = model.count_word_pieces(long)
    assert min(pieces) > 300
    reference = model.encode(long + passages[:5])  # one batch: the long ones padded beside short ones
    got = OnnxPassageEmbedder(onnx_encoder, cache_dir=tmp_path).encode(long + passages[:5])
    assert float((1.0 - np.sum(reference * got, axis=1)).max()) <= PARITY_TOLERANCE


def test_onnx_vectors_are_cached_apart_from_the_model_s(onnx_encoder, tmp_path):
    """The ONNX vectors go to <key>_len256_onnx, never into the model's own cache folder; a second call reads them."""
    emb = OnnxPassageEmbedder(onnx_encoder, cache_dir=tmp_path)
    plain = Embedder(cache_dir=tmp_path)
    assert emb.model_dir == plain.model_dir.with_name(plain.model_dir.name + "_onnx")
    first = emb.encode(["Trip out of hole with BHA #20."])
    assert emb.cache_path("Trip out of hole with BHA #20.").is_file()
    assert not plain.cache_path("Trip out of hole with BHA #20.").exists()
    again = OnnxPassageEmbedder(onnx_encoder, cache_dir=tmp_path)
    assert np.array_equal(again.encode(["Trip out of hole with BHA #20."]), first) and again.hits == 1
    assert again.made_by is None  # nothing was run


def test_the_passage_embedder_is_the_onnx_one_unless_torch_is_asked_for(onnx_encoder, monkeypatch):
    """With a current export (the default cache) passage_embedder() runs ONNX; without a cache, or with
    DDRSEARCH_QUERY_ENCODER=torch, the model."""
    monkeypatch.delenv("DDRSEARCH_QUERY_ENCODER", raising=False)
    assert isinstance(passage_embedder(), OnnxPassageEmbedder)
    assert type(passage_embedder(cache_dir=False)) is Embedder  # no cache, no export
    monkeypatch.setenv("DDRSEARCH_QUERY_ENCODER", "torch")
    assert type(passage_embedder()) is Embedder

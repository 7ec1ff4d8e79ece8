"""The lexicon-vector cache file is not trusted: checked against its hash, dtype and shape (issue 26, retrieval.lexicon_match)."""

from __future__ import annotations

import hashlib
import io
import warnings
from types import SimpleNamespace

import numpy as np
import pytest

from ddrsearch.errors import CacheWarning
from ddrsearch.retrieval.lexicon_match import LexiconMatcher

DIM = 8


class FakeEmbedder:
    """Deterministic unit vectors of DIM dimensions; counts the texts it embeds."""

    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
        self.source = SimpleNamespace(key="fake-model@1")
        self.dim = DIM
        self.embedded = 0

    def encode(self, texts):
        self.embedded += len(texts)
        rows = [np.random.default_rng(int(hashlib.sha256(t.encode()).hexdigest()[:8], 16)).normal(size=DIM)
                for t in texts]
        m = np.asarray(rows, dtype=np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)


def _rewrite(path, matrix) -> None:
    """Replace the cache file by ``matrix``, with a matching hash beside it (a consistent but wrong file)."""
    buf = io.BytesIO()
    np.save(buf, matrix, allow_pickle=False)
    path.write_bytes(buf.getvalue())
    path.with_name(path.name + ".sha256").write_text(hashlib.sha256(buf.getvalue()).hexdigest())


def _forged_header(path, rows: int) -> None:
    """A .npy of a few bytes whose header claims ``rows`` rows (np.load would allocate them), hash beside it."""
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": "<f4", "fortran_order": False, "shape": (rows, DIM)})
    path.write_bytes(buf.getvalue())
    path.with_name(path.name + ".sha256").write_text(hashlib.sha256(buf.getvalue()).hexdigest())


@pytest.fixture()
def built(tmp_path):
    first = LexiconMatcher(FakeEmbedder(tmp_path))
    (path,) = tmp_path.glob("lexicon-*.npy")
    return first, path


def test_the_cache_is_named_by_the_sha256_of_model_and_texts_and_reused_when_whole(built, tmp_path):
    first, path = built
    assert len(path.stem.removeprefix("lexicon-")) == 64
    again = FakeEmbedder(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        second = LexiconMatcher(again)
    assert again.embedded == 0 and np.array_equal(second.matrix, first.matrix)


@pytest.mark.parametrize("spoil, says", [
    (lambda p, m: _rewrite(p, m[:, :3].copy()), "expected float32"),
    (lambda p, m: _rewrite(p, m.astype(np.float64)), "float64"),
    (lambda p, m: _rewrite(p, np.full_like(m, np.nan)), "not finite unit vectors"),
    (lambda p, m: _rewrite(p, 3 * m), "not finite unit vectors"),
    (lambda p, m: p.write_bytes(p.read_bytes()[:-8] + b"\x00" * 8), "do not have the SHA-256"),
    (lambda p, m: p.with_name(p.name + ".sha256").unlink(), "without its hash"),
    (lambda p, m: _forged_header(p, 10**10), "its header says float32 (10000000000,"),  # before: MemoryError
])
def test_a_cache_file_that_is_not_what_it_claims_is_rebuilt_with_a_one_line_note(built, tmp_path, spoil, says):
    """Before: any .npy with the right number of rows was used as the lexicon's vectors (wrong width, dtype,
    NaN or another model's vectors). After: a file failing its hash, dtype, shape or unit-norm check is
    recomputed and rewritten, with one CacheWarning line naming it."""
    first, path = built
    spoil(path, first.matrix)
    again = FakeEmbedder(tmp_path)
    with pytest.warns(CacheWarning) as caught:
        rebuilt = LexiconMatcher(again)
    (note,) = [str(w.message) for w in caught]
    assert note.startswith(f"lexicon vectors {path}: ") and says in note and "computed again and rewritten" in note
    assert "\n" not in note
    assert again.embedded == len(first.matrix) and np.array_equal(rebuilt.matrix, first.matrix)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        LexiconMatcher(FakeEmbedder(tmp_path))  # the rewritten file is whole again

"""ddrsearch.retrieval.chunking.WordPieces: the model's word pieces from its tokenizer.json, without transformers.

The chunker counted and cut text with transformers' AutoTokenizer, which imports PyTorch (seconds, for
``index add`` of one report). It now reads the model's ``tokenizer.json`` with the ``tokenizers`` library:
these tests pin that it is the same tokenizer and gives the same counts and cuts on the archive's text.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from ddrsearch.embedding.model import resolve_model
from ddrsearch.retrieval.chunking import WordPieces


def test_the_tokenizer_is_the_one_transformers_wraps_around_the_same_file():
    """Normaliser, pre-tokenizer, vocabulary, special tokens: all equal; only truncation and padding, set per call
    by transformers, are left off."""
    transformers = pytest.importorskip("transformers")
    location = resolve_model(None).location
    theirs = json.loads(transformers.AutoTokenizer.from_pretrained(location).backend_tokenizer.to_str())
    ours = json.loads(WordPieces()._fast.to_str())
    assert ours.pop("truncation") is None and ours.pop("padding") is None
    assert ours == {k: v for k, v in theirs.items() if k not in ("truncation", "padding")}


@pytest.mark.data
def test_counts_and_cuts_equal_transformers_on_the_archive(archive):
    """Every report's text: the same number of word pieces and the same cuts as through AutoTokenizer."""
    transformers = pytest.importorskip("transformers")
    ours = WordPieces()
    theirs = WordPieces()
    theirs._fast, theirs.tokenizer = None, transformers.AutoTokenizer.from_pretrained(ours.source.location)
    texts = [r.text for r in archive]
    assert ours.count_many(texts) == theirs.count_many(texts)
    for text in texts[::5]:
        assert ours.split(text, 100, 20) == theirs.split(text, 100, 20)
        assert ours.count(text) == theirs.count(text)


def test_counting_word_pieces_imports_neither_transformers_nor_torch():
    code = ("import sys; from ddrsearch.retrieval.chunking import word_pieces; "
            "assert word_pieces().count('Trip out of hole with BHA #20.') > 0; "
            "print(sorted(m for m in ('transformers', 'torch') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"

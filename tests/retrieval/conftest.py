"""Fixtures of the retrieval tests: BM25 over the ten-report sample, indexed once per module."""

from __future__ import annotations

import pytest

from ddrsearch.retrieval.lexical import BM25Retriever


@pytest.fixture(scope="module")
def bm25(sample):
    return BM25Retriever().index(sample)

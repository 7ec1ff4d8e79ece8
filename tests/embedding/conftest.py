"""Fixtures of the embedding tests: no DDRSEARCH_* override, the packaged model loaded once per module."""

from __future__ import annotations

import os

import pytest

from ddrsearch.embedding.encoder import Embedder
from ddrsearch.embedding.model import load_model


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

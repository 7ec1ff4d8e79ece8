"""ddrsearch.stores.disk_index: what the index's staleness key holds for the chunks' plain words (issue 23)."""

from __future__ import annotations

import functools

from ddrsearch.stores import disk_index


def test_the_chunking_option_is_in_the_settings_and_the_lexicon_only_when_the_chunks_use_it(monkeypatch):
    # the settings record operation_chunks' defaults, concepts among them; the lexicon file shapes the
    # passages only when concepts is on, and only then is its SHA-256 part of the key
    assert not any(k.startswith("lexicon:") for k in disk_index.code_fingerprint())
    on = functools.partial(disk_index.operation_chunks, concepts="plain")
    monkeypatch.setattr(disk_index, "operation_chunks", on)
    keys = disk_index.code_fingerprint()
    assert "lexicon:lexicon.csv" in keys and len(keys["lexicon:lexicon.csv"]) == 64

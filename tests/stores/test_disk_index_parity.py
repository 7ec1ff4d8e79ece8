"""ddrsearch.stores.disk_index: a search of the on-disk index ranks and scores as the pipeline did.

The index of the 76 reports, written and opened again (BM25 read back from its arrays, the
question encoded by the ONNX export), must give every development question the hits and
scores recorded in ``tests/retrieval/data/default_dev_runs.json`` (within 1e-9).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ddrsearch.stores.disk_index import build_index, open_index

sys.path.insert(0, str(Path(__file__).parents[1] / "retrieval"))
from test_pipeline_parity import expected_runs, mismatches

pytestmark = [pytest.mark.data, pytest.mark.model]


def test_the_opened_index_ranks_and_scores_as_recorded(archive_folder, tmp_path):
    """Every dev question gets the recorded top 76 and scores from an index built, written and opened again."""
    paths = sorted(archive_folder.glob("*.pdf"))
    build_index(paths, tmp_path / "ix")
    index = open_index(tmp_path / "ix")
    assert mismatches(index.search, expected_runs()) == []

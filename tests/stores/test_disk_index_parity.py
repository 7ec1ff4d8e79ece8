"""ddrsearch.stores.disk_index: a search of the on-disk index ranks and scores as the pipeline did.

The index of the 76 reports, written and opened again (BM25 read back from its arrays, the
question encoded by the ONNX export), must give every development question the hits and
scores recorded in ``tests/retrieval/data/default_dev_runs.json`` (within the tolerance that
file's test states).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from ddrsearch.stores.disk_index import build_index, open_index

# the runs file and its comparison, from the pipeline's parity test (loaded by path, not put on sys.path)
_spec = importlib.util.spec_from_file_location(
    "pipeline_parity_runs", Path(__file__).parents[1] / "retrieval" / "test_pipeline_parity.py")
_parity = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_parity)
expected_runs, mismatches = _parity.expected_runs, _parity.mismatches

pytestmark = [pytest.mark.data, pytest.mark.model]


def test_the_opened_index_ranks_and_scores_as_recorded(archive_folder, tmp_path):
    """Every dev question gets the recorded top 76 and scores from an index built, written and opened again."""
    paths = sorted(archive_folder.glob("*.pdf"))
    build_index(paths, tmp_path / "ix")
    index = open_index(tmp_path / "ix")
    assert mismatches(index.search, expected_runs()) == []

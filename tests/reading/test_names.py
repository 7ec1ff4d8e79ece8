"""ddrsearch.reading.names: row ids resolve, and missing ones are named."""

from __future__ import annotations

import pytest

from conftest import REPORT_38
from ddrsearch.errors import CitationError
from ddrsearch.reading.names import resolve_row_id, row_id

pytestmark = pytest.mark.data


@pytest.mark.data
def test_row_ids_resolve_and_missing_ones_are_named(archive, by_name):
    r38 = by_name[REPORT_38]
    assert row_id(r38, r38.operations[8]) == "D038-r08"
    report, row = resolve_row_id("D038-r08", archive)
    assert report is r38 and "became stuck" in row.operations
    ids = [row_id(r, row) for r in archive for row in r.operations]
    assert len(ids) == len(set(ids)) == 610
    with pytest.raises(CitationError, match="report D001 is not among the 76 reports"):
        resolve_row_id("D001-r00", archive)
    with pytest.raises(CitationError, match=r"D038 .* has 10 operation rows .* no row 12"):
        resolve_row_id("D038-r12", archive)
    with pytest.raises(CitationError, match="not a row id"):
        resolve_row_id("row 8 of 38", archive)

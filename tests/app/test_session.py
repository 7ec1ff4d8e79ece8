"""ddrsearch.app.session: what the page shows of a hit (its text cut at the marked words, its citation)."""

from __future__ import annotations

from pathlib import Path

import pytest

AppTest = pytest.importorskip("streamlit.testing.v1").AppTest


def test_a_hit_cuts_its_text_at_the_marked_words_and_cites_itself():
    import datetime as dt

    from ddrsearch.app.session import ResultRow

    hit = ResultRow(rank=1, report="r.pdf", path=Path("r.pdf"), label="D001", report_number=1,
                    date=dt.date(2020, 10, 20), kind="operation", page=1, row=0, row_id="D001-r00", start="06:00",
                    end="07:00", text="TIH to 6,360', no issues. Trip <fast>", terms=("trip", "6360"),
                    marked=("TIH", "6,360',", "Trip"),
                    bm25=1.0, dense=0.5, fused=None)
    assert hit.marked_words == ("TIH", "6,360',", "Trip")
    assert [p for p, m in hit.segments()] == ["TIH", " to ", "6,360',", " no issues. ", "Trip", " <fast>"]
    assert hit.citation == ("[D001-r00] report 1 dated 2020-10-20, 2020-10-19 06:00-07:00, page 1 (r.pdf): "
                            "\"TIH to 6,360', no issues. Trip <fast>\"")

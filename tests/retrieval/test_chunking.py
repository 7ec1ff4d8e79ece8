"""Chunking by operation row and by window, on the real archive."""

from __future__ import annotations

import re

import pytest

from conftest import REPORT_38
from ddrsearch.retrieval.chunking import DEFAULT_LIMIT, chunk_reports, window_chunks, word_pieces

pytestmark = pytest.mark.data


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def pieces():
    return word_pieces()


@pytest.fixture(scope="module")
def op_chunks(archive, pieces):
    return chunk_reports(archive, "operation", pieces=pieces)


@pytest.mark.model
def test_every_chunk_fits_the_model(op_chunks, pieces):
    counts = pieces.count_many([c.indexed_text for c in op_chunks])
    assert max(counts) <= DEFAULT_LIMIT
    assert len({c.passage_id for c in op_chunks}) == len(op_chunks)


@pytest.mark.model
def test_citations_point_at_text_really_in_that_report_and_row(op_chunks, by_name):
    for c in op_chunks:
        report = by_name[c.report]
        page_text = collapse(report.text)
        if c.kind == "operation":
            row = report.operations[c.row]
            assert (row.start, row.end or None) == (c.start, c.end)
            assert c.text in row.operations, c.passage_id
            assert c.page == row.page == 1
            # the row's lines are on the page; the chunk's words are the row's, in order
            # (the page text may put the row's PHASE and CODE between two of its lines)
            assert all(collapse(line) in page_text for line in row.lines), c.passage_id
        elif c.kind == "header":
            assert collapse(c.text) in page_text, c.passage_id
            assert c.text in (report.present_operations, report.activity_planned)
        else:  # the completion report has no rows: windows with character spans
            assert c.kind == "window" and c.span is not None
            assert collapse(c.text) in page_text, c.passage_id
            a, b = c.span
            assert collapse(report.text)[a:b] == c.text


@pytest.mark.model
def test_one_chunk_per_row_plus_header_fields(op_chunks, by_name):
    r38 = [c for c in op_chunks if c.report == REPORT_38]
    assert [c.kind for c in r38[:2]] == ["header", "header"]
    assert len(r38) == 2 + len(by_name[REPORT_38].operations)
    stuck = next(c for c in r38 if c.row == 8)
    assert stuck.context == "Drilling report 38, 2020-11-26, 23:30-04:00, Trips."
    assert stuck.text.endswith("During the slide lost tool face and became assembly became stuck")


@pytest.mark.model
def test_a_long_row_is_split_not_truncated(op_chunks, by_name, pieces):
    parts = [c for c in op_chunks if c.passage_id.split("#")[1].startswith("row") and "." in c.passage_id.split("#")[1]]
    assert parts, "some operation rows of the archive are longer than the model's limit"
    by_row: dict[tuple[str, int], list] = {}
    for c in parts:
        by_row.setdefault((c.report, c.row), []).append(c)
    for (rep, row), cs in by_row.items():
        full = by_name[rep].operations[row].operations
        assert pieces.count(full) + pieces.count(cs[0].context) > DEFAULT_LIMIT
        assert collapse(" ".join(c.text for c in cs)) == collapse(full)  # nothing lost, nothing repeated


@pytest.mark.model
def test_window_chunks_overlap_and_cover(report38, pieces):
    ws = window_chunks(report38, pieces=pieces, size=128, overlap=32)
    text = collapse(report38.text)
    assert ws[0].span[0] == 0 and ws[-1].span[1] == len(text)
    for a, b in zip(ws, ws[1:]):
        assert b.span[0] < a.span[1]  # overlap
    assert max(pieces.count_many([w.indexed_text for w in ws])) <= 128


@pytest.mark.model
def test_chunker_errors(report38, pieces):
    with pytest.raises(ValueError, match="exceeds"):
        window_chunks(report38, pieces=pieces, size=300)
    with pytest.raises(ValueError, match="overlap"):
        window_chunks(report38, pieces=pieces, size=64, overlap=60)
    with pytest.raises(ValueError, match="Unknown chunking"):
        chunk_reports([report38], "sentences")
    with pytest.raises(ValueError):
        pieces.split("some text", 0)


@pytest.mark.model
@pytest.mark.parametrize("rollup", ["max", "sum3"])
def test_roll_up_gives_each_report_once_and_keeps_its_chunk(op_chunks, archive, rollup):
    from ddrsearch.retrieval.lexical import BM25Retriever

    bm25 = BM25Retriever(rollup=rollup).index(op_chunks).attach_reports(archive)
    hits = bm25.search("stuck pipe", k=76)
    reports = [h.report for h in hits]
    assert len(reports) == len(set(reports))
    scores = bm25.passage_scores("stuck pipe")
    for h in hits[:5]:
        mine = sorted((s for s, p in zip(scores, bm25.passages) if p.report == h.report and s == s), reverse=True)
        assert h.score == pytest.approx(mine[0] if rollup == "max" else sum(mine[:3]))
        chunk = next(p for p in bm25.passages if p.passage_id == h.passage_id)
        assert chunk.report == h.report and h.text == chunk.text  # the hit keeps the chunk that earned it
    # the chunk that earns report 38 its place: the 23:30-04:00 row, where the assembly became stuck
    assert hits[0].report.endswith("_038_2020-11-26.pdf") and (hits[0].start, hits[0].end) == ("23:30", "04:00")


def test_md_in_chunk_context(report38):
    """depth=True adds the report's MD to each chunk's context and leaves its text alone."""
    from ddrsearch.retrieval.chunking import operation_chunks

    plain = operation_chunks(report38)
    deep = operation_chunks(report38, depth=True)
    assert [p.text for p in plain] == [p.text for p in deep]
    md = f"MD {report38.md_ft:,.0f} ft."
    assert all(p.context.endswith(md) and not q.context.endswith(md) for p, q in zip(deep, plain, strict=True))

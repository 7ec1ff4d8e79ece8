"""``ddrsearch ask`` on a current index: the same card as from the PDFs, without reading a PDF."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main
from ddrsearch.data.folders import sample_paths
from ddrsearch.stores.disk_index import build_index, open_index

pytestmark = [pytest.mark.data, pytest.mark.model]

QUESTIONS = ["when did we last get stuck?", "which day did we pass 5,000 ft?", "what was the highest mud weight?",
             "packers failed to set", "did we take a kick?"]


@pytest.fixture(scope="module")
def sample_index(archive_folder, tmp_path_factory):
    folder = tmp_path_factory.mktemp("ask-index") / "sample"
    build_index(sample_paths(archive_folder), folder, source={"corpus": "sample"})
    return folder


def test_the_index_holds_the_reports_records(sample_index, sample):
    """The records rebuild the reports as read from the PDFs (header, rows, page text), words left out."""
    back = {r.file_name: r for r in open_index(sample_index).load_reports()}
    for r in sample:
        b = back[r.file_name]
        assert (b.header, b.operations, b.pages, b.report_date, b.md_ft) == (r.header, r.operations, r.pages,
                                                                              r.report_date, r.md_ft)


def test_ask_on_the_index_prints_the_card_the_pdfs_give(sample_index, capsys, monkeypatch):
    """Before: ask read the PDFs and rebuilt the pipeline on every call, index or not."""
    expected = []
    for q in QUESTIONS:
        assert main(["ask", q, "--corpus", "sample", "--no-index"]) == 0
        expected.append(capsys.readouterr().out)

    def no_pdf(*args, **kwargs):
        raise AssertionError("a PDF was read")

    monkeypatch.setattr("ddrsearch.reading.report.read_report", no_pdf)
    monkeypatch.setattr("ddrsearch.reading.report.read_reports", no_pdf)
    for q, want in zip(QUESTIONS, expected):
        assert main(["ask", q, "--corpus", "sample", "--index", str(sample_index)]) == 0
        assert capsys.readouterr().out == want, q

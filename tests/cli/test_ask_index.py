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


def test_records_changed_after_indexing_are_not_quoted(sample_index, tmp_path, capsys):
    """Before: a row rewritten in reports.json was printed by ask as the report's verbatim quote, and a record's
    path was trusted (the app would serve any file). Now the records' SHA-256 is in the header: a changed file is
    named in one line and the PDFs are read instead; each report's path is the one the header recorded."""
    import json
    import shutil

    from ddrsearch.stores.generations import current_generation

    copy = tmp_path / "tampered"
    shutil.copytree(sample_index, copy)
    records_file = current_generation(copy).folder / "reports.json"
    records = json.loads(records_file.read_text(encoding="utf-8"))
    d038 = next(r for r in records if "_038_" in r["file_name"])
    d038["operations"][8]["operations"] = "Drill ahead. \x1b[31mRED\x1b[0m stuck pipe call 555-0100"
    for r in records:
        r["path"] = "/etc/passwd"
    records_file.write_text(json.dumps(records), encoding="utf-8")
    assert main(["ask", "stuck pipe", "--corpus", "sample", "--index", str(copy)]) == 0
    out, err = capsys.readouterr()
    assert "555-0100" not in out and "\x1b" not in out
    assert "not using the index" in err and "reports.json" in err
    assert all(str(r.path) != "/etc/passwd" for r in open_index(sample_index).load_reports())


def test_the_card_prints_no_control_characters(sample_index, capsys):
    """Before: ask echoed the question with its ESC sequences and BEL (a screen clear, a window title)."""
    assert main(["ask", "stuck\x1b[2J\x1b]0;pwned\x07 pipe\r", "--corpus", "sample", "--index", str(sample_index)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out

"""``search --dir`` and ``ask --dir`` read the good files when one is refused and say which (issue 26, cli.search)."""

from __future__ import annotations

import shutil

import pymupdf
import pytest

from ddrsearch.cli.command import main

pytestmark = pytest.mark.data

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


@pytest.fixture()
def folder(tmp_path, archive_folder):
    """Report 38, a 60-page PDF (over the page limit) and an HTML page saved as a PDF."""
    shutil.copy2(archive_folder / REPORT_38, tmp_path / REPORT_38)
    doc = pymupdf.open()
    for i in range(60):
        doc.new_page().insert_text((50, 72), f"page {i}", fontsize=10)
    doc.save(tmp_path / "long.pdf")
    doc.close()
    (tmp_path / "error.pdf").write_text("<html>404</html>", encoding="utf-8")
    return tmp_path


def test_search_dir_searches_the_good_files_and_names_each_skipped_one(folder, capsys):
    """Before: one refused file stopped the whole search (exit 1, no results). After: the other reports are
    searched, and each refused file gets one line on standard error: its name and why."""
    assert main(["search", "stuck pipe", "--dir", str(folder), "--method", "bm25", "-k", "1"]) == 0
    out, err = capsys.readouterr()
    assert "D038" in out and "1 report(s) from folder" in out
    skipped = [line for line in err.splitlines() if "skipped, not searched" in line]
    assert len(skipped) == 2
    assert any(line.startswith("warning: long.pdf skipped, not searched:") and "DDRSEARCH_MAX_PAGES" in line
               for line in skipped)
    assert any(line.startswith("warning: error.pdf skipped, not searched:") and "is not a PDF" in line
               for line in skipped)


@pytest.mark.model
def test_ask_dir_answers_from_the_good_files_too(folder, capsys):
    """ask --dir reads its folder the same way: the card comes from report 38, the refused files are named."""
    assert main(["ask", "when did the pipe get stuck?", "--dir", str(folder)]) == 0
    out, err = capsys.readouterr()
    assert "D038" in out and "long.pdf skipped" in err and "error.pdf skipped" in err


def test_a_folder_where_every_file_is_refused_still_stops(tmp_path, capsys):
    """With nothing readable there is nothing to search: the command fails naming every file, as before."""
    (tmp_path / "error.pdf").write_text("<html>404</html>", encoding="utf-8")
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "--method", "bm25"]) == 1
    assert "error.pdf" in capsys.readouterr().err


def test_search_dir_skips_a_file_over_the_hard_time_limit_and_searches_the_rest(tmp_path, archive_folder, capsys,
                                                                              monkeypatch):
    """A 20 KB file whose one text extraction runs for about 45 s (Type3 glyphs run inside one PyMuPDF call,
    which the soft clock cannot stop): the reading process is stopped at the limit, one line names the file."""
    from ddrsearch.reading.synthetic import write_type3_in_type3

    monkeypatch.setenv("DDRSEARCH_MAX_READ_SECONDS", "2")
    shutil.copy2(archive_folder / REPORT_38, tmp_path / REPORT_38)
    write_type3_in_type3(tmp_path / "hostile.pdf", 100, 1_900_000)
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "--method", "bm25", "-k", "1"]) == 0
    out, err = capsys.readouterr()
    assert "D038" in out and "1 report(s) from folder" in out
    skipped = [line for line in err.splitlines() if "skipped, not searched" in line]
    assert len(skipped) == 1 and skipped[0].startswith("warning: hostile.pdf skipped, not searched:")
    assert "DDRSEARCH_MAX_READ_SECONDS" in skipped[0]

"""Bad input from an engineer's own messy folder, queries and settings (the adversarial pass).

Each test reproduces a case that, before it was fixed, was skipped silently, gave a
misleading message or a raw ``[Errno ...]`` line. The rule checked: bad input gets a
clear error naming the file or value and what to do; nothing is silently skipped; a
partial result says what it left out. Odd PDFs are made at test time from real reports.
"""

from __future__ import annotations

import shutil
import warnings

import pymupdf
import pytest

from ddrsearch.cli import main
from ddrsearch.errors import DataNotFoundError, FolderWarning
from ddrsearch.report import folder_pdfs, load_archive, read_report

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


@pytest.fixture
def messy(tmp_path, archive_folder):
    """A folder with report 38, and report 39 left in a subfolder ``old/``."""
    folder = tmp_path / "my reports"
    (folder / "old").mkdir(parents=True)
    shutil.copy(archive_folder / REPORT_38, folder)
    shutil.copy(archive_folder / REPORT_39, folder / "old")
    return folder


def test_pdfs_in_a_subfolder_are_named_not_silently_skipped(messy):
    with pytest.warns(FolderWarning, match=r"old/ \(1 PDF\)"):
        reports = load_archive(messy)
    assert [r.file_name for r in reports] == [REPORT_38]


def test_a_folder_with_pdfs_only_in_a_subfolder_names_it(tmp_path, archive_folder):
    (tmp_path / "a").mkdir()
    shutil.copy(archive_folder / REPORT_38, tmp_path / "a")
    with pytest.raises(DataNotFoundError, match=r"only in subfolders: a/ \(1 PDF\)"):
        load_archive(tmp_path)


def test_a_folder_named_like_a_pdf_is_not_an_errno(tmp_path, archive_folder):
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / "weird.pdf").mkdir()  # before: IsADirectoryError [Errno 21] from load_archive
    with pytest.warns(FolderWarning, match=r"weird\.pdf/ \(a folder named like a PDF\)"):
        assert [r.file_name for r in load_archive(tmp_path)] == [REPORT_38]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FolderWarning)
        assert folder_pdfs(tmp_path) == [tmp_path / REPORT_38]


def test_search_dir_prints_the_warning_on_one_line(messy, capsys):
    assert main(["search", "stuck pipe", "--dir", str(messy), "--method", "bm25", "-k", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "old/ (1 PDF)" in err and "warnings.warn" not in err


def test_index_build_and_manifest_name_the_subfolder_too(messy, tmp_path, capsys):
    assert main(["manifest", str(messy), "--out", str(tmp_path / "m.csv")]) == 0
    assert "old/ (1 PDF)" in capsys.readouterr().err
    empty = tmp_path / "empty"
    (empty / "a").mkdir(parents=True)
    shutil.copy(messy / REPORT_38, empty / "a")
    assert main(["index", "build", "--dir", str(empty), "--index", str(tmp_path / "ix")]) == 1
    assert "only in subfolders: a/" in capsys.readouterr().err


def _blank_time_breakdown(src, dest):
    """Report ``src`` with every TIME BREAKDOWN row blanked out (headings and TOTAL kept)."""
    doc = pymupdf.open(src)
    page = doc[0]
    words = page.get_text("words")
    heading = next(w for w in words if w[4] == "BREAKDOWN")[3]
    columns = next(w for w in words if w[4] == "FROM" and w[1] > heading - 1)[3]
    total = min((w[1] for w in words if w[4] == "TOTAL" and w[1] > columns), default=page.rect.height)
    page.add_redact_annot(pymupdf.Rect(0, columns + 0.5, page.rect.width, total - 1))
    page.apply_redactions()
    doc.save(dest)


def test_an_empty_time_breakdown_is_a_note_not_silence(tmp_path, archive_folder, capsys):
    _blank_time_breakdown(archive_folder / REPORT_39, tmp_path / REPORT_39)
    r = read_report(tmp_path / REPORT_39)
    assert r.operations == []
    assert any("no operation rows" in n for n in r.notes)
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "--method", "bm25", "-k", "1"]) == 0
    assert f"note: {REPORT_39}: the TIME BREAKDOWN table has no operation rows" in capsys.readouterr().err

"""``ddrsearch manifest``: a manifest for your own reports, and what it says about files it cannot read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPORT_38
from ddrsearch.cli.command import main
from ddrsearch.data.fetch import sha256_of
from ddrsearch.data.manifest import load_manifest

pytestmark = pytest.mark.data


REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


def test_index_build_and_manifest_name_the_subfolder_too(messy, tmp_path, capsys):
    """``manifest`` and ``index build`` name PDFs left in a subfolder, as search does, instead of skipping them
    silently.
    """
    assert main(["manifest", str(messy), "--out", str(tmp_path / "m.csv")]) == 0
    assert "old/ (1 PDF)" in capsys.readouterr().err
    empty = tmp_path / "empty"
    (empty / "a").mkdir(parents=True)
    shutil.copy(messy / REPORT_38, empty / "a")
    assert main(["index", "build", "--dir", str(empty), "--index", str(tmp_path / "ix")]) == 1
    assert "only in subfolders: a/" in capsys.readouterr().err


R38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


def test_manifest_names_every_unreadable_file_at_once(tmp_path, archive_folder, capsys):
    """``manifest`` stopped at the first unreadable file; it names every one at once."""
    # search --dir lists every unreadable file; manifest (and index build --dir) stop at the first one,
    # so a folder with three bad files takes three runs to clean up.
    shutil.copy(archive_folder / R38, tmp_path / R38)
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "notes.pdf").write_text("not a pdf")
    assert main(["manifest", str(tmp_path), "--out", str(tmp_path / "m.csv")]) == 1
    err = capsys.readouterr().err
    assert "empty.pdf" in err and "notes.pdf" in err


def _name(n: int) -> str:
    import datetime as dt

    day = dt.date(2020, 10, 19) + dt.timedelta(days=n)
    return f"FORGE-16A-78-32_Drilling_{n:03d}_{day.isoformat()}.pdf"


def _scanned(src: Path, dst: Path) -> None:
    import pymupdf

    doc, out = pymupdf.open(src), pymupdf.open()
    for page in doc:
        new = out.new_page(width=page.rect.width, height=page.rect.height)
        new.insert_image(new.rect, pixmap=page.get_pixmap(dpi=72))
    out.save(dst)


def test_manifest_scanned_report_message_says_how_to_make_the_manifest(tmp_path, archive_folder, capsys):
    """A scanned PDF in ``manifest`` was told to use ``search --ocr``, which never yields a manifest; the advice says
    how to make one.
    """
    # ddrsearch manifest FOLDER with a scanned PDF: "no manifest was written ... Read it with OCR: ddrsearch
    # search --dir FOLDER --ocr auto"; manifest has no --ocr, so that advice never yields the manifest that
    # eval needs.
    shutil.copy(archive_folder / _name(38), tmp_path / _name(38))
    _scanned(archive_folder / _name(39), tmp_path / "scan39.pdf")
    assert main(["manifest", str(tmp_path), "--out", str(tmp_path / "m.csv")]) == 1
    err = capsys.readouterr().err
    assert "manifest" in err.split("Read it with OCR")[-1], err


def test_manifest_for_your_own_reports(tmp_path, archive_folder, monkeypatch, capsys):
    mine = tmp_path / "mine"
    mine.mkdir()
    for name in [REPORT_38, "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"]:
        shutil.copyfile(archive_folder / name, mine / name)
    # any name: identity from the header (report 40; a copy of 38 would be refused as the same report twice)
    shutil.copyfile(archive_folder / "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf", mine / "today.pdf")
    out = tmp_path / "m.csv"
    assert main(["manifest", str(mine), "--out", str(out)]) == 0
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(out))
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(mine))
    entries = load_manifest()
    assert [(e.file_name, e.report_number) for e in entries] == [
        (REPORT_38, 38), ("FORGE-16A-78-32_Drilling_039_2020-11-27.pdf", 39), ("today.pdf", 40)]
    assert entries[0].sha256 == sha256_of(archive_folder / REPORT_38)
    capsys.readouterr()
    assert main(["search", "became stuck", "--method", "keyword", "--corpus", "archive"]) == 0
    # before: "from the archive (3 reports). Report D038 = drilling report 38, ...", as if FORGE's archive
    shown = capsys.readouterr().out
    assert "1 report(s) from the archive of DDRSEARCH_MANIFEST m.csv (3 reports)" in shown
    # adversarial: a line break in the manifest's name forged a line of the output
    odd = tmp_path / "m\nFAKE LINE: 0 reports\x1b[31m.csv"
    shutil.copyfile(out, odd)
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(odd))
    assert main(["search", "became stuck", "--method", "keyword", "--corpus", "archive"]) == 0
    shown = capsys.readouterr().out
    assert "from the archive of DDRSEARCH_MANIFEST m FAKE LINE: 0 reports.csv (3 reports)" in shown
    assert not any(line.startswith("FAKE") for line in shown.splitlines()) and "\x1b" not in shown

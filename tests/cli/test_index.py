"""``ddrsearch index``: build, add and status, and the folders and files they refuse."""

from __future__ import annotations

import json
import shutil

import pymupdf
import pytest

from ddrsearch.cli.command import main
from ddrsearch.errors import SearchIndexError

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


def test_index_dir_that_is_a_file_is_named(tmp_path, monkeypatch, capsys):
    """A DDRSEARCH_INDEX_DIR or ``--index`` that is a file gave a raw ``[Errno ...]`` or "No index at"; now it is named
    as a file.
    """
    afile = tmp_path / "index"
    afile.write_text("")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(afile))
    # before: "No index at .../index/archive" (status), "[Errno 20] Not a directory" (build)
    assert main(["index", "status"]) == 1
    assert f"DDRSEARCH_INDEX_DIR {afile} is a file, not a folder" in capsys.readouterr().err
    assert main(["index", "status", "--index", str(afile)]) == 1  # before: "[Errno 17] File exists"
    assert f"--index {afile} is a file, not a folder." in capsys.readouterr().err


def test_index_add_a_folder_says_to_give_the_pdfs(tmp_path, capsys):
    """``index add FOLDER`` said "no such file"; it says to give the new report PDFs themselves."""
    assert main(["index", "add", str(tmp_path), "--index", str(tmp_path / "ix")]) == 1
    err = capsys.readouterr().err  # before: "no such file: <folder>"
    assert f"{tmp_path} is a folder; give the new report PDFs themselves" in err


@pytest.fixture
def resaved(tmp_path, archive_folder):
    """Report 38 and a re-saved copy of it (other bytes, same pages) under another name."""
    folder = tmp_path / "resaved"
    folder.mkdir()
    shutil.copy(archive_folder / REPORT_38, folder)
    doc = pymupdf.open(archive_folder / REPORT_38)
    doc.save(folder / "DDR 38 copy.pdf", garbage=3)
    assert (folder / "DDR 38 copy.pdf").read_bytes() != (folder / REPORT_38).read_bytes()
    return folder


@pytest.mark.data
@pytest.mark.model
def test_index_add_refuses_a_re_saved_copy_of_an_indexed_report(resaved, tmp_path, capsys):
    """``index add`` of a re-saved copy of an indexed report is refused, naming the report already in the index."""
    one = tmp_path / "one"
    one.mkdir()
    shutil.move(resaved / REPORT_38, one)
    index = str(tmp_path / "ix")
    assert main(["index", "build", "--dir", str(one), "--index", index]) == 0
    assert main(["index", "add", str(resaved / "DDR 38 copy.pdf"), "--index", index]) == 1
    assert f"holds the same report as {REPORT_38}, already in the index" in capsys.readouterr().err


def _damaged_copy(built_index, tmp_path, damage):
    index, _ = built_index
    copy = tmp_path / "ix"
    shutil.copytree(index, copy)
    gen = copy / (copy / "CURRENT").read_text().strip()
    damage(gen)
    return copy


@pytest.mark.data
@pytest.mark.parametrize("header", [[], {"format": 1}, "text"])
def test_an_index_header_that_is_not_a_header_is_no_traceback(built_index, tmp_path, capsys, header):
    """An index header.json that is not a header raised AttributeError or KeyError (a traceback); it is named as not an
    index header.
    """
    copy = _damaged_copy(built_index, tmp_path, lambda g: (g / "header.json").write_text(json.dumps(header)))
    # before: AttributeError: 'list' object has no attribute 'get' (a raw traceback), or KeyError 'settings'
    assert main(["index", "status", "--index", str(copy)]) == 1
    assert "header.json is not an index header" in capsys.readouterr().err
    from ddrsearch.stores.generations import current_generation

    with pytest.raises(SearchIndexError, match="is damaged"):
        current_generation(copy)


def _name(n: int) -> str:
    import datetime as dt

    day = dt.date(2020, 10, 19) + dt.timedelta(days=n)
    return f"FORGE-16A-78-32_Drilling_{n:03d}_{day.isoformat()}.pdf"


@pytest.mark.data
def test_index_build_names_every_unreadable_file_at_once(tmp_path, archive_folder, capsys):
    """``index build --dir`` stopped at the first unreadable file; it names every one at once."""
    # manifest was fixed to name every unreadable PDF; index build --dir (read_reports) still stopped at the first
    shutil.copy(archive_folder / _name(38), tmp_path / _name(38))
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "notes.pdf").write_text("not a pdf")
    assert main(["index", "build", "--dir", str(tmp_path), "--index", str(tmp_path / "idx")]) == 1
    err = capsys.readouterr().err
    assert "empty.pdf" in err and "notes.pdf" in err and "2 of 3" in err


@pytest.mark.data
@pytest.mark.model
def test_index_build_shows_progress_on_a_terminals_stderr_and_keeps_stdout(tmp_path, archive_folder, capsys,
                                                                           monkeypatch):
    """``index build`` ran two minutes in a new clone with no output; with stderr a terminal it shows the reading
    of the PDFs there (and the embedding of new texts: tests/embedding/test_encoder.py), not with --quiet
    nor in a log or pipe; stdout is its one line either way."""
    import re
    import sys

    one = tmp_path / "one"
    one.mkdir()
    shutil.copy(archive_folder / REPORT_38, one)
    monkeypatch.delenv("TQDM_DISABLE", raising=False)
    line = re.compile(r"Indexed 1 reports, \d+ passages in [\d.]+ s into .+ \([\d.]+ MB\)\.\n")

    def build(*extra):
        assert main(["index", "build", "--dir", str(one), "--index", str(tmp_path / "ix"), *extra]) == 0
        out, err = capsys.readouterr()
        assert line.fullmatch(out), out
        return err

    assert "Reading reports" not in build()  # stderr not a terminal (a log, a pipe, this capture)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    err = build()
    assert "Reading reports" in err and "1/1" in err, err
    assert "Reading reports" not in build("--quiet")

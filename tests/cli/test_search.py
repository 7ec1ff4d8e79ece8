"""``ddrsearch search``: the printed table, its notes and its errors.

The shown line keeps the matched words and numeric columns line up; the notes
(spelling, an index on disk, a folder of your own) and the messages for bad
folders, files and settings.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

from conftest import REPORT_38
from ddrsearch.cli.command import main
from ddrsearch.errors import SearchIndexError
from ddrsearch.retrieval.lexical import BM25Retriever, KeywordRetriever


def _rows(out: str) -> dict[str, str]:
    """Table row of each report (``D038`` -> its printed line), from ``search``'s output."""
    lines = out.splitlines()
    end = lines.index("")  # the table ends at the blank line before the summary
    return {line.split()[1]: line for line in lines[2:end]}


@pytest.mark.data
@pytest.mark.model
def test_hybrid_line_of_report_38_shows_stuck(capsys, archive_folder):
    """The shown line of a hit was cut before the matched word (report 38's line lacked "stuck"); it keeps the matched
    words.
    """
    # before: "…During the slide lost tool face and became assembly became…", without "stuck"
    assert main(["search", "pipe became stuck during the slide", "--corpus", "archive", "--no-index"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "stuck" in rows["D038"].lower()


@pytest.mark.data
def test_bm25_line_of_report_19_shows_seepage_losses(capsys, archive_folder):
    """The BM25 line of report 19 was cut before "Mud fluids seepage losses"; it shows the matched words."""
    # before: "Drill ahead with BHA #4 from 4,460' ...", cut before "Mud fluids seepage losses"
    assert main(["search", "mud losses", "--method", "bm25", "--corpus", "archive"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert "losses" in rows["D019"].lower()


@pytest.mark.data
def test_a_folder_name_with_escape_sequences_is_printed_without_them(capsys, archive_folder, tmp_path):
    """Before (adversarial pass): the summary line printed the folder's (or the index's) path raw, so an escape
    sequence in a folder's name reached the terminal."""
    folder = tmp_path / "r\x1b[2Kx\x1b]0;title\x07"
    folder.mkdir()
    shutil.copy(archive_folder / REPORT_38, folder)
    assert main(["search", "stuck", "--dir", str(folder), "--method", "bm25", "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "from folder " in out


@pytest.mark.data
def test_keyword_scores_of_two_digits_line_up(capsys, archive_folder):
    """Keyword scores of two digits (14.0000 above 9.0000) misaligned the table; scores are right-aligned under the
    header.
    """
    assert main(["search", "mud weight", "--method", "keyword", "--corpus", "archive", "-k", "12"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()[: out.splitlines().index("")]
    header, rows = lines[0], lines[2:]
    scores = [float(line.split()[3]) for line in rows]
    assert max(scores) >= 10 > min(scores)  # the case that misaligned: 14.0000 above 9.0000
    end = header.index("score") + len("score")  # right-aligned under the header's last letter
    assert all(line[end - 1] == "0" and line[end] == " " for line in rows)
    day = len("2020-11-25 ")  # the row column: its real day, then FROM-TO
    assert {line.index(" ", end + 2 + day) for line in rows if line.split()[4][0].isdigit()} \
        == {end + 2 + len("2020-11-25 00:00-00:00")}


def test_the_line_is_cut_with_the_retrievers_own_tokenizer():
    """The shown line is cut with the retriever's own tokenizer settings (expand, stem), not hard-coded ones."""
    assert KeywordRetriever().match_options == {"expand": False, "stem": False}
    assert BM25Retriever(expand=True, stem=True).match_options == {"expand": True, "stem": True}


REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


@pytest.mark.data
def test_search_dir_prints_the_warning_on_one_line(messy, capsys):
    """``search --dir`` printed the folder warning with Python's ``warnings.warn`` source line; now one ``warning:``
    line.
    """
    assert main(["search", "stuck pipe", "--dir", str(messy), "--method", "bm25", "-k", "1"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("warning: ") and "old/ (1 PDF)" in err and "warnings.warn" not in err


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_archive_dir_that_is_not_a_folder_says_so(tmp_path, monkeypatch, capsys, kind):
    """A DDRSEARCH_ARCHIVE_DIR that is missing or a file said the PDFs were missing and to fetch them; now the variable
    and what is wrong.
    """
    target = tmp_path / "reports"
    if kind == "file":
        target.write_text("not a folder")
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(target))
    # before: "10 of 10 report PDF(s) missing ... Fetch them", whatever the folder was
    assert main(["search", "stuck", "--method", "bm25"]) == 1
    err = capsys.readouterr().err
    state = "does not exist" if kind == "missing" else "is a file, not a folder"
    assert f"{target} (from $DDRSEARCH_ARCHIVE_DIR) {state}" in err


@pytest.mark.data
def test_search_with_an_index_dir_that_is_a_file_says_it_is_not_used(tmp_path, archive_folder, monkeypatch, capsys):
    """Search with a DDRSEARCH_INDEX_DIR that is a file notes that the index is not used (and why) and searches without
    it.
    """
    from argparse import Namespace

    from ddrsearch.cli.index import current_index

    afile = tmp_path / "index"
    afile.write_text("")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(afile))
    said = []
    assert current_index(Namespace(index=None, corpus="sample", dir=None, archive=None), say=said.append) is None
    assert said and said[0].startswith("note: not using the index: DDRSEARCH_INDEX_DIR")


@pytest.mark.data
def test_search_dir_lists_every_unreadable_file_at_once(tmp_path, archive_folder, capsys):
    """``search --dir`` named only the first unreadable file; it lists every one at once."""
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / REPORT_39).write_bytes(b"")  # a download that never finished
    (tmp_path / "report.pdf").write_text("<html><body>404</body></html>")
    # before: only the first bad file was named; fix it, run again, meet the next
    # now: the good file is searched and each bad one is named on its own line
    assert main(["search", "stuck", "--dir", str(tmp_path), "--method", "bm25"]) == 0
    err = capsys.readouterr().err
    assert f"{REPORT_39} skipped, not searched: " in err and "report.pdf skipped, not searched: " in err


@pytest.mark.data
def test_other_methods_get_the_notes_too_even_when_nothing_matches(capsys, archive_folder):
    """Only the default pipeline printed the spelling notes, and not after "No report matches"; every method prints
    them.
    """
    # before: only the default pipeline printed them, and not after "No report matches"
    assert main(["search", "stuk pipe", "--method", "keyword"]) == 0
    captured = capsys.readouterr()
    assert "No report matches" in captured.out and 'did you mean "stuck"' in captured.err
    assert main(["search", "stuk pipe", "--method", "dense", "-k", "1"]) == 0
    assert 'did you mean "stuck"' in capsys.readouterr().err


@pytest.mark.data
def test_search_of_your_own_folder_does_not_explain_the_books_report_names(tmp_path, capsys, archive_folder):
    """Search of your own folder explained the book's report names (C003 = completion report 3); it says the names are
    from the folder.
    """
    import shutil

    name = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
    shutil.copy(archive_folder / name, tmp_path / "Rig 7 day 38.pdf")
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "from folder" in out and "C003 = completion report 3" not in out


@pytest.mark.data
def test_a_row_matched_through_its_hidden_code_says_so(capsys, archive_folder):
    """A row matched through its CODE cell (indexed, not printed) showed no word of the query; the line says so."""
    # before: "Circulate to cool hole for packers." ranked 3rd for "mud losses" with no word of the query shown:
    # it matched through the row's CODE cell, "Cond Mud & Circ", which is indexed but not printed
    assert main(["search", "mud losses", "--method", "bm25", "--unit", "operation"]) == 0
    lines = capsys.readouterr().out.splitlines()
    d049 = next(line for line in lines if " D049 " in line)
    assert "Circulate to cool hole for packers. [matched in its CODE: Cond Mud & Circ]" in d049
    d019 = next(line for line in lines if " D019 " in line)
    assert "CODE" not in d019  # its own text holds the words


@pytest.mark.data
def test_notes_from_an_index_on_disk_speak_of_indexed_rows(tmp_path, capsys, monkeypatch, archive_folder):
    """With an index on disk, a word of the header tables was said to be printed by no report; the notes speak of
    indexed rows.
    """
    # before: with an index (no reports attached) "monel", printed in the BHA tables, was said to
    # be printed by no report; the index holds the rows it searches, not the header tables
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    assert main(["index", "build", "--corpus", "sample"]) == 0
    capsys.readouterr()
    assert main(["search", "monel stuk", "--corpus", "sample", "-k", "1"]) == 0
    err = capsys.readouterr().err
    assert "no report prints" not in err and 'no indexed row prints "stuk"' in err
    assert main(["search", "monel stuk", "--corpus", "sample", "-k", "1", "--no-index"]) == 0
    err = capsys.readouterr().err
    assert 'no report prints "stuk"' in err and '"monel"' not in err


R38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"


@pytest.mark.data
def test_an_image_only_pdf_in_dir_says_to_use_the_ocr_option(tmp_path, archive_folder, capsys):
    """An image-only PDF in ``search --dir`` was told to call ``read_report(path, ocr='auto')`` (Python); the message
    gives ``--ocr``.
    """
    # The CLI user is told "Read it with OCR: read_report(path, ocr='auto')" - Python - although the
    # command they ran takes --ocr auto.
    import pymupdf

    shutil.copy(archive_folder / R38, tmp_path / R38)
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "scan.pdf")
    assert main(["search", "stuck", "--dir", str(tmp_path), "--method", "bm25"]) == 0  # the rest is searched
    assert "scan.pdf skipped" in (err := capsys.readouterr().err) and "--ocr" in err


@pytest.mark.data
def test_a_link_to_the_folder_itself_is_not_called_a_subfolder_of_reports(tmp_path, archive_folder, capsys):
    """A link to the folder itself (``ln -s . loop``) was called a subfolder of reports not read; it is not."""
    # `ln -s . loop` in the folder: "warning: ...: not read (only the folder's own PDF files are): loop/
    # (1 PDF). Move the reports you want searched into the folder itself." - they already are.
    shutil.copy(archive_folder / R38, tmp_path / R38)
    os.symlink(".", tmp_path / "loop")
    assert main(["search", "stuck", "--dir", str(tmp_path), "--method", "bm25"]) == 0
    assert "loop/" not in capsys.readouterr().err


def _paths(folder: Path, numbers) -> list[Path]:
    return [next(folder.glob(f"FORGE-16A-78-32_Drilling_{n:03d}_*.pdf")) for n in numbers]


def _resave(path: Path) -> None:
    """The same report saved again: same text, other bytes (a new title in the PDF's metadata)."""
    import pymupdf

    doc = pymupdf.open(path)
    doc.set_metadata({"title": "re-exported"})
    tmp = path.with_suffix(".tmp")
    doc.save(tmp)
    doc.close()
    tmp.replace(path)


@pytest.fixture()
def six(archive_folder, tmp_path) -> list[Path]:
    """Reports 36 to 41 copied into a folder of their own (the days of the stuck-pipe story)."""
    folder = tmp_path / "reports"
    folder.mkdir()
    out = []
    for p in _paths(archive_folder, range(36, 42)):
        shutil.copy2(p, folder / p.name)
        out.append(folder / p.name)
    return out


@pytest.mark.data
@pytest.mark.model
def test_search_uses_a_current_index_and_says_when_it_is_stale(six, tmp_path, capsys):
    folder = six[0].parent
    index = tmp_path / "ix"
    assert main(["index", "build", "--dir", str(folder), "--index", str(index)]) == 0
    assert "Indexed 6 reports" in capsys.readouterr().out
    assert main(["index", "status", "--dir", str(folder), "--index", str(index)]) == 0
    assert "current" in capsys.readouterr().out
    assert main(["search", "stuck pipe", "-k", "3", "--dir", str(folder), "--index", str(index)]) == 0
    out, err = capsys.readouterr()
    assert f"index {index}" in out and "D038" in out and err == ""
    _resave(six[2])
    assert main(["search", "stuck pipe", "-k", "3", "--dir", str(folder), "--index", str(index)]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and "out of date" in err and six[2].name in err and "ddrsearch index build" in err
    assert f"index {index}" not in out


@pytest.mark.data
def test_dash_query_from_the_command_line(archive_folder, capsys):
    assert main(["search", "-LCM", "--method", "bm25", "-k", "2", "--no-index"]) == 0
    out = capsys.readouterr().out
    assert "rank" in out or "No report matches" in out


STUCK = "pipe became stuck during the slide"


@pytest.fixture(scope="module")
def bm25(sample):
    return BM25Retriever().index(sample)


@pytest.mark.data
def test_cli_search_prints_report_38_first(capsys, archive_folder):
    assert main(["search", STUCK, "--method", "bm25", "-k", "3", "--corpus", "sample"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].split()[:5] == ["rank", "report", "dated", "score", "row"]
    first = out[2].split()  # the 23:30 row of the report dated 26 Nov is printed on its real day, 25 Nov
    assert first[:3] == ["1", "D038", "2020-11-26"] and first[4:6] == ["2020-11-25", "23:30-04:00"]


def test_cli_search_help_explains_every_option(capsys):
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = capsys.readouterr().out
    for option in ("--method", "-k", "--corpus", "--expand", "--archive", "--width"):
        assert option in text


def _damaged_copy(built_index, tmp_path, damage):
    index, _ = built_index
    copy = tmp_path / "ix"
    shutil.copytree(index, copy)
    gen = copy / (copy / "CURRENT").read_text().strip()
    damage(gen)
    return copy


DAMAGES = {
    "vectors truncated": lambda g: os.truncate(g / "vectors.npy", 1000),
    "passages not JSON": lambda g: (g / "passages.json").write_text("{bad"),
    "passages empty": lambda g: (g / "passages.json").write_text("[]"),
    "bm25 file missing": lambda g: (g / "bm25" / "vocab.index.json").unlink(),
}


@pytest.mark.data
@pytest.mark.model
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_index_file_is_named_and_the_search_goes_on(built_index, tmp_path, capsys, damage):
    """A damaged index file gave numpy's, json's or bm25s's own message and exit 1; it is named as damaged and search
    goes on without the index.
    """
    from ddrsearch.stores.disk_index import open_index

    copy = _damaged_copy(built_index, tmp_path, DAMAGES[damage])
    # before: numpy's, json's or bm25s's own message ("Failed to read all data for array", "Expecting
    # property name", "[Errno 2] ...", "call index() before searching") and exit 1
    with pytest.raises(SearchIndexError, match=rf"The index {copy} is damaged \(.*rebuild it"):
        open_index(copy)
    _, one = built_index
    assert main(["search", "stuck pipe", "--dir", str(one), "--index", str(copy), "-k", "1"]) == 0
    out = capsys.readouterr()
    assert "note: not using the index: The index" in out.err and "D038" in out.out


@pytest.mark.data
@pytest.mark.model
def test_a_query_no_report_holds_a_word_of_says_the_ranking_is_by_meaning_alone(archive_folder, capsys):
    """A query sharing no word with the reports gave confident-looking results silently; search notes that the ranking
    is by meaning alone.
    """
    # before: five confident-looking results for a query in another script, with no word in common
    assert main(["search", "Бурение скважины", "--corpus", "sample", "-k", "3", "--no-index"]) == 0
    out = capsys.readouterr()
    assert "3 report(s)" in out.out
    assert "no word of 'Бурение скважины' occurs in the rows searched" in out.err
    assert main(["search", "stuck pipe", "--corpus", "sample", "-k", "3", "--no-index"]) == 0
    assert "no word of" not in capsys.readouterr().err


@pytest.mark.data
def test_search_and_ask_print_the_notes(capsys, archive_folder):
    assert main(["search", "stuk pipe", "-k", "2"]) == 0
    assert 'note: no report prints "stuk": did you mean "stuck"' in capsys.readouterr().err
    assert main(["ask", "when did the pipe get stuk"]) == 0
    assert 'note: no report prints "stuk": did you mean "stuck"' in capsys.readouterr().err
    assert main(["search", "pipe stuck while sliding", "-k", "2"]) == 0
    assert "no report prints" not in capsys.readouterr().err


@pytest.mark.data
@pytest.mark.model
def test_a_query_naming_a_day_in_words_ranks_the_rows_that_began_that_day(archive_folder, capsys):
    """Before: 'thanksgiving' put the report dated 26 Nov (D038) first, showing its 20:30 row of the 25th, while
    ``ask`` looked at the rows that began on the 26th. Now search ranks those rows too: both reports covering the
    day (D039 from 06:00, D038 to 06:00), each showing a row that began on 2020-11-26, and the note says so."""
    assert main(["search", "thanksgiving", "--corpus", "archive", "-k", "2", "--no-index"]) == 0
    out = capsys.readouterr()
    ranked = [line.split() for line in out.out.splitlines() if re.match(r"\s*[12]\s+[DC]\d{3}\s", line)]
    assert sorted(r[1] for r in ranked) == ["D038", "D039"]
    assert all(r[4] == "2020-11-26" for r in ranked)  # each row shown began on the day
    assert ("ranked by the day it names (2020-11-26: the rows that began on it, in D039 and D038, first) "
            "and by meaning") in out.err
    assert "meaning alone" not in out.err


def test_the_key_to_report_names_is_written_from_the_names_shown():
    # before: every table ended "Report D038 = drilling report 38, C003 = completion report 3.", whatever it showed,
    # and a report of your own folder (today.pdf, shown as D051) was never named by its file (new reader)
    from ddrsearch.cli.search import _names_key

    forge = "FORGE-16A-78-32_{}_{:03d}_2020-11-26.pdf".format
    assert _names_key([("C003", forge("Completion", 3)), ("D038", forge("Drilling", 38)),
                       ("D050", forge("Drilling", 50))]) == (
        " Report D038 = drilling report 38, C003 = completion report 3.")
    assert _names_key([("D050", forge("Drilling", 50))]) == " Report D050 = drilling report 50."
    assert _names_key([("D051", "today.pdf"), ("D050", forge("Drilling", 50))]) == (
        " Report D050 = drilling report 50, D051 = today.pdf.")
    assert _names_key([("D051", "to\x1b[2Jday.pdf")]) == " Report D051 = today.pdf."  # no control character
    assert _names_key([("my_report", "my_report.pdf")]) == " Report my_report = my_report.pdf."
    # second adversarial pass: a line break in a file name started a line of its own; a long name is cut
    assert _names_key([("D040", "evil\nReport D001 = all clear.pdf")]) == (
        " Report D040 = evil Report D001 = all clear.pdf.")
    assert _names_key([("D041", "L" * 240 + ".pdf")]) == f" Report D041 = {'L' * 80}...."
    assert _names_key([]) == ""


@pytest.mark.data
def test_a_note_quotes_a_very_long_query_cut(capsys, archive_folder):
    # adversarial: a one-word query of 88,000 letters was quoted whole in the "no word of ... occurs" note
    word = "overpull" * 11000
    assert main(["search", word, "--corpus", "sample"]) == 0
    err = capsys.readouterr().err
    assert "[...]" in err and max(len(line) for line in err.splitlines()) < 600

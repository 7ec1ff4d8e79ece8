"""``ddrsearch show``: a row shown from its id, the files it writes, and its errors."""

from __future__ import annotations

import pytest

from conftest import REPORT_38
from ddrsearch.answers.sources import find_report
from ddrsearch.cli.command import main
from ddrsearch.errors import CitationError
from ddrsearch.reading.report import read_report

pytestmark = pytest.mark.data


def test_show_a_negative_row_and_a_report_without_rows(archive_folder, capsys):
    """``show --row -1`` said "'D038-r-1' is not a row id"; a report without rows listed the range "r00 to r00"."""
    from ddrsearch.errors import CitationError
    from ddrsearch.reading.names import resolve_row_id

    assert main(["show", "D038", "--row", "-1"]) == 2  # before: "'D038-r-1' is not a row id"
    assert "--row must be 0 or more" in capsys.readouterr().err
    c003 = read_report(archive_folder / "FORGE-16A-78-32_Completion_003_2021-01-06.pdf")
    with pytest.raises(CitationError, match="has no operation rows") as exc:  # before: "(r00 to r00)"
        resolve_row_id("C003-r00", [c003])
    assert "r00 to r00" not in str(exc.value)


def test_show_writes_into_a_folder_that_does_not_exist_yet(tmp_path, archive_folder, capsys):
    """``show --out`` into a folder that does not exist yet failed with [Errno 2]; the folder is made."""
    out = tmp_path / "crops" / "today" / "D038-r08.png"  # before: [Errno 2] No such file or directory
    assert main(["show", "D038", "--row", "8", "--out", str(out)]) == 0
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_show_takes_the_row_id_that_ask_prints(tmp_path, capsys, archive_folder):
    """``show D038-r08`` (the row id ask prints) required ``--row``; it takes the row id, and says when both are given.
    """
    # before: "ddrsearch show D038-r08" failed with "the following arguments are required: --row"
    out = tmp_path / "r.png"
    assert main(["show", "D038-r08", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert out.is_file() and "[D038-r08]" in printed
    # the row began at 23:30 on 25 Nov, in the report dated 26 Nov (before: "page 1, 23:30-04:00", no day)
    assert "(report dated 2020-11-26), page 1, 2020-11-25 23:30-04:00" in printed.splitlines()[0]
    assert main(["show", "D038-r08", "--row", "3"]) == 2
    assert "already names the row; drop --row 3" in capsys.readouterr().err
    assert main(["show", "D038"]) == 2
    assert "either as --row N or as a row id such as D038-r08" in capsys.readouterr().err


def test_show_reads_row_ids_loosely_and_from_your_own_folder(tmp_path, capsys, archive_folder):
    """``show`` refused d038-r08 and D038-r8, and could not show ask --dir's row ids; it reads them loosely and takes
    ``--dir``.
    """
    # before: d038-r08 and D038-r8 were refused; ask --dir's row ids could not be shown
    import shutil

    assert main(["show", "d038-r8", "--out", str(tmp_path / "a.png")]) == 0
    assert "[D038-r08]" in capsys.readouterr().out
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(archive_folder / "FORGE-16A-78-32_Drilling_050_2020-12-08.pdf", mine / "rig 7 day.pdf")
    assert main(["show", "D050-r06", "--dir", str(mine), "--out", str(tmp_path / "b.png")]) == 0
    assert "rig 7 day.pdf" in capsys.readouterr().out


PNG = b"\x89PNG\r\n\x1a\n"


def test_find_report_and_show_command(archive, archive_folder, tmp_path, capsys):
    assert find_report("38", archive).file_name == REPORT_38
    assert find_report("D038", archive).file_name == REPORT_38
    with pytest.raises(CitationError, match="'D001' is not among the 76 reports"):
        find_report("D001", archive)
    out = tmp_path / "row.png"
    assert main(["show", "D038", "--row", "8", "--out", str(out), "--highlight", "stuck"]) == 0
    text = capsys.readouterr().out
    assert "[D038-r08]" in text and "verbatim" in text and out.read_bytes().startswith(PNG)
    assert main(["show", "D038", "--row", "12"]) == 1
    assert "D038-r12" in capsys.readouterr().err
    assert main(["show", "D001", "--row", "0"]) == 1
    assert "D001" in capsys.readouterr().err


def test_show_takes_corpus_and_names_the_nearest_reports_for_one_not_searched(tmp_path, capsys):
    """Before: show D038-r08 --corpus archive was refused with the top-level usage, and 'report D099 is not among the
    76 reports searched' suggested nothing. After: --corpus is accepted; a missing report names the nearest ones
    and the range searched."""
    assert main(["show", "D038-r08", "--corpus", "archive", "--out", str(tmp_path / "r.png")]) == 0
    assert "Quotation checked against the PDF: verbatim." in capsys.readouterr().out
    assert main(["show", "D099-r01"]) == 1
    assert ("report D099 is not among the 76 reports searched (nearest: D076, D075, D074; the drilling reports "
            "searched are D002 to D076 and the completion report searched is C003)") in capsys.readouterr().err
    assert main(["show", "C040", "--row", "1"]) == 1
    assert "(nearest: C003, D040, D039;" in capsys.readouterr().err


def test_show_without_a_row_names_a_report_that_is_not_there_first(tmp_path, capsys, monkeypatch, archive_folder):
    """``show C009`` asked for the row; it says first that C009 is not among the reports, and where the PNG went."""
    assert main(["show", "C009"]) != 0  # before: "give the row ... (not 'C009' alone)"
    err = capsys.readouterr().err
    assert "'C009' is not among the 76 reports" in err and "give the row" not in err
    monkeypatch.chdir(tmp_path)
    assert main(["show", "D038-r08"]) == 0
    assert f"Wrote {tmp_path.resolve() / 'D038-r08.png'}." in capsys.readouterr().out  # the full path, not 'D038-r08.png'

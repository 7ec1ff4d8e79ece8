"""Bad input, round 4: the depth-passed answer (Answerer.depth_answer and the structured path's
"depth_passed"), ask on your own folder, odd --out and scanned PDFs from the command line.

Each test was written by an adversarial pass and failed on the code as found; each names the defect it pins.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from ddrsearch.cli.command import main

R38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
R40 = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"
R41 = "FORGE-16A-78-32_Drilling_041_2020-11-29.pdf"
R42 = "FORGE-16A-78-32_Drilling_042_2020-11-30.pdf"


def _with_md(src: Path, dst: Path, new: str) -> None:
    """Copy report ``src`` to ``dst`` with its header's MD/TVD value replaced by ``new``."""
    import pymupdf

    doc = pymupdf.open(src)
    page = doc[0]
    words = page.get_text("words")
    i = next(i for i, w in enumerate(words) if w[4] == "MD/TVD:")
    rect = pymupdf.Rect(words[i + 1][:4])
    page.add_redact_annot(rect)
    page.apply_redactions()
    if new:
        page.insert_text((rect.x0, rect.y1 - 1), new, fontsize=6.2, fontname="helv")
    doc.save(dst)


# --- the depth-passed path -------------------------------------------------------------------------------

@pytest.mark.model
def test_ask_which_day_did_we_pass_0_ft_is_no_traceback(sample):
    # before: TypeError: unsupported format string passed to NoneType.__format__ (answers.py, depth_answer):
    # StructuredIndex takes `(md_ft or 0) >= 0`, so the first report *without* an MD (D003, no activity)
    # "passes 0 ft", and the note formats its MD None with :,.0f. Same on the archive (D001/D002).
    from ddrsearch.answers.answerer import Answerer

    card = Answerer(sample).ask("which day did we pass 0 ft?")
    assert "None" not in card.note


def test_a_report_without_md_never_passes_a_depth(sample):
    # `ddrsearch search "which day did we pass 0 ft"` ranks D003 ("No Activity.", no MD field) first with
    # score 1.56: the structured path counts a missing MD as 0 ft.
    from ddrsearch.retrieval.structured import StructuredIndex

    match = StructuredIndex(sample).score("which day did we pass 0 ft")
    by_name = {r.file_name: r for r in sample}
    assert match is None or all(by_name[name].md_ft is not None for name in match.scores)


def test_an_implausible_md_is_not_taken_as_the_depth_passed(tmp_path, archive_folder):
    # An MD typed 80240 (typed_fields flags it: "80240 is outside the plausible range 0-40000 ft; check
    # the unit") is used as is: "which day did we pass 9,000 ft?" names D041 (which drilled 6,945-7,294 ft),
    # and `ddrsearch search ... --dir` ranks D041 first with score 1.52, with no note about the value.
    from ddrsearch.reading.report import load_archive
    from ddrsearch.retrieval.structured import StructuredIndex

    shutil.copy(archive_folder / R40, tmp_path / R40)
    _with_md(archive_folder / R41, tmp_path / R41, "80240")
    shutil.copy(archive_folder / R42, tmp_path / R42)
    match = StructuredIndex(load_archive(tmp_path)).score("which day did we pass 9,000 ft?")
    assert match is None or R41 not in match.scores


@pytest.mark.model
@pytest.mark.parametrize("depth, report", [("4,800", "D020"), ("5,600", "D032")])
def test_a_depth_the_md_field_answers_is_not_dropped_for_want_of_a_row(archive, depth, report):
    # The MD field answers it (D020: MD 4,811 ft; D032: MD 5,641 ft), but no row prints a depth in
    # [N, MD] the way prints_depth reads it (D020's row says "from 4,743' - 4,811," without the foot mark),
    # so ask() throws the typed answer away and prints "Not found in these reports (best support 0.25 < 0.442)".
    from ddrsearch.answers.answerer import Answerer

    card = Answerer(archive).ask(f"which day did we pass {depth} ft?")
    assert report in card.note or (card.found and card.top.label == report)


@pytest.mark.model
def test_a_depth_passed_between_two_sample_reports_is_not_pinned_on_the_later_one(sample):
    # On the ten-report sample, "when did we reach 5,000 ft" answers D036 (2020-11-24, MD 6,016 ft) and
    # quotes its rows "Drilling core from 5,878' to 5,892'" ... as where the bit passed 5,000 ft. The bit
    # passed it on 2020-11-10 (D022, not in the sample); the sample's previous report D019 (2020-11-07)
    # ends at 4,552 ft. The card should say the depth was passed between D019 and D036, or quote a row
    # that actually crosses it.
    from ddrsearch.answers.answerer import Answerer
    from ddrsearch.retrieval.rowchoice import prints_depth

    card = Answerer(sample).ask("when did we reach 5,000 ft")
    crosses = any(prints_depth(r.text, (0, 5000)) for r in card.rows)
    assert crosses or "D019" in card.note or not card.rows


def test_the_depth_note_does_not_round_the_depth_asked(archive):
    # "which day did we pass 0.5 ft?" -> note "first MD >= 0 ft"; 8000.5 ft -> "first MD >= 8,000 ft".
    from ddrsearch.retrieval.structured import StructuredIndex

    index = StructuredIndex(archive)
    assert "8,000.5" in index.score("which day did we pass 8000.5 ft?").detail


# --- command line ------------------------------------------------------------------------------------------

def test_ask_with_an_option_it_does_not_have_names_that_option_plainly(capsys):
    # `ddrsearch ask "which day did we pass 7,000 ft?" --dir my_reports` (ask had no --dir then) printed
    # "error: unrecognized arguments: my_reports -- --dir": move_dash_query took --dir for a query
    # starting with a dash and moved it behind "--".
    with pytest.raises(SystemExit):
        main(["ask", "which day did we pass 7,000 ft?", "--weight", "0.5"])
    err = capsys.readouterr().err
    assert "-- --weight" not in err and "ask has no option --weight" in err


@pytest.mark.model
def test_ask_answers_from_your_own_folder(tmp_path, archive_folder, capsys):
    # search and app took --dir; ask did not, so your own PDFs could only be asked through Python
    for name in (R40, R41, R42):
        shutil.copy(archive_folder / name, tmp_path / name)
    assert main(["ask", "which day did we pass 7,000 ft?", "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "From the typed fields (first MD >= 7,000 ft): D04" in out
    assert main(["ask", "stuck", "--ocr", "auto"]) == 2
    assert "--ocr applies to --dir" in capsys.readouterr().err


def test_an_image_only_pdf_in_dir_says_to_use_the_ocr_option(tmp_path, archive_folder, capsys):
    # The CLI user is told "Read it with OCR: read_report(path, ocr='auto')" - Python - although the
    # command they ran takes --ocr auto.
    import pymupdf

    shutil.copy(archive_folder / R38, tmp_path / R38)
    doc = pymupdf.open()
    doc.new_page()
    doc.save(tmp_path / "scan.pdf")
    assert main(["search", "stuck", "--dir", str(tmp_path), "--method", "bm25"]) == 0  # issue 26: the rest searched
    assert "scan.pdf skipped" in (err := capsys.readouterr().err) and "--ocr" in err


def test_eval_out_ending_in_a_slash_is_not_written_as_a_file_without_extension(tmp_path, archive_folder, capsys):
    # --out results/ (a folder that does not exist yet) writes a CSV *file* named "results" and
    # "results_means.csv" beside it.
    out = str(tmp_path / "results") + os.sep
    main(["eval", "starter", "--methods", "bm25", "--out", out])
    assert not (tmp_path / "results").is_file()


def test_manifest_names_every_unreadable_file_at_once(tmp_path, archive_folder, capsys):
    # search --dir lists every unreadable file; manifest (and index build --dir) stop at the first one,
    # so a folder with three bad files takes three runs to clean up.
    shutil.copy(archive_folder / R38, tmp_path / R38)
    (tmp_path / "empty.pdf").write_bytes(b"")
    (tmp_path / "notes.pdf").write_text("not a pdf")
    assert main(["manifest", str(tmp_path), "--out", str(tmp_path / "m.csv")]) == 1
    err = capsys.readouterr().err
    assert "empty.pdf" in err and "notes.pdf" in err


def test_a_link_to_the_folder_itself_is_not_called_a_subfolder_of_reports(tmp_path, archive_folder, capsys):
    # `ln -s . loop` in the folder: "warning: ...: not read (only the folder's own PDF files are): loop/
    # (1 PDF). Move the reports you want searched into the folder itself." - they already are.
    shutil.copy(archive_folder / R38, tmp_path / R38)
    os.symlink(".", tmp_path / "loop")
    assert main(["search", "stuck", "--dir", str(tmp_path), "--method", "bm25"]) == 0
    assert "loop/" not in capsys.readouterr().err

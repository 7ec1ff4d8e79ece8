"""Bad input, second adversarial pass: what tests/test_bad_input.py does not cover.

Each test reproduces a case that, before it was fixed, gave a raw traceback, a
misleading message, or left something out silently. Odd files are made at test
time in a temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import sys

import pytest

from ddrsearch.cli.command import main
from ddrsearch.errors import DataNotFoundError, FolderWarning, ReportError, SearchIndexError
from ddrsearch.reading.report import load_archive, read_report

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"


# --- odd files in a report folder -----------------------------------------------------------

def test_a_broken_link_named_like_a_pdf_is_named(tmp_path, archive_folder):
    shutil.copy(archive_folder / REPORT_38, tmp_path)
    (tmp_path / "today.pdf").symlink_to(tmp_path / "gone" / "today.pdf")
    # before: skipped without a word (neither a file nor a folder)
    with pytest.warns(FolderWarning, match=r"today\.pdf \(a link to .*gone/today\.pdf, which does not exist\)"):
        assert [r.file_name for r in load_archive(tmp_path)] == [REPORT_38]
    (tmp_path / REPORT_38).unlink()
    # before: "No PDF files in <folder>" with the broken link unmentioned
    with pytest.raises(DataNotFoundError, match=r"Broken link\(s\), not read: today\.pdf"):
        load_archive(tmp_path)


@pytest.mark.skipif(sys.platform != "linux", reason="file names are bytes only on Linux")
def test_a_file_name_that_is_not_utf8_is_not_called_damaged(tmp_path, archive_folder):
    name = os.path.join(os.fsencode(tmp_path), b"DDR \xff38.pdf")
    shutil.copy(archive_folder / REPORT_38, name)
    # before: "could not be opened as a PDF (Failed to open file ...). Fetch or copy the file again."
    with pytest.raises(ReportError, match="its name is not valid UTF-8.*Rename the file") as exc:
        read_report(os.fsdecode(name))
    assert "Fetch or copy" not in str(exc.value)


# --- a damaged index on disk ------------------------------------------------------------------

@pytest.fixture(scope="module")
def built_index(tmp_path_factory, archive_folder):
    """An index of reports 38 and 39 (built once), and the folder of the two PDFs."""
    root = tmp_path_factory.mktemp("ix")
    one = root / "one"
    one.mkdir()
    for name in (REPORT_38, REPORT_39):
        shutil.copy(archive_folder / name, one)
    assert main(["index", "build", "--dir", str(one), "--index", str(root / "ix")]) == 0
    return root / "ix", one


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


@pytest.mark.model
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_a_damaged_index_file_is_named_and_the_search_goes_on(built_index, tmp_path, capsys, damage):
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


@pytest.mark.parametrize("header", [[], {"format": 1}, "text"])
def test_an_index_header_that_is_not_a_header_is_no_traceback(built_index, tmp_path, capsys, header):
    copy = _damaged_copy(built_index, tmp_path, lambda g: (g / "header.json").write_text(json.dumps(header)))
    # before: AttributeError: 'list' object has no attribute 'get' (a raw traceback), or KeyError 'settings'
    assert main(["index", "status", "--index", str(copy)]) == 1
    assert "header.json is not an index header" in capsys.readouterr().err
    from ddrsearch.stores.generations import current_generation

    with pytest.raises(SearchIndexError, match="is damaged"):
        current_generation(copy)


# --- eval with a question of stop words only --------------------------------------------------

def test_eval_scores_a_stop_word_question_zero_instead_of_stopping(archive_folder, tmp_path, capsys):
    import yaml

    from ddrsearch.evaluation.questionfiles import question_set_path

    data = yaml.safe_load(question_set_path("starter").read_text(encoding="utf-8"))
    data["questions"][0]["question"] = "the of ?"  # accepted by load_questions
    qfile = tmp_path / "stop.yaml"
    qfile.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    # before: "ddrsearch eval: The query 'the of ?' has no searchable words" and no table at all
    # (evidence_agreement searched it again without the care evaluate_retriever takes)
    assert main(["eval", str(qfile), "--methods", "bm25"]) == 0
    out = capsys.readouterr().out
    assert "note: bm25 had no searchable words in question(s) S01; they score zero." in out
    assert "recall@5" in out


def test_eval_out_below_a_file_is_refused_before_the_evaluation_runs(tmp_path, capsys, monkeypatch):
    import ddrsearch.evaluation.questionfiles

    afile = tmp_path / "results"
    afile.write_text("")

    def never(*args, **kwargs):
        raise AssertionError("the evaluation ran before --out was checked")

    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", never)
    # before: the whole evaluation ran, then "ddrsearch eval: [Errno 17] File exists: '.../results'"
    # and the per-question CSV was never written
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(afile / "run.csv")]) == 1
    err = capsys.readouterr().err
    assert f"--out {afile / 'run.csv'} cannot be written: {afile} is a file, not a folder" in err
    assert "Errno" not in err


# --- a TIME BREAKDOWN row whose FROM time cannot be read ------------------------------------

def test_a_first_row_with_an_unreadable_from_time_is_noted_not_lost(tmp_path, archive_folder):
    import pymupdf

    doc = pymupdf.open(archive_folder / REPORT_38)
    page = doc[0]
    first_from = page.search_for("06:00")[0]  # the first row's FROM; "06:00" is the first match on the page
    page.add_redact_annot(first_from)
    page.apply_redactions()
    page.insert_text((first_from.x0, first_from.y1 - 1.5), "25:99", fontsize=7)
    doc.save(tmp_path / REPORT_38)
    r = read_report(tmp_path / REPORT_38)
    # before: the row (PJSM ... Rig up Schlumberger run the UBI log) vanished; only the hours sum hinted at it
    assert not any("Schlumberger" in o.operations for o in r.operations)
    assert any("text before the first row with a HH:MM FROM time is not read" in n and "Schlumberger" in n
               for n in r.notes)


# --- settings --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["DDRSEARCH_ARCHIVE_DIR", "DDRSEARCH_INDEX_DIR"])
def test_a_setting_with_an_unknown_home_folder_names_the_variable(monkeypatch, capsys, name):
    monkeypatch.setenv(name, "~nosuchuser-ddrsearch/reports")
    # before: "ddrsearch search: Could not determine home directory." (neither variable nor value)
    assert main(["search", "stuck", "--method", "bm25", "--no-index"] if name.endswith("ARCHIVE_DIR")
                else ["index", "status"]) == 1
    err = capsys.readouterr().err
    assert f"{name}='~nosuchuser-ddrsearch/reports'" in err and "without '~'" in err


def test_python_dash_m_runs_the_command_line():
    import os
    import subprocess
    import sys
    from pathlib import Path

    code_dir = Path(__file__).resolve().parents[1] / "code"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(code_dir), os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-m", "ddrsearch", "--help"], capture_output=True, text=True, env=env,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert "search" in done.stdout and "ask" in done.stdout

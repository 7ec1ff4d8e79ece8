"""Bad input, round 3: the rig-terms table (queries.load_rig_terms / add_rig_terms / rewrite_query,
TunedHybridRetriever(rig_terms=...)) and `ddrsearch eval --out`.

Each test pins a defect found by feeding odd input (a raw traceback, a silent no-op or loss, a misleading
message or line number, or a hang): written failing first, then fixed.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ddrsearch.cli.command import main
from ddrsearch.errors import GlossaryError
from ddrsearch.text.rewriting import RigTerm, add_rig_terms, load_rig_terms, rewrite_query

HEADER = "words,report_words,note\n"


def _write(tmp_path, text: str | bytes, name: str = "terms.csv") -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


# --- the header ----------------------------------------------------------------------------------------------

def test_a_table_saved_with_a_byte_order_mark_is_read(tmp_path):
    # Excel's "CSV UTF-8" writes a BOM. The glossary loader (glossary.load_glossary) and the question-set
    # loader read with utf-8-sig; load_rig_terms reads with utf-8, so the header it sees is '\ufeffwords,...'
    # and it says "the first line must be the header words,report_words,note." - which it already is.
    path = _write(tmp_path, ("\ufeff" + HEADER + "blackout,lost power,n\n").encode("utf-8"))
    terms = load_rig_terms(path)
    assert add_rig_terms("rig blackout", terms) == "rig blackout lost power"


def test_a_wrong_header_is_quoted_in_the_message(tmp_path):
    # the header's case does not matter (as in the glossary loader); a wrong header is quoted, so the user
    # can see what differs
    path = _write(tmp_path, "Words,Report_Words,Note\nblackout,lost power,n\n")
    assert add_rig_terms("rig blackout", load_rig_terms(path)) == "rig blackout lost power"
    path = _write(tmp_path, "phrase,report_words,note\nblackout,lost power,n\n")
    with pytest.raises(GlossaryError, match="found 'phrase,report_words,note'"):
        load_rig_terms(path)


def test_a_file_that_is_not_utf8_says_to_save_it_as_utf8(tmp_path):
    # before: "Cannot read the rig-terms table ...: 'utf-8' codec can't decode byte 0xe9 in position 27:
    # invalid continuation byte" - names the file, not what to do (the question-set loader says "save it as UTF-8")
    path = _write(tmp_path, (HEADER + "café blackout,lost power,n\n").encode("latin-1"))
    with pytest.raises(GlossaryError) as err:
        load_rig_terms(path)
    assert "UTF-8" in str(err.value)


# --- entries that can never do anything are accepted without a word ----------------------------------------

def test_a_table_with_no_entries_is_not_silently_empty(tmp_path):
    # A header-only table loads as () and TunedHybridRetriever(rig_terms=path) then rewrites nothing
    # while its .rig_terms still names the file: the user believes the table is on.
    path = _write(tmp_path, HEADER)
    with pytest.raises(GlossaryError, match=str(path)):
        load_rig_terms(path)


@pytest.mark.parametrize("row, what", [
    ("!!! | ???,lost power,n\n", "a phrasing cell with no words (only punctuation)"),
    ("blackout,---,n\n", "a report_words cell with no words (only punctuation)"),
    ("the | of,lost power,n\n", "phrasings made only of stop words (they fire on almost every query)"),
])
def test_an_entry_that_adds_nothing_or_everything_is_refused(tmp_path, row, what):
    # before: loaded without a word; the first two entries never change a query,
    # the third appends 'lost power' after every 'the' and 'of' of every query
    path = _write(tmp_path, HEADER + row)
    with pytest.raises(GlossaryError, match="line 2"):
        load_rig_terms(path)
        pytest.fail(f"{what} was accepted: {load_rig_terms(path)!r}")


def test_an_empty_note_is_refused_as_documented(tmp_path):
    # load_rig_terms' docstring: "Raises GlossaryError: ... an empty cell"; the note cell may be empty
    path = _write(tmp_path, HEADER + "blackout,lost power,\n")
    with pytest.raises(GlossaryError, match="line 2"):
        load_rig_terms(path)


# --- line numbers ------------------------------------------------------------------------------------------------

def test_line_numbers_are_lines_of_the_file_after_a_quoted_newline(tmp_path):
    # The loader counts CSV rows, not lines: after a cell holding a newline every line number is one short.
    # File lines: 1 header, 2-3 one entry, 4 blackout, 5 outage, 6 blackout again.
    # before: "line 5: the phrasing 'blackout' is already listed on line 3" (lines 3 and 5 hold other text)
    path = _write(tmp_path, HEADER + '"alpha","b\nc",n\nblackout,lost power,n\noutage,x,q\nblackout,y,z\n')
    with pytest.raises(GlossaryError) as err:
        load_rig_terms(path)
    assert "line 6" in str(err.value) and "line 4" in str(err.value), str(err.value)


# --- rewrite_query and the retriever ------------------------------------------------------------------------

@pytest.mark.parametrize("value", ["my_rig_terms.csv", Path("my_rig_terms.csv"), 1])
def test_rewrite_query_with_a_path_or_a_wrong_value_is_no_raw_traceback(tmp_path, value):
    # TunedHybridRetriever and build_retriever take rig_terms=<path>; rewrite_query does not, and says
    # AttributeError: 'str' object has no attribute 'phrases'  (or TypeError: 'int' object is not iterable)
    _write(tmp_path, HEADER + "blackout,lost power,n\n", "my_rig_terms.csv")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        try:
            out = rewrite_query("rig blackout", rig_terms=value)
        except (ValueError, GlossaryError) as err:
            assert "rig_terms" in str(err)
        else:
            assert out == "rig blackout lost power"
    finally:
        os.chdir(cwd)


def test_with_weight_keeps_the_table_it_was_built_with(tmp_path):
    # TunedHybridRetriever reads the CSV at construction ("the table itself ... read now"), but
    # with_weight() builds the copy from the path again: after the file is edited the copy silently
    # uses another table (a weight sweep then compares two tables), after it is removed with_weight fails.
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    path = _write(tmp_path, HEADER + "blackout,lost power,n\n")
    r = TunedHybridRetriever(rig_terms=path)
    _write(tmp_path, HEADER + "blackout,generators,n\n")
    assert r.with_weight(0.3).rewrite("rig blackout") == r.rewrite("rig blackout") == "rig blackout lost power"
    path.unlink()
    assert r.with_weight(0.5).rewrite("rig blackout") == "rig blackout lost power"


def test_a_long_phrasing_does_not_make_a_query_hang(monkeypatch):
    # add_rig_terms tried every length up to the longest phrasing at every position: a table holding one
    # 1,000-word phrasing (a pasted paragraph) made a 3,000-word query take ~5 s (3,000-word phrasing and a
    # 5,000-word query: ~60 s). Now only phrasings starting with the query's word at a position are compared,
    # so a phrasing whose first word the query lacks is never compared at all (counted, not timed).
    import ddrsearch.text.rewriting

    compared = []

    class Words(list):
        def __getitem__(self, key):
            if isinstance(key, slice):
                compared.append(key)
            return super().__getitem__(key)

    real = ddrsearch.text.rewriting.split_words
    monkeypatch.setattr(ddrsearch.text.rewriting, "split_words", lambda text: Words(real(text)))
    terms = (RigTerm((tuple(["w"] * 1000),), ("x",), "n", 2),)
    assert add_rig_terms(" ".join(["z"] * 3000), terms) == " ".join(["z"] * 3000)
    assert compared == []
    assert add_rig_terms("z w z", (RigTerm((("w",),), ("x",), "n", 2),)) == "z w x z"
    assert len(compared) == 1  # one comparison, at the one position starting with w


# --- ddrsearch eval --out ----------------------------------------------------------------------------------------

def _never(*args, **kwargs):
    raise AssertionError("the evaluation ran before --out was checked")


@pytest.mark.skipif(not Path("/proc/self").is_dir(), reason="needs /proc")
def test_eval_out_that_cannot_be_created_is_refused_before_the_evaluation(capsys, monkeypatch):
    # before: the whole evaluation ran (minutes with dense/hybrid), printed its table, then
    # "ddrsearch eval: [Errno 2] No such file or directory: '/proc/run.csv'" and exit 1 with no CSV.
    # (A read-only folder does the same with [Errno 13] for a non-root user.)
    import ddrsearch.evaluation.questionfiles

    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", _never)
    assert main(["eval", "fresh", "--methods", "bm25", "--out", "/proc/run.csv"]) == 1
    err = capsys.readouterr().err
    assert "--out /proc/run.csv" in err and "Errno" not in err


def test_eval_out_whose_means_file_is_a_folder_is_refused_before_the_evaluation(tmp_path, capsys, monkeypatch):
    # --out run.csv also writes run_means.csv; when that is a folder the evaluation ran, wrote run.csv,
    # then "ddrsearch eval: [Errno 21] Is a directory: '.../run_means.csv'" (the means are lost).
    import ddrsearch.evaluation.questionfiles

    (tmp_path / "run_means.csv").mkdir()
    monkeypatch.setattr(ddrsearch.evaluation.questionfiles, "load_questions", _never)
    assert main(["eval", "fresh", "--methods", "bm25", "--out", str(tmp_path / "run.csv")]) == 1
    err = capsys.readouterr().err
    assert "run_means.csv" in err and "Errno" not in err


def test_eval_out_empty_is_refused(capsys):
    assert main(["eval", "fresh", "--methods", "bm25", "--out", ""]) == 1
    assert "--out is empty" in capsys.readouterr().err


def test_eval_of_a_split_the_set_does_not_have_says_which_splits_it_has(capsys, archive_folder):
    assert main(["eval", "fresh", "--methods", "bm25", "--split", "dev"]) == 1
    err = capsys.readouterr().err
    assert "no questions in the dev split" in err and "--split test" in err


def test_a_hybrid_option_given_to_another_method_is_named():
    from ddrsearch.retrieval.pipeline import make_retriever

    with pytest.raises(ValueError, match="'bm25' method takes no such option.*rig_terms.*belong to 'hybrid'"):
        make_retriever("bm25", rig_terms=True)


def test_an_empty_rig_terms_path_is_named(tmp_path):
    from ddrsearch.retrieval.levered import TunedHybridRetriever

    with pytest.raises(ValueError, match="rig_terms must be"):
        TunedHybridRetriever(rig_terms="")
    with pytest.raises(GlossaryError, match="path is empty"):
        load_rig_terms("")


# --- listed by an earlier adversarial pass, fixed now ---------------------------------------------------------------

def test_a_question_set_path_that_is_a_folder_is_named_as_one(tmp_path, capsys):
    # before: "No question-set file at <folder>." although something is there
    assert main(["eval", str(tmp_path), "--methods", "bm25"]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path} is a folder, not a question-set file" in err and "starter, archive, fresh" in err


@pytest.mark.model
def test_a_query_no_report_holds_a_word_of_says_the_ranking_is_by_meaning_alone(archive_folder, capsys):
    # before: five confident-looking results for a query in another script, with no word in common
    assert main(["search", "Бурение скважины", "--corpus", "sample", "-k", "3", "--no-index"]) == 0
    out = capsys.readouterr()
    assert "3 report(s)" in out.out
    assert "no word of 'Бурение скважины' occurs in the rows searched" in out.err
    assert main(["search", "stuck pipe", "--corpus", "sample", "-k", "3", "--no-index"]) == 0
    assert "no word of" not in capsys.readouterr().err

"""Bad and odd input found by the sixth adversarial pass (eval's intervals and verdict, spelling notes, tokenizer).

Each test names what happened before the fix.
"""

from __future__ import annotations

import pandas as pd
import pytest
import yaml

from ddrsearch.cli.command import main
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import build_retriever
from ddrsearch.text.spelling import MAX_NOTES, Spelling, query_words, spelling_notes
from ddrsearch.text.tokenizer import tokenize


@pytest.fixture(scope="module")
def default_archive(archive):
    return build_retriever("hybrid", archive)


# --- spelling notes ----------------------------------------------------------------------------------------


def test_a_word_printed_only_in_a_header_table_is_not_called_unprinted(default_archive):
    # before: 'no report prints "straight"', though D016's BHA table prints STRAIGHT (only rows were checked)
    assert default_archive.unknown_words("hole straight") == {}
    assert "straight" in default_archive._spelling


def test_english_words_and_contractions_get_no_note(default_archive):
    # before: "how", "which", "much", "pass", "highest" were named; "didn't" gave 'did you mean "did"?'
    for q in ("how much mud did we lose?", "which day did we pass 8,000 ft?", "what was the highest mud weight?",
              "didn't the pipe come free? couldn't we circulate?"):
        assert default_archive.unknown_words(q) == {}, q
    assert query_words("didn't we POOH, wasn't it") == ["pooh"]


def test_a_misspelt_stop_word_gets_no_suggestion_and_stop_words_are_never_suggested(default_archive):
    # before: teh -> "the", wiht -> "with": words the search drops anyway
    assert default_archive.unknown_words("teh pipe wiht slips") == {}
    assert default_archive.unknown_words("P/U weigth")["weigth"][0] == "weight"
    assert "with" not in default_archive.unknown_words("P/U weigth")["weigth"]


def test_a_dropped_letter_is_suggested_before_an_extra_one(default_archive):
    # "stk" (strokes, printed in every pump table) used to come before "stuck" for "stuk"
    assert default_archive.unknown_words("stuk pipe") == {"stuk": ["stuck", "stk"]}


def test_notes_are_capped_for_a_very_long_query():
    # before: a 10,000-word query printed 368 note lines, one of 97,069 characters
    words = [f"zq{chr(97 + i % 26)}{chr(97 + i // 26 % 26)}x{i}" for i in range(400)]
    unknown = {w: [] for w in words} | {"stuk": ["stuck"]}
    lines = spelling_notes(unknown)
    assert len(lines) <= MAX_NOTES + 2 and max(len(line) for line in lines) < 400
    assert "and 395 more" in lines[-1]


def test_spelling_refuses_a_string_and_a_limit_below_one():
    with pytest.raises(TypeError, match="list of texts"):
        Spelling("stuck pipe")
    with pytest.raises(ValueError, match="at least 1"):
        Spelling(["stuck pipe"]).suggest("stuk", limit=0)
    assert Spelling(["stuck pipe"]).suggest("ｓｔｕｋ") == ["stuck"]  # full-width letters are folded


def test_other_methods_get_the_notes_too_even_when_nothing_matches(capsys, archive_folder):
    # before: only the default pipeline printed them, and not after "No report matches"
    assert main(["search", "stuk pipe", "--method", "keyword"]) == 0
    captured = capsys.readouterr()
    assert "No report matches" in captured.out and 'did you mean "stuck"' in captured.err
    assert main(["search", "stuk pipe", "--method", "dense", "-k", "1"]) == 0
    assert 'did you mean "stuck"' in capsys.readouterr().err


# --- eval ------------------------------------------------------------------------------------------------------


def _one_question_set(tmp_path, archive_folder):
    starter = load_questions("starter")
    q = starter["S01"]
    data = {"name": "one", "description": "one question", "corpus": "sample", "questions": [{
        "id": "Q1", "question": q.question, "category": q.category, "difficulty": q.difficulty,
        "style": q.style, "split": "dev",
        "relevant": [{"report": j.report, "grade": j.grade, "evidence": j.evidence} for j in q.relevant]}]}
    path = tmp_path / "one.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path


def test_one_question_gets_intervals_but_no_verdict(tmp_path, capsys, archive_folder):
    # before: "+0.631 [+0.631, +0.631]  better" from a single question
    path = _one_question_set(tmp_path, archive_folder)
    assert main(["eval", str(path), "--methods", "keyword,hybrid"]) == 0
    out = capsys.readouterr().out
    assert "better: the whole" not in out and "no verdict: 1 question is too few" in out


def test_intervals_are_printed_as_computed_and_stay_within_the_metric(tmp_path, capsys, archive_folder):
    # before: "0.900 ± 0.150" read as reaching 1.05; the CSV kept only the half width
    out_csv = tmp_path / "s.csv"
    assert main(["eval", "starter", "--methods", "bm25,hybrid", "-k", "3", "--out", str(out_csv)]) == 0
    means = pd.read_csv(tmp_path / "s_means.csv", index_col=0)
    for metric in ("hit@3", "MRR", "NDCG@3"):
        assert (means[f"{metric} low"] >= 0).all() and (means[f"{metric} high"] <= 1).all()
        assert (means[f"{metric} low"] <= means[metric]).all() and (means[metric] <= means[f"{metric} high"]).all()
    assert list(means["baseline"]) == ["bm25", "bm25"]
    assert list(means["verdict"]) == ["baseline", "no verdict"]
    assert "questions scored differently" in means.columns
    text = capsys.readouterr().out
    row = means.loc["hybrid"]
    assert f"{row['MRR']:.3f} [{row['MRR low']:.3f}, {row['MRR high']:.3f}]" in text


def test_expand_and_baseline_mistakes_are_named_as_such(capsys, archive_folder):
    # before: "names bm25+expand more than once" and "--expand applies to keyword and bm25, not bm25+expand"
    assert main(["eval", "starter", "--methods", "bm25+expand", "--expand"]) == 2
    assert "bm25+expand already has it" in capsys.readouterr().err
    # before: --baseline "" silently took the first method
    assert main(["eval", "starter", "--methods", "bm25,dense", "--baseline", ""]) == 2
    assert "--baseline is empty" in capsys.readouterr().err
    assert main(["eval", "starter", "--methods", "bm25,dense", "--baseline", " dense", "-k", "3"]) == 0
    assert "gain over dense" in capsys.readouterr().out


def test_shipped_sets_are_named_in_help_and_for_a_wrong_name(capsys, archive_folder):
    # before: eval --help listed starter, archive, fresh; "fresh3" gave "No question-set file at fresh3."
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    assert "fresh2" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError, match="starter, archive, fresh, fresh2"):
        load_questions("fresh3")


@pytest.mark.parametrize("target", ["/dev/null", "-"])
def test_eval_out_refuses_a_device_and_a_dash(target, capsys, archive_folder, tmp_path, monkeypatch):
    # before: /dev/null wrote /dev/null_means.csv; "-" wrote files named "-" and "-_means.csv"
    monkeypatch.chdir(tmp_path)
    assert main(["eval", "starter", "--methods", "bm25", "--out", target]) == 1
    assert "give a CSV file name" in capsys.readouterr().err
    assert not list(tmp_path.iterdir())


# --- tokenizer -------------------------------------------------------------------------------------------------


def test_the_leading_zero_is_not_added_after_an_ellipsis_a_bracket_or_for_other_digits():
    # before: "to...5,000 ft" gave 0.5000; ".٥" gave "0.٥", which tokenized again as "0", "٥"
    assert tokenize("drilled to...5,000 ft") == ["drilled", "5000", "ft"]
    assert tokenize("(see below).5000") == ["see", "below", "5000"]
    for text in (".٥", "1..5", "-.5 psi", "(.75)"):
        tokens = tokenize(text)
        assert tokenize(" ".join(tokens)) == tokens, text
    assert tokenize("-.5 psi") == ["0.5", "psi"]


# --- ask: a depth passed after a gap (new-reader pass) ---------------------------------------------------------


@pytest.mark.model
def test_a_row_drilling_across_the_depth_shows_the_day_after_a_gap(sample):
    # ask "which day did we pass 8,000 ft?" on the sample: "passed between D039 and D048 ... the day is not known",
    # then "Not found", although D048's first row drills "from 7,990' to 8,024'": across 8,000 ft that day
    from ddrsearch.answers.answerer import Answerer

    answerer = Answerer(sample)
    note, rows = answerer.depth_answer("which day did we pass 8,000 ft?")
    assert "D048" in note and "a drilling row of D048 crosses 8,000 ft" in note and "not known" not in note
    assert [r.row_id for r in rows] == ["D048-r00"] and "7,990' to 8,024'" in rows[0].text
    card = answerer.ask("which day did we pass 8,000 ft?")
    assert card.found and card.rows[0].row_id == "D048-r00"
    # no row of D036 drills across 5,000 ft (its MD is 6,016): the day stays unknown
    note, rows = answerer.depth_answer("which day did we reach 5,000 ft?")
    assert "not known" in note and rows == []


# --- index: your own archive beside the book's (new-reader pass) -----------------------------------------------


def test_your_own_archive_gets_its_own_index_folder(tmp_path, monkeypatch):
    # README recipe: DDRSEARCH_MANIFEST and DDRSEARCH_ARCHIVE_DIR at your reports, then --corpus archive; the index
    # went to <base>/archive, so "index build" overwrote the book's index and the two kept replacing each other
    from ddrsearch.stores.disk_index import default_index_dir

    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    monkeypatch.delenv("DDRSEARCH_MANIFEST", raising=False)
    monkeypatch.delenv("DDRSEARCH_ARCHIVE_DIR", raising=False)
    book = default_index_dir("archive")
    assert book == tmp_path / "idx" / "archive"
    (tmp_path / "my_reports").mkdir()
    (tmp_path / "my_manifest.csv").write_text("file_name,sha256\n")
    monkeypatch.setenv("DDRSEARCH_MANIFEST", str(tmp_path / "my_manifest.csv"))
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path / "my_reports"))
    mine = default_index_dir("archive")
    assert mine != book and mine.parent == book.parent and mine.name.startswith("archive-my_reports-")
    assert default_index_dir("archive") == mine  # the same folder every time
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path / "other"))
    assert default_index_dir("archive") != mine


# --- show and search: small things from the new-reader pass --------------------------------------------------


def test_show_takes_the_row_id_that_ask_prints(tmp_path, capsys, archive_folder):
    # before: "ddrsearch show D038-r08" failed with "the following arguments are required: --row"
    out = tmp_path / "r.png"
    assert main(["show", "D038-r08", "--out", str(out)]) == 0
    assert out.is_file() and "[D038-r08]" in capsys.readouterr().out
    assert main(["show", "D038-r08", "--row", "3"]) == 2
    assert "already names the row; drop --row 3" in capsys.readouterr().err
    assert main(["show", "D038"]) == 2
    assert "either as --row N or as a row id such as D038-r08" in capsys.readouterr().err


def test_search_of_your_own_folder_does_not_explain_the_books_report_names(tmp_path, capsys, archive_folder):
    import shutil

    name = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
    shutil.copy(archive_folder / name, tmp_path / "Rig 7 day 38.pdf")
    assert main(["search", "stuck pipe", "--dir", str(tmp_path), "-k", "1"]) == 0
    out = capsys.readouterr().out
    assert "from folder" in out and "C003 = completion report 3" not in out


def test_env_prints_the_folders_in_effect(capsys, tmp_path, monkeypatch):
    # before: "DDRSEARCH_ARCHIVE_DIR (unset)" and the default's description, not the folder in use
    from ddrsearch.data.folders import archive_dir

    monkeypatch.delenv("DDRSEARCH_ARCHIVE_DIR", raising=False)
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    assert main(["env"]) == 0
    out = capsys.readouterr().out
    assert f"in effect: {archive_dir()}" in out and f"in effect: {tmp_path / 'idx'}" in out


def test_a_row_matched_through_its_hidden_code_says_so(capsys, archive_folder):
    # before: "Circulate to cool hole for packers." ranked 3rd for "mud losses" with no word of the query shown:
    # it matched through the row's CODE cell, "Cond Mud & Circ", which is indexed but not printed
    assert main(["search", "mud losses", "--method", "bm25", "--unit", "operation"]) == 0
    lines = capsys.readouterr().out.splitlines()
    d049 = next(line for line in lines if " D049 " in line)
    assert "Circulate to cool hole for packers. [matched in its CODE: Cond Mud & Circ]" in d049
    d019 = next(line for line in lines if " D019 " in line)
    assert "CODE" not in d019  # its own text holds the words


def test_only_a_drilled_interval_across_the_depth_shows_the_day(sample, by_name):
    # second adversarial pass: "pass 5,700 ft" (sample) answered D036 from a wireline "Run in hole to 5,750'" row;
    # a folder of D039 and D050 answered "pass 8,024 ft" with D050's "Trip in hole to 8,024'"; a folder of D048 and
    # D050 said "not known" for 8,000 ft although D048 drills "from 7,990' to 8,024'"
    from ddrsearch.answers.answerer import Answerer
    from ddrsearch.retrieval.rowchoice import drills_across

    assert drills_across("Rotary drill from 7,990' to 8,024'. 34'", 8000)
    assert not drills_across("Run in hole to 5,750' with string shot", 5700)
    assert not drills_across("Trip in hole to 8,024'", 8024)
    assert not drills_across("Rotary drill from 7,990' to 8,024'", 7990)  # already there when the day began
    note, rows = Answerer(sample).depth_answer("which day did we pass 5,700 ft?")
    assert rows == [] and "not known" in note, note
    pair = [by_name[n] for n in sorted(by_name) if "_039_" in n or "_050_" in n]
    note, rows = Answerer(pair).depth_answer("which day did we pass 8,024 ft?")
    assert rows == [] and "not known" in note, note
    pair = [by_name[n] for n in sorted(by_name) if "_048_" in n or "_050_" in n]
    note, rows = Answerer(pair).depth_answer("which day did we pass 8,000 ft?")
    assert [r.row_id for r in rows] == ["D048-r00"] and "first of these reports" in note, note


@pytest.mark.model
def test_the_highest_value_note_names_a_row_that_prints_the_number(archive):
    # second adversarial pass: the note said "No operation row prints it" while D033-r01 prints "MW 9.3"
    from ddrsearch.answers.answerer import Answerer

    answerer = Answerer(archive)
    assert "The operation row D033-r01 prints the number too" in answerer.extreme_answer(
        "what was the highest mud weight?")
    assert "No operation row of these reports prints it" in answerer.extreme_answer(
        "what was the highest pump pressure?")


def test_notes_from_an_index_on_disk_speak_of_indexed_rows(tmp_path, capsys, monkeypatch, archive_folder):
    # second adversarial pass: with an index (no reports attached) "monel", printed in the BHA tables, was said to
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


def test_index_folder_follows_what_differs_from_the_book(tmp_path, monkeypatch):
    # second adversarial pass: DDRSEARCH_ARCHIVE_DIR at the book's own folder moved the index; --archive DIR still
    # wrote the book's index; a 240-character folder name made search fail with "File name too long"
    from ddrsearch.data.folders import book_archive_dir
    from ddrsearch.stores.disk_index import default_index_dir

    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    monkeypatch.delenv("DDRSEARCH_MANIFEST", raising=False)
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(book_archive_dir()))
    assert default_index_dir("archive") == tmp_path / "idx" / "archive"
    other = tmp_path / "other"
    assert default_index_dir("archive", archive=other).name.startswith("archive-other-")
    long = tmp_path / ("x" * 240)
    assert len(default_index_dir("archive", archive=long).name) < 80
    assert len(default_index_dir(folder=long).name) < 80


def test_env_prints_every_setting_when_one_cannot_be_resolved(capsys, monkeypatch, tmp_path):
    # second adversarial pass: DDRSEARCH_ARCHIVE_DIR='~nosuchuser/x' stopped env halfway with exit status 1
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", "~nosuchuser/x")
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "nothing"))
    assert main(["env"]) == 0
    out = capsys.readouterr().out
    assert "in effect: cannot be resolved" in out and "DDRSEARCH_DATABASE_URL" in out
    assert f"in effect: {tmp_path / 'nothing'} (does not exist yet)" in out


def test_out_refuses_a_pipe_beside_it_and_a_dangling_link(tmp_path, capsys, archive_folder):
    # second adversarial pass: eval --out r.csv hung when r_means.csv was a FIFO; a dangling symlink as --out was
    # replaced by a file; show --out <fifo> hung and show --out - wrote a file named "-"
    import os

    os.mkfifo(tmp_path / "r_means.csv")
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(tmp_path / "r.csv")]) == 1
    assert "r_means.csv is not a regular file" in capsys.readouterr().err
    (tmp_path / "link.csv").symlink_to(tmp_path / "missing" / "x.csv")
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(tmp_path / "link.csv")]) == 1
    assert "is a link to a missing file" in capsys.readouterr().err
    os.mkfifo(tmp_path / "crop.png")
    assert main(["show", "D038-r08", "--out", str(tmp_path / "crop.png")]) == 1
    assert "give a PNG file name" in capsys.readouterr().err


def test_show_reads_row_ids_loosely_and_from_your_own_folder(tmp_path, capsys, archive_folder):
    # second adversarial pass: d038-r08 and D038-r8 were refused; ask --dir's row ids could not be shown
    import shutil

    assert main(["show", "d038-r8", "--out", str(tmp_path / "a.png")]) == 0
    assert "[D038-r08]" in capsys.readouterr().out
    mine = tmp_path / "mine"
    mine.mkdir()
    shutil.copy(archive_folder / "FORGE-16A-78-32_Drilling_050_2020-12-08.pdf", mine / "rig 7 day.pdf")
    assert main(["show", "D050-r06", "--dir", str(mine), "--out", str(tmp_path / "b.png")]) == 0
    assert "rig 7 day.pdf" in capsys.readouterr().out


@pytest.mark.model
def test_a_depth_question_says_why_it_has_no_day(archive):
    # second adversarial pass: "pass 100,000 ft" and "2,440 m" said only "Not found"; "pass 6,000 ft and
    # 8,000 ft" silently answered 6,000 ft
    from ddrsearch.answers.answerer import Answerer

    answerer = Answerer(archive)
    deepest = max(r.md_ft or 0 for r in archive)
    card = answerer.ask("which day did we pass 100,000 ft?")
    assert f"the deepest is {deepest:,.0f} ft" in card.note and not card.found
    assert "read in feet" in answerer.ask("which day did we reach 2,440 m?").note
    card = answerer.ask("when did we pass 6,000 ft and 8,000 ft?")
    assert "names 2 depths; this answers the first, 6,000 ft" in card.note


def test_letters_glued_to_digits_count_as_printed_and_signs_keep_the_leading_zero():
    # second adversarial pass: "skc" (printed in SKC613M) was called unprinted; "<.5" tokenized as "5"
    assert "skc" in Spelling(["Bit SKC613M at 4,460ft"])
    assert tokenize("<.5 ppg") == ["0.5", "ppg"] and tokenize("±.5") == ["0.5"]
    long = "x" * 60
    assert spelling_notes({long: []})[0].startswith(f'no report prints "{"x" * 40}..."')

"""Answer cards on the real archive: row ids, the stuck-pipe answer, refusals, the calibrated threshold."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from conftest import REPORT_38
from ddrsearch.answers.answerer import (
    ANSWER_THRESHOLD,
    Answerer,
    SupportRow,
    calibrate_threshold,
    question_order,
    search_words,
    with_margins,
)
from ddrsearch.cli.command import main
from ddrsearch.errors import CitationError, QueryError
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.reading.names import resolve_row_id, row_id


@pytest.fixture(scope="module")
def answerer(archive):
    return Answerer(archive)


def test_question_order_and_search_words():
    assert question_order("when did we last get stuck?") == "latest"
    assert question_order("When did we first run casing") == "earliest"
    assert question_order("stuck pipe") == "score"
    assert search_words("when did we last get stuck?") == "stuck?"
    assert search_words("what happened on 2020-12-25?") == "happened on ?"


@pytest.mark.data
def test_row_ids_resolve_and_missing_ones_are_named(archive, by_name):
    r38 = by_name[REPORT_38]
    assert row_id(r38, r38.operations[8]) == "D038-r08"
    report, row = resolve_row_id("D038-r08", archive)
    assert report is r38 and "became stuck" in row.operations
    ids = [row_id(r, row) for r in archive for row in r.operations]
    assert len(ids) == len(set(ids)) == 610
    with pytest.raises(CitationError, match="report D001 is not among the 76 reports"):
        resolve_row_id("D001-r00", archive)
    with pytest.raises(CitationError, match=r"D038 .* has 10 operation rows .* no row 12"):
        resolve_row_id("D038-r12", archive)
    with pytest.raises(CitationError, match="not a row id"):
        resolve_row_id("row 8 of 38", archive)


@pytest.mark.data
@pytest.mark.model
def test_threshold_is_the_one_calibrated_on_dev(answerer):
    # dev questions only: the archive set's answerable ones and its unanswerable ones (whose
    # absence from every report tests/test_questions.py proves with their searched patterns)
    dev = load_questions("archive").split("dev")
    assert len(dev.unanswerable()) >= 10
    a = [answerer.ask(q.question).support for q in dev.answerable()]
    u = [answerer.ask(q.question).support for q in dev.unanswerable()]
    assert calibrate_threshold(a, u) == pytest.approx(ANSWER_THRESHOLD, abs=1e-9)


def test_margin_is_the_lead_over_the_mean_of_the_other_candidates():
    fields = dict(report="r.pdf", label="D038", report_number=38, date=dt.date(2020, 11, 26), start="00:00",
                  end="01:00", page=1, text="x", score=1.0, cosine=0.5, coverage=0.5)
    rows = [SupportRow(row_id=f"D038-r0{i}", row=i, evidence=e, **fields) for i, e in enumerate([0.8, 0.4, 0.2])]
    out = with_margins(rows)
    assert [r.margin for r in out] == pytest.approx([0.5, -0.1, -0.4])
    assert [r.support for r in out] == pytest.approx([1.3, 0.3, -0.2])
    assert with_margins(rows[:1])[0].support == pytest.approx(0.8)   # alone: no margin


def test_calibration_picks_the_separating_midpoint():
    assert calibrate_threshold([0.6, 0.8], [0.2, 0.4]) == 0.5
    with pytest.raises(ValueError):
        calibrate_threshold([], [0.1])


@pytest.mark.data
@pytest.mark.model
def test_ask_last_stuck_prints_the_latest_stuck_report_first(archive_folder, capsys):
    a01 = next(q for q in load_questions("archive") if q.id == "A01")
    stuck = {j.report for j in a01.relevant if j.grade >= 2}   # the reports where the pipe got stuck
    assert main(["ask", "when did we last get stuck?", "--corpus", "archive"]) == 0
    out = capsys.readouterr().out.splitlines()
    first = next(line for line in out if re.match(r"^[DC]\d{3}  report", line))
    label = first.split()[0]
    number = int(label[1:])
    latest = max((j for j in stuck), key=lambda n: n)  # file names sort by report number
    assert f"_{number:03d}_" in latest
    assert "2020-11-26" in first
    assert any("[D038-r08] 23:30-04:00" in line for line in out)
    assert "became stuck" in " ".join(out)


@pytest.mark.data
@pytest.mark.model
def test_unanswerable_question_prints_not_found(archive_folder, capsys):
    question = load_questions("archive", check_evidence=False)["A119"]   # a dev unanswerable question
    assert question.kind == "unanswerable" and question.split == "dev"
    assert main(["ask", question.question, "--corpus", "archive"]) == 0
    assert "Not found in these reports" in capsys.readouterr().out


@pytest.mark.data
@pytest.mark.model
def test_last_trip_out_is_found_beyond_the_best_five_rows(answerer, archive):
    # a new reader's question: the five best rows were trips out nine days before the last one
    card = answerer.ask("when did we last trip out?")
    trips_out = [r for r in archive for o in r.operations if o.operations.lower().startswith("trip out of hole")]
    latest = max(trips_out, key=lambda r: r.report_date)
    assert card.found and card.order == "latest"
    assert card.top.date == latest.report_date, (card.top.label, latest.file_name)
    assert all(r.support >= answerer.threshold for r in card.rows)
    # the five best rows alone decide whether it is answered: an unanswerable one stays refused
    assert not answerer.ask("when did we last have a kick?").found


@pytest.mark.data
@pytest.mark.model
def test_first_orders_earliest_and_a_gap_day_has_no_report(answerer):
    card = answerer.ask("when did we first run casing?", k=10)
    dates = [r.date for label, rows in card.groups() for r in rows[:1]]
    assert card.found and dates == sorted(dates)
    gap = answerer.ask("what did we do on 2021-01-04?")
    assert not gap.found and "no report for that day" in gap.note
    assert "D076" in gap.note and "C003" in gap.note


@pytest.mark.data
@pytest.mark.model
def test_empty_or_stopword_question_is_the_search_error(answerer, capsys):
    with pytest.raises(QueryError, match="empty"):
        answerer.ask("   ")
    with pytest.raises(QueryError, match="no searchable words"):
        answerer.ask("when did we?")
    assert main(["ask", "the of"]) == 1
    ask_err = capsys.readouterr().err
    assert main(["search", "the of"]) == 1
    search_err = capsys.readouterr().err
    assert ask_err.replace("ddrsearch ask", "") == search_err.replace("ddrsearch search", "")


@pytest.mark.data
@pytest.mark.model
def test_a_depth_passed_is_answered_from_the_md_field(answerer, archive):
    # before: "Not found in these reports (best support 0.22 < 0.442)": no row says "passed 8,000 ft"
    card = answerer.ask("which day did we pass 8,000 ft?")
    first = min((r for r in archive if (r.md_ft or 0) >= 8000), key=lambda r: r.report_date)
    assert card.found and {r.report for r in card.rows} == {first.file_name}
    assert f"MD {first.md_ft:,.0f} ft" in card.note and "first MD >= 8,000 ft" in card.note
    # every quoted row prints a depth the bit reached past 8,000 ft that day
    for r in card.rows:
        depths = [float(d.replace(",", "")) for d in re.findall(r"(\d{1,2},\d{3}|\d{4,5})'", r.text)]
        assert any(8000 <= d <= first.md_ft for d in depths), r.text
    assert "From the typed fields" in card.to_text()


@pytest.mark.data
@pytest.mark.model
def test_a_depth_no_report_reaches_is_not_answered_from_the_fields(answerer, archive):
    deepest = max(r.md_ft or 0 for r in archive)
    card = answerer.ask(f"when did we pass {deepest + 1000:,.0f} ft?")
    assert "typed fields" not in card.note and not card.found


@pytest.mark.data
@pytest.mark.model
def test_a_highest_value_is_named_from_the_typed_fields(answerer, archive):
    # before: "what was the highest mud weight?" quoted rows about mud weight and gave no number
    from ddrsearch.reading.fields import typed_fields

    values = {r.file_name: typed_fields(r)["mud_weight_max_ppg"].value for r in archive}
    top = max(v for v in values.values() if v is not None)
    holders = sorted(n for n, v in values.items() if v == top)
    card = answerer.ask("what was the highest mud weight?")
    assert f"the highest in these reports is {top:g} ppg" in card.note
    # the rows quoted are not where the value comes from, and the note says so (new-reader pass)
    assert card.note.endswith("the rows below are what a search for the question's words finds.")
    from ddrsearch.reading.names import short_name

    assert all(f"{short_name(r)} ({r.report_date.isoformat()})" in card.note for r in archive if r.file_name in holders)
    # the note adds the answer; which rows are quoted, and whether the card answers, is unchanged
    words_only = Answerer(archive, retriever=answerer.retriever)
    words_only.extreme_answer = lambda question: None
    plain = words_only.ask("what was the highest mud weight?")
    assert plain.note == "" and [r.row_id for r in plain.rows] == [r.row_id for r in card.rows]

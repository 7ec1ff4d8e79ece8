"""ddrsearch.retrieval.sections: the well's sections from the bit rows and surveys, and the ones a question names."""

from __future__ import annotations

import datetime as dt

import pytest

from ddrsearch.reading.names import short_name
from ddrsearch.retrieval.sections import WellSections, bit_rows, in_span
from ddrsearch.retrieval.structured import StructuredIndex

#: Three hole sizes and a survey profile: vertical to 5,000 ft, built to 60 degrees by 7,000, held to 9,000.
ROWS = [
    {"bits": [[17.5, 0.0, 1500.0]], "md_ft": 1500.0, "survey_md_ft": 1400.0, "inclination_deg": 0.5},
    {"bits": [[12.25, 1500.0, 4000.0]], "md_ft": 4000.0, "survey_md_ft": 3900.0, "inclination_deg": 1.0},
    {"bits": [[8.75, 4000.0, 5000.0]], "md_ft": 5000.0, "survey_md_ft": 4900.0, "inclination_deg": 2.0},
    {"bits": [[8.75, 5000.0, 6000.0]], "md_ft": 6000.0, "survey_md_ft": 5900.0, "inclination_deg": 30.0},
    {"bits": [[8.75, 6000.0, 7000.0]], "md_ft": 7000.0, "survey_md_ft": 6900.0, "inclination_deg": 58.0},
    {"bits": [[8.75, 7000.0, 9000.0]], "md_ft": 9000.0, "survey_md_ft": 8900.0, "inclination_deg": 60.0},
]


def test_hole_sections_run_from_the_shallowest_in_to_the_deepest_out_of_a_bit_size():
    spans = WellSections.from_rows(ROWS).spans
    assert spans["hole 17.5"] == spans["surface"] == (0.0, 1500.0)
    assert spans["hole 12.25"] == spans["intermediate"] == (1500.0, 4000.0)
    assert spans["hole 8.75"] == spans["production"] == (4000.0, 9000.0)


def test_the_trajectory_sections_reach_to_the_far_survey_of_each_boundary():
    """5 degrees is first reached between the stations at 4,900 and 5,900 ft; 55 (60 less 5) between 5,900 and 6,900."""
    spans = WellSections.from_rows(ROWS).spans
    assert spans["vertical"] == (0.0, 5900.0)
    assert spans["curve"] == (4900.0, 6900.0)
    assert spans["tangent"] == (5900.0, 9000.0)
    assert spans["pilot"] == (4000.0, 5900.0)  # the vertical part of the 8.75-in hole, where the well kicks off
    assert spans["toe"] == (9000.0 - 0.1 * (9000.0 - 5900.0), 9000.0)  # the deepest tenth of the tangent as listed


def test_a_vertical_well_has_no_curve_and_two_sizes_no_intermediate():
    rows = [{**r, "inclination_deg": min(r["inclination_deg"], 3.0)} for r in ROWS if r["bits"][0][0] != 12.25]
    spans = WellSections.from_rows(rows).spans
    assert set(spans) == {"hole 17.5", "hole 8.75", "surface", "production"}
    assert WellSections.from_rows([{"md_ft": 100.0}]).spans == {}  # no bit rows, no surveys: no sections


def test_the_tangent_reaches_the_deepest_survey_when_the_last_reports_print_no_md():
    """Before: with the MD of the last reports unreadable (or implausible, so dropped) and their
    surveys at 8,900 ft, the tangent ran from 5,900 ft 'to' the deepest MD read, 5,000 ft: a reversed span
    ('tangent (5,900 to 5,000 ft MD)') that no report could meet, and the toe likewise."""
    rows = [{**r, "md_ft": None} if r["md_ft"] > 5000 else r for r in ROWS]
    spans = WellSections.from_rows(rows).spans
    assert spans["tangent"] == (5900.0, 8900.0)
    assert spans["toe"] == (8900.0 - 0.1 * (8900.0 - 5900.0), 8900.0)
    assert all(top <= bottom for top, bottom in spans.values())


@pytest.mark.parametrize(("question", "names"), [
    ("Did we ever have a total blackout on location in the 12-1/4?", ["hole 12.25"]),
    ("losses in the 12 1/4\" hole", ["hole 12.25"]),
    ("the 12¼ section", ["hole 12.25"]),
    ("ROP in the 12.25 in hole", ["hole 12.25"]),
    ("What time did the first 17-1/2 footage begin?", ["hole 17.5"]),
    ("stuck while orienting in the curve", ["curve"]),
    ("the build-up section", ["curve"]),
    ("opening the horizontal to 9,748", ["tangent"]),
    ("first day of the tangent", ["tangent"]),
    ("the lateral", ["tangent"]),
    ("first sample at the toe", ["toe"]),
    ("second barrel run in the pilot", ["pilot"]),
    ("surface hole and intermediate section", ["surface", "intermediate"]),
    ("in the curve or the 8-3/4", ["curve", "hole 8.75"]),
])
def test_the_sections_a_question_names(question, names):
    assert WellSections.from_rows(ROWS).named(question) == names


@pytest.mark.parametrize("question", [
    "how many joints of 9-5/8 casing?",      # a casing size is no hole section here
    "mud weight 8.75 ppg",                   # a decimal without an inch mark or a hole word
    "report of 11/26/2020",                  # a date
    "run the 7\" liner",
    "pipe came to surface",                  # surface without hole/section/interval
    "the vertical seismic profile",          # vertical without section/hole/part/interval
    "tow truck on location",
    "what was the vertical section at TD?",  # VS, the displacement SURVEY DATA prints
    "pilot bit wear",
    "the crew's learning curve",
    "lateral vibration on the MWD",
    "lateral shocks",
    "stubbed toe injury on the floor",
    "toe boards missing",
])
def test_what_names_no_section(question):
    assert WellSections.from_rows(ROWS).named(question) == []


def test_a_section_the_reports_do_not_show_is_not_named():
    assert WellSections({"hole 8.75": (0.0, 100.0)}).named("in the curve, in the 12-1/4") == []


@pytest.mark.parametrize(("row", "span", "inside"), [
    ({"md_from": 1629.0, "md_ft": 2630.0}, (1629.0, 5113.0), True),
    ({"md_from": 5113.0, "md_ft": 5200.0}, (1629.0, 5113.0), False),   # drilled below the span
    ({"md_from": 5113.0, "md_ft": 5113.0}, (1629.0, 5113.0), True),    # a casing day at the section's bottom
    ({"md_from": 5042.0, "md_ft": None}, (1629.0, 5113.0), True),      # no MD printed: still at 5,042
    ({"md_from": 0.0, "md_ft": None}, (0.0, 1629.0), False),           # rig-up: no depth yet
    ({"md_from": 1629.0, "md_ft": 1629.0}, (1629.0, 5113.0), False),   # the span is open at its top
])
def test_a_reports_drilled_interval_meets_a_span(row, span, inside):
    assert in_span(row, span) is inside


def test_bit_rows_keep_the_bits_that_drilled():
    tables = {"DRILL BITS": [{"SIZE": "12.25", "IN": "1,644", "OUT": "2,630"}, {"SIZE": "9.63", "IN": "0", "OUT": ""},
                             {"SIZE": "", "IN": "1", "OUT": "2"}, {"SIZE": "8.75", "IN": "5,501", "OUT": "5,501"}]}
    assert bit_rows(tables) == [[12.25, 1644.0, 2630.0]]
    assert bit_rows({}) == []


@pytest.mark.parametrize("out", ["inf", "Infinity", "1e9", "40,001"])
def test_a_bit_row_whose_out_is_no_depth_is_left_out(out):
    """The adversarial pass: a report printing OUT 'inf' (float() reads it) made the 12-1/4 hole reach to
    infinity, so every later report was 'in the 12-1/4'; an OUT beyond the md_ft field's 40,000 ft is no depth."""
    tables = {"DRILL BITS": [{"SIZE": "12.25", "IN": "1,644", "OUT": out}]}
    assert bit_rows(tables) == []


def _index() -> StructuredIndex:
    rows = [{"report": f"R{i}", "date": dt.date(2020, 11, i), "bit_size": None, **row} for i, row in enumerate(ROWS, 1)]
    return StructuredIndex(rows=rows)


def test_the_structured_path_scores_a_sections_reports_only_when_asked_and_nothing_else_matched():
    index = _index()
    assert index.score("stuck in the curve") is None  # off by default
    m = index.score("stuck in the curve", sections=0.3)
    assert m.kind == "section" and m.scores == {"R3": 0.3, "R4": 0.3, "R5": 0.3}  # drilled 4,000 to 7,000 ft
    assert m.detail == "reports in the curve (4,900 to 6,900 ft MD)"
    assert index.score("blackout in the 12-1/4", sections=0.3).scores == {"R2": 0.3}
    assert index.score("stuck in the curve on November 4", sections=0.3).kind == "date"  # a date wins
    assert index.score("stuck in the curve at 5,500 ft", sections=0.3).kind == "depth_at"  # a depth wins
    with pytest.raises(ValueError, match="sections"):
        index.score("in the curve", sections=1.5)


def test_the_records_round_trip_keeps_the_sections():
    index = _index()
    again = StructuredIndex.from_records(index.to_records())
    assert again.sections == index.sections


@pytest.mark.data
def test_the_archive_sections_are_the_bit_depths_and_survey_stations_it_prints(archive):
    """FORGE 16A(78)-32: 17-1/2 to 1,629 ft, 12-1/4 to 5,113 ft, 8-3/4 to 10,987 ft (the bits' IN and OUT);
    the surveys print 1.88 degrees at 5,764 ft and 18.17 at 6,276 ft (kick-off between), 48.18 at 6,940
    and 65.54 at 7,320 (the highest, 68.46, less 5 reached between)."""
    index = StructuredIndex(archive)
    spans = index.sections.spans
    assert spans["hole 17.5"] == (0.0, 1629.0)
    assert spans["hole 12.25"] == (1629.0, 5113.0)
    assert spans["hole 8.75"] == (5113.0, 10987.0)
    assert spans["curve"] == (5764.0, 7320.0)
    assert spans["pilot"] == (5113.0, 6276.0)
    assert spans["tangent"] == (6940.0, 10987.0)
    curve = index.score("When did the motor get grabbed while we were orienting in the curve?", sections=0.3)
    # D033 drilled 5,641-5,793 ft, past the last vertical station; D042 7,294-7,390 ft; D038 got stuck in the curve
    assert sorted(short_name(n) for n in curve.scores) == [f"D0{n}" for n in range(33, 43)]
    blackout = index.score("a total blackout on location in the 12-1/4", sections=0.3)
    assert sorted(short_name(n) for n in blackout.scores) == [f"D0{n}" for n in range(17, 27)]

"""Typed header fields (ddrsearch.reading.fields).

The expected values in SAMPLE were read by hand from the PDFs' page text
(``report.pages[0]``), not from the code under test.
"""

from __future__ import annotations

import math

import pytest

from ddrsearch.reading.fields import (
    FIELDS,
    TypedValue,
    archive_fields,
    check_sequence,
    fields_frame,
    flag_kind,
    operations_table,
    parse_quantity,
)

R = "FORGE-16A-78-32_Drilling_{:03d}_{}.pdf".format


#: (report, field, expected value, raw as printed), read from the PDFs' text.
SAMPLE = [
    (R(38, "2020-11-26"), "md_ft", 6507.0, "6507"),
    (R(38, "2020-11-26"), "footage_ft", 147.0, "147"),
    (R(38, "2020-11-26"), "mud_weight_ppg", 8.9, "8.9"),
    (R(38, "2020-11-26"), "torque_ftlbf", 5615.0, "5,615"),
    (R(38, "2020-11-26"), "pickup_weight_klbf", 270.0, "270"),
    (R(38, "2020-11-26"), "ecd_ppg", 9.48, "9.48 | 9.48"),
    (R(38, "2020-11-26"), "survey_tvd_ft", 6355.0, "6,355"),
    (R(60, "2020-12-18"), "pump_pressure_psi", 4250.0, None),
    (R(60, "2020-12-18"), "rotating_weight_klbf", 215.0, "215,000"),
    (R(60, "2020-12-18"), "bha_length_ft", 4973.57, "4,973.57"),
    (R(33, "2020-11-21"), "mud_weight_ppg", 9.3, "9.3"),
    (R(41, "2020-11-29"), "mud_weight_ppg", 9.1, "9.1"),
    (R(19, "2020-11-07"), "pickup_weight_klbf", 154.0, "154,000"),
]


@pytest.fixture(scope="module")
def values(archive):
    return archive_fields(archive)


@pytest.fixture(scope="module")
def frame(archive, values):
    return fields_frame(archive, values)


@pytest.fixture(scope="module")
def ops(archive):
    return operations_table(archive)


def test_parse_quantity_blank_and_unreadable_are_none_with_a_note():
    assert parse_quantity("", "ft") == TypedValue("", None, "ft", "", note="blank in the report")
    bad = parse_quantity("TMD TVD", "ft")
    assert bad.value is None and "not a number" in bad.note
    assert parse_quantity("20 TO 35", "klbf").value is None


def test_parse_quantity_reads_commas_and_accepted_units():
    assert parse_quantity("1,714.08", "ft").value == pytest.approx(1714.08)
    t = parse_quantity("6507'", "ft")
    assert t.value == 6507 and not t.flag
    assert parse_quantity("9.2 ppg", "ppg").flag == ""


def test_unit_mismatch_is_flagged_and_value_kept():
    t = parse_quantity("1983 m", "ft", low=0, high=40000)
    assert t.value == 1983 and "unit 'm' printed, expected ft" in t.flag
    sg = parse_quantity("1.08", "ppg", low=6.5, high=22)
    assert sg.value == 1.08 and "outside the plausible range" in sg.flag


def test_lbf_printed_in_a_klbf_field_is_converted_and_flagged():
    t = parse_quantity("215,000", "klbf", low=0, high=1000)
    assert t.value == 215 and "printed in lbf" in t.flag and t.raw == "215,000"


class _Rep:
    def __init__(self, name, drilled):
        self.file_name, self.operations = name, []
        if drilled:
            from ddrsearch.reading.report import OperationRow

            self.operations = [OperationRow(0, "06:00", "12:00", 6.0, "Production Drilling", "Drilling", "",
                                            "Drill ahead", ("Drill ahead",), 1, (0, 0, 1, 1))]


def _md(v, ftg=None):
    return {"md_ft": parse_quantity(v, "ft", name="md_ft"), "footage_ft": parse_quantity(ftg or "", "ft")}


def test_md_decrease_is_flagged_with_the_reason_and_while_drilling():
    reps = [_Rep("a.pdf", True), _Rep("b.pdf", True), _Rep("c.pdf", False), _Rep("d.pdf", True)]
    out = check_sequence(reps, [_md("5000"), _md("4900"), _md("4950"), _md("5100", "100")])
    assert out[0]["md_ft"].flag == ""
    assert "less than 5,000 ft printed in a.pdf while drilling" in out[1]["md_ft"].flag
    assert "less than 5,000" in out[2]["md_ft"].flag and "while drilling" not in out[2]["md_ft"].flag
    assert out[3]["md_ft"].flag == ""
    # 5100 - 4950 = 150 ft of new hole, but the report says 100 ft
    assert "MD rose 150 ft since c.pdf" in out[3]["footage_ft"].flag


@pytest.mark.data
def test_every_field_of_every_report_parses_or_carries_a_note(archive, values):
    assert len(archive) == 76
    for report, vals in zip(archive, values):
        assert list(vals) == [s.name for s in FIELDS]
        for name, t in vals.items():
            assert t.value is not None or t.note, f"{report.file_name} {name}: None without a note"
            assert t.value != 0 or t.raw.strip() not in ("",), f"{report.file_name} {name}: 0 from a blank"


@pytest.mark.data
@pytest.mark.parametrize("report, field, expected, raw", SAMPLE)
def test_sample_values_match_the_pdf_text(by_name, values, archive, report, field, expected, raw):
    vals = values[[r.file_name for r in archive].index(report)]
    t = vals[field]
    assert t.value == pytest.approx(expected), (report, field, t)
    if raw is not None:
        assert t.raw == raw


@pytest.mark.data
def test_blank_fields_are_none_not_zero(archive, values, frame):
    r11 = frame[frame["report"] == R(11, "2020-10-30")].iloc[0]
    assert math.isnan(r11["md_ft"]) and "md_ft: blank in the report" in r11["notes"]
    completion = frame[frame["phase"] == "Completion"].iloc[0]
    assert completion[[s.name for s in FIELDS]].isna().all()
    assert "no MUD table in the report" in completion["notes"]


@pytest.mark.data
def test_real_flags(frame):
    """Report 19 prints ECD 91.7 for pump 2 (9.17 for pump 1): flagged, not used; no MD ever decreases."""
    r19 = frame[frame["report_number"] == 19].iloc[0]
    assert r19["ecd_ppg"] == pytest.approx(9.17) and "91.7 is outside" in r19["flags"]
    assert not frame["flags"].str.contains("md_ft").any()


@pytest.mark.data
def test_operations_table_matches_the_reports(archive, ops):
    assert len(ops) == sum(len(r.operations) for r in archive)
    r38 = ops[ops["report_number"] == 38]
    assert list(r38["from"])[:2] == ["06:00", "11:00"] and r38["hours"].sum() == pytest.approx(24.0)
    assert ops["npt"].sum() == 6 and set(ops.loc[ops["npt"], "npt_text"]) == {"Equipment Failure"}


def test_flag_kind_names_a_range_flag_that_starts_with_its_number():
    # the ECD of 91.7 ppg: the flag's text begins with the value, so a kind
    # taken from the text before the first digit was blank
    tv = parse_quantity("91.7", "ppg", name="ecd_ppg", low=8.0, high=20.0)
    assert tv.flag.startswith("91.7")
    assert flag_kind(tv.flag) == "outside the plausible range"
    assert flag_kind(tv.flag + "; not used in the max") == "outside the plausible range"


def test_flag_kind_names_each_kind_parse_quantity_and_check_sequence_write():
    converted = parse_quantity("215,000", "klbf", name="pickup", low=50, high=600)
    printed = parse_quantity("9.2 psi", "ppg", name="mud", low=8.0, high=20.0)
    assert flag_kind(converted.flag) == "converted from a smaller unit"
    assert flag_kind(printed.flag) == "unit printed"
    assert flag_kind("24 HR FTG 90 ft, but MD rose 80 ft since a.pdf") == "footage against MD"
    assert flag_kind("MD 5,000 ft is less than 5,100 ft printed in a.pdf") == "MD decreasing"
    assert flag_kind(f"{printed.flag}; MD 5,000 ft is less than 5,100 ft printed in a.pdf") \
        == "unit printed; MD decreasing"


def test_flag_kind_is_blank_only_without_a_flag_and_other_for_unknown_text():
    assert flag_kind("") == ""
    assert flag_kind("12 something new") == "other"

"""Tests of the packaged glossary (ddrsearch/resources/glossary.csv) (the rig shorthand of Chapter 2) and of load_glossary.

The glossary may only hold shorthand that really occurs in the FORGE
16A(78)-32 reports: every abbreviation must be found, as a whole token of the
package tokenizer, in the text of at least one of the 76 reports. Run with
``pytest -s tests/text/test_glossary.py`` to see how often each one occurs.

These tests need the report PDFs. Without them they fail (they do not skip)
and say how to fetch them.
"""

from __future__ import annotations

import collections

import pytest

from ddrsearch.data.folders import FETCH_COMMAND, archive_dir, archive_paths
from ddrsearch.errors import DataNotFoundError, GlossaryError
from ddrsearch.text.glossary import (
    GLOSSARY_COLUMNS,
    Glossary,
    default_glossary,
    glossary_path,
    load_glossary,
)
from ddrsearch.text.tokenizer import tokenize
from ddrsearch.text.words import DEFAULT_STOPWORDS

MIN_ENTRIES = 60


@pytest.fixture(scope="module")
def glossary():
    return load_glossary()


@pytest.fixture(scope="module")
def archive():
    """The 76 reports, read once for this module; fails with the fetch command when they are not fetched."""
    from ddrsearch.reading.report import load_archive

    try:
        archive_paths()  # every PDF of the manifest is there
        reports = load_archive(archive_dir())
    except DataNotFoundError as exc:
        pytest.fail(
            f"The report PDFs are not fetched, so the glossary cannot be checked against them. "
            f"Run: {FETCH_COMMAND}\n{exc}"
        )
    assert len(reports) == 76, f"expected 76 reports in {archive_dir()}, read {len(reports)}"
    return reports


@pytest.fixture(scope="module")
def archive_tokens(archive):
    """file name -> Counter of the report's tokens (whole text, no stop words dropped, no expansion)."""
    return {r.file_name: collections.Counter(tokenize(r.text, stopwords=None)) for r in archive}


def test_glossary_file_has_the_columns_and_enough_entries(glossary):
    assert glossary.path == glossary_path()
    with open(glossary.path, encoding="utf-8") as f:
        assert f.readline().strip() == ",".join(GLOSSARY_COLUMNS)
    assert len(glossary) >= MIN_ENTRIES, f"{len(glossary)} entries, want at least {MIN_ENTRIES}"


def test_no_duplicate_abbreviations(glossary):
    raw = [e.abbreviation.upper() for e in glossary]
    dup_raw = [a for a, n in collections.Counter(raw).items() if n > 1]
    assert not dup_raw, f"abbreviations listed twice: {dup_raw}"
    tokens = [e.token for e in glossary]
    assert len(set(tokens)) == len(tokens)


def test_expansions_are_non_empty_words(glossary):
    for e in glossary:
        assert e.expansion.strip(), e.abbreviation
        assert e.expansion_tokens, e.abbreviation
        assert e.token not in e.expansion_tokens or e.abbreviation == e.expansion, (
            f"{e.abbreviation}: the expansion {e.expansion!r} contains the abbreviation itself"
        )


def test_abbreviations_are_written_as_in_the_reports(glossary):
    for e in glossary:
        assert e.abbreviation == e.abbreviation.strip()
        assert e.abbreviation.upper() == e.abbreviation, f"{e.abbreviation}: write abbreviations in capitals"
        assert len(tokenize(e.abbreviation, stopwords=None)) == 1


def test_no_abbreviation_is_a_stop_word(glossary):
    # Otherwise tokenize() without expansion would drop the abbreviation itself.
    clash = [e.abbreviation for e in glossary if e.token in DEFAULT_STOPWORDS]
    assert not clash, f"abbreviations dropped as stop words: {clash}"


def test_default_glossary_is_the_file(glossary):
    assert default_glossary().tokens == glossary.tokens
    assert default_glossary() is default_glossary()  # read once, cached


@pytest.mark.data
def test_every_entry_occurs_in_the_archive(glossary, archive_tokens):
    rows = []
    for e in glossary:
        n_reports = sum(1 for c in archive_tokens.values() if c[e.token])
        total = sum(c[e.token] for c in archive_tokens.values())
        rows.append((e.abbreviation, e.token, n_reports, total))
    width = max(len(r[0]) for r in rows)
    print(f"\n{'abbreviation':<{max(width, 12)}}  token       reports  occurrences")
    for abbr, tok, n_reports, total in sorted(rows, key=lambda r: (-r[2], -r[3], r[0])):
        print(f"{abbr:<{max(width, 12)}}  {tok:<10}  {n_reports:>7}  {total:>11}")
    print(f"{len(rows)} entries; {sum(1 for r in rows if r[2] == 1)} occur in one report only.")
    missing = [abbr for abbr, _, n_reports, _ in rows if n_reports == 0]
    assert not missing, f"glossary entries found in no report (as whole tokens): {missing}"


@pytest.mark.data
def test_shorthand_the_book_quotes(glossary, archive):
    by_num = {(r.phase, r.report_number): r for r in archive}
    r38 = by_num[("Drilling", 38)]
    assert "UBI" in glossary and "ubi" in tokenize(r38.text)
    assert "spp" in tokenize(r38.text) and "SPP" in glossary
    assert "dfit" in tokenize(by_num[("Completion", 3)].text)
    assert "xlot" in tokenize(by_num[("Drilling", 48)].text)


def _write(tmp_path, text):
    p = tmp_path / "glossary.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_small_valid_file(tmp_path):
    p = _write(tmp_path, 'abbreviation,expansion,note\nPOOH,pull out of hole,"also written ""P.O.O.H."""\n\nTIH,trip in hole,\n')
    g = load_glossary(p)
    assert [e.token for e in g] == ["pooh", "tih"]
    assert [e.line for e in g] == [2, 4]
    assert g["pooh"].note == 'also written "P.O.O.H."'


def test_missing_file(tmp_path):
    with pytest.raises(GlossaryError, match="not found"):
        load_glossary(tmp_path / "nope.csv")


@pytest.mark.parametrize(
    "content, match",
    [
        ("", r"line 1: empty file"),
        ("abbreviation,meaning,note\nPOOH,pull out of hole,\n", r"line 1: .*lacks column\(s\) \['expansion'\]"),
        ("abbreviation,expansion,note\nPOOH,pull out of hole,\nTIH,trip, in hole,\n", r"line 3: 4 field\(s\)"),
        ("abbreviation,expansion,note\nPOOH,pull out of hole\n", r"line 2: 2 field\(s\)"),
        ("abbreviation,expansion,note\n,pull out of hole,\n", r"line 2: empty abbreviation"),
        ("abbreviation,expansion,note\nPOOH,,\n", r"line 2: abbreviation 'POOH' has an empty expansion"),
        ("abbreviation,expansion,note\nPOOH,--,\n", r"line 2: expansion '--' of 'POOH' has no words"),
        ("abbreviation,expansion,note\nP O O H,pull out of hole,\n", r"line 2: abbreviation 'P O O H' is 4 tokens"),
        ("abbreviation,expansion,note\nPU,pick up,\nP.U.,pick up,\n", r"line 3: abbreviation 'P.U.' is the same token 'pu' as 'PU' \(line 2\)"),
        ("abbreviation,expansion,note\n", r"no entries"),
    ],
)
def test_bad_files_name_file_and_line(tmp_path, content, match):
    p = _write(tmp_path, content)
    with pytest.raises(GlossaryError, match=match) as info:
        load_glossary(p)
    assert str(p) in str(info.value)


def test_not_utf8(tmp_path):
    p = tmp_path / "glossary.csv"
    p.write_bytes("abbreviation,expansion,note\nDEG,\xb0 degree,\n".encode("latin-1"))
    with pytest.raises(GlossaryError, match="not UTF-8"):
        load_glossary(p)


def test_glossary_error_is_a_value_error():
    assert issubclass(GlossaryError, ValueError)


POOH_GLOSSARY = Glossary.from_dict(
    {"POOH": "pull out of hole", "TOOH": "trip out of hole", "BHA": "bottom hole assembly", "SO": "slack off"}
)


def test_glossary_lookup_by_any_spelling():
    assert "POOH" in POOH_GLOSSARY and "pooh" in POOH_GLOSSARY and "P.O.O.H." in POOH_GLOSSARY
    assert POOH_GLOSSARY["S.O."].expansion == "slack off"
    assert POOH_GLOSSARY.get("rih") is None and "rih" not in POOH_GLOSSARY and 3 not in POOH_GLOSSARY
    with pytest.raises(KeyError):
        POOH_GLOSSARY["rih"]
    assert POOH_GLOSSARY.expansion_tokens("pooh") == ["pull", "out", "hole"]
    assert POOH_GLOSSARY.expansion_tokens("rih") == []

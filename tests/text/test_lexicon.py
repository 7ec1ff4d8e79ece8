"""The drilling lexicon (``ddrsearch.text.lexicon``): its terms come from the archive, its words are our own."""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from pathlib import Path

import pytest

from ddrsearch.errors import LexiconError
from ddrsearch.text.lexicon import GROUPS, KINDS, default_lexicon, load_lexicon

PROJECT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.data


def _words(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def test_the_lexicon_has_at_least_400_terms_in_every_group():
    lx = default_lexicon()
    assert len(lx) >= 400
    per_group = Counter(e.group for e in lx)
    assert set(per_group) == set(GROUPS) and min(per_group.values()) >= 15, per_group
    assert {e.kind for e in lx} == set(KINDS)
    assert all(len(e.plain) >= 2 for e in lx)


def test_every_term_is_printed_by_the_archive_or_is_the_synonym_of_one_that_is(archive):
    """A term the rows never print would expand questions toward nothing; a synonym row names its printed term."""
    texts = []
    for r in archive:
        texts.append(r.present_operations)
        texts.append(r.activity_planned)
        texts.extend(f"{row.operations} {row.code}" for row in r.operations)
    haystack = " " + " ".join(" ".join(_words(t)) for t in texts) + " "
    missing = [e.term for e in default_lexicon() if not e.of and f" {' '.join(_words(e.term))} " not in haystack]
    assert not missing, f"printed terms no report prints: {missing[:20]}"
    printed = {e.term.lower() for e in default_lexicon() if not e.of}
    assert all(e.of.lower() in printed for e in default_lexicon() if e.of)


def test_no_definition_repeats_a_run_of_eight_words_of_a_source():
    """The facts come from public glossaries; the sentences are ours (fingerprints of their 8-word runs only)."""
    known = set((PROJECT / "datasets" / "lexicon" / "source_shingles.txt").read_text().split())
    assert len(known) > 1000
    copied = []
    for e in default_lexicon():
        for text in (e.definition, *e.plain):
            w = _words(text)
            for i in range(len(w) - 7):
                if hashlib.sha256(" ".join(w[i:i + 8]).encode()).hexdigest()[:16] in known:
                    copied.append(f"{e.term}: {' '.join(w[i:i + 8])}")
    assert not copied, copied


def test_a_bad_lexicon_names_every_problem_with_its_line(tmp_path):
    path = tmp_path / "lexicon.csv"
    path.write_text("term,of,group,kind,definition,synonyms,plain\n"
                    "trip,,trips,operation,Pulling the string.,,\n"
                    "trip,,nowhere,thing,,,\n"
                    "mast,derrick,rig_moves,equipment,The tower.,,\n", encoding="utf-8")
    with pytest.raises(LexiconError) as exc:
        load_lexicon(path)
    message = str(exc.value)
    assert "line 3: a term and its definition are both needed" in message
    assert "group 'nowhere'" in message and "kind 'thing'" in message
    assert "the term 'trip' is already on line 2" in message
    assert "line 4 (mast): 'of' names 'derrick'" in message
    with pytest.raises(LexiconError, match="No lexicon at"):
        load_lexicon(tmp_path / "missing.csv")


def test_a_folder_a_huge_file_or_a_broken_csv_is_named(tmp_path):
    """Before: a folder raised IsADirectoryError and a 131,073-character field csv.Error, not the package's error."""
    with pytest.raises(LexiconError, match="is a folder"):
        load_lexicon(tmp_path)
    big = tmp_path / "big.csv"
    big.write_text("term,of,group,kind,definition,synonyms,plain\n" + "x" * 5_000_001, encoding="utf-8")
    with pytest.raises(LexiconError, match="more than a lexicon's"):
        load_lexicon(big)
    wide = tmp_path / "wide.csv"
    wide.write_text('term,of,group,kind,definition,synonyms,plain\ntrip,,trips,operation,"' + "y" * 200_000 + '",,\n',
                    encoding="utf-8")
    with pytest.raises(LexiconError, match="not a CSV this loader can read"):
        load_lexicon(wide)

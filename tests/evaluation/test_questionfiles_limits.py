"""Question files have named limits: no YAML aliases or anchors, a size cap (issue 26, evaluation.questionfiles)."""

from __future__ import annotations

import pytest

from ddrsearch.errors import QuestionSetError
from ddrsearch.evaluation.questionfiles import QUESTION_SETS, load_questions

pytestmark = pytest.mark.data

LAUGHS = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
name: laughs
corpus: archive
questions:
  - id: Q1
    question: *h
"""


def test_a_billion_laughs_file_is_refused_naming_the_file_and_line(tmp_path):
    """Before: a 415-byte file of nested aliases made `ddrsearch eval` grow past 11 GB and write a 2.1 GB error.
    After: the first anchor is refused (QuestionSetError naming the file and the line) before anything expands."""
    path = tmp_path / "laughs.yaml"
    path.write_text(LAUGHS, encoding="utf-8")
    with pytest.raises(QuestionSetError) as exc:
        load_questions(path, check_evidence=False)
    message = str(exc.value)
    assert str(path) in message and "line 1: YAML anchors (&a) are not allowed" in message
    assert len(message) < 500


def test_an_alias_alone_is_refused_too(tmp_path):
    """A merge key or alias without an anchor of its own is refused at the alias (`*x`), with its line."""
    path = tmp_path / "alias.yaml"
    path.write_text("name: x\ncorpus: archive\nquestions:\n  - id: Q1\n    question: *nowhere\n", encoding="utf-8")
    with pytest.raises(QuestionSetError, match=r"line 5: YAML aliases \(\*nowhere\) are not allowed"):
        load_questions(path, check_evidence=False)


def test_a_file_over_the_size_cap_is_refused_before_it_is_read(tmp_path, monkeypatch):
    """Before: a 50 MB question file was still being read after 10 minutes at 2.8 GB. After: a file over
    DDRSEARCH_MAX_QUESTION_FILE_BYTES (default 5,000,000) is refused naming its size, the limit and the setting."""
    path = tmp_path / "big.yaml"
    path.write_text("name: big\n# " + "x" * 3000 + "\n", encoding="utf-8")
    monkeypatch.setenv("DDRSEARCH_MAX_QUESTION_FILE_BYTES", "2000")
    with pytest.raises(QuestionSetError) as exc:
        load_questions(path, check_evidence=False)
    assert "3,013 bytes, more than the 2,000" in str(exc.value) and "DDRSEARCH_MAX_QUESTION_FILE_BYTES" in str(exc.value)


@pytest.mark.parametrize("name", QUESTION_SETS)
def test_the_shipped_sets_are_within_the_limits(name):
    """The book's question files use no anchors, are under the size cap and have no question over 100 words
    (so the word cap of the search changes none of them)."""
    qs = load_questions(name, check_evidence=False)
    assert qs.path.stat().st_size < 5_000_000
    assert max(len(q.question.split()) for q in qs.questions) <= 100


def test_a_nul_byte_or_a_list_key_is_a_question_set_error(tmp_path):
    """Before: a NUL byte raised yaml's ReaderError and a complex key TypeError, as tracebacks."""
    from ddrsearch.errors import QuestionSetError
    from ddrsearch.evaluation.questionfiles import load_questions

    nul = tmp_path / "nul.yaml"
    nul.write_text("name: x\x00\n", encoding="utf-8")
    with pytest.raises(QuestionSetError, match="not valid YAML"):
        load_questions(nul, check_evidence=False)
    key = tmp_path / "key.yaml"
    key.write_text("? [a, b]\n: 1\n", encoding="utf-8")
    with pytest.raises(QuestionSetError):
        load_questions(key, check_evidence=False)

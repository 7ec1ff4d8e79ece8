"""ddrsearch.book.exercises: each exercise's expected value, the one feedback style, and what gives an answer away."""

from __future__ import annotations

import re

import pytest

from ddrsearch.book import exercises
from ddrsearch.book.exercises import (
    EXERCISES,
    LINE_WIDTH,
    Exercise,
    answer_forms,
    answer_leaks,
    check,
    exercise_layout,
    expected,
)


def _marks(ex: Exercise):
    return {"": [], "data": [pytest.mark.data], "model": [pytest.mark.data, pytest.mark.model]}[ex.needs]


def _wrong(ex: Exercise, value):
    if ex.kind == "number":
        return value + 10 * ex.tolerance + 1
    if ex.kind == "text":
        return str(value) + "x"
    items = list(value)
    if ex.kind == "set":
        return items[:-1] + ["not a report"]
    return items[::-1] if items != items[::-1] else items + ["one more"]


@pytest.fixture
def fake(monkeypatch):
    """Two pure exercises in place of the book's, for the checker's mechanics."""
    fakes = {"1.1": Exercise("1.1", "a number", "number", "look at the table", lambda: 0.4, 0.005, 2, ""),
             "1.2": Exercise("1.2", "a list", "list", "item by item", lambda: [1, None, 3], 0.0, None, "")}
    monkeypatch.setattr(exercises, "EXERCISES", fakes)
    exercises._expected.cache_clear()
    yield fakes
    exercises._expected.cache_clear()


@pytest.mark.parametrize("label", [pytest.param(label, marks=_marks(ex)) for label, ex in EXERCISES.items()])
def test_each_exercise_is_right_for_its_answer_and_not_yet_otherwise(label, capsys):
    ex = EXERCISES[label]
    value = expected(label)
    assert value is not None and value != [] and value != ""
    if ex.kind == "number":
        assert isinstance(value, (int, float)) and value == value  # not nan
    check(label, value)
    check(label, _wrong(ex, value))
    check(label, ...)
    check(label, None)
    hint = f"Exercise {label}: not yet, hint: {ex.hint}"
    out = capsys.readouterr().out
    assert [" ".join(part.split()) for part in re.split(r"\n(?=Exercise )", out.strip())] == [
        f"Exercise {label}: right", hint, hint, hint]
    assert max(len(line) for line in out.splitlines()) <= LINE_WIDTH
    # the hint does not give the value away
    assert not any(form in ex.hint for form in answer_forms(label))


def test_labels_are_numbered_by_chapter_and_each_has_a_hint():
    assert all(re.fullmatch(r"(\d+|[A-Z])\.\d+", label) for label in EXERCISES)
    assert all(ex.hint and ex.asks for ex in EXERCISES.values())
    # every chapter with exercises, 1 to 14, and appendix D (PostgreSQL); chapters first
    assert {ex.chapter for ex in EXERCISES.values()} == set(range(1, 15)) | {"D"}
    assert list(EXERCISES)[-1] == "D.1"


def test_an_unknown_label_names_the_known_ones(fake):
    with pytest.raises(KeyError, match=r"no exercise '4\.9'.*1\.1, 1\.2"):
        check("4.9", 1)


def test_numbers_compare_within_the_tolerance_and_lists_item_by_item(fake, capsys):
    check("1.1", 0.404)
    check("1.1", 0.41)
    check("1.1", "0.4")
    check("1.1", True)
    check("1.2", [1, None, 3])
    check("1.2", [3, None, 1])
    check("1.2", [1, 0, 3])
    out = capsys.readouterr().out.splitlines()
    assert out == ["Exercise 1.1: right", "Exercise 1.1: not yet, hint: look at the table", "Exercise 1.1: right",
                   "Exercise 1.1: not yet, hint: look at the table", "Exercise 1.2: right",
                   "Exercise 1.2: not yet, hint: item by item", "Exercise 1.2: not yet, hint: item by item"]


def _notebook(cells):
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    nb = new_notebook()
    nb.cells = [new_code_cell(src, outputs=[new_output("stream", name="stdout", text=out)]) for src, out in cells]
    return nbformat.from_dict(nb)


def test_a_printed_answer_or_a_check_that_passes_as_committed_is_a_leak(fake):
    quiet = "Exercise 1.1: not yet, hint: look at the table\n"
    assert answer_leaks(_notebook([("print(x)", "MRR 0.41 and 10.40, 0.400"),  # neither is 0.40
                                   ('check("1.1", my_x)', quiet),
                                   ('check("1.2", my_list)', "Exercise 1.2: not yet, hint: item by item\n")]),
                        1) == []
    leaks = answer_leaks(_notebook([("print(x)", "MRR 0.40"), ('check("1.1", my_x)', "Exercise 1.1: right\n")]), 1)
    assert leaks == ["Exercise 1.1's check cell, as committed, printed 'Exercise 1.1: right\\n'",
                     "Exercise 1.1's answer '0.40' is printed by code cell 0",
                     'Exercise 1.2 has no check cell (a cell that is exactly check("1.2", name))']
    leaks = answer_leaks(_notebook([("ranks", "[1, None, 3]"), ('check("1.1", my_x)', quiet),
                                    ('check("1.2", my_list)', "Exercise 1.2: not yet, hint: item by item\n"),
                                    ('check("1.3", my_y)', "")]), 1)
    assert leaks == ["Exercise 1.2's answer '[1, None, 3]' is printed by code cell 0",
                     "check cell for exercise 1.3, which is not registered"]


def test_check_is_exported_from_the_book_wing():
    import ddrsearch.book

    assert ddrsearch.book.check is check
    assert "check" in ddrsearch.book.__all__


def test_every_chapter_lays_its_exercises_out_as_question_placeholder_check():
    """Committed chapters: **Exercise N.M.**, a cell starting my_x = ..., a cell that is only check("N.M", my_x)."""
    import json
    from pathlib import Path

    from ddrsearch.book.preview import book_entries

    project = Path(__file__).resolve().parents[2]
    # chapters by their number, appendices by their letter, as Quarto numbers them
    numbers = {e.path.name: e.number for e in book_entries(project) if e.number}
    chapters = [p for p in sorted((project / "chapters").glob("*.ipynb")) if p.name in numbers]
    found = {}
    for path in chapters:
        nb = json.loads(path.read_text(encoding="utf-8"))
        problems = exercise_layout(nb, numbers[path.name])
        problems += [f"cell {n} still calls check_answer" for n, c in enumerate(nb["cells"])
                     if "check_answer" in "".join(c["source"])]
        if problems:
            found[path.name] = problems
    assert not found


def test_the_layout_check_names_a_missing_placeholder_and_label(fake):
    nb = {"cells": [{"cell_type": "markdown", "source": "**Exercise 1.1.** How much?"},
                    {"cell_type": "code", "source": "my_x = 0.4  # answered in the commit"},
                    {"cell_type": "code", "source": 'check("1.1", my_x)'},
                    {"cell_type": "code", "source": "my_list = ...\n"},
                    {"cell_type": "code", "source": 'check("1.2", my_list)'}]}
    assert exercise_layout(nb, 1) == ["Exercise 1.1: the cell before its check does not start with my_x = ...",
                                      "Exercise 1.2 has no Markdown cell with **Exercise 1.2.**"]

"""ddrsearch.book.checks: the PDF overflow check, the hidden-prose check and the hidden-binding check."""

from __future__ import annotations

from pathlib import Path

from ddrsearch.book.checks import CODE_WIDTH, HIDDEN_PROSE_WORDS, TABLE_WIDTH, hidden_prose, pdf_overflows


def test_pdf_overflow_check_measures_code_output_and_tables():
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    nb = new_notebook()
    wide_html = "<table><tr><th></th><th>text</th></tr><tr><td>0</td><td>" + "w" * TABLE_WIDTH + "</td></tr></table>"
    nb.cells = [
        new_code_cell("x = 1  # " + "c" * CODE_WIDTH, outputs=[new_output("stream", name="stdout", text="o" * (CODE_WIDTH + 1))]),
        new_code_cell("#| echo: false\n" + "h" * 200),  # hidden: not printed
        new_code_cell("df", outputs=[new_output("execute_result", data={"text/html": wide_html, "text/plain": "p" * 200},
                                                execution_count=1)]),
        new_code_cell("ok", outputs=[new_output("execute_result", data={"text/plain": "fits"}, execution_count=2)]),
    ]
    problems = pdf_overflows(nbformat.from_dict(nb))
    assert [p.split(":")[0] + ":" + p.split(":")[1].split(" of ")[0] for p in problems] == [
        "cell 0: code line", "cell 0: output line", "cell 2: table"]


def test_hidden_prose_check_counts_what_hidden_cells_write():
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook, new_output

    def md(words):
        return [new_output("display_data", data={"text/markdown": " ".join(["w"] * words), "text/plain": "x"})]

    nb = new_notebook()
    nb.cells = [new_code_cell("#| echo: false\nshow()", outputs=md(HIDDEN_PROSE_WORDS)),
                new_code_cell("#| echo: false\nshow()", outputs=md(HIDDEN_PROSE_WORDS + 1)),
                new_code_cell("show()", outputs=md(500))]  # shown code: its output is not hidden prose
    problems = hidden_prose(nbformat.from_dict(nb))
    assert [p.split(":")[0] for p in problems] == ["cell 1"]


def test_no_visible_cell_reads_a_name_bound_only_in_a_hidden_cell():
    """The reader sees every line a visible cell depends on (a hidden cell's names are bound again where shown)."""
    import json

    from ddrsearch.book.checks import hidden_bindings

    chapters = sorted((Path(__file__).resolve().parents[2] / "chapters").glob("*.ipynb"))
    found = {p.name: hidden_bindings(json.loads(p.read_text(encoding="utf-8"))["cells"]) for p in chapters}
    assert not {name: cases for name, cases in found.items() if cases}


def test_hidden_bindings_names_the_cell_that_reads_a_hidden_name():
    from ddrsearch.book.checks import hidden_bindings

    cells = [{"cell_type": "code", "source": "#| echo: false\nsecret = 41 + 1\nfound = 3"},
             {"cell_type": "code", "source": "print(found)\nf = lambda m: m\n"},
             {"cell_type": "code", "source": 'check("1.1", mine)'}]
    assert hidden_bindings(cells) == ["cell 1 reads found, bound in hidden cell 0"]


def test_prose_words_counts_markdown_only_and_skips_front_matter():
    from ddrsearch.book.checks import prose_words

    cells = [{"cell_type": "raw", "source": "---\njupyter: python3\n---"},
             {"cell_type": "markdown", "source": ["---\n", "title: x\n", "---\n", "# A title {#sec-a}\n", "two `words`"]},
             {"cell_type": "code", "source": "many words of code here"},
             {"cell_type": "markdown", "source": "a line --- not front matter"}]
    assert prose_words(cells) == 6 + 6  # "# A title {#sec-a} two `words`", "a line --- not front matter"

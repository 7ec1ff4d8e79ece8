"""The no-Quarto preview shows what Quarto would: hidden inputs, captions, numbered links, formulas, an index.

Built on a two-chapter project in a temporary folder (one chapter raises), so
the failure path is checked without executing the book's chapters; the
Markdown conversion is also checked on the book's real ``_quarto.yml``.
"""

from __future__ import annotations

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell

from conftest import PROJECT
from ddrsearch.book.preview import book_entries, build_preview, cross_references
from ddrsearch.book.quartomd import read_bibliography, render_markdown
from ddrsearch.errors import BookBuildError


def _notebook(path, cells):
    nb = new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python", "name": "python3"}
    nb.cells = [new_raw_cell("---\njupyter: python3\n---")] + cells
    nbformat.write(nb, path)


@pytest.fixture()
def project(tmp_path):
    (tmp_path / "chapters").mkdir()
    (tmp_path / "_quarto.yml").write_text(
        "project: {type: book}\nbook:\n  title: Tiny\n  chapters:\n    - index.qmd\n"
        "    - part: One\n      chapters: [chapters/01-good.ipynb, chapters/02-bad.ipynb]\n"
        "  appendices: [chapters/appendix-card.qmd]\n")
    (tmp_path / "index.qmd").write_text("# Preface {.unnumbered}\n\nWho this is for: see @sec-good.\n")
    (tmp_path / "chapters" / "appendix-card.qmd").write_text("# Card {#sec-card}\n\n$$\nx^2\n$$ {#eq-sq}\n")
    (tmp_path / "references.bib").write_text(
        "@article{r09,\n  author = {Robertson, Stephen and Zaragoza, Hugo},\n  title = {BM25},\n"
        "  journal = {FnTIR},\n  year = {2009}\n}\n")
    _notebook(tmp_path / "chapters" / "01-good.ipynb", [
        new_markdown_cell("# Good {#sec-good}\n\n## First {#sec-first}\n\nAs @tbl-t shows [@r09]; "
                          "see @fig-f, @sec-card and @eq-sq."),
        new_markdown_cell("## Second {#sec-second}\n\nSee @sec-second."),
        new_code_cell("#| label: tbl-t\n#| tbl-cap: \"A small table.\"\nimport pandas as pd\n"
                      "pd.DataFrame({'a': [1]})"),
        new_code_cell("#| echo: false\nsecret_name = 41\nprint('shown output', secret_name + 1)"),
        new_code_cell("#| label: fig-f\n#| fig-cap: \"A figure.\"\nprint('no figure')"),
    ])
    _notebook(tmp_path / "chapters" / "02-bad.ipynb", [
        new_markdown_cell("# Bad {#sec-bad}"), new_code_cell("x = 1"), new_code_cell("1 / 0"),
    ])
    return tmp_path


def test_preview_hides_inputs_numbers_references_and_survives_a_failing_chapter(project, capsys):
    out = project / "_preview"
    with pytest.raises(BookBuildError) as info:
        build_preview(project, out, timeout=120)
    message = capsys.readouterr().err
    # one short line naming notebook, cell and error; no traceback
    assert "02-bad.ipynb: cell 3 ('1 / 0') raised ZeroDivisionError" in message
    assert "Traceback" not in message and "\x1b[" not in message and len(message.splitlines()) == 1
    assert [f.cell for f in info.value.failures] == [3]
    good = (out / "01-good.html").read_text()
    assert "secret_name" not in good and "shown output 42" in good  # hidden input, shown output
    assert "#|" not in good
    assert "Table 1.1: A small table." in good and "Figure 1.2" not in good
    assert 'href="01-good.html#tbl-t">Table 1.1</a>' in good
    assert 'href="appendix-card.html#sec-card">Appendix A</a>' in good
    assert 'href="appendix-card.html#eq-sq">Equation A.1</a>' in good
    assert "(Robertson and Zaragoza 2009)" in good and "{#sec" not in good
    assert "1.1 First" in good and "1.2 Second" in good and "MathJax" in good  # numbers run on across cells
    assert 'href="01-good.html#sec-second">Section 1.2</a>' in good
    card = (out / "appendix-card.html").read_text()
    assert "\\tag{A.1}" in card and 'id="eq-sq"' in card
    assert not (out / "02-bad.html").exists()
    index = (out / "index.html").read_text()
    assert "Who this is for" in index and index.index("01-good.html") < index.index("02-bad.html")
    assert "failed" in index and "Appendix A." in index


def test_book_references_resolve_to_numbered_links():
    refs = cross_references(book_entries(PROJECT))
    assert refs["sec-reading-reports"][1] == "Chapter 1"
    assert refs["sec-evaluation"][1] == "Chapter 11"
    assert refs["eq-bm25"][1] == "Equation 3.1"
    assert refs["sec-metric-card"][1].startswith("Appendix ")
    bib = read_bibliography(PROJECT / "references.bib")
    text = render_markdown("BM25 [@robertson2009bm25], see @sec-evaluation and `@sec-x`.", refs, bib)
    assert text == ("BM25 (Robertson and Zaragoza 2009), see "
                    "[Chapter 11](11-evaluating-retrieval.html#sec-evaluation) and `@sec-x`.")
    assert "Järvelin" in bib["jarvelin2002ndcg"]["author"]

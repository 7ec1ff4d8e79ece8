"""``ddrsearch preview``: the exit status when a chapter fails."""

from __future__ import annotations

import subprocess
import sys

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_raw_cell


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


def test_preview_command_exits_non_zero_when_a_chapter_fails(project):
    proc = subprocess.run([sys.executable, "-m", "ddrsearch.cli.command", "preview", "--project", str(project),
                           "--out", str(project / "out"), "--timeout", "120"],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 1
    ours = [ln for ln in proc.stderr.splitlines() if not ln.startswith("[IPKernelApp]")]  # the kernel's own notices
    assert len(ours) == 2 and "02-bad.ipynb: cell 3" in ours[0], proc.stderr
    assert (project / "out" / "01-good.html").is_file()

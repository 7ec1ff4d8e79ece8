"""ddrsearch.book.render: ``make book`` renders Quarto from executed copies, so ``chapters/`` keeps no outputs.

Defect pinned: rendering with Quarto's execution on wrote the outputs back
into ``chapters/*.ipynb`` (which the book check then refused). The staging
folder holds the executed copies; the project's chapters are never written.
"""

from __future__ import annotations

import json
import shutil

import pytest
import yaml

from conftest import PROJECT
from ddrsearch.book.preview import book_entries
from ddrsearch.book.render import STAGE_MARK, stage_quarto_project


def _notebook(outputs):
    cell = {"cell_type": "code", "execution_count": 1 if outputs else None, "id": "c1", "metadata": {},
            "outputs": outputs, "source": ["print(1)"]}
    head = {"cell_type": "raw", "id": "r1", "metadata": {}, "source": ["---\njupyter: python3\n---"]}
    title = {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# One {#sec-one}"]}
    return {"cells": [head, title, cell], "metadata": {"kernelspec": {"name": "python3"}}, "nbformat": 4,
            "nbformat_minor": 5}


@pytest.fixture
def book(tmp_path):
    project = tmp_path / "book"
    (project / "chapters").mkdir(parents=True)
    (project / "_quarto.yml").write_text(yaml.safe_dump({
        "project": {"type": "book", "output-dir": "_book"},
        "book": {"chapters": ["index.qmd", "chapters/01-one.ipynb"], "appendices": ["chapters/appendix-a.qmd"]},
        "execute": {"enabled": True}}))
    (project / "index.qmd").write_text("# Preface {.unnumbered}\n")
    (project / "chapters" / "appendix-a.qmd").write_text("# Setup {#sec-a}\n")
    (project / "references.bib").write_text("@book{x, title={X}}\n")
    clean = json.dumps(_notebook([]), indent=1) + "\n"
    (project / "chapters" / "01-one.ipynb").write_text(clean)
    executed = tmp_path / "_preview"
    executed.mkdir()
    out = [{"name": "stdout", "output_type": "stream", "text": ["1\n"]}]
    (executed / "01-one.ipynb").write_text(json.dumps(_notebook(out), indent=1))
    return project, executed, clean


def test_stage_holds_executed_copies_and_leaves_chapters_clean(book, tmp_path):
    """The staged notebook carries the outputs, the project's stays byte for byte as committed, execution is off."""
    project, executed, clean = book
    stage = tmp_path / "_render"
    written = stage_quarto_project(project, executed, stage)
    assert [p.relative_to(stage).as_posix() for p in written] == [
        "_quarto.yml", "index.qmd", "chapters/01-one.ipynb", "chapters/appendix-a.qmd", "references.bib"]
    staged = json.loads((stage / "chapters" / "01-one.ipynb").read_text())
    assert staged["cells"][2]["outputs"][0]["text"] == ["1\n"]
    assert (project / "chapters" / "01-one.ipynb").read_text() == clean
    cfg_text = (stage / "_quarto.yml").read_text()
    assert cfg_text.startswith(STAGE_MARK)
    cfg = yaml.safe_load(cfg_text)
    assert cfg["execute"]["enabled"] is False
    assert cfg["book"] == yaml.safe_load((project / "_quarto.yml").read_text())["book"]
    # staging again empties the folder it wrote before
    (stage / "left-over.txt").write_text("x")
    stage_quarto_project(project, executed, stage)
    assert not (stage / "left-over.txt").exists()


def test_missing_executed_copy_is_named_with_the_command(book, tmp_path):
    """A chapter not executed yet is an error naming it and 'ddrsearch preview', not a book without outputs."""
    project, executed, _ = book
    (executed / "01-one.ipynb").unlink()
    with pytest.raises(FileNotFoundError, match=r"chapters/01-one\.ipynb.*ddrsearch preview"):
        stage_quarto_project(project, executed, tmp_path / "_render")


def test_stage_never_empties_a_folder_it_did_not_write(book, tmp_path):
    """The stage is emptied first: the project, its chapters' folder or a stranger's folder are refused."""
    project, executed, _ = book
    for bad in (project, project / "chapters", tmp_path):
        with pytest.raises(ValueError, match="sources"):
            stage_quarto_project(project, executed, bad)
    other = tmp_path / "mine"
    other.mkdir()
    (other / "notes.txt").write_text("keep me")
    with pytest.raises(ValueError, match="not written by"):
        stage_quarto_project(project, executed, other)
    assert (other / "notes.txt").read_text() == "keep me"


def test_the_books_own_list_stages(tmp_path):
    """Every file the real _quarto.yml lists is staged at its own path (clean copies stand in for executed ones)."""
    executed = tmp_path / "_preview"
    executed.mkdir()
    entries = book_entries(PROJECT)
    for e in entries:
        if e.path.suffix == ".ipynb":
            shutil.copyfile(e.path, executed / e.path.name)
    stage = tmp_path / "_render"
    written = stage_quarto_project(PROJECT, executed, stage)
    staged = {p.relative_to(stage).as_posix() for p in written}
    assert {e.path.relative_to(PROJECT).as_posix() for e in entries} <= staged
    assert "references.bib" in staged

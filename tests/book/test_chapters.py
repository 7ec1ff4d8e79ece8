"""The book check: the source Quarto renders is complete and every chapter executes on the real data.

Quarto itself is not needed: this checks what Quarto relies on. Every file
that ``_quarto.yml`` lists exists; notebooks are committed without outputs,
start with a raw cell of YAML front matter and use the ``python3`` kernel;
cross-reference labels are prefixed, unique and every ``@ref`` resolves; and
each chapter notebook runs top to bottom with nbclient on the real reports,
printing no progress bars or ANSI colour codes (they break the PDF build), and
gives none of its exercises' answers away.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from conftest import PROJECT
from ddrsearch.book.checks import hidden_prose, pdf_overflows
from ddrsearch.book.exercises import answer_leaks
from ddrsearch.book.preview import book_entries, book_files, chapter_notebooks, execute_notebook

LABEL_PREFIXES = ("sec", "fig", "tbl", "eq", "lst", "thm", "lem")


REF_RE = re.compile(r"(?<![\w@/.-])@((?:%s)-[A-Za-z0-9_-]*[A-Za-z0-9])" % "|".join(LABEL_PREFIXES))


ANCHOR_RE = re.compile(r"\{#((?:%s)-[A-Za-z0-9_-]+)[^}]*\}" % "|".join(LABEL_PREFIXES))


CELL_LABEL_RE = re.compile(r"^#\|\s*label:\s*(\S+)\s*$", re.M)


ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")


PROGRESS_RE = re.compile(r"\d+%\|")  # tqdm's bar


CHAPTERS = chapter_notebooks(PROJECT)


#: Overflows still left in a chapter, measured on its last execution: a ratchet, to be brought
#: down to zero (a chapter not listed must have none). Each entry says what is left.
KNOWN_OVERFLOWS: dict[str, int | None] = {
}


def _sources(path: Path) -> list[tuple[str, str]]:
    """(cell type, source) for a notebook, or one markdown "cell" for a .qmd file."""
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"]) for c in nb["cells"]]
    return [("markdown", path.read_text(encoding="utf-8"))]


def test_quarto_config_is_a_book_with_html_and_pdf():
    cfg = yaml.safe_load((PROJECT / "_quarto.yml").read_text())
    assert cfg["project"]["type"] == "book"
    assert {"html", "pdf"} <= set(cfg["format"])
    assert cfg["execute"]["enabled"] is True
    for entry in cfg["book"]["chapters"]:
        if isinstance(entry, str):
            assert not entry.startswith("./"), entry


def test_every_listed_file_exists_once():
    files = book_files(PROJECT)
    assert files, "_quarto.yml lists no chapters"
    missing = [str(p.relative_to(PROJECT)) for p in files if not p.is_file()]
    assert not missing, f"_quarto.yml lists files that do not exist: {missing}"
    assert len(files) == len(set(files)), "a chapter is listed twice"
    # every chapter notebook on disk is in the book (nothing keeps a second list)
    on_disk = sorted(p.name for p in (PROJECT / "chapters").glob("*.ipynb"))
    assert on_disk == sorted(p.name for p in CHAPTERS)
    assert all(re.match(r"^(\d\d|appendix)-[a-z0-9-]+\.ipynb$", p.name) for p in CHAPTERS)


def test_chapter_numbers_equal_file_numbers():
    # Quarto numbers chapters by their place in _quarto.yml; the prose, the README and
    # code/chapter_NN/ use the file's number, so the two must agree
    entries = book_entries(PROJECT)
    numbered = [e for e in entries if re.match(r"^\d\d-", e.path.name)]
    assert numbered, "no numbered chapters"
    wrong = [(e.path.name, e.number) for e in numbered if e.appendix or e.number != str(int(e.path.name[:2]))]
    assert not wrong, f"file number differs from Quarto's chapter number: {wrong}"
    assert [int(e.number) for e in numbered] == list(range(1, len(numbered) + 1))
    # appendices are lettered, and every appendix file is named appendix-*
    appendices = [e for e in entries if e.appendix]
    assert [e.number for e in appendices] == [chr(ord("A") + i) for i in range(len(appendices))]
    assert all(e.path.name.startswith("appendix-") for e in appendices)
    # every part holds chapters in increasing order
    cfg = yaml.safe_load((PROJECT / "_quarto.yml").read_text())
    parts = [c["part"] for c in cfg["book"]["chapters"] if isinstance(c, dict)]
    assert parts == ["The ten-report sample", "The archive", "Beyond one machine"]


@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_notebook_is_committed_clean(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    # valid for nbconvert too (it refuses, e.g., a cell whose id is empty: the preview failed on one)
    import nbformat

    nbformat.validate(nbformat.from_dict(nb))
    # every cell has its own id (a missing one is only a warning today, a hard error in later nbformat)
    ids = [c.get("id") for c in nb["cells"]]
    assert all(ids) and len(set(ids)) == len(ids), f"{path.name}: cells without an id or sharing one"
    assert nb["metadata"]["kernelspec"]["name"] == "python3"
    with_output = [i for i, c in enumerate(nb["cells"]) if c.get("outputs") or c.get("execution_count")]
    assert not with_output, f"{path.name}: cells {with_output} keep outputs; clear them before committing"
    first = nb["cells"][0]
    assert first["cell_type"] == "raw"
    src = "".join(first["source"])
    assert src.startswith("---\n") and src.rstrip().endswith("---")
    assert isinstance(yaml.safe_load(src.strip().strip("-")), dict)
    # each chapter has a labelled title so other chapters can refer to it
    md = [s for t, s in _sources(path) if t == "markdown"]
    assert re.match(r"^# .+\{#sec-[a-z0-9-]+\}", md[0]), f"{path.name}: first heading needs a {{#sec-...}} label"


def _labels_and_refs():
    labels: list[tuple[str, str]] = []
    refs: list[tuple[str, str]] = []
    for path in book_files(PROJECT):
        for kind, src in _sources(path):
            if kind == "code":
                for label in CELL_LABEL_RE.findall(src):
                    labels.append((label, path.name))
            elif kind == "markdown":
                body = re.sub(r"```.*?```", "", src, flags=re.S)
                body = re.sub(r"`[^`]*`", "", body)
                labels += [(m, path.name) for m in ANCHOR_RE.findall(body)]
                refs += [(m, path.name) for m in REF_RE.findall(body)]
    return labels, refs


def test_labels_are_prefixed_and_unique_and_refs_resolve():
    labels, refs = _labels_and_refs()
    bad = [(l, f) for l, f in labels if not l.startswith(tuple(p + "-" for p in LABEL_PREFIXES))]
    assert not bad, f"labels without a cross-reference prefix: {bad}"
    names = [l for l, _ in labels]
    dupes = sorted({l for l in names if names.count(l) > 1})
    assert not dupes, f"labels used twice: {dupes}"
    unresolved = [(r, f) for r, f in refs if r not in set(names)]
    assert not unresolved, f"cross-references with no label: {unresolved}"


def test_figure_and_table_cells_have_captions():
    for path in CHAPTERS:
        for kind, src in _sources(path):
            if kind != "code":
                continue
            for label in CELL_LABEL_RE.findall(src):
                prefix = label.split("-")[0]
                if prefix in ("fig", "tbl"):
                    assert re.search(rf"^#\|\s*{prefix}-cap:", src, re.M), f"{path.name}: {label} has no {prefix}-cap"


@pytest.mark.data
@pytest.mark.notebook
@pytest.mark.parametrize("path", CHAPTERS, ids=[p.stem for p in CHAPTERS])
def test_chapter_executes_on_the_real_data(path, archive_folder):
    nb = execute_notebook(path, timeout=1200)
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        src = cell.source
        for out in cell.get("outputs", []):
            assert out["output_type"] != "error", f"{path.name}: a cell raised:\n{src}"
            text = out.get("text", "") + "".join(
                v for k, v in out.get("data", {}).items() if k.startswith("text/") and isinstance(v, str)
            )
            assert not ANSI_RE.search(text), f"{path.name}: ANSI colour codes in output of:\n{src}"
            assert not PROGRESS_RE.search(text), f"{path.name}: a progress bar in output of:\n{src}"
            if out["output_type"] == "stream":
                assert out["name"] != "stderr", f"{path.name}: the cell wrote to stderr:\n{src}\n{text[:500]}"
        labels = CELL_LABEL_RE.findall(src)
        if any(l.startswith("fig-") for l in labels):
            assert any("image/png" in o.get("data", {}) for o in cell.outputs), f"{path.name}: {labels} drew no figure"
    # exercises a learner must do: no output shows an answer, and every check cell, run as
    # committed (its answer still the placeholder), says "not yet"
    # (a chapter by its number, an appendix by its letter: appendix D has exercise D.1)
    number = next(e.number for e in book_entries(PROJECT) if e.path.resolve() == path.resolve())
    if number:
        leaks = answer_leaks(nb, number)
        assert not leaks, f"{path.name}: exercises given away or checks that pass as committed:\n" + "\n".join(leaks)
    # narrative lives in Markdown cells: a hidden cell writes one short sentence of computed numbers
    long_prose = hidden_prose(nb)
    assert not long_prose, f"{path.name}: narrative written by hidden cells:\n" + "\n".join(long_prose)
    # what would run off the PDF page: code and output lines, tables wider than the text block
    problems = pdf_overflows(nb)
    allowed = KNOWN_OVERFLOWS.get(path.stem, 0)
    if allowed is None:
        print(f"{path.name}: {len(problems)} things wider than the PDF page (not enforced yet)")
        return
    assert len(problems) <= allowed, (
        f"{path.name}: {len(problems)} things wider than the PDF page (allowed: {allowed}):\n" + "\n".join(problems))

"""The book's build helpers: the chapter list and numbers from ``_quarto.yml``, and the no-Quarto preview.

``_quarto.yml`` is the only list of chapters; everything else (the preview,
the book check in the tests) reads it from there. Chapters are numbered the
way Quarto numbers them: in list order, parts not counted, a file whose first
heading says ``{.unnumbered}`` (the preface, the references) skipped;
appendices get letters A, B, ... (Quarto book docs, "Book Structure":
https://quarto.org/docs/books/book-structure.html).

The preview (``ddrsearch preview``, ``make book`` without Quarto) follows what
Quarto would show: inputs of ``#| echo: false`` cells hidden, ``#|`` option
lines dropped, figure and table captions numbered, ``@sec-``/``@fig-``/
``@tbl-``/``@eq-`` references turned into numbered links, ``[@key]``
citations resolved from ``references.bib``, formulas rendered by MathJax,
and an index page with the preface and the chapter list in book order.
"""

from __future__ import annotations

import os
import re
import string
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

from ddrsearch.book.quartomd import HEADING_RE, KINDS, OPTION_RE, prose_lines, read_bibliography, render_markdown
from ddrsearch.errors import BookBuildError, NotebookExecutionError
from ddrsearch.imports import require_extra

MATHJAX_URL = "https://cdn.jsdelivr.net/npm/mathjax@2.7.9/MathJax.js?config=TeX-AMS_CHTML-full"


@dataclass(frozen=True)
class BookEntry:
    """One file of the book: its path, its part, its number ("4", "A" or None) and whether it is an appendix."""

    path: Path
    part: str | None
    number: str | None
    appendix: bool = False


def _config(project: Path) -> dict:
    cfg_path = project / "_quarto.yml"
    if not cfg_path.is_file():
        raise FileNotFoundError(f"No _quarto.yml in {project.resolve()}: run this from the book's project folder.")
    book = (yaml.safe_load(cfg_path.read_text(encoding="utf-8")) or {}).get("book") or {}
    if not book.get("chapters"):
        raise ValueError(f"{cfg_path} has no book: chapters: list.")
    return book


def _flatten(items, part=None):
    for item in items or []:
        if isinstance(item, str):
            yield item, part
        elif isinstance(item, dict):
            name = item.get("part")
            if isinstance(name, str) and name.endswith((".qmd", ".md", ".ipynb")):
                yield name, part
            yield from _flatten(item.get("chapters"), name if name else part)
            if "href" in item:
                yield item["href"], part


def book_files(project: str | os.PathLike = ".") -> list[Path]:
    """Return every file ``_quarto.yml`` lists under ``book.chapters`` and ``book.appendices``, in order.

    Part entries (``- part: ... chapters: [...]``) are flattened.

    Raises:
        FileNotFoundError: there is no ``_quarto.yml`` in ``project``.
        ValueError: it has no ``book: chapters:`` list.
    """
    return [e.path for e in book_entries(project)]


def _sources(path: Path) -> list[tuple[str, str]]:
    """(cell type, source) of a notebook, or one markdown "cell" for a .qmd/.md file (front matter removed)."""
    import json

    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        return [(c["cell_type"], "".join(c["source"]) if isinstance(c["source"], list) else c["source"])
                for c in nb["cells"]]
    text = path.read_text(encoding="utf-8")
    if text.startswith("---\n"):
        text = text[text.index("\n---", 3) + 4:]
    return [("markdown", text)]


def _unnumbered(path: Path) -> bool:
    """True when the file's first heading carries ``{.unnumbered}`` (or ``{-}``)."""
    if not path.is_file():
        return False
    for kind, src in _sources(path):
        if kind == "markdown":
            for line in src.splitlines():
                m = HEADING_RE.match(line)
                if m and len(m[1]) == 1:
                    return bool(m[3]) and (".unnumbered" in m[3] or m[3].strip() == "-")
    return False


def book_entries(project: str | os.PathLike = ".") -> list[BookEntry]:
    """Every file of the book in order, with its part and the number Quarto gives it.

    Raises:
        FileNotFoundError: there is no ``_quarto.yml`` in ``project``.
        ValueError: it has no ``book: chapters:`` list.
    """
    project = Path(project)
    book = _config(project)
    entries, n = [], 0
    for name, part in _flatten(book.get("chapters")):
        path = project / name
        number = None
        if not _unnumbered(path):
            n += 1
            number = str(n)
        entries.append(BookEntry(path, part, number))
    letters = iter(string.ascii_uppercase)
    for name, part in _flatten(book.get("appendices")):
        entries.append(BookEntry(project / name, part, next(letters), appendix=True))
    return entries


def chapter_notebooks(project: str | os.PathLike = ".") -> list[Path]:
    """Return the ``.ipynb`` files listed in ``_quarto.yml`` (chapters and appendices), in book order."""
    return [p for p in book_files(project) if p.suffix == ".ipynb"]


def execute_notebook(path: str | os.PathLike, *, timeout: int = 1800, cwd: str | os.PathLike | None = None):
    """Execute a notebook top to bottom with nbclient (kernel ``python3``) and return it.

    The working folder is the notebook's own folder unless ``cwd`` is given,
    as under Quarto. ``TQDM_DISABLE=1`` is set while it runs (no progress bars).

    Raises:
        NotebookExecutionError: a cell raised; the message names the notebook,
            the cell and the exception, without the traceback.
    """
    nbformat = require_extra("nbformat", "executing the book's chapters")
    NotebookClient = require_extra("nbclient", "executing the book's chapters").NotebookClient
    from nbclient.exceptions import CellExecutionError

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("TQDM_DISABLE")
    os.environ["TQDM_DISABLE"] = "1"  # no progress bars in executed output (they break LaTeX)
    # A process that imported Streamlit (the app's tests) has MPLBACKEND=Agg in its environment;
    # a kernel started with it draws no inline figures. The kernel chooses its own backend.
    mpl_before = os.environ.pop("MPLBACKEND", None)
    try:
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": str(cwd or path.parent)}},
        )
        client.execute()
    except CellExecutionError as exc:
        cell = next((i for i, c in enumerate(nb.cells)
                     if any(o.get("output_type") == "error" for o in c.get("outputs", []))), None)
        first = ""
        if cell is not None:
            first = next((ln for ln in nb.cells[cell].source.splitlines() if ln.strip() and not ln.startswith("#|")), "")
        error = f"{exc.ename}: {exc.evalue}".strip() if getattr(exc, "ename", None) else str(exc).splitlines()[-1]
        raise NotebookExecutionError(path, cell, first[:70], error[:300]) from None
    finally:
        if env_before is None:
            os.environ.pop("TQDM_DISABLE", None)
        else:
            os.environ["TQDM_DISABLE"] = env_before
        if mpl_before is not None:
            os.environ["MPLBACKEND"] = mpl_before
    return nb


# --- cross-references ---------------------------------------------------------------------------

def cross_references(entries: list[BookEntry]) -> dict[str, tuple[str, str]]:
    """Map every label to (HTML page#anchor, the text Quarto shows: "Chapter 4", "Figure 11.2", ...)."""
    refs: dict[str, tuple[str, str]] = {}
    for e in entries:
        if not e.path.is_file():
            continue
        page = e.path.stem + ".html"
        counts = {"fig": 0, "tbl": 0, "eq": 0}
        sections = [0, 0, 0, 0, 0, 0]
        pre = f"{e.number}." if e.number else ""
        for kind, src in _sources(e.path):
            if kind == "code":
                for line in src.splitlines():
                    m = OPTION_RE.match(line)
                    if m and m[1] == "label" and m[2].split("-")[0] in counts:
                        prefix = m[2].split("-")[0]
                        counts[prefix] += 1
                        refs[m[2]] = (f"{page}#{m[2]}", f"{KINDS[prefix]} {pre}{counts[prefix]}")
                continue
            if kind != "markdown":
                continue
            for line, code in prose_lines(src):
                if code:
                    continue
                m = HEADING_RE.match(line)
                if m:
                    level, attrs = len(m[1]), m[3] or ""
                    label = next((a[1:] for a in attrs.split() if a.startswith("#")), None)
                    if level == 1:
                        text = (f"Appendix {e.number}" if e.appendix else f"Chapter {e.number}") if e.number else m[2]
                    elif ".unnumbered" in attrs or not e.number:
                        text = m[2]
                    else:
                        sections[level - 1] += 1
                        sections[level:] = [0] * (6 - level)
                        text = "Section " + ".".join([e.number] + [str(s) for s in sections[1:level]])
                    if label:
                        refs[label] = (f"{page}#{label}", text)
                for label in re.findall(r"\$\$\s*\{#(eq-[\w-]+)\}", line):
                    counts["eq"] += 1
                    refs[label] = (f"{page}#{label}", f"Equation {pre}{counts['eq']}")
    return refs


# --- the preview ------------------------------------------------------------------------------

def _preview_notebook(nb, entry: BookEntry, refs: dict, bib: dict):
    """Turn an executed chapter into what Quarto would show (see the module docstring)."""
    import nbformat

    cells, sections = [], [0] * 6  # section numbers run on from cell to cell
    for cell in nb.cells:
        if cell.cell_type == "raw":
            continue
        if cell.cell_type == "markdown":
            cell.source = render_markdown(cell.source, refs, bib, number=entry.number, appendix=entry.appendix,
                                          sections=sections)
            cells.append(cell)
            continue
        lines = cell.source.splitlines()
        options = {m[1]: m[2].strip("\"'") for m in map(OPTION_RE.match, lines) if m}
        cell.source = "\n".join(ln for ln in lines if not OPTION_RE.match(ln)).strip("\n")
        tags = set(cell.metadata.get("tags", []))
        if options.get("echo") == "false" or not cell.source:
            tags.add("remove_input")
        cell.metadata["tags"] = sorted(tags)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if "text/markdown" in data:
                data["text/markdown"] = render_markdown(data["text/markdown"], refs, bib)
        label = options.get("label", "")
        prefix = label.split("-")[0]
        caption = None
        if prefix in ("fig", "tbl") and options.get(f"{prefix}-cap"):
            text = render_markdown(options[f"{prefix}-cap"], refs, bib)
            caption = nbformat.v4.new_markdown_cell(
                f'<a id="{label}"></a>\n\n*{refs.get(label, ("", KINDS[prefix]))[1]}: {text}*')
        if caption is not None and prefix == "tbl":
            cells.append(caption)  # Quarto puts table captions above the table
        cells.append(cell)
        if caption is not None and prefix == "fig":
            cells.append(caption)
    nb.cells = cells
    return nb


def _exporter(mathjax_url: str):
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config()
    config.TagRemovePreprocessor.enabled = True
    config.TagRemovePreprocessor.remove_input_tags = {"remove_input"}
    config.HTMLExporter.exclude_input_prompt = True
    config.HTMLExporter.exclude_output_prompt = True
    config.HTMLExporter.mathjax_url = mathjax_url
    return HTMLExporter(config=config)


def _title(path: Path) -> str:
    """The text of a file's first heading, without its attributes (the file stem if none)."""
    heads = [HEADING_RE.match(ln) for k, s in (_sources(path) if path.is_file() else []) if k == "markdown"
             for ln in s.splitlines()]
    return next((m[2] for m in heads if m), path.stem)


def _markdown_notebook(text: str):
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell(text)]
    return nb


def build_preview(project: str | os.PathLike = ".", out: str | os.PathLike = "_preview", *,
                  timeout: int = 1800, mathjax_url: str = MATHJAX_URL, only: list[str] | None = None) -> list[Path]:
    """Execute every chapter and write it, executed, with an HTML page that shows what Quarto would, into ``out``.

    Args:
        project: the folder holding ``_quarto.yml``.
        out: the output folder (created).
        timeout: seconds allowed per cell.
        mathjax_url: where the pages load MathJax from (a local copy works offline).
        only: file stems to build (default: all); the index page lists every entry.

    Returns:
        The paths written: ``out/<chapter>.ipynb`` and ``out/<chapter>.html`` per
        notebook, ``out/<name>.html`` per .qmd file, and ``out/index.html``.

    Raises:
        BookBuildError: one or more chapters raised; each is named with its
            cell in one line on standard error as it happens, every other
            chapter and the index are still written.
    """
    import nbformat

    project, out = Path(project), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    entries = book_entries(project)
    refs = cross_references(entries)
    bib_path = project / "references.bib"
    bib = read_bibliography(bib_path) if bib_path.is_file() else {}
    exporter = _exporter(mathjax_url)
    written, failures, failed = [], [], set()
    preface = ""
    for e in entries:
        if e.path.name == "index.qmd":
            preface = render_markdown(_sources(e.path)[0][1], refs, bib)
            continue
        if only and e.path.stem not in only:
            continue
        if e.path.suffix == ".ipynb":
            try:
                nb = execute_notebook(e.path, timeout=timeout)
            except NotebookExecutionError as exc:
                print(f"ddrsearch preview: {exc}", file=sys.stderr)
                failures.append(exc)
                failed.add(e.path)
                continue
            ipynb = out / e.path.name
            nbformat.write(nb, ipynb)
            written.append(ipynb)
            nb = _preview_notebook(nb, e, refs, bib)
        else:
            nb = _preview_notebook(_markdown_notebook(_sources(e.path)[0][1]), e, refs, bib)
        html = out / (e.path.stem + ".html")
        body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": e.path.stem}})
        html.write_text(body, encoding="utf-8")
        written.append(html)
    items, part = [], None
    for e in entries:
        if e.path.name == "index.qmd":
            continue
        if e.part != part and e.part:
            items.append(f"\n**{e.part}**\n")
        part = e.part
        if e.appendix and not any("Appendices" in i for i in items):
            items.append("\n**Appendices**\n")
        title = _title(e.path)
        number = f"{'Appendix ' if e.appendix else ''}{e.number}. " if e.number else ""
        note = " (failed: see the message of `ddrsearch preview`)" if e.path in failed else ""
        items.append(f"- {number}[{title}]({e.path.stem}.html) — `{e.path.relative_to(project)}`{note}")
    index_md = (f"# {_config(project).get('title', 'Book preview')}\n\n*Preview without Quarto: executed "
                f"chapters in book order.*\n\n{preface}\n\n## Contents\n\n" + "\n".join(items))
    body, _ = exporter.from_notebook_node(_markdown_notebook(index_md), resources={"metadata": {"name": "index"}})
    index = out / "index.html"
    index.write_text(body, encoding="utf-8")
    written.append(index)
    if failures:
        raise BookBuildError(failures, written)
    return written

"""What the book checks that is not retrieval: what fits a printed page, what hidden cells may do, how long a chapter reads.

The chapters' exercises are checked by :mod:`ddrsearch.book.exercises`. ``hidden_prose``
keeps narrative out of code: what a hidden cell writes must stay a short
sentence carrying computed numbers. ``prose_words`` counts a chapter's
Markdown prose against :data:`CHAPTER_PROSE_WORDS`. ``pdf_overflows``
is the book check's measure of an executed chapter against the PDF's text
block (``tests/book/test_chapters.py``): Quarto sets code in a monospace font without
wrapping and turns a DataFrame into a LaTeX table at its natural width, so a
line or a table wider than the text block runs off the page.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable

# --- what fits a printed page ----------------------------------------------------------------

#: Monospace characters per line of the PDF's text block: letter paper, KOMA scrreprt at 11 pt,
#: DejaVu Sans Mono scaled 0.85 (about 5.6 pt a character over a 445 pt text block).
CODE_WIDTH = 79
#: The same text block in characters of the table font (DejaVu Serif, about 6 pt a character);
#: each column also costs two characters of column separation (LaTeX \tabcolsep on both sides).
TABLE_WIDTH = 74


def _table_widths(html: str) -> list[tuple[int, int]]:
    """(width in characters, number of columns) of each <table> in an HTML output."""
    from html.parser import HTMLParser

    tables: list[list[list[str]]] = []

    class Cells(HTMLParser):
        cell: list[str] | None = None

        def handle_starttag(self, tag, attrs):
            if tag == "table":
                tables.append([])
            elif tag == "tr" and tables:
                tables[-1].append([])
            elif tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag):
            if tag in ("td", "th") and self.cell is not None and tables and tables[-1]:
                tables[-1][-1].append(" ".join("".join(self.cell).split()))
                self.cell = None

        def handle_data(self, data):
            if self.cell is not None:
                self.cell.append(data)

    Cells().feed(html)
    out = []
    for rows in tables:
        n = max((len(r) for r in rows), default=0)
        widths = [max((len(r[i]) for r in rows if i < len(r)), default=0) for i in range(n)]
        out.append((sum(widths) + 2 * n, n))
    return out


def pdf_overflows(nb, *, code_width: int = CODE_WIDTH, table_width: int = TABLE_WIDTH) -> list[str]:
    """What would run past the edge of the PDF page in an executed notebook, one line per problem.

    Checked: every shown code line (``#|`` lines and ``echo: false`` cells are
    not printed), every line of printed output (streams and plain-text
    results), and every table (HTML output: the sum of its columns' widest
    cells plus column separation, as LaTeX sets a table at natural width).

    Returns:
        ``"cell N: ..."`` messages; empty when everything fits.
    """
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        hidden = any(re.match(r"^#\|\s*echo:\s*false", ln) for ln in lines)
        if not hidden:
            problems += [f"cell {i}: code line of {len(ln)} characters: {ln[:60]}..."
                         for ln in lines if len(ln) > code_width and not ln.startswith("#|")]
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            texts = [out.get("text", "")] if out.get("output_type") == "stream" else []
            if "text/html" in data and "<table" in data["text/html"]:
                problems += [f"cell {i}: table of {w} characters in {n} columns (limit {table_width})"
                             for w, n in _table_widths(data["text/html"]) if w > table_width]
            elif "text/plain" in data and not ({"image/png", "text/markdown"} & set(data)):
                texts.append(data["text/plain"])
            problems += [f"cell {i}: output line of {len(ln)} characters: {ln[:60]}..."
                         for t in texts for ln in t.splitlines() if len(ln) > code_width]
    return problems


# --- prose in hidden cells ----------------------------------------------------------------------

#: The most words a hidden cell may write into the book: one sentence carrying computed numbers.
#: Narrative belongs in Markdown cells, where a learner opening the notebook reads it as prose.
HIDDEN_PROSE_WORDS = 60


def hidden_prose(nb, *, limit: int = HIDDEN_PROSE_WORDS) -> list[str]:
    """Hidden cells of an executed notebook that write more than ``limit`` words of Markdown.

    A cell is hidden when it carries ``#| echo: false``; its ``text/markdown``
    outputs are what the book prints in its place. Words are counted as
    whitespace-separated tokens of the Markdown source.

    Returns:
        ``"cell N: W words ..."`` messages; empty when every hidden cell is short.
    """
    problems = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or not re.search(r"^#\|\s*echo:\s*false", cell.source, re.M):
            continue
        text = " ".join(o.get("data", {}).get("text/markdown", "") for o in cell.get("outputs", []))
        words = len(text.split())
        if words > limit:
            problems.append(f"cell {i}: {words} words of prose from a hidden cell (limit {limit}): "
                            f"{' '.join(text.split()[:12])}...")
    return problems


# --- how long a chapter reads ----------------------------------------------------------------

#: The most words of Markdown prose a numbered chapter may hold: what a reader finishes in one
#: sitting. Secondary material goes to an appendix (with a cross-reference) or is folded.
CHAPTER_PROSE_WORDS = 3000

_FRONT_MATTER_RE = re.compile(r"\A\s*---\n.*?\n---[ \t]*(\n|\Z)", re.S)


def prose_words(cells: Iterable[dict]) -> int:
    """Words of Markdown prose in a notebook's cells: whitespace-separated tokens of its Markdown cells.

    Args:
        cells: the notebook's cells (``nb["cells"]`` of the JSON, or nbformat cells), each with
            ``cell_type`` and ``source`` (a string or a list of lines).

    Returns:
        The count; code cells, raw cells and YAML front matter (``---`` ... ``---`` opening a
        Markdown cell) are not counted, inline code and math are (as the reader sees them).
    """
    words = 0
    for cell in cells:
        if cell["cell_type"] != "markdown":
            continue
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        words += len(_FRONT_MATTER_RE.sub("", source, count=1).split())
    return words


# --- visible code never depends on a hidden cell -----------------------------------------------

#: Quarto cell options that hide a cell's code from the reader.
HIDING_OPTIONS = ("#| echo: false", "#| include: false")


def _bound_and_read(source: str) -> tuple[set[str], set[str]]:
    """Names a cell binds (assignments, imports, defs, loop targets) and names it reads."""
    try:
        tree = ast.parse("\n".join(line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))))
    except SyntaxError:
        return set(), set()
    bound, read = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (bound if isinstance(node.ctx, ast.Store) else read).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
    return bound, read


def hidden_bindings(cells: Iterable[dict]) -> list[str]:
    """Visible code cells that read a name first bound in a hidden cell (what the reader cannot see).

    Args:
        cells: a notebook's cells (``nb["cells"]``: dicts with ``cell_type`` and ``source``).

    Returns:
        ``"cell N reads NAME, bound in hidden cell M"`` for each case, in order.
    """
    first: dict[str, tuple[int, bool]] = {}  # name -> (cell, hidden) where it was first bound
    out = []
    for n, cell in enumerate(cells):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", ""))
        hidden = any(opt in source for opt in HIDING_OPTIONS)
        bound, read = _bound_and_read(source)
        if not hidden:
            for name in sorted(read - bound):
                where = first.get(name)
                if where is not None and where[1]:
                    out.append(f"cell {n} reads {name}, bound in hidden cell {where[0]}")
        for name in bound:
            first.setdefault(name, (n, hidden))
    return out


# --- the LaTeX the PDF's tables need ------------------------------------------------------------

#: Packages Quarto's own PDF template loads for any table (Quarto docs, "PDF Basics"; its
#: tables partial): the preamble need not declare them.
QUARTO_TABLE_PACKAGES = frozenset({"longtable", "booktabs"})


def table_latex_packages(html: str) -> set[str]:
    """The LaTeX packages Pandoc's LaTeX writer needs for the ``<table>`` elements of an HTML output.

    Every table: ``longtable`` and ``booktabs`` (Quarto loads them), ``array``
    (``\\arraybackslash`` in column specs) and ``calc`` (``\\real{}`` widths).
    A cell spanning rows (``rowspan`` > 1, as pandas writes for a MultiIndex)
    becomes ``\\multirow``, so ``multirow`` too. A cell spanning columns is
    ``\\multicolumn``, core LaTeX.

    Args:
        html: an output's ``text/html`` (a DataFrame's ``_repr_html_``).

    Returns:
        Package names; empty when the HTML holds no table.
    """
    if "<table" not in html:
        return set()
    need = set(QUARTO_TABLE_PACKAGES) | {"array", "calc"}
    if re.search(r"""rowspan\s*=\s*["']?([2-9]|[1-9]\d+)""", html):
        need.add("multirow")
    return need


def preamble_packages(header: str) -> set[str]:
    """The package names a LaTeX preamble loads with ``\\usepackage[...]{a,b}`` or ``\\RequirePackage``."""
    names: set[str] = set()
    for group in re.findall(r"\\(?:usepackage|RequirePackage)\s*(?:\[[^\]]*\])?\s*\{([^}]*)\}", header):
        names |= {n.strip() for n in group.split(",") if n.strip()}
    return names

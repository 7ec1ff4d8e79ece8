"""_quarto.yml for the real renderer: the PDF preamble the tables need, a table of contents that fits, offline math.

Defects pinned: the PDF failed with ``Undefined control sequence \\multirow``
(Table 2.1, a DataFrame with a MultiIndex: Pandoc writes ``\\multirow`` for a
cell spanning rows, and Quarto's template does not load the package); the table
of contents ran two-digit section numbers (11.10, 12.13) into their titles;
the HTML book loaded MathJax from a CDN, so offline readers saw raw TeX.
"""

from __future__ import annotations

import re

import pandas as pd
import yaml

from conftest import PROJECT
from ddrsearch.book.checks import QUARTO_TABLE_PACKAGES, preamble_packages, table_latex_packages
from ddrsearch.book.preview import book_entries


def _config() -> dict:
    return yaml.safe_load((PROJECT / "_quarto.yml").read_text(encoding="utf-8"))


def _pdf_header() -> str:
    """The text ``format: pdf: include-in-header`` adds (inline ``text:`` blocks and listed files)."""
    header = _config()["format"]["pdf"].get("include-in-header") or []
    parts = []
    for item in header if isinstance(header, list) else [header]:
        if isinstance(item, dict) and "text" in item:
            parts.append(item["text"])
        else:
            name = item["file"] if isinstance(item, dict) else item
            parts.append((PROJECT / name).read_text(encoding="utf-8"))
    return "\n".join(parts)


def test_a_multiindex_table_needs_multirow():
    """The helper sees what Pandoc will write: a row-spanning cell needs multirow, a flat table does not."""
    index = pd.MultiIndex.from_tuples([("BM25", "dev"), ("BM25", "test"), ("dense", "dev")], names=["m", "split"])
    spanning = pd.DataFrame({"recall@5": [0.5, 0.4, 0.6]}, index=index).to_html()
    flat = pd.DataFrame({"recall@5": [0.5, 0.4]}, index=["BM25", "dense"]).to_html()
    assert "multirow" in table_latex_packages(spanning)
    assert "multirow" not in table_latex_packages(flat)
    assert table_latex_packages("no table here") == set()


def test_pdf_preamble_declares_the_packages_the_tables_need():
    """Every package a table may need is loaded by Quarto itself or by the book's include-in-header."""
    index = pd.MultiIndex.from_tuples([("a", 1), ("a", 2)])
    need = table_latex_packages(pd.DataFrame({"x": [1, 2]}, index=index).to_html())
    declared = preamble_packages(_pdf_header())
    assert "multirow" in declared
    assert need <= declared | QUARTO_TABLE_PACKAGES, need - declared - QUARTO_TABLE_PACKAGES


def test_preamble_parser_reads_option_and_comma_lists():
    """\\usepackage[opts]{a, b} declares both a and b."""
    assert preamble_packages("\\usepackage[table]{xcolor}\n\\usepackage{multirow, makecell}") == {
        "xcolor", "multirow", "makecell"}


def test_table_of_contents_numbers_fit_two_digit_sections():
    """The KOMA section entries get a number column wide enough for '12.13' and '11.10.2' (about 0.6em a digit)."""
    header = _pdf_header()
    assert _config()["format"]["pdf"]["documentclass"] == "scrreprt"
    widths = {m[2]: float(m[1]) for m in re.finditer(
        r"\\RedeclareSectionCommands?\[[^\]]*tocnumwidth=([\d.]+)em[^\]]*\]\{([a-z,]+)\}", header)}
    assert widths.get("section", 0) >= 2.8, widths  # KOMA's default, 2.3em, ran 12.13 into its title
    assert widths.get("subsection", 0) >= 3.8, widths


def test_html_math_works_offline():
    """Formulas are written as MathML by Pandoc, not loaded from a CDN."""
    assert _config()["format"]["html"]["html-math-method"] == "mathml"


def test_quarto_yml_parses_and_lists_only_files_that_exist():
    """Every chapter, appendix, bibliography and header file the config names is on disk."""
    cfg = _config()
    missing = [str(e.path.relative_to(PROJECT)) for e in book_entries(PROJECT) if not e.path.is_file()]
    bib = cfg.get("bibliography")
    missing += [b for b in ([bib] if isinstance(bib, str) else bib or []) if not (PROJECT / b).is_file()]
    header = cfg["format"]["pdf"].get("include-in-header") or []
    for item in header if isinstance(header, list) else [header]:
        name = item.get("file") if isinstance(item, dict) else item
        if name and not (PROJECT / name).is_file():
            missing.append(name)
    assert not missing, f"_quarto.yml names files that do not exist: {missing}"


def test_environment_brings_quarto_from_conda_forge():
    """A conda user gets the renderer with the environment: package quarto, at the version the sources are for."""
    from ddrsearch.book.render import QUARTO_VERSION

    env = yaml.safe_load((PROJECT / "environment.yml").read_text(encoding="utf-8"))
    assert "conda-forge" in env["channels"]
    quarto = [d for d in env["dependencies"] if isinstance(d, str) and re.match(r"^quarto\b", d)]
    assert quarto == [f"quarto={QUARTO_VERSION}"], quarto
    assert f"Quarto {QUARTO_VERSION}" in (PROJECT / "README.md").read_text(encoding="utf-8")

"""Quarto Markdown to the plain Markdown that nbconvert renders: headings, references, citations.

Used by the book's preview (:mod:`ddrsearch.book.preview`). Quarto's syntax handled
(https://quarto.org/docs/authoring/cross-references.html and
https://quarto.org/docs/authoring/citations.html): ``{#sec-...}`` heading
labels and ``{.unnumbered}``, ``@sec-``/``@fig-``/``@tbl-``/``@eq-``
references, ``$$ ... $$ {#eq-...}`` numbered equations, ``[@key]`` and
``[@a; @b]`` citations, ``:::`` div fences (dropped) and the ``::: {#refs}``
reference list. Text inside code spans and code blocks is left alone.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

REF_RE = re.compile(r"(?<![\w@/.-])@((?:sec|fig|tbl|eq)-[A-Za-z0-9_-]*[A-Za-z0-9])")
CITE_RE = re.compile(r"\[(@[A-Za-z0-9_:-]+(?:\s*;\s*@[A-Za-z0-9_:-]+)*)\]")
HEADING_RE = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{([^}]*)\})?\s*$")
OPTION_RE = re.compile(r"^#\|\s*([\w-]+):\s*(.*?)\s*$")
KINDS = {"sec": "Section", "fig": "Figure", "tbl": "Table", "eq": "Equation"}


def prose_lines(src: str):
    """Yield (line, in_code_block) for Markdown source."""
    fence = False
    for line in src.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fence = not fence
            yield line, True
            continue
        yield line, fence


def _unbrace(text: str) -> str:
    for latex, uni in (('\\"u', "ü"), ('\\"a', "ä"), ('\\"o', "ö"), ("\\'e", "é")):
        text = text.replace(latex, uni)
    text = re.sub(r"\\url\{([^}]*)\}", r"\1", text)
    return text.replace("\\_", "_").replace("{", "").replace("}", "").replace("--", "–")


def read_bibliography(path: str | os.PathLike) -> dict[str, dict[str, str]]:
    """Parse a BibTeX file into {key: {field: value}} (enough for the preview's citations; no macros)."""
    text = Path(path).read_text(encoding="utf-8")
    out: dict[str, dict[str, str]] = {}
    for m in re.finditer(r"@(\w+)\s*\{\s*([^,\s]+)\s*,", text):
        fields, i = {"type": m[1].lower()}, m.end()
        while True:
            f = re.compile(r"\s*(\w+)\s*=\s*\{").match(text, i)
            if not f:
                break
            depth, j = 1, f.end()
            while depth:
                depth += {"{": 1, "}": -1}.get(text[j], 0)
                j += 1
            fields[f[1].lower()] = _unbrace(" ".join(text[f.end():j - 1].split()))
            i = j + 1 if j < len(text) and text[j] == "," else j
        out[m[2]] = fields
    return out


def _surnames(entry: dict[str, str]) -> str:
    names = [a.split(",")[0].strip() for a in entry.get("author", "?").split(" and ")]
    if len(names) > 2:
        return f"{names[0]} et al."
    return " and ".join(names)


def _cite(keys: str, bib: dict) -> str:
    parts = []
    for key in re.findall(r"@([A-Za-z0-9_:-]+)", keys):
        e = bib.get(key)
        parts.append(f"{_surnames(e)} {e.get('year', '')}" if e else f"?{key}")
    return "(" + "; ".join(parts) + ")"


def bibliography_markdown(bib: dict) -> str:
    """The reference list as Markdown, sorted by first author's surname and year."""
    lines = []
    for key, e in sorted(bib.items(), key=lambda kv: (_surnames(kv[1]).lower(), kv[1].get("year", ""))):
        where = e.get("journal") or e.get("booktitle") or e.get("publisher") or e.get("howpublished", "")
        doi = f" <https://doi.org/{e['doi']}>" if "doi" in e else ""
        lines.append(f"- {e.get('author', '').replace(' and ', '; ')} ({e.get('year', '')}). "
                     f"{e.get('title', key)}. *{where}*.{doi}")
    return "\n".join(lines)


def render_markdown(src: str, refs: dict, bib: dict, *, number: str | None = None, appendix: bool = False,
                    sections: list[int] | None = None) -> str:
    """Quarto Markdown -> plain Markdown: numbered headings with anchors, resolved references and citations.

    ``sections`` carries the section counters from one cell to the next (a
    list of six zeros to start a chapter); without it each call starts at 0.
    """
    out = []
    sections = [0] * 6 if sections is None else sections
    for line, code in prose_lines(src):
        if code:
            out.append(line)
            continue
        if line.strip() == "::: {#refs}":
            out.append(bibliography_markdown(bib))
            continue
        if line.startswith(":::"):
            continue
        m = HEADING_RE.match(line)
        if m:
            level, attrs = len(m[1]), m[3] or ""
            label = next((a[1:] for a in attrs.split() if a.startswith("#")), None)
            num = ""
            if number and ".unnumbered" not in attrs:
                if level == 1:
                    num = f"{'Appendix ' if appendix else ''}{number} "
                else:
                    sections[level - 1] += 1
                    sections[level:] = [0] * (6 - level)
                    num = ".".join([number] + [str(s) for s in sections[1:level]]) + " "
            anchor = f' <a id="{label}"></a>' if label else ""
            line = f"{m[1]} {num}{m[2]}{anchor}"
        eq = re.search(r"^\s*\$\$\s*\{#(eq-[\w-]+)\}\s*$", line)
        if eq and eq[1] in refs:
            tag = refs[eq[1]][1].split()[-1]
            line = f'\\tag{{{tag}}}\n$$\n<a id="{eq[1]}"></a>'
        pieces = re.split(r"(`[^`]*`)", line)
        for i in range(0, len(pieces), 2):
            pieces[i] = CITE_RE.sub(lambda c: _cite(c[1], bib), pieces[i])
            pieces[i] = REF_RE.sub(
                lambda r: f"[{refs[r[1]][1]}]({refs[r[1]][0]})" if r[1] in refs else f"**??{r[1]}**", pieces[i])
        out.append("".join(pieces))
    return "\n".join(out)

"""The book's build helpers: the chapter list from ``_quarto.yml`` and the no-Quarto preview.

``_quarto.yml`` is the only list of chapters; everything else (the preview,
the book check in the tests) reads it from there.
"""

from __future__ import annotations

import os
from pathlib import Path

import yaml


def book_files(project: str | os.PathLike = ".") -> list[Path]:
    """Return every file ``_quarto.yml`` lists under ``book.chapters`` and ``book.appendices``, in order.

    Part entries (``- part: ... chapters: [...]``) are flattened.

    Raises:
        FileNotFoundError: there is no ``_quarto.yml`` in ``project``.
        ValueError: it has no ``book: chapters:`` list.
    """
    project = Path(project)
    cfg_path = project / "_quarto.yml"
    if not cfg_path.is_file():
        raise FileNotFoundError(f"No _quarto.yml in {project.resolve()}: run this from the book's project folder.")
    cfg = yaml.safe_load(cfg_path.read_text(encoding="utf-8"))
    book = (cfg or {}).get("book") or {}
    if not book.get("chapters"):
        raise ValueError(f"{cfg_path} has no book: chapters: list.")

    def flatten(items):
        for item in items or []:
            if isinstance(item, str):
                yield item
            elif isinstance(item, dict):
                if "part" in item and isinstance(item["part"], str) and item["part"].endswith((".qmd", ".md", ".ipynb")):
                    yield item["part"]
                yield from flatten(item.get("chapters"))
                if "href" in item:
                    yield item["href"]

    return [project / p for p in list(flatten(book.get("chapters"))) + list(flatten(book.get("appendices")))]


def chapter_notebooks(project: str | os.PathLike = ".") -> list[Path]:
    """Return the ``.ipynb`` chapters listed in ``_quarto.yml``, in book order."""
    return [p for p in book_files(project) if p.suffix == ".ipynb"]


def execute_notebook(path: str | os.PathLike, *, timeout: int = 1800, cwd: str | os.PathLike | None = None):
    """Execute a notebook top to bottom with nbclient (kernel ``python3``) and return it.

    The working folder is the notebook's own folder unless ``cwd`` is given,
    as under Quarto.

    Raises:
        nbclient.exceptions.CellExecutionError: a cell raised; the message
            shows the cell and the traceback.
    """
    import nbformat
    from nbclient import NotebookClient

    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    env_before = os.environ.get("TQDM_DISABLE")
    os.environ["TQDM_DISABLE"] = "1"  # no progress bars in executed output (they break LaTeX)
    try:
        client = NotebookClient(
            nb, timeout=timeout, kernel_name="python3",
            resources={"metadata": {"path": str(cwd or path.parent)}},
        )
        client.execute()
    finally:
        if env_before is None:
            os.environ.pop("TQDM_DISABLE", None)
        else:
            os.environ["TQDM_DISABLE"] = env_before
    return nb


def build_preview(project: str | os.PathLike = ".", out: str | os.PathLike = "_preview", *, timeout: int = 1800) -> list[Path]:
    """Execute every chapter notebook and write it, executed, with an HTML page, into ``out``.

    Returns:
        The paths written (``out/<chapter>.ipynb`` and ``out/<chapter>.html``,
        plus ``out/index.html`` linking them).
    """
    import nbformat
    from nbconvert import HTMLExporter

    project, out = Path(project), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    links = []
    exporter = HTMLExporter()
    exporter.exclude_input_prompt = True
    exporter.exclude_output_prompt = True
    for nb_path in chapter_notebooks(project):
        nb = execute_notebook(nb_path, timeout=timeout)
        ipynb = out / nb_path.name
        nbformat.write(nb, ipynb)
        body, _ = exporter.from_notebook_node(nb)
        html = out / (nb_path.stem + ".html")
        html.write_text(body, encoding="utf-8")
        written += [ipynb, html]
        links.append(f'<li><a href="{html.name}">{nb_path.stem}</a></li>')
    index = out / "index.html"
    index.write_text(
        "<!doctype html><meta charset='utf-8'><title>Book preview</title>"
        "<h1>Chapter previews (executed notebooks, no Quarto)</h1><ul>" + "".join(links) + "</ul>",
        encoding="utf-8",
    )
    written.append(index)
    # figures written by the chapters (../figures/...) are referenced relative to chapters/
    return written

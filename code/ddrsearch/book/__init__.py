"""The book wing: what the chapters use and what builds and checks the book; no other wing imports it but the ``preview`` command.

Modules: ``notebook`` (what the chapters share: the reports read once,
``rank_of``, ``names``, ``join_and``), ``exercises`` (the chapters' exercises
and their checker, ``check("4.1", answer)``), ``checks`` (what fits
a printed page, the LaTeX the tables need, visible code that reads a hidden
cell's names), ``diagram`` (the pipeline diagram), ``preview`` (executing the
chapters, the no-Quarto preview), ``render`` (the book staged for Quarto from
executed copies), ``quartomd`` (Quarto Markdown to plain Markdown).
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "archive": "notebook",
    "by_name": "notebook",
    "join_and": "notebook",
    "names": "notebook",
    "rank_of": "notebook",
    "sample": "notebook",
    "check": "exercises",
    "hidden_bindings": "checks",
    "build_preview": "preview",
    "pipeline_figure": "diagram",
    "stage_quarto_project": "render",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

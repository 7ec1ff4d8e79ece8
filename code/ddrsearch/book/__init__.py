"""The book wing: what the chapters use and what builds and checks the book; no other wing imports it but the ``preview`` command.

Modules: ``preview`` (executing the chapters, the no-Quarto preview),
``render`` (the book staged for Quarto from executed copies), ``quartomd``
(Quarto Markdown to plain Markdown), ``checks`` (exercise answers, what fits a
printed page, the LaTeX the tables need), ``diagram`` (the pipeline diagram).
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "check_answer": "checks",
    "build_preview": "preview",
    "pipeline_figure": "diagram",
    "stage_quarto_project": "render",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

"""The book wing: what the chapters use and what builds and checks the book; no other wing imports it but the ``preview`` command.

Modules: ``preview`` (executing the chapters, the no-Quarto preview),
``quartomd`` (Quarto Markdown to plain Markdown), ``checks`` (exercise
answers, what fits a printed page).
"""

from ddrsearch.imports import lazy_exports

_EXPORTS = {
    "check_answer": "checks",
    "build_preview": "preview",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

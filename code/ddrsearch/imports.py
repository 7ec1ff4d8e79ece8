"""Importing third-party libraries: quietly, and optional extras with the command that installs them.

Nothing here imports another ddrsearch module but :mod:`ddrsearch.errors`, so
every wing may use it.
"""

from __future__ import annotations

import importlib
import warnings

__all__ = ["EXTRAS", "import_quietly", "lazy_exports", "require_extra"]

#: The optional parts of the package (``pip install "ddrsearch[NAME]"``) and a module each provides.
EXTRAS: dict[str, tuple[str, ...]] = {
    "app": ("streamlit",),
    "ocr": ("rapidocr_onnxruntime", "jiwer"),
    "book": ("nbclient", "nbconvert", "nbformat", "rank_bm25"),
    "postgres": ("psycopg", "pgvector", "pgserver"),
}


def import_quietly(module: str):
    """Import a module whose import pulls in ``tqdm.auto``, without its widget warning.

    In a Jupyter kernel without ipywidgets, ``tqdm.auto`` warns
    (``TqdmWarning: IProgress not found``) on standard error at import time,
    which would land in the book's executed output; the warning is about
    progress bars, which ddrsearch never shows in notebooks.
    """
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*IProgress not found.*")
        return importlib.import_module(module)



def lazy_exports(package: str, names: dict[str, str]):
    """``__getattr__`` and ``__dir__`` for a package that states its API without importing it all.

    ``from ddrsearch.retrieval import BM25Retriever`` then imports only
    ``ddrsearch.retrieval.lexical`` (and what it needs), not every module of
    the wing: the command line stays fast (a search need not load PyTorch).

    Args:
        package: the package's ``__name__``.
        names: public name -> the module of the package that defines it
            (``{"BM25Retriever": "lexical"}``).

    Returns:
        ``(__getattr__, __dir__)`` to assign at the package's top level.
    """

    def __getattr__(name: str):
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        globals_ = importlib.import_module(package).__dict__
        globals_[name] = value  # the next look-up is a plain attribute
        return value

    def __dir__() -> list[str]:
        return sorted(set(names) | set(importlib.import_module(package).__dict__))

    return __getattr__, __dir__


def require_extra(module: str, feature: str):
    """Import ``module`` of an optional extra, or raise the one-line error that names its install command.

    Args:
        module: the module to import (one of :data:`EXTRAS`' values, e.g. ``"streamlit"``).
        feature: what needs it, for the message (``"ddrsearch app"``).

    Returns:
        The imported module.

    Raises:
        MissingExtraError: the module is not installed (the message names ``pip install "ddrsearch[EXTRA]"``).
    """
    extra = next((name for name, modules in EXTRAS.items() if module.split(".")[0] in modules), None)
    if extra is None:
        raise ValueError(f"{module} is not the module of an optional extra ({', '.join(EXTRAS)})")
    try:
        return importlib.import_module(module)
    except ImportError:
        from ddrsearch.errors import MissingExtraError

        raise MissingExtraError(feature, extra, module.split(".")[0]) from None

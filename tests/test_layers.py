"""The package's shape: layers that import downward only, one error root, settings in one place.

Each module of ``ddrsearch`` has a layer number below; a module may import
(at the top or inside a function) only modules of a *lower* layer. That rules
out import cycles and keeps the pure building blocks (errors, settings,
metrics, fusion, text) free of anything above them. A new module must be
given its layer here, which is the moment to decide where it belongs.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import ddrsearch
from ddrsearch import errors

PACKAGE = Path(ddrsearch.__file__).resolve().parent

#: module -> layer; imports go from a higher number to a lower one only.
LAYERS: dict[str, int] = {
    "__init__": 0, "errors": 0, "_util": 0,
    "settings": 1,
    "data": 2, "text": 2, "metrics": 2, "fusion": 2, "vectorindex": 2, "significance": 2,
    "glossary": 3, "trec": 3, "pdf": 3, "judgements": 3, "synthetic": 3,
    "tokenizer": 4, "layout": 4, "queries": 4, "ocr": 4, "spelling": 3,
    "report": 5,
    "fetch": 6, "passages": 6, "model": 6, "tables": 6,
    "embeddings": 7, "chunking": 7, "rowchoice": 7, "fields": 7, "indexstore": 7,
    "retrieval": 8, "structured": 8, "adaptation": 8,
    "lexical": 9, "dense": 9,
    "hybrid": 10,
    "tuned": 11, "questions": 11, "postgres": 11, "pgserver_support": 2, "sources": 8, "generation": 2,
    "pipeline": 12,
    "answers": 13, "index": 13,
    "patterns": 12, "evaluation": 12, "plots": 12, "quartomd": 12, "bookcheck": 12,
    "book": 13, "levers": 13, "indexcli": 14, "answercli": 14, "evalcli": 14, "serve": 13, "explain": 12, "session": 14,
    "cli": 15, "__main__": 16,
    "app": 16,
}

#: Modules the issue that introduced this test named as the bottom of the package.
BOTTOM = ("errors", "data", "text", "metrics")

#: A module longer than this says at the top of its docstring why it is one module.
MAX_LINES = 450


def _modules() -> dict[str, Path]:
    return {p.stem: p for p in sorted(PACKAGE.glob("*.py"))}


def _imports(path: Path) -> set[str]:
    """ddrsearch modules imported anywhere in the file (relative or absolute)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                out.add(node.module.split(".")[0])
            elif node.level == 1:
                out.update(a.name for a in node.names)
            elif node.module and node.module.startswith("ddrsearch."):
                out.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("ddrsearch."))
    return {m for m in out if m != "resources"}


def test_every_module_has_a_layer():
    missing = sorted(set(_modules()) - set(LAYERS))
    assert not missing, f"modules without a layer in tests/test_layers.py: {missing}"


def test_imports_go_downward_only():
    wrong = []
    for name, path in _modules().items():
        for target in _imports(path):
            if LAYERS.get(target, 99) >= LAYERS.get(name, -1):
                wrong.append(f"{name} (layer {LAYERS.get(name)}) imports {target} (layer {LAYERS.get(target)})")
    assert not wrong, "imports that go sideways or up:\n" + "\n".join(sorted(wrong))


def test_bottom_modules_import_nothing_above_them():
    for name in BOTTOM:
        above = {t for t in _imports(_modules()[name]) if t not in ("errors", "_util", "settings")}
        assert not above, f"{name} imports {above}"


def test_every_exception_derives_from_the_root_and_lives_in_errors():
    defined_elsewhere = []
    for name, path in _modules().items():
        if name == "errors":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and any(
                isinstance(b, ast.Name) and (b.id.endswith("Error") or b.id == "Exception") for b in node.bases
            ):
                defined_elsewhere.append(f"{name}.{node.name}")
    assert not defined_elsewhere, f"exceptions defined outside errors.py: {defined_elsewhere}"
    classes = [c for _, c in inspect.getmembers(errors, inspect.isclass) if c.__module__ == errors.__name__]
    excs = [c for c in classes if issubclass(c, Exception) and not issubclass(c, Warning)]
    assert len(excs) >= 20
    assert all(issubclass(c, errors.DDRSearchError) for c in excs), [c for c in excs if not issubclass(c, errors.DDRSearchError)]


def test_environment_is_read_only_through_settings():
    offenders = []
    for name, path in _modules().items():
        if name == "settings":
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r"os\.environ(\.get)?\s*[\[(]\s*[\"']DDRSEARCH_", text) or re.search(r"getenv\(\s*[\"']DDRSEARCH_", text):
            offenders.append(name)
    assert not offenders, f"read DDRSEARCH_* variables directly instead of through ddrsearch.settings: {offenders}"


def test_every_setting_is_in_the_readme():
    from ddrsearch.settings import SETTINGS

    readme = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    missing = [s.name for s in SETTINGS if s.name not in readme]
    assert not missing, f"settings not documented in the README: {missing}"


@pytest.mark.parametrize("name", sorted(_modules()))
def test_module_is_short_or_says_why(name):
    path = _modules()[name]
    lines = path.read_text(encoding="utf-8").count("\n")
    if lines > MAX_LINES:
        doc = ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))) or ""
        assert "Why one module" in doc, f"{name}.py has {lines} lines: split it, or say in its docstring 'Why one module: ...'"

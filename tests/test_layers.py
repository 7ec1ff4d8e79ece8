"""The package's shape: wings in the order the data travels, importing backward only.

``ddrsearch`` is a handful of foundation modules and a sub-package (a *wing*)
per stage of the data's trip, listed in :data:`WINGS`. A module may import
(at the top or inside a function) the foundations, modules of its own wing
and modules of earlier wings, never a later wing; inside a wing the imports
form no cycle. That keeps the building blocks free of what is built on them
and makes the tree read as the architecture. A new wing must be given its
place here, which is the moment to decide where it belongs.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import ddrsearch
from ddrsearch import errors

PACKAGE = Path(ddrsearch.__file__).resolve().parent

#: Modules below every wing: they import only one another (and nothing of a wing).
FOUNDATIONS = ("errors", "settings", "hashing", "imports", "checks")

#: The wings, in the order the data travels; each may import the ones before it.
WINGS = ("data", "text", "reading", "embedding", "retrieval", "stores", "evaluation", "answers", "app", "book", "cli")

#: The one module outside the book wing that may import it: the command that builds the preview.
BOOK_IMPORTERS = ("cli.preview",)


def _modules() -> dict[str, Path]:
    """Dotted module name inside the package (``retrieval.lexical``, ``errors``) -> file."""
    out = {}
    for p in sorted(PACKAGE.rglob("*.py")):
        parts = p.relative_to(PACKAGE).with_suffix("").parts
        out[".".join(parts)] = p
    return out


def _imports(name: str, path: Path) -> set[str]:
    """ddrsearch modules imported anywhere in the file, as dotted names inside the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    known = _modules()
    out: set[str] = set()
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.ImportFrom):
            if node.level:
                raise AssertionError(f"{name}: relative import (use 'from ddrsearch.wing.module import ...')")
            if node.module == "ddrsearch":
                targets = [a.name for a in node.names]
            elif node.module and node.module.startswith("ddrsearch."):
                mod = node.module[len("ddrsearch."):]
                targets = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in known else mod for a in node.names]
        elif isinstance(node, ast.Import):
            targets = [a.name[len("ddrsearch."):] for a in node.names if a.name.startswith("ddrsearch.")]
        for t in targets:
            if t in known or t in WINGS:
                out.add(t)
    return {t for t in out if t != "resources" and not t.startswith("resources.")}


def _wing(module: str) -> str:
    return module.split(".")[0] if "." in module or module in WINGS else module


def _rank(module: str) -> int:
    wing = _wing(module)
    if wing in FOUNDATIONS:
        return -1
    return WINGS.index(wing) if wing in WINGS else len(WINGS)


def test_every_module_is_in_a_wing_or_a_foundation():
    stray = sorted(m for m in _modules() if _wing(m) not in WINGS + FOUNDATIONS + ("__init__", "__main__", "resources"))
    assert not stray, f"modules outside the wings and foundations of tests/test_layers.py: {stray}"


def test_imports_go_backward_only():
    wrong = []
    for name, path in _modules().items():
        if name in ("__init__", "__main__"):
            continue
        for target in _imports(name, path):
            if _rank(target) > _rank(name) or (_rank(name) == -1 and _wing(target) not in FOUNDATIONS):
                wrong.append(f"{name} ({_wing(name)}) imports {target} ({_wing(target)})")
    assert not wrong, "imports that go forward, to a later wing:\n" + "\n".join(sorted(wrong))


def test_no_cycle_inside_a_wing():
    graph = {name: {t for t in _imports(name, path) if _wing(t) == _wing(name) and t != name}
             for name, path in _modules().items() if name not in ("__init__", "__main__")}
    done: set[str] = set()
    cycles = []

    def visit(node: str, trail: list[str]) -> None:
        for nxt in sorted(graph.get(node, ())):
            if nxt in trail:
                cycles.append(" -> ".join([*trail[trail.index(nxt):], nxt]))
            elif nxt not in done:
                visit(nxt, [*trail, nxt])
        done.add(node)

    for node in sorted(graph):
        if node not in done:
            visit(node, [node])
    assert not cycles, "import cycles inside a wing:\n" + "\n".join(sorted(set(cycles)))


def test_only_the_preview_command_imports_the_book():
    users = sorted(name for name, path in _modules().items()
                   if _wing(name) != "book" and any(_wing(t) == "book" for t in _imports(name, path)))
    assert users == sorted(BOOK_IMPORTERS), users


def test_foundations_import_no_wing():
    for name in FOUNDATIONS:
        above = {t for t in _imports(name, _modules()[name]) if _wing(t) not in FOUNDATIONS}
        assert not above, f"{name} imports {above}"


def test_every_wing_states_its_api():
    for wing in WINGS:
        mod = __import__(f"ddrsearch.{wing}", fromlist=["__all__"])
        assert mod.__doc__ and mod.__all__, wing
        for public in mod.__all__:
            assert getattr(mod, public) is not None, f"ddrsearch.{wing}.{public}"
    assert set(ddrsearch.__all__) >= {"Report", "read_reports", "load_archive", "build_retriever", "load_questions",
                                       "evaluate_retriever", "Answerer"}
    for public in ddrsearch.__all__:
        assert getattr(ddrsearch, public) is not None, public


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


def test_no_module_reaches_into_another_objects_private_attributes():
    """``obj._name`` only on ``self``/``cls`` (or a module's own names): never another object's private state."""
    offenders = []
    for name, path in _modules().items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__"):
                owner = node.value
                if isinstance(owner, ast.Name) and owner.id in ("self", "cls", "other"):
                    continue  # its own state (``other``: a copy of itself being set up, in with_weight)
                offenders.append(f"{name}:{node.lineno} {ast.unparse(node)}")
    assert not offenders, "private attributes read across objects:\n" + "\n".join(offenders)


def test_the_readme_lists_the_wings_in_order():
    """The README's wing table and :data:`WINGS` are one list, not two that can disagree."""
    readme = (PACKAGE.parents[1] / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("### The package, wing by wing"):]
    listed = re.findall(r"^\| `([a-z]+)/` \|", table, flags=re.M)
    assert listed == list(WINGS)

"""The package as a whole: its shape (wings in the order the data travels, importing backward only),
its docstring examples, and the installed wheel.

``ddrsearch`` is a handful of foundation modules and a sub-package (a *wing*)
per stage of the data's trip, listed in :data:`WINGS`. A module may import
(at the top or inside a function) the foundations, modules of its own wing
and modules of earlier wings, never a later wing; inside a wing the imports
form no cycle. That keeps the building blocks free of what is built on them
and makes the tree read as the architecture. A new wing must be given its
place here, which is the moment to decide where it belongs.

The tests mirror the package: ``tests/<wing>/test_<module>.py`` (or
``test_<module>_<topic>.py``) for ``ddrsearch/<wing>/<module>.py`` and
``tests/cli/test_<command>.py`` for a sub-command.

The installed wheel: built, installed (without dependencies) into a fresh
virtual environment that borrows only the third-party libraries of this one,
it runs, from a folder outside the checkout with no DDRSEARCH_* variable set,
the README's "own reports" example and ``ddrsearch search --dir FOLDER`` on a
folder of copied reports. The glossary and the FORGE manifest must come from
the wheel itself.
"""

from __future__ import annotations

import ast
import doctest
import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import ddrsearch
from conftest import PROJECT
from ddrsearch import errors

PACKAGE = Path(ddrsearch.__file__).resolve().parent


#: Modules below every wing: they import only one another (and nothing of a wing).
FOUNDATIONS = ("errors", "settings", "hashing", "imports", "checks", "files", "resident")


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
    assert not stray, f"modules outside the wings and foundations of tests/test_package.py: {stray}"


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


#: The folders of tests/ besides the wings' own (tests/<wing>/test_<module>.py), and what each holds.
TEST_FOLDERS = {
    "foundations": "the foundation modules (test_settings.py for ddrsearch/settings.py)",
    "cli": "one file per sub-command (test_search.py for ``ddrsearch search``) or module of the cli wing",
    "reference": "comparisons with outside implementations, one file per reference",
    "book": "the book's checks: its chapters, the chapter 11 challenge, and the book wing's modules",
    "benchmarks": "the helpers of benchmarks/ (test_timing.py for benchmarks/_timing.py)",
}
#: The outside implementations tests/reference/ compares with: the BM25 formula (and rank_bm25), trec_eval.
REFERENCES = ("bm25", "trec_eval")
#: What tests/book/ checks besides the modules of the book wing.
BOOK_PARTS = ("chapters", "challenge")
TESTS = Path(__file__).resolve().parent


def _names_one_of(test_file: Path, subjects) -> bool:
    """``test_<subject>.py`` or ``test_<subject>_<topic>.py`` for one of ``subjects``."""
    stem = test_file.stem.removeprefix("test_")
    return any(stem == s or stem.startswith(s + "_") for s in subjects)


def _sub_commands() -> set[str]:
    """The sub-commands ``ddrsearch --help`` lists (fetch, search, ask, ...)."""
    from ddrsearch.cli.command import build_parser

    return set(re.findall(r"^    (\w+)\s", build_parser().format_help(), re.M))


def test_tests_mirror_the_package():
    """Each test module is named for what it pins, so the tests of a module are found next to its path.

    ``tests/retrieval/test_lexical.py`` pins ``ddrsearch/retrieval/lexical.py`` (``test_lexical_ties.py``
    counts too); ``tests/cli/test_search.py`` the ``search`` command. A file whose name points nowhere
    (a module renamed or removed, a file named after a review rather than a subject) fails here.
    """
    modules = _modules()
    commands = _sub_commands()
    assert {"search", "ask", "eval", "index"} <= commands
    offenders = []
    for path in sorted(TESTS.rglob("test_*.py")):
        rel = path.relative_to(TESTS)
        if len(rel.parts) == 1:
            if rel.name != "test_package.py":
                offenders.append(f"{rel}: a test module directly in tests/ (only test_package.py is)")
            continue
        folder = rel.parts[0]
        if len(rel.parts) > 2 or (folder not in WINGS and folder not in TEST_FOLDERS):
            offenders.append(f"{rel}: not in a wing's folder nor in one of {sorted(TEST_FOLDERS)}")
            continue
        own = [m.split(".", 1)[1] for m in modules if m.startswith(folder + ".") and not m.endswith("__init__")]
        if folder == "foundations":
            subjects = list(FOUNDATIONS)
        elif folder == "cli":
            subjects = sorted(commands | set(own))
        elif folder == "reference":
            subjects = list(REFERENCES)
        elif folder == "book":
            subjects = own + list(BOOK_PARTS)
        elif folder == "benchmarks":
            subjects = [p.stem.lstrip("_") for p in (TESTS.parent / "benchmarks").glob("*.py")]
        else:
            subjects = own
        if not _names_one_of(path, subjects):
            offenders.append(f"{rel}: names none of {subjects}")
    assert not offenders, "test modules that do not mirror the package:\n" + "\n".join(offenders)


REPORTS = (
    "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf",
    "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf",
    "FORGE-16A-78-32_Drilling_049_2020-12-07.pdf",
)


def _run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=900, **kw)
    assert out.returncode == 0, f"{cmd} failed ({out.returncode}):\n{out.stdout[-2000:]}\n{out.stderr[-3000:]}"
    return out


@pytest.fixture(scope="module")
def installed(tmp_path_factory, archive_folder):
    work = tmp_path_factory.mktemp("installed")
    wheels = work / "wheels"
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(wheels),
          str(PROJECT)])
    wheel = next(wheels.glob("ddrsearch-*.whl"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("DDRSEARCH_") and k != "PYTHONPATH"}
    env.update(HOME=str(work / "home"), HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TQDM_DISABLE="1")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=env)
    py = venv / "bin" / "python"
    _run([str(py), "-m", "pip", "install", "--quiet", "--no-deps", "--no-index", str(wheel)], env=env, cwd=work)
    # the third-party libraries of this environment, as a plain path (no .pth of ours is processed there)
    site = Path(_run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], env=env,
                     cwd=work).stdout.strip())
    (site / "borrowed_deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    folder = work / "my_reports"
    folder.mkdir()
    for name in REPORTS:
        shutil.copy(archive_folder / name, folder / name)
    return {"work": work, "venv": venv, "py": py, "env": env}


@pytest.mark.data
@pytest.mark.model
def test_the_package_comes_from_the_wheel_not_the_checkout(installed):
    out = _run([str(installed["py"]), "-c", "import ddrsearch, ddrsearch.settings as s; "
                "print(ddrsearch.__file__); print(s.project_root())"], cwd=installed["work"], env=installed["env"])
    location, root = out.stdout.split("\n")[:2]
    assert str(installed["venv"]) in location and str(PROJECT / "code") not in location
    assert root == "None"


@pytest.mark.data
@pytest.mark.model
def test_the_readme_own_reports_example_runs(installed):
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Using the package on your own reports", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "my_reports/" in code and "build_retriever" in code
    out = _run([str(installed["py"]), "-c", code], cwd=installed["work"], env=installed["env"])
    assert "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf" in out.stdout


@pytest.mark.data
@pytest.mark.model
def test_search_dir_on_a_copied_folder(installed):
    ddrsearch = installed["venv"] / "bin" / "ddrsearch"
    out = _run([str(ddrsearch), "search", "pipe stuck while sliding", "--dir", "my_reports", "-k", "3"],
               cwd=installed["work"], env=installed["env"])
    assert "D038" in out.stdout and "3 reports" in out.stdout
    glossary = _run([str(installed["py"]), "-c", "from ddrsearch.text.glossary import default_glossary as g; "
                     "print(len(g()), g().path)"], cwd=installed["work"], env=installed["env"])
    count, path = glossary.stdout.split()
    assert int(count) >= 100 and str(installed["venv"]) in path


def _modules_with_examples():
    for info in pkgutil.iter_modules(ddrsearch.__path__):
        if info.name in ("app", "__main__"):  # the app imports streamlit; __main__ runs the command line
            continue
        yield info.name


@pytest.mark.parametrize("name", sorted(_modules_with_examples()))
def test_docstring_examples_of_every_module(name):
    module = importlib.import_module(f"ddrsearch.{name}")
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS, report=False)
    assert result.failed == 0, f"ddrsearch.{name}: {result.failed} of {result.attempted} examples fail"

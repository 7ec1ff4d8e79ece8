"""The package works once installed, outside the book's checkout.

Builds the wheel, installs it (without dependencies) into a fresh virtual
environment that borrows only the third-party libraries of this one, and runs,
from a folder outside the checkout with no DDRSEARCH_* variable set, the
README's "own reports" example and ``ddrsearch search --dir FOLDER`` on a
folder of copied reports. The glossary and the FORGE manifest must come from
the wheel itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from conftest import PROJECT

pytestmark = [pytest.mark.data, pytest.mark.model]

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


def test_the_package_comes_from_the_wheel_not_the_checkout(installed):
    out = _run([str(installed["py"]), "-c", "import ddrsearch, ddrsearch.settings as s; "
                "print(ddrsearch.__file__); print(s.project_root())"], cwd=installed["work"], env=installed["env"])
    location, root = out.stdout.split("\n")[:2]
    assert str(installed["venv"]) in location and str(PROJECT / "code") not in location
    assert root == "None"


def test_the_readme_own_reports_example_runs(installed):
    readme = (PROJECT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Using the package on your own reports", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    assert "my_reports/" in code and "build_retriever" in code
    out = _run([str(installed["py"]), "-c", code], cwd=installed["work"], env=installed["env"])
    assert "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf" in out.stdout


def test_search_dir_on_a_copied_folder(installed):
    ddrsearch = installed["venv"] / "bin" / "ddrsearch"
    out = _run([str(ddrsearch), "search", "pipe stuck while sliding", "--dir", "my_reports", "-k", "3"],
               cwd=installed["work"], env=installed["env"])
    assert "D038" in out.stdout and "3 reports" in out.stdout
    glossary = _run([str(installed["py"]), "-c", "from ddrsearch.text.glossary import default_glossary as g; "
                     "print(len(g()), g().path)"], cwd=installed["work"], env=installed["env"])
    count, path = glossary.stdout.split()
    assert int(count) >= 100 and str(installed["venv"]) in path

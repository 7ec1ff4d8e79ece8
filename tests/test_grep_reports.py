"""Chapter 11 challenge's ``grep_reports.py``: a real usage, and the README's example pattern."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

CHALLENGE = Path(__file__).resolve().parents[1] / "code" / "chapter_11" / "challenge"
GREP = CHALLENGE / "grep_reports.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TQDM_DISABLE="1")
    return subprocess.run([sys.executable, str(GREP), *args], env=env, capture_output=True, text=True, timeout=600)


def test_help_is_help_not_a_pattern():
    proc = _run("--help")  # before: "### --help  0 line(s) in 0 report(s)"
    assert proc.returncode == 0 and proc.stdout.startswith("usage: grep_reports.py") and "###" not in proc.stdout
    proc = _run("(")
    assert proc.returncode == 2 and "not a regular expression" in proc.stderr


def test_readme_example_pattern_prints_no_table_label(archive_folder):
    readme = (CHALLENGE / "README.md").read_text()
    pattern = re.search(r'grep_reports\.py "([^"]+)"', readme).group(1)
    proc = _run(pattern)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if " | " in ln]
    assert lines and not [ln for ln in lines if "JAR" in ln.upper()]  # HRS. ON JARS: and Jar- are never a mention
    assert proc.stdout.splitlines()[-1].split() == ["7", "line(s)", "in", "4", "report(s)"]  # as the README says
    assert "7 lines from 4 reports" in " ".join(readme.split())

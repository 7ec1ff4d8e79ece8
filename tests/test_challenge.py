"""The evaluation challenge (code/chapter_11/challenge/): the reference solution runs and prints the package's numbers."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from conftest import PROJECT
from ddrsearch.evaluation import compare, evaluate_retriever
from ddrsearch.pipeline import build_retriever
from ddrsearch.questions import load_questions

CHALLENGE = PROJECT / "code" / "chapter_11" / "challenge"
SOLUTION = CHALLENGE / "solution.py"
SOLUTION_QUESTIONS = CHALLENGE / "solution_questions.yaml"
METHODS = {"dense (whole report)": ("dense", {}), "hybrid (default pipeline)": ("hybrid", {})}
ROW_RE = re.compile(r"^(?P<method>.+?)\s+(?P<recall>\d+\.\d+)\s+(?P<mrr>\d+\.\d+)\s+(?P<ndcg>\d+\.\d+)\s*$")


def test_challenge_folder_is_not_a_package():
    # code/ is the source root, not a package: an importable "code" would shadow the standard library's
    for folder in (PROJECT / "code", PROJECT / "code" / "chapter_11", CHALLENGE):
        assert not (folder / "__init__.py").exists(), folder
    for name in ("README.md", "challenge.py", "my_questions.yaml", "solution.py", "solution_questions.yaml"):
        assert (CHALLENGE / name).is_file(), name


def test_solution_question_set_loads_with_evidence_checked(archive_folder):
    qs = load_questions(SOLUTION_QUESTIONS, check_evidence=True)
    assert qs.evidence_checked and qs.corpus == "archive"
    assert len(qs) >= 15
    assert len({j.report for q in qs for j in q.relevant}) >= 10
    # new questions: none is asked in the book's archive set
    archive = {q.question.strip().lower() for q in load_questions("archive", check_evidence=False)}
    assert not archive & {q.question.strip().lower() for q in qs}


def test_starter_question_file_loads(archive_folder):
    qs = load_questions(CHALLENGE / "my_questions.yaml", check_evidence=True)
    assert qs.ids == ["S01", "S02", "S03", "S04", "S05"]


@pytest.fixture(scope="module")
def solution_output(archive_folder, tmp_path_factory):
    """Run the reference solution as a reader would, from a folder that is not the project's."""
    env = dict(os.environ, TQDM_DISABLE="1", HF_HUB_OFFLINE="1")
    proc = subprocess.run(
        [sys.executable, str(SOLUTION)], cwd=tmp_path_factory.mktemp("elsewhere"), env=env,
        capture_output=True, text=True, timeout=900,
    )
    assert proc.returncode == 0, f"solution.py failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


def _printed_table(text: str) -> dict[str, dict[str, float]]:
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:1] == ["method"])
    assert lines[header].split() == ["method", "recall@5", "MRR", "NDCG@5"]
    rows = {}
    for line in lines[header + 1:]:
        m = ROW_RE.match(line)
        if m:
            rows[m["method"].strip()] = {"recall@5": float(m["recall"]), "MRR": float(m["mrr"]), "NDCG@5": float(m["ndcg"])}
    return rows


def test_solution_prints_the_package_numbers(solution_output, archive):
    assert "challenge-solution: 15 questions over 76 reports" in solution_output
    printed = _printed_table(solution_output)
    assert list(printed) == list(METHODS)
    qs = load_questions(SOLUTION_QUESTIONS, check_evidence=False)
    results = {name: evaluate_retriever(build_retriever(method, archive, **options), qs, k=5)
               for name, (method, options) in METHODS.items()}
    means = compare(results, k=5)
    for name, row in printed.items():
        for metric, value in row.items():
            # printed with 4 decimals: equal to the package's value to the printed precision
            assert value == pytest.approx(means.loc[name, metric], abs=0.5e-4 + 1e-12), (name, metric)

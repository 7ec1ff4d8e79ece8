"""The evaluation challenge (code/chapter_11/challenge/): the reference solution runs and prints the package's numbers.

Also its ``grep_reports.py``: a real usage, and the README's example pattern.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import pytest

from conftest import PROJECT
from ddrsearch.evaluation.evaluate import compare, evaluate_retriever
from ddrsearch.evaluation.questionfiles import load_questions
from ddrsearch.retrieval.pipeline import build_retriever

CHALLENGE = PROJECT / "code" / "chapter_11" / "challenge"


SOLUTION = CHALLENGE / "solution.py"


SOLUTION_QUESTIONS = CHALLENGE / "solution_questions.yaml"


METHODS = {"dense (whole report)": ("dense", {}), "hybrid (default pipeline)": ("hybrid", {})}


ROW_RE = re.compile(r"^(?P<method>.+?)\s+(?P<recall>\d+\.\d+)\s+(?P<mrr>\d+\.\d+)\s+(?P<ndcg>\d+\.\d+)\s*$")


@pytest.mark.model
def test_challenge_folder_is_not_a_package():
    # code/ is the source root, not a package: an importable "code" would shadow the standard library's
    for folder in (PROJECT / "code", PROJECT / "code" / "chapter_11", CHALLENGE):
        assert not (folder / "__init__.py").exists(), folder
    for name in ("README.md", "challenge.py", "check.py", "my_questions.yaml", "solution.py", "solution_questions.yaml"):
        assert (CHALLENGE / name).is_file(), name


@pytest.mark.data
@pytest.mark.model
def test_solution_question_set_loads_with_evidence_checked(archive_folder):
    qs = load_questions(SOLUTION_QUESTIONS, check_evidence=True)
    assert qs.evidence_checked and qs.corpus == "archive"
    assert len(qs) >= 15
    assert len({j.report for q in qs for j in q.relevant}) >= 10
    # new questions: none is asked in the book's archive set
    archive = {q.question.strip().lower() for q in load_questions("archive", check_evidence=False)}
    assert not archive & {q.question.strip().lower() for q in qs}


def _check(folder, *args):
    env = dict(os.environ, TQDM_DISABLE="1", HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, str(folder / "check.py"), *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.mark.data
@pytest.mark.model
def test_check_runs_on_the_learners_file_as_it_is(archive_folder):
    # my_questions.yaml is the learner's: starter or filled in, half done or not, check.py must answer
    proc = _check(CHALLENGE)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout.splitlines()[0].split()[0] in ("PASS", "TODO", "FAIL")
    assert "question file: my_questions.yaml" in proc.stdout


def _solved(tmp_path, recall_body, mean_body):
    """A copy of the challenge folder with TODO 3 and 4 filled in by the given function bodies."""
    folder = tmp_path / "challenge"
    shutil.copytree(CHALLENGE, folder)
    text = (folder / "challenge.py").read_text()
    text = text.replace("    # Then delete the next line.\n    return None\n\n\ndef mean_recall_at_k",
                        recall_body + "\n\n\ndef mean_recall_at_k", 1)
    text = text.replace("    # Then delete the next line.\n    return None\n", mean_body + "\n", 1)
    (folder / "challenge.py").write_text(text)
    return folder


RIGHT_RECALL = "    return sum(d in grades for d in ranking[:k]) / len(grades)"


RIGHT_MEAN = "    return sum(recall_at_k(ranked.get(q, []), g, k) for q, g in qrels.items()) / len(qrels)"


@pytest.mark.data
@pytest.mark.model
def test_check_passes_correct_work_and_names_a_wrong_denominator(archive_folder, tmp_path):
    solved = _solved(tmp_path / "right", RIGHT_RECALL, RIGHT_MEAN)
    proc = _check(solved, SOLUTION_QUESTIONS)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert [line.split()[0] for line in proc.stdout.splitlines()[:3]] == ["PASS", "PASS", "PASS"]
    assert "ddrsearch eval" in proc.stdout
    # the classic slip: dividing by the relevant reports found (or by k) instead of all relevant ones
    wrong = _solved(tmp_path / "wrong", "    found = [d for d in ranking[:k] if d in grades]\n"
                    "    return 1.0 if found else 0.0", RIGHT_MEAN)
    proc = _check(wrong, SOLUTION_QUESTIONS)
    assert proc.returncode == 1 and "FAIL  recall_at_k(" in proc.stdout
    # a question file whose quotation is not in its report is refused, naming the question
    bad = tmp_path / "bad.yaml"
    bad.write_text(SOLUTION_QUESTIONS.read_text().replace(
        list(load_questions(SOLUTION_QUESTIONS, check_evidence=False))[0].relevant[0].evidence, "words no report holds at all", 1))
    proc = _check(solved, bad)
    assert proc.returncode == 1 and proc.stdout.startswith("FAIL  question file: bad.yaml does not validate")


@pytest.mark.model
def test_readme_steps_match_the_todos():
    readme = (CHALLENGE / "README.md").read_text()
    todos = set(re.findall(r"TODO (\d)", (CHALLENGE / "challenge.py").read_text() + (CHALLENGE / "my_questions.yaml").read_text()))
    steps = re.findall(r"^(\d)\. \*\*.*?\*\* \(TODO (\d)\b", readme, re.M)
    assert todos == {"1", "2", "3", "4"}
    assert steps == [(n, n) for n in sorted(todos)], steps


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


@pytest.mark.data
@pytest.mark.model
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


@pytest.mark.data
@pytest.mark.model
def test_readme_ranges_hold_the_printed_values(solution_output):
    # the README states expected ranges; they were set around computed values and must stay true
    text = " ".join((CHALLENGE / "README.md").read_text().split())
    m = re.search(r"mean recall@5 between (\d\.\d\d) and (\d\.\d\d) for whole-report dense search and "
                  r"between (\d\.\d\d) and (\d\.\d\d) for the book's default pipeline", text)
    assert m, "the README's expected ranges are missing or reworded"
    printed = _printed_table(solution_output)
    assert float(m[1]) <= printed["dense (whole report)"]["recall@5"] <= float(m[2])
    assert float(m[3]) <= printed["hybrid (default pipeline)"]["recall@5"] <= float(m[4])


GREP = CHALLENGE / "grep_reports.py"


def _run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, TQDM_DISABLE="1")
    return subprocess.run([sys.executable, str(GREP), *args], env=env, capture_output=True, text=True, timeout=600)


def test_help_is_help_not_a_pattern():
    """``grep_reports.py --help`` was searched as a pattern ("### --help 0 line(s)"); it prints the help, and a bad
    pattern is named.
    """
    proc = _run("--help")  # before: "### --help  0 line(s) in 0 report(s)"
    assert proc.returncode == 0 and proc.stdout.startswith("usage: grep_reports.py") and "###" not in proc.stdout
    proc = _run("(")
    assert proc.returncode == 2 and "not a regular expression" in proc.stderr


@pytest.mark.data
def test_readme_example_pattern_prints_no_table_label(archive_folder):
    """The challenge README's example pattern prints what the README says (7 lines from 4 reports), no table label such
    as "HRS. ON JARS".
    """
    readme = (CHALLENGE / "README.md").read_text()
    pattern = re.search(r'grep_reports\.py "([^"]+)"', readme).group(1)
    proc = _run(pattern)
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if " | " in ln]
    assert lines and not [ln for ln in lines if "JAR" in ln.upper()]  # HRS. ON JARS: and Jar- are never a mention
    assert proc.stdout.splitlines()[-1].split() == ["7", "line(s)", "in", "4", "report(s)"]  # as the README says
    assert "7 lines from 4 reports" in " ".join(readme.split())

"""Check your challenge work: does your question file validate, and do your metric functions agree with the package?

Run it from anywhere (paths are resolved from this file's location):

    python code/chapter_11/challenge/check.py                    # checks my_questions.yaml
    python code/chapter_11/challenge/check.py other_file.yaml    # checks another question file

It prints one line per check, PASS, TODO (not done yet) or FAIL with what is
wrong, and exits with 0 when nothing failed, 1 otherwise. It does not run any
search (it takes a few seconds): the numbers your functions give are compared
with ``ddrsearch.evaluation.metrics.recall_at_k`` and ``ddrsearch.evaluation.metrics.mean_metrics``
on small rankings whose answers are known, and on your own questions.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

os.environ.setdefault("TQDM_DISABLE", "1")
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from ddrsearch.errors import DDRSearchError
from ddrsearch.evaluation.metrics import evaluate, mean_metrics, recall_at_k
from ddrsearch.evaluation.questionfiles import load_questions

HERE = Path(__file__).resolve().parent
MIN_QUESTIONS, MIN_REPORTS = 15, 10

#: (ranking, grades, k): cases where a slip shows (relevant not returned, k past the end, several relevant).
CASES = [
    (["a", "b", "c"], {"b": 3}, 1),
    (["a", "b", "c"], {"b": 3}, 2),
    (["a", "b", "c", "d", "e", "f"], {"b": 2, "f": 1}, 5),
    (["a", "b"], {"b": 1, "z": 3}, 5),
    ([], {"b": 1}, 3),
    (["x", "y", "z", "b", "c"], {"b": 1, "c": 1, "d": 2, "e": 1}, 5),
]


def _load_challenge():
    spec = importlib.util.spec_from_file_location("challenge", HERE / "challenge.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def check_questions(path: Path) -> tuple[str, object]:
    """('PASS'|'TODO'|'FAIL', message or the loaded QuestionSet)."""
    try:
        qs = load_questions(path, check_evidence=True)
    except (DDRSearchError, OSError) as exc:
        return "FAIL", f"{path.name} does not validate:\n{exc}"
    n_reports = len({j.report for q in qs.answerable() for j in q.relevant})
    if len(qs) < MIN_QUESTIONS or n_reports < MIN_REPORTS:
        return "TODO", (f"{path.name} validates (evidence checked): {len(qs)} questions over {n_reports} "
                        f"reports; the challenge asks for at least {MIN_QUESTIONS} over {MIN_REPORTS} (TODO 1-2)")
    return "PASS", qs


def check_recall(challenge) -> tuple[str, str]:
    for ranking, grades, k in CASES:
        mine = challenge.recall_at_k(list(ranking), dict(grades), k)
        if mine is None:
            return "TODO", "recall_at_k returns None: TODO 3 in challenge.py is not done yet"
        want = recall_at_k(ranking, grades, k)
        if abs(mine - want) > 1e-9:
            return "FAIL", (f"recall_at_k({ranking}, {grades}, k={k}) gave {mine}, the package gives {want:.4f} "
                            "(count relevant reports in the first k; divide by ALL relevant reports)")
    return "PASS", f"recall_at_k agrees with ddrsearch.evaluation.metrics.recall_at_k on {len(CASES)} cases"


def check_mean(challenge, qs) -> tuple[str, str]:
    qrels = {f"q{i}": dict(grades) for i, (_, grades, _) in enumerate(CASES)}
    ranked = {f"q{i}": list(ranking) for i, (ranking, _, _) in enumerate(CASES)}
    ranked["q1"] = []  # a question the method returned nothing for
    sets = [("the known cases", ranked, qrels)]
    if qs is not None:  # your own questions, with each relevant report ranked in judgement order
        own = qs.qrels()
        sets.append(("your questions", {qid: sorted(g, key=g.get, reverse=True)[1:] for qid, g in own.items()}, own))
    for name, run, rels in sets:
        mine = challenge.mean_recall_at_k(run, rels, 5)
        if mine is None:
            return "TODO", "mean_recall_at_k returns None: TODO 4 in challenge.py is not done yet"
        want = float(mean_metrics(evaluate(run, rels, 5))["recall@5"])
        if abs(mine - want) > 1e-9:
            return "FAIL", f"mean_recall_at_k on {name} gave {mine}, the package gives {want:.4f}"
    return "PASS", "mean_recall_at_k agrees with ddrsearch.evaluation.metrics.mean_metrics(evaluate(...))"


def main(argv: list[str]) -> int:
    path = Path(argv[0]) if argv else HERE / "my_questions.yaml"
    status, result = check_questions(path)
    print(f"{status:4}  question file: {result if status != 'PASS' else f'{path.name} validates (evidence checked), {len(result)} questions'}")
    qs = result if status == "PASS" else None
    try:
        challenge = _load_challenge()
    except Exception as exc:  # the learner's file may not even import: say so and stop
        print(f"FAIL  challenge.py does not import: {type(exc).__name__}: {exc}")
        return 1
    results = [status]
    for check in (lambda: check_recall(challenge), lambda: check_mean(challenge, qs)):
        try:
            s, message = check()
        except Exception as exc:  # a learner's function that raises is a finding, not a crash
            s, message = "FAIL", f"your function raised {type(exc).__name__}: {exc}"
        print(f"{s:4}  {message}")
        results.append(s)
    if "FAIL" not in results and "TODO" not in results:
        print("\nAll done. Measure more with the package's own tool:\n"
              f"  ddrsearch eval {path} --corpus archive --methods dense,hybrid -k 5")
    return 1 if "FAIL" in results else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

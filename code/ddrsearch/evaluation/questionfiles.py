"""Question sets: the questions an engineer asks of the reports, and which reports answer them.

A *question set* is the yardstick every search in this package is measured
against: for each question, the reports that answer it (the relevance
judgements, or *qrels*), each with a grade and a short quotation from the
report that proves the judgement. The book ships three:

``datasets/eval/starter.yaml``
    five questions on the ten-report sample, each with exactly one relevant
    report (chapters 1-3).
``datasets/eval/archive.yaml``
    questions over all 76 reports, several with more than one relevant
    report, split into ``dev`` (used while tuning) and ``test`` (held out,
    used only to report a final number).
``datasets/eval/fresh.yaml``
    forty questions over all 76 reports, every one held out (``test``),
    written after the tuning of chapters/12-improving-retrieval.ipynb by
    reading the reports alone: a second held-out set, for a change that
    was written while looking at the first one's results.

The file format (keys, categories, styles, kinds, grades, evidence matching)
is described in ``datasets/eval/README.md``; :data:`TOP_LEVEL_KEYS`,
:data:`QUESTION_KEYS` and :data:`JUDGEMENT_KEYS` below are the keys it allows.

:func:`load_questions` validates the whole file and raises one
:class:`QuestionSetError` listing *every* problem (question id, YAML line,
report file): unknown or missing keys, bad category / difficulty / style /
split values, a report not in the manifest (or, for a sample set, not in the
sample), an empty judgement list (or a non-empty one on an unanswerable
question), a bad kind, a duplicate question id, a report judged
twice in one question, a grade outside 1-3 and an evidence quotation that is
not in the report it is attributed to. Checking the evidence reads the PDFs
the file refers to (each once); without them it raises
:class:`~ddrsearch.errors.DataNotFoundError` saying to run ``ddrsearch fetch``
(or pass ``check_evidence=False``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import yaml

from ddrsearch import settings
from ddrsearch.data.folders import FETCH_COMMAND, archive_dir, datasets_dir
from ddrsearch.data.manifest import load_manifest
from ddrsearch.errors import DataNotFoundError, QuestionSetError, ReportError
from ddrsearch.evaluation.questionset import (
    CATEGORIES,
    CORPORA,
    DIFFICULTIES,
    GRADES,
    KINDS,
    QUESTION_SETS,
    SPLITS,
    STYLES,
    Judgement,
    Question,
    QuestionSet,
)
from ddrsearch.evaluation.trec import write_qrels as _write_trec_qrels
from ddrsearch.reading.report import Report, read_each
from ddrsearch.text.words import normalize

__all__ = [
    "CATEGORIES",
    "CORPORA",
    "DIFFICULTIES",
    "GRADES",
    "KINDS",
    "QUESTION_SETS",
    "SPLITS",
    "STYLES",
    "Judgement",
    "Question",
    "QuestionSet",
    "QuestionSetError",
    "load_questions",
    "normalize_text",
    "question_set_path",
    "write_qrels",
]

TOP_LEVEL_KEYS = ("name", "description", "corpus", "questions")
#: Top-level keys a set may have besides those: ``zero_overlap: true`` asks the loader to refuse a question that
#: shares a content word with its answering rows (:mod:`ddrsearch.evaluation.overlap`).
OPTIONAL_TOP_LEVEL_KEYS = ("zero_overlap",)
QUESTION_KEYS = ("id", "question", "category", "difficulty", "style", "split", "kind", "relevant")
REQUIRED_QUESTION_KEYS = ("id", "question", "category", "difficulty", "style", "relevant")
JUDGEMENT_KEYS = ("report", "grade", "evidence")


# --- YAML with line numbers and duplicate-key detection ----------------------------------


class _Map(dict):
    """A mapping read from YAML that remembers its line (1-based)."""

    line: int | None = None


#: Default largest question file read, in bytes (``DDRSEARCH_MAX_QUESTION_FILE_BYTES`` changes it).
MAX_FILE_BYTES = 5_000_000


class _AliasRefused(yaml.YAMLError):
    """A YAML anchor or alias: refused, so a small file cannot expand into gigabytes ("billion laughs")."""

    def __init__(self, line: int, what: str):
        super().__init__(f"line {line}: YAML {what} are not allowed in a question file (write each value out)")
        self.line = line


class _Loader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self.duplicate_keys: list[str] = []

    def compose_node(self, parent, index):
        event = self.peek_event()
        if isinstance(event, yaml.AliasEvent):
            raise _AliasRefused(event.start_mark.line + 1, f"aliases (*{event.anchor})")
        if getattr(event, "anchor", None) is not None:
            raise _AliasRefused(event.start_mark.line + 1, f"anchors (&{event.anchor})")
        return super().compose_node(parent, index)


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False):
    loader.flatten_mapping(node)
    out = _Map()
    out.line = node.start_mark.line + 1
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            loader.duplicate_keys.append(f"line {key_node.start_mark.line + 1}: key {key!r} is given twice")
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _line(obj: Any) -> str:
    line = getattr(obj, "line", None)
    return f" (line {line})" if line else ""


# --- text matching -----------------------------------------------------------------------

#: Evidence and report text are compared after :func:`ddrsearch.text.words.normalize` (NFKC, lowercase,
#: one apostrophe, one double quote and one hyphen, control characters as spaces, white space
#: collapsed), the tokenizer's own normaliser, so a typographic quote in a question file
#: matches the straight one in a report.
normalize_text = normalize


# Normalised page text of each PDF read, keyed by (path, mtime_ns, size), so that
# loading several sets (or one set several times) reads each PDF once.
_TEXT_CACHE: dict[tuple[str, int, int], str] = {}


def _report_texts(paths: list[Path]) -> tuple[dict[Path, str], list[tuple[Path, ReportError]]]:
    """The normalised text of each PDF (those not cached read in one batch, in a worker process held to the
    hard limits: :func:`ddrsearch.reading.report.read_each`), and the files that could not be read."""
    keys = {}
    for p in paths:
        st = p.stat()
        keys[p] = (str(p.resolve()), st.st_mtime_ns, st.st_size)
    todo = [p for p in paths if keys[p] not in _TEXT_CACHE]
    reports, failures = read_each(todo) if todo else ([], [])
    for p, r in zip([p for p in todo if p not in {f for f, _ in failures}], reports, strict=True):
        _TEXT_CACHE[keys[p]] = normalize_text(r.text)
    return {p: _TEXT_CACHE[keys[p]] for p in paths if keys[p] in _TEXT_CACHE}, failures


# --- loading -------------------------------------------------------------------------------


def question_set_path(name: str) -> Path:
    """Return the path of a shipped question set: ``datasets/eval/<name>.yaml``.

    Args:
        name: ``"starter"``, ``"archive"``, ``"fresh"`` or ``"fresh2"`` (see :data:`QUESTION_SETS`).
    """
    if name not in QUESTION_SETS:
        raise ValueError(f"unknown question set {name!r}: the shipped sets are {', '.join(QUESTION_SETS)}")
    return datasets_dir() / "eval" / f"{name}.yaml"


def load_questions(
    path: str | os.PathLike,
    *,
    check_evidence: bool = True,
    archive_folder: str | os.PathLike | None = None,
    manifest: str | os.PathLike | None = None,
    reports: Iterable[Report] | None = None,
) -> QuestionSet:
    """Load and validate a question-set YAML file.

    Args:
        path: the YAML file (see the module docstring for the format), or the
            name of a shipped set (:data:`QUESTION_SETS`: ``"starter"``,
            ``"archive"``, ``"fresh"``, ``"fresh2"``).
        check_evidence: check that every evidence quotation occurs in the
            report it is attributed to. Reads each PDF the file refers to once
            (about 20 ms a report).
        archive_folder: folder of the report PDFs; default
            :func:`ddrsearch.data.folders.archive_dir`.
        manifest: manifest CSV; default :func:`ddrsearch.data.manifest.manifest_path`.
        reports: reports already read (e.g. by :func:`ddrsearch.reading.report.load_archive`);
            the evidence of a report among them (matched by file name) is
            checked against its text, without reading its PDF again. Other
            reports are read from ``archive_folder``.

    Returns:
        The :class:`QuestionSet`.

    Raises:
        FileNotFoundError: no file at ``path``, or ``path`` is a folder.
        QuestionSetError: the file has problems; the message lists every one
            (question id, YAML line, report file). A file larger than
            ``DDRSEARCH_MAX_QUESTION_FILE_BYTES`` (default 5,000,000) or holding a
            YAML anchor or alias (``&a``, ``*a``: a 415-byte file of nested
            aliases expands to gigabytes) is refused before it is expanded.
        DataNotFoundError: ``check_evidence`` is true and a PDF the file refers
            to is not on disk; the message gives the fetch command.
    """
    if isinstance(path, str) and path in QUESTION_SETS and not Path(path).exists():
        path = question_set_path(path)
    path = Path(path)
    if path.is_dir():
        raise FileNotFoundError(f"{path} is a folder, not a question-set file; give its YAML file "
                                f"(e.g. {path / 'my_questions.yaml'}) or a shipped set: {', '.join(QUESTION_SETS)}.")
    if not path.is_file():
        raise FileNotFoundError(f"No question-set file at {path}; give the path of a YAML file, or the name of "
                                f"a shipped set: {', '.join(QUESTION_SETS)}.")

    limit = int(settings.get_number("DDRSEARCH_MAX_QUESTION_FILE_BYTES", MAX_FILE_BYTES, integer=True))
    size = path.stat().st_size
    if size > limit:
        raise QuestionSetError(path, [f"the file has {size:,} bytes, more than the {limit:,} a question file may "
                                      "have; split it, or raise the limit with "
                                      "DDRSEARCH_MAX_QUESTION_FILE_BYTES=<bytes>"])
    try:
        source = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionSetError(path, [f"the file is not UTF-8 text ({exc}); save it as UTF-8"]) from exc
    try:
        loader = _Loader(source)  # the reader checks the characters here: a NUL or ESC byte is refused
    except yaml.YAMLError as exc:
        raise QuestionSetError(path, [f"not valid YAML: {exc}"]) from None
    try:
        data = loader.get_single_data()
    except _AliasRefused as exc:
        raise QuestionSetError(path, [str(exc)]) from None
    except yaml.YAMLError as exc:
        tab = " (YAML indents with spaces, never tabs: replace the tabs)" if "'\\t'" in str(exc) else ""
        raise QuestionSetError(path, [f"not valid YAML{tab}: {exc}"]) from exc
    except (TypeError, RecursionError) as exc:  # a complex (list) key, or nesting too deep
        raise QuestionSetError(path, [f"not a question set this loader can read ({type(exc).__name__}: {exc})"]) from None
    finally:
        loader.dispose()

    problems = _Problems()
    for msg in loader.duplicate_keys:
        problems.add(msg)
    if not isinstance(data, Mapping):
        problems.add(f"the file must be a mapping with keys {', '.join(TOP_LEVEL_KEYS)}; "
                     f"found {type(data).__name__}")
        raise QuestionSetError(path, problems.messages())

    name, description, corpus, raw_questions = _check_top_level(data, problems)
    entries = {e.file_name: e for e in load_manifest(manifest)}
    questions: list[Question] = []
    to_check: list[tuple[tuple[int, int], str, Judgement]] = []  # judgements whose report exists
    seen_ids: dict[str, int] = {}
    for pos, raw in enumerate(raw_questions, start=1):
        q = _check_question(pos, raw, corpus, entries, seen_ids, problems, to_check)
        if q is not None:
            questions.append(q)

    if check_evidence and to_check:
        _check_evidence(path, to_check, archive_folder, problems, reports)
    if check_evidence and data.get("zero_overlap") is True and not problems:
        _check_zero_overlap(questions, archive_folder, reports, problems)

    if problems:
        raise QuestionSetError(path, problems.messages())
    return QuestionSet(
        name=name.strip(), description=(description or "").strip(), corpus=corpus, questions=questions,
        path=path, evidence_checked=check_evidence,
    )


class _Problems:
    """Problems found in a file, reported in file order (top level, then question by question)."""

    def __init__(self) -> None:
        self._items: list[tuple[tuple[int, int], int, str]] = []

    def add(self, msg: str, key: tuple[int, int] = (0, 0)) -> None:
        self._items.append((key, len(self._items), msg))

    def messages(self) -> list[str]:
        return [msg for _, _, msg in sorted(self._items)]

    def __len__(self) -> int:
        return len(self._items)


def _check_top_level(data: Mapping, problems: _Problems):
    for key in data:
        if key not in TOP_LEVEL_KEYS + OPTIONAL_TOP_LEVEL_KEYS:
            problems.add(f"unknown top-level key {key!r} (allowed: {', '.join(TOP_LEVEL_KEYS + OPTIONAL_TOP_LEVEL_KEYS)})")
    if "zero_overlap" in data and not isinstance(data["zero_overlap"], bool):
        problems.add(f"'zero_overlap' must be true or false, not {data['zero_overlap']!r}")
    for key in TOP_LEVEL_KEYS:
        if key not in data:
            problems.add(f"missing top-level key {key!r}")
    name = data.get("name")
    if "name" in data and (not isinstance(name, str) or not name.strip()):
        problems.add(f"'name' must be a non-empty string, not {name!r}")
    description = data.get("description")
    if "description" in data and description is not None and not isinstance(description, str):
        problems.add(f"'description' must be a string, not {type(description).__name__}")
    corpus = data.get("corpus")
    if "corpus" in data and corpus not in CORPORA:
        problems.add(f"'corpus' must be one of {', '.join(CORPORA)}, not {corpus!r}")
    raw_questions = data.get("questions")
    if "questions" in data and (not isinstance(raw_questions, list) or not raw_questions):
        problems.add("'questions' must be a non-empty list of questions")
        raw_questions = []
    return name, description, corpus, raw_questions or []


def _check_question(pos, raw, corpus, entries, seen_ids, problems: _Problems, to_check) -> Question | None:
    """Validate one question; return it, or ``None`` when it has a problem (recorded in ``problems``)."""
    key = (pos, 0)
    if not isinstance(raw, Mapping):
        problems.add(f"question #{pos}{_line(raw)}: must be a mapping with keys "
                     f"{', '.join(REQUIRED_QUESTION_KEYS)}, not {raw!r}", key)
        return None
    n_before = len(problems)
    qid = raw.get("id")
    label = f"question {qid}" if isinstance(qid, str) and qid.strip() else f"question #{pos}"
    where = f"{label}{_line(raw)}"

    for k in raw:
        if k not in QUESTION_KEYS:
            problems.add(f"{where}: unknown key {k!r} (allowed: {', '.join(QUESTION_KEYS)})", key)
    required = REQUIRED_QUESTION_KEYS + (("split",) if corpus == "archive" else ())
    for k in required:
        if k not in raw:
            extra = " (required for an archive set)" if k == "split" else ""
            problems.add(f"{where}: missing key {k!r}{extra}", key)
    if "id" in raw:
        if not isinstance(qid, str) or not qid.strip():
            problems.add(f"{where}: 'id' must be a non-empty string, not {qid!r}", key)
        elif re.search(r"\s", qid):
            problems.add(f"{where}: id {qid!r} contains whitespace (it becomes a TREC qid)", key)
        elif qid in seen_ids:
            problems.add(f"{where}: duplicate id {qid!r} (also question #{seen_ids[qid]})", key)
        else:
            seen_ids[qid] = pos
    text = raw.get("question")
    if "question" in raw and (not isinstance(text, str) or not text.strip()):
        problems.add(f"{where}: 'question' must be a non-empty string, not {text!r}", key)
    for k, allowed in (("category", tuple(CATEGORIES)), ("difficulty", DIFFICULTIES), ("style", STYLES),
                       ("split", SPLITS), ("kind", KINDS)):
        if k in raw and raw[k] not in allowed:
            problems.add(f"{where}: {k} {raw[k]!r} is not one of {', '.join(allowed)}", key)

    kind = raw.get("kind", "text")
    rel = raw.get("relevant")
    if "relevant" in raw:
        if not isinstance(rel, list):
            problems.add(f"{where}: 'relevant' must be a list of judgements, not {type(rel).__name__}", key)
            rel = []
        elif kind == "unanswerable" and rel:
            problems.add(f"{where}: an unanswerable question has no relevant reports: give 'relevant: []' "
                         f"(found {len(rel)} judgement(s)), or change its kind", key)
            rel = []
        elif not rel and kind != "unanswerable":
            problems.add(f"{where}: empty judgement list: 'relevant' needs at least one report "
                         "(or 'kind: unanswerable' for a question the archive cannot answer)", key)
    judgements: list[Judgement] = []
    seen_reports: set[str] = set()
    for jpos, jraw in enumerate(rel or [], start=1):
        j = _check_judgement(label, (pos, jpos), jraw, corpus, entries, seen_reports, problems, to_check)
        if j is not None:
            judgements.append(j)

    if len(problems) > n_before:
        return None
    return Question(id=qid, question=text.strip(), category=raw["category"], difficulty=raw["difficulty"],
                    style=raw["style"], split=raw.get("split"), relevant=tuple(judgements), kind=kind)


def _check_judgement(label, key, jraw, corpus, entries, seen_reports, problems: _Problems,
                     to_check) -> Judgement | None:
    """Validate one judgement; queue its evidence for checking when its report exists."""
    jline = _line(jraw)
    where = f"{label}, judgement #{key[1]}{jline}"
    if not isinstance(jraw, Mapping):
        problems.add(f"{where}: must be a mapping with keys {', '.join(JUDGEMENT_KEYS)}, not {jraw!r}", key)
        return None
    n_before = len(problems)
    report, grade, evidence = jraw.get("report"), jraw.get("grade"), jraw.get("evidence")
    if isinstance(report, str) and report.strip():
        where = f"{label}, report {report}{jline}"
    for k in jraw:
        if k not in JUDGEMENT_KEYS:
            problems.add(f"{where}: unknown key {k!r} (allowed: {', '.join(JUDGEMENT_KEYS)})", key)
    for k in JUDGEMENT_KEYS:
        if k not in jraw:
            problems.add(f"{where}: missing key {k!r}", key)
    report_exists = False
    if "report" in jraw:
        if not isinstance(report, str) or not report.strip():
            problems.add(f"{where}: 'report' must be a report file name, not {report!r}", key)
        else:
            if report in seen_reports:
                problems.add(f"{where}: the report is judged twice in this question", key)
            seen_reports.add(report)
            entry = entries.get(report)
            if entry is None:
                problems.add(f"{where}: not a report in the manifest (ddrsearch.data.manifest.manifest_path()); check the file "
                             "name, e.g. FORGE-16A-78-32_Drilling_038_2020-11-26.pdf", key)
            elif corpus == "sample" and not entry.in_sample:
                problems.add(f"{where}: not one of the ten-report sample, but the set's corpus is 'sample'", key)
            else:
                report_exists = True
    if "grade" in jraw and (isinstance(grade, bool) or grade not in GRADES):
        problems.add(f"{where}: grade {grade!r} is not one of 1, 2, 3", key)
    if "evidence" in jraw and (not isinstance(evidence, str) or not evidence.strip()):
        problems.add(f"{where}: 'evidence' must be a non-empty quotation from the report, not {evidence!r}", key)
        evidence = None
    if report_exists and evidence is not None:
        to_check.append((key, where, Judgement(report=report, grade=grade, evidence=evidence)))
    if len(problems) > n_before:
        return None
    return Judgement(report=report, grade=int(grade), evidence=evidence)


def _check_evidence(path: Path, to_check, archive_folder, problems: _Problems,
                    reports: Iterable[Report] | None = None) -> None:
    """Add a problem for each evidence quotation that is not in its report's text (``reports``: already read)."""
    folder = Path(archive_folder) if archive_folder is not None else archive_dir()
    names = sorted({j.report for _, _, j in to_check})
    read = {r.file_name: r for r in reports or ()}
    missing = [n for n in names if n not in read and not (folder / n).is_file()]
    if missing:
        shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
        also = ""
        if problems:
            also = (f"\nThe file also has {len(problems)} other problem(s):\n  - "
                    + "\n  - ".join(problems.messages()))
        raise DataNotFoundError(
            f"Cannot check the evidence quotations of {path}: {len(missing)} of the {len(names)} report PDF(s) "
            f"it refers to are not in {folder} ({shown}). Fetch the reports with: {FETCH_COMMAND} "
            f"-- or load the file with check_evidence=False.{also}"
        )
    found, failures = _report_texts([folder / n for n in names if n not in read])
    for p, exc in failures:
        problems.add(f"report {p.name}: cannot read the PDF to check evidence: {exc}")
    texts = {n: normalize_text(read[n].text) if n in read else found[folder / n]
             for n in names if n in read or folder / n in found}
    for key, where, j in to_check:
        if j.report not in texts:
            continue
        needle = normalize_text(j.evidence)
        if needle in texts[j.report]:
            continue
        elsewhere = [n for n, t in texts.items() if n != j.report and needle in t]
        hint = f"; it is in {', '.join(elsewhere)} -- misattributed?" if elsewhere else ""
        problems.add(
            f"{where}: evidence {j.evidence!r} is not in the report's text (matching ignores case, "
            f"whitespace and the kind of quote or dash; quote within one line of an OPERATIONS cell){hint}", key)


def _check_zero_overlap(questions: list[Question], archive_folder, reports: Iterable[Report] | None,
                        problems: _Problems) -> None:
    """Add a problem for each question sharing a content word with the rows of its grade-2 and grade-3 judgements."""
    from ddrsearch.evaluation.overlap import answering_rows, shared_words
    folder = Path(archive_folder) if archive_folder is not None else archive_dir()
    read = {r.file_name: r for r in reports or ()}
    need = sorted({j.report for q in questions for j in q.relevant if j.grade >= 2 and j.report not in read})
    if need:  # read in one batch, in a worker process held to the hard limits
        found, failures = read_each([folder / n for n in need])
        if failures:
            raise failures[0][1]
        read.update((r.file_name, r) for r in found)
    for q in questions:
        rows = []
        for j in q.relevant:
            if j.grade < 2:
                continue
            found = answering_rows(read[j.report], j.evidence)
            if not found:
                problems.add(f"{q.id}, report {j.report}: zero_overlap needs the evidence {j.evidence!r} within one "
                             "operation row (or PRESENT OPERATIONS / ACTIVITY PLANNED), to check the question against it")
            rows.extend(found)
        shared = shared_words(q.question, rows)
        if shared:
            problems.add(f"{q.id}: the question shares the content word(s) {', '.join(shared)} with its answering rows, "
                         "but the set says zero_overlap: true; reword it in the engineer's own words")


def write_qrels(question_set: QuestionSet, path: str | os.PathLike) -> None:
    """Write a question set's judgements as a TREC qrels file (``qid 0 docid grade``).

    Delegates to :func:`ddrsearch.evaluation.trec.write_qrels`, so the file can be read by
    ``trec_eval``, ``pytrec_eval`` or ``ranx``::

        write_qrels(load_questions("archive").split("test"), "qrels-test.txt")
        trec_eval -m ndcg_cut.5 qrels-test.txt run.txt
    """
    _write_trec_qrels(question_set.qrels(), path)

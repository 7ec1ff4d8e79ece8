"""Question sets: the questions an engineer asks of the reports, and which reports answer them.

A *question set* is the yardstick every search in this package is measured
against: for each question, the reports that answer it (the relevance
judgements, or *qrels*), each with a grade and a short quotation from the
report that proves the judgement. The book ships two:

``datasets/eval/starter.yaml``
    five questions on the ten-report sample, each with exactly one relevant
    report (chapters 1-3).
``datasets/eval/archive.yaml``
    questions over all 76 reports, several with more than one relevant
    report, split into ``dev`` (used while tuning) and ``test`` (held out,
    used only to report a final number).

File format
-----------

A YAML file with four top-level keys and nothing else::

    name: archive                  # short name of the set
    description: >                 # what it is, how it was built
      ...
    corpus: archive                # "sample" (the ten reports) or "archive" (all 76)
    questions:
      - id: A01                    # unique, no whitespace (it becomes a TREC qid)
        question: stuck pipe       # the query, as an engineer would type it
        category: stuck_pipe_fishing
        difficulty: hard           # easy | medium | hard
        style: literal             # literal | paraphrase | shorthand
        split: test                # dev | test  (required when corpus is archive)
        kind: text                 # optional: text (default) | numeric | unanswerable
        relevant:                  # at least one judgement ([] when kind is unanswerable)
          - report: FORGE-16A-78-32_Drilling_038_2020-11-26.pdf
            grade: 3               # 3 main story, 2 clearly describes it, 1 mentions it
            evidence: "During the slide lost tool face"

``category`` is one of the slugs in :data:`CATEGORIES`; ``style`` says how
the question's words relate to the report's: ``literal`` (the report uses the
question's words), ``paraphrase`` (the same event in other words) or
``shorthand`` (rig shorthand the report spells differently, e.g. "POOH" when
the report says "trip out of hole", or the reverse). The optional ``kind``
says what the question asks for: ``text`` (the default) an event, ``numeric``
a depth, date, footage, mud weight or pressure, ``unanswerable`` something
the archive does not hold; an unanswerable question has ``relevant: []``
and is left out of :meth:`QuestionSet.qrels` and of the retrieval metrics
(:meth:`QuestionSet.answerable` and :meth:`QuestionSet.unanswerable` give
the two groups).

``evidence`` is a short exact quotation from the report the judgement is
about. It is matched against the report's page text (:attr:`Report.text
<ddrsearch.report.Report.text>`) ignoring case and collapsing every run of
whitespace to one space on both sides, so line breaks inside an OPERATIONS
cell and double spaces do not matter. (A quotation that runs over two lines
of an OPERATIONS cell can still fail: PyMuPDF may put the row's PHASE and
CODE text between the lines. Quote within one line.)

Loading
-------

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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .data import FETCH_COMMAND, FILE_NAME_RE, archive_dir, datasets_dir, load_manifest
from .errors import DataNotFoundError, QuestionSetError, ReportError
from .report import read_report
from .text import normalize
from .trec import write_qrels as _write_trec_qrels

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

#: Category slugs and what each covers.
CATEGORIES: dict[str, str] = {
    "stuck_pipe_fishing": "stuck pipe, tight hole, fishing and junk in the hole",
    "equipment_failure": "rig and downhole equipment failures (pumps, top drive, motors, washouts, power)",
    "losses_mud": "lost circulation and seepage, mud properties, sweeps, pills and hole cleaning",
    "logging_coring": "wireline logs, coring and downhole seismic shots",
    "casing_cementing": "running casing and liners, cementing, float equipment, wellheads",
    "tests": "pressure and formation tests: BOP, FIT, XLOT, DFIT, drill-off and temperature tests",
    "trips_bha": "trips, BHA changes, reaming and clean-out runs, bit condition",
    "directional_work": "surveys, building the curve, inclination control, well path",
    "rig_moves_repairs": "moving and rigging up, spud, rig maintenance such as slip and cut",
    "safety_weather": "safety meetings and drills, inspections, regulators and visitors, weather",
}

#: Difficulty labels, easiest first.
DIFFICULTIES = ("easy", "medium", "hard")

#: How the question's words relate to the report's words.
STYLES = ("literal", "paraphrase", "shorthand")

#: ``dev`` questions may be looked at while tuning; ``test`` questions are held out.
SPLITS = ("dev", "test")

#: What a question asks for (optional key ``kind``, default ``text``): ``text`` an event in
#: words, ``numeric`` a depth, date, footage, mud weight or pressure (answerable, judged like
#: any other), ``unanswerable`` something the archive does not contain (no judgements: the
#: right answer is "not found in these reports").
KINDS = ("text", "numeric", "unanswerable")

#: Corpora a question set can be about (see :func:`ddrsearch.data.corpus_paths`).
CORPORA = ("sample", "archive")

#: Allowed grades: 1 mentions the event, 2 clearly describes it, 3 the event is the report's main story.
GRADES = (1, 2, 3)

#: The question sets shipped in ``datasets/eval/``.
QUESTION_SETS = ("starter", "archive")

TOP_LEVEL_KEYS = ("name", "description", "corpus", "questions")
QUESTION_KEYS = ("id", "question", "category", "difficulty", "style", "split", "kind", "relevant")
REQUIRED_QUESTION_KEYS = ("id", "question", "category", "difficulty", "style", "relevant")
JUDGEMENT_KEYS = ("report", "grade", "evidence")


# --- data classes ------------------------------------------------------------------


@dataclass(frozen=True)
class Judgement:
    """One relevance judgement: a report that answers a question.

    Attributes:
        report: the report's file name (its id everywhere in ddrsearch).
        grade: 3 the event is the report's main story, 2 the report clearly
            describes it, 1 the report mentions it.
        evidence: an exact quotation from the report that supports the grade.
    """

    report: str
    grade: int
    evidence: str

    @property
    def report_number(self) -> int | None:
        """RPT NUM taken from the file name (``None`` for a name not in the FORGE pattern)."""
        m = FILE_NAME_RE.match(self.report)
        return int(m["number"]) if m else None

    @property
    def phase(self) -> str | None:
        """``"Drilling"`` or ``"Completion"``, from the file name."""
        m = FILE_NAME_RE.match(self.report)
        return m["phase"] if m else None


@dataclass(frozen=True)
class Question:
    """A question and the reports that answer it.

    Attributes:
        id: unique id within the set, e.g. ``"A01"``.
        question: the query text.
        category: a slug of :data:`CATEGORIES`.
        difficulty: ``easy``, ``medium`` or ``hard``.
        style: ``literal``, ``paraphrase`` or ``shorthand``.
        split: ``dev``, ``test`` or ``None`` (a set without splits).
        relevant: the judgements, in file order (empty for an
            ``unanswerable`` question).
        kind: ``text`` (default), ``numeric`` or ``unanswerable`` (see :data:`KINDS`).
    """

    id: str
    question: str
    category: str
    difficulty: str
    style: str
    split: str | None
    relevant: tuple[Judgement, ...]
    kind: str = "text"

    @property
    def answerable(self) -> bool:
        """``False`` for a question the archive cannot answer (kind ``unanswerable``)."""
        return self.kind != "unanswerable"

    def qrels(self) -> dict[str, int]:
        """Return report file name -> grade for this question."""
        return {j.report: j.grade for j in self.relevant}

    @property
    def relevant_reports(self) -> list[str]:
        """File names of the relevant reports, in file order."""
        return [j.report for j in self.relevant]


@dataclass
class QuestionSet:
    """A loaded, validated question set.

    Attributes:
        name: the set's name.
        description: free text.
        corpus: ``"sample"`` or ``"archive"``.
        questions: the questions, in file order.
        path: the file it was loaded from (``None`` when built in code).
        evidence_checked: whether the evidence quotations were checked against the PDFs.
    """

    name: str
    description: str
    corpus: str
    questions: list[Question]
    path: Path | None = None
    evidence_checked: bool = False
    _by_id: dict[str, Question] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._by_id = {q.id: q for q in self.questions}

    @property
    def by_id(self) -> dict[str, Question]:
        """Question id -> :class:`Question`."""
        return dict(self._by_id)

    @property
    def ids(self) -> list[str]:
        """Question ids in file order."""
        return [q.id for q in self.questions]

    def __len__(self) -> int:
        return len(self.questions)

    def __iter__(self) -> Iterator[Question]:
        return iter(self.questions)

    def __getitem__(self, qid: str) -> Question:
        try:
            return self._by_id[qid]
        except KeyError:
            raise KeyError(f"no question {qid!r} in question set {self.name!r}") from None

    def qrels(self) -> dict[str, dict[str, int]]:
        """Return the judgements as ``{question id: {report file name: grade}}``.

        This is the shape :func:`ddrsearch.metrics.evaluate` and
        :func:`ddrsearch.trec.write_qrels` take (and ``pytrec_eval``/``ranx``).
        Unanswerable questions have no judgements and are left out (a metric
        such as recall is undefined for them); see :meth:`unanswerable`.
        """
        return {q.id: q.qrels() for q in self.questions if q.answerable}

    def answerable(self) -> QuestionSet:
        """Return the questions that have judgements (kinds ``text`` and ``numeric``) as a new set.

        Retrieval metrics are computed on these: use this set wherever
        questions are counted or scored.
        """
        return self._subset(f"{self.name}:answerable", [q for q in self.questions if q.answerable])

    def unanswerable(self) -> QuestionSet:
        """Return the questions the archive cannot answer (kind ``unanswerable``) as a new set."""
        return self._subset(f"{self.name}:unanswerable", [q for q in self.questions if not q.answerable])

    def _subset(self, name: str, questions: list[Question]) -> QuestionSet:
        return QuestionSet(name=name, description=self.description, corpus=self.corpus, questions=questions,
                           path=self.path, evidence_checked=self.evidence_checked)

    def queries(self) -> dict[str, str]:
        """Return ``{question id: question text}``."""
        return {q.id: q.question for q in self.questions}

    def split(self, name: str) -> QuestionSet:
        """Return the questions of one split (``"dev"`` or ``"test"``) as a new set.

        Raises:
            ValueError: ``name`` is not a split, or the set has no splits.
        """
        if name not in SPLITS:
            raise ValueError(f"unknown split {name!r}: use one of {', '.join(SPLITS)}")
        if all(q.split is None for q in self.questions):
            raise ValueError(f"question set {self.name!r} has no dev/test split")
        return self._subset(f"{self.name}:{name}", [q for q in self.questions if q.split == name])

    def to_frame(self, judgements: bool = False):
        """Return the set as a pandas DataFrame.

        Args:
            judgements: ``False`` (default): one row per question with columns
                ``id, question, category, difficulty, style, split, kind,
                n_relevant, relevant`` (``relevant`` lists
                ``report_number:grade`` items, e.g. ``"38:3 39:1"``; the
                completion report is ``C3``; empty for an unanswerable question).
                ``True``: one row per judgement with columns ``id, question,
                category, difficulty, style, split, kind, report,
                report_number, phase, grade, evidence`` (unanswerable questions
                have no rows).
        """
        import pandas as pd

        if judgements:
            cols = ["id", "question", "category", "difficulty", "style", "split", "kind",
                    "report", "report_number", "phase", "grade", "evidence"]
            rows = [
                {"id": q.id, "question": q.question, "category": q.category, "difficulty": q.difficulty,
                 "style": q.style, "split": q.split, "kind": q.kind, "report": j.report, "report_number": j.report_number,
                 "phase": j.phase, "grade": j.grade, "evidence": j.evidence}
                for q in self.questions for j in q.relevant
            ]
            return pd.DataFrame(rows, columns=cols)
        cols = ["id", "question", "category", "difficulty", "style", "split", "kind", "n_relevant", "relevant"]
        rows = [
            {"id": q.id, "question": q.question, "category": q.category, "difficulty": q.difficulty,
             "style": q.style, "split": q.split, "kind": q.kind, "n_relevant": len(q.relevant),
             "relevant": " ".join(f"{_short_report(j)}:{j.grade}" for j in q.relevant)}
            for q in self.questions
        ]
        return pd.DataFrame(rows, columns=cols)


def _short_report(j: Judgement) -> str:
    if j.phase == "Completion":
        return f"C{j.report_number}"
    return str(j.report_number) if j.report_number is not None else j.report


# --- YAML with line numbers and duplicate-key detection ----------------------------------


class _Map(dict):
    """A mapping read from YAML that remembers its line (1-based)."""

    line: int | None = None


class _Loader(yaml.SafeLoader):
    def __init__(self, stream):
        super().__init__(stream)
        self.duplicate_keys: list[str] = []


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

#: Evidence and report text are compared after :func:`ddrsearch.text.normalize` (NFKC, lowercase,
#: one apostrophe, one double quote and one hyphen, control characters as spaces, white space
#: collapsed), the tokenizer's own normaliser, so a typographic quote in a question file
#: matches the straight one in a report.
normalize_text = normalize


# Normalised page text of each PDF read, keyed by (path, mtime_ns, size), so that
# loading several sets (or one set several times) reads each PDF once.
_TEXT_CACHE: dict[tuple[str, int, int], str] = {}


def _report_text(path: Path) -> str:
    st = path.stat()
    key = (str(path.resolve()), st.st_mtime_ns, st.st_size)
    text = _TEXT_CACHE.get(key)
    if text is None:
        text = normalize_text(read_report(path).text)
        _TEXT_CACHE[key] = text
    return text


# --- loading -------------------------------------------------------------------------------


def question_set_path(name: str) -> Path:
    """Return the path of a shipped question set: ``datasets/eval/<name>.yaml``.

    Args:
        name: ``"starter"`` or ``"archive"`` (see :data:`QUESTION_SETS`).
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
) -> QuestionSet:
    """Load and validate a question-set YAML file.

    Args:
        path: the YAML file (see the module docstring for the format), or the
            name of a shipped set (``"starter"``, ``"archive"``).
        check_evidence: check that every evidence quotation occurs in the
            report it is attributed to. Reads each PDF the file refers to once
            (about 20 ms a report).
        archive_folder: folder of the report PDFs; default
            :func:`ddrsearch.data.archive_dir`.
        manifest: manifest CSV; default :func:`ddrsearch.data.manifest_path`.

    Returns:
        The :class:`QuestionSet`.

    Raises:
        FileNotFoundError: no file at ``path``.
        QuestionSetError: the file has problems; the message lists every one
            (question id, YAML line, report file).
        DataNotFoundError: ``check_evidence`` is true and a PDF the file refers
            to is not on disk; the message gives the fetch command.
    """
    if isinstance(path, str) and path in QUESTION_SETS and not Path(path).exists():
        path = question_set_path(path)
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No question-set file at {path}.")

    try:
        source = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise QuestionSetError(path, [f"the file is not UTF-8 text ({exc}); save it as UTF-8"]) from exc
    loader = _Loader(source)
    try:
        data = loader.get_single_data()
    except yaml.YAMLError as exc:
        raise QuestionSetError(path, [f"not valid YAML: {exc}"]) from exc
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
        _check_evidence(path, to_check, archive_folder, problems)

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
        if key not in TOP_LEVEL_KEYS:
            problems.add(f"unknown top-level key {key!r} (allowed: {', '.join(TOP_LEVEL_KEYS)})")
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
                problems.add(f"{where}: not a report in the manifest (datasets/manifest.csv); check the file "
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


def _check_evidence(path: Path, to_check, archive_folder, problems: _Problems) -> None:
    """Add a problem for each evidence quotation that is not in its report's text."""
    folder = Path(archive_folder) if archive_folder is not None else archive_dir()
    names = sorted({j.report for _, _, j in to_check})
    missing = [n for n in names if not (folder / n).is_file()]
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
    texts: dict[str, str] = {}
    for n in names:
        try:
            texts[n] = _report_text(folder / n)
        except ReportError as exc:
            problems.add(f"report {n}: cannot read the PDF to check evidence: {exc}")
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


def write_qrels(question_set: QuestionSet, path: str | os.PathLike) -> None:
    """Write a question set's judgements as a TREC qrels file (``qid 0 docid grade``).

    Delegates to :func:`ddrsearch.trec.write_qrels`, so the file can be read by
    ``trec_eval``, ``pytrec_eval`` or ``ranx``::

        write_qrels(load_questions("archive").split("test"), "qrels-test.txt")
        trec_eval -m ndcg_cut.5 qrels-test.txt run.txt
    """
    _write_trec_qrels(question_set.qrels(), path)

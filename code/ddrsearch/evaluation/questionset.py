"""What a question set holds: questions, graded judgements, and the labels they may carry.

:class:`Judgement` (a report that answers a question, with its grade and a
quotation), :class:`Question` and :class:`QuestionSet` (qrels, splits, tables)
are the data; :mod:`ddrsearch.evaluation.questionfiles` reads and validates the YAML files
that hold them. The labels (categories, styles, kinds, splits, grades) are
explained in ``datasets/eval/README.md``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ddrsearch.data.manifest import FILE_NAME_RE

__all__ = [
    "CATEGORIES", "CORPORA", "DIFFICULTIES", "GRADES", "KINDS", "QUESTION_SETS", "SPLITS", "STYLES",
    "Judgement", "Question", "QuestionSet",
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

#: Corpora a question set can be about (see :func:`ddrsearch.data.folders.corpus_paths`).
CORPORA = ("sample", "archive")

#: Allowed grades: 1 mentions the event, 2 clearly describes it, 3 the event is the report's main story.
GRADES = (1, 2, 3)

#: The question sets shipped in ``datasets/eval/``.
QUESTION_SETS = ("starter", "archive", "fresh", "fresh2", "plain")


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

        This is the shape :func:`ddrsearch.evaluation.metrics.evaluate` and
        :func:`ddrsearch.evaluation.trec.write_qrels` take (and ``pytrec_eval``/``ranx``).
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



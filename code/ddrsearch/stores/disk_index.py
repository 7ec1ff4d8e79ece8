"""A search index on disk for the default pipeline: build it once, add each day's report, search fast.

Without an index every ``ddrsearch search`` re-reads the PDFs, re-chunks them,
re-indexes BM25 and reloads the embedding model. An index keeps what the
default pipeline (:func:`ddrsearch.retrieval.pipeline.build_retriever` with method
``"hybrid"``) computed: the passages with their citations, the BM25 index
(bm25s's own format) and the passage vectors (``.npy``), with a header that
records what they depend on (:mod:`ddrsearch.stores.generations` has the files):

* the package version and the pipeline's settings, read from the retriever
  the pipeline built (not a copy of them): BM25, dense and fusion options,
  chunking defaults;
* the SHA-256 of the source of every module that shapes the passages, their
  words or their vectors (chunking, tokenizer, glossary, report reader,
  pipeline, ...) and of the glossary file, so a change of settings in code
  makes the index stale;
* the embedding model's SHA-256 (:attr:`ddrsearch.embedding.model.ModelSource.sha256`);
* each report's file name, path and SHA-256.

:func:`stale_reasons` compares the header with today's model, code and
reports; a stale index is not used (the command line says so in one line
and how to rebuild). :func:`add_reports` parses, chunks and embeds only the
new reports, re-indexes BM25 over all passages (its IDF depends on every
passage) and writes a new generation; its results are identical to a full
rebuild over the same reports, but for the new passages' vectors when the
model's ONNX export is current: :func:`~ddrsearch.embedding.encoder.passage_embedder`
then embeds them without PyTorch, within 1e-5 cosine of the model's (each
added report's entry then says ``"embedded_by": "onnxruntime"``; an entry
without it was embedded by sentence-transformers). A report whose bytes are already indexed
under another name is refused (:class:`~ddrsearch.errors.DuplicateReportError`).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import inspect
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from ddrsearch import __version__
from ddrsearch.embedding.encoder import Embedder, OnnxPassageEmbedder, embedding_progress, passage_embedder
from ddrsearch.embedding.model import resolve_model
from ddrsearch.errors import DuplicateReportError, EmptyCorpusError, SearchIndexError, StaleIndexError
from ddrsearch.hashing import sha256_file
from ddrsearch.reading.names import short_name
from ddrsearch.reading.records import report_from_record, report_record
from ddrsearch.reading.report import Report, check_duplicates, read_reports, sort_reports
from ddrsearch.retrieval.chunking import DEFAULT_LIMIT, operation_chunks
from ddrsearch.retrieval.concepts import default_tagger
from ddrsearch.retrieval.dense import DenseRetriever
from ddrsearch.retrieval.hybrid import HybridRetriever
from ddrsearch.retrieval.lexical import BM25Retriever
from ddrsearch.retrieval.passages import Hit
from ddrsearch.retrieval.pipeline import DEFAULT_PIPELINE, METHODS, build_retriever
from ddrsearch.retrieval.structured import StructuredIndex
from ddrsearch.stores.generations import Generation, current_generation, damaged, index_lock, write_generation
from ddrsearch.stores.locations import default_index_dir
from ddrsearch.text.glossary import glossary_path

__all__ = ["AddResult", "IndexCheck", "SearchIndex", "add_reports", "build_index", "check_index", "code_fingerprint",
           "default_index_dir", "open_index", "stale_reasons"]

#: The pipeline the index holds: the command line's default method (see :data:`ddrsearch.retrieval.pipeline.DEFAULT_PIPELINE`).
METHOD = "hybrid"

#: Modules (paths inside the package; a folder stands for its whole wing) that only score, evaluate, display,
#: store or fetch: their source does not shape what is stored. Every other module of the package (new ones
#: included) is part of :func:`code_fingerprint`.
_NOT_STORED = ("__init__.py", "__main__.py", "errors.py", "settings.py", "hashing.py", "imports.py", "checks.py", "resident.py",
               "data/", "evaluation/", "answers/", "app/", "book/", "cli/", "stores/", "reading/fields.py",
               "retrieval/base.py", "retrieval/dense.py", "retrieval/hybrid.py", "retrieval/fusion.py",
               "retrieval/vectorindex.py", "retrieval/explain.py", "embedding/onnx_encoder.py")


def _stored(relative: str) -> bool:
    return not any(relative == n or (n.endswith("/") and relative.startswith(n)) for n in _NOT_STORED) \
        and not relative.endswith("/__init__.py")


def code_fingerprint() -> dict[str, str]:
    """SHA-256 of the source of each module that shapes the stored passages, words or vectors, and of the glossary.

    When the chunks' context carries the lexicon's plain words (the default of
    :func:`ddrsearch.retrieval.chunking.operation_chunks`' ``concepts`` is not
    ``""``), the lexicon file shapes the passages too and its SHA-256 is added
    as ``"lexicon:lexicon.csv"``.

    Returns:
        ``{"retrieval/chunking.py": "<hex>", ..., "glossary:glossary.csv": "<hex>"}``.
    """
    package = Path(__file__).resolve().parents[1]
    out = {}
    for p in sorted(package.rglob("*.py")):
        relative = p.relative_to(package).as_posix()
        if _stored(relative):
            out[relative] = sha256_file(p)
    gpath = glossary_path()
    out[f"glossary:{gpath.name}"] = sha256_file(gpath) if gpath.is_file() else "missing"
    if inspect.signature(operation_chunks).parameters["concepts"].default:
        lpath = default_tagger().lexicon.path
        out[f"lexicon:{lpath.name}"] = sha256_file(lpath) if lpath.is_file() else "missing"
    return out


def _options(obj) -> dict:
    """Constructor options of a retriever read back from its attributes (scalars only).

    Every class of its MRO is read, so a subclass whose ``__init__`` passes
    ``**options`` on (the tuned hybrid) keeps its base class's options
    (weight, fusion, candidates, ...) too.
    """
    out = {}
    for cls in type(obj).__mro__:
        if "__init__" not in vars(cls) or not cls.__module__.startswith("ddrsearch."):
            continue
        for name, p in inspect.signature(cls.__init__).parameters.items():
            if name == "self" or p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD) or not hasattr(obj, name) or name in out \
                    or name == "structured_index":
                continue
            value = getattr(obj, name)
            if value is None or isinstance(value, (bool, int, float, str)):
                out[name] = value
            elif isinstance(value, (list, tuple, frozenset, set)) and all(isinstance(v, str) for v in value):
                out[name] = sorted(value) if isinstance(value, (set, frozenset)) else list(value)
    return out


def _settings(retriever: HybridRetriever) -> dict:
    chunk_defaults = {k: p.default for k, p in inspect.signature(operation_chunks).parameters.items()
                      if p.default is not inspect.Parameter.empty and isinstance(p.default, (bool, int, float, str))}
    return {"description": DEFAULT_PIPELINE, "method": METHOD, "unit": "auto", "class": type(retriever).__name__,
            "hybrid": _options(retriever), "bm25": _options(retriever.bm25), "dense": _options(retriever.dense),
            "chunking": {"word_pieces_of_the_model": DEFAULT_LIMIT, **chunk_defaults},
            "passage_kinds": sorted({p.kind for p in retriever.passages})}


def _report_entry(r: Report, digest: str, n_passages: int) -> dict:
    path = Path(r.path)
    return {"file_name": r.file_name, "short": short_name(r), "phase": r.phase, "report_number": r.report_number,
            "report_date": r.report_date.isoformat(), "sha256": digest, "bytes": path.stat().st_size,
            "path": str(path.resolve()), "passages": n_passages}


def _pipeline(reports: list[Report], embedder: Embedder | None, *, warm: bool = True) -> HybridRetriever:
    """The default pipeline over ``reports``, built by :func:`ddrsearch.retrieval.pipeline.build_retriever`.

    With ``warm``, what the first search would pay for is computed now (the lexicon's vectors, into the
    embedding cache): an index build does; an add does not, since the build before it did (with an empty
    cache the 2,838 lexicon texts would be embedded to add one report).
    """
    options = {"dense_options": {"embedder": embedder}} if embedder is not None else {}
    retriever = build_retriever(METHOD, reports, **options)
    tokenize = retriever.bm25.tokenize
    has_words = {p.report for p in retriever.passages if tokenize(p.indexed_text)}
    empty = [r.file_name for r in reports if r.file_name not in has_words]
    if empty:
        raise EmptyCorpusError(f"{len(empty)} report(s) have no searchable text (no passage with a word BM25 can "
                               f"match): {', '.join(empty)}. Check that these PDFs have a text layer and filled-in rows.")
    prepare = getattr(retriever, "warm", None)  # the lexicon's vectors into the cache, with the passages'
    if warm and prepare is not None:
        prepare()
    return retriever


@dataclass
class AddResult:
    """What :func:`add_reports` did.

    Attributes:
        added: file names newly indexed; replaced: indexed names whose bytes
            changed and were re-indexed; unchanged: already indexed with the
            same bytes (nothing done); passages: passages added;
        seconds: wall time of the call; generation: the index now current.
    """

    added: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    passages: int = 0
    seconds: float = 0.0
    generation: Generation | None = None

    def summary(self) -> str:
        parts = []
        if self.added:
            parts.append(f"added {len(self.added)} report(s) ({', '.join(self.added)}), {self.passages} passage(s)")
        if self.replaced:
            parts.append(f"re-indexed {len(self.replaced)} changed report(s) ({', '.join(self.replaced)})")
        if self.unchanged:
            parts.append(f"already indexed, unchanged, nothing done: {', '.join(self.unchanged)}")
        return "; ".join(parts) + f" ({self.seconds:.1f} s)"


#: The file of a generation that holds the indexed reports' records (:mod:`ddrsearch.reading.records`).
REPORTS_FILE = "reports.json"


def _write(index_dir, entries: list[dict], passages, vectors, bm25, header_extra: dict, *,
           parent: str | None = None, records: list[dict] | None = None) -> Generation:
    header = {"ddrsearch_version": __version__, **header_extra, "reports": entries,
              "n_passages": len(passages), "dim": int(vectors.shape[1]),
              "written": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds")}
    extra = None
    if records is not None:
        data = json.dumps(records, ensure_ascii=False).encode("utf-8")
        extra = {REPORTS_FILE: data}
        header["reports_file"] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    return write_generation(index_dir, header, passages, vectors, bm25, parent=parent, extra=extra)


def build_index(paths, index_dir: str | os.PathLike, *, source: dict | None = None,
                embedder: Embedder | None = None, progress: bool = False) -> Generation:
    """Build the default pipeline's index over the report PDFs ``paths`` and write it to ``index_dir``.

    Args:
        paths: report PDF files.
        index_dir: the index folder (a previous index there is replaced atomically).
        source: what the reports are, for the header and messages (e.g. ``{"corpus": "archive"}``).
        embedder: the embedder to use (default: the pipeline's, with the default cache).
        progress: show on standard error the reading of the PDFs and the embedding of the texts that
            are not in the embedding cache (progress bars; the index is the same either way).

    Returns:
        The new :class:`~ddrsearch.stores.generations.Generation`.

    Raises:
        DuplicateReportError: two files have the same bytes (names both).
        EmptyCorpusError: a report has no searchable text (names them).
        ReportError: a PDF cannot be read.
    """
    paths = [Path(p) for p in paths]
    if not paths:
        raise SearchIndexError("No report to index: the list of PDF files is empty.")
    digests = {p.name: d for d, p in check_duplicates(paths).items()}
    reports = read_reports(paths, progress=progress)
    with embedding_progress(progress):
        retriever = _pipeline(reports, embedder)
    counts = {}
    for p in retriever.passages:
        counts[p.report] = counts.get(p.report, 0) + 1
    entries = [_report_entry(r, digests[r.file_name], counts[r.file_name]) for r in reports]
    return _write(index_dir, entries, retriever.passages, retriever.dense.matrix, retriever.bm25,
                  {"source": source or {}, "settings": _settings(retriever), "code": code_fingerprint(),
                   "model": _model_record(retriever.dense.embedder),
                   "structured": StructuredIndex(reports).to_records()},
                  records=[report_record(r) for r in reports])


def _model_record(embedder: Embedder) -> dict:
    s = embedder.source
    return {"key": s.key, "sha256": s.sha256, "kind": s.kind, "location": s.location}


def _settings_reasons(header: dict, model_key: str) -> list[str]:
    reasons = []
    if header.get("model", {}).get("key") != model_key:
        reasons.append(f"the embedding model changed (indexed with {header.get('model', {}).get('key', '?')[:19]}..., "
                       f"now {model_key[:19]}...)")
    old, new = header.get("code", {}), code_fingerprint()
    changed = sorted(n for n in set(old) | set(new) if old.get(n) != new.get(n))
    if changed:
        reasons.append(f"the pipeline's code or settings changed ({', '.join(changed[:4])}"
                       f"{', ...' if len(changed) > 4 else ''})")
    return reasons


def stale_reasons(generation: Generation, *, corpus=None, model_key: str | None = None) -> list[str]:
    """Why an index no longer matches today's model, pipeline code and reports (empty list: it is current).

    Args:
        generation: the index (:func:`ddrsearch.stores.generations.current_generation`).
        corpus: the report PDFs the search is over (paths); a PDF of the
            corpus that is not indexed, or whose bytes differ from the indexed
            ones, makes the index stale. Indexed reports outside the corpus
            (added with ``index add``) are checked at their recorded path; a
            missing file is not a reason (its passages are still in the index).
            Any other indexed report outside the corpus is a reason: the
            index was built over other reports (say, the FORGE archive while
            ``DDRSEARCH_ARCHIVE_DIR`` now names your own folder).
        model_key: today's model identity (default: :func:`resolve_model`'s).

    Returns:
        One short sentence per difference.
    """
    header = generation.header
    reasons = _settings_reasons(header, model_key or resolve_model().key)
    indexed = {r["file_name"]: r for r in header.get("reports", [])}
    current = {Path(p).name: Path(p) for p in corpus} if corpus is not None else {}
    for name, entry in indexed.items():
        path = current.get(name, Path(entry["path"]))
        if path.is_file() and sha256_file(path) != entry["sha256"]:
            reasons.append(f"{name} changed since it was indexed")
    if corpus is not None:
        outside = sorted(n for n, e in indexed.items() if n not in current and e.get("origin") != "add")
        if outside:
            reasons.append(f"it holds {len(outside)} report(s) that are not among the {len(current)} searched "
                           f"({', '.join(outside[:3])}{', ...' if len(outside) > 3 else ''})")
    missing = sorted(n for n in current if n not in indexed)
    if missing:
        reasons.append(f"{len(missing)} report(s) are not indexed yet ({', '.join(missing[:3])}"
                       f"{', ...' if len(missing) > 3 else ''})")
    return reasons


def _plan(paths: list[Path], digests: dict[Path, str], generation: Generation) -> tuple[AddResult, dict[str, Path]]:
    """Sort the given files against an index: unchanged, added or replaced, and the files to index by digest.

    Raises:
        DuplicateReportError: a file has the bytes of an indexed report under another name, or two
            given files are identical.
    """
    indexed = {r["file_name"]: r for r in generation.header["reports"]}
    by_digest = {r["sha256"]: r["file_name"] for r in indexed.values()}
    result, batch = AddResult(), {}
    for path in paths:
        digest = digests[path]
        if digest in batch and batch[digest].name != path.name:
            raise DuplicateReportError(f"{path.name} and {batch[digest].name} are the same file (identical bytes); "
                                       "add only one of them.", batch[digest].name, path.name)
        if path.name in indexed and indexed[path.name]["sha256"] == digest:
            result.unchanged.append(path.name)
            continue
        if digest in by_digest and by_digest[digest] != path.name:
            raise DuplicateReportError(
                f"{path} is identical to {by_digest[digest]}, already in the index (same SHA-256 {digest[:12]}...): "
                "the same report under another name. Not added.", by_digest[digest], path.name)
        if digest not in batch:
            batch[digest] = path
            if path.name in indexed:
                result.replaced.append(path.name)
            else:
                result.added.append(path.name)
    return result, batch


@dataclass
class _Prepared:
    """New reports parsed, chunked and embedded (outside the lock): per file name its report, passages and vectors."""

    reports: dict[str, Report]
    rows: dict[str, tuple[list, np.ndarray]]
    pipeline: HybridRetriever


def _prepare(todo: list[Path], embedder: Embedder) -> _Prepared:
    reports = read_reports(todo)
    new = _pipeline(reports, embedder, warm=False)
    rows = {}
    for r in reports:
        idx = [i for i, p in enumerate(new.passages) if p.report == r.file_name]
        rows[r.file_name] = ([new.passages[i] for i in idx], new.dense.matrix[idx])
    return _Prepared({r.file_name: r for r in reports}, rows, new)


def add_reports(paths, index_dir: str | os.PathLike, *, embedder: Embedder | None = None) -> AddResult:
    """Add new report PDFs to an index: parse, chunk and embed only them; re-index BM25 over all passages.

    A file already indexed with the same name and bytes is left alone (listed
    as unchanged); one with an indexed name but other bytes replaces the
    indexed version. The result equals :func:`build_index` over the same
    reports (same passages in the same order, same vectors, same BM25).

    The new reports are parsed and embedded first; then the index lock is
    taken (:func:`ddrsearch.stores.generations.index_lock`), ``CURRENT`` is
    read again and the new generation is built on the one current then, so
    two ``index add`` of different reports at the same time both land.

    The new passages are embedded by ``embedder``; by default
    :func:`~ddrsearch.embedding.encoder.passage_embedder`'s: the model's ONNX
    export when it is current (no PyTorch imported), else sentence-transformers.

    Raises:
        SearchIndexError: no index at ``index_dir``; the lock stays held by another writer; the disk is full.
        StaleIndexError: the index was built with another model or pipeline
            code (adding would mix two pipelines); rebuild it.
        DuplicateReportError: a file has the bytes of an indexed report under
            another name, or two given files are identical (names both).
        EmptyCorpusError: a new report has no searchable text.
    """
    t0 = time.perf_counter()
    paths = [Path(p) for p in paths]
    generation = current_generation(index_dir)
    if generation is None:
        raise SearchIndexError(f"No index at {index_dir}; build one first with: ddrsearch index build")
    embedder = embedder or passage_embedder()
    _refuse_stale(generation, index_dir, embedder)
    digests = {path: sha256_file(path) for path in paths}
    result, batch = _plan(paths, digests, generation)
    prepared = _prepare(list(batch.values()), embedder) if batch else None
    with index_lock(index_dir):
        fresh = current_generation(index_dir)  # another writer may have changed the index meanwhile
        if fresh is None:
            raise SearchIndexError(f"The index at {index_dir} was removed while reports were being added; "
                                   "build one with: ddrsearch index build")
        if fresh.folder != generation.folder:
            _refuse_stale(fresh, index_dir, embedder)
            result, batch = _plan(paths, digests, fresh)
            if prepared is None or any(p.name not in prepared.rows for p in batch.values()):
                prepared = _prepare(list(batch.values()), embedder) if batch else None
        if not batch:
            result.generation, result.seconds = fresh, time.perf_counter() - t0
            return result
        result.generation = _merge(index_dir, fresh, result, batch, prepared, embedder)
    result.seconds = time.perf_counter() - t0
    return result


def _refuse_stale(generation: Generation, index_dir, embedder: Embedder) -> None:
    reasons = _settings_reasons(generation.header, embedder.source.key)
    if reasons:
        raise StaleIndexError(f"Cannot add to the index {index_dir}: {'; '.join(reasons)}. Rebuild it with: "
                              "ddrsearch index build", reasons)


def _merge(index_dir, generation: Generation, result: AddResult, batch: dict[str, Path], prepared: _Prepared,
           embedder: Embedder) -> Generation:
    """Write the generation ``generation`` plus the prepared reports of ``batch`` (with the index lock held)."""
    todo = {p.name for p in batch.values()}
    digests = {p.name: d for d, p in batch.items()}
    rows: dict[str, tuple[list, np.ndarray]] = {}
    old_passages, old_vectors = generation.passages(), generation.vectors()
    keep = [e for e in generation.header["reports"] if e["file_name"] not in result.replaced]
    kept_names = {e["file_name"] for e in keep}
    positions: dict[str, list[int]] = {}  # each kept report's passages, in index order (one pass over them)
    for i, p in enumerate(old_passages):
        if p.report in kept_names:
            positions.setdefault(p.report, []).append(i)
    for name in kept_names:
        idx = positions.get(name, [])
        rows[name] = ([old_passages[i] for i in idx], old_vectors[idx])
    indexed_texts = {tuple(p.text for p in rows[name][0]): name for name in rows}
    new_reports = [r for name, r in prepared.reports.items() if name in todo]
    for r in new_reports:  # a re-saved copy of an indexed report: other bytes, the same passages
        same = indexed_texts.get(tuple(p.text for p in prepared.rows[r.file_name][0]))
        if same is not None:
            raise DuplicateReportError(f"{r.path} holds the same report as {same}, already in the index (identical "
                                       "text, other bytes: a re-saved copy). Not added.", same, r.file_name)
    entries = {e["file_name"]: e for e in keep}
    result.passages = 0
    for r in new_reports:
        rows[r.file_name] = prepared.rows[r.file_name]
        entries[r.file_name] = {**_report_entry(r, digests[r.file_name], len(rows[r.file_name][0])), "origin": "add",
                                **({"embedded_by": embedder.made_by or "onnxruntime"}
                                   if isinstance(embedder, OnnxPassageEmbedder) else {})}
        result.passages += len(rows[r.file_name][0])
    order = [s.file_name for s in sort_reports(
        SimpleNamespace(report_number=e["report_number"], phase=e["phase"], file_name=e["file_name"])
        for e in entries.values())]
    passages = [p for name in order for p in rows[name][0]]
    vectors = np.concatenate([rows[name][1] for name in order]).astype(np.float32, copy=False)
    new = prepared.pipeline
    new.bm25.index(passages)  # the pipeline's BM25 leg, re-indexed over every passage
    header = generation.header
    try:  # an edited or damaged header's records are not carried into the next generation
        StructuredIndex.from_records(header.get("structured", []))
    except ValueError as exc:
        raise damaged(Path(index_dir), generation.folder / "header.json", exc) from None
    kept = [rec for rec in header.get("structured", []) if rec["report"] in kept_names]
    structured = sorted(kept + StructuredIndex(new_reports).to_records(),
                        key=lambda rec: (rec["date"], rec["report"]))
    old_records = generation.json_file(REPORTS_FILE)
    records = None  # an index written without the reports' records stays without them (ask then reads the PDFs)
    if old_records is not None:
        by_name = {rec["file_name"]: rec for rec in old_records if rec.get("file_name") in entries}
        by_name.update({r.file_name: report_record(r) for r in new_reports})
        records = [by_name[n] for n in order if n in by_name]
    return _write(index_dir, [entries[n] for n in order], passages, vectors, new.bm25,
                  {"source": header.get("source", {}), "settings": _settings(new),
                   "code": code_fingerprint(), "model": _model_record(embedder),
                   "structured": structured}, parent=generation.folder.name, records=records)


@dataclass
class SearchIndex:
    """An index loaded for searching: the default pipeline's retriever, restored from disk.

    Attributes:
        folder: the index folder; generation: the generation loaded;
        retriever: a :class:`~ddrsearch.retrieval.hybrid.HybridRetriever` over the
            stored passages (no PDF is read).
    """

    folder: Path
    generation: Generation
    retriever: HybridRetriever

    @property
    def header(self) -> dict:
        return self.generation.header

    @property
    def reports(self) -> list[dict]:
        """One dict per indexed report (file_name, short, report_date, sha256, path, passages, ...)."""
        return self.header["reports"]

    def load_reports(self) -> list[Report] | None:
        """The indexed reports, rebuilt from their records (no PDF is read); ``None`` for an index without them.

        Each report's ``path`` is where it was indexed; its PDF is opened only
        to draw a crop (:func:`ddrsearch.answers.sources.row_crop`).

        Raises:
            SearchIndexError: the records are damaged (the message names the file and says to rebuild).
        """
        path = self.generation.folder / REPORTS_FILE
        expected = self.header.get("reports_file")
        if expected is None or not path.is_file():
            return None  # an index written without the records: the caller reads the PDFs
        if path.stat().st_size != expected.get("bytes") or sha256_file(path) != expected.get("sha256"):
            raise damaged(self.folder, path, "its SHA-256 or size is not the one the header records")
        records = self.generation.json_file(REPORTS_FILE)
        by_name = {e["file_name"]: e for e in self.reports}
        try:
            reports = [report_from_record(rec) for rec in records]
            if sorted(r.file_name for r in reports) != sorted(by_name):
                raise ValueError("its reports are not the ones the header lists")
            # the PDF of each report is the one the header recorded, whatever the record says
            return [dataclasses.replace(r, path=Path(by_name[r.file_name]["path"])) for r in reports]
        except (ValueError, TypeError, KeyError, AttributeError, RecursionError) as exc:
            raise damaged(self.folder, path, exc) from None

    def search(self, query: str, k: int = 10, *, weight: float | None = None) -> list[Hit]:
        """Search the index like :meth:`ddrsearch.retrieval.base.Retriever.search` (``weight``: another dense weight)."""
        retriever = self.retriever if weight is None else self.retriever.with_weight(weight)
        return retriever.search(query, k)


def _from_settings(index_dir, generation: Generation, what: str, make):
    """``make()``: a retriever built from the header's settings ``what``; settings an index build cannot have
    written (an unknown option, a string or ``null`` score, ``sections: 5``) are a damaged index."""
    try:
        return make()
    except (TypeError, ValueError, KeyError) as exc:
        raise damaged(Path(index_dir), generation.folder / "header.json", f"settings {what}: {exc}") from None


def open_index(index_dir: str | os.PathLike, *, embedder: Embedder | None = None) -> SearchIndex:
    """Load the current generation of an index for searching (the model loads at the first query).

    Raises:
        SearchIndexError: no index there, or it is damaged (the message says to rebuild).
    """
    generation = current_generation(index_dir)
    if generation is None:
        raise SearchIndexError(f"No index at {index_dir}; build one with: ddrsearch index build")
    opts = generation.header["settings"]
    passages = generation.passages()
    bm25 = _from_settings(index_dir, generation, "bm25", lambda: BM25Retriever(**opts["bm25"]))
    try:
        bm25.restore(generation.bm25_dir, passages)
    except (OSError, ValueError, KeyError, TypeError, RecursionError) as exc:
        raise damaged(Path(index_dir), generation.bm25_dir, exc) from None
    embedder = embedder or Embedder()
    dense = _from_settings(index_dir, generation, "dense", lambda: DenseRetriever(embedder=embedder, **opts["dense"]))
    dense.matrix = np.asfortranarray(generation.vectors())  # the in-memory layout (DenseRetriever): the same scores
    if not passages or len(passages) != len(dense.matrix):
        raise damaged(Path(index_dir), generation.folder / "passages.json",
                      f"{len(passages)} passages but {len(dense.matrix)} vectors")
    dim = generation.header.get("dim")
    if dense.matrix.shape[1] != dim or not np.isfinite(dense.matrix).all():
        raise damaged(Path(index_dir), generation.vectors_path,
                      f"vectors of {dense.matrix.shape[1]} numbers where the header says {dim}, or not all finite")
    cls = METHODS[METHOD]  # the pipeline's class today; the header's settings are its constructor options
    if cls.__name__ != opts.get("class", cls.__name__):
        raise StaleIndexError(f"The index {index_dir} holds a {opts['class']} pipeline, the default is now "
                              f"{cls.__name__}; rebuild it with: ddrsearch index build", ["the pipeline changed"])
    # the typed fields of the numeric/date path, stored with the index (no PDF is read)
    try:
        structured = StructuredIndex.from_records(generation.header["structured"]) \
            if "structured" in generation.header else None
    except ValueError as exc:  # an edited or damaged header: its records are not the ones an index build writes
        raise damaged(Path(index_dir), generation.folder / "header.json", exc) from None
    hybrid = _from_settings(index_dir, generation, "hybrid",
                            lambda: cls(bm25=bm25, dense=dense, structured_index=structured, **opts["hybrid"]))
    dense.passages = hybrid.passages = passages
    return SearchIndex(Path(index_dir), generation, hybrid)


@dataclass
class IndexCheck:
    """Whether the index in a folder can be searched instead of the PDFs (:func:`check_index`).

    Attributes:
        folder: the index folder.
        index: the opened index when it exists and is current, else ``None``.
        reasons: why it is out of date (one sentence each; empty when current or absent).
        error: why it could not be read (damaged, another format), else ``None``.
    """

    folder: Path
    index: SearchIndex | None = None
    reasons: list[str] = field(default_factory=list)
    error: str | None = None

    @property
    def absent(self) -> bool:
        """No index was ever written in the folder."""
        return self.index is None and not self.reasons and self.error is None


def check_index(folder: str | os.PathLike, corpus: Sequence[str | os.PathLike]) -> IndexCheck:
    """The index at ``folder``, opened when it is current for the report PDFs ``corpus``.

    The one rule by which the command line and the web app decide to search
    an index or the PDFs: an index is used only when :func:`stale_reasons`
    finds no difference with today's reports, model and pipeline code.

    Returns:
        An :class:`IndexCheck` (never raises for a missing, stale or damaged index).
    """
    folder = Path(folder)
    try:
        if current_generation(folder) is None:
            return IndexCheck(folder)
        index = open_index(folder)
        reasons = stale_reasons(index.generation, corpus=corpus, model_key=index.retriever.dense.embedder.source.key)
    except SearchIndexError as exc:
        return IndexCheck(folder, error=str(exc))
    return IndexCheck(folder, reasons=reasons) if reasons else IndexCheck(folder, index=index)

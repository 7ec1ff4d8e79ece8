"""The ``ddrsearch index`` sub-commands, and how ``search`` finds a current index.

``ddrsearch index build [--corpus sample|archive | --dir DIR] [--index PATH] [--quiet]``
    Build the default pipeline's index over the reports (default: the archive). When standard
    error is a terminal, the reading of the PDFs and the embedding of new texts show progress
    bars there (``--quiet``: not); standard output gets the one line saying what was indexed.
``ddrsearch index add PDF... [--corpus ... | --dir DIR | --index PATH]``
    Add new reports (a new day's report) to that index.
``ddrsearch index status [...]``
    Say what the index holds (the stored passages and vectors checked against
    the header) and whether it is current.

Commands that write an index take its lock (:func:`ddrsearch.stores.generations.index_lock`):
a second writer waits, saying so, instead of replacing the first one's work.

"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ddrsearch import settings

__all__ = ["add_index_options", "add_index_parser", "current_index", "index_dir_of", "source_paths"]


def source_paths(args) -> tuple[list[Path], dict, str]:
    """The PDFs of the corpus or folder named by the parsed arguments (``--dir``, else ``--corpus`` and
    ``--archive``), the source record the index header keeps, and the ``ddrsearch index build`` command that
    rebuilds it. A folder's PDFs in subfolders are warned about, not read (:func:`ddrsearch.reading.pdf.folder_pdfs`)."""
    from ddrsearch.data.folders import corpus_paths
    from ddrsearch.reading.pdf import folder_pdfs

    if getattr(args, "dir", None) is not None:
        folder = Path(args.dir)
        paths = folder_pdfs(folder)  # warns about PDFs in subfolders, which are not indexed
        return paths, {"dir": str(folder.resolve())}, f"ddrsearch index build --dir {args.dir}"
    corpus = args.corpus or "archive"
    return corpus_paths(corpus, getattr(args, "archive", None)), {"corpus": corpus}, \
        f"ddrsearch index build --corpus {corpus}"


def index_dir_of(args) -> Path:
    """The index folder the parsed arguments name: ``--index``, else the default folder of their corpus or
    ``--dir`` (:func:`ddrsearch.stores.disk_index.default_index_dir`).

    Raises:
        SearchIndexError: the folder, or a folder above it, is a file (names the option or setting it came from).
    """
    from ddrsearch.errors import SearchIndexError
    from ddrsearch.stores.disk_index import default_index_dir

    if getattr(args, "index", None):
        folder, what = Path(args.index), "--index"
    else:
        folder = default_index_dir(args.corpus or "archive", getattr(args, "dir", None), getattr(args, "archive", None))
        what = "DDRSEARCH_INDEX_DIR" if settings.get_path("DDRSEARCH_INDEX_DIR") else "the index folder"
    for f in (folder, *folder.parents):
        if f.is_file():
            where = "" if f == folder else f", so the index cannot be written at {folder}"
            raise SearchIndexError(f"{what} {f} is a file, not a folder{where}. "
                                   "Give a folder (or a path that does not exist yet) instead.")
    return folder


def current_index(args, *, say=None):
    """The index to search with, or ``None`` (absent, stale or damaged: then today's way).

    A stale or damaged index is reported in one line (``say``, default
    standard error) with the command that rebuilds it
    (:func:`ddrsearch.stores.disk_index.check_index` decides).
    """
    from ddrsearch.errors import SearchIndexError
    from ddrsearch.stores.disk_index import check_index

    say = say or (lambda line: print(line, file=sys.stderr))
    try:
        folder = index_dir_of(args)
        paths, _, rebuild = source_paths(args)
    except SearchIndexError as exc:
        say(f"note: not using the index: {exc}")
        return None
    check = check_index(folder, paths)
    if check.error is not None:
        say(f"note: not using the index: {check.error}")
    elif check.reasons:
        reasons = check.reasons
        more = f" and {len(reasons) - 1} more difference(s)" if len(reasons) > 1 else ""
        say(f"note: the index {folder} is out of date ({reasons[0]}{more}); searching the PDFs without it. "
            f"Update it with: {rebuild}" + (f" --index {args.index}" if getattr(args, "index", None) else ""))
    return check.index


def _index_path(text: str) -> str:
    """``--index``'s value: refused when empty (it would silently mean the default folder)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty: give the index folder, or leave --index out for the "
                                         "default (.cache/index/<corpus>, or $DDRSEARCH_INDEX_DIR/<corpus>)")
    return text


def add_index_options(p: argparse.ArgumentParser, *, search: bool = False) -> None:
    """``--index PATH`` (and for search ``--no-index``); an empty PATH is refused with the command's usage."""
    p.add_argument("--index", metavar="PATH", default=None, type=_index_path,
                   help="index folder (default: .cache/index/<corpus> in the project, or $DDRSEARCH_INDEX_DIR/<corpus>)")
    if search:
        p.add_argument("--no-index", action="store_true",
                       help="do not use the index: read the PDFs and build the pipeline in memory, as without one")


def _cmd_build(args) -> int:
    import time

    from ddrsearch.stores.disk_index import build_index

    paths, source, _ = source_paths(args)
    folder = index_dir_of(args)
    t0 = time.perf_counter()
    # progress bars on standard error, for a person at a terminal (not in a log or a pipe); stdout keeps its one line
    gen = build_index(paths, folder, source=source, progress=not args.quiet and sys.stderr.isatty())
    # the question encoder a search uses (the ONNX export of the model): made now, while PyTorch is loaded,
    # so that the first search does not import it (a QueryEncoderWarning says so if it cannot be made)
    from ddrsearch.embedding.encoder import Embedder

    Embedder().query_encoder()
    print(f"Indexed {len(gen.header['reports'])} reports, {gen.header['n_passages']} passages in "
          f"{time.perf_counter() - t0:.1f} s into {folder} ({gen.size_bytes() / 1e6:.1f} MB).")
    return 0


def _cmd_add(args) -> int:
    from ddrsearch.stores.disk_index import add_reports

    folders = [p for p in args.pdfs if Path(p).is_dir()]
    if folders:
        print(f"ddrsearch index add: {', '.join(folders)} is a folder; give the new report PDFs themselves "
              f"(e.g. {Path(folders[0]) / '*.pdf'})", file=sys.stderr)
        return 1
    missing = [p for p in args.pdfs if not Path(p).is_file()]
    if missing:
        print(f"ddrsearch index add: no such file: {', '.join(missing)}", file=sys.stderr)
        return 1
    result = add_reports(args.pdfs, index_dir_of(args))
    print(f"{index_dir_of(args)}: {result.summary()}")
    return 0


def _cmd_status(args) -> int:
    from ddrsearch.embedding.model import resolve_model
    from ddrsearch.stores.disk_index import stale_reasons
    from ddrsearch.stores.generations import current_generation

    folder = index_dir_of(args)
    gen = current_generation(folder)
    if gen is None:
        print(f"No index at {folder}. Build one with: {source_paths(args)[2]}")
        return 1
    h = gen.header
    reports = h["reports"]
    print(f"index {folder} (generation {h['generation']}, written {h.get('written', '?')}, "
          f"ddrsearch {h['ddrsearch_version']})")
    first, last = (f(reports, key=lambda r: (r["report_date"], r["file_name"])) for f in (min, max))
    print(f"  {len(reports)} reports ({first['short']} {first['report_date']} to "
          f"{last['short']} {last['report_date']}), {h['n_passages']} passages, "
          f"{gen.size_bytes() / 1e6:.1f} MB on disk")
    print(f"  pipeline: {h['settings']['description']}")
    print(f"  model SHA-256: {h['model'].get('sha256') or h['model']['key']}")
    paths, _, rebuild = source_paths(args)
    problems = gen.problems()  # the stored passages and vectors, not just the header
    if problems:
        print("  DAMAGED: " + "; ".join(problems) + f".\n  Rebuild it with: {rebuild}"
              + (f" --index {args.index}" if getattr(args, "index", None) else ""))
        return 1
    reasons = stale_reasons(gen, corpus=paths, model_key=resolve_model().key)
    if reasons:
        print("  OUT OF DATE: " + "; ".join(reasons) + f".\n  Update it with: {rebuild} "
              "(or ddrsearch index add NEW.pdf for new reports)")
        return 1
    print("  current: every report, the model and the pipeline settings match.")
    return 0


def add_index_parser(sub) -> None:
    """Add ``ddrsearch index build|add|status`` to the sub-command parsers."""
    p = sub.add_parser("index", help="build, update and check the on-disk search index (fast searches)",
                       description="An index on disk holds the default pipeline's passages, BM25 index and "
                                   "vectors, so a search does not re-read the PDFs or re-embed anything.")
    isub = p.add_subparsers(dest="index_command", metavar="ACTION", required=True)
    for name, func, text in (
        ("build", _cmd_build, "build the index over a corpus (default: the archive) or a folder"),
        ("add", _cmd_add, "add new report PDFs (e.g. a new day's report); identical copies are refused"),
        ("status", _cmd_status, "what the index holds and whether it is current"),
    ):
        q = isub.add_parser(name, help=text, description=text[0].upper() + text[1:] + ".")
        if name == "add":
            q.add_argument("pdfs", nargs="+", metavar="PDF", help="report PDF file(s) to add")
        if name == "build":
            q.add_argument("--quiet", action="store_true",
                           help="no progress bars (they are shown on standard error when it is a terminal)")
        q.add_argument("--corpus", choices=["sample", "archive"], default=None,
                       help="the corpus whose index this is (default: archive)")
        q.add_argument("--dir", metavar="FOLDER", default=None, help="a folder of your own report PDFs instead")
        q.add_argument("--archive", metavar="DIR", default=None, help="folder of the report PDFs")
        add_index_options(q)
        q.set_defaults(func=func)

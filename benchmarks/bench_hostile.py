"""Time and peak memory of each hostile input of issue 26, next to the limit that refuses it.

Run it with ``python benchmarks/bench_hostile.py``. Each input is made in a
temporary folder and read in a fresh process (so its peak memory is its own):

* a 415-byte "billion laughs" question file (nested YAML aliases) -> ``load_questions``
  (limit: no anchors or aliases);
* a 5,000-page PDF made with PyMuPDF -> ``read_report`` (``DDRSEARCH_MAX_PAGES``);
* a one-page PDF whose content stream inflates to about 29 MB -> ``read_report``
  (``DDRSEARCH_MAX_PAGE_BYTES``, counted before any text is extracted), and one of
  1.9 MB, just under it, whose text is then over ``DDRSEARCH_MAX_PAGE_CHARS``
  (the most work a page can cost);
* a 50-page PDF (the page limit), each page with 1.9 MB of one-letter drawing
  instructions (under the byte and text limits): the most work a file can cost
  within the page limits -> ``read_report``, once under the default
  ``DDRSEARCH_MAX_READ_SECONDS`` (60 s) and once with it set to 2 s, to show
  where the time limit stops it (checked between PyMuPDF calls);
* a one-page PDF of a few KB whose page draws one form XObject of 20,000 words
  500 times (10 million words drawn from 157 KB of instructions) -> ``read_report``
  (``DDRSEARCH_MAX_PAGE_BYTES``, counting each form's bytes each time it is drawn);
* three PDFs of about 2 KB whose forms nest 7 deep (each drawing the next 10 times) under a stamp
  annotation's appearance, a soft mask, a Type3 glyph and a tiling pattern
  (:func:`ddrsearch.reading.synthetic.write_nested_forms`)
  -> ``read_report`` (the same limit: those streams are counted as the page's contents are);
* a 20 KB PDF whose page shows a Type3 glyph that shows a second Type3 font of 100 glyphs, each drawing a
  1.9 MB form (:func:`ddrsearch.reading.synthetic.write_type3_in_type3`): every stream is under the byte
  limit counted once, but loading the second font runs all 100 glyph procedures inside one PyMuPDF call,
  which the soft limits cannot stop -> ``read_report`` in this process (before), and ``read_each``, whose
  worker process is held to ``DDRSEARCH_MAX_READ_MB`` and ``DDRSEARCH_MAX_READ_SECONDS``
  (:mod:`ddrsearch.reading.isolation`; its peak memory is the worker's), at the defaults and at 2 s;
* a 5,000-word question -> the default pipeline's search over the ten-report sample
  (``DDRSEARCH_MAX_QUESTION_WORDS``; needs the sample PDFs and the embedding model).

It prints, per input, the wall time of the refused (or cut) operation, the
process's peak resident memory (``_timing.peak_rss_mb``: the interpreter, its
imports and, for the question, the sample's pipeline included),
what happened and the limit. Nothing here is a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

LAUGHS = "\n".join(
    [f'{c}: &{c} [{",".join([f"*{p}"] * 9)}]' for p, c in zip("abcdefg", "bcdefgh")]
    + ["name: laughs", "corpus: archive", "questions:", "  - id: Q1", "    question: *h", ""])
LAUGHS = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + LAUGHS


#: The nested-form cases: case -> where the nest is drawn from (:data:`ddrsearch.reading.synthetic.NEST_PLACES`).
NESTS = {"annotation": "annotation", "soft-mask": "soft mask", "type3": "type3 glyph", "tiling": "tiling pattern"}


def _make(case: str, tmp: Path) -> Path:
    import pymupdf

    if case == "laughs":
        path = tmp / "laughs.yaml"
        path.write_text(LAUGHS, encoding="utf-8")
    elif case == "pages":
        path = tmp / "pages.pdf"
        doc = pymupdf.open()
        for i in range(5000):
            doc.new_page().insert_text((50, 72), f"page {i + 1} DAILY DRILLING REPORT", fontsize=10)
        doc.save(path, garbage=3, deflate=True)
        doc.close()
    elif case in ("slow", "slow-2s"):
        path = tmp / f"{case}.pdf"
        doc = pymupdf.open()
        line = b"BT /helv 4 Tf 20 300 Td (x) Tj ET\n"
        for _ in range(50):
            page = doc.new_page()
            page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
            xref = page.get_contents()[0]
            doc.update_stream(xref, doc.xref_stream(xref) + line * int(1.9e6 / len(line)), compress=True)
        doc.save(path, garbage=4, deflate=True)
        doc.close()
    elif case in ("inflate", "inflate-2mb"):
        path = tmp / f"{case}.pdf"
        doc = pymupdf.open()
        page = doc.new_page()
        page.insert_text((50, 72), "DAILY DRILLING REPORT", fontsize=10)
        xref = page.get_contents()[0]
        line = b"BT /helv 4 Tf 20 300 Td (stuck pipe jar circulate condition mud lost circulation) Tj ET\n"
        size = 29e6 if case == "inflate" else 1.9e6  # the worst a page may hold under DDRSEARCH_MAX_PAGE_BYTES
        doc.update_stream(xref, doc.xref_stream(xref) + line * int(size / len(line)), compress=True)
        doc.save(path, garbage=4, deflate=True)
        doc.close()
    elif case == "form":
        path = tmp / "form.pdf"
        from ddrsearch.reading.synthetic import write_form_drawn

        write_form_drawn(path, words=20_000, times=500)
    elif case.startswith("type3-fan"):
        from ddrsearch.reading.synthetic import write_type3_in_type3

        path = write_type3_in_type3(tmp / "type3-fan.pdf", 100, 1_900_000)
    elif case in NESTS:
        from ddrsearch.reading.synthetic import write_nested_forms

        path = write_nested_forms(tmp / f"{case}.pdf", NESTS[case], depth=7)
    else:
        path = tmp / "question.txt"
        path.write_text(" ".join(["stuck", "pipe", "during", "the", "slide"] * 1000), encoding="utf-8")
    return path


def _run(case: str, path: Path) -> dict:
    """In the child: the operation on the input, timed; what happened."""
    from ddrsearch.errors import DDRSearchError

    setup, worker_mb = None, None
    if case == "question":
        import warnings

        from ddrsearch.data.folders import sample_paths
        from ddrsearch.reading.report import read_reports
        from ddrsearch.retrieval.pipeline import build_retriever

        retriever = build_retriever("hybrid", read_reports(sample_paths()))
        retriever.search("stuck pipe", 5)  # the model loaded and warm: only the long question is timed
        setup = retriever
    import pymupdf  # noqa: F401  (imported before the clock starts: only the refused work is timed)

    from ddrsearch.evaluation.questionfiles import load_questions
    from ddrsearch.reading.report import read_report

    t = time.perf_counter()
    try:
        if case == "laughs":
            from ddrsearch.evaluation.questionfiles import load_questions

            load_questions(path, check_evidence=False)
            outcome = "read (no limit!)"
        elif case.startswith("type3-fan-isolated"):
            from ddrsearch.reading.report import batch_reader

            with batch_reader() as reader:
                try:
                    reader.read(path)
                    outcome = "read (no limit!)"
                finally:
                    worker_mb = reader.peak_mb.get(path)
        elif case in ("pages", "inflate", "inflate-2mb", "slow", "slow-2s", "form", "type3-fan", *NESTS):
            from ddrsearch.reading.report import read_report

            read_report(path)
            outcome = "read (no limit!)"
        else:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                setup.search(path.read_text(encoding="utf-8"), 5)
            outcome = f"searched; {caught[0].message}" if caught else "searched whole (no limit!)"
    except DDRSearchError as exc:
        outcome = f"refused: {type(exc).__name__}: {' '.join(str(exc).split())[:120]}"
    from _timing import peak_rss_mb

    seconds = time.perf_counter() - t
    return {"seconds": seconds, "outcome": outcome, "peak_mb": worker_mb if worker_mb is not None else peak_rss_mb()}


LIMITS = {
    "laughs": "no YAML anchors/aliases; DDRSEARCH_MAX_QUESTION_FILE_BYTES=5,000,000",
    "pages": "DDRSEARCH_MAX_PAGES=50",
    "inflate": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000",
    "inflate-2mb": "DDRSEARCH_MAX_PAGE_CHARS=200,000 (after extraction)",
    "slow": "DDRSEARCH_MAX_READ_SECONDS=60 (default)",
    "slow-2s": "DDRSEARCH_MAX_READ_SECONDS=2",
    "form": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000 (bytes drawn)",
    "annotation": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000 (bytes drawn)",
    "soft-mask": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000 (bytes drawn)",
    "type3": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000 (bytes drawn)",
    "tiling": "DDRSEARCH_MAX_PAGE_BYTES=2,000,000 (bytes drawn)",
    "type3-fan": "DDRSEARCH_MAX_READ_SECONDS=60, checked between calls",
    "type3-fan-isolated": "DDRSEARCH_MAX_READ_MB=2000, DDRSEARCH_MAX_READ_SECONDS=60 (worker)",
    "type3-fan-isolated-2s": "DDRSEARCH_MAX_READ_SECONDS=2 (worker)",
    "question": "DDRSEARCH_MAX_QUESTION_WORDS=100",
}
NAMES = {"laughs": "billion-laughs YAML", "pages": "5,000-page PDF", "inflate": "inflating stream, 29 MB",
         "inflate-2mb": "inflating stream, 1.9 MB",
         "slow": "50 pages x 1.9 MB", "slow-2s": "50 pages x 1.9 MB, 2 s",
         "form": "form XObject drawn 500x", "annotation": "annotation, forms 10^6x",
         "soft-mask": "soft mask, forms 10^6x", "type3": "Type3 glyph, forms 10^6x",
         "tiling": "tiling pattern, forms 10^6x", "type3-fan": "Type3 in Type3, in-process",
         "type3-fan-isolated": "Type3 in Type3, worker", "type3-fan-isolated-2s": "Type3 in Type3, worker, 2 s",
         "question": "5,000-word question"}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--case", choices=list(LIMITS), help=argparse.SUPPRESS)
    parser.add_argument("--input", help=argparse.SUPPRESS)
    parser.add_argument("--only", choices=list(LIMITS), action="append", help="run only these inputs")
    args = parser.parse_args()
    if args.case:  # the child
        print(json.dumps(_run(args.case, Path(args.input))))
        return 0
    print(f"{'input':<26} {'file':>10} {'seconds':>8} {'peak MB':>8}  outcome  [limit]")
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.only or LIMITS:
            path = _make(case, Path(tmp))
            env = dict(os.environ, DDRSEARCH_MAX_READ_SECONDS="2") if case.endswith("-2s") else None
            proc = subprocess.run([sys.executable, __file__, "--case", case, "--input", str(path)],
                                  capture_output=True, text=True, timeout=1800, env=env)
            try:
                result = json.loads(proc.stdout.strip().splitlines()[-1])
            except (ValueError, IndexError):
                result = {"seconds": float("nan"), "peak_mb": float("nan"),
                          "outcome": f"failed (exit {proc.returncode}): {proc.stderr.strip()[-200:]}"}
            size = f"{path.stat().st_size:,}" if case != "question" else "5,000 w"
            print(f"{NAMES[case]:<26} {size:>10} {result['seconds']:>8.3f} {result['peak_mb']:>8.0f}  "
                  f"{result['outcome']}  [{LIMITS[case]}]")
    return 0


if __name__ == "__main__":
    sys.exit(main())

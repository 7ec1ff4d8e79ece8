"""Time the web app's searches: the page load (reading and indexing), the first search and the tenth.

Run it with ``python benchmarks/bench_app.py [--corpus sample|archive]``. It
drives the page with Streamlit's headless ``AppTest`` (what a browser would
get, minus the browser): one run that loads the page, then ten searches with
different questions, each a full rerun of the page (search, answer card, row
crops, "how this ranking was made"). It prints the wall time of each and
writes ``bench-results/app.json``. Nothing here is a pass/fail test; the
issue's target is a search within one second after the first.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

QUESTIONS = [
    "packers failed to set", "when did we last get stuck?", "mud losses", "TIH to bottom", "rig repair",
    "pipe became stuck during the slide", "cement job", "lost circulation", "survey every stand", "wait on weather",
]


def main() -> int:
    from streamlit.testing.v1 import AppTest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["sample", "archive"], default="sample")
    args = parser.parse_args()
    t = time.perf_counter()
    at = AppTest.from_string(f"from ddrsearch.app.page import main\nmain(corpus={args.corpus!r})\n", default_timeout=1800)
    at.run()
    load = time.perf_counter() - t
    times = []
    for q in QUESTIONS:
        at.text_input(key="question").input(q)
        t = time.perf_counter()
        at.button(key="search").click().run()
        times.append(time.perf_counter() - t)
        if at.exception:
            raise SystemExit(f"the page failed on {q!r}: {at.exception[0].value}")
    print(f"corpus {args.corpus}: page load (read and index) {load:.1f} s")
    for i, (q, s) in enumerate(zip(QUESTIONS, times), start=1):
        print(f"search {i:2d}: {s:6.3f} s  {q}")
    print(f"first search {times[0]:.3f} s, tenth {times[9]:.3f} s (target: under 1 s after the first)")
    out = ROOT / "bench-results" / "app.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"corpus": args.corpus, "load_s": load, "search_s": dict(zip(QUESTIONS, times))},
                              indent=2), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

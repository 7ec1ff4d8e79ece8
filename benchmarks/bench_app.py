"""Time the web app's searches: the page load (reading and indexing), the first search and the tenth.

Run it with ``python benchmarks/bench_app.py [--corpus sample|archive]``. It
drives the page with Streamlit's headless ``AppTest`` (what a browser would
get, minus the browser): one run that loads the page, then ten searches with
different questions, each a full rerun of the page (search, answer card, row
crops, "how this ranking was made"). It prints the wall time of each and
writes ``bench-results/app.json``. Nothing here is a pass/fail test.

Targets (issue 25), with a current index of the corpus (``ddrsearch index build --corpus
archive``): the first page within 8 s, and a search within 0.3 s (the median of the searches
after the first, which loads the model). Each figure is printed beside its target with the
load average of the minute it was measured in.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

from _timing import verdict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "code"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")

TARGETS = {"first_page_s": 8.0, "search_s": 0.3}
QUESTIONS = [
    "packers failed to set", "when did we last get stuck?", "mud losses", "TIH to bottom", "rig repair",
    "pipe became stuck during the slide", "cement job", "lost circulation", "survey every stand", "wait on weather",
]


def main() -> int:
    from streamlit.testing.v1 import AppTest

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=["sample", "archive"], default="sample")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
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
    load_average = os.getloadavg()
    after_first = statistics.median(times[1:])
    print(f"corpus {args.corpus}: first page {load:.1f} s   target <= {TARGETS['first_page_s']:.0f} s "
          f"{verdict(load, TARGETS['first_page_s'])} (with a current index; load {load_before:.1f})")
    for i, (q, s) in enumerate(zip(QUESTIONS, times), start=1):
        print(f"search {i:2d}: {s:6.3f} s  {q}")
    print(f"first search {times[0]:.3f} s; searches 2-10 median {after_first:.3f} s   target <= "
          f"{TARGETS['search_s']:.1f} s: {verdict(after_first, TARGETS['search_s'])} (load {load_average[0]:.1f} / {load_average[1]:.1f} / "
          f"{load_average[2]:.1f}, 1 / 5 / 15 min, on {os.cpu_count()} cores)")
    out = ROOT / "bench-results" / "app.json"
    out.parent.mkdir(exist_ok=True)
    out.write_text(json.dumps({"corpus": args.corpus, "load_s": load, "search_s": dict(zip(QUESTIONS, times)),
                               "search_median_after_first_s": after_first, "targets": TARGETS,
                               "load_average": load_average}, indent=2), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

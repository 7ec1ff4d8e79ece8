"""Benchmark the command line from a new process (issue 25): import, search with a current index, ask.

Run with ``make bench`` or ``python benchmarks/bench_cli.py``. It prints each figure beside its
target from issue 25, with the load average of the minute it was measured in, and writes
``bench-results/bench_cli.json``. Nothing here is pass/fail: the machine is shared, so read the
ratio (search over import, measured in the same minute) as much as the seconds.

Measured, each as the wall time of a new Python process (median of ``--runs``, default 5):

* ``import``: ``python -c "import ddrsearch"``;
* ``search``: ``ddrsearch search "stuck pipe" --corpus archive -k 3 --index DIR`` with a current
  index of the archive (built first into a temporary folder, or ``--index DIR``); the run must
  use the index (it says so) and print nothing on standard error;
* ``ratio``: search over import, in the same minute (target at most 4x). ``import ddrsearch``
  loads its sub-packages lazily, so it costs little more than starting Python; the ratio of the
  target is then printed with, beside it, the same ratio over the import of the libraries a
  search cannot do without (``numpy``, ``onnxruntime``, ``tokenizers``), a load-normaliser of
  the size the target had in mind;
* ``search, question by PyTorch``: the same search with ``DDRSEARCH_QUERY_ENCODER=torch`` (the
  question embedded by sentence-transformers, as before issue 25), for comparison;
* ``ask``: ``ddrsearch ask "when did we last get stuck?" --corpus archive`` (median of
  ``--ask-runs``, default 3), with ``--index DIR`` when ``ask`` takes that option;
* ``search via ddrsearch serve``: a server of the same index is started
  (``ddrsearch serve --corpus archive --index DIR``), and ``--runs`` searches, each with
  another question (so that no answer comes from a cache of the server's), alternate with as
  many ``python -c "import ddrsearch"``, so that both are measured in the same minute; each
  search must have been answered by the server (its count of requests says so). Their ratio
  is the one of the 4x target. Then ``ask`` through the same server, once per question of
  ``ASK_QUESTIONS``. The figures above are measured with ``DDRSEARCH_SERVER=0``
  (every search in its own process), as before the server.

Targets (issue 25): search <= 1.0 s at load below 1 and <= 4x the import; ask <= 1.5 s.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import verdict

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TQDM_DISABLE", "1")
os.environ["DDRSEARCH_SERVER"] = "0"  # every figure but the server's: the search in its own process

TARGETS = {"search_s": 1.0, "search_over_import": 4.0, "ask_s": 1.5}
#: One question per search through the server (none asked twice: the server keeps per-question caches).
SERVER_QUESTIONS = ("stuck pipe", "lost circulation", "mud motor failure", "casing run", "cement job",
                    "tripping out of hole", "bit change", "rig repair", "directional survey", "reaming tight hole",
                    "wiper trip", "BOP test", "pump pressure spike", "drilling break", "fishing the BHA")
#: Questions for ``ask`` through the server (each once).
ASK_QUESTIONS = ("when did we last get stuck?", "when did we lose circulation?", "which day did we pass 8,000 ft?")
LIBRARIES = "import numpy, onnxruntime, tokenizers"
SEARCH = ["search", "stuck pipe", "--corpus", "archive", "-k", "3"]
ASK = ["ask", "when did we last get stuck?", "--corpus", "archive"]
COMMAND = [sys.executable, "-m", "ddrsearch.cli.command"]


def _load() -> float:
    """The one-minute load average now."""
    return os.getloadavg()[0]


def _timed(argv: list[str], runs: int, check=None, env=None) -> dict:
    """Median wall time of ``runs`` new processes running ``argv``, with the load average before and after."""
    before = _load()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        proc = subprocess.run(argv, capture_output=True, text=True, env=env)
        times.append(time.perf_counter() - t)
        if proc.returncode:
            raise RuntimeError(f"{' '.join(argv)} exited with {proc.returncode}: {proc.stderr[-500:]}")
        if check is not None:
            check(proc)
    return {"median_s": statistics.median(times), "runs_s": times, "load_before": before, "load_after": _load()}


def _used_index(proc) -> None:
    if "index" not in proc.stdout.splitlines()[-1] or proc.stderr.strip():
        raise RuntimeError(f"the search did not use a current index: {proc.stdout[-300:]!r} {proc.stderr[-300:]!r}")


def _takes_index(command: str) -> bool:
    """Whether ``ddrsearch <command>`` has an ``--index`` option."""
    help_text = subprocess.run([*COMMAND, command, "--help"], capture_output=True, text=True).stdout
    return "--index" in help_text


def _serve_and_time(index: str, runs: int) -> dict:
    """Start ``ddrsearch serve`` on ``index``; alternate ``runs`` imports and searches through it; stop it."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "code"))
    from ddrsearch.resident import call
    from ddrsearch.stores.locations import socket_path

    if runs > len(SERVER_QUESTIONS):
        raise ValueError(f"--runs {runs}: at most {len(SERVER_QUESTIONS)} distinct questions for the server")
    sock = socket_path(index)
    server = subprocess.Popen([*COMMAND, "serve", "--corpus", "archive", "--index", index, "--idle-minutes", "10"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        t = time.perf_counter()
        while not (call(sock, {"command": "ping"}, timeout=5) or {}).get("pong"):
            if server.poll() is not None or time.perf_counter() - t > 300:
                raise RuntimeError(f"ddrsearch serve did not start: {server.stderr.read()[-500:] if server.stderr else ''}")
            time.sleep(0.2)
        start_s = time.perf_counter() - t
        before, imports, searches = _load(), [], []
        for question in SERVER_QUESTIONS[:runs]:
            t = time.perf_counter()
            subprocess.run([sys.executable, "-c", "import ddrsearch"], check=True)
            imports.append(time.perf_counter() - t)
            count = call(sock, {"command": "ping"})["requests"]
            t = time.perf_counter()
            proc = subprocess.run([*COMMAND, "search", question, "--corpus", "archive", "-k", "3", "--index", index],
                                  capture_output=True, text=True)
            searches.append(time.perf_counter() - t)
            if proc.returncode or call(sock, {"command": "ping"})["requests"] != count + 1:
                raise RuntimeError(f"the search of {question!r} was not answered by the server: {proc.stderr[-300:]}")
        after = _load()
        asks = []
        for question in ASK_QUESTIONS:
            count = call(sock, {"command": "ping"})["requests"]
            t = time.perf_counter()
            proc = subprocess.run([*COMMAND, "ask", question, "--corpus", "archive", "--index", index],
                                  capture_output=True, text=True)
            asks.append(time.perf_counter() - t)
            if proc.returncode or call(sock, {"command": "ping"})["requests"] != count + 1:
                raise RuntimeError(f"ask {question!r} was not answered by the server: {proc.stderr[-300:]}")
        ask_after = _load()
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=60)
    imp = {"median_s": statistics.median(imports), "runs_s": imports, "load_before": before, "load_after": after}
    via = {"median_s": statistics.median(searches), "runs_s": searches, "load_before": before, "load_after": after,
           "questions": list(SERVER_QUESTIONS[:runs]), "server_start_s": start_s}
    ask = {"median_s": statistics.median(asks), "runs_s": asks, "load_before": after, "load_after": ask_after,
           "questions": list(ASK_QUESTIONS)}
    return {"import": imp, "search": via, "search_over_import": via["median_s"] / imp["median_s"], "ask": ask}


def _load_note(entry: dict) -> str:
    return f"load {entry['load_before']:.1f}->{entry['load_after']:.1f}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--index", default=None, help="a current archive index to use (default: build one in a "
                                                       "temporary folder first)")
    parser.add_argument("--runs", type=int, default=5, help="new processes per import and search figure (default 5)")
    parser.add_argument("--ask-runs", type=int, default=3, help="new processes for the ask figure (default 3)")
    parser.add_argument("--out", default="bench-results/bench_cli.json", help="JSON output file")
    args = parser.parse_args(argv)
    result = {"targets": TARGETS, "cpus": os.cpu_count(),
              "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with tempfile.TemporaryDirectory() as tmp:
        index = args.index
        if index is None:
            index = str(Path(tmp) / "archive")
            print(f"Building the archive index in {index} ...", flush=True)
            t = time.perf_counter()
            subprocess.run([*COMMAND, "index", "build", "--corpus", "archive", "--index", index], check=True,
                           capture_output=True, text=True)
            result["index_build_s"] = time.perf_counter() - t
        subprocess.run([*COMMAND, *SEARCH, "--index", index], check=True, capture_output=True)  # warm the disk cache
        print("import ddrsearch, then search, from new processes ...", flush=True)
        imp = result["import"] = _timed([sys.executable, "-c", "import ddrsearch"], args.runs)
        search = result["search"] = _timed([*COMMAND, *SEARCH, "--index", index], args.runs, _used_index)
        result["search_over_import"] = search["median_s"] / imp["median_s"]
        libs = result["import_libraries"] = _timed([sys.executable, "-c", LIBRARIES], args.runs)
        result["search_over_libraries"] = search["median_s"] / libs["median_s"]
        torch_env = {**os.environ, "DDRSEARCH_QUERY_ENCODER": "torch"}
        torch = result["search_torch"] = _timed([*COMMAND, *SEARCH, "--index", index], args.runs, _used_index,
                                                env=torch_env)
        ask_argv = [*COMMAND, *ASK, *(["--index", index] if _takes_index("ask") else [])]
        result["ask_uses_index"] = "--index" in ask_argv
        print("ask, from new processes ...", flush=True)
        ask = result["ask"] = _timed(ask_argv, args.ask_runs)
        print("ddrsearch serve, then search through it beside import ddrsearch ...", flush=True)
        os.environ.pop("DDRSEARCH_SERVER")
        served = result["served"] = _serve_and_time(index, args.runs)
        os.environ["DDRSEARCH_SERVER"] = "0"

    print(f"\nFrom a new process, on {os.cpu_count()} cores ({result['date']}; "
          "figures on a busy machine are upper bounds):")
    print(f"  python -c 'import ddrsearch'      {imp['median_s']:6.2f} s (median of {args.runs})   "
          f"{_load_note(imp)}")
    print(f"  ddrsearch search, own process     {search['median_s']:6.2f} s (median of {args.runs})   "
          f"target <= {TARGETS['search_s']:.1f} s at load below 1: {verdict(search['median_s'], TARGETS['search_s'])}   "
          f"{_load_note(search)}")
    print(f"  search / import                   {result['search_over_import']:6.1f} x                "
          f"target <= {TARGETS['search_over_import']:.0f} x: "
          f"{verdict(result['search_over_import'], TARGETS['search_over_import'])}   {_load_note(search)}")
    print(f"  python -c '{LIBRARIES}'  {libs['median_s']:.2f} s: search / that {result['search_over_libraries']:.1f} x"
          f" (no target: the libraries a search needs, for scale)   {_load_note(libs)}")
    print(f"  the same, question by PyTorch     {torch['median_s']:6.2f} s (median of {args.runs})   "
          f"DDRSEARCH_QUERY_ENCODER=torch, the way before issue 25   {_load_note(torch)}")
    how = "with --index" if result["ask_uses_index"] else "ask has no --index: it reads the PDFs"
    print(f"  ddrsearch ask                     {ask['median_s']:6.2f} s (median of {args.ask_runs})   "
          f"target <= {TARGETS['ask_s']:.1f} s: {verdict(ask['median_s'], TARGETS['ask_s'])}   {_load_note(ask)}   ({how})")
    si, ss = served["import"], served["search"]
    print(f"  with ddrsearch serve running ({ss['server_start_s']:.1f} s to start), in the same minute:")
    print(f"    python -c 'import ddrsearch'    {si['median_s']:6.2f} s (median of {args.runs})   {_load_note(si)}")
    print(f"    ddrsearch search via the server {ss['median_s']:6.2f} s (median of {args.runs}, each another question)"
          f"   target <= {TARGETS['search_s']:.1f} s: {verdict(ss['median_s'], TARGETS['search_s'])}   {_load_note(ss)}")
    print(f"    search via the server / import  {served['search_over_import']:6.1f} x                "
          f"target <= {TARGETS['search_over_import']:.0f} x: "
          f"{verdict(served['search_over_import'], TARGETS['search_over_import'])}   {_load_note(ss)}")
    sa = served["ask"]
    print(f"    ddrsearch ask via the server    {sa['median_s']:6.2f} s (median of {len(sa['runs_s'])}, each another "
          f"question)   target <= {TARGETS['ask_s']:.1f} s: {verdict(sa['median_s'], TARGETS['ask_s'])}   {_load_note(sa)}")
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))
    print(f"Wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

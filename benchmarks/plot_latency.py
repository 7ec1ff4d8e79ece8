"""Draw figures/latency-vs-scale.png from the JSON the benchmarks wrote (issue 25).

Run by ``make bench`` after ``bench_retrievers.py`` and ``bench_postgres.py``, or with
``python benchmarks/plot_latency.py``. Reads:

* ``bench-results/bench.json`` (``bench_retrievers.py``): the in-memory default pipeline
  (method ``hybrid``) at each scale, query median (p50) and 95th percentile;
* ``bench-results/bench_postgres.json`` (``bench_postgres.py``): the PostgreSQL hybrid with
  exact dense search and with HNSW at each scale, p50 and p95;

and draws latency (ms) against passages, both axes logarithmic, with the machine's load
average (as each JSON recorded it) printed in the figure. A missing file or scale is left
out of the figure and named on standard output; nothing is made up.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from pathlib import Path


def _read(path: Path) -> dict | None:
    if not path.is_file():
        print(f"{path} not found: its series are left out (run its benchmark first)")
        return None
    return json.loads(path.read_text(encoding="utf-8"))


def _load_text(data: dict | None, name: str) -> str:
    if data is None:
        return f"{name} not found"
    load = data.get("load_average")
    if load is None:
        return f"{name}: load not recorded"
    return f"{name} {float(load[0]):.1f} / {float(load[1]):.1f} / {float(load[2]):.1f}"


def _merge(runs: list[dict | None]) -> dict | None:
    """One bench_postgres result from several runs: rows by scale (later runs win), the highest load."""
    runs = [r for r in runs if r is not None]
    if not runs:
        return None
    rows: dict[int, dict] = {}
    memory: dict[int, dict] = {}
    for run in runs:
        rows.update({r["scale"]: r for r in run.get("pg", [])})
        memory.update({r["scale"]: r for r in run.get("in_memory", [])})
    loads = [run["load_average"] for run in runs if run.get("load_average")]
    return {"pg": [rows[k] for k in sorted(rows)], "in_memory": [memory[k] for k in sorted(memory)],
            "cpus": runs[0].get("cpus"), "load_average": max(loads, key=lambda x: x[0]) if loads else None}


def series(memory: dict | None, postgres: dict | None) -> dict[str, list[tuple[int, float, float, int]]]:
    """``{label: [(passages, p50 ms, p95 ms, scale), ...]}`` of each backend, by passages."""
    out: dict[str, list[tuple[int, float, float, int]]] = {}
    rows = [r for r in (memory or {}).get("retrievers", []) if r.get("method") == "hybrid"]
    if not rows and postgres is not None:  # bench_postgres.py measures the in-memory hybrid beside it too
        rows = postgres.get("in_memory", [])
    if rows:
        out["in memory (default hybrid)"] = sorted(
            (r["passages"], r["query_median_ms"], r["query_p95_ms"], r["scale"]) for r in rows)
    if postgres is not None:
        for key, label in (("hybrid_exact", "PostgreSQL hybrid, exact"), ("hybrid_hnsw", "PostgreSQL hybrid, HNSW")):
            out[label] = sorted((r["passages"], r[f"{key}_median_ms"], r[f"{key}_p95_ms"], r["scale"])
                                for r in postgres.get("pg", []) if f"{key}_p95_ms" in r)
    return {k: v for k, v in out.items() if v}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", default="bench-results/bench.json", help="bench_retrievers.py's JSON")
    parser.add_argument("--postgres", default="bench-results/bench_postgres.json",
                        help="bench_postgres.py's JSON; several, comma-separated, when scales were run apart "
                             "(a scale in two files: the last file's row)")
    parser.add_argument("--out", default="figures/latency-vs-scale.png", help="the PNG to write")
    args = parser.parse_args(argv)
    memory = _read(Path(args.memory))
    postgres = _merge([_read(Path(p)) for p in args.postgres.split(",") if p.strip()])
    lines = series(memory, postgres)
    if not lines:
        print("No benchmark results to draw: run bench_retrievers.py and bench_postgres.py first.")
        return 1

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 4.8), dpi=120)
    colours = {"in memory (default hybrid)": "tab:blue", "PostgreSQL hybrid, exact": "tab:orange",
               "PostgreSQL hybrid, HNSW": "tab:green"}
    for label, rows in lines.items():
        x = [r[0] for r in rows]
        colour = colours.get(label)
        ax.plot(x, [r[1] for r in rows], "o-", color=colour, label=f"{label}, p50")
        ax.plot(x, [r[2] for r in rows], "s--", color=colour, label=f"{label}, p95")
        for passages, _, p95, scale in rows:
            ax.annotate(f"{scale}x", (passages, p95), textcoords="offset points", xytext=(4, 4), fontsize=7,
                        color=colour)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.axhline(50, color="grey", lw=0.8, ls=":")
    ax.text(ax.get_xlim()[0], 50, " 50 ms: in-memory p95 target at 100x", fontsize=7, va="bottom", color="grey")
    ax.axhline(100, color="grey", lw=0.8, ls=":")
    ax.text(ax.get_xlim()[0], 100, " 100 ms: PostgreSQL HNSW p95 target at 100x", fontsize=7, va="bottom",
            color="grey")
    ax.set_xlabel("passages (operation-row chunks; 771 = the archive, 1x)")
    ax.set_ylabel("query latency (ms), k = 10")
    ax.set_title("Search latency against archive size", fontsize=11)
    ax.grid(True, which="both", lw=0.3, alpha=0.5)
    ax.legend(fontsize=7, loc="upper left")  # the lower right holds the 1000x points
    cpus = ((memory or {}).get("machine") or {}).get("cpus") or (postgres or {}).get("cpus")
    pg_names = "+".join(Path(p).name for p in args.postgres.split(",") if p.strip())
    note = "; ".join([_load_text(memory, Path(args.memory).name), _load_text(postgres, pg_names)])
    # wrapped to the figure's width (about 140 characters of 7-point text at 7.5 in), so no file name is cut off
    footer = textwrap.wrap(f"Machine: {cpus or '?'} cores, shared. Load average at the end of each run "
                           f"(1 / 5 / 15 min): {note}", width=140)
    fig.text(0.01, 0.01, "\n".join(footer), fontsize=7, color="dimgrey", va="bottom")
    fig.tight_layout(rect=(0, 0.02 + 0.025 * len(footer), 1, 1))
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, bbox_inches="tight", pad_inches=0.1)  # tight: nothing drawn outside the canvas is lost
    print(f"Wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

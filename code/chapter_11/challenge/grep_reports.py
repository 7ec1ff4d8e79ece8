"""Search the text of all 76 reports for words, to check your judgements.

    python code/chapter_11/challenge/grep_reports.py "stuck|free|jarr(ed|ing)|over ?pull|tight|work pipe"

Each argument is a regular expression, matched case-insensitively against
every line of every report's page text (the text the evidence quotations are
checked against). Prints each matching line with its report number, so that
you can open the report and read the hit in context before judging it.
Lines printed in every report (table headings such as ``SURVEY DATA``, the
BHA table's ``HRS. ON JARS:`` label, which a bare ``jar`` matches in 75
reports) match too: ignore them, they are never evidence.
"""

from __future__ import annotations

import argparse
import os
import re
import sys

os.environ.setdefault("TQDM_DISABLE", "1")

from ddrsearch.data.folders import archive_dir
from ddrsearch.reading.report import load_archive


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="grep_reports.py", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("pattern", nargs="+",
                        help='regular expression, matched case-insensitively, e.g. "stuck|tight"')
    args = parser.parse_args(argv)
    patterns = args.pattern
    for pattern in patterns:
        try:
            re.compile(pattern)
        except re.error as exc:
            parser.error(f"{pattern!r} is not a regular expression: {exc}")
    reports = load_archive(archive_dir())
    for pattern in patterns:
        rx = re.compile(pattern, re.IGNORECASE)
        hits = 0
        print(f"### {pattern}")
        for r in reports:
            label = f"{r.report_number:>3}" if r.phase == "Drilling" else f"C{r.report_number:<2}"
            for line in r.text.splitlines():
                if rx.search(line):
                    hits += 1
                    print(f"  {label} | {' '.join(line.split())}")
        reports_hit = len({r.file_name for r in reports if rx.search(r.text)})
        print(f"    {hits} line(s) in {reports_hit} report(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

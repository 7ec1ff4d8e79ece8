"""The data commands: ``ddrsearch fetch``, ``verify``, ``manifest`` and ``env``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ddrsearch.errors import DDRSearchError

__all__ = ["add_env_parser", "add_fetch_parser", "add_verify_manifest_parsers"]


def _cmd_fetch(args: argparse.Namespace) -> int:
    from ddrsearch.data.fetch import fetch_archive
    from ddrsearch.data.manifest import load_manifest

    only = [e.file_name for e in load_manifest() if e.in_sample] if args.sample_only else None
    report = fetch_archive(
        args.dest, mirror=args.mirror, base_url=args.base_url, only=only,
        replace_changed=args.replace_changed, progress=not args.quiet and sys.stderr.isatty(),
    )
    print(report.summary())
    return 0


def _cmd_verify(args: argparse.Namespace) -> int:
    from ddrsearch.data.fetch import verify_archive

    report = verify_archive(args.dest)
    print(report.summary())
    if not report.ok:
        print("Fix with: ddrsearch fetch" + ("  (add --replace-changed to move changed files aside)" if report.changed else ""))
        return 1
    return 0


def _cmd_manifest(args: argparse.Namespace) -> int:
    from ddrsearch.reading.folder_manifest import write_manifest

    if Path(args.out).is_dir():
        print(f"ddrsearch manifest: --out {args.out} is a folder; give a CSV file name", file=sys.stderr)
        return 1
    entries = write_manifest(args.folder, args.out, ocr=args.ocr)
    by_hash: dict[str, list[str]] = {}
    for e in entries:
        by_hash.setdefault(e.sha256, []).append(e.file_name)
    for names in by_hash.values():
        if len(names) > 1:
            print(f"warning: {' and '.join(names)} are identical files (same SHA-256): the same report saved "
                  "twice. Remove all but one, or searches will count it twice.", file=sys.stderr)
    print(f"Wrote {args.out}: {len(entries)} reports from {args.folder}. Use it with:\n"
          f"  export DDRSEARCH_MANIFEST={Path(args.out).resolve()} DDRSEARCH_ARCHIVE_DIR={Path(args.folder).resolve()}")
    return 0


def _cmd_env(args: argparse.Namespace) -> int:
    from ddrsearch import settings
    from ddrsearch.data.folders import archive_dir
    from ddrsearch.data.manifest import manifest_path
    from ddrsearch.embedding.encoder import default_cache_dir
    from ddrsearch.stores.disk_index import default_index_dir

    # the folder or file each path setting resolves to now, set or not (Appendix A: "the values in effect")
    in_effect = {"DDRSEARCH_ARCHIVE_DIR": archive_dir, "DDRSEARCH_MANIFEST": manifest_path,
                 "DDRSEARCH_CACHE_DIR": default_cache_dir, "DDRSEARCH_INDEX_DIR": lambda: default_index_dir(folder=".").parent}
    rows = settings.describe()
    for row in rows:
        print(f"{row['name']}={row['value']}" if row["value"] else f"{row['name']} (unset)")
        print(f"    {row['meaning']}")
        print(f"    default: {row['default']}")
        if row["name"] in in_effect:
            try:
                path = in_effect[row["name"]]()
            except (DDRSearchError, OSError, RuntimeError, ValueError) as exc:  # e.g. ~nosuchuser/x
                print(f"    in effect: cannot be resolved: {exc}")
                continue
            print(f"    in effect: {path}" + ("" if path.exists() else " (does not exist yet)"))
    root = settings.project_root()
    print(f"\nproject checkout: {root if root else 'none (installed package)'}")
    return 0


def add_fetch_parser(sub) -> None:
    """Add ``ddrsearch fetch``."""
    p = sub.add_parser(
        "fetch",
        help="fetch the report PDFs and verify their SHA-256",
        description=(
            "Fetch the 76 FORGE 16A(78)-32 report PDFs listed in the manifest into the archive folder, "
            "verifying every SHA-256. Files already present and verified are left alone; a local file with the "
            "wrong hash, or a PDF the manifest does not list, is reported by name and kept."
        ),
    )
    p.add_argument("--mirror", metavar="DIR", default=None,
                   help="copy from this local folder of the same files instead of downloading "
                        "(default: $DDRSEARCH_MIRROR if set; CI uses ../shared/datasets/forge_archive)")
    p.add_argument("--dest", metavar="DIR", default=None,
                   help="where to put the PDFs (default: $DDRSEARCH_ARCHIVE_DIR or datasets/forge_archive)")
    p.add_argument("--base-url", default=None, help="download address prefix (default: the public repository at a pinned commit)")
    p.add_argument("--sample-only", action="store_true", help="fetch only the ten-report sample")
    p.add_argument("--replace-changed", action="store_true",
                   help="move a local file whose hash differs to <name>.changed and fetch a fresh copy")
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar (none is drawn either when standard error is not a terminal)")
    p.set_defaults(func=_cmd_fetch)


def add_verify_manifest_parsers(sub) -> None:
    """Add ``ddrsearch verify`` and ``ddrsearch manifest``."""
    p = sub.add_parser("verify", help="check the archive folder against the manifest",
                       description="Check every report PDF's SHA-256 against the manifest; fetch nothing.")
    p.add_argument("--dest", metavar="DIR", default=None, help="archive folder (default: datasets/forge_archive)")
    p.set_defaults(func=_cmd_verify)

    p = sub.add_parser("manifest", help="write a manifest for a folder of your own report PDFs",
                       description="Read every PDF in FOLDER and write a manifest CSV (file name, SHA-256, bytes, "
                                   "phase, report number, date). Point DDRSEARCH_MANIFEST at it and "
                                   "DDRSEARCH_ARCHIVE_DIR at the folder to search and evaluate your own reports.")
    p.add_argument("folder", help="folder of report PDFs")
    p.add_argument("--out", default="my_manifest.csv", help="CSV file to write (default my_manifest.csv)")
    p.add_argument("--ocr", choices=("auto", "rapidocr", "tesseract"), default=None,
                   help="OCR pages without a text layer (scanned reports) to read their number and date")
    p.set_defaults(func=_cmd_manifest)


def add_env_parser(sub) -> None:
    """Add ``ddrsearch env``."""
    p = sub.add_parser("env", help="list the DDRSEARCH_* environment variables, their values and defaults",
                       description="Print every environment variable ddrsearch reads, its current value, its "
                                   "default and what it sets.")
    p.set_defaults(func=_cmd_env)

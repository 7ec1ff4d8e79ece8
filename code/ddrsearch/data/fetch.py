"""Fetch the 76 report PDFs into the archive folder and verify every SHA-256.

Two sources, tried in this order:

1. a local mirror folder (argument ``mirror=``, command-line ``--mirror``, or
   the environment variable ``DDRSEARCH_MIRROR``), for machines with no
   internet such as CI (which uses ``../shared/datasets/forge_archive``);
2. the public download address (:data:`BASE_URL`; the files of the public
   repository ``djimrastephane/ddr-rag-book`` at a pinned commit).

Each file is written under a temporary name (``<name>.partial``) in the
target folder, its SHA-256 checked against the manifest, and only then
renamed to its real name, so a half-written or altered file never carries a
report's name. Fetching is idempotent: a file already present with the right
hash is left alone. Nothing of the user's is deleted: a local file whose hash
differs from the manifest is reported as *changed* and kept (pass
``replace_changed=True`` to move it aside to ``<name>.changed`` and fetch a
fresh copy), and a PDF the manifest does not list is reported as
*unexpected* and kept.

:func:`ddrsearch.reading.folder_manifest.write_manifest` writes the same kind of
manifest for a folder of your own reports (it reads the PDFs, so it belongs to
the reading wing).
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from tqdm.auto import tqdm

from ddrsearch import settings
from ddrsearch.data.folders import archive_dir
from ddrsearch.data.manifest import ManifestEntry, load_manifest
from ddrsearch.errors import FetchError
from ddrsearch.hashing import sha256_file

#: Public address of the report files; a file's URL is ``BASE_URL + file name``.
BASE_URL = (
    "https://raw.githubusercontent.com/djimrastephane/ddr-rag-book/"
    "8bb72682ea56778e9624e0c4822a3c95f1e4cd9b/book/datasets/forge_archive/"
)

_CHUNK = 1 << 20


def list_pdfs(folder: Path) -> list[Path]:
    """The PDF files in ``folder`` (``.pdf`` in any case: ``.PDF`` too), sorted by name."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() == ".pdf" and not p.is_dir())


def _aside_name(target: Path) -> Path:
    """``<name>.changed``, or ``<name>.changed-2``, ``-3``, ... so an earlier copy is never overwritten."""
    candidate = target.with_name(target.name + ".changed")
    n = 2
    while candidate.exists():
        candidate = target.with_name(f"{target.name}.changed-{n}")
        n += 1
    return candidate


def sha256_of(path: str | os.PathLike) -> str:
    """Return the lowercase hex SHA-256 of a file's bytes (read in 1 MiB chunks)."""
    return sha256_file(path)


@dataclass
class FetchReport:
    """What one fetch did, by file name.

    Attributes:
        fetched: files copied or downloaded and verified this time.
        present: files that were already there with the right SHA-256.
        failed: file name -> reason, for files still missing or unverified.
        changed: local files whose SHA-256 differs from the manifest (kept).
        moved_aside: changed file name -> the name it was moved to
            (``<name>.changed``, or ``<name>.changed-2`` if that exists), with
            ``replace_changed=True``.
        unexpected: PDFs in the folder that the manifest does not list (kept).
        source: where the fetched files came from, ``"mirror <folder>"`` or
            ``"<base URL>"`` (``""`` when nothing was to be fetched from anywhere).
    """

    folder: Path
    fetched: list[str] = field(default_factory=list)
    present: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    changed: list[str] = field(default_factory=list)
    moved_aside: dict[str, str] = field(default_factory=dict)
    unexpected: list[str] = field(default_factory=list)
    source: str = ""

    @property
    def ok(self) -> bool:
        """True when every manifest file is present and verified."""
        return not self.failed and not self.changed

    def summary(self) -> str:
        """Return a few human-readable lines describing the outcome."""
        lines = [
            f"{_printable(str(self.folder))}: {len(self.present)} already present, {len(self.fetched)} fetched, "
            f"{len(self.failed)} failed, {len(self.changed)} changed locally, {len(self.unexpected)} unexpected."
            + (f" Fetched from {self.source}." if self.source and self.fetched
               else f" Tried {self.source}." if self.source and self.failed else "")
        ]
        groups: dict[str, list[str]] = {}  # the same failure for many files (no network) is said once
        for name, why in sorted(self.failed.items()):
            groups.setdefault(why.replace(name, "<file>"), []).append(name)
        for why, names in groups.items():
            if len(names) <= 3:
                lines.extend(f"  FAILED     {name}: {why.replace('<file>', name)}" for name in names)
                continue
            prefix = os.path.commonprefix(names)  # noqa: RUF071 (file names: the characters they share)
            lines.append(f"  FAILED     {len(names)} files, each: {why}")
            lines.extend(textwrap.wrap(f"{prefix}... : " + ", ".join(n[len(prefix):] for n in names), width=110,
                                       initial_indent=" " * 13, subsequent_indent=" " * 13, break_on_hyphens=False))
        for name in self.changed:
            lines.append(
                f"  CHANGED    {name}: its SHA-256 differs from the manifest; kept as it is. "
                "Move it away (or run with --replace-changed) and fetch again."
            )
        for name, aside in self.moved_aside.items():
            fresh = "a fresh copy was fetched" if name in self.fetched else "NO fresh copy: see FAILED above"
            lines.append(f"  MOVED      {name} -> {aside} ({fresh})")
        for name in self.unexpected:
            lines.append(f"  UNEXPECTED {name}: not in the manifest; left alone and not used.")
        return "\n".join(lines)


def _printable(text: str) -> str:
    """``text`` with every character that is not printable (line breaks, escapes, bidi controls) shown as ``?``."""
    return "".join(ch if ch.isprintable() else "?" for ch in text)


def _copy_from_mirror(entry: ManifestEntry, mirror: Path, tmp: Path) -> None:
    src = mirror / entry.file_name
    if not src.is_file():
        raise FileNotFoundError(f"not in the mirror folder {mirror}")
    shutil.copyfile(src, tmp)


def _download(entry: ManifestEntry, base_url: str, tmp: Path, timeout: float) -> None:
    url = base_url + entry.file_name
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp, open(tmp, "wb") as out:
            shutil.copyfileobj(resp, out, _CHUNK)
    except (urllib.error.URLError, OSError) as exc:
        raise OSError(f"download from {url} failed ({exc})") from exc


def fetch_archive(
    folder: str | os.PathLike | None = None,
    *,
    mirror: str | os.PathLike | None = None,
    base_url: str | None = None,
    only: list[str] | None = None,
    replace_changed: bool = False,
    progress: bool = True,
    timeout: float = 60.0,
) -> FetchReport:
    """Fetch and verify the report PDFs listed in the manifest.

    Args:
        folder: target folder; default :func:`ddrsearch.data.folders.archive_dir`.
        mirror: local folder holding the same files; default the
            ``DDRSEARCH_MIRROR`` environment variable. When no mirror is
            given, files are downloaded from ``base_url``.
        base_url: download address prefix; default :data:`BASE_URL`.
        only: fetch just these file names (e.g. the sample); default all.
        replace_changed: move a local file with the wrong hash to
            ``<name>.changed`` and fetch a fresh copy, instead of keeping it
            and reporting it.
        progress: show a tqdm progress bar on standard error.
        timeout: seconds to wait for each download.

    Returns:
        A :class:`FetchReport`. Every file is attempted even when an earlier
        one fails.

    Raises:
        FetchError: at least one file failed or is changed locally; the
            error's ``report`` attribute holds the full :class:`FetchReport`
            and the message lists each file by name.
        ManifestError: the manifest cannot be read.
    """
    folder = Path(folder) if folder is not None else archive_dir()
    if mirror is None and settings.get("DDRSEARCH_MIRROR"):
        mirror = settings.get("DDRSEARCH_MIRROR")
    mirror = Path(mirror).expanduser() if mirror is not None else None
    if mirror is not None and not mirror.is_dir():
        raise FetchError(f"Mirror folder {_printable(str(mirror))} does not exist or is not a folder. Check --mirror / DDRSEARCH_MIRROR.")
    base_url = base_url or settings.get("DDRSEARCH_BASE_URL") or BASE_URL
    if any(ch.isspace() or not ch.isprintable() for ch in base_url):  # http.client refuses them with a traceback
        raise FetchError(f"The download address {_printable(base_url)!r} holds a space or a control character "
                         "(control characters shown as ?); write a space as %20. Fix --base-url / DDRSEARCH_BASE_URL.")
    if not base_url.endswith("/"):
        base_url += "/"
    if folder.exists() and not folder.is_dir():
        raise FetchError(f"The destination {folder} is a file, not a folder. Choose another --dest (or DDRSEARCH_ARCHIVE_DIR).")
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise FetchError(f"Cannot create the destination folder {folder} ({exc}). Choose another --dest.") from exc

    entries = load_manifest()
    if isinstance(only, str):
        raise TypeError("only= takes a list of file names, not one string")
    if only is not None:
        known = {e.file_name for e in entries}
        unknown = sorted(set(only) - known)
        if unknown:
            raise FetchError(f"Not in the manifest: {unknown}. Use file names from the manifest (ddrsearch.data.manifest.manifest_path()).")
        entries = [e for e in entries if e.file_name in set(only)]

    if mirror is not None:
        _check_mirror(mirror, {e.file_name for e in entries})

    report = FetchReport(folder=folder, source=f"mirror {_printable(str(mirror))}" if mirror is not None else base_url)
    listed = {e.file_name for e in load_manifest()}
    report.unexpected = [p.name for p in list_pdfs(folder) if p.name not in listed]

    bar = tqdm(entries, desc="Fetching reports", unit="file", disable=not progress, file=sys.stderr)
    for entry in bar:
        target = folder / entry.file_name
        tmp = target.with_name(target.name + ".partial")
        if target.is_dir() or tmp.is_dir():
            report.failed[entry.file_name] = f"{target if target.is_dir() else tmp} is a folder; move it away and fetch again"
            continue
        if target.exists():
            if sha256_of(target) == entry.sha256:
                report.present.append(entry.file_name)
                continue
            if not replace_changed:
                report.changed.append(entry.file_name)
                continue
            aside = _aside_name(target)
            os.replace(target, aside)
            report.moved_aside[entry.file_name] = aside.name
        try:
            if mirror is not None:
                _copy_from_mirror(entry, mirror, tmp)
            else:
                _download(entry, base_url, tmp, timeout)
            got = sha256_of(tmp)
            if got != entry.sha256:
                raise ValueError(f"SHA-256 mismatch: expected {entry.sha256}, got {got}")
            size = tmp.stat().st_size
            if size != entry.bytes:
                raise ValueError(f"size mismatch: expected {entry.bytes} bytes, got {size}")
            os.replace(tmp, target)
            report.fetched.append(entry.file_name)
        except (OSError, ValueError) as exc:
            report.failed[entry.file_name] = str(exc)
        finally:
            if tmp.exists():
                tmp.unlink()
    bar.close()

    if not report.ok:
        offline = mirror is None and report.failed and not report.fetched and all(
            why.startswith("download from") for why in report.failed.values())
        hint = ("\nEvery download failed: without internet, copy the reports from a local copy with "
                "ddrsearch fetch --mirror FOLDER (or DDRSEARCH_MIRROR=FOLDER make data).") if offline else ""
        raise FetchError(hint.lstrip("\n") + "\nFetching the reports did not complete:\n" + report.summary()
                         if hint else "Fetching the reports did not complete:\n" + report.summary(), report=report)
    return report


def _check_mirror(mirror: Path, names: set[str], depth: int = 4) -> None:
    """Raise :class:`FetchError` when ``mirror`` holds none of ``names``, naming a folder below it that does.

    ``--mirror`` must name the folder that holds the PDFs themselves (e.g.
    ``.../datasets/forge_archive``); a reader who gives its parent is told
    which subfolder (searched ``depth`` levels down, in name order) he meant.
    """
    if not names or any((mirror / n).is_file() for n in names):
        return
    level = [mirror]
    for _ in range(depth):
        level = sorted(d for parent in level for d in parent.iterdir() if d.is_dir() and not d.is_symlink())
        for d in level:
            if any((d / n).is_file() for n in names):
                raise FetchError(f"Mirror folder {_printable(str(mirror))} holds none of the report PDFs; did you mean {d}? "
                                 "--mirror names the folder that holds the PDFs themselves.")
    raise FetchError(f"Mirror folder {_printable(str(mirror))} holds none of the report PDFs (nor does any folder {depth} levels "
                     "below it). --mirror names the folder that holds the PDFs themselves, e.g. "
                     ".../datasets/forge_archive.")


def verify_archive(folder: str | os.PathLike | None = None) -> FetchReport:
    """Check the archive folder against the manifest without fetching anything.

    Returns:
        A :class:`FetchReport` whose ``present`` lists verified files,
        ``failed`` the missing ones, ``changed`` the ones with a wrong hash and
        ``unexpected`` PDFs not in the manifest. It never raises for those.
    """
    folder = Path(folder) if folder is not None else archive_dir()
    report = FetchReport(folder=folder)
    entries = load_manifest()
    listed = {e.file_name for e in entries}
    if folder.is_dir():
        report.unexpected = [p.name for p in list_pdfs(folder) if p.name not in listed]
    for entry in entries:
        target = folder / entry.file_name
        if not target.is_file():
            report.failed[entry.file_name] = "missing"
        elif sha256_of(target) != entry.sha256:
            report.changed.append(entry.file_name)
        else:
            report.present.append(entry.file_name)
    return report

"""Output of the command line: refuse a bad ``--out`` before a long computation; print a user's text on one line."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["one_line", "unwritable_csv"]


def unwritable_csv(value: str, also: str | None = None, kind: str = "CSV") -> str | None:
    """Why the output file ``value`` (and its sibling ``<stem><also>``) cannot be written, or None.

    Called before a long computation, so that a bad ``--out`` is refused at
    once. Creates the missing folders; a probe file it had to create is
    removed again.

    Args:
        value: the path given by the user.
        also: suffix of a second file written beside it, e.g. ``"_means.csv"``.
        kind: the kind of file, for the messages (``"CSV"``, ``"PNG"``).

    Returns:
        A message naming ``--out`` and what to do, or None when both can be written.
    """
    if not value.strip():
        return f"--out is empty; give a {kind} file name"
    out = Path(value)
    if value.strip() == "-":
        return f"--out - would write a file named '-', not to the screen; give a {kind} file name"
    if value.endswith(("/", os.sep)):  # Path() drops the slash: "results/" would become a file named results
        return f"--out {value} names a folder; give a {kind} file name in it, e.g. {out / ('results.' + kind.lower())}"
    paths = [out] + ([out.with_name(out.stem + also)] if also else [])
    for path in paths:
        if path.is_dir():
            return f"--out {out}: {path} is a folder; give another {kind} file name"
        if path.exists() and not path.is_file():
            return f"--out {out}: {path} is not a regular file (a device or a pipe); give a {kind} file name"
        if path.is_symlink() and not path.exists():
            return f"--out {out}: {path} is a link to a missing file; give a {kind} file name"
    blocker = next((f for f in out.parents if f.exists() and not f.is_dir()), None)
    if blocker is not None:
        return f"--out {out} cannot be written: {blocker} is a file, not a folder; give another path"
    for path in paths:
        existed = path.exists()
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with path.open("a"):
                pass
        except OSError as exc:
            return f"--out {out} cannot be written ({path}: {exc.strerror}); give a path in a folder you can write to"
        if not existed:
            path.unlink()
    return None


def one_line(text: str) -> str:
    """``text`` without escape sequences or control characters, its lines joined by spaces.

    For a path, a file name or a warning that quotes one: a line break in it must not start a printed line of
    its own. :func:`ddrsearch.answers.generation.strip_controls` says what is removed.

    >>> one_line("evil\\x1b[31m\\nReport D001 = all clear.pdf")
    'evil Report D001 = all clear.pdf'
    """
    from ddrsearch.answers.generation import strip_controls

    return " ".join(strip_controls(text).splitlines())

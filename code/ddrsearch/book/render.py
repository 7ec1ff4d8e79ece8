"""Render the book with Quarto from executed copies of the chapters, so ``chapters/`` stays without outputs.

The chapters are committed without outputs (the book check refuses a
notebook that keeps any). Quarto executing them in place would write its
results back into ``chapters/*.ipynb``; instead ``make book`` executes every
chapter into ``_preview/`` (``ddrsearch preview``, the same run the no-Quarto
preview shows), then this module copies the book's sources into a staging
folder (``_render/`` by default) with the executed notebooks in place of the
clean ones and execution switched off in its ``_quarto.yml``, and Quarto
renders that folder with ``--no-execute``. Nothing Quarto writes (``.quarto/``,
``*.quarto_ipynb``, ``_book/``) lands in ``chapters/``.

The sources are written for Quarto 1.10 (:data:`QUARTO_VERSION`).

Command line (what ``make book`` runs)::

    python -m ddrsearch.book.render --executed _preview --stage _render
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

import yaml

from ddrsearch.book.preview import book_entries

#: The Quarto release the book's sources are written and checked for (major.minor).
QUARTO_VERSION = "1.10"

#: Files beside ``_quarto.yml`` that the book uses besides its chapters (copied when present).
PROJECT_FILES = ("references.bib",)

#: The first line of a staged ``_quarto.yml``: only a folder that has it is emptied when staging again.
STAGE_MARK = "# Written by ddrsearch.book.render from the project's _quarto.yml: do not edit."

__all__ = ["QUARTO_VERSION", "STAGE_MARK", "stage_quarto_project"]


def _is_stage(folder: Path) -> bool:
    cfg = folder / "_quarto.yml"
    return cfg.is_file() and cfg.read_text(encoding="utf-8").startswith(STAGE_MARK)


def stage_quarto_project(project: str | os.PathLike = ".", executed: str | os.PathLike = "_preview",
                         stage: str | os.PathLike = "_render") -> list[Path]:
    """Write a copy of the book for Quarto to render without executing: sources as they are, notebooks executed.

    Args:
        project: the book's folder (holding ``_quarto.yml``).
        executed: the folder where ``ddrsearch preview`` wrote the executed
            notebooks, one ``<name>.ipynb`` per chapter notebook.
        stage: the folder to write (emptied first; it must not be the project
            folder or hold it).

    Returns:
        The files written into ``stage``, ``_quarto.yml`` first, then the book's
        entries in book order, then the other project files (``references.bib``).

    Raises:
        FileNotFoundError: ``_quarto.yml`` is missing, a listed chapter is
            missing, or a notebook has no executed copy in ``executed`` (the
            message names it and says to run ``ddrsearch preview`` first).
        ValueError: ``stage`` is the project folder, one of its parents or
            a folder holding a chapter, or it exists, is not empty and was
            not written by this function (it would be emptied).
    """
    project, executed, stage = Path(project).resolve(), Path(executed).resolve(), Path(stage).resolve()
    entries = book_entries(project)  # FileNotFoundError without _quarto.yml
    if stage == project or any(stage == p or stage in p.parents for p in [project, *(e.path.resolve() for e in entries)]):
        raise ValueError(f"the staging folder {stage} would hold the book's own sources; choose a new folder "
                         "such as _render")
    if stage.exists() and any(stage.iterdir()) and not _is_stage(stage):
        raise ValueError(f"{stage} exists and was not written by ddrsearch.book.render: it is emptied before "
                         "staging, so choose a new folder or remove it yourself")
    sources = []
    for e in entries:
        if not e.path.is_file():
            raise FileNotFoundError(f"_quarto.yml lists {e.path}, which does not exist")
        source = e.path
        if e.path.suffix == ".ipynb":
            source = executed / e.path.name
            if not source.is_file():
                raise FileNotFoundError(
                    f"no executed copy of {e.path.relative_to(project)} in {executed}: run "
                    f"'ddrsearch preview --out {executed}' first")
        sources.append((source, e.path.resolve().relative_to(project)))
    if stage.exists():
        shutil.rmtree(stage)
    stage.mkdir(parents=True)
    cfg = yaml.safe_load((project / "_quarto.yml").read_text(encoding="utf-8"))
    cfg.setdefault("execute", {})["enabled"] = False  # the copies carry their outputs
    written = [stage / "_quarto.yml"]
    written[0].write_text(
        STAGE_MARK + "\n"
        + yaml.safe_dump(cfg, sort_keys=False, allow_unicode=True, width=1000), encoding="utf-8")
    for source, relative in sources:
        target = stage / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
        written.append(target)
    for name in PROJECT_FILES:
        if (project / name).is_file():
            shutil.copyfile(project / name, stage / name)
            written.append(stage / name)
    return written


def main(argv: list[str] | None = None) -> int:
    """``python -m ddrsearch.book.render``: stage the book for ``quarto render --no-execute``."""
    parser = argparse.ArgumentParser(prog="python -m ddrsearch.book.render", description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", default=".", help="the book's folder, holding _quarto.yml (default: .)")
    parser.add_argument("--executed", default="_preview", help="where ddrsearch preview wrote the executed notebooks")
    parser.add_argument("--stage", default="_render", help="the folder to write for Quarto (emptied first)")
    args = parser.parse_args(argv)
    try:
        written = stage_quarto_project(args.project, args.executed, args.stage)
    except (FileNotFoundError, ValueError) as exc:
        print(f"ddrsearch.book.render: {exc}", file=sys.stderr)
        return 1
    print(f"{len(written)} files staged in {args.stage} for 'quarto render --no-execute' (Quarto {QUARTO_VERSION})")
    return 0


if __name__ == "__main__":
    sys.exit(main())

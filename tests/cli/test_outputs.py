"""ddrsearch.cli.outputs: an ``--out`` path that cannot be written is refused before the command runs."""

from __future__ import annotations

import pytest

from ddrsearch.cli.command import main

pytestmark = pytest.mark.data


def test_out_refuses_a_pipe_beside_it_and_a_dangling_link(tmp_path, capsys, archive_folder):
    """``--out`` beside a FIFO hung, a dangling link was replaced by a file and ``show --out -`` wrote "-"; they are
    refused.
    """
    # before: eval --out r.csv hung when r_means.csv was a FIFO; a dangling symlink as --out was
    # replaced by a file; show --out <fifo> hung and show --out - wrote a file named "-"
    import os

    os.mkfifo(tmp_path / "r_means.csv")
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(tmp_path / "r.csv")]) == 1
    assert "r_means.csv is not a regular file" in capsys.readouterr().err
    (tmp_path / "link.csv").symlink_to(tmp_path / "missing" / "x.csv")
    assert main(["eval", "starter", "--methods", "bm25", "--out", str(tmp_path / "link.csv")]) == 1
    assert "is a link to a missing file" in capsys.readouterr().err
    os.mkfifo(tmp_path / "crop.png")
    assert main(["show", "D038-r08", "--out", str(tmp_path / "crop.png")]) == 1
    assert "give a PNG file name" in capsys.readouterr().err

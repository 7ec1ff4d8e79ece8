"""``ddrsearch fetch`` and ``ddrsearch verify``: from a local mirror, and a mirror that is not the folder of the PDFs."""

from __future__ import annotations

import shutil

import pytest

from ddrsearch.cli.command import main
from ddrsearch.data.folders import sample_paths


@pytest.fixture
def mirror(tmp_path, archive_folder):
    """A writable copy of the verified archive, to be tampered with."""
    m = tmp_path / "mirror"
    shutil.copytree(archive_folder, m)
    return m


@pytest.mark.data
def test_cli_fetch_sample_only(tmp_path, mirror, capsys):
    dest = tmp_path / "dest"
    assert main(["fetch", "--mirror", str(mirror), "--dest", str(dest), "--sample-only", "--quiet"]) == 0
    assert len(list(dest.glob("*.pdf"))) == 10
    assert "10 fetched" in capsys.readouterr().out
    assert main(["verify", "--dest", str(dest)]) == 1  # the other 66 are missing
    assert "66 failed" in capsys.readouterr().out


def test_cli_fetch_bad_mirror(tmp_path, capsys):
    assert main(["fetch", "--mirror", str(tmp_path / "nope"), "--dest", str(tmp_path / "d"), "--quiet"]) == 1
    assert "does not exist" in capsys.readouterr().err


@pytest.fixture
def shared(tmp_path, archive_folder):
    """A checkout-like folder whose PDFs (the ten-report sample) are in datasets/forge_archive."""
    pdfs = tmp_path / "shared" / "datasets" / "forge_archive"
    pdfs.mkdir(parents=True)
    (tmp_path / "shared" / "code").mkdir()
    for p in sample_paths(archive_folder):
        shutil.copy(p, pdfs / p.name)
    return tmp_path / "shared"


@pytest.mark.data
def test_mirror_above_the_pdfs_suggests_the_folder(shared, tmp_path, capsys):
    """``fetch --mirror`` given the folder above the PDFs says which folder was meant, and fetches nothing half-way."""
    dest = tmp_path / "dest"
    assert main(["fetch", "--mirror", str(shared), "--dest", str(dest), "--sample-only", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"did you mean {shared / 'datasets' / 'forge_archive'}?" in err
    assert not list(dest.glob("*.pdf"))  # nothing half-done
    assert main(["fetch", "--mirror", str(shared / "datasets" / "forge_archive"), "--dest", str(dest),
                 "--sample-only", "--quiet"]) == 0
    assert len(list(dest.glob("*.pdf"))) == 10


@pytest.mark.data
def test_cli_fetch_draws_no_progress_bar_when_stderr_is_not_a_terminal(tmp_path, archive_folder, capsys):
    """Before: CI logs and redirected output held the bar's carriage-return frames ('Fetching reports: 100%|...')."""
    dest = tmp_path / "dest"
    assert main(["fetch", "--mirror", str(archive_folder), "--dest", str(dest), "--sample-only"]) == 0
    out, err = capsys.readouterr()
    assert "10 fetched" in out and "Fetching reports" not in err and "\r" not in err

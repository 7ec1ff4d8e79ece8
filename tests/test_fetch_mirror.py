"""``ddrsearch fetch --mirror`` given the folder above the PDFs says which folder was meant."""

from __future__ import annotations

import shutil

import pytest

from ddrsearch.cli.command import main
from ddrsearch.data.fetch import fetch_archive
from ddrsearch.data.folders import sample_paths
from ddrsearch.errors import FetchError


@pytest.fixture
def shared(tmp_path, archive_folder):
    """A checkout-like folder whose PDFs (the ten-report sample) are in datasets/forge_archive."""
    pdfs = tmp_path / "shared" / "datasets" / "forge_archive"
    pdfs.mkdir(parents=True)
    (tmp_path / "shared" / "code").mkdir()
    for p in sample_paths(archive_folder):
        shutil.copy(p, pdfs / p.name)
    return tmp_path / "shared"


def test_mirror_above_the_pdfs_suggests_the_folder(shared, tmp_path, capsys):
    dest = tmp_path / "dest"
    assert main(["fetch", "--mirror", str(shared), "--dest", str(dest), "--sample-only", "--quiet"]) == 1
    err = capsys.readouterr().err
    assert f"did you mean {shared / 'datasets' / 'forge_archive'}?" in err
    assert not list(dest.glob("*.pdf"))  # nothing half-done
    assert main(["fetch", "--mirror", str(shared / "datasets" / "forge_archive"), "--dest", str(dest),
                 "--sample-only", "--quiet"]) == 0
    assert len(list(dest.glob("*.pdf"))) == 10


def test_mirror_without_any_pdf_says_so(tmp_path):
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    with pytest.raises(FetchError, match="holds none of the report PDFs .*forge_archive"):
        fetch_archive(tmp_path / "dest", mirror=tmp_path / "empty", progress=False)

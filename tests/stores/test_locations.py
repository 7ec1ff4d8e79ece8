"""Where an index lives, found without loading the index's libraries."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import ddrsearch
from ddrsearch.stores import disk_index, locations


def test_the_socket_is_in_the_index_folder():
    assert locations.socket_path("/x/ix") == Path("/x/ix") / locations.SOCKET_NAME


def test_disk_index_names_the_same_function():
    assert disk_index.default_index_dir is locations.default_index_dir


def test_finding_the_default_folder_imports_no_numpy():
    code = ("import sys; from ddrsearch.stores.locations import default_index_dir; default_index_dir('archive'); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('numpy', 'bm25s', 'fitz', 'onnxruntime') "
            "or m.startswith(('ddrsearch.retrieval', 'ddrsearch.reading', 'ddrsearch.data.manifest'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONPATH": str(Path(ddrsearch.__file__).resolve().parents[1]), "PATH": "/usr/bin:/bin"})
    assert out.stdout.strip() == "[]"


def test_the_quick_path_is_the_full_one(tmp_path, monkeypatch):
    for name in ("DDRSEARCH_INDEX_DIR", "DDRSEARCH_ARCHIVE_DIR", "DDRSEARCH_MANIFEST"):
        monkeypatch.delenv(name, raising=False)
    for corpus in ("sample", "archive"):
        assert Path(locations.quick_socket_path(corpus)) == locations.socket_path(locations.default_index_dir(corpus))
    monkeypatch.setenv("DDRSEARCH_INDEX_DIR", str(tmp_path / "idx"))
    assert Path(locations.quick_socket_path("archive")) == locations.socket_path(locations.default_index_dir("archive"))
    assert locations.quick_socket_path("archive", "rel/ix") == str(Path("rel/ix") / locations.SOCKET_NAME)
    monkeypatch.setenv("DDRSEARCH_ARCHIVE_DIR", str(tmp_path))
    assert locations.quick_socket_path("archive") is None  # the folder's name has a hash: default_index_dir's work

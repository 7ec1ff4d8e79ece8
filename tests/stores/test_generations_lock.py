"""One writer at a time on an index folder, and a full disk said as such (issue 26, ddrsearch.stores.generations)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import textwrap
import time

import bm25s
import numpy as np
import pytest

import ddrsearch.stores.generations as generations
from ddrsearch.errors import SearchIndexError, SettingError
from ddrsearch.retrieval.passages import Passage
from ddrsearch.stores.generations import current_generation, index_lock, lock_timeout, write_generation


def _parts(n: int = 3):
    passages = [Passage(f"r{i}.pdf#{i}", f"r{i}.pdf", f"stuck pipe jar row {i}", kind="operation") for i in range(n)]
    bm25 = bm25s.BM25()
    bm25.index([p.text.split() for p in passages], show_progress=False)
    vectors = np.eye(n, 4, dtype=np.float32)
    header = {"settings": {}, "reports": [{"file_name": p.report, "passages": 1} for p in passages],
              "n_passages": n, "dim": 4}
    return header, passages, vectors, bm25


_HOLD = textwrap.dedent("""
    import sys, time, pathlib
    from ddrsearch.stores.generations import index_lock
    with index_lock(sys.argv[1]):
        pathlib.Path(sys.argv[2]).write_text("held")
        time.sleep(float(sys.argv[3]))
""")


def _holder(tmp_path, seconds: float) -> subprocess.Popen:
    flag = tmp_path / "held.flag"
    proc = subprocess.Popen([sys.executable, "-c", _HOLD, str(tmp_path / "ix"), str(flag), str(seconds)])
    for _ in range(600):
        if flag.exists():
            return proc
        time.sleep(0.05)
    proc.kill()
    raise AssertionError("the holder process never took the lock")


def test_a_second_writer_says_whom_it_waits_for_and_gives_up_naming_the_holders_pid(tmp_path):
    """Before: two writers of one index ran at once and the second replaced the first's generation.
    After: the second one says "waiting for <lock> (held by PID n)" once, and past the timeout fails naming that PID."""
    proc = _holder(tmp_path, 60)
    try:
        said = []
        with pytest.raises(SearchIndexError) as exc, index_lock(tmp_path / "ix", timeout=0.3, say=said.append):
            pass
        lock = tmp_path / "ix" / "LOCK"
        assert said == [f"waiting for {lock} (held by PID {proc.pid})"]
        assert f"PID {proc.pid}" in str(exc.value) and "DDRSEARCH_INDEX_LOCK_TIMEOUT" in str(exc.value)
        header, passages, vectors, bm25 = _parts()
        monkey_timeout = pytest.MonkeyPatch()
        monkey_timeout.setenv("DDRSEARCH_INDEX_LOCK_TIMEOUT", "0.2")
        try:
            with pytest.raises(SearchIndexError, match=f"PID {proc.pid}"):
                write_generation(tmp_path / "ix", header, passages, vectors, bm25)
        finally:
            monkey_timeout.undo()
        assert current_generation(tmp_path / "ix") is None  # nothing written while the other held the lock
    finally:
        proc.kill()
        proc.wait()


def test_the_lock_is_taken_once_the_holder_ends_and_nested_use_does_not_deadlock(tmp_path):
    """A writer waiting for the lock gets it when the holder ends (the kernel frees a dead process's lock);
    a write inside an already held lock (add_reports, then write_generation) does not wait for itself."""
    proc = _holder(tmp_path, 0.5)
    said = []
    with index_lock(tmp_path / "ix", timeout=60, say=said.append) as lock:
        assert lock.read_text().strip() == str(os.getpid())  # the holder's PID is in the file
        header, passages, vectors, bm25 = _parts()
        gen = write_generation(tmp_path / "ix", header, passages, vectors, bm25)
    proc.wait()
    assert len(said) == 1 and gen.header["generation"] == 1


def test_a_generation_built_on_a_parent_that_is_no_longer_current_is_refused(tmp_path):
    """Before: a writer that read CURRENT before another writer switched it wrote over that one's work.
    After: write_generation(parent=...) re-reads CURRENT under the lock and refuses a stale parent."""
    header, passages, vectors, bm25 = _parts()
    first = write_generation(tmp_path / "ix", header, passages, vectors, bm25)
    second = write_generation(tmp_path / "ix", header, passages, vectors, bm25, parent=first.folder.name)
    with pytest.raises(SearchIndexError, match="changed while this generation was prepared"):
        write_generation(tmp_path / "ix", header, passages, vectors, bm25, parent=first.folder.name)
    assert current_generation(tmp_path / "ix").folder == second.folder


@pytest.mark.parametrize("how", ["enospc", "short write"])
def test_a_full_disk_says_no_space_and_removes_the_half_written_generation(tmp_path, monkeypatch, how):
    """Before: a full disk said "9216 requested and 5088 written" and left the half-written gen- folder behind.
    After: "no space left on <folder> (N bytes needed)", the folder is removed, the previous index stays current."""
    header, passages, vectors, bm25 = _parts()
    folder = tmp_path / "ix"
    first = write_generation(folder, header, passages, vectors, bm25)
    real_save = np.save

    def full(fh, *a, **k):
        fh.write(b"\x93NUMPY partial")
        if how == "enospc":
            raise OSError(errno.ENOSPC, "No space left on device")
        raise OSError("9216 requested and 5088 written")

    monkeypatch.setattr(generations.np, "save", full)
    if how == "short write":  # numpy's message carries no errno: the free space tells
        monkeypatch.setattr(generations.shutil, "disk_usage", lambda p: type("U", (), {"free": 10})())
    with pytest.raises(SearchIndexError) as exc:
        write_generation(folder, header, passages, vectors, bm25)
    monkeypatch.setattr(generations.np, "save", real_save)
    message = str(exc.value)
    assert message.startswith(f"no space left on {folder} (") and " bytes needed" in message
    needed = int(message.split("(")[1].split(" bytes")[0])
    assert needed > vectors.nbytes
    assert sorted(d.name for d in folder.iterdir() if d.name.startswith("gen-")) == [first.folder.name]
    assert current_generation(folder).folder == first.folder


def test_the_lock_timeout_setting_must_be_a_positive_number(monkeypatch):
    """DDRSEARCH_INDEX_LOCK_TIMEOUT is read through ddrsearch.settings: 120 s unset, a clear error when not a number."""
    monkeypatch.delenv("DDRSEARCH_INDEX_LOCK_TIMEOUT", raising=False)
    assert lock_timeout() == 120
    monkeypatch.setenv("DDRSEARCH_INDEX_LOCK_TIMEOUT", "soon")
    with pytest.raises(SettingError, match="DDRSEARCH_INDEX_LOCK_TIMEOUT='soon'"):
        lock_timeout()


def test_a_lock_that_is_a_link_is_refused_and_its_target_left_alone(tmp_path):
    """Before: LOCK as a symbolic link was followed, truncated and written: the linked file was emptied."""
    from ddrsearch.errors import SearchIndexError
    from ddrsearch.stores.generations import index_lock

    victim = tmp_path / "victim.txt"
    victim.write_text("IMPORTANT USER DATA\n", encoding="utf-8")
    folder = tmp_path / "index"
    folder.mkdir()
    (folder / "LOCK").symlink_to(victim)
    with pytest.raises(SearchIndexError, match="link or not a regular file"), index_lock(folder):
        pass
    assert victim.read_text(encoding="utf-8") == "IMPORTANT USER DATA\n"

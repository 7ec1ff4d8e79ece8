"""Report PDFs are read in a worker process held to hard limits of time and memory (issue 26, reading.isolation)."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from ddrsearch.errors import FolderWarning, NotAPDFError, ReportError, ReportTooLargeError
from ddrsearch.reading.isolation import IsolatedReader, isolation_on
from ddrsearch.reading.pdf import folder_pdfs
from ddrsearch.reading.report import load_archive, read_each, read_report
from ddrsearch.reading.synthetic import write_type3_in_type3

pytestmark = pytest.mark.data

REPORT_38 = "FORGE-16A-78-32_Drilling_038_2020-11-26.pdf"
REPORT_39 = "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf"
CODE = Path(__file__).resolve().parents[2] / "code"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory) -> Path:
    """A 20 KB page whose one text extraction runs 100 glyph procedures of 1.9 MB each: read in this process it
    takes about 45 s and 4 GB, within the soft limits (nothing is checked inside that one PyMuPDF call)."""
    return write_type3_in_type3(tmp_path_factory.mktemp("hostile") / "hostile.pdf", 100, 1_900_000)


def _crash_on_hostile(path, **kwargs):
    """A reading function that kills its own process on a file named hostile.pdf (the worker dies)."""
    if Path(path).name == "hostile.pdf":
        os.kill(os.getpid(), signal.SIGKILL)
    return Path(path).name


def test_the_76_reports_read_in_the_worker_equal_those_read_in_this_process(archive, archive_folder):
    assert isolation_on()
    by_name = {r.file_name: r for r in archive}  # the session's archive: load_archive, through the worker
    inside = [read_report(p) for p in folder_pdfs(archive_folder)]
    assert len(inside) == len(by_name) == 76
    for mine in inside:
        theirs = by_name[mine.file_name]
        assert theirs == mine  # identity, header, pages, rows, notes, OCR fields
        assert theirs.words == mine.words and theirs.path == mine.path


def test_a_file_over_the_time_limit_is_refused_and_the_next_file_is_still_read(hostile, archive_folder,
                                                                               monkeypatch):
    monkeypatch.setenv("DDRSEARCH_MAX_READ_SECONDS", "2")
    start = time.monotonic()
    reports, failures = read_each([hostile, archive_folder / REPORT_38])
    assert time.monotonic() - start < 40  # stopped, not read to the end (about 45 s)
    assert [r.file_name for r in reports] == [REPORT_38]
    [(path, exc)] = failures
    assert path == hostile and isinstance(exc, ReportTooLargeError)
    assert str(hostile) in str(exc) and "DDRSEARCH_MAX_READ_SECONDS" in str(exc) and "over the 2 s" in str(exc)
    assert exc.setting == "DDRSEARCH_MAX_READ_SECONDS"


def test_a_file_over_the_memory_limit_is_refused_and_the_next_file_is_still_read(hostile, archive_folder,
                                                                                 monkeypatch):
    monkeypatch.setenv("DDRSEARCH_MAX_READ_MB", "400")  # the worker holds about 150 MB after a report
    reports, failures = read_each([archive_folder / REPORT_39, hostile, archive_folder / REPORT_38])
    assert [r.file_name for r in reports] == [REPORT_39, REPORT_38]
    [(path, exc)] = failures
    assert isinstance(exc, ReportTooLargeError) and exc.setting == "DDRSEARCH_MAX_READ_MB"
    assert str(hostile) in str(exc) and "DDRSEARCH_MAX_READ_MB" in str(exc) and "over the 400 MB" in str(exc)


def test_a_worker_that_dies_is_an_error_naming_the_file_and_the_signal(hostile, tmp_path):
    with IsolatedReader(_crash_on_hostile) as reader:
        assert reader.read(tmp_path / "before.pdf") == "before.pdf"
        with pytest.raises(ReportError, match=r"hostile\.pdf: the process reading it was killed by signal SIGKILL"):
            reader.read(hostile)
        assert reader.read(tmp_path / "after.pdf") == "after.pdf"  # a fresh worker
        assert reader.process is not None
    assert reader.process is None


def test_a_worker_killed_between_two_files_is_an_error_naming_the_next_file(tmp_path):
    with IsolatedReader(_crash_on_hostile) as reader:
        assert reader.read(tmp_path / "before.pdf") == "before.pdf"
        reader.process.kill()
        reader.process.wait()
        with pytest.raises(ReportError, match=r"next\.pdf: the process reading it was killed by signal SIGKILL"):
            reader.read(tmp_path / "next.pdf")  # the request fails to send, or its answer never comes
        assert reader.read(tmp_path / "after.pdf") == "after.pdf"


def test_an_error_in_the_worker_is_raised_as_the_same_class_with_the_same_message(tmp_path):
    bad = tmp_path / "error.pdf"
    bad.write_text("<html>404</html>", encoding="utf-8")
    with pytest.raises(NotAPDFError) as here:
        read_report(bad)
    [(path, there)] = read_each([bad])[1]
    assert type(there) is NotAPDFError and str(there) == str(here.value) and there.path == here.value.path


def test_load_archive_skip_reads_the_good_files_and_names_the_refused_one(hostile, archive_folder, tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("DDRSEARCH_MAX_READ_SECONDS", "2")
    for name in (REPORT_38, REPORT_39):
        shutil.copy2(archive_folder / name, tmp_path / name)
    shutil.copy2(hostile, tmp_path / "hostile.pdf")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        reports = load_archive(tmp_path, on_error="skip")
    assert [r.file_name for r in reports] == [REPORT_38, REPORT_39]
    lines = [str(w.message) for w in caught if issubclass(w.category, FolderWarning)]
    assert len(lines) == 1 and lines[0].startswith("hostile.pdf skipped, not searched:")
    assert "DDRSEARCH_MAX_READ_SECONDS" in lines[0]
    with pytest.raises(ReportTooLargeError, match="hostile.pdf"):
        load_archive(tmp_path, on_error="raise")


def test_reading_in_this_process_when_isolation_is_off(tmp_path, monkeypatch):
    monkeypatch.setenv("DDRSEARCH_READ_ISOLATED", "0")
    with IsolatedReader(_crash_on_hostile) as reader:
        assert reader.read(tmp_path / "x.pdf") == "x.pdf" and reader.process is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ctrl_c_during_a_read_leaves_no_worker_behind(hostile, archive_folder):
    """Ctrl-C reaches the whole process group: the caller stops with KeyboardInterrupt, the worker (which
    ignores it) is killed and reaped, and prints nothing."""
    script = ("import sys\nfrom ddrsearch.reading.report import batch_reader\n"
              "with batch_reader() as r:\n"
              f"    r.read({str(archive_folder / REPORT_38)!r})\n"
              "    print(r.process.pid, flush=True)\n"
              f"    r.read({str(hostile)!r})\n")
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, env=dict(os.environ, PYTHONPATH=str(CODE)))
    worker = int(proc.stdout.readline())
    time.sleep(1.0)  # the worker is inside the hostile file's text extraction
    os.killpg(proc.pid, signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode != 0 and "KeyboardInterrupt" in err
    assert err.count("Traceback") == 1  # the caller's; none from the worker
    assert not Path(f"/proc/{worker}").exists()


def test_a_script_without_a_main_guard_can_read_a_folder(archive_folder, tmp_path):
    """The worker does not re-run the caller's main script (multiprocessing's spawn would, and fail there)."""
    script = tmp_path / "plain.py"
    script.write_text("from ddrsearch.reading.report import read_each\n"
                      f"print(len(read_each([{str(archive_folder / REPORT_38)!r}])[0]))\n", encoding="utf-8")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=str(CODE)))
    assert done.returncode == 0 and done.stdout.split() == ["1"], done.stderr[-500:]


def test_the_worker_imports_this_process_ddrsearch_not_one_in_the_current_folder(archive_folder, tmp_path,
                                                                                 monkeypatch):
    """Before: the worker (python -c) put the current folder first on its path, so a ddrsearch/ there was imported
    in place of the parent's: a stub that exits made every file fail ('exited with code 3'), a stale copy would
    have read with other code. After: the worker is given this process's sys.path before its first import."""
    stub = tmp_path / "ddrsearch" / "reading"
    stub.mkdir(parents=True)
    (tmp_path / "ddrsearch" / "__init__.py").write_text("")
    (stub / "__init__.py").write_text("")
    (stub / "isolation.py").write_text("def _serve(*args):\n    raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    reports, failures = read_each([archive_folder / REPORT_38])
    assert failures == [] and [r.file_name for r in reports] == [REPORT_38]


def test_a_path_entry_holding_the_path_separator_reaches_the_worker_whole(tmp_path):
    """Before: sys.path went to the worker as PYTHONPATH, so an entry holding ':' was split and the worker silently
    imported another ddrsearch. After: the worker imports the same copy as the process that started it."""
    home = tmp_path / "a:b"
    shutil.copytree(CODE / "ddrsearch", home / "ddrsearch", ignore=shutil.ignore_patterns("__pycache__"))
    (home / "where_mod.py").write_text("def where(path, **kwargs):\n    import ddrsearch\n\n"
                                       "    return ddrsearch.__file__\n")
    script = ("import sys; sys.path.insert(0, sys.argv[1]); import where_mod\n"
              "from ddrsearch.reading.isolation import IsolatedReader\n"
              "with IsolatedReader(where_mod.where) as r:\n    print(r.read('x'))\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run([sys.executable, "-c", script, str(home)], capture_output=True, text=True, env=env,
                         timeout=120, check=True).stdout.strip()
    assert out == str(home / "ddrsearch" / "__init__.py")

"""``ddrsearch serve``: a search through the server prints byte for byte what it prints in its own process.

A server runs in a subprocess on a small index (reports 38 and 39); each
search runs twice from new processes, once through it and once with
``DDRSEARCH_SERVER=0``, and the two outputs, notes and exit statuses are compared.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import ddrsearch
from ddrsearch.resident import call
from ddrsearch.stores.locations import socket_path

pytestmark = [pytest.mark.data, pytest.mark.model]

REPORTS = ("FORGE-16A-78-32_Drilling_038_2020-11-26.pdf", "FORGE-16A-78-32_Drilling_039_2020-11-27.pdf")
NEW_REPORT = "FORGE-16A-78-32_Drilling_040_2020-11-28.pdf"
CODE = str(Path(ddrsearch.__file__).resolve().parents[1])
HEAVY = ("numpy", "onnxruntime", "tokenizers", "torch", "bm25s", "fitz", "ddrsearch.retrieval", "ddrsearch.reading")


def _env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DDRSEARCH_SERVER"}
    env.update(PYTHONPATH=CODE, HF_HUB_OFFLINE="1", TQDM_DISABLE="1", COLUMNS="72", **extra)
    return env


def _ddrsearch(*argv, env=None, cwd=None, timeout=300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ddrsearch", *argv], capture_output=True, env=env or _env(),
                          cwd=cwd, timeout=timeout)


class Server:
    """A ``ddrsearch serve`` subprocess; its standard output and error go to files."""

    def __init__(self, folder: Path, index: Path, logs: Path, *extra: str):
        self.index, self.sock = index, socket_path(index)
        self.out, self.err = logs / "serve.out", logs / "serve.err"
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "serve", "--dir", str(folder),
                                          "--index", str(index), *extra], stdout=out, stderr=err, env=_env())

    def wait_ready(self, timeout: float = 180.0) -> dict:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                pytest.fail(f"ddrsearch serve exited with {self.proc.returncode}: {self.err.read_text()[-2000:]}")
            pong = call(self.sock, {"command": "ping"}, timeout=5)
            if pong and pong.get("pong"):
                return pong
            time.sleep(0.2)
        pytest.fail(f"ddrsearch serve did not answer within {timeout} s: {self.err.read_text()[-2000:]}")

    def requests(self) -> int:
        return call(self.sock, {"command": "ping"}, timeout=5)["requests"]

    def stop(self) -> int:
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
        return self.proc.wait(timeout=60)


@pytest.fixture(scope="module")
def served(tmp_path_factory, archive_folder):
    """The folder of reports 38 and 39, its index, and a server of it (stopped with Ctrl-C at the end)."""
    root = tmp_path_factory.mktemp("srv")
    folder = root / "two"
    folder.mkdir()
    for name in REPORTS:
        shutil.copy2(archive_folder / name, folder)
    index = root / "ix"
    built = _ddrsearch("index", "build", "--dir", str(folder), "--index", str(index))
    assert built.returncode == 0, built.stderr
    server = Server(folder, index, root)
    server.wait_ready()
    yield folder, index, server
    assert server.stop() == 130
    assert b"ddrsearch serve: interrupted." in server.err.read_bytes()
    assert not os.path.lexists(server.sock)  # removed on the way out


def _both(args, served, **env):
    """The search run through the server and in its own process; whether the server answered it."""
    folder, index, server = served
    argv = ["search", *args, "--dir", str(folder), "--index", str(index)]
    before = server.requests()
    via = _ddrsearch(*argv, env=_env(**env))
    answered = server.requests() - before
    alone = _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0", **env))
    return via, alone, answered


@pytest.mark.parametrize(("args", "status"), [
    (["stuck pipe", "-k", "3"], 0),
    (["stuk pipe wile drilling", "-k", "2", "--width", "40"], 0),  # spelling notes on standard error
    (["zqxv wrrt"], 0),  # no word occurs: the ranking-by-meaning note
    (["pipe", "--weight", "2"], 2),  # an options error of the command
    (["pipe", "-k", "0"], 2),  # a usage error of the parser (the usage wrapped to COLUMNS)
    (["pipe", "--expand"], 2),  # --expand with hybrid: refused
    (["stuck pipe", "--weight=0.3", "-k2"], 0),
], ids=["plain", "spelling", "no-word", "weight", "usage", "expand", "joined-values"])
def test_a_search_through_the_server_prints_what_it_prints_alone(served, args, status):
    via, alone, answered = _both(args, served)
    assert answered == 1
    assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
    assert via.returncode == status
    if status or args[0].startswith(("stuk", "zqxv")):
        assert via.stderr and b"Traceback" not in via.stderr


def test_a_long_question_is_cut_with_the_same_note(served):
    via, alone, answered = _both([" ".join(["pipe"] * 8)], served, DDRSEARCH_MAX_QUESTION_WORDS="5")
    assert answered == 0  # other settings than the server's: the client searches itself
    assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
    assert b"note:" in via.stderr


def test_what_the_server_does_not_serve_runs_in_the_clients_process(served):
    for args in (["stuck pipe", "--method", "bm25"], ["stuck pipe", "--no-index"], ["stuck pipe", "--help"]):
        via, alone, answered = _both(args, served)
        assert answered == 0, args
        assert (via.stdout, via.returncode) == (alone.stdout, alone.returncode)


def test_a_relative_folder_is_read_from_the_clients_working_folder(served):
    folder, index, server = served
    before = server.requests()
    argv = ["search", "stuck pipe", "-k", "2", "--dir", folder.name, "--index", index.name]
    via = _ddrsearch(*argv, cwd=folder.parent)
    alone = _ddrsearch(*argv, cwd=folder.parent, env=_env(DDRSEARCH_SERVER="0"))
    assert server.requests() - before == 1
    assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode) \
        and via.returncode == 0


def test_the_client_imports_none_of_the_search_libraries(served):
    folder, index, server = served
    probe = ("import sys; from ddrsearch.cli.command import main; code = main(sys.argv[1:]); "
             f"print(sorted(m for m in sys.modules if m.startswith({HEAVY!r})), file=sys.stderr); sys.exit(code)")
    before = server.requests()
    proc = subprocess.run([sys.executable, "-c", probe, "search", "stuck pipe", "--dir", str(folder),
                           "--index", str(index)], capture_output=True, text=True, env=_env(), timeout=120)
    assert proc.returncode == 0 and server.requests() - before == 1
    assert proc.stderr.strip().splitlines()[-1] == "[]"


def test_the_socket_is_for_this_user_only_and_a_second_server_is_refused(served, tmp_path):
    folder, index, server = served
    assert os.stat(server.sock).st_mode & 0o777 == 0o600
    second = _ddrsearch("serve", "--dir", str(folder), "--index", str(index))
    assert second.returncode == 1
    assert b"another ddrsearch serve answers at" in second.stderr and b"Traceback" not in second.stderr
    assert server.proc.poll() is None and server.requests() >= 0


@pytest.mark.parametrize("raw", [b"not json\n", b"[1, 2]\n", b'{"v": 2, "argv": "search"}\n',
                                 b'{"v": 2}' + b" " * (70 * 1024) + b"\n", b'{"v": 2, "argv"'])
def test_a_bad_request_gets_a_clear_error_and_the_server_goes_on(served, raw):
    import json
    import socket

    server = served[2]
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(str(server.sock))
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        data = b""
        while not data.endswith(b"\n") or b'"accepted"' in data.splitlines()[-1]:  # the answer's line, after the
            chunk = s.recv(65536)  # acknowledgement (the server may then reset a stream it did not read)
            assert chunk, data
            data += chunk
        answer = json.loads(data.splitlines()[-1])
    assert answer["error"].startswith("bad request: ") and "Traceback" not in answer["error"]
    assert server.requests() >= 0  # still answering


def test_a_new_generation_is_loaded_and_a_stale_index_gets_the_note(tmp_path, archive_folder):
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy2(archive_folder / REPORTS[0], folder)
    index = tmp_path / "ix"
    assert _ddrsearch("index", "build", "--dir", str(folder), "--index", str(index)).returncode == 0
    server = Server(folder, index, tmp_path, "--idle-minutes", "5")
    try:
        server.wait_ready()
        argv = ("search", "stuck pipe", "-k", "3", "--dir", str(folder), "--index", str(index))
        shutil.copy2(archive_folder / NEW_REPORT, folder)  # a new day's report, not indexed yet: stale
        via, alone = _ddrsearch(*argv), _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0"))
        assert b"out of date" in via.stderr and server.requests() == 1
        assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
        added = _ddrsearch("index", "add", str(folder / NEW_REPORT), "--dir", str(folder), "--index", str(index))
        assert added.returncode == 0, added.stderr
        via, alone = _ddrsearch(*argv), _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0"))
        assert server.requests() == 2 and via.stderr == b"" and b"(2 reports)" in via.stdout
        assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
        assert b"loaded gen-" in server.err.read_bytes()
    finally:
        assert server.stop() == 130


def test_a_generation_damaged_under_the_server_gets_the_note_search_prints_alone(served):
    folder, index, server = served
    target = index / (index / "CURRENT").read_text(encoding="utf-8").strip() / "passages.json"
    saved = target.read_bytes()
    try:
        target.write_text("garbage", encoding="utf-8")
        via, alone, answered = _both(["stuck pipe", "-k", "2"], served)
        # before: the server answered from the generation it had loaded, without the note
        assert b"is damaged" in alone.stderr and answered == 1
        assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
    finally:
        target.write_bytes(saved)
    via, alone, answered = _both(["stuck pipe", "-k", "2"], served)  # repaired: the index again, reloaded
    assert answered == 1 and via.stderr == b"" and b"index " in via.stdout
    assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)


def test_the_server_stops_after_its_idle_minutes(tmp_path, served):
    folder, index, _ = served
    other = tmp_path / "ix2"
    shutil.copytree(index, other, ignore=shutil.ignore_patterns("serve.sock"))
    server = Server(folder, other, tmp_path, "--idle-minutes", "0.02")
    assert server.proc.wait(timeout=180) == 0
    assert b"no request for 0.02 minutes; stopped" in server.out.read_bytes()
    assert not os.path.lexists(socket_path(other))


def test_serve_without_a_current_index_says_how_to_build_one(tmp_path, archive_folder):
    folder = tmp_path / "f"
    folder.mkdir()
    shutil.copy2(archive_folder / REPORTS[0], folder)
    proc = _ddrsearch("serve", "--dir", str(folder), "--index", str(tmp_path / "none"))
    assert proc.returncode == 1 and b"no current index at" in proc.stderr and b"ddrsearch index build --dir" in proc.stderr


def test_ask_through_the_server_answers_as_alone_and_leaves_search_as_it_was(served):
    folder, index, server = served
    where = ["--dir", str(folder), "--index", str(index)]
    for argv in (["ask", "when did we last get stuck?", *where], ["ask", "wen did the pipe get stuk", "-k", "3", *where],
                 ["search", "stuk pipe wile drilling", *where]):  # after an ask: a search's notes still say rows
        before = server.requests()
        via, alone = _ddrsearch(*argv), _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0"))
        assert server.requests() - before == 1, argv
        assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode), argv
        assert via.returncode == 0 and via.stdout


def test_a_server_whose_code_changed_stops_at_a_ping_instead_of_refusing_a_new_one(tmp_path):
    from ddrsearch.cli.serve import IndexServer, _code_stamp

    package = tmp_path / "pkg"
    package.mkdir()
    (package / "mod.py").write_text("x = 1\n")
    server = object.__new__(IndexServer)  # the handler's state alone: no index is needed for a ping
    logged = []
    server.package, server.stamp, server.log = package, _code_stamp(package), logged.append
    server.folder, server.requests = tmp_path, 0
    answer, stop = server.handle({"command": "ping"})
    assert answer["pong"] and not stop
    (package / "mod.py").write_text("x = 22\n")  # a git pull while the server runs
    answer, stop = server.handle({"command": "ping"})
    # before: pong, so a ddrsearch serve started on the new code was refused ("another ddrsearch serve answers")
    assert "pong" not in answer and answer["fallback"] == "the server's code is out of date" and stop
    assert "code changed" in logged[0]


def test_a_stopped_server_is_left_after_the_acknowledgement_time_with_the_same_output(served):
    folder, index, server = served
    argv = ["search", "stuck pipe", "-k", "2", "--dir", str(folder), "--index", str(index)]
    before = server.requests()
    server.proc.send_signal(signal.SIGSTOP)  # as Ctrl-Z in its terminal: connections still queue, none is read
    try:
        # a generous bound, not a speed target: before, the client waited its whole answer timeout (120 s)
        via = _ddrsearch(*argv, timeout=60)
    finally:
        server.proc.send_signal(signal.SIGCONT)
    alone = _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0"))
    assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
    assert via.returncode == 0 and via.stdout
    assert server.requests() == before  # going on, the server did not run the request its client gave up
    assert b"went away before its request was acknowledged" in server.err.read_bytes()


def test_a_request_of_the_old_protocol_is_declined_at_once_without_an_acknowledgement(served):
    import json
    import socket

    from ddrsearch.cli.client import PROTOCOL, request_for

    folder, index, server = served
    path, request = request_for(["search", "stuck pipe", "--dir", str(folder), "--index", str(index)])
    before = server.requests()
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(30)
        s.connect(path)
        s.sendall(json.dumps({**request, "v": 1}).encode() + b"\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    lines = [json.loads(line) for line in data.splitlines()]
    # before (protocol 1): answered with the search's output
    assert len(lines) == 1 and "accepted" not in lines[0] and "events" not in lines[0]
    assert lines[0]["fallback"] == f"protocol 1, this server speaks {PROTOCOL}" and lines[0]["v"] == PROTOCOL
    assert server.requests() == before


def _copy_index(index: Path, to: Path) -> Path:
    shutil.copytree(index, to, ignore=shutil.ignore_patterns("serve.sock*"))
    return to


def test_a_server_starting_while_another_is_starting_says_so_and_exits_1(tmp_path, served):
    import fcntl

    from ddrsearch.resident import LOCK_SUFFIX

    folder, index, _ = served
    other = _copy_index(index, tmp_path / "ix2")
    with open(str(socket_path(other)) + LOCK_SUFFIX, "w") as held:  # another server, between its check and its bind
        fcntl.flock(held, fcntl.LOCK_EX)
        server = Server(folder, other, tmp_path)
        try:
            code = server.proc.wait(timeout=180)  # before: it bound the socket and served
        finally:
            if server.proc.poll() is None:
                server.proc.kill()
    err = server.err.read_bytes()
    assert code == 1 and b"ddrsearch serve: another ddrsearch serve is starting at" in err, err[-2000:]
    assert b"Traceback" not in err and not os.path.lexists(socket_path(other))


def test_a_socket_path_too_long_is_refused_before_the_index_is_loaded(tmp_path, monkeypatch, capsys):
    from ddrsearch.cli import index as index_commands
    from ddrsearch.cli.command import main

    def loaded(*args, **kwargs):
        raise AssertionError("the index was loaded before the socket path was checked")

    monkeypatch.setattr(index_commands, "current_index", loaded)
    long = tmp_path / ("x" * 110)
    assert main(["serve", "--dir", str(tmp_path), "--index", str(long)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"ddrsearch serve: the socket path {long / 'serve.sock'} is ") and "--index" in err


def test_a_server_whose_first_search_warns_once_does_not_serve(tmp_path, served):
    folder, index, _ = served
    other = _copy_index(index, tmp_path / "ix2")
    cache = tmp_path / "cache-is-a-file"
    cache.write_text("not a folder")  # the embedding cache cannot be made: a warning at each process's first search
    env = _env(DDRSEARCH_CACHE_DIR=str(cache))
    with open(tmp_path / "serve.out", "wb") as out, open(tmp_path / "serve.err", "wb") as err:
        proc = subprocess.Popen([sys.executable, "-m", "ddrsearch", "serve", "--dir", str(folder), "--index",
                                 str(other)], stdout=out, stderr=err, env=env)
    try:
        end = time.monotonic() + 300
        while proc.poll() is None and time.monotonic() < end and not os.path.lexists(socket_path(other)):
            time.sleep(0.2)
        argv = ["search", "stuck pipe", "-k", "2", "--dir", str(folder), "--index", str(other)]
        via, alone = _ddrsearch(*argv, env=env), _ddrsearch(*argv, env=_env(DDRSEARCH_SERVER="0",
                                                                          DDRSEARCH_CACHE_DIR=str(cache)))
        # before: the server printed the warnings once, at its start, and its answers had none of them
        assert b"warning: " in alone.stderr
        assert (via.stdout, via.stderr, via.returncode) == (alone.stdout, alone.stderr, alone.returncode)
        assert proc.wait(timeout=60) == 1
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            proc.wait(timeout=60)
    said = (tmp_path / "serve.err").read_bytes()
    assert b"ddrsearch serve: not serving: a search in its own process prints the line(s) above" in said
    assert b"warning: " in said and not os.path.lexists(socket_path(other))

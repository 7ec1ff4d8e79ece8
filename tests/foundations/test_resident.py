"""The resident process's wire format and socket: limits, bad requests, a dead socket file, a busy one, mode 0600."""

from __future__ import annotations

import json
import os
import socket
import threading

import pytest

from ddrsearch import resident
from ddrsearch.errors import ServerBusyError


@pytest.fixture
def sock_path(tmp_path):
    return str(tmp_path / "s.sock")


class _Running:
    """A server in a thread; ``stop()`` asks it to stop (a request with ``"stop"``) and closes its socket."""

    def __init__(self, path, handle, **kw):
        self.path, self.sock, self.result = path, resident.listen(path), {}

        def stoppable(request):
            return ({}, True) if request.get("stop") else handle(request)

        self.thread = threading.Thread(
            target=lambda: self.result.setdefault("why", resident.serve(self.sock, stoppable, **kw)), daemon=True)
        self.thread.start()

    def stop(self):
        if self.thread.is_alive():
            resident.call(self.path, {"stop": 1})
            self.thread.join(10)
        self.sock.close()


def _start(path, handle, **kw):
    running = _Running(path, handle, **kw)
    return running, running.thread, running.result


def _raw(path, data: bytes) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(10)
        s.connect(path)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        got = b""
        while not got.endswith(b"\n"):
            chunk = s.recv(65536)
            assert chunk
            got += chunk
    return json.loads(got)


def test_a_request_is_answered_and_the_handler_can_stop_the_server(sock_path):
    seen = []

    def handle(request):
        seen.append(request)
        return {"echo": request["x"]}, request["x"] == "stop"

    sock, thread, result = _start(sock_path, handle, log=lambda line: None)
    try:
        assert os.stat(sock_path).st_mode & 0o777 == 0o600
        assert resident.call(sock_path, {"x": "hé\u2028"}) == {"echo": "hé\u2028"}
        assert resident.call(sock_path, {"x": "stop"}) == {"echo": "stop"}
        thread.join(10)
        assert result["why"] == "stopped" and len(seen) == 2
    finally:
        sock.stop()


@pytest.mark.parametrize(("data", "reason"), [
    (b"not json\n", "not JSON"),
    (b"[1]\n", "a JSON list, not an object"),
    (b'{"a": 1}', "not ended by a newline"),
    (b"\xff\xfe\n", "not JSON in UTF-8"),
    (b"[" * 100_000 + b"\n", "longer than"),
    (b'{"a": "' + b"x" * resident.MAX_REQUEST_BYTES + b'"}\n', "longer than"),
])
def test_a_bad_request_is_answered_with_an_error_and_the_server_goes_on(sock_path, data, reason):
    logged = []
    sock, thread, _ = _start(sock_path, lambda r: ({"ok": True}, False), log=logged.append)
    try:
        answer = _raw(sock_path, data)
        assert answer["error"].startswith("bad request: ") and reason in answer["error"], answer
        assert resident.call(sock_path, {"x": 1}) == {"ok": True}
        assert logged and "bad request" in logged[0]
    finally:
        sock.stop()


def test_a_request_sent_a_byte_at_a_time_is_cut_off_at_the_read_timeout_in_all(sock_path, monkeypatch):
    import time

    monkeypatch.setattr(resident, "READ_TIMEOUT", 1.0)
    sock, thread, _ = _start(sock_path, lambda r: ({"ok": True}, False), log=lambda line: None)
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(sock_path)
            t0, got = time.monotonic(), b""
            for byte in b'{"command": "ping"}':  # one byte every 0.3 s, each within the timeout
                try:
                    s.send(bytes([byte]))
                except OSError:  # the server has answered and closed
                    break
                time.sleep(0.3)
            while not got.endswith(b"\n"):
                chunk = s.recv(65536)
                assert chunk
                got += chunk
            took = time.monotonic() - t0
        # before: each recv had its own 1 s, so the 19 bytes held the server for 5.7 s and were answered
        assert "no complete request within 1 s" in json.loads(got)["error"] and took < 3, (got, took)
        assert resident.call(sock_path, {"x": 1}) == {"ok": True}
    finally:
        sock.stop()


def test_a_handler_that_raises_is_an_internal_error_not_a_stop(sock_path):
    def handle(request):
        if request.get("boom"):
            raise KeyError("boom")
        return {"ok": True}, False

    sock, _, _ = _start(sock_path, handle, log=lambda line: None)
    try:
        assert resident.call(sock_path, {"boom": 1}) == {"error": "internal error: KeyError: 'boom'"}
        assert resident.call(sock_path, {}) == {"ok": True}
    finally:
        sock.stop()


def test_the_server_stops_when_idle(sock_path):
    sock = resident.listen(sock_path)
    try:
        assert resident.serve(sock, lambda r: ({}, False), idle_seconds=0.2, log=lambda line: None) == "idle"
    finally:
        sock.close()


def test_the_server_stops_when_it_is_no_longer_alive(sock_path, monkeypatch):
    monkeypatch.setattr(resident, "CHECK_SECONDS", 0.1)
    sock = resident.listen(sock_path)
    inode = os.stat(sock_path).st_ino

    def alive():
        try:
            return os.lstat(sock_path).st_ino == inode
        except OSError:
            return False

    try:
        os.unlink(sock_path)  # the index folder deleted under the server
        # before: no check, the server (hundreds of MB) waited for its idle minutes though no client could reach it
        assert resident.serve(sock, lambda r: ({}, False), idle_seconds=30, log=lambda line: None,
                              alive=alive) == "gone"
    finally:
        sock.close()


@pytest.mark.skipif(not hasattr(socket, "SO_PEERCRED"), reason="SO_PEERCRED is Linux's")
def test_a_server_of_another_user_is_not_trusted_even_when_the_file_looked_ours(sock_path, monkeypatch):
    running, _, _ = _start(sock_path, lambda r: ({"events": [[1, "planted\n"]], "code": 0}, False),
                           log=lambda line: None)
    try:
        assert resident.call(sock_path, {"x": 1}) == {"events": [[1, "planted\n"]], "code": 0}
        # the file checked, then swapped for another user's socket before the connect: the peer is another uid
        monkeypatch.setattr(resident, "_owned_socket", lambda path: True)
        monkeypatch.setattr(os, "getuid", lambda: os.geteuid() + 4242)
        assert resident.call(sock_path, {"x": 1}) is None
    finally:
        monkeypatch.undo()
        running.stop()


def test_a_dead_socket_file_is_replaced_and_a_live_one_refused(sock_path):
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(sock_path)  # a killed server's file: nobody listens on it
    dead.close()
    assert resident.call(sock_path, {"x": 1}) is None  # refused: the client does the work itself
    live = resident.listen(sock_path)
    try:
        with pytest.raises(ServerBusyError, match="another ddrsearch serve answers at"):
            resident.listen(sock_path)
    finally:
        live.close()


def test_a_file_that_is_not_a_socket_is_left_alone(sock_path):
    with open(sock_path, "w") as f:
        f.write("mine")
    with pytest.raises(OSError, match="is not a socket"):
        resident.listen(sock_path)
    with open(sock_path) as f:
        assert f.read() == "mine"
    assert resident.call(sock_path, {}) is None


def test_a_socket_path_too_long_is_refused_by_the_server_and_skipped_by_the_client(tmp_path):
    path = str(tmp_path / ("x" * 120) / "s.sock")
    with pytest.raises(ValueError, match="more than the 107"):
        resident.listen(path)
    assert resident.call(path, {}) is None


def test_no_server_is_none(sock_path):
    assert resident.call(sock_path, {"x": 1}) is None


def test_a_server_that_does_not_acknowledge_is_given_up_after_the_acknowledgement_time(sock_path):
    """A server stopped with SIGSTOP or Ctrl-Z: the kernel still queues the connection, nobody reads it."""
    stopped = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    stopped.bind(sock_path)
    stopped.listen(4)  # listening, never accepting
    got = {}
    try:
        waiting = threading.Thread(target=lambda: got.setdefault(
            "answer", resident.call(sock_path, {"x": 1}, timeout=None, ack_timeout=0.3)), daemon=True)
        waiting.start()
        waiting.join(60)  # a generous bound: without the acknowledgement's time it waits as long as ``timeout``
        assert not waiting.is_alive() and got == {"answer": None}
    finally:
        stopped.close()


def test_the_acknowledgement_comes_before_the_handler_runs_and_a_caller_skips_it(sock_path):
    release = threading.Event()

    def handle(request):
        release.wait(30)
        return {"echo": request["x"]}, False

    running = _Running(sock_path, handle, log=lambda line: None,
                       accept=lambda r: None if r.get("stop") else {"accepted": True, "n": r["x"]})
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(30)
            s.connect(sock_path)
            s.sendall(b'{"x": 1}\n')
            got = b""
            while not got.endswith(b"\n"):
                got += s.recv(65536)
            assert json.loads(got) == {"accepted": True, "n": 1}  # while the handler still waits
            assert resident.is_ack(json.loads(got))
            release.set()
            while got.count(b"\n") < 2:
                chunk = s.recv(65536)
                assert chunk
                got += chunk
            assert json.loads(got.splitlines()[1]) == {"echo": 1}
        assert resident.call(sock_path, {"x": 2}, ack_timeout=5) == {"echo": 2}
        assert resident.call(sock_path, {"x": 3}) == {"echo": 3}  # a caller that awaits none skips it
    finally:
        release.set()
        running.stop()


def test_a_request_whose_client_left_before_the_acknowledgement_is_not_handled(sock_path):
    release, seen, logged = threading.Event(), [], []

    def handle(request):
        seen.append(request["x"])
        if request["x"] == "first":
            release.wait(30)
        return {"ok": True}, False

    running = _Running(sock_path, handle, log=logged.append, accept=lambda r: {"accepted": True})
    try:
        busy = threading.Thread(target=resident.call, args=(sock_path, {"x": "first"}), daemon=True)
        busy.start()
        for _ in range(3000):  # the first request is being handled (at most 30 s)
            if seen:
                break
            threading.Event().wait(0.01)
        assert seen == ["first"]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:  # queued behind "first", then given up
            s.connect(sock_path)
            s.sendall(b'{"x": "gone"}\n')
        release.set()
        busy.join(30)
        assert resident.call(sock_path, {"x": "next"}, ack_timeout=5) == {"ok": True}
        assert seen == ["first", "next"] and any("went away" in line for line in logged)
    finally:
        release.set()
        running.stop()


def test_a_server_that_holds_the_lock_makes_a_second_one_refuse(sock_path):
    import fcntl

    with open(sock_path + resident.LOCK_SUFFIX, "w") as held:  # another server between its check and its bind
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(ServerBusyError, match="another ddrsearch serve is starting at"):
            resident.listen(sock_path)
    assert not os.path.lexists(sock_path)
    sock = resident.listen(sock_path)  # the lock released: this one binds
    try:
        assert os.stat(sock_path + resident.LOCK_SUFFIX).st_mode & 0o777 == 0o600
        with pytest.raises(ServerBusyError, match="another ddrsearch serve answers at"):
            resident.listen(sock_path)  # the lock is free, the socket answers
    finally:
        sock.close()


def test_two_servers_over_a_dead_socket_file_cannot_both_bind(sock_path, monkeypatch):
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(sock_path)  # a killed server's file
    dead.close()
    first_checked, go_on, first = threading.Event(), threading.Event(), {}
    unlink = os.unlink

    def slow_unlink(path, *a, **kw):  # the first server, between finding the file dead and removing it
        if threading.current_thread().name == "first" and os.fspath(path) == sock_path:
            first_checked.set()
            go_on.wait(30)
        return unlink(path, *a, **kw)

    monkeypatch.setattr(os, "unlink", slow_unlink)

    def start_first():
        try:
            first["sock"] = resident.listen(sock_path)
        except Exception as exc:  # reported by the assertion below
            first["error"] = exc

    thread = threading.Thread(target=start_first, name="first", daemon=True)
    thread.start()
    assert first_checked.wait(30)
    try:
        # before: the second also found the file dead, removed it and bound; the first then removed the
        # second's file and bound its own, and the second listened on a socket no client could reach
        with pytest.raises(ServerBusyError, match="is starting"):
            second = resident.listen(sock_path)
            second.close()
    finally:
        go_on.set()
        thread.join(30)
    assert "sock" in first, first
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:  # the file at the path is the first's
            probe.connect(sock_path)
            first["sock"].settimeout(10)
            conn, _ = first["sock"].accept()
            conn.close()
    finally:
        first["sock"].close()


def test_a_socket_path_too_long_is_named_with_what_to_do(tmp_path):
    path = str(tmp_path / ("x" * 120) / "s.sock")
    with pytest.raises(ValueError, match="more than the 107 .* use a shorter index folder") as caught:
        resident.check_path(path)
    assert path in str(caught.value)
    resident.check_path(str(tmp_path / "s.sock"))  # short enough: nothing said


def test_a_lock_file_linked_to_another_file_is_refused_and_that_file_left_alone(sock_path, tmp_path):
    """Before: a hard link planted at ``<socket>.lock`` (to a file of the server's user elsewhere) was opened,
    chmodded to 0600 and locked: ``listen`` changed the mode of a file outside the index folder."""
    other = tmp_path / "elsewhere.txt"
    other.write_text("not a lock\n")
    other.chmod(0o644)
    os.link(other, sock_path + resident.LOCK_SUFFIX)
    with pytest.raises(OSError, match=r"s\.sock\.lock has 2 names .*remove it"):
        resident.listen(sock_path)
    assert other.stat().st_mode & 0o777 == 0o644 and other.read_text() == "not a lock\n"
    assert not os.path.lexists(sock_path)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="giving a file to another user needs root")
def test_a_lock_file_of_another_user_is_refused(sock_path):
    """Before: another user's lock file (in a folder both can write) was opened and locked, its mode left as that
    user set it; the server now says whose it is."""
    lock = sock_path + resident.LOCK_SUFFIX
    with open(lock, "w"):
        pass
    os.chown(lock, 54321, 54321)
    with pytest.raises(OSError, match="belongs to another user"):
        resident.listen(sock_path)
    assert not os.path.lexists(sock_path)

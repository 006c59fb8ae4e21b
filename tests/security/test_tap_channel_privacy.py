"""The live channel between taps and the window (inspector/core/tap/channel.py) is private to the user.

Both ends are checked, each layer on its own:

- the window (a real app process) listens in a 0700 folder on a 0600 socket; another user cannot reach it
  (file permissions); with the folder and socket opened up on purpose, it is still refused, by the
  ``SO_PEERCRED`` check, before the window reads a byte;
- a tap streams only to a listener of its own user: not in a folder others may write to, not on a socket file
  of another user, and not to a listener process of another user (``SO_PEERCRED`` again).

Becoming another user needs root (the rows say "not run" otherwise).
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import warm_cli
from helpers import ROOT, wait_until
from ui.gui_process import GuiApp, private_env

NOBODY = 65534
BOUND = 20.0
SILENT_SERVER = [sys.executable, "-c", "import sys; sys.stdin.read()"]

pytestmark = pytest.mark.skipif(os.getuid() != 0, reason="becoming another user needs root")

# exit codes of the other user's process
CONNECTED_AND_HUNG_UP = 0  #: it could connect and the listener closed the connection without taking the hello
CONNECTED_AND_HELD = 3  #: it could connect and the listener kept the connection (a tap would be shown)
NO_ACCESS = 13  #: the file system did not let it reach the socket


def connect_as(uid: int, path: Path, wait: float) -> int:
    """In a child that became ``uid``: connect to ``path``, say hello as a tap, and see what the listener does
    within ``wait`` seconds. Returns the child's exit code (see above)."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 1
        try:
            if uid != os.getuid():
                os.setgid(uid)
                os.setuid(uid)
            with socket.socket(socket.AF_UNIX) as client:
                client.settimeout(wait)
                client.connect(str(path))
                try:
                    client.sendall(b'{"type":"tap","protocol":1,"name":"intruder","pid":1,"capture":null,'
                                   b'"target":{},"next_seq":1}\n')
                    code = CONNECTED_AND_HUNG_UP if client.recv(1) == b"" else 1
                except ConnectionError:
                    code = CONNECTED_AND_HUNG_UP
                except TimeoutError:
                    code = CONNECTED_AND_HELD
        except PermissionError:
            code = NO_ACCESS
        finally:
            os._exit(code)
    return exit_code_of(pid)


def exit_code_of(pid: int) -> int:
    statuses: list[int] = []

    def exited() -> bool:
        got, status = os.waitpid(pid, os.WNOHANG)
        if got:
            statuses.append(status)
        return bool(statuses)

    wait_until(exited, BOUND + 10, "the other user's process")
    return os.waitstatus_to_exitcode(statuses[0])


@pytest.mark.integration  # end to end through subprocesses, 4-7 s: CI's second step
@pytest.mark.report("security", "the window's tap channel: 0700 folder, 0600 socket, another user is refused "
                                "by the permissions and, with them opened, by SO_PEERCRED", surface="GUI")
def test_the_windows_tap_socket_is_private_and_refuses_another_user_at_both_layers(tmp_path, short_dir, report):
    app = GuiApp(["--demo"], private_env(tmp_path / "home", XDG_RUNTIME_DIR=str(short_dir)))
    try:
        app.ready()
        folder = short_dir / "mcp-inspector"
        sock = folder / "tap.sock"
        wait_until(sock.exists, BOUND, "the window's tap socket")
        modes = (stat.S_IMODE(os.stat(folder).st_mode), stat.S_IMODE(os.lstat(sock).st_mode))
        assert modes == (0o700, 0o600)
        assert os.lstat(sock).st_uid == os.getuid()
        blocked = connect_as(NOBODY, sock, BOUND)
        # a tap of our own user is taken (and kept): the control for what follows
        ours = connect_as(os.getuid(), sock, 2.0)
        for path, mode in ((short_dir, 0o755), (folder, 0o755), (sock, 0o666)):
            os.chmod(path, mode)
        refused = connect_as(NOBODY, sock, BOUND)
    finally:
        app.stop()
    assert (blocked, ours, refused) == (NO_ACCESS, CONNECTED_AND_HELD, CONNECTED_AND_HUNG_UP)
    report.saw(f"folder {modes[0]:04o}, socket {modes[1]:04o}; uid {NOBODY}: permission denied; with folder and "
               "socket opened to everyone: connected, then hung up on before its hello was read (SO_PEERCRED); "
               "our own uid: connection kept")


def run_tap(sock: Path, tmp_path: Path) -> str:
    """A live tap of a silent server, told to stream to ``sock``; its stderr once the client went away."""
    tmp_path.mkdir()
    tap = warm_cli.Popen([sys.executable, "-m", "inspector", "tap", "--capture", str(tmp_path / "c.jsonl"),
                            "--socket", str(sock), "--", *SILENT_SERVER], cwd=ROOT,
                           env=private_env(tmp_path / "home"), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE)
    try:
        _, stderr = tap.communicate(b"", timeout=BOUND + 10)
    finally:
        if tap.poll() is None:
            tap.kill()
            tap.communicate(timeout=10)
    assert (tmp_path / "c.jsonl").exists(), "the tap did not record"
    return stderr.decode(errors="replace")


def listener_as_nobody(sock: Path) -> tuple[int, int]:
    """Bind ``sock`` as ourselves, then fork a child that becomes another user, listens and counts what the first
    connection sends (a socket file of ours, a listener process of theirs). Returns (pid, read end of a pipe
    that says "listening", then how many bytes arrived)."""
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        got = -1
        try:
            os.close(read_end)
            os.setgid(NOBODY)
            os.setuid(NOBODY)
            server.listen(1)  # SO_PEERCRED reports the credentials of whoever called listen()
            os.write(write_end, b"L")
            server.settimeout(BOUND)
            conn, _ = server.accept()
            conn.settimeout(BOUND)
            got = 0
            with conn:
                while chunk := conn.recv(65536):
                    got += len(chunk)
        except OSError:
            pass
        finally:
            os.write(write_end, f"{got}\n".encode())
            os._exit(0)
    server.close()
    os.close(write_end)
    assert os.read(read_end, 1) == b"L"
    return pid, read_end


@pytest.mark.report("security", "a tap streams only to a listener of its own user: not in a folder others can "
                                "write, not on another user's socket, not to another user's process",
                    surface="CLI")
def test_a_tap_does_not_stream_to_a_shared_folder_another_users_socket_or_another_users_listener(tmp_path, short_dir,
                                                                                                 report):
    seen = []
    # 1. a folder others may write to (someone could have put the socket there)
    shared = short_dir / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(shared / "tap.sock"))
        listener.listen(1)
        listener.setblocking(False)
        stderr = run_tap(shared / "tap.sock", tmp_path / "1")
        with pytest.raises(BlockingIOError):
            listener.accept()  # the tap never even connected
    assert "is not private" in stderr and "not streaming to it" in stderr, stderr
    seen.append("a folder others can write: not connected")
    # 2. a socket file that belongs to another user, in a private folder of ours
    private = short_dir / "private"
    private.mkdir(mode=0o700)
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(str(private / "tap.sock"))
        os.chown(private / "tap.sock", NOBODY, NOBODY)
        listener.listen(1)
        listener.setblocking(False)
        stderr = run_tap(private / "tap.sock", tmp_path / "2")
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert "is not a socket of yours" in stderr, stderr
    seen.append("another user's socket file: not connected")
    # 3. our own socket file in our own folder, but the process listening on it is another user
    own = short_dir / "own"
    own.mkdir(mode=0o700)
    pid, results = listener_as_nobody(own / "tap.sock")
    try:
        stderr = run_tap(own / "tap.sock", tmp_path / "3")
    finally:
        code = exit_code_of(pid)
    with contextlib.closing(os.fdopen(results, "rb")) as pipe:
        received = int(pipe.read().strip() or b"-1")
    assert code == 0
    assert f"runs as another user (uid {NOBODY})" in stderr and "not streaming to it" in stderr, stderr
    assert received == 0, f"the other user's listener received {received} bytes"
    seen.append(f"a listener process of uid {NOBODY}: connected, saw its uid, sent 0 bytes")
    report.saw("the tap said why and streamed nothing: " + "; ".join(seen))

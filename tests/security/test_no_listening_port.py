"""No mode of mcp-inspector opens a listening TCP port (README: "It opens no listening port").

Each mode runs as a real process, and is looked at while it is busy: every socket its processes hold (a tap
forks a recorder: both are checked; the server is not the inspector and is not checked) is matched against the
kernel's TCP and UDP tables. Connecting out (an HTTP server), pipes and the window's private Unix socket for
taps are expected; a TCP listener, or any UDP socket, is not.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import warm_cli
from helpers import ROOT, wait_until
from security_support import (
    SilentTcpServer,
    inspector_processes,
    network_sockets,
    socket_inodes,
    unix_listening_paths,
)
from ui.gui_process import GuiApp, kill_server_group, private_env

SILENT_SERVER = [sys.executable, "-c", "import sys; sys.stdin.read()"]  # reads until EOF, never answers
SAMPLE = ROOT / "tests" / "data" / "sample-v1.jsonl"


def inspector(*args: str, env: dict[str, str]) -> subprocess.Popen[bytes]:
    return warm_cli.Popen([sys.executable, "-m", "inspector", *args], cwd=ROOT, env=env, stdin=subprocess.PIPE,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def check(process_pid: int, report, what: str) -> None:
    pids = inspector_processes(process_pid)
    held = set().union(*(socket_inodes(pid) for pid in pids))
    found = network_sockets(pids)
    unix = unix_listening_paths(held)
    assert held, "expected at least the event loop's own socket pair"
    assert found["tcp listening"] == set(), f"{what} listens on TCP"
    assert found["udp"] == set(), f"{what} holds a UDP socket"
    report.saw(f"{what}: {len(pids)} inspector process{'es' if len(pids) > 1 else ''} holding {len(held)} sockets, "
               f"{len(found['tcp'])} outgoing TCP, no TCP listener, no UDP"
               + (f"; listening only on the private Unix socket {Path(unix[0]).name}" if unix else ""))


def run_while_busy(process: subprocess.Popen[bytes], busy: Callable[[], bool], what: str, report) -> None:
    try:
        wait_until(lambda: process.poll() is not None or busy(), 30, f"{what} to be busy")
        assert process.poll() is None, f"{what} ended before it could be looked at"
        check(process.pid, report, what)
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        assert process.stdin is not None
        process.stdin.close()


def mentions(path: Path, text: str) -> Callable[[], bool]:
    return lambda: path.exists() and text in path.read_text(errors="replace")


@pytest.mark.report("security", "record (stdio) opens no listening port", surface="CLI")
def test_record_of_a_stdio_server_holds_no_listening_tcp_socket(tmp_path, report):
    out = tmp_path / "c.jsonl"
    process = inspector("record", "--out", str(out), "--handshake", "legacy", "--timeout", "20", "--",
                        *SILENT_SERVER, env=private_env(tmp_path / "home"))
    try:
        run_while_busy(process, mentions(out, "initialize"), "record waiting for a stdio server", report)
    finally:
        kill_server_group(out)


@pytest.mark.report("security", "record --url opens no listening port", surface="CLI")
def test_record_of_an_http_server_holds_no_listening_tcp_socket(tmp_path, report):
    server = SilentTcpServer()
    out = tmp_path / "c.jsonl"
    process = inspector("record", "--url", server.url, "--transport", "streamable-http", "--out", str(out),
                        "--timeout", "20", env=private_env(tmp_path / "home"))
    try:
        run_while_busy(process, lambda: bool(socket_inodes(process.pid) & server.connected_inodes()),
                       "record connected to an HTTP server", report)
    finally:
        server.close()


@pytest.mark.report("security", "tap opens no listening port", surface="CLI")
def test_tap_and_its_recorder_hold_no_listening_tcp_socket(tmp_path, short_dir, report):
    out = tmp_path / "c.jsonl"
    process = inspector("tap", "--capture", str(out), "--socket", str(short_dir / "tap.sock"), "--", *SILENT_SERVER,
                        env=private_env(tmp_path / "home"))
    try:
        run_while_busy(process, lambda: mentions(out, '"spawned"')() and len(inspector_processes(process.pid)) > 1,
                       "tap relaying a server (with its recorder)", report)
    finally:
        kill_server_group(out)


@pytest.mark.report("security", "replay opens no listening port", surface="CLI")
def test_replay_holds_no_listening_tcp_socket(tmp_path, report):
    out = tmp_path / "replay.jsonl"
    process = inspector("replay", str(SAMPLE), "--out", str(out), "--timeout", "20", "--", *SILENT_SERVER,
                        env=private_env(tmp_path / "home"))
    try:
        run_while_busy(process, mentions(out, "initialize"), "replay waiting for a server's answer", report)
    finally:
        kill_server_group(out)


@pytest.mark.report("security", "the window (a live session and the tap listener) opens no listening port",
                    surface="GUI")
def test_the_window_with_a_live_session_and_the_tap_listener_holds_no_listening_tcp_socket(tmp_path, short_dir,
                                                                                           report):
    app = GuiApp(["--demo"], private_env(tmp_path / "home", XDG_RUNTIME_DIR=str(short_dir)))
    try:
        app.ready()
        sock = short_dir / "mcp-inspector" / "tap.sock"
        wait_until(sock.exists, 30, "the tap listener's socket")
        assert str(sock) in unix_listening_paths(socket_inodes(app.pid)), "the tap listener is not this window's"
        check(app.pid, report, "the window with a live session (the demo server) and the tap listener")
    finally:
        app.stop()

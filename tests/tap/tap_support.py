"""Shared by the tap tests (imported as ``tap_support``; pytest puts this folder on the path): how to run a
tap the way a client does, scripted client sessions, and what a capture says about each direction."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import warm_cli
import warm_python
from helpers import ROOT

from inspector.core.capture import Capture
from inspector.core.wire.events import Event, Kind

SERVERS = Path(__file__).resolve().parent / "servers"
DEMO = warm_python.module_command("inspector.demo")
#: The demo started cold, for tests of what a signal does to the server: a warm server's signals and exit go
#: through the zygote (tests/warm_python_client.py), which a loaded machine can slow past the tap's 2 s grace
#: before SIGKILL (seen once: exit 137 where SIGTERM's 143 was due).
DEMO_COLD = [sys.executable, "-m", "inspector.demo"]
SCRIPT = [sys.executable, str(SERVERS / "script_server.py")]
FLOOD = [sys.executable, str(SERVERS / "flood_server.py")]
#: Every subprocess of these tests is bounded by this.
TIMEOUT = 60

#: What a client says to the demo: a handshake, a few requests and one line that is not JSON.
DEMO_SESSION = b"".join(line + b"\n" for line in (
    b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25",'
    b'"capabilities":{},"clientInfo":{"name":"scripted-client","version":"1"}}}',
    b'{"jsonrpc":"2.0","method":"notifications/initialized"}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    b"this line is not JSON",
    b'{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo","arguments":{"text":"h\xc3\xa9llo"}}}',
    b'{"jsonrpc":"2.0","id":4,"method":"ping"}',
))

#: What a client says to the script server: valid requests, invalid UTF-8 with CRLF, a blank line, a CRLF
#: message and a last line without newline.
SCRIPT_SESSION = (b'{"jsonrpc":"2.0","id":1,"method":"initialize"}\n'
                  b"\xff\xfe invalid utf-8\r\n"
                  b'{"jsonrpc":"2.0","id":2,"method":"junk"}\n'
                  b"\n"
                  b'{"jsonrpc":"2.0","id":3,"method":"tools/list"}\r\n'
                  b'{"jsonrpc":"2.0","id":4,"method":"last"}')


def tap(*server: str, capture: Path | None = None, name: str | None = None, live: bool = False,
        socket: Path | None = None) -> list[str]:
    """The command line a client runs: ``python -m inspector tap [...] -- SERVER``."""
    argv = [sys.executable, "-m", "inspector", "tap"]
    if capture is not None:
        argv += ["--capture", str(capture)]
    if name is not None:
        argv += ["--name", name]
    if socket is not None:
        argv += ["--socket", str(socket)]
    if not live:
        argv.append("--no-live")  # never stream to a window the user may have open
    return [*argv, "--", *server]


def run(argv: list[str], stdin: bytes | Path = b"", env: dict[str, str] | None = None,
        timeout: float = TIMEOUT) -> subprocess.CompletedProcess[bytes]:
    """Run a command as a client would: stdin from bytes (a pipe, closed at the end) or a file."""
    full_env = {**os.environ, **(env or {})}
    if isinstance(stdin, Path):
        with stdin.open("rb") as handle:
            return warm_cli.run(argv, stdin=handle, capture_output=True, timeout=timeout, cwd=ROOT, env=full_env)
    return warm_cli.run(argv, input=stdin, capture_output=True, timeout=timeout, cwd=ROOT, env=full_env)


def wire(capture: Capture, direction: str) -> bytes:
    """The bytes of one direction, put back together from the capture's message and framing-error events."""
    return b"".join(e.raw + e.eol for e in capture.events
                    if e.kind in (Kind.MESSAGE, Kind.FRAMING_ERROR) and e.dir == direction)


def stderr_of(capture: Capture) -> bytes:
    return b"".join(e.raw + e.eol for e in capture.events if e.kind == Kind.STDERR)


def lifecycle(capture: Capture, what: str) -> list[Event]:
    return [e for e in capture.events if e.kind == Kind.LIFECYCLE and e.data.get("what") == what]


def stop(process: subprocess.Popen[bytes]) -> None:
    """Make sure a client process is gone and its pipes are closed (bounded)."""
    if process.poll() is None:
        process.kill()
    process.wait(timeout=TIMEOUT)
    for stream in (process.stdin, process.stdout, process.stderr):
        if stream is not None:
            try:
                stream.close()
            except OSError:
                pass

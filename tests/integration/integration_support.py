"""Helpers for the integration tests: run the CLI as a real subprocess (bounded), load and query captures.

A plain module (not the conftest) so that test modules can import it by name.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import warm_cli

from inspector.core.capture import Capture, read_capture
from inspector.core.wire.events import Event, Kind

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
SERVERS = HERE / "servers"

#: One record run against one server: startup (node, the SDK import) plus a few round trips plus shutdown.
CLI_TIMEOUT = 60.0


# -- the CLI ----------------------------------------------------------------------------------------------


@dataclass
class Recorded:
    """One ``mcp-inspector record`` run: its exit status and output, and the capture it wrote."""

    returncode: int
    stdout: str
    stderr: str
    out: Path
    argv: list[str]

    @property
    def capture(self) -> Capture:
        return load_capture(self.out)

    def explain(self) -> str:
        """What to print when an assertion about this run fails."""
        return f"$ {' '.join(self.argv)}\nexit {self.returncode}\nstdout: {self.stdout}\nstderr: {self.stderr}"


def cli_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), *filter(None, [env.get("PYTHONPATH")])])
    env.update(extra or {})
    return env


def start_inspector(args: list[str]) -> subprocess.Popen[str]:
    """Start ``python -m inspector ARGS`` in a process of its own, as a user would (tests/warm_cli.py: forked
    from a warm interpreter unless MCP_INSPECTOR_TESTS_COLD_CLI=1); the caller bounds the wait.

    A test run started in the background (``pytest &``, some CI runners) has SIGINT ignored, which children
    inherit, and Python then never turns Ctrl-C into KeyboardInterrupt; the child takes SIGINT as a user's
    command does all the same (``sigint_default``), and still starts warm.
    """
    return warm_cli.Popen([sys.executable, "-m", "inspector", *args], sigint_default=True,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          encoding="utf-8", errors="backslashreplace", cwd=REPO, env=cli_env())


def finish_inspector(process: subprocess.Popen[str], timeout: float, capture_file: Path | None = None
                     ) -> subprocess.CompletedProcess[str]:
    """Wait at most ``timeout`` seconds for a started inspector.

    On timeout the inspector is killed, and so is the server's process group (the server runs in a session
    of its own, so killing the inspector alone would leave it behind); then the test fails.
    """
    try:
        stdout, stderr = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        stdout, stderr = process.communicate(timeout=10)
        if capture_file is not None:
            kill_spawned_groups(capture_file)
        pytest.fail(f"mcp-inspector did not finish within {timeout:g} s: {' '.join(map(str, process.args))}\n"
                    f"stdout: {stdout[-2000:]}\nstderr: {stderr[-2000:]}")
    return subprocess.CompletedProcess(process.args, process.returncode, stdout, stderr)


def run_inspector(args: list[str], *, timeout: float = CLI_TIMEOUT, capture_file: Path | None = None
                  ) -> subprocess.CompletedProcess[str]:
    """Run ``python -m inspector ARGS`` to completion, bounded by ``timeout`` (see :func:`finish_inspector`)."""
    return finish_inspector(start_inspector(args), timeout, capture_file)


def kill_spawned_groups(capture_file: Path) -> None:
    """SIGKILL the process group of every server a (possibly half-written) capture says was spawned."""
    try:
        lines = capture_file.read_bytes().splitlines()
    except OSError:
        return
    for line in lines:
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if not isinstance(obj, dict):
            continue
        data = obj.get("data")
        if obj.get("kind") == "lifecycle" and isinstance(data, dict) and data.get("what") == "spawned":
            try:
                os.killpg(int(data["pid"]), signal.SIGKILL)
            except (ProcessLookupError, PermissionError, KeyError, ValueError):
                pass


def record_server(directory: Path, name: str, server: list[str], *options: str,
                  send: list[dict[str, Any]] | None = None, timeout: float = CLI_TIMEOUT) -> Recorded:
    """Run ``mcp-inspector record`` on ``server``; the capture is ``directory/NAME.jsonl``.

    ``send`` is a list of JSON objects written to a ``--send`` file; ``options`` go before the ``--``.
    """
    out = directory / f"{name}.jsonl"
    args = ["record", "--out", str(out)]
    if send is not None:
        args += ["--send", str(write_messages(directory / f"{name}.send.jsonl", send))]
    args += [*options, "--", *server]
    done = run_inspector(args, timeout=timeout, capture_file=out)
    return Recorded(done.returncode, done.stdout, done.stderr, out, ["mcp-inspector", *args])


def write_messages(path: Path, messages: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def load_capture(path: Path) -> Capture:
    """Load a capture the way the GUI does and insist it loaded cleanly."""
    capture = read_capture(path)
    assert capture.header.get("format") == "mcp-inspector-capture", capture.header
    assert capture.warnings == [], capture.warnings
    return capture


# -- reading captures -------------------------------------------------------------------------------------


def messages(capture: Capture, direction: str | None = None, method: str | None = None) -> list[Event]:
    """Message events, optionally only one direction and one method (a response's method is its request's)."""
    out = []
    for event in capture.events:
        if event.kind != Kind.MESSAGE or (direction is not None and event.dir != direction):
            continue
        if method is not None and (event.rpc is None or
                                   (event.rpc.method or event.data.get("request_method")) != method):
            continue
        out.append(event)
    return out


def sent_revisions(capture: Capture) -> list[tuple[str | None, Any]]:
    """The messages the inspector sent, each with the protocol revision it asked for (initialize's
    ``protocolVersion``, else ``_meta``'s; None when it names none)."""
    out = []
    for event in messages(capture, "c2s"):
        params = event.json().get("params") or {}
        version = params.get("protocolVersion") if event.method == "initialize" else \
            (params.get("_meta") or {}).get("io.modelcontextprotocol/protocolVersion")
        out.append((event.method, version))
    return out


def by_seq(capture: Capture, seq: int) -> Event:
    return next(e for e in capture.events if e.seq == seq)


def lifecycle(capture: Capture, what: str) -> list[Event]:
    return [e for e in capture.events if e.kind == Kind.LIFECYCLE and e.data.get("what") == what]


def exchange(capture: Capture, method: str) -> tuple[Event, Event]:
    """The one request the inspector sent for ``method``, and the response the capture pairs with it."""
    requests = [e for e in messages(capture, "c2s", method) if e.rpc is not None and e.rpc.kind == "request"]
    assert len(requests) == 1, f"expected one {method} request, got {requests}"
    request = requests[0]
    responses = [e for e in messages(capture, "s2c") if e.data.get("reply_to") == request.seq]
    assert len(responses) == 1, f"{method} request #{request.seq} has no paired response: {capture.events}"
    return request, responses[0]


def errors_on_stderr(stderr: str) -> list[str]:
    """The lines of the CLI's stderr that start a message (``mcp-inspector: ...``)."""
    return [line for line in stderr.splitlines() if line.startswith("mcp-inspector:")]


def live_group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are still running (zombies and dead ones do not count). Linux /proc."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, _ppid, pgrp = stat.rsplit(")", 1)[1].split()[:3]
        if int(pgrp) == pgid and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def is_gone(pid: int) -> bool:
    """True if ``pid`` no longer runs: no such process, or only a zombie waiting to be reaped."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return True
    return state in ("Z", "X")


def spawned_pid(capture: Capture) -> int:
    spawned = lifecycle(capture, "spawned")
    assert len(spawned) == 1, spawned
    return int(spawned[0].data["pid"])

"""Support for the stdio fault matrix (test_stdio_faults.py): the servers, one bounded ``record`` run, one
bounded window session, and the checks every case ends with (one sentence, no traceback, nothing left
running, a capture that loads and holds what was received).

A plain module, not a conftest: other fault files live beside this one and share no fixtures with it. The
window fixtures (``qloop``, ``window``) are defined here and imported by the test module.
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # before pytest-qt creates the QApplication
# integration_support lives there; pytest puts only this folder on the path.
sys.path.append(str(Path(__file__).resolve().parents[1] / "integration"))

import pytest
from helpers import until
from integration_support import (
    REPO,
    Recorded,
    cli_env,
    errors_on_stderr,
    is_gone,
    kill_spawned_groups,
    lifecycle,
    live_group_members,
    load_capture,
    record_server,
    write_messages,
)
from integration_support import (
    SERVERS as INTEGRATION_SERVERS,
)
from qt_loop import qloop  # noqa: F401 - the shared fixture

from inspector.core.capture import Capture
from inspector.core.wire.events import Direction, Event, Kind

HERE = Path(__file__).resolve().parent
SERVERS = HERE / "servers"
#: Every record run of the matrix is bounded by this (the slowest case needs well under half of it).
CLI_BOUND = 45.0
#: Every wait in a window case is bounded by this.
GUI_BOUND = 30.0
#: What every case passes as the request timeout (--timeout, Target.timeout): short, so the matrix is quick.
TIMEOUT = 3
LEGACY = ("--handshake", "legacy")


def fault_server(name: str, *args: str) -> list[str]:
    """The argv of ``servers/stdio_NAME.py ARGS``, run with this Python."""
    path = SERVERS / f"stdio_{name}.py"
    assert path.exists(), f"no fault server {path}"
    return [sys.executable, str(path), *args]


def integration_server(name: str, *args: str) -> list[str]:
    """The argv of one of the integration tests' misbehaving servers (``tests/integration/servers``)."""
    path = INTEGRATION_SERVERS / f"{name}_server.py"
    assert path.exists(), f"no test server {path}"
    return [sys.executable, str(path), *args]


def one_line(text: str) -> str:
    return " ".join(text.split())


# -- the CLI ----------------------------------------------------------------------------------------------


@dataclass
class CliCase:
    """One ``mcp-inspector record`` run of a case: what it printed, its capture, how long it took."""

    run: Recorded
    seconds: float

    @property
    def sentence(self) -> str:
        """The CLI's one message: exactly one ``mcp-inspector: ...`` on stderr (continuation lines of the
        same message, such as quoted stderr lines, included), and no traceback."""
        errors = errors_on_stderr(self.run.stderr)
        assert len(errors) == 1, self.run.explain()
        assert "Traceback" not in self.run.stderr and "Traceback" not in self.run.stdout, self.run.explain()
        return self.run.stderr.strip()

    @property
    def capture(self) -> Capture:
        return load_capture(self.run.out)


def record_case(tmp_path: Path, server: list[str], *options: str, send: list[dict[str, Any]] | None = None,
                timeout: float = TIMEOUT, bound: float = CLI_BOUND) -> CliCase:
    """Run ``mcp-inspector record --handshake legacy --timeout 3 OPTIONS -- SERVER`` as a user would, bounded
    by ``bound`` (on timeout the server's process group is killed and the test fails)."""
    started = time.monotonic()
    run = record_server(tmp_path, "capture", server, *LEGACY, "--timeout", f"{timeout:g}", *options, send=send,
                        timeout=bound)
    return CliCase(run, time.monotonic() - started)


#: Runs ``python -m inspector ARGS`` as its child, waits for it with wait4 and writes the child's peak
#: resident set (it includes the server, which the inspector waited for) to the file named first, in KiB.
MEASURED = (
    "import os, sys\n"
    "pid = os.fork()\n"
    "if pid == 0:\n"
    "    os.execv(sys.executable, [sys.executable, '-m', 'inspector', *sys.argv[2:]])\n"
    "_, status, usage = os.wait4(pid, 0)\n"
    "with open(sys.argv[1], 'w') as f:\n"
    "    f.write(str(usage.ru_maxrss))\n"
    "sys.exit(os.waitstatus_to_exitcode(status))\n"
)


def record_case_measured(tmp_path: Path, server: list[str], *options: str,
                         send: list[dict[str, Any]] | None = None, bound: float = CLI_BOUND
                         ) -> tuple[CliCase, float]:
    """:func:`record_case`, plus the peak resident set in MiB of the inspector and the server it ran.

    The run goes through the small :data:`MEASURED` launcher (transparent: same output, same exit status),
    in a session of its own so a timeout can kill the launcher and the inspector together.
    """
    out = tmp_path / "capture.jsonl"
    rss_file = tmp_path / "peak-rss-kib"
    args = ["record", "--out", str(out), *LEGACY, "--timeout", str(TIMEOUT)]
    if send is not None:
        args += ["--send", str(write_messages(tmp_path / "capture.send.jsonl", send))]
    args += [*options, "--", *server]
    started = time.monotonic()
    process = subprocess.Popen([sys.executable, "-c", MEASURED, str(rss_file), *args], stdin=subprocess.DEVNULL,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
                               errors="backslashreplace", cwd=REPO, env=cli_env(), start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=bound)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate(timeout=10)
        kill_spawned_groups(out)
        pytest.fail(f"mcp-inspector did not finish within {bound:g} s: {' '.join(args)}")
    run = Recorded(process.returncode, stdout, stderr, out, ["mcp-inspector", *args])
    case = CliCase(run, time.monotonic() - started)
    return case, int(rss_file.read_text()) / 1024


def rss_mib() -> float:
    """This process's resident set now (Linux /proc), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS in /proc/self/status")


# -- checks every case ends with ---------------------------------------------------------------------------


def spawned_pid(capture: Capture) -> int:
    spawned = lifecycle(capture, "spawned")
    assert len(spawned) == 1, spawned
    return int(spawned[0].data["pid"])


def assert_nothing_left_running(capture: Capture) -> None:
    """The server and every process of its group are gone (zombies do not count)."""
    pid = spawned_pid(capture)
    assert is_gone(pid), f"server pid {pid} still runs"
    assert live_group_members(pid) == [], f"process group {pid} still has members"


def assert_never_spawned(capture: Capture, sentence: str) -> None:
    """A command that could not be started: nothing was spawned, and the capture says why."""
    assert not lifecycle(capture, "spawned"), capture.events
    notes = [e.data["text"] for e in capture.events if e.kind == Kind.NOTE]
    assert notes and notes[-1] in sentence, (notes, sentence)


def notes(capture_or_events: Capture | list[Event]) -> list[str]:
    events = capture_or_events.events if isinstance(capture_or_events, Capture) else capture_or_events
    return [e.data["text"] for e in events if e.kind == Kind.NOTE]


def from_server(capture: Capture, kind: str) -> list[Event]:
    return [e for e in capture.events if e.kind == kind and e.dir == Direction.S2C]


def assert_handshake_recorded(capture: Capture) -> None:
    """initialize went out and its answer came back and was paired (the part of the session that worked)."""
    request = next(e for e in capture.events if e.method == "initialize" and e.dir == Direction.C2S)
    assert any(e.data.get("reply_to") == request.seq for e in capture.events), "initialize has no paired answer"


# -- the window ---------------------------------------------------------------------------------------------




@pytest.fixture
def window(qapp, qloop, tmp_path):
    """A main window with its own settings, profiles and captures folder; its sessions are closed after."""
    from PySide6.QtCore import QSettings

    from inspector.core.clients.profiles import ProfileStore
    from inspector.ui.app import build_window
    from inspector.ui.session.tab import SessionTab

    settings = QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat)
    (tmp_path / "captures").mkdir()
    win = build_window(settings=settings, store=ProfileStore(tmp_path / "profiles.json"),
                     captures=tmp_path / "captures")
    win.show()
    yield win
    for index in range(win.tabs.count()):
        tab = win.tabs.widget(index)
        if isinstance(tab, SessionTab):
            qloop.run_until_complete(asyncio.wait_for(tab.close(), GUI_BOUND))
    win.settings.clear()
    win.deleteLater()


@dataclass
class GuiCase:
    """One live session in the window: the tab, the sentence the user saw and when, the capture after close."""

    tab: Any
    sentence: str
    seconds: float
    #: how much the window's resident set grew at most while the case ran (sampled at every poll), MiB
    peak_growth_mib: float = 0.0
    capture: Capture | None = None


def status_sentence(tab: Any) -> str:
    """The status line's first part, ``state: sentence`` (the counts after it are separated by `` · ``)."""
    return tab.status.text().split(" · ")[0]


def last_note(tab: Any, containing: str) -> str | None:
    found = [text for text in notes(tab.timeline.visible_events()) if containing in text]
    return found[-1] if found else None


def gui_case(window: Any, qloop: asyncio.AbstractEventLoop, target: Any,
             sentence: Callable[[Any], str | None], what: str, *,
             after_ready: Callable[[Any], None] | None = None, bound: float = GUI_BOUND) -> GuiCase:
    """Open ``target`` in the window; if ``after_ready`` is given, wait for the handshake and call it with the
    tab (to send something through the composer); then wait (bounded) until ``sentence(tab)`` is not None.

    The time is from opening the session to the sentence. Afterwards the tab is closed as a user would (the
    server shut down by the spec's rules), the timeline and stderr pane are flushed, and the capture is loaded.
    """
    from inspector.ui.session.live import CLOSED, FAILED, READY

    baseline = rss_mib()
    peak = [baseline]

    def sampled(condition: Callable[[], bool]) -> Callable[[], bool]:
        def check() -> bool:
            peak[0] = max(peak[0], rss_mib())
            return condition()
        return check

    async def scenario() -> GuiCase:
        started = time.monotonic()
        tab = window.open_live(target)
        if after_ready is not None:
            await until(sampled(lambda: tab.live.state in (READY, FAILED, CLOSED)), bound, "the handshake")
            assert tab.live.state == READY, status_sentence(tab)
            after_ready(tab)
        seen: list[str] = []

        def arrived() -> bool:
            if tab.feed is not None:
                tab.feed.flush_now()  # what the 30-a-second timer would show a moment later
            text = sentence(tab)
            if text:
                seen.append(text)
            return bool(text)

        await until(sampled(arrived), bound, what)
        case = GuiCase(tab, seen[-1], time.monotonic() - started, peak[0] - baseline)
        await asyncio.wait_for(tab.close(), bound)
        return case

    case = qloop.run_until_complete(scenario())
    assert case.tab.capture_path is not None
    case.capture = load_capture(case.tab.capture_path)
    return case


def stdin_backlog_message(kib: int) -> dict[str, Any]:
    """A tools/call whose argument is ``kib`` KiB: several times what a pipe holds (64 KiB on Linux)."""
    return {"jsonrpc": "2.0", "method": "tools/call",
            "params": {"name": "echo", "arguments": {"text": "y" * (kib * 1024)}}}

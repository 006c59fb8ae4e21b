"""Support for the HTTP and user-input rows of the fault matrix (test_http_faults.py, test_input_faults.py).

Both surfaces run for real: the CLI as a fresh ``python -m inspector`` subprocess (bounded, killed on
overrun), the GUI as the real MainWindow, offscreen, on a qasync loop. Servers are subprocesses on
127.0.0.1 only, in their own process group, killed with it at teardown (tests/http/http_support.py, reused).

What every case checks, whatever the surface: one sentence the user can act on, no traceback, every wait
bounded (no sleeps), no process left behind, and a capture that still loads.
"""

from __future__ import annotations

import asyncio
import importlib.util
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import pytest
import warm_cli
from integration.integration_support import finish_inspector, start_inspector

from inspector.core.capture import Capture, read_capture

HERE = Path(__file__).resolve().parent
TESTS = HERE.parent
FAULT_SERVER = HERE / "servers" / "http_fault_server.py"
#: Bound on one CLI run (its start, a few round trips, shutdown).
CLI_TIMEOUT = 60.0
#: Bound on the window reaching a state worth reading.
GUI_TIMEOUT = 30.0


def _http_support() -> Any:
    """tests/http/http_support.py (servers as subprocesses), under the name its own conftest gives it.

    ``http`` is also the standard library's package, so it is loaded by path, once."""
    module = sys.modules.get("http_support")
    if module is None:
        spec = importlib.util.spec_from_file_location("http_support", TESTS / "http" / "http_support.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["http_support"] = module
        spec.loader.exec_module(module)
    return module


http_support = _http_support()
ServerProcess = http_support.ServerProcess
launch = http_support.launch
stop = http_support.stop
free_port = http_support.free_port
start_misbehaving = http_support.start_misbehaving
one_sentence = http_support.one_sentence
wait_for = http_support.wait_for


# -- servers ----------------------------------------------------------------------------------------------


def start_fault_server(mode: str, directory: Path, *options: str) -> ServerProcess:
    """servers/http_fault_server.py in ``mode``; the caller stops it (:func:`stop`)."""
    directory.mkdir(parents=True, exist_ok=True)
    return launch(f"fault server ({mode})",
                  [sys.executable, str(FAULT_SERVER), mode, str(directory / "port"), *options],
                  directory / "server.log", port_file=directory / "port")


@pytest.fixture
def servers(tmp_path: Path) -> Iterator[Callable[..., ServerProcess]]:
    """``servers("html-500")`` (tests/http's misbehaving server) or ``servers("dribble", "--interval", "0.1",
    fault=True)`` (servers/http_fault_server.py): started now, killed with their process group at teardown,
    and checked to be gone."""
    started: list[ServerProcess] = []

    def start(mode: str, *options: str, fault: bool = False) -> ServerProcess:
        directory = tmp_path / f"server-{mode}-{len(started)}"
        server = start_fault_server(mode, directory, *options) if fault else start_misbehaving(mode, directory)
        started.append(server)
        SERVER_PIDS.add(server.process.pid)
        return server

    try:
        yield start
    finally:
        for server in started:
            stop(server)
            assert server.process.returncode is not None


def process_group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


#: The test's own servers: children of the test process that are meant to outlive a case until teardown.
SERVER_PIDS: set[int] = set()


# -- processes left behind --------------------------------------------------------------------------------


def live_children() -> set[int]:
    """Processes whose parent is this test process, or one of its warm-CLI zygotes, and that are not zombies
    (reaped or not, a zombie holds nothing)."""
    zygotes = warm_cli.zygote_pids()  # the commands run from tests/warm_cli.py are their children
    parents = {os.getpid(), *zygotes}
    found = set()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[1]) in parents and fields[0] != "Z":
            found.add(int(entry.name))
    return found - zygotes


@pytest.fixture
def no_orphans() -> Iterator[Callable[[], None]]:
    """Call it at the end of a case: no process the case started (the inspector, anything the inspector
    started) is still running; the case's own servers (stopped at teardown) aside."""
    before = live_children()

    def check() -> None:
        from inspector.core import offload

        # the window's worker process (big messages parsed off the event loop) is the app's own, ended with it
        left = live_children() - before - SERVER_PIDS - offload.worker_pids()
        assert not left, f"processes left behind: {sorted(left)} " + " ".join(_cmdline(pid) for pid in sorted(left))

    yield check


# -- the CLI ----------------------------------------------------------------------------------------------


def run_cli(*args: str, timeout: float = CLI_TIMEOUT) -> tuple[subprocess.CompletedProcess[str], float]:
    """``mcp-inspector ARGS`` in a process of its own (tests/warm_cli.py), bounded; returns the run and its
    duration."""
    started = time.monotonic()
    done = finish_inspector(start_inspector(list(args)), timeout)
    return done, time.monotonic() - started


def cli_sentence(done: subprocess.CompletedProcess[str]) -> str:
    """The one ``mcp-inspector: ...`` line on stderr (nothing else there, no traceback), without the prefix."""
    assert "Traceback" not in done.stderr, done.stderr
    return one_sentence(done.stderr).removeprefix("mcp-inspector: ")


def intact(path: Path) -> Capture:
    """The capture loads, every line of it: a file the inspector wrote has no line it cannot read back."""
    capture = read_capture(path)
    assert capture.warnings == [], capture.warnings
    assert capture.header.get("format") == "mcp-inspector-capture"
    return capture


# -- the GUI ----------------------------------------------------------------------------------------------


@pytest.fixture
def qloop(qapp: Any) -> Iterator[asyncio.AbstractEventLoop]:
    """A qasync loop over the test QApplication (as tests/ui/conftest.py), which also fails the test on any
    exception an asyncio task or callback let escape (the GUI's equivalent of a traceback)."""
    from qt_loop import new_qloop

    loop = new_qloop(qapp)
    escaped: list[str] = []

    def handler(_loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        escaped.append(f"{context.get('message')}: {context.get('exception')!r}")

    loop.set_exception_handler(handler)
    loop.escaped = escaped  # type: ignore[attr-defined]  # read by nothing_escaped()
    asyncio.set_event_loop(loop)
    try:
        yield loop
    finally:
        for task in asyncio.all_tasks(loop):
            task.cancel()
        loop.run_until_complete(asyncio.sleep(0))
        loop.close()
        asyncio.set_event_loop(None)
    assert not escaped, f"exceptions escaped on the event loop: {escaped}"


def nothing_escaped(loop: asyncio.AbstractEventLoop) -> None:
    """No exception escaped a task or callback of the window's loop so far (checked again at teardown)."""
    escaped = getattr(loop, "escaped", [])
    assert not escaped, f"exceptions escaped on the event loop: {escaped}"


class MessageBoxes:
    """QMessageBox's static dialogs and ``exec`` of a box built by hand (the window's plain-text warnings),
    replaced: each is recorded (title, text) and answered at once."""

    def __init__(self) -> None:
        self.shown: list[tuple[str, str]] = []

    def record(self, _parent: Any, title: str, text: str, *_args: Any, **_kwargs: Any) -> Any:
        from PySide6.QtWidgets import QMessageBox

        self.shown.append((title, text))
        return QMessageBox.StandardButton.Ok

    def record_exec(self, box: Any) -> Any:
        from PySide6.QtWidgets import QMessageBox

        self.shown.append((box.windowTitle(), box.text()))
        return QMessageBox.StandardButton.Ok


@pytest.fixture
def message_boxes(monkeypatch: pytest.MonkeyPatch) -> MessageBoxes:
    from PySide6.QtWidgets import QMessageBox

    boxes = MessageBoxes()
    for name in ("warning", "critical", "information", "question"):
        monkeypatch.setattr(QMessageBox, name, staticmethod(boxes.record))
    monkeypatch.setattr(QMessageBox, "exec", lambda box, *_: boxes.record_exec(box))
    return boxes


@pytest.fixture
def window(qapp: Any, qloop: asyncio.AbstractEventLoop, tmp_path: Path, message_boxes: MessageBoxes) -> Iterator[Any]:
    """The real MainWindow (its own settings, profiles and captures folder), shown offscreen; every session
    tab is closed at teardown, its server stopped."""
    from qt_loop import open_test_window

    with open_test_window(qloop, tmp_path) as win:
        win.message_boxes = message_boxes  # what the window showed in message boxes, for the cases to check
        yield win


def status_sentence(tab: Any) -> str:
    """What a live tab's status line says about its state: ``failed: <sentence>`` (its first part)."""
    return str(tab.status.text()).split(" · ")[0]


def run_gui(loop: asyncio.AbstractEventLoop, scenario: Callable[[], Any]) -> Any:
    """Run an async scenario on the window's loop (each of its waits is bounded with helpers.until)."""
    return loop.run_until_complete(scenario())


def _cmdline(pid: int) -> str:
    try:
        return "(" + Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:200] + ")"
    except OSError:
        return "(gone)"

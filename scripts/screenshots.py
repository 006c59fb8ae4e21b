"""Render the documentation's screenshots offscreen from real sessions: python scripts/screenshots.py [OUT_DIR]

Each picture is a real session grabbed from the window (QT_QPA_PLATFORM=offscreen, no display needed):

    session.png        a stdio session with the demo server: timeline, a response paired with its request, composer
    framing-error.png  bytes that are not UTF-8 on stdout, in the hex view
    stderr.png         the server's stderr pane
    http-session.png   a Streamable HTTP session with an MCP SDK server on 127.0.0.1: an exchange in the HTTP view
    composer.png       the composer in Raw mode with text that is not JSON (sent as typed)
    server-request.png a sampling request from the server, waiting for an answer
    breakpoints-intercepted.png  a tools/call paused at a breakpoint, its argument edited in the Intercepted tab
    breakpoints-panel.png        the Breakpoints tab; the edited call forwarded, original and changed in the timeline
    replay-diff.png    Session > Replay: a capture replayed against a changed server, the difference marked
    live-tap.png       a client driving the demo server through `mcp-inspector tap`, live and read-only
    serve-dialog.png   Session > Serve this capture…: the stdio command and a client's config entry, to copy
    serve-live.png     a client served by `mcp-inspector serve` (a twin of a demo capture), live in the window, its
                       call the capture never saw selected, the closest recorded call in its finding
    test-client.png    Session > Test a client…: the deliberately broken client of the tests against four
                       scenarios, the failed handshake's checks open, the missing initialized notification selected
    serve-faults.png   the same serve tab's Faults: latency and error-rate turned on while the twin runs, the
                       client's next call answered with the injected internal error
    reload-on-save.png `--watch`: a Python SDK server's file saved with another answer and one more tool, the
                       server restarted in the same tab, the pinned call rerun and its diff in the Reload tab
    apps.png           the official system monitor MCP App in the Apps tab, polling its app-only tool through
                       the host; its policy beside it (--only=apps; needs Node, and as root
                       QTWEBENGINE_DISABLE_SANDBOX=1, set by whoever runs the script)

The HTTP picture needs the MCP SDK (pip install '.[test]'); the replay uses the test suite's versioned server.
Nothing listens anywhere but 127.0.0.1 (the SDK server) and a private Unix socket (the tap channel).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# offscreen, on a 1920x1080 screen (main() writes its description): the platform's default screen (800x800)
# would cut the 1440x880 window down
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen:configfile="
                      + str(Path(tempfile.gettempdir()) / "mcp-inspector-screenshots-screen.json"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import qasync
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

from inspector.core.clients.profiles import ProfileStore, ServerProfile
from inspector.ui.app import app_icon, build_window
from inspector.ui.main_window import MainWindow
from inspector.ui.session.live import READY, Target
from inspector.ui.session.tab import SessionTab

ROOT = Path(__file__).resolve().parent.parent
SCREEN = Path(tempfile.gettempdir()) / "mcp-inspector-screenshots-screen.json"  #: the offscreen screen (above)

DEMO = ["python3", "-m", "inspector.demo"]  # as a user types it (run from the checkout)
VERSIONED = ["python3", "tests/replay/servers/versioned_server.py"]
SDK_HTTP = [sys.executable, str(ROOT / "tests" / "http" / "servers" / "sdk_http_server.py"), "streamable-http"]
SIZE = (1440, 880)


async def until(condition, timeout: float, what: str = "the demo") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def settle() -> None:
    await asyncio.sleep(0.4)  # let the window repaint (no processEvents() inside a task: qasync forbids re-entry)


async def send(tab, text: str, method: str, count: int = 1) -> None:
    def answered() -> bool:
        return sum(1 for e in tab.events if e.data.get("request_method") == method) >= count

    tab.composer.set_text(text)
    tab.composer.send()
    await until(answered, 15, f"the answer to {method}")


def layout(tab, *, timeline: int, lower: int, detail: int, side: int) -> None:
    """Sizes of the tab's panes: timeline above the lower half; in it, the detail view and the side tabs."""
    tab.splitter.setSizes([timeline, lower])
    tab.side.parentWidget().setSizes([detail, side])


async def select(tab, seq: int) -> None:
    """Select event ``seq`` once its row is in the timeline (rows arrive in batches, up to 30 times a second)."""
    from PySide6.QtWidgets import QAbstractItemView

    await until(lambda: tab.timeline.select_seq(seq), 10, f"row {seq} in the timeline")
    tab.table.scrollTo(tab.table.currentIndex(), QAbstractItemView.ScrollHint.PositionAtCenter)


def call(name: str, arguments: dict) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": "tools/call", "params": {"name": name, "arguments": arguments}})


class Shooter:
    def __init__(self, out: Path, tmp: Path) -> None:
        self.out = out
        self.tmp = tmp
        self.store = ProfileStore(tmp / "profiles.json")
        self.store.save([
            ServerProfile(name="demo", kind="stdio", command="python3", args=["-m", "inspector.demo"]),
            ServerProfile(name="weather (remote)", kind="http", url="https://mcp.example.com/mcp"),
            ServerProfile(name="filesystem", kind="stdio", command="npx",
                          args=["-y", "@modelcontextprotocol/server-filesystem", "/home/me/notes"]),
        ])
        self.count = 0
        (tmp / "captures").mkdir()

    def window(self, **kwargs) -> MainWindow:
        self.count += 1
        settings = QSettings(str(self.tmp / f"settings-{self.count}.ini"), QSettings.Format.IniFormat)
        # the composition root, as the app builds it (MainWindow alone has no controllers: no session settings)
        window = build_window(settings=settings, store=self.store, captures=self.tmp / "captures", **kwargs)
        window.resize(*SIZE)
        window.show()
        return window

    def save(self, window: MainWindow, name: str) -> None:
        path = self.out / name
        window.grab().save(str(path))
        print(path)

    @staticmethod
    async def close(window: MainWindow) -> None:
        """Shut the window's sessions down and hide it (closing the window would quit the application)."""
        for index in range(window.tabs.count()):
            tab = window.tabs.widget(index)
            if isinstance(tab, SessionTab):
                await tab.close()
        window.tap_watcher.stop()
        window.settings.clear()
        window.hide()
        window.deleteLater()

    # -- the scenes --------------------------------------------------------------------------------------

    async def stdio_session(self) -> None:
        window = self.window()
        tab = window.open_live(Target(name="demo", argv=[*DEMO, "--banner",
                                                         "Demo server v1 starting (a print() on stdout)"],
                                      cwd=str(ROOT)))
        await until(lambda: tab.live.state == READY, 30)
        await send(tab, '{"jsonrpc":"2.0","method":"tools/list"}', "tools/list")
        await send(tab, call("junk_stdout", {}), "tools/call")
        await send(tab, call("stderr_burst", {"lines": 12}), "tools/call", 2)
        tab.composer.set_text('{\n  "jsonrpc": "2.0",\n  "method": "tools/call",\n  "params": {\n    "name": "add",\n'
                              '    "arguments": {"a": 2, "b": 40}\n  }\n}')
        listed = next(e for e in tab.events if e.data.get("request_method") == "tools/list")
        await select(tab, listed.seq)
        await settle()
        self.save(window, "session.png")

        junk = next(e for e in tab.events if e.kind.startswith("framing") and e.raw.startswith(b"\xff"))
        await select(tab, junk.seq)
        tab.detail.tabs.setCurrentWidget(tab.detail.hex)
        await settle()
        self.save(window, "framing-error.png")

        tab.side.setCurrentWidget(tab.stderr)
        layout(tab, timeline=420, lower=300, detail=480, side=720)
        await settle()
        tab.stderr.view.horizontalScrollBar().setValue(0)  # the pane follows the end of the last line
        self.save(window, "stderr.png")

        # Raw mode: the text goes out exactly as typed, invalid JSON included; the check says what it is.
        tab.side.setCurrentWidget(tab.composer)
        tab.composer.raw.setChecked(True)
        before = len(tab.events)
        tab.composer.set_text('{"jsonrpc": "2.0", "id": 99, "method": "tools/list",}\n')  # raw: the newline too
        tab.composer.send()
        await until(lambda: any(e.dir == "s2c" and e.kind == "message" for e in tab.events[before:]), 15,
                    "the server's answer to the raw line")
        reply = next(e for e in tab.events[before:] if e.dir == "s2c" and e.kind == "message")
        layout(tab, timeline=420, lower=300, detail=560, side=640)
        await settle()
        await select(tab, reply.seq)
        tab.detail.tabs.setCurrentWidget(tab.detail.pretty)
        tab.composer.set_text('{"jsonrpc": "2.0", "id": 100, "method": "ping"')
        await settle()
        self.save(window, "composer.png")
        await self.close(window)

    async def server_request(self) -> None:
        """The server asks for a completion (sampling): the request waits in its own tab, answer prefilled."""
        window = self.window()
        tab = window.open_live(Target(name="demo", argv=DEMO, cwd=str(ROOT), handshake="legacy"))
        await until(lambda: tab.live.state == READY, 30)
        await send(tab, '{"jsonrpc":"2.0","method":"tools/list"}', "tools/list")
        tab.composer.set_text(call("ask_llm", {"prompt": "In one sentence: what is the Model Context Protocol?"}))
        tab.composer.send()
        await until(lambda: tab.requests.list.topLevelItemCount() > 0, 15, "the sampling request")
        tab.side.setCurrentWidget(tab.requests)
        layout(tab, timeline=300, lower=460, detail=560, side=660)
        request = next(e for e in reversed(tab.events) if b'"sampling/createMessage"' in e.raw)
        await select(tab, request.seq)
        answer = tab.requests.answer_editor
        answer.setPlainText(answer.toPlainText().replace(
            '"text": ""', '"text": "An open protocol that connects AI applications to tools and data."'))
        await settle()
        self.save(window, "server-request.png")
        await self.close(window)

    async def breakpoints(self) -> None:
        """A breakpoint on echo (the Explorer's "Break on calls to this tool"): the call waits in the Intercepted tab,
        its argument is edited and forwarded; then the Breakpoints tab and the timeline's marks."""
        window = self.window()
        tab = window.open_live(Target(name="demo", argv=DEMO, cwd=str(ROOT)))
        await until(lambda: tab.live.state == READY, 30)
        await until(lambda: tab.explorer.tools.select_tool("echo"), 15, "the Explorer's tools")
        tab.explorer.tools.break_action.trigger()
        tab.live.intercept.add({"when": {"dir": "c2s", "method": "tools/list"}, "do": "delay", "ms": 800})
        tab.live.intercept.add({"when": {"dir": "s2c", "method": "tools/call", "tool": "add"}, "do": "error",
                                "code": -32000, "message": "injected", "enabled": False})
        tab.composer.set_text(call("echo", {"text": "hello from the composer"}))
        tab.composer.send()
        await until(lambda: len(tab.live.intercept.queue) == 1, 15, "the paused call")
        layout(tab, timeline=260, lower=500, detail=200, side=640)
        editor = tab.intercepted.editor
        editor.setPlainText(editor.toPlainText().replace("hello from the composer", "hello, edited at a breakpoint"))
        await settle()
        self.save(window, "breakpoints-intercepted.png")

        tab.intercepted.decide("forward", edited=True)
        await until(lambda: any(e.data.get("request_method") == "tools/call" for e in tab.events), 15, "the answer")
        changed = next(e for e in tab.events if e.dir == "c2s" and e.data.get("intercept", {}).get("role") == "changed")
        tab.side.setCurrentWidget(tab.breakpoints)
        layout(tab, timeline=240, lower=520, detail=330, side=530)
        await settle()
        await select(tab, changed.seq)  # after the layout: the row and its answer in the middle of the timeline
        await settle()
        self.save(window, "breakpoints-panel.png")
        await self.close(window)

    async def http_session(self) -> None:
        port = free_port()
        server = subprocess.Popen([*SDK_HTTP, str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                  start_new_session=True)
        try:
            await until(lambda: accepts(port) or server.poll() is not None, 60, "the SDK HTTP server")
            if server.poll() is not None:
                raise RuntimeError("the SDK HTTP server did not start (pip install '.[test]' installs the SDK)")
            window = self.window()
            # 2025-11-25: a session id, and the tool's log notifications on the request's own SSE stream
            tab = window.open_live(Target(name="sdk-http", url=f"http://127.0.0.1:{port}/mcp", handshake="legacy"))
            await until(lambda: tab.live.state == READY, 30)
            await send(tab, '{"jsonrpc":"2.0","method":"tools/list"}', "tools/list")
            await send(tab, call("work", {"steps": 3}), "tools/call")
            response = next(e for e in reversed(tab.events) if e.data.get("request_method") == "tools/call")
            exchange = response.data.get("exchange")
            http = next((e for e in tab.events if e.kind == "http" and e.data.get("exchange") == exchange), response)
            layout(tab, timeline=330, lower=430, detail=860, side=360)
            await settle()
            await select(tab, http.seq)
            tab.detail.tabs.setCurrentWidget(tab.detail.http)
            await settle()
            self.save(window, "http-session.png")
            await self.close(window)
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait(10)

    async def reload_on_save(self) -> None:
        """Reload on save: the weather server's forecast changed and a tool added, reloaded in the same tab."""
        from inspector.core.explore.history import FILE_NAME, Call, History

        folder = self.tmp / "weather"
        folder.mkdir(exist_ok=True)
        server = folder / "server.py"
        source = ('from mcp.server.mcpserver import MCPServer\n\nmcp = MCPServer("weather")\n\n\n@mcp.tool()\n'
                  'def forecast(city: str) -> str:\n    """Tomorrow\'s weather."""\n    return f"{city}: sunny, 21 C"\n'
                  '\n%s\nmcp.run()\n')
        server.write_text(source % "", encoding="utf-8")
        History(self.tmp / FILE_NAME).add("weather", Call("forecast", {"city": "Lyon"}))
        window = self.window()
        tab = window.open_live(Target(name="weather", argv=["python3", str(server)]), watch=[folder])
        await until(lambda: tab.explorer.catalog.loaded and tab.explorer.catalog.settled
                    and tab.explorer.tools.tool_list.count() > 0, 30, "the weather server")
        server.write_text((source % ('@mcp.tool()\ndef humidity(city: str) -> str:\n    """How damp it is."""\n'
                                     '    return f"{city}: 80%"\n\n')).replace("sunny, 21 C", "rain, 14 C"),
                          encoding="utf-8")
        await until(lambda: "reloaded in" in tab.status.text(), 30, "the reload")
        layout(tab, timeline=440, lower=360, detail=560, side=620)
        await settle()
        self.save(window, "reload-on-save.png")
        await self.close(window)

    async def replay_diff(self) -> None:
        window = self.window()
        tab = window.open_live(Target(name="greeter", argv=[*VERSIONED, "--version", "1"], cwd=str(ROOT),
                                      handshake="legacy"))
        await until(lambda: tab.live.state == READY, 30)
        await send(tab, '{"jsonrpc":"2.0","method":"tools/list"}', "tools/list")
        await send(tab, call("echo", {"text": "unchanged"}), "tools/call")
        await send(tab, call("greet", {"text": "Ada"}), "tools/call", 2)
        view = await window.runs.run_replay(tab.capture_path,
                                       Target(name="greeter v2", argv=[*VERSIONED, "--version", "2"],
                                              cwd=str(ROOT), handshake="legacy"))
        if view is None:
            raise RuntimeError("the replay did not run")
        differing = [i for i, outcome in enumerate(view.result.outcomes) if outcome.differs]
        view.steps.setCurrentRow(differing[-1])  # greet: a changed text and a new notification
        view.steps.parentWidget().setSizes([430, 830])
        await settle()
        self.save(window, "replay-diff.png")
        await self.close(window)

    async def live_tap(self) -> None:
        socket_path = Path(tempfile.mkdtemp(prefix="mcpi-shots-")) / "run" / "tap.sock"
        window = self.window(tap_socket=socket_path, listen_for_taps=True)
        await until(lambda: window.tap_watcher.listener is not None or window.tap_watcher.problem is not None, 10,
                    "the listener")
        if window.tap_watcher.problem:
            raise RuntimeError(window.tap_watcher.problem)
        client = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "tap", "--name", "my-editor/demo", "--socket", str(socket_path),
            "--capture", str(self.tmp / "tap.jsonl"), "--", *DEMO, cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        await until(lambda: window.taps.count() == 1, 20, "the tap in the window")
        script = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
                "clientInfo": {"name": "my-editor", "version": "3.2.0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "echo", "arguments": {"text": "typed in my editor"}}},
            {"jsonrpc": "2.0", "id": 4, "method": "resources/list"},
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
        ]
        assert client.stdin is not None and client.stdout is not None
        for message in script:
            client.stdin.write(json.dumps(message).encode() + b"\n")
        await client.stdin.drain()
        for _ in range(5):
            await asyncio.wait_for(client.stdout.readline(), 20)
        tab = window.tabs.currentWidget()
        await until(lambda: sum(1 for e in tab.timeline.visible_events() if e.data.get("request_method")) >= 5, 10,
                    "the live answers")
        answer = next(e for e in tab.timeline.visible_events() if e.data.get("request_method") == "tools/call")
        await select(tab, answer.seq)
        await settle()
        self.save(window, "live-tap.png")
        client.stdin.close()
        await asyncio.wait_for(client.wait(), 20)
        await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the tap")
        await self.close(window)

    async def serve(self) -> None:
        """A demo session recorded, then served as its twin: the dialog, and a client's session live in the window."""
        capture, send = self.tmp / "session.jsonl", self.tmp / "calls.jsonl"
        send.write_text("".join(json.dumps({"method": method, **params}) + "\n" for method, params in (
            ("tools/list", {}), ("tools/call", {"params": {"name": "add", "arguments": {"a": 2, "b": 3}}}),
            ("resources/read", {"params": {"uri": "demo://readme"}}))), encoding="utf-8")
        record = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "record", "--out", str(capture), "--send", str(send), "--handshake",
            "legacy", "--", *DEMO, cwd=ROOT, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL)
        if await record.wait() != 0:
            raise RuntimeError("the demo session could not be recorded")
        socket_path = Path(tempfile.mkdtemp(prefix="mcpi-shots-")) / "run" / "tap.sock"
        window = self.window(tap_socket=socket_path, listen_for_taps=True)
        await until(lambda: window.tap_watcher.listener is not None or window.tap_watcher.problem is not None, 10,
                    "the listener")
        if window.tap_watcher.problem:
            raise RuntimeError(window.tap_watcher.problem)
        window.open_capture(capture)
        dialog = window.serves.serve_current()
        assert dialog is not None
        dialog.resize(720, 440)
        await settle()
        path = self.out / "serve-dialog.png"
        dialog.grab().save(str(path))
        print(path)
        dialog.close()
        twin = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "inspector", "serve", str(capture), "--socket", str(socket_path), cwd=ROOT,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
        await until(lambda: window.taps.count() == 1, 20, "the served session in the window")
        script = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "my-client", "version": "0.9.0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
            {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 3}}},
            {"jsonrpc": "2.0", "id": 4, "method": "resources/read", "params": {"uri": "demo://readme"}},
            {"jsonrpc": "2.0", "id": 5, "method": "tools/call",
             "params": {"name": "add", "arguments": {"a": 2, "b": 4}}},
        ]
        assert twin.stdin is not None and twin.stdout is not None
        for message in script:
            twin.stdin.write(json.dumps(message).encode() + b"\n")
        await twin.stdin.drain()
        for _ in range(5):
            await asyncio.wait_for(twin.stdout.readline(), 20)
        tab = window.tabs.currentWidget()
        await until(lambda: any(e.findings and e.method == "tools/call" for e in tab.timeline.visible_events()), 10,
                    "the unmatched call")
        missed = next(e for e in tab.timeline.visible_events() if e.findings and e.method == "tools/call")
        await select(tab, missed.seq)
        tab.detail.tabs.setCurrentWidget(tab.detail.info)
        await settle()
        self.save(window, "serve-live.png")
        # the tab's Faults: latency and error-rate turned on while the twin runs; the client's next call faulted
        await until(lambda: tab.serve_faults is not None and tab.serve_faults.control.seed is not None, 10,
                    "the twin's faults in the tab")
        panel = tab.serve_faults
        for name, value in (("latency", "300"), ("error-rate", "1")):
            panel.fields[name].setText(value)
            panel.boxes[name].click()
        await until(lambda: set(panel.control.in_force) == {"latency", "error-rate"}, 10, "the faults in force")
        twin.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/call",
                                     "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}).encode() + b"\n")
        await twin.stdin.drain()
        await asyncio.wait_for(twin.stdout.readline(), 20)
        await until(lambda: any(e.data.get("fault") for e in tab.timeline.visible_events()), 10, "the faulted answer")
        faulted = next(e for e in tab.timeline.visible_events() if e.data.get("fault"))
        await select(tab, faulted.seq)
        tab.detail.tabs.setCurrentWidget(tab.detail.pretty)
        await settle()
        self.save(window, "serve-faults.png")
        twin.stdin.close()
        await asyncio.wait_for(twin.wait(), 20)
        await until(lambda: "(ended)" in window.taps.item(0).text(), 10, "the end of the served session")
        await self.close(window)

    async def test_client(self) -> None:
        """The broken client of the tests (no initialized notification, a reused id, a ping ignored) run against four
        scenarios from the dialog; the failed check that names the missing notification selected."""
        window = self.window()
        dialog = window.client_benches.open_dialog()
        dialog.command.setText("python3 tests/data/clients/broken_client.py")
        for name, box in dialog.boxes.items():
            box.setChecked(name in ("handshake", "ping", "slow", "pagination"))
        dialog.resize(1180, 700)
        dialog.run_button.click()
        await until(lambda: dialog.run.state == "idle", 90, "the bench")
        if dialog.items["handshake"].text(1) != "failed":
            raise RuntimeError(f"the bench did not run as expected: {dialog.state.text()}")
        handshake = dialog.items["handshake"]
        check = next(handshake.child(i) for i in range(handshake.childCount())
                     if handshake.child(i).text(0) == "initialized-sent")
        dialog.tree.setCurrentItem(check)
        await settle()
        path = self.out / "test-client.png"
        dialog.grab().save(str(path))
        print(path)
        dialog.close()
        await self.close(window)

    async def apps(self) -> None:
        """The system monitor's app, from npm (the test cache's copy when there is one, else npx)."""
        cache = Path(os.environ.get("MCP_INSPECTOR_TEST_CACHE") or Path.home() / ".cache" / "mcp-inspector-tests"
                     / "npm")  # tests/npm_servers.py: a folder per group
        entry = (cache / "servers" / "node_modules" / "@modelcontextprotocol" / "server-system-monitor" / "dist"
                 / "index.js")
        argv = ["node", str(entry), "--stdio"] if entry.exists() else \
            ["npx", "-y", "@modelcontextprotocol/server-system-monitor@2.0.3", "--stdio"]
        window = self.window()
        tab = window.open_live(Target(name="system monitor", argv=argv))
        await until(lambda: tab.live.state == READY and tab.explorer.catalog.settled, 60, "the tools")
        tab.explorer.tools.select_tool("get-system-info")
        tab.explorer.tools.call_tool("get-system-info", {})
        tab.explorer_choice = False  # the app needs the room
        tab.place_explorer()
        window.resize(*SIZE)
        tab.side.setCurrentWidget(tab.apps)
        layout(tab, timeline=250, lower=560, detail=420, side=980)
        await until(lambda: sum(1 for e in tab.events if e.data.get("app") == 1 and e.kind == "message") >= 4, 30,
                    "two polls through the host")
        poll = next(e for e in reversed(tab.events) if e.data.get("app") == 1 and e.kind == "message")
        await select(tab, poll.seq)
        await settle()
        self.save(window, "apps.png")
        await self.close(window)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1.0):
            return True
    except OSError:
        return False


async def shoot(out: Path, only: set[str]) -> None:
    with tempfile.TemporaryDirectory(prefix="screenshots-") as tmp:
        shooter = Shooter(out, Path(tmp))
        for name in ("stdio_session", "server_request", "breakpoints", "http_session", "replay_diff", "live_tap",
                     "serve", "test_client", "reload_on_save", "apps"):
            if not only or name in only:
                await getattr(shooter, name)()


def main() -> None:
    args = sys.argv[1:]
    out = Path(args.pop(0)) if args and not args[0].startswith("--") else ROOT / "docs" / "images"
    only = {a.removeprefix("--only=") for a in args if a.startswith("--only=")}
    out.mkdir(parents=True, exist_ok=True)
    SCREEN.write_text(json.dumps({"screens": [{"name": "shots", "x": 0, "y": 0, "width": 1920, "height": 1080,
                                               "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}))
    app = QApplication([])
    app.setWindowIcon(app_icon())
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with loop:
        loop.run_until_complete(shoot(out, only))
    print(f"screenshots in {out}")


if __name__ == "__main__":
    main()

"""Subprocess tests of the demo MCP server (`python -m inspector.demo`).

Each test starts a real server process and talks to it over pipes. Every read
is bounded: a thread pumps stdout lines into a queue and the test waits on the
queue with a timeout, so a hung server fails a test instead of hanging it.
"""

from __future__ import annotations

import base64
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import warm_python

REPO_ROOT = Path(__file__).resolve().parents[2]
TIMEOUT_S = 10.0

LEGACY_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]
MODERN_VERSION = "2026-07-28"
ALL_VERSIONS = [MODERN_VERSION, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
TOOL_NAMES = {
    "echo", "add", "slow_count", "ask_llm", "junk_stdout", "stderr_burst",
    "flood", "big_message", "exit", "split_json",
}


def modern_meta(**extra: Any) -> dict[str, Any]:
    """The `_meta` every 2026-07-28 request must carry, plus extra keys."""
    return {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "demo-tests", "version": "0"},
        **extra,
    }


class DemoProcess:
    """A running demo server with bounded, thread-pumped reads of its output."""

    def __init__(self, *args: str) -> None:
        self.proc = subprocess.Popen(
            warm_python.module_command("inspector.demo", *args),
            cwd=REPO_ROOT,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._lines: queue.Queue[bytes | None] = queue.Queue()
        self._stderr = bytearray()
        self._stderr_grew = threading.Condition()
        self._next_id = 0
        self._stdout_thread = threading.Thread(target=self._pump_stdout, daemon=True)
        # Always drain stderr: a full stderr pipe would block the server.
        self._stderr_thread = threading.Thread(target=self._pump_stderr, daemon=True)
        self._stdout_thread.start()
        self._stderr_thread.start()

    def _pump_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in iter(self.proc.stdout.readline, b""):
            self._lines.put(line)
        self._lines.put(None)  # EOF marker

    def _pump_stderr(self) -> None:
        stderr = self.proc.stderr
        assert stderr is not None
        for chunk in iter(lambda: stderr.read1(65536), b""):
            with self._stderr_grew:
                self._stderr += chunk
                self._stderr_grew.notify_all()

    # ---------------------------------------------------------------- writing

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode("utf-8") + b"\n")

    def request(self, method: str, params: dict[str, Any] | None = None) -> int:
        """Send a request and return its id."""
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        return self._next_id

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)

    def close_stdin(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()

    # ---------------------------------------------------------------- reading

    def read_line(self) -> bytes:
        """The next raw stdout line (with its newline); fails on EOF or timeout."""
        try:
            line = self._lines.get(timeout=TIMEOUT_S)
        except queue.Empty:
            pytest.fail(f"no stdout line within {TIMEOUT_S} s; stderr:\n{self.stderr_text()}")
        if line is None:
            self._lines.put(None)  # keep reporting EOF
            pytest.fail(f"stdout closed; stderr:\n{self.stderr_text()}")
        return line

    def read_until_eof(self) -> list[bytes]:
        """All remaining stdout lines up to EOF (bounded per line)."""
        lines = []
        while True:
            try:
                line = self._lines.get(timeout=TIMEOUT_S)
            except queue.Empty:
                pytest.fail(f"stdout did not reach EOF within {TIMEOUT_S} s")
            if line is None:
                return lines
            lines.append(line)

    def read_message(self) -> dict[str, Any]:
        line = self.read_line()
        assert line.endswith(b"\n") and line.count(b"\n") == 1
        return json.loads(line.decode("utf-8"))

    def response(self, request_id: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """Read until the response to `request_id`; also return what came before."""
        before = []
        while True:
            message = self.read_message()
            if message.get("id") == request_id and ("result" in message or "error" in message):
                return message, before
            before.append(message)

    def call(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        """Request and return the whole response, ignoring notifications."""
        return self.response(self.request(method, params))[0]

    def initialize(self, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
        response = self.call(
            "initialize",
            {
                "protocolVersion": version,
                "capabilities": capabilities or {},
                "clientInfo": {"name": "demo-tests", "version": "0"},
            },
        )
        self.notify("notifications/initialized")
        return response

    def wait(self) -> int:
        return self.proc.wait(timeout=TIMEOUT_S)

    def wait_for_stderr(self, text: str) -> None:
        """Block (bounded) until `text` has appeared on stderr."""
        needle = text.encode("utf-8")
        with self._stderr_grew:
            if not self._stderr_grew.wait_for(lambda: needle in self._stderr, timeout=TIMEOUT_S):
                pytest.fail(f"{text!r} not on stderr within {TIMEOUT_S} s; stderr:\n{self.stderr_text()}")

    def stderr_text(self) -> str:
        """stderr so far; complete once the process has exited and been closed."""
        return self._stderr.decode("utf-8", "replace")

    def finish(self) -> None:
        """Kill if still running, reap, join the pumps and close every pipe."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=TIMEOUT_S)
        self._stdout_thread.join(TIMEOUT_S)
        self._stderr_thread.join(TIMEOUT_S)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                try:
                    pipe.close()
                except BrokenPipeError:
                    pass  # unflushed input to a dead process


@pytest.fixture
def start_server() -> Iterator[Callable[..., DemoProcess]]:
    """Start demo servers; all of them are killed and closed at teardown."""
    started: list[DemoProcess] = []

    def start(*args: str) -> DemoProcess:
        server = DemoProcess(*args)
        started.append(server)
        return server

    try:
        yield start
    finally:
        for server in started:
            server.finish()


@pytest.fixture
def server(start_server: Callable[..., DemoProcess]) -> DemoProcess:
    return start_server()


@pytest.fixture
def legacy(server: DemoProcess) -> DemoProcess:
    """A server after a 2025-11-25 handshake."""
    server.initialize()
    return server


def text_of(response: dict[str, Any]) -> str:
    content = response["result"]["content"]
    assert len(content) == 1 and content[0]["type"] == "text"
    return content[0]["text"]


# -------------------------------------------------------------------- legacy era


@pytest.mark.parametrize("version", LEGACY_VERSIONS)
def test_initialize_answers_with_the_clients_revision(server: DemoProcess, version: str) -> None:
    result = server.initialize(version)["result"]
    assert result["protocolVersion"] == version
    assert result["serverInfo"]["name"] == "mcp-inspector-demo"
    assert isinstance(result["serverInfo"]["version"], str)
    assert result["capabilities"]["tools"] == {"listChanged": True}
    assert result["capabilities"]["resources"] == {"subscribe": False, "listChanged": False}
    assert result["capabilities"]["prompts"] == {"listChanged": False}
    assert result["capabilities"]["logging"] == {}
    assert result["instructions"]
    assert "resultType" not in result


def test_initialize_with_an_unknown_revision_answers_the_latest_legacy_one(server: DemoProcess) -> None:
    assert server.initialize("1999-01-01")["result"]["protocolVersion"] == "2025-11-25"


def test_server_info_version_is_the_packages_version(server: DemoProcess) -> None:
    import inspector

    assert server.initialize()["result"]["serverInfo"]["version"] == inspector.__version__


def test_tools_list_after_the_handshake_names_every_demo_tool(legacy: DemoProcess) -> None:
    tools = legacy.call("tools/list")["result"]["tools"]
    assert {tool["name"] for tool in tools} == TOOL_NAMES
    for tool in tools:
        assert tool["description"]
        assert tool["inputSchema"]["type"] == "object"


def test_ping_answers_an_empty_result(legacy: DemoProcess) -> None:
    assert legacy.call("ping")["result"] == {}


def test_an_unknown_method_gets_method_not_found(legacy: DemoProcess) -> None:
    assert legacy.call("no/such/method")["error"]["code"] == -32601


def test_echo_returns_the_text(legacy: DemoProcess) -> None:
    response = legacy.call("tools/call", {"name": "echo", "arguments": {"text": "héllo ✓"}})
    assert text_of(response) == "héllo ✓"


def test_add_returns_the_sum_as_text(legacy: DemoProcess) -> None:
    response = legacy.call("tools/call", {"name": "add", "arguments": {"a": 2, "b": 40.5}})
    assert text_of(response) == "42.5"
    assert response["result"]["structuredContent"] == {"sum": 42.5}


def test_bad_tool_arguments_are_a_tool_error_not_a_protocol_error(legacy: DemoProcess) -> None:
    response = legacy.call("tools/call", {"name": "add", "arguments": {"a": "two", "b": 1}})
    assert response["result"]["isError"] is True
    assert "'a' must be a number" in text_of(response)


def test_an_unknown_tool_is_invalid_params(legacy: DemoProcess) -> None:
    assert legacy.call("tools/call", {"name": "nope", "arguments": {}})["error"]["code"] == -32602


def test_slow_count_sends_progress_with_the_given_token(legacy: DemoProcess) -> None:
    request_id = legacy.request(
        "tools/call",
        {"name": "slow_count", "arguments": {"count": 3, "delay_ms": 1}, "_meta": {"progressToken": "tok-7"}},
    )
    response, before = legacy.response(request_id)
    progress = [m["params"] for m in before if m["method"] == "notifications/progress"]
    assert [p["progress"] for p in progress] == [1, 2, 3]
    assert {p["progressToken"] for p in progress} == {"tok-7"}
    assert {p["total"] for p in progress} == {3}
    logs = [m["params"] for m in before if m["method"] == "notifications/message"]
    assert [entry["level"] for entry in logs] == ["info"] * 3  # debug is below the default level
    assert text_of(response) == "counted to 3"


def test_slow_count_without_a_progress_token_sends_no_progress(legacy: DemoProcess) -> None:
    request_id = legacy.request("tools/call", {"name": "slow_count", "arguments": {"count": 2, "delay_ms": 1}})
    _, before = legacy.response(request_id)
    assert not [m for m in before if m["method"] == "notifications/progress"]


def test_logging_set_level_filters_slow_count_logs(legacy: DemoProcess) -> None:
    assert legacy.call("logging/setLevel", {"level": "warning"})["result"] == {}
    request_id = legacy.request("tools/call", {"name": "slow_count", "arguments": {"count": 2, "delay_ms": 1}})
    _, before = legacy.response(request_id)
    assert not [m for m in before if m["method"] == "notifications/message"]


def test_the_server_keeps_answering_while_slow_count_runs(legacy: DemoProcess) -> None:
    slow_id = legacy.request("tools/call", {"name": "slow_count", "arguments": {"count": 100, "delay_ms": 50}})
    ping_id = legacy.request("ping")
    message, _ = legacy.response(ping_id)
    assert message["result"] == {}
    legacy.notify("notifications/cancelled", {"requestId": slow_id, "reason": "test over"})


def test_cancelling_slow_count_stops_it_without_a_response(legacy: DemoProcess) -> None:
    slow_id = legacy.request(
        "tools/call",
        {"name": "slow_count", "arguments": {"count": 1000, "delay_ms": 20}, "_meta": {"progressToken": 1}},
    )
    assert legacy.read_message()["method"] == "notifications/progress"
    legacy.notify("notifications/cancelled", {"requestId": slow_id, "reason": "user pressed stop"})
    # The worker logs this as it returns; after it, it can write nothing more.
    legacy.wait_for_stderr(f"(id {slow_id}) cancelled; not answering")
    ping, between = legacy.response(legacy.request("ping"))
    assert ping["result"] == {}
    assert {m["method"] for m in between} <= {"notifications/progress", "notifications/message"}
    assert len(between) < 2 * 999
    legacy.close_stdin()
    assert legacy.read_until_eof() == []  # no late progress, and no response for slow_id
    assert legacy.wait() == 0


def test_ask_llm_sends_sampling_create_message_and_returns_the_clients_answer(server: DemoProcess) -> None:
    server.initialize(capabilities={"sampling": {}})
    call_id = server.request("tools/call", {"name": "ask_llm", "arguments": {"prompt": "What is 6 x 7?"}})
    sampling = server.read_message()
    assert sampling["method"] == "sampling/createMessage"
    assert isinstance(sampling["id"], str)
    assert sampling["params"]["messages"] == [{"role": "user", "content": {"type": "text", "text": "What is 6 x 7?"}}]
    assert sampling["params"]["maxTokens"] > 0
    server.send(
        {
            "jsonrpc": "2.0",
            "id": sampling["id"],
            "result": {"role": "assistant", "content": {"type": "text", "text": "42"}, "model": "test-model"},
        }
    )
    response, _ = server.response(call_id)
    assert text_of(response) == "42"
    assert not response["result"].get("isError")


def test_ask_llm_reports_the_clients_sampling_error(server: DemoProcess) -> None:
    server.initialize(capabilities={"sampling": {}})
    call_id = server.request("tools/call", {"name": "ask_llm", "arguments": {"prompt": "hi"}})
    sampling = server.read_message()
    server.send({"jsonrpc": "2.0", "id": sampling["id"], "error": {"code": -1, "message": "User rejected sampling"}})
    response, _ = server.response(call_id)
    assert response["result"]["isError"] is True
    assert "User rejected sampling" in text_of(response)


def test_ask_llm_without_the_sampling_capability_is_a_tool_error(legacy: DemoProcess) -> None:
    response = legacy.call("tools/call", {"name": "ask_llm", "arguments": {"prompt": "hi"}})
    assert response["result"]["isError"] is True
    assert "sampling" in text_of(response)


def test_resources_read_returns_markdown_json_and_a_png_blob(legacy: DemoProcess) -> None:
    uris = {r["uri"]: r["mimeType"] for r in legacy.call("resources/list")["result"]["resources"]}
    assert uris == {"demo://readme": "text/markdown", "demo://config.json": "application/json",
                    "demo://logo.png": "image/png"}
    readme = legacy.call("resources/read", {"uri": "demo://readme"})["result"]["contents"][0]
    assert readme["mimeType"] == "text/markdown" and readme["text"].startswith("#")
    config = legacy.call("resources/read", {"uri": "demo://config.json"})["result"]["contents"][0]
    assert json.loads(config["text"])["server"]["name"] == "mcp-inspector-demo"
    logo = legacy.call("resources/read", {"uri": "demo://logo.png"})["result"]["contents"][0]
    png = base64.b64decode(logo["blob"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and png[12:16] == b"IHDR" and png.endswith(b"IEND\xaeB`\x82")


def test_an_unknown_resource_is_32002_in_the_legacy_era(legacy: DemoProcess) -> None:
    assert legacy.call("resources/read", {"uri": "demo://missing"})["error"]["code"] == -32002


def test_resource_templates_list_answers_a_list(legacy: DemoProcess) -> None:
    assert isinstance(legacy.call("resources/templates/list")["result"]["resourceTemplates"], list)


def test_prompts_get_fills_in_the_arguments(legacy: DemoProcess) -> None:
    names = {p["name"] for p in legacy.call("prompts/list")["result"]["prompts"]}
    assert names == {"greet", "review_code"}
    greet = legacy.call("prompts/get", {"name": "greet", "arguments": {"name": "Ada"}})["result"]
    assert "Ada" in greet["messages"][0]["content"]["text"]
    review = legacy.call("prompts/get", {"name": "review_code", "arguments": {"code": "x = 1", "language": "Python"}})
    assert "x = 1" in review["result"]["messages"][0]["content"]["text"]
    assert legacy.call("prompts/get", {"name": "greet", "arguments": {}})["error"]["code"] == -32602


def test_completion_complete_suggests_languages_by_prefix(legacy: DemoProcess) -> None:
    response = legacy.call(
        "completion/complete",
        {"ref": {"type": "ref/prompt", "name": "review_code"}, "argument": {"name": "language", "value": "py"}},
    )
    assert response["result"]["completion"]["values"] == ["python"]


# -------------------------------------------------------------------- modern era


def test_server_discover_lists_versions_capabilities_and_server_info(server: DemoProcess) -> None:
    result = server.call("server/discover", {"_meta": modern_meta()})["result"]
    assert result["supportedVersions"] == ALL_VERSIONS
    assert result["capabilities"]["tools"] == {"listChanged": True}
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-inspector-demo"
    assert result["resultType"] == "complete"


def test_subscriptions_listen_is_acknowledged_first_and_stays_open_until_cancelled(server: DemoProcess) -> None:
    listen_id = server.request("subscriptions/listen", {"_meta": modern_meta(),
                                                        "notifications": {"toolsListChanged": True,
                                                                          "promptsListChanged": True}})
    ack = server.read_message()
    assert ack["method"] == "notifications/subscriptions/acknowledged"
    assert ack["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"] == listen_id
    # it declares only the tools list's changes: the prompts one is left out of what it honours
    assert ack["params"]["notifications"] == {"toolsListChanged": True}
    server.notify("notifications/cancelled", {"requestId": listen_id, "reason": "test over"})
    server.wait_for_stderr(f"subscription {listen_id} closed by the client")
    server.close_stdin()
    assert server.read_until_eof() == []  # no answer to the cancelled subscription
    assert server.wait() == 0


def test_a_modern_request_with_an_unsupported_version_gets_error_32022(server: DemoProcess) -> None:
    meta = modern_meta(**{"io.modelcontextprotocol/protocolVersion": "1900-01-01"})
    error = server.call("tools/list", {"_meta": meta})["error"]
    assert error["code"] == -32022
    assert error["data"] == {"supported": ALL_VERSIONS, "requested": "1900-01-01"}


def test_a_modern_request_without_client_capabilities_is_invalid_params(server: DemoProcess) -> None:
    meta = {"io.modelcontextprotocol/protocolVersion": MODERN_VERSION}
    assert server.call("tools/list", {"_meta": meta})["error"]["code"] == -32602


def test_modern_tools_call_needs_no_handshake_and_is_marked_complete(server: DemoProcess) -> None:
    response = server.call("tools/call", {"name": "echo", "arguments": {"text": "stateless"}, "_meta": modern_meta()})
    assert text_of(response) == "stateless"
    assert response["result"]["resultType"] == "complete"
    assert response["result"]["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "mcp-inspector-demo"


def test_modern_slow_count_logs_only_when_the_request_sets_a_log_level(server: DemoProcess) -> None:
    quiet_id = server.request(
        "tools/call",
        {"name": "slow_count", "arguments": {"count": 2, "delay_ms": 1}, "_meta": modern_meta(progressToken="q")},
    )
    _, quiet = server.response(quiet_id)
    assert [m["method"] for m in quiet] == ["notifications/progress"] * 2
    chatty_id = server.request(
        "tools/call",
        {
            "name": "slow_count",
            "arguments": {"count": 2, "delay_ms": 1},
            "_meta": modern_meta(**{"io.modelcontextprotocol/logLevel": "debug"}),
        },
    )
    _, chatty = server.response(chatty_id)
    assert [m["params"]["level"] for m in chatty] == ["debug", "info", "info"]


def test_modern_ask_llm_explains_that_input_required_is_not_implemented(server: DemoProcess) -> None:
    response = server.call("tools/call", {"name": "ask_llm", "arguments": {"prompt": "hi"}, "_meta": modern_meta()})
    assert response["result"]["isError"] is True
    assert "input_required" in text_of(response)


def test_an_unknown_resource_is_32602_in_the_modern_era(server: DemoProcess) -> None:
    response = server.call("resources/read", {"uri": "demo://missing", "_meta": modern_meta()})
    assert response["error"]["code"] == -32602


def test_modern_ping_is_method_not_found(server: DemoProcess) -> None:
    assert server.call("ping", {"_meta": modern_meta()})["error"]["code"] == -32601


# -------------------------------------------------------------------- misbehaviours


def test_junk_stdout_writes_the_exact_raw_bytes(legacy: DemoProcess) -> None:
    request_id = legacy.request("tools/call", {"name": "junk_stdout", "arguments": {}})
    assert legacy.read_line() == b"hello from print()\n"
    assert legacy.read_line() == b"\xff\xfe bad bytes\n"
    response, _ = legacy.response(request_id)
    assert "hello from print()" in text_of(response)


def test_junk_stdout_prints_the_given_text(legacy: DemoProcess) -> None:
    legacy.request("tools/call", {"name": "junk_stdout", "arguments": {"text": "Starting server… ok"}})
    assert legacy.read_line() == "Starting server… ok\n".encode()


def test_exit_exits_with_the_code_and_writes_the_message_to_stderr(legacy: DemoProcess) -> None:
    legacy.request("tools/call", {"name": "exit", "arguments": {"code": 3, "message": "bye from the demo"}})
    assert legacy.read_until_eof() == []  # no answer at all
    assert legacy.wait() == 3
    legacy.finish()
    assert "bye from the demo" in legacy.stderr_text()


def test_big_message_is_one_line_of_about_the_requested_size(legacy: DemoProcess) -> None:
    request_id = legacy.request("tools/call", {"name": "big_message", "arguments": {"size_bytes": 2_000_000}})
    line = legacy.read_line()
    assert 2_000_000 < len(line) < 2_000_000 + 200
    response = json.loads(line)
    assert response["id"] == request_id
    assert len(text_of(response).encode("utf-8")) == 2_000_000


def test_big_message_defaults_to_one_mebibyte(legacy: DemoProcess) -> None:
    response = legacy.call("tools/call", {"name": "big_message", "arguments": {}})
    assert len(text_of(response)) == 1_048_576


def test_split_json_writes_a_multi_line_object(legacy: DemoProcess) -> None:
    request_id = legacy.request("tools/call", {"name": "split_json", "arguments": {}})
    lines = [legacy.read_line()]
    while lines[-1] != b"}\n":
        lines.append(legacy.read_line())
    assert len(lines) > 3
    assert json.loads(b"".join(lines))["method"] == "notifications/message"
    response, _ = legacy.response(request_id)
    assert "pretty-printed" in text_of(response)


def test_flood_sends_count_debug_notifications_before_the_answer(legacy: DemoProcess) -> None:
    request_id = legacy.request("tools/call", {"name": "flood", "arguments": {"count": 500}})
    response, before = legacy.response(request_id)
    assert [m["params"]["data"]["i"] for m in before] == list(range(500))
    assert {m["params"]["level"] for m in before} == {"debug"}
    assert not response["result"].get("isError")


def test_stderr_burst_writes_the_requested_lines(legacy: DemoProcess) -> None:
    legacy.call("tools/call", {"name": "stderr_burst", "arguments": {"lines": 50, "bytes_per_line": 40}})
    legacy.close_stdin()
    assert legacy.wait() == 0
    legacy.finish()
    burst = [line for line in legacy.stderr_text().splitlines() if line.startswith("stderr_burst line")]
    assert len(burst) == 50
    assert {len(line) for line in burst} == {40}


# -------------------------------------------------------------------- framing and process


def test_an_invalid_json_line_gets_a_parse_error_with_a_null_id(legacy: DemoProcess) -> None:
    legacy.send_raw(b"this is not json\n")
    error = legacy.read_message()
    assert error["id"] is None and error["error"]["code"] == -32700
    assert legacy.call("ping")["result"] == {}  # and the server carries on


def test_an_invalid_utf8_line_gets_a_parse_error(legacy: DemoProcess) -> None:
    legacy.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"\xff"}\n')
    error = legacy.read_message()
    assert error["id"] is None and error["error"]["code"] == -32700


def test_stdin_eof_makes_the_server_exit_0(legacy: DemoProcess) -> None:
    legacy.close_stdin()
    assert legacy.read_until_eof() == []
    assert legacy.wait() == 0


def test_banner_is_printed_before_anything_else(start_server: Callable[..., DemoProcess]) -> None:
    server = start_server("--banner", "Welcome to the demo!", "--stderr-lines", "3")
    assert server.read_line() == b"Welcome to the demo!\n"
    assert server.initialize()["result"]["protocolVersion"] == "2025-11-25"
    server.close_stdin()
    assert server.wait() == 0
    server.finish()
    assert "startup log line 3/3" in server.stderr_text()


def test_help_describes_the_flags() -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "inspector.demo", "--help"],
        cwd=REPO_ROOT,
        capture_output=True,
        timeout=TIMEOUT_S,
        check=False,
    )
    assert completed.returncode == 0
    assert b"--banner" in completed.stdout and b"--stderr-lines" in completed.stdout

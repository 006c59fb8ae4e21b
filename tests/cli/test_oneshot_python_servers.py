"""One-shot commands against Python servers: mcp-server-time, the SDK's MCPServer over stdio and Streamable HTTP,
and a hand-written server that pages its tools and answers with tool errors and JSON-RPC errors."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import warm_python
from helpers import ROOT, cli

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_CANNOT_CONNECT, EXIT_OK, EXIT_RPC_ERROR, EXIT_TOOL_ERROR

sys.path.insert(0, str(ROOT / "tests" / "http"))
http_support: Any = importlib.import_module("http_support")

ONESHOT_TIMEOUT = 60.0
PAGING = [sys.executable, str(Path(__file__).resolve().parent / "oneshot_servers" / "paging_server.py")]
SDK_STDIO = warm_python.command(ROOT / "tests" / "integration" / "servers" / "sdk_server.py")


def run(*args: str) -> Any:
    return cli(*args, timeout=ONESHOT_TIMEOUT)



@pytest.fixture(scope="module")
def sdk_streamable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    log = tmp_path_factory.mktemp("oneshot-sdk") / "server.log"
    server = http_support.launch_on_free_port(
        "SDK server (streamable-http)",
        lambda port: warm_python.command(http_support.SERVERS / "sdk_http_server.py", "streamable-http", str(port)),
        log)
    try:
        yield server
    finally:
        http_support.stop(server)


# -- mcp-server-time ---------------------------------------------------------------------------------------


def test_get_current_time_of_mcp_server_time(time_server):
    done = run("call", "get_current_time", "timezone=Europe/Paris", "--json", "--", *time_server)
    assert done.returncode == EXIT_OK, done.stderr
    result = json.loads(done.stdout)
    assert json.loads(result["content"][0]["text"])["timezone"] == "Europe/Paris"


def test_a_missing_required_argument_of_mcp_server_time_is_exit_2(time_server):
    done = run("call", "get_current_time", "--", *time_server)
    assert done.returncode == EXIT_BAD_INPUT
    assert 'arguments is missing the required field "timezone"' in done.stderr


# -- the SDK's MCPServer -----------------------------------------------------------------------------------


def test_sdk_add_over_stdio_types_the_integers():
    done = run("call", "add", "a=2", "b=3", "--json", "--", *SDK_STDIO)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "5"


def test_sdk_lists_resources_and_prompts_and_reads_and_gets():
    resources = run("resources", "--text", "--", *SDK_STDIO)
    assert resources.returncode == EXIT_OK and resources.stdout == "test://greeting\n", resources.stderr
    prompts = run("prompts", "--text", "--", *SDK_STDIO)
    assert prompts.returncode == EXIT_OK and prompts.stdout == "review\n", prompts.stderr
    read = run("read", "test://greeting", "--text", "--", *SDK_STDIO)
    assert read.returncode == EXIT_OK and read.stdout == "hello from the test server\n", read.stderr
    prompt = run("prompt", "review", "code=x = 1", "--text", "--", *SDK_STDIO)
    assert prompt.returncode == EXIT_OK and "x = 1" in prompt.stdout, prompt.stderr


def test_sdk_add_over_streamable_http(sdk_streamable):
    done = run("call", "add", "a=2", "b=3", "--json", "--url", sdk_streamable.url("/mcp"))
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["content"][0]["text"] == "5"
    tools = run("tools", "--text", "--url", sdk_streamable.url("/mcp"))
    assert {"add", "echo", "work", "ask"} <= set(tools.stdout.split()), tools.stderr


def test_an_elicitation_is_answered_by_the_answer_policy(sdk_streamable):
    # legacy: in the 2026-07-28 era this SDK has no back-channel for server requests on Streamable HTTP
    done = run("call", "ask", "--text", "--answer", "elicitation=accept-defaults", "--handshake", "legacy",
               "--url", sdk_streamable.url("/mcp"))
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout == "accepted: teal\n"


def test_a_url_nothing_listens_on_is_exit_3():
    port = http_support.free_port()
    done = run("tools", "--url", f"http://127.0.0.1:{port}/mcp", "--timeout", "5")
    assert done.returncode == EXIT_CANNOT_CONNECT, done.stderr
    assert done.stderr.startswith("mcp-inspector: ") and "Traceback" not in done.stderr


# -- the paging server -----------------------------------------------------------------------------------------


def test_tools_follows_next_cursor_to_the_last_page(tmp_path):
    out = tmp_path / "pages.jsonl"
    done = run("tools", "--text", "--out", str(out), "--", *PAGING)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.split() == ["echo", "fail", "explode", "flags", "last-page-tool"]
    sent = [e.json().get("params") for e in read_capture(out).events if e.method == "tools/list"]
    assert [(p or {}).get("cursor") for p in sent] == [None, "page-2", "page-3"]


def test_a_tool_on_the_last_page_is_found_and_typed():
    done = run("call", "last-page-tool", "x=1.5", "--text", "--", *PAGING)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout) == {"arguments": {"x": 1.5}, "tool": "last-page-tool"}


def test_booleans_integers_arrays_objects_and_args_json_are_typed():
    done = run("call", "flags", "on=false", "n=7", "tags=[\"a\"]", "opts.depth=2", "--args", '{"n": 1, "extra": "x"}',
               "--text", "--", *PAGING)
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["arguments"] == {"on": False, "n": 7, "tags": ["a"], "opts": {"depth": 2},
                                                    "extra": "x"}


def test_is_error_true_is_exit_7_with_the_result_on_stdout():
    done = run("call", "fail", "--", *PAGING)
    assert done.returncode == EXIT_TOOL_ERROR == 7
    assert json.loads(done.stdout)["isError"] is True
    assert done.stderr.strip() == "mcp-inspector: the tool fail reported an error (isError: true)"


def test_a_json_rpc_error_to_tools_call_is_exit_5_with_the_error_object():
    done = run("call", "explode", "--", *PAGING)
    assert done.returncode == EXIT_RPC_ERROR
    assert done.stdout == ""
    sentence, error = done.stderr.strip().splitlines()
    assert sentence == "mcp-inspector: the server answered tools/call with a JSON-RPC error: the tool blew up " \
                       "(code -32000)"
    assert json.loads(error) == {"code": -32000, "message": "the tool blew up", "data": {"why": "on purpose"}}


def test_a_prompt_without_its_required_argument_is_exit_2_and_with_it_works():
    missing = run("prompt", "greet", "--", *PAGING)
    assert missing.returncode == EXIT_BAD_INPUT
    assert missing.stderr.strip() == "mcp-inspector: the prompt greet needs the argument name (write name=...)"
    done = run("prompt", "greet", "name=Ada", "--text", "--", *PAGING)
    assert done.returncode == EXIT_OK and done.stdout == "Hello, Ada!\n", done.stderr


def test_bad_params_json_for_request_is_a_sentence():
    done = run("request", "ping", "{nope", "--", *PAGING)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.startswith("mcp-inspector: PARAMS_JSON is not JSON:") and "Traceback" not in done.stderr


def test_a_missing_server_command_is_exit_3(tmp_path):
    done = run("tools", "--", str(tmp_path / "no-such-server"))
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert done.stderr.startswith("mcp-inspector: ") and "Traceback" not in done.stderr


def test_help_documents_the_exit_statuses():
    done = run("call", "--help")
    assert done.returncode == 0
    assert "exit status:" in done.stdout and "isError: true" in done.stdout and "  7 " in done.stdout


JUNK = [sys.executable, str(ROOT / "tests" / "integration" / "servers" / "junk_server.py")]


def test_a_failed_call_also_counts_the_junk_lines_the_server_wrote_instead_of_messages():
    done = run("call", "echo", "text=hi", "--", *JUNK, "--banner", "--non-utf8")
    assert done.returncode == EXIT_BAD_INPUT, done.stderr
    assert "the server has no tool named echo; there are none; meanwhile 2 framing errors came from the server, " \
           "the first: plain text, not JSON" in done.stderr, done.stderr
    one = run("call", "echo", "text=hi", "--", *JUNK, "--banner")
    assert "; meanwhile 1 framing error came from the server: plain text, not JSON" in one.stderr, one.stderr

"""One-shot commands against the npm reference server, @modelcontextprotocol/server-everything, over stdio,
Streamable HTTP and HTTP+SSE (issue 14: "call get-sum a=2 b=3 prints the result JSON and exits 0; the same over
--url"), and against server-filesystem for --root."""

from __future__ import annotations

import importlib
import json
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from helpers import ROOT, cli
from npm_servers import install_everything, install_filesystem

from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_RPC_ERROR
from inspector.core.wire.events import Kind

pytestmark = [pytest.mark.npm]  # server-everything (tests/npm_servers.py)

# the HTTP tests' server helpers (tests/http is no package: "http" is the standard library's name)
sys.path.insert(0, str(ROOT / "tests" / "http"))
http_support: Any = importlib.import_module("http_support")

#: a one-shot run: node or Python starting, a handshake, a list and a call, the shutdown
ONESHOT_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def everything() -> list[str]:
    node, entry = install_everything()
    return [node, str(entry), "stdio"]


def _http_everything(mode: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    node, script = install_everything()
    directory = tmp_path_factory.mktemp(f"oneshot-everything-{mode}")
    port_file = directory / "port"
    # PORT=0: the kernel picks the port; the preload binds it to 127.0.0.1 and writes it to the port file
    env = {"PORT": "0", "FORCE_LOOPBACK_PORT_FILE": str(port_file),
           "NODE_OPTIONS": f"--require {http_support.SERVERS / 'force-loopback.cjs'}"}
    server = http_support.launch(f"server-everything ({mode})", [node, str(script), mode], directory / "server.log",
                                 env=env, port_file=port_file)
    try:
        yield server
    finally:
        http_support.stop(server)


@pytest.fixture(scope="module")
def everything_streamable(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from _http_everything("streamableHttp", tmp_path_factory)


@pytest.fixture(scope="module")
def everything_sse(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    yield from _http_everything("sse", tmp_path_factory)


def run(*args: str) -> Any:
    return cli(*args, timeout=ONESHOT_TIMEOUT)


def test_call_get_sum_prints_the_result_with_5_and_exits_0(everything):
    done = run("call", "get-sum", "a=2", "b=3", "--", *everything)
    assert done.returncode == EXIT_OK, done.stderr
    result = json.loads(done.stdout)
    assert "5" in result["content"][0]["text"] and result.get("isError") is not True


def test_json_output_is_one_line_that_parses(everything):
    done = run("call", "get-sum", "a=2", "b=3", "--json", "--", *everything)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.count("\n") == 1 and json.loads(done.stdout)["content"]


def test_tools_lists_the_names(everything):
    done = run("tools", "--", *everything)
    assert done.returncode == EXIT_OK, done.stderr
    names = [tool["name"] for tool in json.loads(done.stdout)["tools"]]
    assert {"echo", "get-sum", "get-tiny-image"} <= set(names)
    texts = run("tools", "--text", "--", *everything)
    assert texts.stdout.split() == names


def test_an_unknown_tool_names_the_closest_and_sends_nothing(everything, tmp_path):
    out = tmp_path / "c.jsonl"
    done = run("call", "get_sum", "a=2", "b=3", "--out", str(out), "--", *everything)
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.strip() == "mcp-inspector: the server has no tool named get_sum; did you mean get-sum?"
    assert done.stdout == ""
    sent = [e.method for e in read_capture(out).events if e.method]
    assert "tools/call" not in sent


def test_a_word_for_a_number_that_is_no_number_is_a_sentence_and_exit_2(everything):
    done = run("call", "get-sum", "a=x", "b=3", "--", *everything)
    assert done.returncode == EXIT_BAD_INPUT
    assert 'arguments.a must be a number, it is the string "x"' in done.stderr
    assert "Traceback" not in done.stderr and done.stdout == ""


def test_text_prints_only_the_text_content(everything):
    done = run("call", "echo", "message=hello world", "--text", "--", *everything)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout == "Echo: hello world\n"


def test_read_prompt_and_complete_work(everything):
    read = run("read", "demo://resource/static/document/architecture.md", "--text", "--", *everything)
    assert read.returncode == EXIT_OK and "Architecture" in read.stdout, read.stderr
    prompt = run("prompt", "args-prompt", "city=Paris", "--", *everything)
    assert prompt.returncode == EXIT_OK, prompt.stderr
    assert "Paris" in json.dumps(json.loads(prompt.stdout)["messages"])
    complete = run("complete", "--prompt", "completable-prompt", "department", "E", "--", *everything)
    assert complete.returncode == EXIT_OK, complete.stderr
    assert json.loads(complete.stdout)["completion"]["values"] == ["Engineering"]


def test_a_json_rpc_error_answer_is_exit_5_with_the_error_on_stderr(everything):
    done = run("request", "no/such-method", "--", *everything)
    assert done.returncode == EXIT_RPC_ERROR
    sentence, error = done.stderr.strip().splitlines()
    assert sentence.startswith("mcp-inspector: the server answered no/such-method with a JSON-RPC error")
    assert json.loads(error)["code"] == -32601


def test_out_saves_a_capture_that_show_reads(everything, tmp_path):
    out = tmp_path / "call.jsonl"
    done = run("call", "get-sum", "a=2", "b=3", "--out", str(out), "--", *everything)
    assert done.returncode == EXIT_OK, done.stderr
    shown = run("show", str(out))
    assert shown.returncode == 0 and "tools/call" in shown.stdout and "get-sum" in shown.stdout


def test_the_command_exits_as_soon_as_the_result_arrives(everything, tmp_path):
    out = tmp_path / "quick.jsonl"
    assert run("call", "get-sum", "a=2", "b=3", "--out", str(out), "--", *everything).returncode == EXIT_OK
    events = read_capture(out).events
    answer = next(e for e in events if e.data.get("request_method") == "tools/call")
    # record waits an idle half second after the last answer before it closes the server's stdin; a one-shot
    # closes it at once. (Timed from the answer to the close, which is the command's own doing: the server's
    # exit after it took 0.41 s once on a loaded machine, node winding down.)
    closed = next(e for e in events if e.kind == Kind.LIFECYCLE and e.data.get("what") == "stdin_closed")
    assert closed.seq > answer.seq and closed.t - answer.t < 0.4, [(e.t, e.kind) for e in events[-4:]]


def test_no_server_and_a_word_without_equals_are_sentences():
    done = run("call", "get-sum", "a=2")
    assert done.returncode == EXIT_BAD_INPUT and "needs the server" in done.stderr
    assert "Traceback" not in done.stderr
    done = run("call", "get-sum", "a", "--", sys.executable, "-c", "pass")
    assert done.returncode == EXIT_BAD_INPUT and "'a' is not KEY=VALUE" in done.stderr


@pytest.mark.parametrize("transport", ["streamable-http", "auto"])
def test_call_and_tools_over_streamable_http(everything_streamable, transport):
    url = everything_streamable.url("/mcp")
    done = run("call", "get-sum", "a=2", "b=3", "--json", "--url", url, "--transport", transport)
    assert done.returncode == EXIT_OK, done.stderr
    assert "5" in json.loads(done.stdout)["content"][0]["text"]
    listed = run("tools", "--text", "--url", url)
    assert listed.returncode == EXIT_OK and "get-sum" in listed.stdout.split(), listed.stderr


def test_call_and_tools_over_sse(everything_sse):
    url = everything_sse.url("/sse")
    started = time.monotonic()
    done = run("call", "get-sum", "a=2", "b=3", "--url", url, "--transport", "sse")
    assert done.returncode == EXIT_OK, done.stderr
    assert "5" in json.loads(done.stdout)["content"][0]["text"]
    assert time.monotonic() - started < ONESHOT_TIMEOUT
    listed = run("tools", "--text", "--url", url, "--transport", "sse")
    assert listed.returncode == EXIT_OK and "get-sum" in listed.stdout.split(), listed.stderr


def test_root_is_declared_and_answered_to_server_filesystem(tmp_path):
    node, entry = install_filesystem()
    folder = tmp_path / "shared"
    folder.mkdir()
    (folder / "note.txt").write_text("from the root\n")
    out = tmp_path / "fs.jsonl"
    # no folder on the server's command line: it gets its allowed directories from our roots only
    done = run("call", "list_allowed_directories", "--root", str(folder), "--text", "--out", str(out),
               "--", node, str(entry))
    assert done.returncode == EXIT_OK, done.stderr
    assert str(folder.resolve()) in done.stdout
    stderr_lines = " ".join(e.text() for e in read_capture(out).events if e.kind == Kind.STDERR)
    assert "Client does not support MCP Roots" not in stderr_lines
    assert "Updated allowed directories from MCP roots" in stderr_lines
    read = run("call", "read_text_file", f"path={folder / 'note.txt'}", "--root", str(folder), "--text",
               "--", node, str(entry))
    assert read.returncode == EXIT_OK and read.stdout == "from the root\n", read.stderr


def test_root_that_is_no_folder_is_a_sentence(tmp_path):
    done = run("tools", "--root", str(tmp_path / "missing"), "--", sys.executable, "-c", "pass")
    assert done.returncode == EXIT_BAD_INPUT
    assert done.stderr.strip() == f"mcp-inspector: --root {tmp_path / 'missing'}: no such folder"

"""``mcp-inspector serve CAPTURE`` end to end: a capture of the demo server recorded in the test, served on stdio,
answers our own one-shot commands and the official Python SDK's client as the demo did; each ``--match`` mode
driven with raw lines; ``--out``; unusable captures refused in one sentence before serving."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
import warm_cli
import warm_python
from helpers import DEMO, ROOT, cli

from inspector.cli.main import main
from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_CANNOT_CONNECT, EXIT_OK, EXIT_RPC_ERROR
from inspector.core.wire.events import Direction, Kind

RUN_TIMEOUT = 60.0
CLIENT_TIMEOUT = 60.0
ADD = {"method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
SCRIPT = [{"method": "tools/list"}, ADD, {"method": "resources/read", "params": {"uri": "demo://readme"}}]


def serve_command(capture: Path, *options: str) -> list[str]:
    return [sys.executable, "-m", "inspector", "serve", str(capture), *options]


def record_demo(folder: Path, name: str, *options: str) -> Path:
    send = folder / f"{name}-send.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in SCRIPT), encoding="utf-8")
    out = folder / f"{name}.jsonl"
    result = cli("record", "--out", str(out), "--send", str(send), *options, "--", *DEMO, timeout=RUN_TIMEOUT)
    assert result.returncode == 0, result.stderr
    return out


@pytest.fixture(scope="module")
def legacy_capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo recorded with the initialize handshake."""
    return record_demo(tmp_path_factory.mktemp("serve"), "legacy", "--handshake", "legacy")


@pytest.fixture(scope="module")
def modern_capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo recorded at 2026-07-28 (server/discover, _meta on every request)."""
    return record_demo(tmp_path_factory.mktemp("serve"), "modern")


def recorded_result(capture: Path, method: str) -> Any:
    events = read_capture(capture).events
    return next(e.json()["result"] for e in events if e.dir == Direction.S2C and e.kind == Kind.MESSAGE
                and e.data.get("request_method") == method)


def drive(capture: Path, messages: list[dict[str, Any] | str], *options: str) -> tuple[list[dict[str, Any]], Any]:
    """Serve ``capture`` to these lines on stdin (then its end); the answers on stdout, parsed, and the run."""
    lines = [m if isinstance(m, str) else json.dumps({"jsonrpc": "2.0", **m}) for m in messages]
    run = warm_cli.run(serve_command(capture, *options), input="".join(line + "\n" for line in lines),
                       capture_output=True, text=True, timeout=RUN_TIMEOUT, env=dict(os.environ))
    assert run.returncode == EXIT_OK, run.stderr
    return [json.loads(line) for line in run.stdout.splitlines()], run


# -- our own client ----------------------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("which", ["legacy", "modern"])
def test_our_one_shot_commands_get_from_the_twin_what_the_demo_answered(which, legacy_capture, modern_capture):
    capture = legacy_capture if which == "legacy" else modern_capture  # legacy: our probe is refused, then initialize
    tools = cli("tools", "--json", "--", *serve_command(capture), timeout=RUN_TIMEOUT)
    assert tools.returncode == EXIT_OK, tools.stderr
    assert json.loads(tools.stdout)["tools"] == recorded_result(capture, "tools/list")["tools"]
    call = cli("call", "add", "a=2", "b=3", "--", *serve_command(capture), timeout=RUN_TIMEOUT)
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout) == recorded_result(capture, "tools/call")
    read = cli("read", "demo://readme", "--json", "--", *serve_command(capture), timeout=RUN_TIMEOUT)
    assert read.returncode == EXIT_OK, read.stderr
    assert json.loads(read.stdout) == recorded_result(capture, "resources/read")


@pytest.mark.integration
@pytest.mark.report("faults", "a client asks a served capture for a call it never recorded", surface="CLI",
                    group="capture", advice="Record that request against the real server too (mcp-inspector record "
                    "--send) and serve the new capture; the error names the closest recorded request and what differs.")
def test_a_call_the_capture_never_saw_is_a_json_rpc_error_naming_the_closest_recorded_call(legacy_capture, report):
    call = cli("call", "add", "a=2", "b=4", "--", *serve_command(legacy_capture), timeout=RUN_TIMEOUT)
    assert call.returncode == EXIT_RPC_ERROR, call.stderr
    report.saw(call.stderr.splitlines()[0])
    seq = next(e.seq for e in read_capture(legacy_capture).events if e.method == "tools/call")
    assert (f"no recorded answer to this tools/call: the closest recorded request, tools/call #{seq}, differs in "
            "params.arguments.b (recorded 3, here 4)") in call.stderr


# -- the SDK's client --------------------------------------------------------------------------------------------


async def sdk_session(capture: Path, discover: bool) -> dict[str, Any]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "inspector", "serve", str(capture)],
                                   env=dict(os.environ))
    with anyio.fail_after(CLIENT_TIMEOUT):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            if discover:
                found = await session.discover()
                name = session.discover_result and found.model_dump(by_alias=True)["_meta"][
                    "io.modelcontextprotocol/serverInfo"]["name"]
            else:
                name = (await session.initialize()).server_info.name
            tools = await session.list_tools()
            call = await session.call_tool("add", {"a": 2, "b": 3})
            resource = await session.read_resource("demo://readme")
            try:
                await session.call_tool("add", {"a": 2, "b": 4})
                missed = ""
            except Exception as exc:  # the SDK's MCPError, whatever its module: its message is kept
                missed = str(exc)
    return {"server": name, "tools": [t.model_dump(by_alias=True, exclude_none=True) for t in tools.tools],
            "call": call.structured_content, "text": call.content[0].text, "uri": str(resource.contents[0].uri),
            "missed": missed}


@pytest.mark.integration
@pytest.mark.parametrize(("which", "discover"), [("legacy", False), ("modern", False), ("modern", True)],
                         ids=["initialize", "initialize-of-a-modern-capture", "discover"])
def test_the_sdks_client_gets_the_same_tools_and_result_from_the_twin(which, discover, legacy_capture,
                                                                      modern_capture):
    capture = legacy_capture if which == "legacy" else modern_capture
    got = anyio.run(sdk_session, capture, discover)
    recorded_tools = recorded_result(capture, "tools/list")["tools"]
    assert got["server"] == "mcp-inspector-demo"
    assert [t["name"] for t in got["tools"]] == [t["name"] for t in recorded_tools]
    assert [t["inputSchema"] for t in got["tools"]] == [t["inputSchema"] for t in recorded_tools]
    assert (got["call"], got["text"], got["uri"]) == ({"sum": 5}, "5", "demo://readme")
    assert "no recorded answer to this tools/call" in got["missed"] and "(recorded 3, here 4)" in got["missed"]


# -- the match modes, driven line by line -----------------------------------------------------------------------


def init(msg_id: int = 0) -> dict[str, Any]:
    return {"id": msg_id, "method": "initialize",
            "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                       "clientInfo": {"name": "t", "version": "1"}}}


def call_add(msg_id: int, a: int, b: int) -> dict[str, Any]:
    return {"id": msg_id, "method": "tools/call", "params": {"name": "add", "arguments": {"a": a, "b": b}}}


@pytest.mark.integration
def test_auto_answers_out_of_order_requests_and_lists_the_unmatched_at_the_end(legacy_capture):
    answers, run = drive(legacy_capture, [init(), {"method": "notifications/initialized"}, call_add(1, 2, 3),
                                          {"id": 2, "method": "tools/list"}, call_add(3, 2, 3), call_add(4, 5, 5)])
    assert [a["id"] for a in answers] == [0, 1, 2, 3, 4]
    assert answers[1]["result"]["structuredContent"] == {"sum": 5} == answers[3]["result"]["structuredContent"]
    assert "tools" in answers[2]["result"]
    assert answers[4]["error"]["code"] == -32000
    assert run.stderr.splitlines() == [
        f"mcp-inspector: served 4 requests from {legacy_capture}; 1 had no recorded answer:",
        f"  tools/call (id 4): {answers[4]['error']['message']}"]


@pytest.mark.integration
def test_sequential_answers_in_recorded_order_whatever_comes(legacy_capture):
    answers, _ = drive(legacy_capture, [init(), {"id": 1, "method": "x/one"}, {"id": 2, "method": "x/two"},
                                        {"id": 3, "method": "x/three"}, {"id": 4, "method": "x/four"}],
                       "--match", "sequential")
    assert "tools" in answers[1]["result"]
    assert answers[2]["result"]["structuredContent"] == {"sum": 5}
    assert "contents" in answers[3]["result"]
    assert "all 3 recorded answers have been given in order" in answers[4]["error"]["message"]


@pytest.mark.integration
def test_strict_refuses_a_recorded_request_out_of_its_order(legacy_capture):
    answers, run = drive(legacy_capture, [init(), call_add(1, 2, 3), {"id": 2, "method": "tools/list"},
                                          call_add(3, 2, 3)], "--match", "strict")
    assert "differs in its method (tools/list, here tools/call) (--match strict)" in answers[1]["error"]["message"]
    assert "tools" in answers[2]["result"] and answers[3]["result"]["structuredContent"] == {"sum": 5}
    assert "1 had no recorded answer" in run.stderr


@pytest.mark.integration
@pytest.mark.report("faults", "a client sends a served capture a line that is not JSON", surface="CLI", group="input",
                    advice="Send one JSON-RPC message per line; the twin answers the parse error and goes on.")
def test_junk_from_the_client_gets_a_parse_error_and_the_session_goes_on(legacy_capture, report):
    answers, _ = drive(legacy_capture, ["this is not JSON", {"id": 7, "method": "tools/list"}])
    report.saw(answers[0]["error"]["message"])
    assert answers[0] == {"jsonrpc": "2.0", "id": None, "error": {
        "code": -32700, "message": answers[0]["error"]["message"]}}
    assert answers[0]["error"]["message"].startswith("Parse error: ")
    assert answers[1]["id"] == 7 and "tools" in answers[1]["result"]


@pytest.mark.integration
def test_a_line_over_max_message_is_an_invalid_request(legacy_capture):
    answers, _ = drive(legacy_capture, [{"id": 1, "method": "tools/list", "params": {"pad": "x" * 5000}},
                                        {"id": 2, "method": "tools/list"}], "--max-message", "1K")
    assert answers[0]["error"]["code"] == -32600 and answers[0]["id"] is None
    assert answers[1]["id"] == 2


@pytest.mark.integration
def test_out_records_the_served_session_with_the_recorded_answers_and_the_unmatched_flagged(legacy_capture, tmp_path):
    out = tmp_path / "served.jsonl"
    drive(legacy_capture, [init(), call_add(1, 2, 3), call_add(2, 1, 1)], "--out", str(out))
    served = read_capture(out)
    assert served.header["serve_of"]["path"] == str(legacy_capture.resolve())
    assert served.header["target"]["argv"][:2] == ["mcp-inspector", "serve"]
    messages = [e for e in served.events if e.kind == Kind.MESSAGE]
    assert [(e.dir, e.method or e.data.get("request_method")) for e in messages] == [
        (Direction.C2S, "initialize"), (Direction.S2C, "initialize"), (Direction.C2S, "tools/call"),
        (Direction.S2C, "tools/call"), (Direction.C2S, "tools/call"), (Direction.S2C, "tools/call")]
    recorded = {e.seq: e for e in read_capture(legacy_capture).events}
    answer = messages[3]
    assert recorded[answer.data["served_from"]].data["request_method"] == "tools/call"
    unmatched = messages[4]
    assert [f.code for f in unmatched.findings] == ["serve-unmatched"]
    assert "no recorded answer to this tools/call" in unmatched.findings[0].text
    assert "served_from" not in messages[5].data


@pytest.mark.integration
def test_a_capture_without_a_handshake_serves_and_says_so(legacy_capture, tmp_path):
    lines = legacy_capture.read_text(encoding="utf-8").splitlines(keepends=True)
    bare = tmp_path / "bare.jsonl"
    bare.write_text("".join(line for line in lines if "initialize" not in line), encoding="utf-8")
    answers, run = drive(bare, [init(), {"id": 1, "method": "tools/list"}])
    assert answers[0]["result"]["serverInfo"]["name"] == "mcp-inspector serve"
    assert "tools" in answers[1]["result"]
    assert "has no handshake: initialize is answered with the capabilities its recorded requests show" in run.stderr


# -- unusable captures: one sentence, before serving (in process: nothing is served) ------------------------------


@pytest.mark.parametrize(("content", "status", "sentence"), [
    (None, EXIT_BAD_INPUT, "{path}: no such file"),
    ('{"not": "a capture"}\n', EXIT_BAD_INPUT,
     '{path} is not an mcp-inspector capture: its first line has no "format": "mcp-inspector-capture"'),
    ('{"format":"mcp-inspector-capture","vers', EXIT_BAD_INPUT,
     "{path} is not an mcp-inspector capture: its first line is not JSON"),
    ('{"format":"mcp-inspector-capture","version":99}\n', EXIT_BAD_INPUT,
     "{path} uses capture format version 99, newer than this mcp-inspector understands (up to 1); upgrade "
     "mcp-inspector to open it"),
    ('{"format":"mcp-inspector-capture","version":1,"created":"x","target":{}}\n{"seq":1,"t":0,"wa',
     EXIT_CANNOT_CONNECT, "{path} holds no request with an answer: nothing to serve"),
], ids=["missing", "foreign", "cut-in-its-header", "newer", "cut-before-any-answer"])
def test_an_unusable_capture_is_one_sentence_and_its_exit_status(content, status, sentence, tmp_path, capsys):
    path = tmp_path / "capture.jsonl"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    assert main(["serve", str(path)]) == status
    err = capsys.readouterr().err.splitlines()
    assert err[-1] == "mcp-inspector: " + sentence.format(path=path)
    assert capsys.readouterr().out == ""


@pytest.mark.report("faults", "serve --out naming the capture being served", surface="CLI", group="input",
                    advice="Give --out another file: the served session is a capture of its own.")
def test_out_naming_the_capture_being_served_is_refused_before_anything_is_written(tmp_path, capsys, report):
    copy = tmp_path / "capture.jsonl"
    content = b'{"format":"mcp-inspector-capture","version":1,"created":"x","target":{}}\n'
    copy.write_bytes(content)
    (tmp_path / "link.jsonl").symlink_to(copy)
    assert main(["serve", str(copy), "--out", str(tmp_path / "link.jsonl")]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    report.saw(err)
    assert err == (f"mcp-inspector: --out {tmp_path / 'link.jsonl'} is the capture being served: writing it would "
                   "destroy it; give another file\n")
    assert copy.read_bytes() == content


@pytest.mark.integration
def test_a_capture_whose_last_line_was_cut_serves_what_it_holds_and_warns(legacy_capture, tmp_path):
    cut = tmp_path / "cut.jsonl"
    text = legacy_capture.read_text(encoding="utf-8")
    cut.write_text(text[:text.rindex("\n", 0, len(text) - 1) + 20], encoding="utf-8")  # into the last line
    answers, run = drive(cut, [init(), call_add(1, 2, 3)])
    assert answers[1]["result"]["structuredContent"] == {"sum": 5}
    assert "mcp-inspector: warning: the last line (line " in run.stderr and "was cut off" in run.stderr


@pytest.mark.integration
def test_a_call_that_asked_the_client_for_sampling_asks_the_client_again_before_its_recorded_answer(tmp_path):
    send = tmp_path / "ask.jsonl"
    send.write_text(json.dumps({"method": "tools/call", "params": {"name": "ask_llm", "arguments": {"prompt": "hi"}}})
                    + "\n", encoding="utf-8")
    capture = tmp_path / "ask-capture.jsonl"
    recorded = cli("record", "--out", str(capture), "--send", str(send), "--handshake", "legacy", "--answer",
                   "sampling=text:hello from the model", "--", *DEMO, timeout=RUN_TIMEOUT)
    assert recorded.returncode == 0, recorded.stderr
    model = {"role": "assistant", "content": {"type": "text", "text": "mine"}, "model": "m"}
    answers, run = drive(capture, [init(), {"id": 1, "method": "tools/call",
                                            "params": {"name": "ask_llm", "arguments": {"prompt": "hi"}}},
                                   {"id": 1, "result": model}])  # the client's answer to the twin's request 1
    assert answers[1]["method"] == "sampling/createMessage" and answers[1]["id"] == 1
    assert answers[2]["result"]["content"][0]["text"] == "hello from the model"
    assert ("mcp-inspector: 1 request of the server's (sampling, elicitation, roots) sent to the client, 1 answered"
            in run.stderr)


async def sdk_progress(capture: Path) -> tuple[str, list[tuple[float, float | None, str | None]], list[Any]]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "inspector", "serve", str(capture)],
                                   env=dict(os.environ))
    progress: list[tuple[float, float | None, str | None]] = []
    logs: list[Any] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append((done, total, message))

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with stdio_client(server) as (read, write), \
                ClientSession(read, write, logging_callback=on_log) as session:
            await session.initialize()
            result = await session.call_tool("slow_count", {"count": 3, "delay_ms": 5}, progress_callback=on_progress)
    return result.content[0].text, progress, logs


@pytest.mark.integration
def test_the_sdks_client_gets_the_recorded_progress_under_its_own_token_and_the_log_lines(tmp_path):
    send = tmp_path / "slow.jsonl"
    send.write_text(json.dumps({"method": "tools/list"}) + "\n" + json.dumps(
        {"method": "tools/call", "params": {"name": "slow_count", "arguments": {"count": 3, "delay_ms": 5}}}) + "\n",
        encoding="utf-8")
    capture = tmp_path / "slow-capture.jsonl"
    recorded = cli("record", "--out", str(capture), "--send", str(send), "--handshake", "legacy", "--progress", "--",
                   *DEMO, timeout=RUN_TIMEOUT)
    assert recorded.returncode == 0, recorded.stderr
    text, progress, logs = anyio.run(sdk_progress, capture)
    assert text == "counted to 3"
    assert progress == [(1.0, 3.0, "counted 1 of 3"), (2.0, 3.0, "counted 2 of 3"), (3.0, 3.0, "counted 3 of 3")]
    assert len(logs) == 3


@pytest.mark.integration
def test_a_capture_recorded_over_streamable_http_from_an_sdk_server_serves_on_stdio(tmp_path):
    import importlib

    sys.path.insert(0, str(ROOT / "tests" / "http"))
    http_support: Any = importlib.import_module("http_support")
    server = http_support.launch_on_free_port(
        "SDK server (streamable-http)",
        lambda port: warm_python.command(http_support.SERVERS / "sdk_http_server.py", "streamable-http", str(port)),
        tmp_path / "server.log")
    try:
        send = tmp_path / "send.jsonl"
        send.write_text("".join(json.dumps(m) + "\n" for m in SCRIPT[:2]), encoding="utf-8")
        capture = tmp_path / "http-capture.jsonl"
        recorded = cli("record", "--out", str(capture), "--send", str(send), "--url", server.url("/mcp"),
                       timeout=RUN_TIMEOUT)
        assert recorded.returncode == 0, recorded.stderr
    finally:
        http_support.stop(server)
    assert read_capture(capture).target["transport"] != "stdio"
    tools = cli("tools", "--json", "--", *serve_command(capture), timeout=RUN_TIMEOUT)  # the HTTP server is gone
    assert tools.returncode == EXIT_OK, tools.stderr
    assert [t["name"] for t in json.loads(tools.stdout)["tools"]] == [
        t["name"] for t in recorded_result(capture, "tools/list")["tools"]]
    call = cli("call", "add", "a=2", "b=3", "--json", "--", *serve_command(capture), timeout=RUN_TIMEOUT)
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout)["content"][0]["text"] == "5"


# -- server-everything and the official inspector's CLI (npm) ---------------------------------------------------


EVERYTHING_SCRIPT = [{"method": "tools/list"},
                     {"method": "tools/call", "params": {"name": "get-sum", "arguments": {"a": 2, "b": 3}}},
                     {"method": "resources/read", "params": {"uri": "demo://resource/static/document/architecture.md"}}]


async def sdk_get_sum(capture: Path) -> tuple[list[str], str]:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    server = StdioServerParameters(command=sys.executable, args=["-m", "inspector", "serve", str(capture)],
                                   env=dict(os.environ))
    with anyio.fail_after(CLIENT_TIMEOUT):
        async with stdio_client(server) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            tools = await session.list_tools()
            call = await session.call_tool("get-sum", {"a": 2, "b": 3})
    return [t.name for t in tools.tools], call.content[0].text


@pytest.mark.npm
def test_a_server_everything_capture_answers_our_call_the_sdk_and_the_official_inspector_cli(tmp_path):
    from npm_servers import OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION, install_everything, install_package

    node, everything = install_everything()
    _, launcher = install_package(OFFICIAL_INSPECTOR_PACKAGE, OFFICIAL_INSPECTOR_VERSION,
                                  "clients/launcher/build/index.js")
    send = tmp_path / "send.jsonl"
    send.write_text("".join(json.dumps(m) + "\n" for m in EVERYTHING_SCRIPT), encoding="utf-8")
    capture = tmp_path / "everything.jsonl"
    recorded = cli("record", "--out", str(capture), "--send", str(send), "--handshake", "legacy", "--",
                   node, str(everything), "stdio", timeout=RUN_TIMEOUT)
    assert recorded.returncode == 0, recorded.stderr
    call = cli("call", "get-sum", "a=2", "b=3", "--json", "--", *serve_command(capture), timeout=RUN_TIMEOUT)
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout) == recorded_result(capture, "tools/call")
    # the official inspector's CLI also sets the log level, which the capture never recorded: answered {} as the
    # spec makes it, not a miss
    official = [node, str(launcher), "--cli", "-e", f"PYTHONPATH={ROOT}", *serve_command(capture)]  # this tree's
    runs = {
        "tools/list": [*official, "--method", "tools/list"],
        "tools/call": [*official, "--method", "tools/call", "--tool-name", "get-sum", "--tool-arg", "a=2",
                       "--tool-arg", "b=3"],
        "resources/read": [*official, "--method", "resources/read", "--uri", EVERYTHING_SCRIPT[2]["params"]["uri"]],
    }
    for method, argv in runs.items():
        done = warm_cli.run(argv, capture_output=True, text=True, timeout=RUN_TIMEOUT)
        assert done.returncode == 0, done.stdout + done.stderr
        got = json.loads(done.stdout)
        want = recorded_result(capture, method)
        assert (got["tools"] if method == "tools/list" else got) == (want["tools"] if method == "tools/list" else want)
        assert "had no recorded answer" not in done.stderr
    tools, text = anyio.run(sdk_get_sum, capture)
    assert tools == [t["name"] for t in recorded_result(capture, "tools/list")["tools"]]
    assert text == recorded_result(capture, "tools/call")["content"][0]["text"]
    missed = warm_cli.run([*official, "--method", "tools/call", "--tool-name", "get-sum", "--tool-arg", "a=2",
                           "--tool-arg", "b=4"], capture_output=True, text=True, timeout=RUN_TIMEOUT)
    assert missed.returncode != 0
    assert "differs in params.arguments.b (recorded 3, here 4)" in missed.stdout + missed.stderr


@pytest.mark.integration
def test_a_client_that_stops_reading_and_closes_its_end_ends_the_twin_with_status_0(legacy_capture, tmp_path):
    requests = tmp_path / "flood.jsonl"
    requests.write_text(json.dumps({"jsonrpc": "2.0", **init()}) + "\n" + "".join(
        json.dumps({"jsonrpc": "2.0", **call_add(n, 2, 3)}) + "\n" for n in range(1, 20001)), encoding="utf-8")
    with requests.open("rb") as stdin:
        process = warm_cli.Popen(serve_command(legacy_capture), stdin=stdin, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, env=dict(os.environ))
        assert process.stdout is not None and process.stderr is not None
        assert json.loads(process.stdout.readline())["id"] == 0
        process.stdout.close()  # the client goes away with thousands of answers still to come
        try:
            status = process.wait(timeout=RUN_TIMEOUT)
        finally:
            process.kill()
        err = process.stderr.read().decode()
        process.stderr.close()
    assert status == EXIT_OK, err
    assert err.startswith("mcp-inspector: served ") and "Traceback" not in err

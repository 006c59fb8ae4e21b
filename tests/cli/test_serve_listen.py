"""``mcp-inspector serve CAPTURE --listen 127.0.0.1:PORT``: a capture of the demo server (recorded on stdio in the
test) served over HTTP on loopback answers the Python SDK's own clients (Streamable HTTP and the HTTP+SSE of
2024-11-05) and our own ``call --url`` as the demo did; SIGTERM ends it with exit 0 and ``--out`` complete; any
address but loopback is refused in one sentence before anything listens."""

from __future__ import annotations

import json
import signal
import sys
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from helpers import cli
from serve_support import CLIENT_TIMEOUT, sdk_session, serving, tap_support
from test_serve_cmd import record_demo, recorded_result

from inspector.cli.main import main
from inspector.core.capture import read_capture
from inspector.core.exits import EXIT_BAD_INPUT, EXIT_OK, EXIT_RPC_ERROR
from inspector.core.wire.events import Direction, Kind

RUN_TIMEOUT = 60.0


@pytest.fixture(scope="module")
def demo_capture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo recorded on stdio with the initialize handshake."""
    return record_demo(tmp_path_factory.mktemp("serve-listen"), "legacy", "--handshake", "legacy")


# -- real clients over HTTP -------------------------------------------------------------------------------------


@pytest.mark.integration
@pytest.mark.parametrize("transport", ["streamable-http", "sse"])
def test_the_sdks_http_client_gets_the_same_tools_and_result_from_the_served_capture(transport, demo_capture):
    with serving(demo_capture, "--transport", transport) as served:
        assert served.url.startswith("http://127.0.0.1:")
        assert served.url.endswith("/mcp" if transport == "streamable-http" else "/sse")
        got = anyio.run(sdk_session, served.url, transport)
        assert served.stop() == EXIT_OK, served.stderr
    recorded_tools = recorded_result(demo_capture, "tools/list")["tools"]
    assert got["server"] == "mcp-inspector-demo"
    assert [t["name"] for t in got["tools"]] == [t["name"] for t in recorded_tools]
    assert [t["inputSchema"] for t in got["tools"]] == [t["inputSchema"] for t in recorded_tools]
    assert (got["call"], got["text"], got["uri"]) == ({"sum": 5}, "5", "demo://readme")
    assert "no recorded answer to this tools/call" in got["missed"] and "(recorded 3, here 4)" in got["missed"]
    assert "1 had no recorded answer" in served.stderr


async def sdk_discover(url: str) -> dict[str, Any]:
    """The SDK's own client at 2026-07-28 over Streamable HTTP: server/discover, then add(2, 3)."""
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with streamable_http_client(url) as streams, ClientSession(streams[0], streams[1]) as session:
            found = (await session.discover()).model_dump(by_alias=True)
            call = await session.call_tool("add", {"a": 2, "b": 3})
    return {"server": found["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "call": call.structured_content}


@pytest.mark.integration
def test_a_2026_07_28_capture_answers_the_sdks_discover_and_call_over_streamable_http(tmp_path):
    capture = record_demo(tmp_path, "modern")
    with serving(capture) as served:
        got = anyio.run(sdk_discover, served.url)
        call = cli("call", "add", "a=2", "b=3", "--url", served.url, timeout=RUN_TIMEOUT)
        assert served.stop() == EXIT_OK, served.stderr
    assert got == {"server": "mcp-inspector-demo", "call": {"sum": 5}}
    assert call.returncode == EXIT_OK and json.loads(call.stdout) == recorded_result(capture, "tools/call")


@pytest.mark.integration
def test_our_call_and_tools_over_url_get_from_the_served_capture_what_the_demo_answered(demo_capture):
    with serving(demo_capture) as served:
        tools = cli("tools", "--json", "--url", served.url, timeout=RUN_TIMEOUT)
        call = cli("call", "add", "a=2", "b=3", "--url", served.url, timeout=RUN_TIMEOUT)
        missed = cli("call", "add", "a=2", "b=4", "--url", served.url, timeout=RUN_TIMEOUT)
        assert served.stop() == EXIT_OK, served.stderr
    assert tools.returncode == EXIT_OK, tools.stderr
    assert json.loads(tools.stdout)["tools"] == recorded_result(demo_capture, "tools/list")["tools"]
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout) == recorded_result(demo_capture, "tools/call")
    assert missed.returncode == EXIT_RPC_ERROR and "differs in params.arguments.b (recorded 3, here 4)" in \
        missed.stderr


@pytest.mark.integration
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_ends_the_served_capture_with_exit_0_and_out_complete(sig, demo_capture, tmp_path):
    out = tmp_path / "served.jsonl"
    with serving(demo_capture, "--out", str(out)) as served:
        call = cli("call", "add", "a=2", "b=3", "--url", served.url, timeout=RUN_TIMEOUT)
        assert call.returncode == EXIT_OK, call.stderr
        with httpx.Client(timeout=CLIENT_TIMEOUT) as client, client.stream(
                "GET", served.url, headers={"Accept": "text/event-stream"}) as stream:
            # a GET without a session: the capture's server sent nothing outside requests, so no GET stream
            assert stream.status_code == 405
        assert served.stop(sig) == EXIT_OK, served.stderr
    capture = read_capture(out)
    assert capture.header["target"] == {"transport": "streamable-http", "url": served.url, "headers": {},
                                        "redacted": True}
    answers = [e for e in capture.events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C
               and e.data.get("request_method") == "tools/call"]
    assert answers and answers[0].json()["result"]["structuredContent"] == {"sum": 5}
    assert answers[0].data["served_from"] == next(e.seq for e in read_capture(demo_capture).events
                                                  if e.dir == Direction.S2C and e.data.get("request_method")
                                                  == "tools/call")
    notes = [e.data["text"] for e in capture.events if e.kind == Kind.NOTE]
    assert notes[-1].startswith("served ") and f"listening on {served.url} (streamable-http)" in notes


@pytest.mark.integration
def test_serve_listens_on_127_0_0_1_only_while_it_runs_and_nothing_after(demo_capture):
    support = tap_support()
    with serving(demo_capture) as served:
        port = int(served.url.split(":")[2].split("/")[0])
        assert support.listening_ports_of(served.process.pid) == [("0100007F", port)]  # 127.0.0.1, /proc's way
        assert served.stop() == EXIT_OK, served.stderr
    assert not support.port_listens(port)


# -- loopback only ------------------------------------------------------------------------------------------------


@pytest.mark.report("faults", "serve --listen is given an address that is not loopback (0.0.0.0, a LAN address, a "
                    "host name)", surface="CLI", group="input",
                    advice="Serve on 127.0.0.1:PORT or [::1]:PORT; a client on another machine is not served (an SSH "
                           "tunnel reaches a loopback port).")
@pytest.mark.parametrize("address", ["0.0.0.0:0", "192.168.1.20:8765", "localhost:8765", "example.com:80"])
def test_listen_on_anything_but_loopback_is_one_sentence_and_exit_2_before_anything_listens(address, tmp_path,
                                                                                            capsys, report):
    missing = tmp_path / "never-read.jsonl"  # refused before the capture is even read
    assert main(["serve", str(missing), "--listen", address]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err.strip()
    report.saw(err)
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith(f"mcp-inspector: --listen '{address}'")
    assert "127.0.0.1" in err
    assert "never-read" not in err


@pytest.mark.integration
def test_close_after_over_http_ends_serve_by_itself_with_exit_0_and_the_sentence(demo_capture):
    with serving(demo_capture, "--fault", "close-after=3", "--fault", "latency=50") as served:
        # server/discover (no session: a count of its own), then in a session initialize, tools/list, the call
        call = cli("call", "add", "a=2", "b=3", "--url", served.url, timeout=RUN_TIMEOUT)
        assert served.process.wait(timeout=RUN_TIMEOUT) == EXIT_OK  # no signal: close-after ended it
        assert served.stop() == EXIT_OK
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout) == recorded_result(demo_capture, "tools/call")
    assert "mcp-inspector: faults: each answer waits 50 ms; the twin ends after 3 requests" in served.stderr
    assert "mcp-inspector: the twin ended after 3 requests, as --fault close-after=3 asked" in served.stderr
    assert "mcp-inspector: faults: close-after 1, latency 4" in served.stderr


async def sdk_sampling_over_http(url: str) -> tuple[str, list[str]]:
    """The SDK's Streamable HTTP client calls ask_llm; its sampling callback answers the served request."""
    from mcp import types
    from mcp.client.session import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    asked: list[str] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        asked.append(params.messages[0].content.text)  # type: ignore[union-attr]  # the recorded prompt: text
        return types.CreateMessageResult(role="assistant", content=types.TextContent(type="text", text="sdk model"),
                                         model="test")

    with anyio.fail_after(CLIENT_TIMEOUT):
        async with streamable_http_client(url) as streams, \
                ClientSession(streams[0], streams[1], sampling_callback=sample) as session:
            await session.initialize()
            result = await session.call_tool("ask_llm", {"prompt": "hi"})
    return result.content[0].text, asked  # type: ignore[union-attr]  # the demo answers text


@pytest.mark.integration
def test_the_sdks_http_client_answers_the_served_sampling_request_and_out_records_its_reply(tmp_path):
    from test_serve_faults import ASK, SCRIPT, record

    asking = record(tmp_path, "ask", [SCRIPT[0], {"method": "tools/call", "params": ASK}],
                    "--answer", "sampling=text:hello from the model")
    out = tmp_path / "served.jsonl"
    with serving(asking, "--out", str(out)) as served:
        text, asked = anyio.run(sdk_sampling_over_http, served.url)
        assert served.stop() == EXIT_OK, served.stderr
    assert (text, asked) == ("hello from the model", ["hi"])  # the recorded result, after the SDK was asked
    assert "1 request of the server's (sampling, elicitation, roots) sent to the client, 1 answered" in served.stderr
    messages = [e for e in read_capture(out).events if e.kind == Kind.MESSAGE]
    sent = next(e for e in messages if e.dir == Direction.S2C and e.method == "sampling/createMessage")
    reply = next(e for e in messages if e.dir == Direction.C2S and e.data.get("request_method") ==
                 "sampling/createMessage")
    answer = next(e for e in messages if e.dir == Direction.S2C and e.data.get("request_method") == "tools/call")
    assert messages.index(sent) < messages.index(reply) < messages.index(answer)
    assert reply.json()["result"]["content"]["text"] == "sdk model"


def test_websocket_without_wsproto_and_transport_without_listen_are_refused_in_a_sentence(tmp_path, capsys,
                                                                                          monkeypatch):
    capture = tmp_path / "never-read.jsonl"
    monkeypatch.setitem(sys.modules, "wsproto", None)  # as without the websocket extra: importing it fails
    assert main(["serve", str(capture), "--listen", "127.0.0.1:0", "--transport", "websocket"]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.strip() == (
        "mcp-inspector: --transport websocket needs the wsproto package (pip install "
        "'mcp-inspector-desktop[websocket]'); serve the capture with --transport streamable-http (the default) or sse")
    assert main(["serve", str(capture), "--transport", "sse"]) == EXIT_BAD_INPUT
    assert "--transport is for --listen" in capsys.readouterr().err


@pytest.mark.integration
def test_our_call_over_websocket_gets_from_the_served_capture_what_the_demo_answered(demo_capture):
    with serving(demo_capture, "--transport", "websocket") as served:
        assert served.url.startswith("ws://127.0.0.1:") and served.url.endswith("/mcp")
        call = cli("call", "add", "a=2", "b=3", "--url", served.url, "--transport", "websocket", timeout=RUN_TIMEOUT)
        missed = cli("call", "add", "a=2", "b=4", "--url", served.url, "--transport", "websocket",
                     timeout=RUN_TIMEOUT)
        assert served.stop() == EXIT_OK, served.stderr
    assert call.returncode == EXIT_OK, call.stderr
    assert json.loads(call.stdout) == recorded_result(demo_capture, "tools/call")
    assert missed.returncode == EXIT_RPC_ERROR and "(recorded 3, here 4)" in missed.stderr
    assert "1 had no recorded answer" in served.stderr

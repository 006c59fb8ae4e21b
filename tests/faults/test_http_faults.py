"""The HTTP rows of the fault matrix: each fault, on the CLI (``mcp-inspector record --url``, a real
subprocess) and in the window (MainWindow offscreen, a live session opened as the user would), against a
real server process.

Each case ends with one sentence that names the cause and the same cause on both surfaces, within a bound
(no hang), without a traceback, with no process left behind and with the capture intact.
"""

from __future__ import annotations

import json
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import until, wait_until
from http_fault_support import (  # noqa: F401 - fixtures
    ServerProcess,
    cli_sentence,
    free_port,
    intact,
    message_boxes,
    no_orphans,
    nothing_escaped,
    process_group_alive,
    qloop,
    run_cli,
    run_gui,
    servers,
    status_sentence,
    window,
)
from tls_support import https_server, make_certificate

from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_TIMEOUT
from inspector.core.wire.events import Kind
from inspector.ui.session.live import CLOSED, FAILED, READY, Target

pytestmark = [pytest.mark.integration]

#: What the 500 page of tests/http/servers/misbehaving_http_server.py says.
ERROR_PAGE_TEXT = "The database connection pool is exhausted (pool size 10)"
#: servers/http_fault_server.py: the notification sent before the server is killed mid-stream.
LAST_WORDS = "working on it"
#: The dribbling server's pace (one byte a second in the case's name; faster here, same rule) and the
#: timeout that must cut it.
DRIBBLE_INTERVAL = "0.1"
DRIBBLE_TIMEOUT = 2
TOOLS_LIST = {"method": "tools/list"}
TOOL_CALL = {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}

ADVICE = {
    "refused": "Start the server, or check the host and port in the URL.",
    "not mcp": "Check the URL: it must be the server's MCP endpoint (often ending in /mcp or /sse), not a web page "
               "or another service.",
    "406": "The server rejects the Accept header MCP requires (application/json, text/event-stream): fix the "
           "server's Accept check, or report it to its authors.",
    "expired": "Restart the session (Session > Restart in the window, or run record again): the server has "
               "forgotten the old session id.",
    "500": "The server failed while answering: read its logs for the error the page names, fix it, then retry.",
    "dribble": "The server (or a proxy in between) sends its answer too slowly: check the server and any proxy "
               "buffering the stream, or raise --timeout if it is only slow.",
    "killed": "The server died while answering: read its logs for why, restart it, then restart the session.",
    "tls": "Use http:// for this port (https:// only where the server really serves TLS).",
    "self-signed": "Trust the server's certificate with --ca-file FILE (its own certificate, or its CA's, as PEM), "
                   "or, for a test server only, skip verifying it with --insecure; mcp-inspector doctor --url URL "
                   "(Diagnose in the window) says why a certificate is refused.",
}


def write_send(directory: Path, *messages: dict[str, Any]) -> Path:
    path = directory / "send.jsonl"
    path.write_text("".join(json.dumps(m) + "\n" for m in messages), encoding="utf-8")
    return path


def record(tmp_path: Path, url: str, *options: str, send: tuple[dict[str, Any], ...] = ()) -> tuple[Any, float, Path]:
    """``record --url URL --out CAPTURE [--send ...] OPTIONS``; the run, its duration and the capture."""
    out = tmp_path / "capture.jsonl"
    args = ["record", "--url", url, "--out", str(out), *options]
    if send:
        args += ["--send", str(write_send(tmp_path, *send))]
    done, elapsed = run_cli(*args)
    return done, elapsed, out


async def open_until(window: Any, target: Target, states: tuple[str, ...], timeout: float = 30) -> Any:
    tab = window.open_live(target)
    await until(lambda: tab.live.state in states, timeout, f"the session to reach {' or '.join(states)}")
    return tab


def gui_failure(window: Any, qloop: Any, target: Target) -> tuple[str, float, Path]:
    """Open ``target`` in the window until it fails; the status line's sentence (and no message box on top of
    it), the time it took, and the capture (the tab closed, its capture complete)."""
    async def scenario() -> tuple[str, float, Path]:
        started = time.monotonic()
        tab = await open_until(window, target, (FAILED, CLOSED, READY))
        elapsed = time.monotonic() - started
        assert tab.live.state == FAILED, tab.status.text()
        sentence = status_sentence(tab)
        await tab.close()
        return sentence, elapsed, tab.capture_path

    result = run_gui(qloop, scenario)
    nothing_escaped(qloop)
    assert window.message_boxes.shown == []
    return result


# -- connection refused -----------------------------------------------------------------------------------


@pytest.mark.report("faults", "connection refused", surface="CLI", group="http", advice=ADVICE["refused"])
def test_a_refused_connection_is_named_in_one_sentence_on_the_cli(tmp_path, report, no_orphans):
    url = f"http://127.0.0.1:{free_port()}/mcp"
    done, elapsed, out = record(tmp_path, url, send=(TOOLS_LIST,))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert "connection refused: nothing is listening on 127.0.0.1:" in sentence, sentence
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "connection refused", surface="GUI", group="http", advice=ADVICE["refused"])
def test_a_refused_connection_is_named_in_the_status_line(window, qloop, report, no_orphans):
    url = f"http://127.0.0.1:{free_port()}/mcp"
    sentence, elapsed, capture = gui_failure(window, qloop, Target(name="refused", url=url))
    report.saw(sentence, seconds=elapsed)
    assert "connection refused: nothing is listening on 127.0.0.1:" in sentence, sentence
    assert sentence.endswith(" — start the server, or check the URL."), sentence
    intact(capture)
    no_orphans()


# -- not an MCP server ------------------------------------------------------------------------------------


@pytest.mark.report("faults", "a server that is not MCP (a static site)", surface="CLI", group="http",
                    advice=ADVICE["not mcp"])
def test_a_static_site_is_said_to_be_no_mcp_endpoint_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("static")
    done, elapsed, out = record(tmp_path, server.url("/"), send=(TOOLS_LIST,))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert sentence.startswith(f"neither transport works at {server.url('/')}"), sentence
    assert "not a Streamable HTTP endpoint" in sentence and "not an HTTP+SSE (2024-11-05) endpoint" in sentence
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "a server that is not MCP (a static site)", surface="GUI", group="http",
                    advice=ADVICE["not mcp"])
def test_a_static_site_is_said_to_be_no_mcp_endpoint_in_the_status_line(window, qloop, report, servers, no_orphans):
    server = servers("static")
    sentence, elapsed, capture = gui_failure(window, qloop, Target(name="static", url=server.url("/")))
    report.saw(sentence, seconds=elapsed)
    assert f"neither transport works at {server.url('/')}" in sentence, sentence
    assert "not a Streamable HTTP endpoint" in sentence and "not an HTTP+SSE (2024-11-05) endpoint" in sentence
    intact(capture)
    no_orphans()


# -- 406 --------------------------------------------------------------------------------------------------


@pytest.mark.report("faults", "406 Not Acceptable", surface="CLI", group="http", advice=ADVICE["406"])
def test_a_406_names_the_accept_header_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("checks-accept")
    done, elapsed, out = record(tmp_path, server.url("/strict"), send=(TOOLS_LIST,))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 1
    assert "HTTP 406 Not Acceptable: the server refused our Accept header (application/json, text/event-stream)" \
        in sentence, sentence
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "406 Not Acceptable", surface="GUI", group="http", advice=ADVICE["406"])
def test_a_406_names_the_accept_header_in_the_status_line(window, qloop, report, servers, no_orphans):
    server = servers("checks-accept")
    sentence, elapsed, capture = gui_failure(window, qloop, Target(name="406", url=server.url("/strict")))
    report.saw(sentence, seconds=elapsed)
    assert "HTTP 406 Not Acceptable: the server refused our Accept header (application/json, text/event-stream)" \
        in sentence, sentence
    intact(capture)
    no_orphans()


# -- 404 for a session: expired ---------------------------------------------------------------------------


@pytest.mark.report("faults", "404 for the session (expired session)", surface="CLI", group="http",
                    advice=ADVICE["expired"])
def test_an_expired_session_is_named_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("expiring-session")
    done, elapsed, out = record(tmp_path, server.url("/mcp"), send=(TOOLS_LIST,))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 1
    assert "the server no longer knows session" in sentence and "(404): it expired or the server restarted; " \
        "restart the session to initialize a new one" in sentence, sentence
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "404 for the session (expired session)", surface="GUI", group="http",
                    advice=ADVICE["expired"])
def test_an_expired_session_is_named_in_the_status_line(window, qloop, report, servers, no_orphans):
    server = servers("expiring-session")

    async def scenario() -> tuple[str, float, Any]:
        started = time.monotonic()
        tab = await open_until(window, Target(name="expiring", url=server.url("/mcp")), (READY, FAILED, CLOSED))
        # the explorer lists the tools on connect, and that request may meet the expired session first (on a
        # loaded machine, before the wait above saw READY): then the session is over already and the status line
        # says so; else the composer's request meets it
        assert tab.live.state in (READY, CLOSED), tab.status.text()
        if tab.live.state == READY:
            tab.composer.set_text(json.dumps({"jsonrpc": "2.0", **TOOLS_LIST}))
            tab.composer.send()
        try:
            await until(lambda: "no longer knows session" in tab.status.text(), 10, "the status line to explain")
        except pytest.fail.Exception:
            pytest.fail(f"the status line does not explain the expiry: {tab.status.text()!r}")
        elapsed = time.monotonic() - started
        sentence = status_sentence(tab)
        state = tab.live.state
        await tab.close()
        return sentence, elapsed, (state, tab.capture_path)

    sentence, elapsed, (state, capture) = run_gui(qloop, scenario)
    nothing_escaped(qloop)
    report.saw(sentence, seconds=elapsed)
    assert state == CLOSED, sentence  # the session is over: the window must not go on saying "ready"
    assert "(404): it expired or the server restarted; restart the session to initialize a new one" in sentence
    intact(capture)
    no_orphans()


# -- 500 with an HTML page --------------------------------------------------------------------------------


@pytest.mark.report("faults", "500 with an HTML body", surface="CLI", group="http", advice=ADVICE["500"])
def test_a_500_html_page_is_given_as_its_text_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("html-500")
    done, elapsed, out = record(tmp_path, server.url("/mcp"), send=(TOOLS_LIST,))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 1
    assert "HTTP 500 Internal Server Error" in sentence and ERROR_PAGE_TEXT in sentence, sentence
    assert "<" not in sentence and "Internal Server Error Internal Server Error" not in sentence, sentence
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "500 with an HTML body", surface="GUI", group="http", advice=ADVICE["500"])
def test_a_500_html_page_is_given_as_its_text_in_the_status_line(window, qloop, report, servers, no_orphans):
    server = servers("html-500")
    sentence, elapsed, capture = gui_failure(window, qloop, Target(name="500", url=server.url("/mcp")))
    report.saw(sentence, seconds=elapsed)
    assert "HTTP 500 Internal Server Error" in sentence and ERROR_PAGE_TEXT in sentence, sentence
    assert "<" not in sentence and "Internal Server Error Internal Server Error" not in sentence, sentence
    intact(capture)
    no_orphans()


# -- an SSE stream that dribbles --------------------------------------------------------------------------


def assert_dribble_bounded(sentence: str, elapsed: float, capture_path: Path,
                           hint: str = "; raise --timeout to wait longer") -> None:
    # auto handshake: the probe's quick -32601 leaves initialize the rest of the handshake's bound
    assert f"no response to initialize within the handshake's {DRIBBLE_TIMEOUT} s" in sentence, sentence
    assert sentence.endswith(hint), sentence
    # explained: the stream was not silent, it was too slow
    assert "its response stream is open" in sentence and "but no complete event" in sentence, sentence
    assert elapsed < DRIBBLE_TIMEOUT + 15, elapsed  # the timeout cut it, with startup and shutdown
    capture = intact(capture_path)
    stream = [e for e in capture.events if e.kind == Kind.HTTP and e.data.get("purpose") == "initialize"
              and e.data.get("status") == 200]
    assert stream and stream[0].data["response_headers"].get("content-type") == "text/event-stream"


@pytest.mark.report("faults", "an SSE stream that dribbles one byte at a time", surface="CLI", group="http",
                    advice=ADVICE["dribble"])
def test_a_dribbling_stream_is_cut_by_the_timeout_and_explained_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("dribble", "--interval", DRIBBLE_INTERVAL, fault=True)
    done, elapsed, out = record(tmp_path, server.url("/mcp"), "--timeout", str(DRIBBLE_TIMEOUT))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_TIMEOUT
    assert_dribble_bounded(sentence, elapsed, out)
    no_orphans()


@pytest.mark.report("faults", "an SSE stream that dribbles one byte at a time", surface="GUI", group="http",
                    advice=ADVICE["dribble"])
def test_a_dribbling_stream_is_cut_by_the_timeout_and_explained_in_the_status_line(window, qloop, report, servers,
                                                                                   no_orphans):
    server = servers("dribble", "--interval", DRIBBLE_INTERVAL, fault=True)
    target = Target(name="dribble", url=server.url("/mcp"), timeout=DRIBBLE_TIMEOUT)
    sentence, elapsed, capture = gui_failure(window, qloop, target)
    report.saw(sentence, seconds=elapsed)
    assert_dribble_bounded(sentence, elapsed, capture, "; to wait longer, raise Session > Request timeout…")
    no_orphans()


# -- the server killed in the middle of a response stream -------------------------------------------------


def kill_when_streaming(server: ServerProcess, marker: Path) -> None:
    """Once the server has opened the tools/call stream and sent its notification: SIGKILL, whole group."""
    wait_until(marker.exists, 30, "the server to open the tools/call stream")
    os.killpg(server.process.pid, signal.SIGKILL)
    server.process.wait(timeout=10)
    assert not process_group_alive(server.process.pid)


def assert_killed_mid_stream(sentence: str, capture_path: Path) -> None:
    assert sentence.startswith("the response stream ended before the answer"), sentence
    assert "closed the connection without a complete response" in sentence or \
        "the connection was lost while reading the response" in sentence, sentence
    capture = intact(capture_path)
    last_words = [e for e in capture.events if e.kind == Kind.MESSAGE and e.method == "notifications/message"]
    assert [e.json()["params"]["data"] for e in last_words] == [LAST_WORDS]  # what came before the kill is kept
    assert any(e.kind == Kind.LIFECYCLE and e.data.get("what") == "stream_lost" for e in capture.events)


@pytest.mark.report("faults", "server killed mid-stream", surface="CLI", group="http", advice=ADVICE["killed"])
def test_a_server_killed_mid_stream_is_noticed_at_once_on_the_cli(tmp_path, report, servers, no_orphans):
    from integration.integration_support import finish_inspector, start_inspector

    marker = tmp_path / "streaming"
    server = servers("streams-then-waits", "--marker", str(marker), fault=True)
    out = tmp_path / "capture.jsonl"
    started = time.monotonic()
    process = start_inspector(["record", "--url", server.url("/mcp"), "--out", str(out), "--timeout", "30",
                               "--send", str(write_send(tmp_path, TOOLS_LIST, TOOL_CALL))])
    try:
        kill_when_streaming(server, marker)
        killed = time.monotonic()
    finally:
        done = finish_inspector(process, 60)
    elapsed = time.monotonic() - started
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == 1
    assert time.monotonic() - killed < 10  # noticed, not waited out (the timeout is 30 s)
    assert_killed_mid_stream(sentence, out)
    no_orphans()


@pytest.mark.report("faults", "server killed mid-stream", surface="GUI", group="http", advice=ADVICE["killed"])
def test_a_server_killed_mid_stream_is_named_in_the_status_line(window, qloop, tmp_path, report, servers,
                                                                no_orphans):
    marker = tmp_path / "streaming"
    server = servers("streams-then-waits", "--marker", str(marker), fault=True)

    async def scenario() -> tuple[str, float, Path]:
        started = time.monotonic()
        tab = await open_until(window, Target(name="killed", url=server.url("/mcp")), (READY, FAILED, CLOSED))
        assert tab.live.state == READY, tab.status.text()
        tab.composer.set_text(json.dumps({"jsonrpc": "2.0", **TOOL_CALL}))
        assert tab.composer.send()
        await until(marker.exists, 30, "the server to open the tools/call stream")
        os.killpg(server.process.pid, signal.SIGKILL)
        await until(lambda: "response stream ended" in tab.status.text(), 10, "the status line to explain")
        elapsed = time.monotonic() - started
        sentence = status_sentence(tab)
        await tab.close()
        return sentence, elapsed, tab.capture_path

    sentence, elapsed, capture = run_gui(qloop, scenario)
    nothing_escaped(qloop)
    server.process.wait(timeout=10)
    report.saw(sentence, seconds=elapsed)
    assert_killed_mid_stream(sentence.split(": ", 1)[1], capture)
    no_orphans()


# -- https:// against a plain-HTTP port -------------------------------------------------------------------


def assert_not_https(sentence: str, server: ServerProcess) -> None:
    assert f"POST https://127.0.0.1:{server.port}/mcp: TLS failed: the server at 127.0.0.1:{server.port} does not " \
           "speak https here" in sentence and sentence.endswith("(try http://)"), sentence


@pytest.mark.report("faults", "https:// against a plain-HTTP port", surface="CLI", group="http", advice=ADVICE["tls"])
def test_https_against_a_plain_http_port_says_try_http_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("plain", fault=True)
    done, elapsed, out = record(tmp_path, server.url("/mcp").replace("http://", "https://"))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert_not_https(sentence, server)
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "https:// against a plain-HTTP port", surface="GUI", group="http", advice=ADVICE["tls"])
def test_https_against_a_plain_http_port_says_try_http_in_the_status_line(window, qloop, report, servers, no_orphans):
    server = servers("plain", fault=True)
    target = Target(name="tls", url=server.url("/mcp").replace("http://", "https://"))
    sentence, elapsed, capture = gui_failure(window, qloop, target)
    report.saw(sentence, seconds=elapsed)
    assert_not_https(sentence, server)
    intact(capture)
    no_orphans()


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory):
    """An https MCP server whose certificate, made for the test, is self-signed (tests/tls_support.py)."""
    folder = tmp_path_factory.mktemp("self-signed")
    with https_server(folder, make_certificate(folder / "cert")) as port:
        yield f"https://127.0.0.1:{port}/mcp"


def assert_untrusted(sentence: str, url: str) -> None:
    assert f"POST {url}: TLS failed: the server's certificate was refused (self-signed certificate); trust it " \
           "with --ca-file FILE, or, for a test server only, --insecure" in sentence, sentence


@pytest.mark.report("faults", "https:// with a self-signed certificate", surface="CLI", group="http",
                    advice=ADVICE["self-signed"])
def test_a_self_signed_certificate_says_how_to_trust_it_on_the_cli(tmp_path, report, self_signed, no_orphans):
    done, elapsed, out = record(tmp_path, self_signed)
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert_untrusted(sentence, self_signed)
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "https:// with a self-signed certificate", surface="GUI", group="http",
                    advice=ADVICE["self-signed"])
def test_a_self_signed_certificate_says_how_to_trust_it_in_the_status_line(window, qloop, report, self_signed,
                                                                          no_orphans):
    sentence, elapsed, capture = gui_failure(window, qloop, Target(name="tls", url=self_signed))
    report.saw(sentence, seconds=elapsed)
    assert_untrusted(sentence, self_signed)
    intact(capture)
    no_orphans()


@pytest.mark.report("faults", "https:// against a plain-HTTP port that hangs up on the TLS hello", surface="CLI",
                    group="http", advice=ADVICE["tls"])
def test_https_against_a_port_that_hangs_up_says_try_http_on_the_cli(tmp_path, report, servers, no_orphans):
    server = servers("hangs-up", fault=True)
    done, elapsed, out = record(tmp_path, server.url("/mcp").replace("http://", "https://"))
    sentence = cli_sentence(done)
    report.saw(sentence, seconds=elapsed)
    assert done.returncode == EXIT_CANNOT_CONNECT
    assert_not_https(sentence, server)
    intact(out)
    no_orphans()


@pytest.mark.report("faults", "https:// against a plain-HTTP port that hangs up on the TLS hello", surface="GUI",
                    group="http", advice=ADVICE["tls"])
def test_https_against_a_port_that_hangs_up_says_try_http_in_the_status_line(window, qloop, report, servers,
                                                                             no_orphans):
    server = servers("hangs-up", fault=True)
    target = Target(name="tls", url=server.url("/mcp").replace("http://", "https://"))
    sentence, elapsed, capture = gui_failure(window, qloop, target)
    report.saw(sentence, seconds=elapsed)
    assert_not_https(sentence, server)
    intact(capture)
    no_orphans()

"""``record --url`` against HTTP servers that get MCP wrong, one way each (servers/misbehaving_http_server.py).

For each: the exit status, the one sentence on stderr that says what went wrong, what the capture keeps of
it, and that the capture still loads. Every run is bounded: by ``--timeout`` where a server stops
answering, and by the CLI's own bound in the test helpers otherwise.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Iterator

import pytest
from http_support import (
    ServerProcess,
    free_port,
    header,
    http_events,
    http_exchange,
    notes,
    one_sentence,
    record_url,
    show,
    sse_events,
    start_misbehaving,
    stop,
)
from integration.integration_support import (
    Recorded,
    exchange,
    lifecycle,
    load_capture,
    messages,
    run_inspector,
)

from inspector.core.connect.target import Target, make_transport
from inspector.core.exits import EXIT_CANNOT_CONNECT, EXIT_PROTOCOL, EXIT_SERVER_FAILED, EXIT_TIMEOUT
from inspector.core.session.session import Session
from inspector.core.transports.base import (
    ConnectionRefused,
    HttpStatusError,
    TransportClosed,
    TransportError,
)
from inspector.core.transports.http_common import ACCEPT_BOTH
from inspector.core.transports.http_sse import ENDPOINT_TIMEOUT
from inspector.core.wire.events import Kind

pytestmark = [pytest.mark.integration]

SCRIPT = [{"method": "tools/list"},
          {"method": "tools/call", "params": {"name": "echo", "arguments": {"message": "hi"}}}]
# What the servers say (servers/misbehaving_http_server.py)
ERROR_PAGE_TEXT = "The database connection pool is exhausted (pool size 10)"
LAST_WORDS = "about to crash while answering"
PARTIAL_EVENT = b'data: {"jsonrpc": "2.0", "id": '


def timed(run: Callable[[], Recorded]) -> tuple[Recorded, float]:
    started = time.monotonic()
    result = run()
    return result, time.monotonic() - started


# -- nothing listening ------------------------------------------------------------------------------------


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (the kernel gave it to us, we let it go)."""
    return free_port()


@pytest.mark.parametrize("transport", ["auto", "streamable-http", "sse"])
def test_a_closed_port_fails_at_once_with_one_sentence_naming_the_url(record: Callable[..., Recorded],
                                                                      closed_port: int, transport: str) -> None:
    url = f"http://127.0.0.1:{closed_port}/mcp"
    run = record(url, "--transport", transport, send=SCRIPT)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    sentence = one_sentence(run.stderr)
    assert f"http://127.0.0.1:{closed_port}/mcp: " in sentence and "connect" in sentence, sentence
    capture = load_capture(run.out)
    failed = http_events(capture)
    assert failed and all("status" not in e.data and e.data["error"] for e in failed)
    assert len(failed) <= 2  # auto: the server/discover probe, then initialize; no retry storm


@pytest.mark.parametrize("transport", ["auto", "streamable-http", "sse"])
def test_a_closed_port_is_reported_as_connection_refused(record: Callable[..., Recorded], closed_port: int,
                                                         transport: str) -> None:
    run = record(f"http://127.0.0.1:{closed_port}/mcp", "--transport", transport, send=SCRIPT)
    sentence = one_sentence(run.stderr)
    assert "connection refused" in sentence and "nothing is listening" in sentence, sentence


# -- a plain static file server ---------------------------------------------------------------------------


def test_a_static_file_server_is_not_an_http_sse_endpoint(record: Callable[..., Recorded],
                                                          misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("static")
    run = record(server.url("/sse"), "--transport", "sse", send=SCRIPT)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    sentence = one_sentence(run.stderr)
    assert f"GET {server.url('/sse')}: HTTP 404" in sentence, sentence
    assert "is not an HTTP+SSE (2024-11-05) endpoint" in sentence, sentence
    [get] = http_events(load_capture(run.out))
    assert get.data["status"] == 404 and header(get.data["request_headers"], "accept") == "text/event-stream"


def test_a_static_file_server_in_auto_mode_fails_with_one_sentence_giving_its_501(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("static")
    run = record(server.url("/mcp"), send=SCRIPT)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()  # neither transport could connect
    sentence = one_sentence(run.stderr)
    assert f"POST {server.url('/mcp')}: HTTP 501" in sentence, sentence
    capture = load_capture(run.out)
    # server/discover, initialize (both refused with 501), then the HTTP+SSE attempt: GET, 404
    assert [e.data["status"] for e in http_events(capture)] == [501, 501, 404]
    assert "neither transport works" in sentence, sentence
    assert messages(capture, "s2c") == []


@pytest.mark.parametrize("transport", ["auto", "streamable-http"])
def test_a_static_file_server_is_said_not_to_be_a_streamable_http_endpoint(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess], transport: str) -> None:
    server = misbehaving("static")
    run = record(server.url("/mcp"), "--transport", transport, send=SCRIPT)
    # auto tries both transports: neither could connect (3); Streamable HTTP alone got a refusal (1)
    assert run.returncode == (EXIT_CANNOT_CONNECT if transport == "auto" else EXIT_SERVER_FAILED), run.explain()
    assert "not a Streamable HTTP endpoint" in one_sentence(run.stderr)


# -- the Accept header ------------------------------------------------------------------------------------


def test_a_server_that_checks_the_accept_header_gets_both_types_on_every_post(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("checks-accept")
    run = record(server.url("/mcp"), send=SCRIPT)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    posts = http_events(capture, method="POST")
    assert len(posts) == 5  # server/discover, initialize, initialized, tools/list, tools/call
    for event in posts:
        accept = header(event.data["request_headers"], "accept")
        assert "application/json" in accept and "text/event-stream" in accept, accept
        assert event.data["status"] in (200, 202)
    _, answer = exchange(capture, "tools/call")
    assert answer.json()["result"]["content"][0]["text"] == "hi"


def test_a_406_says_the_server_refused_our_accept_header_and_names_it(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("checks-accept")
    run = record(server.url("/strict"), send=SCRIPT)
    assert run.returncode == 1, run.explain()
    sentence = one_sentence(run.stderr)
    assert "HTTP 406 Not Acceptable" in sentence and f"refused our Accept header ({ACCEPT_BOTH})" in sentence, sentence
    capture = load_capture(run.out)
    assert {e.data["status"] for e in http_events(capture)} == {406}
    errors = [m.json()["error"]["message"] for m in messages(capture, "s2c")]
    assert errors and all(text.startswith("Not Acceptable") for text in errors)  # the server's own words, kept


# -- an expired session -----------------------------------------------------------------------------------


def test_an_expired_session_404_says_the_session_is_gone_and_to_restart_it(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("expiring-session")
    run = record(server.url("/mcp"), "--handshake", "legacy", send=SCRIPT)
    assert run.returncode == 1, run.explain()
    capture = load_capture(run.out)
    session = header(http_events(capture)[0].data["response_headers"], "mcp-session-id")
    sentence = one_sentence(run.stderr)
    assert f"the server no longer knows session {session} (404)" in sentence, sentence
    assert "expired or the server restarted" in sentence and "restart the session to initialize a new one" in sentence
    assert "tools/list" in sentence, sentence
    [gone] = lifecycle(capture, "disconnected")
    assert session in gone.data["reason"]
    assert http_events(capture, method="DELETE") == []  # nothing to end: the server forgot the session
    post = next(e for e in http_events(capture, method="POST") if e.data["purpose"] == "tools/list")
    assert post.data["status"] == 404 and header(post.data["request_headers"], "mcp-session-id") == session


def test_requests_already_on_their_way_when_the_session_expires_all_fail_with_the_same_sentence(
        misbehaving: Callable[[str], ServerProcess]) -> None:
    # the window lists tools on connect while the user sends: two requests carry the forgotten id; the second
    # 404 said only "HTTP 404 Not Found: Session not found" and, last, became the tab's status line
    server = misbehaving("expiring-session")

    async def scenario() -> list[BaseException]:
        session = Session(make_transport(Target(url=server.url("/mcp"))))
        try:
            await session.start()
            await session.handshake("legacy", timeout=10)
            results = await asyncio.gather(session.request("tools/list", timeout=10),
                                           session.request("prompts/list", timeout=10),
                                           session.request("resources/list", timeout=10), return_exceptions=True)
            return [r for r in results if isinstance(r, BaseException)]
        finally:
            await session.close()

    failures = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert len(failures) == 3 and all(isinstance(f, TransportClosed) for f in failures), failures
    assert all("no longer knows session" in str(f) and "(404)" in str(f) for f in failures), failures


# -- HTTP+SSE: where to send messages ---------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["sse", "auto"])
def test_an_endpoint_event_on_another_origin_is_refused_and_nothing_is_sent_there(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess], transport: str) -> None:
    server = misbehaving("cross-origin-endpoint")
    run = record(server.url("/sse"), "--transport", transport, send=SCRIPT)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    sentence = one_sentence(run.stderr)
    assert f"the endpoint event points to another origin (http://127.0.0.2:{server.port}/x" in sentence, sentence
    assert "refusing to send messages there" in sentence, sentence
    capture = load_capture(run.out)
    [endpoint] = [e for e in sse_events(capture) if e.data.get("event") == "endpoint"]
    assert [f.code for f in endpoint.findings] == ["cross-origin-endpoint"]
    assert "endpoint" not in endpoint.data  # not adopted
    assert all(e.data["url"].startswith(server.url("/")) for e in http_events(capture))
    assert not any(e.data.get("method") == "POST" and e.seq > endpoint.seq for e in http_events(capture))
    assert lifecycle(capture, "closed")


@pytest.fixture(scope="module")
def no_endpoint_run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ServerProcess, Recorded, float]]:
    """One run against a stream that never names an endpoint (it costs ENDPOINT_TIMEOUT, so it is shared)."""
    directory = tmp_path_factory.mktemp("no-endpoint")
    server = start_misbehaving("no-endpoint", directory / "server")
    try:
        run, elapsed = timed(lambda: record_url(directory, "capture", server.url("/sse"), "--transport", "sse",
                                                send=SCRIPT))
        yield server, run, elapsed
    finally:
        stop(server)


def test_a_stream_without_an_endpoint_event_fails_after_the_endpoint_timeout(
        no_endpoint_run: tuple[ServerProcess, Recorded, float]) -> None:
    server, run, elapsed = no_endpoint_run
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    sentence = one_sentence(run.stderr)
    assert f"GET {server.url('/sse')}: the stream opened but sent no endpoint event within {ENDPOINT_TIMEOUT:g} s" \
        in sentence, sentence
    assert ENDPOINT_TIMEOUT <= elapsed < ENDPOINT_TIMEOUT + 15, elapsed
    capture = load_capture(run.out)
    assert [e.data.get("event") for e in sse_events(capture)] == ["hello"]
    [end] = http_events(capture, ended=True)
    assert end.data["keepalive_comments"] == 1
    assert messages(capture) == []


def test_the_data_of_an_sse_event_that_is_not_a_message_is_kept_in_the_capture(
        no_endpoint_run: tuple[ServerProcess, Recorded, float]) -> None:
    _, run, _ = no_endpoint_run
    [hello] = sse_events(load_capture(run.out))
    assert b"no endpoint here" in hello.raw or "no endpoint here" in str(hello.data)
    assert "no endpoint here" in show(run.out).stdout


# -- wrong statuses ---------------------------------------------------------------------------------------


def test_a_200_with_a_json_body_for_a_notification_is_an_error_finding_and_the_session_goes_on(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("json-for-notification")
    run = record(server.url("/mcp"), send=SCRIPT)
    assert run.returncode == EXIT_PROTOCOL, run.explain()
    assert "1 protocol finding" not in run.stdout and "protocol finding" in run.stdout, run.stdout
    capture = load_capture(run.out)
    [initialized] = messages(capture, "c2s", "notifications/initialized")
    answered = http_exchange(capture, initialized.data["exchange"])
    assert answered.data["status"] == 200
    assert [(f.code, f.severity) for f in answered.findings] == [("200-with-body", "error")]
    assert "where 202 Accepted was due" in answered.findings[0].text
    body = [m for m in capture.events if m.kind == Kind.MESSAGE and m.dir == "s2c"
            and m.data.get("exchange") == initialized.data["exchange"]]
    assert [m.json() for m in body] == [{"status": "accepted"}]  # the body is kept, and flagged in turn
    assert body[0].findings
    assert "200 with a body for a notification, where 202 Accepted was due" in show(run.out).stdout
    _, answer = exchange(capture, "tools/call")
    assert answer.json()["result"]["content"][0]["text"] == "hi"


def test_a_500_with_an_html_page_shows_the_pages_text_as_the_snippet(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("html-500")
    run = record(server.url("/mcp"), send=SCRIPT)
    assert run.returncode == EXIT_SERVER_FAILED, run.explain()
    sentence = one_sentence(run.stderr)
    assert f"POST {server.url('/mcp')}: HTTP 500 Internal Server Error" in sentence and ERROR_PAGE_TEXT in sentence
    capture = load_capture(run.out)
    failed = http_events(capture)
    assert failed and all(e.data["status"] == 500 for e in failed)
    for event in failed:
        snippet = event.data["snippet"]
        assert ERROR_PAGE_TEXT in snippet and "Internal Server Error" in snippet, snippet
        assert "<" not in snippet and "color: red" not in snippet, snippet  # tags and styles stripped
        assert event.data["body_bytes"] > len(snippet)
    assert re.search(r"http 500 .*· body: 500 Internal Server Error", show(run.out).stdout)  # one line, clipped
    shown = [json.loads(line) for line in show(run.out, "--json").stdout.splitlines()]
    assert all(ERROR_PAGE_TEXT in r["data"]["snippet"] for r in shown if r["label"] == "http 500")


# -- a redirect -------------------------------------------------------------------------------------------


def test_a_307_from_mcp_slash_to_mcp_is_followed_with_a_warning_naming_the_new_url(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("redirect")
    run = record(server.url("/mcp/"), "--handshake", "legacy", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    first, *rest = http_events(capture)
    assert first.data["status"] == 307 and first.data["url"] == server.url("/mcp/")
    assert header(first.data["response_headers"], "location") == "/mcp"
    [finding] = first.findings
    assert (finding.code, finding.severity) == ("redirect", "warning")
    assert f"the server wants the URL {server.url('/mcp')}; use it directly" in finding.text
    assert {e.data["method"] for e in rest} == {"POST", "GET", "DELETE"}
    assert all(e.data["url"] == server.url("/mcp") for e in rest)  # the new URL is used from then on
    _, answer = exchange(capture, "initialize")
    assert answer.data["exchange"] == rest[0].data["exchange"]  # the redirected POST brought the answer


# -- a server that dies in the middle of a response stream ------------------------------------------------


def test_a_server_killed_mid_stream_ends_the_run_with_one_sentence_and_the_capture_keeps_what_came(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("dies-mid-stream")
    run, elapsed = timed(lambda: record(server.url("/mcp"), "--handshake", "legacy", "--timeout", "20", send=SCRIPT))
    assert run.returncode == 1, run.explain()
    assert elapsed < 15, elapsed  # far from the 20 s timeout: the loss is noticed, not waited out
    assert server.process.wait(timeout=10) == 3  # it really died
    sentence = one_sentence(run.stderr)
    assert sentence.startswith("mcp-inspector: the response stream ended before the answer"), sentence
    assert "closed the connection without a complete response" in sentence, sentence
    capture = load_capture(run.out)
    _, listed = exchange(capture, "tools/list")  # what came before is all there
    assert listed.json()["result"]["tools"][0]["name"] == "echo"
    [call] = messages(capture, "c2s", "tools/call")
    stream = next(e for e in http_events(capture) if e.data.get("purpose") == "tools/call")
    assert header(stream.data["response_headers"], "content-type") == "text/event-stream"
    [last_words] = messages(capture, "s2c", "notifications/message")
    assert last_words.json()["params"]["data"] == LAST_WORDS
    assert last_words.data["exchange"] == stream.data["exchange"]
    [end] = [e for e in http_events(capture, ended=True) if e.data["exchange"] == stream.data["exchange"]]
    assert "without a complete response" in end.data["error"]
    [lost] = lifecycle(capture, "stream_lost")
    assert lost.data["request_id"] == call.rpc.id
    assert stream.seq < last_words.seq < end.seq < lost.seq
    assert lifecycle(capture, "closed")


def test_the_end_of_a_stream_cut_in_the_middle_of_an_event_counts_the_bytes_of_that_event(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("dies-mid-stream")
    run = record(server.url("/mcp"), "--handshake", "legacy", send=SCRIPT)
    capture = load_capture(run.out)
    stream = next(e for e in http_events(capture) if e.data.get("purpose") == "tools/call")
    [end] = [e for e in http_events(capture, ended=True) if e.data["exchange"] == stream.data["exchange"]]
    assert end.data.get("incomplete_bytes") == len(PARTIAL_EVENT)


# -- frozen servers ---------------------------------------------------------------------------------------


@pytest.fixture
def frozen_run(record: Callable[..., Recorded], frozen_server: ServerProcess) -> tuple[Recorded, float]:
    """A run against a server stopped with SIGSTOP before it saw anything: its kernel accepts the TCP
    connection, nothing ever answers."""
    return timed(lambda: record(frozen_server.url("/mcp"), "--handshake", "legacy", "--timeout", "2", send=SCRIPT))


def test_a_frozen_server_is_given_up_after_the_timeout_with_one_sentence(frozen_run: tuple[Recorded, float]) -> None:
    run, elapsed = frozen_run
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert 2 <= elapsed < 2 + 10, elapsed
    sentence = one_sentence(run.stderr)
    assert "did not answer in time" in sentence or re.search(r"no response to \S+ within", sentence), sentence
    capture = load_capture(run.out)
    [post] = http_events(capture)
    assert post.data["purpose"] == "initialize" and "status" not in post.data and post.data["error"]
    # the session's 2 s bound started before the POST: on a loaded machine up to a second before it
    assert post.data["timing"]["total"] >= 1.0
    [failed] = lifecycle(capture, "request_failed")
    assert failed.data["request_id"] == 1


def test_a_frozen_server_is_reported_as_no_response_to_the_request_within_the_timeout(
        frozen_run: tuple[Recorded, float]) -> None:
    run, _ = frozen_run
    assert "no response to initialize within 2 s" in one_sentence(run.stderr)


@pytest.fixture
def frozen_mid_session_run(record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]
                           ) -> tuple[Recorded, float]:
    """A run against a server that answers the handshake and tools/list, then stops itself (SIGSTOP) when
    the tool is called."""
    server = misbehaving("freezes-on-tool-call")
    return timed(lambda: record(server.url("/mcp"), "--handshake", "legacy", "--timeout", "2", send=SCRIPT))


def test_a_server_that_freezes_mid_session_fails_the_waiting_request_and_keeps_the_earlier_answers(
        frozen_mid_session_run: tuple[Recorded, float]) -> None:
    run, elapsed = frozen_mid_session_run
    assert run.returncode == EXIT_TIMEOUT, run.explain()
    assert elapsed < 2 * 2 + 10, elapsed
    one_sentence(run.stderr)
    capture = load_capture(run.out)
    exchange(capture, "tools/list")
    [call] = messages(capture, "c2s", "tools/call")
    [failed] = lifecycle(capture, "request_failed")
    assert failed.data["request_id"] == call.rpc.id
    assert "did not answer in time" in failed.data["reason"]


def test_closing_a_session_with_a_frozen_server_does_not_wait_another_full_timeout(
        frozen_mid_session_run: tuple[Recorded, float]) -> None:
    run, _ = frozen_mid_session_run
    capture = load_capture(run.out)
    [failed] = lifecycle(capture, "request_failed")
    [closed] = lifecycle(capture, "closed")
    assert closed.t - failed.t < 1.0, f"closing took {closed.t - failed.t:.1f} s after the request failed"


def test_show_prints_the_capture_of_a_failed_run_with_why_each_request_got_no_answer(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("html-500")
    run = record(server.url("/mcp"), "--handshake", "legacy", send=SCRIPT)
    done = show(run.out)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert "request 1 will get no answer" in done.stdout
    assert notes(load_capture(run.out)) == ["transport auto: trying Streamable HTTP first (POST); HTTP+SSE if the "
                                             "server answers 400, 404 or 405 to initialize"]



# -- a server that ends a response stream early (2025-11-25 allows it) --------------------------------------


def test_a_response_stream_ended_after_the_priming_event_is_resumed_with_get_and_last_event_id(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("resumes-after-close")
    run = record(server.url("/mcp"), "--handshake", "legacy", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    capture = load_capture(run.out)
    call, answer = exchange(capture, "tools/call")
    assert answer.json()["result"]["content"][0]["text"] == "hi"
    stream = next(e for e in http_events(capture) if e.data.get("purpose") == "tools/call")
    [priming] = [e for e in sse_events(capture) if e.data["exchange"] == stream.data["exchange"]]
    event_id = priming.data["id"]
    assert priming.data["retry"] == 50 and "priming event" in priming.data["note"]
    [ended] = [e for e in http_events(capture, ended=True) if e.data["exchange"] == stream.data["exchange"]]
    assert "error" not in ended.data  # the server closed it cleanly, before the answer
    [resume] = [e for e in http_events(capture, method="GET") if header(e.data["request_headers"], "last-event-id")]
    assert header(resume.data["request_headers"], "last-event-id") == event_id
    assert resume.data["purpose"] == f"resume after event {event_id}" and resume.data["status"] == 200
    assert answer.data["exchange"] == resume.data["exchange"]
    assert call.seq < priming.seq < ended.seq < resume.seq < answer.seq
    assert lifecycle(capture, "stream_lost") == []


# -- an error page cut short ------------------------------------------------------------------------------


@pytest.mark.parametrize("transport", ["sse", "auto"])
def test_an_error_page_cut_short_on_the_event_stream_ends_with_one_sentence(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess], transport: str) -> None:
    server = misbehaving("error-page-cut-short")
    run = record(server.url("/sse"), "--transport", transport, send=SCRIPT)
    assert run.returncode == EXIT_CANNOT_CONNECT, run.explain()
    assert "Traceback" not in run.stderr
    assert "503" in one_sentence(run.stderr)
    assert [e.data.get("status") for e in http_events(load_capture(run.out), method="GET")] == [503]


def test_a_retry_field_with_a_non_ascii_digit_is_ignored_and_the_answer_still_arrives(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("odd-retry")
    run = record(server.url("/mcp"), "--handshake", "legacy", "--timeout", "3", send=SCRIPT)
    assert run.returncode == 0, run.explain()
    _, answer = exchange(load_capture(run.out), "tools/call")
    assert answer.json()["result"]["content"][0]["text"] == "hi"


# -- authorization and Origin -----------------------------------------------------------------------------

GOOD_TOKEN = "good-token-4d1f"


def test_a_401_names_the_servers_challenge_and_its_metadata_and_suggests_bearer(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("guarded")
    run = record(server.url("/mcp"), "--handshake", "legacy", send=SCRIPT)
    assert run.returncode == 1, run.explain()
    sentence = one_sentence(run.stderr)
    metadata = server.url("/.well-known/oauth-protected-resource")
    assert "HTTP 401 Unauthorized: the server asks for Bearer" in sentence, sentence
    assert f"its authorization metadata is at {metadata}" in sentence and "--bearer" in sentence, sentence


def handshake_failure(url: str) -> TransportError | None:
    """What a legacy handshake with ``url`` raises (None if it worked)."""

    async def attempt() -> TransportError | None:
        session = Session(make_transport(Target(url=url)))
        try:
            await session.start()
            await session.handshake("legacy", timeout=10)
        except TransportError as exc:
            return exc
        finally:
            await session.close()
        return None

    return asyncio.run(asyncio.wait_for(attempt(), 30))


def test_a_401_and_a_closed_port_fail_with_errors_typed_for_what_went_wrong(
        misbehaving: Callable[[str], ServerProcess]) -> None:
    guarded = handshake_failure(misbehaving("guarded").url("/mcp"))
    assert isinstance(guarded, HttpStatusError) and guarded.status == 401, repr(guarded)
    refused = handshake_failure(f"http://127.0.0.1:{free_port()}/mcp")
    assert isinstance(refused, ConnectionRefused), repr(refused)
    assert "connection refused: nothing is listening on 127.0.0.1:" in str(refused)


def test_the_right_bearer_token_opens_the_guarded_server(record: Callable[..., Recorded],
                                                         misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("guarded")
    run = record(server.url("/mcp"), "--handshake", "legacy", "--bearer", GOOD_TOKEN, send=SCRIPT)
    assert run.returncode == 0, run.explain()
    assert GOOD_TOKEN.encode() not in run.out.read_bytes()


def test_a_403_for_the_origin_sent_says_which_origin_was_sent(record: Callable[..., Recorded],
                                                              misbehaving: Callable[[str], ServerProcess]) -> None:
    server = misbehaving("guarded")
    run = record(server.url("/mcp"), "--handshake", "legacy", "--bearer", GOOD_TOKEN,
                 "--origin", "http://attacker.invalid", send=SCRIPT)
    assert run.returncode == 1, run.explain()
    sentence = one_sentence(run.stderr)
    assert "HTTP 403 Forbidden: the server refused the request (we sent Origin: http://attacker.invalid)" in sentence
    [post] = http_events(load_capture(run.out))
    assert header(post.data["request_headers"], "origin") == "http://attacker.invalid"


# -- ids that are arrays, objects or null -----------------------------------------------------------------


def test_responses_with_an_array_or_object_id_on_a_stream_are_recorded_and_flagged_and_the_answer_still_comes(
        record: Callable[..., Recorded], misbehaving: Callable[[str], ServerProcess]) -> None:
    # the array id raised "TypeError: unhashable type: 'list'" in the task reading the stream ("Task exception
    # was never retrieved"): that message and the real answer after it were lost, and tools/list timed out
    server = misbehaving("odd-ids-on-stream")
    run = record(server.url("/mcp"), "--handshake", "legacy", "--timeout", "10", send=SCRIPT)
    assert run.returncode == EXIT_PROTOCOL, run.explain()  # the session went on to its end
    assert "Traceback" not in run.stderr and "never retrieved" not in run.stderr, run.stderr
    capture = load_capture(run.out)
    request, answer = exchange(capture, "tools/list")
    strays = [m for m in messages(capture, "s2c") if m.data.get("exchange") == request.data["exchange"]
              and m is not answer]
    assert [m.json()["id"] for m in strays] == [[request.rpc.id], {"id": request.rpc.id}]
    for stray in strays:
        codes = [f.code for f in stray.findings]
        assert "id-type" in codes and "unknown-id" in codes, codes
        assert "reply_to" not in stray.data
    assert answer.json()["id"] == request.rpc.id and [t["name"] for t in answer.json()["result"]["tools"]] == ["echo"]
    _, called = exchange(capture, "tools/call")
    assert called.json()["result"]["content"][0]["text"] == "hi"  # and the session went on after it
    assert "(an array)" in strays[0].findings[-1].text, strays[0].findings[-1].text


@pytest.mark.parametrize(("path", "shown"), [("/array", "[3] (an array)"), ("/object", '{"id": 3} (an object)'),
                                              ("/null", "null (a null)")])
def test_a_json_answer_whose_id_is_not_the_requests_fails_the_call_at_once_with_one_sentence(
        misbehaving: Callable[[str], ServerProcess], path: str, shown: str) -> None:
    # `call` printed a traceback for an array or object id, and waited out the whole --timeout for a null one
    server = misbehaving("odd-id-answer")
    started = time.monotonic()
    done = run_inspector(["call", "echo", "message=hi", "--url", server.url(path), "--handshake", "legacy",
                          "--timeout", "20"])
    assert time.monotonic() - started < 15, "it waited for an answer the POST had already refused to give"
    assert done.returncode == EXIT_SERVER_FAILED, (done.returncode, done.stderr)
    sentence = one_sentence(done.stderr)
    assert f"the server answered tools/call with a response whose id is {shown}, not the request's id 3" \
        in sentence, sentence
    assert done.stdout == ""


@pytest.mark.parametrize("sent_id", [[7], {"n": 7}])
def test_a_request_we_send_with_an_array_or_object_id_is_sent_and_paired_with_its_echo(
        misbehaving: Callable[[str], ServerProcess], sent_id: object) -> None:
    # the composer's raw mode sends what the person wrote; the transport keyed its request methods by the raw
    # id: "TypeError: unhashable type" before the POST went out
    server = misbehaving("good")

    async def scenario() -> tuple[object, object]:
        session = Session(make_transport(Target(url=server.url("/mcp"))))
        try:
            await session.start()
            await session.handshake("legacy", timeout=10)
            answer = await session.request_object({"jsonrpc": "2.0", "id": sent_id, "method": "ping"}, timeout=10)
            request = next(e for e in session.events if e.rpc is not None and e.rpc.method == "ping")
            return answer.json()["id"], (answer.data.get("reply_to"), request.seq)
        finally:
            await session.close()

    echoed, (reply_to, request_seq) = asyncio.run(asyncio.wait_for(scenario(), 30))
    assert echoed == sent_id and reply_to == request_seq

"""The probes of ``mcp-inspector check`` for the HTTP transport's own rules (Streamable HTTP): a foreign
Origin refused, the Accept header required, the GET stream, DELETE of a session, and 405 for what a 2026-07-28
server does not take; sent with the session's ``http_probe`` so every exchange is in the capture."""

from __future__ import annotations

import asyncio
import json
from urllib.parse import urlsplit

from inspector.core.check.checks import MODERN
from inspector.core.check.context import (
    FOREIGN_HOST,
    FOREIGN_ORIGIN,
    Context,
    code_text,
    error_of,
    got,
)
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.urls import is_loopback_host
from inspector.core.waiting import wait_for
from inspector.core.wire.events import Event, Kind

#: Requests sent at once by the concurrency probe (the suite's number).
CONCURRENT = 3


def _ping_body(ctx: Context) -> bytes:
    obj = ctx.session.prepare_request({"jsonrpc": "2.0", "method": "server/discover" if ctx.modern else "ping"})
    return json.dumps(obj).encode()


def _modern_headers(ctx: Context) -> dict[str, str]:
    if not ctx.modern:
        return {}
    return {"MCP-Protocol-Version": MODERN, "Mcp-Method": "server/discover"}


async def probe_http(ctx: Context) -> None:
    """The Streamable HTTP checks; the DELETE last, since it ends the session."""
    ids = ("http-origin", "http-accept", "http-get-stream", "http-delete", "http-session-ended-404", "http-modern-405",
           "http-host", "http-session-id-ascii", "http-loopback-accepted")
    if not ctx.http:
        for check_id in ids + ("http-notification-202",):
            if not ctx.judged(check_id):
                ctx.not_applicable(check_id, "stdio has no HTTP")
        return
    json_headers = {"Content-Type": "application/json", **_modern_headers(ctx)}
    # Accept without text/event-stream (first: it also tells whether the transport can probe at all)
    try:
        event, _ = await _http(ctx, "POST", {**json_headers, "Accept": "application/json"}, _ping_body(ctx),
                               "check: Accept without text/event-stream")
    except _NoProbes:
        for check_id in ids:
            ctx.not_applicable(check_id, "the server speaks HTTP+SSE (2024-11-05), not Streamable HTTP")
        return
    status = event.data.get("status")
    if status == 406:
        ctx.passed("http-accept", "HTTP 406 Not Acceptable", [event.seq])
    else:
        ctx.failed("http-accept", f"a POST with Accept: application/json only got {got(event)}, not 406",
                   [event.seq])
    # a foreign Origin
    if not is_loopback_host(urlsplit(ctx.url).hostname or ""):
        ctx.not_applicable("http-origin", "the server is not on a loopback address: which origins it trusts is its "
                                          "own choice")
    else:
        event, _ = await _http(ctx, "POST", {**json_headers, "Accept": "application/json, text/event-stream",
                                             "Origin": FOREIGN_ORIGIN}, _ping_body(ctx), "check: foreign Origin")
        status = event.data.get("status")
        strict = ctx.revision in ("2025-11-25", MODERN)
        if status == 403 or (not strict and isinstance(status, int) and 400 <= status < 500):
            ctx.passed("http-origin", f"Origin {FOREIGN_ORIGIN} was refused with HTTP {status}", [event.seq])
        else:
            ctx.failed("http-origin", f"a POST with Origin {FOREIGN_ORIGIN} to a server on a loopback address got "
                                      f"{got(event)}" + (", not 403" if strict else ", not refused"), [event.seq])
    await _foreign_host(ctx, json_headers)
    await _own_host(ctx, json_headers)
    if ctx.modern:
        await _modern_405(ctx)
        return
    _session_id_ascii(ctx)
    for check_id in ("http-modern-405",):
        ctx.not_applicable(check_id, f"{ctx.revision} has a GET stream and sessions")
    await _get_stream(ctx)
    await _delete(ctx)


async def probe_concurrent(ctx: Context) -> None:
    """Three requests sent at once (tools/list when declared, else ping or server/discover): the session sends
    each as its own POST, so the server has three response streams open together."""
    if "tools" in ctx.info.capabilities:
        method = "tools/list"
    else:
        method = "server/discover" if ctx.modern else "ping"
    mark = ctx.mark()
    answers = await asyncio.gather(*(ctx.ask(method) for _ in range(CONCURRENT)), return_exceptions=True)
    events = ctx.since(mark)
    statuses = [e.data.get("status") for e in events if e.kind == Kind.HTTP and e.data.get("method") == "POST"
                and "status" in e.data]
    seqs = [e.seq for e in events if e.kind in (Kind.HTTP, Kind.MESSAGE)]
    wrong = []
    for answer in answers:
        if isinstance(answer, TransportClosed):
            raise answer
        if isinstance(answer, BaseException):
            wrong.append(str(answer) if isinstance(answer, TransportError) else answer.__class__.__name__)
        elif error_of(answer) is not None:
            wrong.append(code_text(error_of(answer) or {}))
    shown = ", ".join(str(s) for s in statuses) or "none"
    if wrong:
        ctx.failed("http-concurrent-requests", f"{len(wrong)} of {CONCURRENT} {method} sent at once were not "
                                               f"answered with a result ({'; '.join(wrong)[:300]}); statuses "
                                               f"{shown}", seqs)
    else:
        ctx.passed("http-concurrent-requests", f"{CONCURRENT} {method} sent at once were each answered (statuses "
                                               f"{shown})", seqs)


async def _foreign_host(ctx: Context, json_headers: dict[str, str]) -> None:
    """A POST whose Host names another site (a DNS-rebinding page's request), with no Origin."""
    if not is_loopback_host(urlsplit(ctx.url).hostname or ""):
        ctx.not_applicable("http-host", "the server is not on a loopback address: which host names it answers to "
                                        "is its own choice")
        return
    event, _ = await _http(ctx, "POST", {**json_headers, "Accept": "application/json, text/event-stream",
                                         "Host": FOREIGN_HOST, "Origin": ""}, _ping_body(ctx), "check: foreign Host")
    status = event.data.get("status")
    if isinstance(status, int) and 400 <= status < 500:
        ctx.passed("http-host", f"Host {FOREIGN_HOST} was refused with HTTP {status}", [event.seq])
    else:
        ctx.failed("http-host", f"a POST with Host {FOREIGN_HOST} to a server on a loopback address got "
                                f"{got(event)}, not a 4xx", [event.seq])


async def _own_host(ctx: Context, json_headers: dict[str, str]) -> None:
    """A POST whose Host and Origin are the server's own loopback address (what a browser-based client on that
    address sends): served, as the conformance suite's ``localhost-host-valid-accepted`` wants."""
    parts = urlsplit(ctx.url)
    if not is_loopback_host(parts.hostname or ""):
        ctx.not_applicable("http-loopback-accepted", "the server is not on a loopback address: which host names it "
                                                     "answers to is its own choice")
        return
    own = parts.netloc.rpartition("@")[2]
    origin = f"{parts.scheme}://{own}"
    event, body = await _http(ctx, "POST", {**json_headers, "Accept": "application/json, text/event-stream",
                                            "Host": own, "Origin": origin}, _ping_body(ctx),
                              "check: own Host and Origin")
    status = event.data.get("status")
    if isinstance(status, int) and 200 <= status < 300:
        ctx.passed("http-loopback-accepted", f"Host {own} with Origin {origin} was served with HTTP {status}",
                   [event.seq])
    else:
        answer = ""
        try:
            error = json.loads(body).get("error") if body else None
            answer = f" with {code_text(error)}" if isinstance(error, dict) else ""
        except (ValueError, AttributeError):
            pass
        ctx.failed("http-loopback-accepted", f"a POST with the server's own Host {own} and Origin {origin} got "
                                             f"{got(event)}{answer}, not a 2xx", [event.seq])


def _session_id_ascii(ctx: Context) -> None:
    """The session ids the server issued in this session (the handshake's, any other), each 0x21 to 0x7E."""
    issued = [(e, str(v)) for e in ctx.events if e.kind == Kind.HTTP
              for k, v in (e.data.get("response_headers") or {}).items() if k.lower() == "mcp-session-id"]
    if not issued:
        ctx.not_applicable("http-session-id-ascii", "the server gave no session id (a stateless server)")
        return
    bad = [(e, v) for e, v in issued if not v or any(not 0x21 <= ord(c) <= 0x7E for c in v)]
    if bad:
        ctx.failed("http-session-id-ascii", f"the session id {bad[0][1][:60]!r} has characters outside visible ASCII",
                   [bad[0][0].seq])
    else:
        ctx.passed("http-session-id-ascii", f"the session id {issued[0][1][:60]!r} is visible ASCII",
                   [issued[0][0].seq])


async def _http(ctx: Context, method: str, headers: dict[str, str], content: bytes | None, purpose: str
                ) -> tuple[Event, bytes]:
    found = await wait_for(ctx.session.http_probe(method, headers=headers, content=content, purpose=purpose),
                           ctx.timeout)
    if found is None:
        raise _NoProbes("the transport cannot make HTTP probes")
    return found


class _NoProbes(TransportError):
    """The session's transport is not Streamable HTTP."""


async def _get_stream(ctx: Context) -> None:
    # the session's own standalone stream, opened after the handshake, is the probe when it is there
    own = next((e for e in ctx.events if e.kind == Kind.HTTP and e.data.get("method") == "GET"
                and "status" in e.data), None)
    event = own if own is not None else (await _http(ctx, "GET", {"Accept": "text/event-stream"}, None,
                                                     "check: GET stream"))[0]
    status = event.data.get("status")
    headers = event.data.get("response_headers") or {}
    content_type = next((str(v) for k, v in headers.items() if k.lower() == "content-type"), "")
    if status == 405:
        ctx.passed("http-get-stream", "HTTP 405: the server offers no GET stream", [event.seq])
    elif isinstance(status, int) and 200 <= status < 300 and "text/event-stream" in content_type:
        ctx.passed("http-get-stream", f"HTTP {status} with an event stream", [event.seq])
    else:
        ctx.failed("http-get-stream", f"GET got {got(event)} ({content_type or 'no Content-Type'}), neither an "
                                      "event stream nor 405", [event.seq])


async def _delete(ctx: Context) -> None:
    """``http-delete`` (the DELETE is accepted, or refused with 405) and ``http-session-ended-404`` (a request in the
    session it ended then gets 404), as the conformance suite judges them: two checks, not one."""
    issued = any(k.lower() == "mcp-session-id" for e in ctx.events if e.kind == Kind.HTTP
                 for k in (e.data.get("response_headers") or {}))
    if not issued:
        for check_id in ("http-delete", "http-session-ended-404"):
            ctx.not_applicable(check_id, "the server gave no session id (a stateless server)")
        return
    event, _ = await _http(ctx, "DELETE", {}, None, "check: end the session")
    status = event.data.get("status")
    if status == 405:
        why = "the server does not let clients end sessions (405), which the spec allows"
        ctx.passed("http-delete", f"HTTP 405: {why}", [event.seq])
        ctx.not_applicable("http-session-ended-404", why)
        return
    if not (isinstance(status, int) and 200 <= status < 300):
        ctx.failed("http-delete", f"DELETE got {got(event)}, neither a 2xx nor 405", [event.seq])
        ctx.incomplete("http-session-ended-404", "the DELETE did not end the session, so no request could be "
                                                 "sent in an ended one")
        return
    ctx.passed("http-delete", f"DELETE got HTTP {status}", [event.seq])
    after, _ = await _http(ctx, "POST", {"Content-Type": "application/json",
                                         "Accept": "application/json, text/event-stream"}, _ping_body(ctx),
                           "check: a request in the ended session")
    status2 = after.data.get("status")
    if status2 == 404:
        ctx.passed("http-session-ended-404", f"DELETE got HTTP {status}; the next request got 404",
                   [event.seq, after.seq])
    else:
        ctx.failed("http-session-ended-404", f"DELETE got HTTP {status}, yet the next request in that session got "
                                             f"{got(after)}, not 404", [event.seq, after.seq])


async def _modern_405(ctx: Context) -> None:
    for check_id in ("http-get-stream", "http-delete", "http-session-ended-404"):
        ctx.not_applicable(check_id, "2026-07-28 has no GET stream and no sessions")
    if [v for v in ctx.info.supported_versions if v != MODERN]:
        ctx.not_applicable("http-modern-405", "the server speaks earlier revisions too ("
                           + ", ".join(v for v in ctx.info.supported_versions if v != MODERN)
                           + "), whose clients may GET and DELETE")
        return
    seqs = []
    wrong = []
    for method in ("GET", "DELETE"):
        event, _ = await _http(ctx, method, {"Accept": "text/event-stream"} if method == "GET" else {}, None,
                               f"check: {method} in 2026-07-28")
        seqs.append(event.seq)
        if event.data.get("status") != 405:
            wrong.append(f"{method} got {got(event)}")
    if wrong:
        ctx.failed("http-modern-405", "; ".join(wrong) + ", not 405", seqs)
    else:
        ctx.passed("http-modern-405", "GET and DELETE got 405", seqs)


#: The probes of one session, in order: the ones that may break the connection last.

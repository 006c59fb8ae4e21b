"""The probes of ``mcp-inspector check``: each sends what shows one or more checks, then judges the answer.

A probe is ``async def probe(ctx) -> None``; it adds a :class:`~inspector.core.check.checks.Result` for each
check it judges through :class:`Context` (``ctx.passed``, ``ctx.failed``, ``ctx.not_applicable``,
``ctx.incomplete``), naming the
seq numbers of the events that show it. Everything goes through the session (``request``, ``send_object``,
``send_raw``, ``http_probe``), so every byte is in the session's capture. Each wait is bounded by the
context's ``timeout``; the runner (:mod:`inspector.core.check.runner`) bounds each probe as a whole too, and
turns a server that went away into "incomplete" for what is left.
"""

from __future__ import annotations

import json

from inspector.core.check.catalog_probes import (
    probe_pagination,
    probe_prompts,
    probe_resources,
    probe_tool_schemas,
    probe_tools,
)
from inspector.core.check.context import (
    BATCH_GRACE,
    NUMBER_ID,
    STRING_ID,
    UNKNOWN_METHOD,
    UNSUPPORTED_REVISION,
    Context,
    Probe,
    code_text,
    error_of,
    exchange_seqs,
    got,
    is_response,
    responses_in,
    seqs_of,
)
from inspector.core.check.feature_probes import (
    probe_caching,
    probe_input_required,
    probe_lists,
    probe_logging,
    probe_resource_not_found,
    probe_subscribe,
    probe_tools_order,
)
from inspector.core.check.http_probes import probe_concurrent, probe_http
from inspector.core.check.modern_probes import (
    HEADER_MISMATCH,
    probe_discover,
    probe_input_responses,
    probe_modern_http,
    probe_request_meta,
    probe_session_rules,
    probe_subscription,
)
from inspector.core.check.param_header_probes import probe_param_headers
from inspector.core.session.outcomes import RequestTimeout, result_of
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire.events import Direction, Event, Kind
from inspector.core.wire.ids import IdKey, id_key, same_id

# -- the probes ----------------------------------------------------------------------------------------------


async def probe_ping(ctx: Context) -> None:
    if ctx.modern:
        ctx.not_applicable("ping", "2026-07-28 has no ping")
        return
    try:
        response = await ctx.ask("ping")
    except RequestTimeout as exc:
        ctx.failed("ping", f"no answer to ping: {exc}", seqs_of(ctx.since(ctx.mark() - 1)))
        return
    result, error = result_of(response)
    if error is not None:
        ctx.failed("ping", f"the server answered ping with {code_text(error_of(response) or {})}",
                   exchange_seqs(response))
    elif not isinstance(result, dict) or any(k != "_meta" for k in result):
        ctx.failed("ping", f"the server answered ping with {json.dumps(result)[:200]}, not an empty result",
                   exchange_seqs(response))
    else:
        ctx.passed("ping", "ping was answered with {}", exchange_seqs(response))


async def probe_ids(ctx: Context) -> None:
    method = "server/discover" if ctx.modern else "ping"
    seqs: list[int] = []
    problems = []
    for msg_id in (STRING_ID, NUMBER_ID):
        mark = ctx.mark()
        try:
            response = await ctx.ask(method, msg_id=msg_id)
            seqs += exchange_seqs(response)
        except RequestTimeout:
            # the answer may have come with the id changed: pairing could not see it
            near = [e for e in ctx.since(mark) if is_response(e)]
            seqs += seqs_of(ctx.since(mark))
            shown = f"; it sent a response with id {json.dumps(near[0].rpc.id)}" if near and near[0].rpc else ""
            problems.append(f"no response with the id {json.dumps(msg_id)} came within {ctx.timeout:g} s{shown}")
            continue
        echoed = response.rpc.id if response.rpc is not None else None
        if not same_id(echoed, msg_id):
            problems.append(f"the id {json.dumps(msg_id)} came back as {json.dumps(echoed)}")
    if problems:
        ctx.failed("ids-echoed", "; ".join(problems), seqs)
    else:
        ctx.passed("ids-echoed", f"{method} with id {json.dumps(STRING_ID)} and id {NUMBER_ID} were answered with "
                                 "the same ids", seqs)


async def probe_unknown_method(ctx: Context) -> None:
    mark = ctx.mark()
    try:
        response = await ctx.ask(UNKNOWN_METHOD)
    except RequestTimeout:
        text = f"no answer to the unknown method {UNKNOWN_METHOD} within {ctx.timeout:g} s"
        ctx.failed("unknown-method", text, seqs_of(ctx.since(mark)))
        ctx.failed("unknown-method-code", text, seqs_of(ctx.since(mark)))
        return
    error = error_of(response)
    if error is None:
        ctx.failed("unknown-method", f"the server answered the unknown method {UNKNOWN_METHOD} with a result",
                   exchange_seqs(response))
        ctx.failed("unknown-method-code", "a result came instead of error -32601", exchange_seqs(response))
        return
    ctx.passed("unknown-method", f"answered with {code_text(error)}", exchange_seqs(response))
    if error.get("code") == jsonrpc_codes.METHOD_NOT_FOUND:
        ctx.passed("unknown-method-code", "the error code is -32601", exchange_seqs(response))
    else:
        ctx.failed("unknown-method-code", f"the error code is {error.get('code')}, not -32601 (Method not found)",
                   exchange_seqs(response))


class jsonrpc_codes:
    """JSON-RPC 2.0's error codes, as the probes expect them."""

    PARSE_ERROR = -32700
    INVALID_REQUEST = -32600
    METHOD_NOT_FOUND = -32601
    INVALID_PARAMS = -32602


async def probe_malformed_params(ctx: Context) -> None:
    caps = ctx.info.capabilities
    if "tools" in caps:
        method, params = "tools/call", {"name": 42, "arguments": "not an object"}
    elif "prompts" in caps:
        method, params = "prompts/get", {"name": 42}
    elif "resources" in caps:
        method, params = "resources/read", {"uri": 42}
    else:
        ctx.not_applicable("malformed-params", "the server declares no tools, prompts or resources to ask wrongly")
        return
    mark = ctx.mark()
    try:
        response = await ctx.ask(method, params)
    except RequestTimeout:
        ctx.failed("malformed-params", f"no answer to {method} with malformed params within {ctx.timeout:g} s",
                   seqs_of(ctx.since(mark)))
        return
    error = error_of(response)
    shown = json.dumps(params)
    if error is None:
        ctx.failed("malformed-params", f"{method} with params {shown} got a result, not error -32602",
                   exchange_seqs(response))
    elif error.get("code") == HEADER_MISMATCH and ctx.modern and ctx.http:
        # at 2026-07-28 over HTTP the Mcp-Name header mirrors params.name, which a number cannot be: the server's
        # header validation, which comes first, refuses the malformed request (basic/transports/streamable-http)
        ctx.passed("malformed-params", f"{method} with params {shown} got error -32020: the Mcp-Name header "
                                       "cannot mirror a name that is not a string, and headers are checked first",
                   exchange_seqs(response))
    elif error.get("code") != jsonrpc_codes.INVALID_PARAMS:
        ctx.failed("malformed-params", f"{method} with params {shown} got {code_text(error)}, not -32602",
                   exchange_seqs(response))
    else:
        ctx.passed("malformed-params", f"{method} with params {shown} got error -32602", exchange_seqs(response))


async def probe_notification(ctx: Context) -> None:
    """A notification no one defines (receivers ignore unknown notifications), then a liveness request: any
    response in between answers the notification."""
    mark = ctx.mark()
    await ctx.session.notify("notifications/mcp-inspector/check", {"note": "a notification needs no answer"})
    ok, sentence, seqs = await ctx.alive()
    events = ctx.since(mark)
    sent = events[0].seq if events else 0
    stray = [e for e in events if is_response(e) and e.rpc is not None and (not e.rpc.has_id or e.rpc.id is None)]
    if stray:
        stray_id = json.dumps(stray[0].rpc.id if stray[0].rpc else None)
        ctx.failed("notification-no-response", f"the server answered the notification (a response with id {stray_id})",
                   [sent, stray[0].seq])
    elif not ok:
        ctx.failed("notification-no-response", f"after a notification, {sentence}", [sent, *seqs])
    else:
        ctx.passed("notification-no-response", f"no response to the notification; {sentence}", [sent, *seqs])
    if not ctx.http:
        return
    post = next((e for e in events if e.kind == Kind.HTTP and e.data.get("purpose") == "notification"
                 and "status" in e.data), None)
    if post is None:
        post = next((e for e in events if e.kind == Kind.HTTP and "status" in e.data), None)
    if post is None:
        ctx.not_applicable("http-notification-202", "the notification's HTTP exchange was not seen")
        return
    posts = [("the notification's POST", post)]
    # the handshake's own notifications/initialized, on the session id the server issued (the suite's
    # server-session-initialized-accepted); 2026-07-28 has no such notification
    initialized = next((e for e in ctx.events if e.kind == Kind.HTTP and "status" in e.data
                        and e.data.get("purpose") == "notifications/initialized"), None)
    if initialized is not None:
        posts.insert(0, ("the handshake's notifications/initialized POST", initialized))
    wrong = []
    for what, event in posts:
        status = event.data.get("status")
        body = event.data.get("body_bytes") or 0
        if not (status == 202 and not body):
            wrong.append(f"{what} got {got(event)}" + (f" with {body} bytes of body" if body else ""))
    seqs = [event.seq for _, event in posts]
    if wrong:
        ctx.failed("http-notification-202", "; ".join(wrong), seqs)
    else:
        ctx.passed("http-notification-202", "202 Accepted with no body"
                   + (" (the handshake's notifications/initialized too)" if initialized is not None else ""), seqs)


async def probe_cancellation(ctx: Context) -> None:
    if ctx.modern and ctx.http:
        ctx.not_applicable("cancellation", "over 2026-07-28 Streamable HTTP, closing the response stream cancels; "
                                           "there is no notification to send")
        return
    method = "server/discover" if ctx.modern else "ping"
    msg_id = ctx.session.next_id()
    mark = ctx.mark()
    obj = ctx.session.prepare_request({"jsonrpc": "2.0", "id": msg_id, "method": method})
    await ctx.session.send_object(obj)
    await ctx.session.notify("notifications/cancelled", {"requestId": msg_id, "reason": "mcp-inspector check"})
    ok, sentence, seqs = await ctx.alive()
    sent = seqs_of(ctx.since(mark))[:2]
    if ok:
        ctx.passed("cancellation", f"{method} #{msg_id} was cancelled at once; {sentence}", [*sent, *seqs])
    else:
        ctx.failed("cancellation", f"{method} #{msg_id} was cancelled at once, {sentence}", [*sent, *seqs])


async def probe_batch(ctx: Context) -> None:
    if ctx.revision != "2025-03-26":
        ctx.not_applicable("batch", f"{ctx.revision} has no JSON-RPC batches (only 2025-03-26 has)")
        return
    first, second = ctx.session.next_id(), ctx.session.next_id()
    batch = [{"jsonrpc": "2.0", "id": first, "method": "ping"}, {"jsonrpc": "2.0", "id": second, "method": "ping"}]
    mark = ctx.mark()
    try:
        await ctx.session.send_object(batch)
    except TransportError as exc:
        ctx.failed("batch", f"sending a batch of two pings failed: {exc}", seqs_of(ctx.since(mark)))
        return
    wanted = {id_key(first): first, id_key(second): second}

    def answered() -> set[IdKey]:
        return {id_key(r.get("id")) for e in ctx.since(mark) if e.dir == Direction.S2C and e.kind == Kind.MESSAGE
                for r in responses_in(e)}

    # a liveness request after it bounds the wait: a server answers a batch before a request sent later
    # (a little grace for one that answers out of order)
    ok, sentence, _ = await ctx.alive()
    if ok:
        await ctx.wait_for(mark, lambda _e: wanted.keys() <= answered(), BATCH_GRACE)
    missing_keys = wanted.keys() - answered()
    seqs = seqs_of(ctx.since(mark))
    if not missing_keys:
        ctx.passed("batch", "both pings of the batch were answered", seqs)
    else:
        missing = ", ".join(str(msg_id) for key, msg_id in wanted.items() if key in missing_keys)
        ctx.failed("batch", f"a batch of two pings got no answer for id {missing}; "
                            + (f"{sentence}, which it answered first" if ok else sentence), seqs)


async def probe_modern_unsupported(ctx: Context) -> None:
    """2026-07-28: server/discover at a revision no one speaks, on the same connection (no session state)."""
    if not ctx.modern:  # the legacy form needs a connection of its own: the runner makes one
        ctx.not_applicable("handshake-unsupported", "up to 2025-11-25 initialize is sent once per connection: the "
                                                    f"session at {UNSUPPORTED_REVISION} checks it")
        return
    meta = {"io.modelcontextprotocol/protocolVersion": UNSUPPORTED_REVISION,
            "io.modelcontextprotocol/clientCapabilities": {}, "io.modelcontextprotocol/clientInfo":
                {"name": "mcp-inspector", "version": "check"}}
    mark = ctx.mark()
    try:
        response = await ctx.ask("server/discover", {"_meta": meta}, meta=False)
    except TransportError as exc:
        errors = [e for e in ctx.since(mark) if is_response(e)]
        if errors:
            judge_modern_unsupported(ctx, errors[0])
        else:
            ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION}: {exc}",
                       seqs_of(ctx.since(mark)))
        return
    judge_modern_unsupported(ctx, response)


def judge_modern_unsupported(ctx: Context, response: Event) -> None:
    error = error_of(response)
    seqs = [s for s in exchange_seqs(response) if s] or [response.seq]
    if error is None:
        ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION} got a result, not an "
                                            "UnsupportedProtocolVersionError (-32022)", seqs)
        return
    data = error.get("data")
    supported = data.get("supported") if isinstance(data, dict) else None
    if error.get("code") != -32022:
        ctx.failed("handshake-unsupported", f"server/discover at {UNSUPPORTED_REVISION} got {code_text(error)}, "
                                            "not -32022 (UnsupportedProtocolVersionError)", seqs)
    elif not isinstance(supported, list) or not supported:
        ctx.failed("handshake-unsupported", "the -32022 error has no data.supported list of revisions", seqs)
    else:
        ctx.passed("handshake-unsupported", f"-32022, supported: {', '.join(map(str, supported))}", seqs)


async def probe_invalid_json(ctx: Context) -> None:
    mark = ctx.mark()
    # wrong from its second byte: a line that ends too early would be held as the start of a split message
    broken = b'{this is not JSON}'
    try:
        await ctx.session.send_raw(broken if ctx.http else broken + b"\n")
    except TransportClosed as exc:
        ctx.failed("invalid-json-survives", f"the connection ended on invalid JSON: {exc}", seqs_of(ctx.since(mark)))
        ctx.failed("invalid-json", "the server went away instead of answering", seqs_of(ctx.since(mark)))
        return
    except TransportError:
        pass  # over HTTP, a 4xx: judged below from its event
    sent = seqs_of(ctx.since(mark))[:1]

    def parse_error(event: Event) -> bool:
        return event.dir == Direction.S2C and any(
            isinstance(r.get("error"), dict) and r["error"].get("code") == jsonrpc_codes.PARSE_ERROR
            for r in responses_in(event))

    if ctx.http:
        answer = next((e for e in ctx.since(mark) if e.kind == Kind.HTTP and "status" in e.data), None)
        parsed = next((e for e in ctx.since(mark) if parse_error(e)), None)
        status = answer.data.get("status") if answer is not None else None
        shown = [s for s in (answer.seq if answer else 0, parsed.seq if parsed else 0) if s]
        if isinstance(status, int) and 400 <= status < 500:
            ctx.passed("invalid-json", f"HTTP {status}" + (" with error -32700" if parsed else ""), sent + shown)
        elif parsed is not None:
            ctx.passed("invalid-json", "error -32700", sent + shown)
        else:
            ctx.failed("invalid-json", f"the invalid JSON got {got(answer)} and no error -32700", sent + shown)
    else:
        found = await ctx.wait_for(mark, parse_error, ctx.timeout)
        if found is not None:
            ctx.passed("invalid-json", "error -32700 with a null id", sent + [found.seq])
    ok, sentence, seqs = await ctx.alive()
    if not ctx.http and not ctx.judged("invalid-json"):
        # what answered the line: a response with a null id (the only id an answer to unparseable input has);
        # a second answer to an earlier request is no answer to it
        others = [e for e in ctx.since(mark) if is_response(e) and e.seq not in seqs and e.rpc is not None
                  and e.rpc.id is None]
        error = error_of(others[0]) if others else None
        what = (f"it answered {code_text(error)}" if error is not None else
                "it answered with a result" if others else "no error -32700 came")
        ctx.failed("invalid-json", f"after a line of invalid JSON, {what}",
                   sent + [e.seq for e in others[:1]] + (seqs if ok else []))
    if ok:
        ctx.passed("invalid-json-survives", f"after invalid JSON, {sentence}", sent + seqs)
    else:
        ctx.failed("invalid-json-survives", f"after invalid JSON, {sentence}", sent + seqs)


PROBES: tuple[tuple[tuple[str, ...], Probe], ...] = (
    (("ping",), probe_ping),
    (("ids-echoed",), probe_ids),
    (("unknown-method", "unknown-method-code"), probe_unknown_method),
    (("malformed-params",), probe_malformed_params),
    (("notification-no-response", "http-notification-202"), probe_notification),
    (("cancellation",), probe_cancellation),
    (("batch",), probe_batch),
    (("pagination",), probe_pagination),
    (("tool-schemas", "tool-names", "tools-listed"), probe_tool_schemas),
    (("resources-readable",), probe_resources),
    (("prompts-gettable",), probe_prompts),
    (("tools-callable", "tool-output-conforms"), probe_tools),
    (("lists-answered",), probe_lists),
    (("tools-order-stable",), probe_tools_order),
    (("logging-set-level",), probe_logging),
    (("resources-subscribe", "resources-unsubscribe"), probe_subscribe),
    (("resource-not-found", "resource-not-found-code"), probe_resource_not_found),
    (("caching-hints",), probe_caching),
    (("input-required-not-on-lists",), probe_input_required),
    (("request-meta-required", "request-meta-client-info-optional"), probe_request_meta),
    (("discover-server-info", "discover-capabilities-match", "unsupported-version-details"), probe_discover),
    (("subscription-acknowledged", "subscription-notifications-tagged", "subscription-filter-honored"),
     probe_subscription),
    (("input-responses-unasked-ignored",), probe_input_responses),
    (("http-method-not-found-404", "http-version-header-mismatch", "http-standard-headers",
      "http-standard-headers-lenient", "error-ids-echoed"), probe_modern_http),
    (("http-param-headers", "http-param-headers-decoded"), probe_param_headers),
    (("http-concurrent-requests",), probe_concurrent),
    (("handshake-unsupported",), probe_modern_unsupported),
    (("invalid-json", "invalid-json-survives"), probe_invalid_json),
    (("http-origin", "http-accept", "http-get-stream", "http-delete", "http-session-ended-404", "http-modern-405",
      "http-host", "http-session-id-ascii", "http-loopback-accepted"), probe_http),
    # last: it reads what the server sent in the whole session
    (("no-log-without-log-level", "no-requests-on-response-streams"), probe_session_rules),
)

"""The probes of ``mcp-inspector check`` for the 2026-07-28 stateless server (SEP-2575, SEP-2243): each
request's ``_meta``, what server/discover says (its serverInfo, its capabilities against the methods served,
the revisions an unsupported one is answered with), and over Streamable HTTP the status codes and headers the
binding fixes (404 for a method not implemented, 400 with -32020 for headers that contradict the body).

Where the exact bytes matter (a header left out, a header that lies) the request is sent with the session's
``http_probe``, so every exchange is in the capture; elsewhere as an ordinary request. Each check names the
official conformance suite's check ids it matches (:attr:`~inspector.core.check.checks.Check.conformance`).
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, field
from typing import Any

from inspector.core.check.catalog_probes import sample_arguments
from inspector.core.check.checks import MODERN
from inspector.core.check.context import Context, code_text, got, is_response, seqs_of
from inspector.core.explore.subscriptions import (
    ACKNOWLEDGED,
    FILTER_FIELDS,
    SUBSCRIPTION_ID,
    Subscription,
    Subscriptions,
    asked_for,
    filter_for,
    subscription_id,
    wait_for_acknowledgement,
)
from inspector.core.session.outcomes import RequestTimeout, result_of
from inspector.core.transports.base import TransportClosed, TransportError
from inspector.core.wire import jsonrpc
from inspector.core.wire.events import Direction, Event, Kind, params_of
from inspector.core.wire.ids import id_key

PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion"
CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
CLIENT_INFO = "io.modelcontextprotocol/clientInfo"
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
#: A revision in the form no server speaks, for the version probes (the suite's own choice of value).
UNKNOWN_VERSION = "v999.0.0"
HEADER_MISMATCH = -32020
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
#: The methods 2026-07-28 removed, which a server that speaks only it answers with 404 and -32601.
REMOVED_METHODS = ("initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe")
UNKNOWN_METHOD = "mcp-inspector/no-such-method"
LOG_LEVEL = "io.modelcontextprotocol/logLevel"
#: How long a subscription is heard after its acknowledgement, for what it brings unasked (the suite, which can
#: make its own server change a list, listens 0.8 to 1.5 s; without that, a short sample costs every run less).
SETTLE = 0.5
#: Answers to input requests no server made: the input-responses probe sends them with a plain request.
UNASKED_RESPONSES = {"mcp-inspector-unasked": {"action": "accept", "content": {"note": "nobody asked for this"}},
                     "mcp-inspector-unasked-too": {"action": "decline"}}
_ACCEPT = "application/json, text/event-stream"


def full_meta() -> dict[str, Any]:
    return {PROTOCOL_VERSION: MODERN, CLIENT_CAPABILITIES: {},
            CLIENT_INFO: {"name": "mcp-inspector", "version": "check"}}


@dataclass
class Answer:
    """What one request got: the HTTP status (None on stdio, or with no HTTP answer), the JSON-RPC error or
    result (None when neither came), the seqs of the exchange, and why nothing came, if so."""

    status: int | None = None
    error: dict[str, Any] | None = None
    result: Any = None
    seqs: list[int] = field(default_factory=list)
    failure: str | None = None
    http: Event | None = None

    @property
    def code(self) -> Any:
        return self.error.get("code") if self.error is not None else None

    def what(self) -> str:
        """``HTTP 400 with error -32602 (...)`` or ``a result``, for a sentence."""
        status = f"HTTP {self.status} with " if self.status is not None else ""
        if self.error is not None:
            return status + code_text(self.error)
        if self.result is not None:
            return status + "a result"
        return (got(self.http) if self.http is not None else "no answer") + (f" ({self.failure})" if self.failure
                                                                             else "")


async def ask(ctx: Context, method: str, params: Any, *, meta: bool = False) -> Answer:
    """``method`` as an ordinary request (``meta``: the session adds its own ``_meta``); a server that goes
    away raises TransportClosed, anything else is in the :class:`Answer`."""
    mark = ctx.mark()
    answer = Answer()
    response: Event | None = None
    try:
        response = await ctx.ask(method, params, meta=meta)
    except TransportClosed:
        raise
    except RequestTimeout as exc:
        answer.failure = str(exc)
    except TransportError as exc:  # an HTTP error status: its JSON-RPC body, when it had one, is in the events
        response = next((e for e in ctx.since(mark) if is_response(e)), None)
        answer.failure = None if response is not None else str(exc)
    events = ctx.since(mark)
    answer.http = next((e for e in events if e.kind == Kind.HTTP and e.data.get("method") == "POST"
                        and "status" in e.data), None)
    answer.status = answer.http.data.get("status") if answer.http is not None else None
    if response is not None:
        result, error = result_of(response)
        answer.result = result if error is None else None
        answer.error = error if isinstance(error, dict) else None
    answer.seqs = seqs_of(events)
    return answer


async def post(ctx: Context, obj: dict[str, Any], headers: dict[str, str], purpose: str) -> Answer:
    """One POST of ``obj`` with exactly ``headers`` over the session's own (an empty value drops a header);
    the body's JSON-RPC answer when it is JSON (an event stream is closed unread: a 2xx)."""
    sent = {"Content-Type": "application/json", "Accept": _ACCEPT, **headers}
    found = await ctx.session.http_probe("POST", headers=sent, content=json.dumps(obj).encode(), purpose=purpose)
    if found is None:
        raise TransportError("the transport cannot make HTTP probes")
    event, body = found
    answer = Answer(http=event, seqs=[event.seq])
    status = event.data.get("status")
    answer.status = status if isinstance(status, int) else None
    try:
        parsed = json.loads(body) if body else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        if isinstance(parsed.get("error"), dict):
            answer.error = parsed["error"]
            ctx.error_ids.append((obj.get("id"), parsed.get("id"), event.seq))
        elif "result" in parsed:
            answer.result = parsed["result"]
    return answer


def _request(ctx: Context, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": ctx.session.next_id(), "method": method, "params": params}


def _headers(method: str, name: str | None = None) -> dict[str, str]:
    headers = {"MCP-Protocol-Version": MODERN, "Mcp-Method": method}
    if name is not None:
        headers["Mcp-Name"] = name
    return headers


async def _meta_request(ctx: Context, params: dict[str, Any], purpose: str) -> Answer:
    """server/discover with ``params`` as given: over HTTP with the headers a 2026-07-28 client sends (so only
    the body is wrong), on stdio as an ordinary request."""
    if ctx.http:
        return await post(ctx, _request(ctx, "server/discover", params), _headers("server/discover"), purpose)
    return await ask(ctx, "server/discover", params)


async def probe_request_meta(ctx: Context) -> None:
    """A request with no ``_meta``, or one lacking protocolVersion or clientCapabilities, is refused with
    -32602 (HTTP 400); one lacking only clientInfo is served."""
    cases: tuple[tuple[str, dict[str, Any]], ...] = (("no _meta", {}),
             ("_meta without protocolVersion",
              {"_meta": {k: v for k, v in full_meta().items() if k != PROTOCOL_VERSION}}),
             ("_meta without clientCapabilities",
              {"_meta": {k: v for k, v in full_meta().items() if k != CLIENT_CAPABILITIES}}))
    wrong: list[str] = []
    seqs: list[int] = []
    for what, params in cases:
        answer = await _meta_request(ctx, params, f"check: server/discover with {what}")
        seqs += answer.seqs
        bad_status = ctx.http and answer.status != 400
        if answer.code != INVALID_PARAMS or bad_status:
            wrong.append(f"{what} got {answer.what()}")
    if wrong:
        ctx.failed("request-meta-required", "; ".join(wrong) + (", not HTTP 400 with error -32602" if ctx.http
                                                                  else ", not error -32602"), seqs)
    else:
        ctx.passed("request-meta-required", "each was refused with -32602" + (" and HTTP 400" if ctx.http else ""),
                   seqs)
    no_info = {"_meta": {k: v for k, v in full_meta().items() if k != CLIENT_INFO}}
    answer = await _meta_request(ctx, no_info, "check: server/discover without clientInfo")
    if answer.result is not None or (ctx.http and answer.status is not None and 200 <= answer.status < 300
                                     and answer.error is None):
        ctx.passed("request-meta-client-info-optional", "server/discover without clientInfo was answered",
                   answer.seqs)
    else:
        ctx.failed("request-meta-client-info-optional", f"server/discover without clientInfo got {answer.what()}",
                   answer.seqs)


async def probe_discover(ctx: Context) -> None:
    """server/discover names the server in ``_meta``; tools and prompts are served exactly when declared;
    an unknown revision is answered with HTTP 400 and data that echoes it and lists what discover lists."""
    answer = await ask(ctx, "server/discover", {"_meta": full_meta()})
    result = answer.result if isinstance(answer.result, dict) else None
    if result is None:
        for check_id in ("discover-server-info", "discover-capabilities-match", "unsupported-version-details"):
            ctx.incomplete(check_id, f"server/discover got {answer.what()}, so this could not be tested",
                           answer.seqs)
        return
    meta = result.get("_meta")
    info = meta.get(SERVER_INFO) if isinstance(meta, dict) else None
    if isinstance(info, dict) and isinstance(info.get("name"), str) and isinstance(info.get("version"), str):
        ctx.passed("discover-server-info", f"it is {info['name'][:80]} {info['version'][:40]}", answer.seqs)
    else:
        where = " (only in the result body, the form before PR #3002)" if "serverInfo" in result else ""
        ctx.failed("discover-server-info", f"the discover result has no _meta['{SERVER_INFO}'] with a name and a "
                                           f"version{where}", answer.seqs)
    found = result.get("capabilities")
    capabilities: dict[str, Any] = found if isinstance(found, dict) else {}
    await _capabilities_match(ctx, capabilities, answer.seqs)
    supported = [v for v in result.get("supportedVersions") or [] if isinstance(v, str)]
    await _unsupported_version(ctx, supported)


async def _capabilities_match(ctx: Context, capabilities: dict[str, Any], seqs: list[int]) -> None:
    wrong: list[str] = []
    all_seqs = list(seqs)
    for capability, method in (("tools", "tools/list"), ("prompts", "prompts/list")):
        answer = await ask(ctx, method, {}, meta=True)
        all_seqs += answer.seqs
        declared = capability in capabilities
        if answer.result is None and answer.error is None:
            ctx.incomplete("discover-capabilities-match", f"{method} got {answer.what()}", all_seqs)
            return
        if declared and answer.result is None:
            wrong.append(f"{capability} is declared, yet {method} got {answer.what()}")
        elif not declared and answer.code != METHOD_NOT_FOUND:
            served = "a result" if answer.result is not None else answer.what()
            wrong.append(f"{capability} is not declared, yet {method} got {served}, not -32601")
    if wrong:
        ctx.failed("discover-capabilities-match", "; ".join(wrong), all_seqs)
    else:
        ctx.passed("discover-capabilities-match", "tools/list and prompts/list are served exactly as declared",
                   all_seqs)


async def _unsupported_version(ctx: Context, supported: list[str]) -> None:
    meta = {**full_meta(), PROTOCOL_VERSION: UNKNOWN_VERSION}
    if ctx.http:
        answer = await post(ctx, _request(ctx, "server/discover", {"_meta": meta}),
                            {"MCP-Protocol-Version": UNKNOWN_VERSION, "Mcp-Method": "server/discover"},
                            f"check: server/discover at {UNKNOWN_VERSION}")
    else:
        answer = await ask(ctx, "server/discover", {"_meta": meta})
    data = answer.error.get("data") if answer.error is not None else None
    data = data if isinstance(data, dict) else {}
    wrong = []
    if ctx.http and answer.status != 400:
        wrong.append(f"HTTP {answer.status}, not 400" if answer.status is not None else f"{answer.what()}")
    if answer.error is None:
        wrong.append("no error")
    else:
        listed = data.get("supported")
        if not (isinstance(listed, list) and listed and all(v in supported for v in listed)):
            wrong.append(f"data.supported is {json.dumps(listed)[:200]}, not among the revisions server/discover lists "
                         f"({', '.join(supported) or 'none'})")
        if data.get("requested") != UNKNOWN_VERSION:
            wrong.append(f"data.requested is {json.dumps(data.get('requested'))[:100]}, not {UNKNOWN_VERSION!r}")
    if wrong:
        ctx.failed("unsupported-version-details", f"server/discover at {UNKNOWN_VERSION}: " + "; ".join(wrong),
                   answer.seqs)
    else:
        ctx.passed("unsupported-version-details", f"{answer.what()}, data echoes {UNKNOWN_VERSION} and lists "
                                                  + ", ".join(map(str, data.get("supported") or []))[:200], answer.seqs)


async def probe_modern_http(ctx: Context) -> None:
    """The 2026-07-28 binding's status codes and headers (Streamable HTTP only), then whether every error
    those probes and the earlier ones drew carries the id of its request."""
    await _method_not_found(ctx)
    await _version_header_mismatch(ctx)
    await _standard_headers(ctx)
    _error_ids(ctx)


def _error_ids(ctx: Context) -> None:
    if not ctx.error_ids:
        ctx.incomplete("error-ids-echoed", "no probe drew an error response, so there was no id to compare")
        return
    wrong = [(sent, back, seq) for sent, back, seq in ctx.error_ids if back != sent or type(back) is not type(sent)]
    if wrong:
        sent, back, _ = wrong[0]
        ctx.failed("error-ids-echoed", f"{len(wrong)} of {len(ctx.error_ids)} error responses did not carry the id "
                                       f"of their request (the first: id {json.dumps(back)[:40]} for request "
                                       f"{json.dumps(sent)[:40]})", [seq for _, _, seq in wrong])
    else:
        ctx.passed("error-ids-echoed", f"{len(ctx.error_ids)} error responses, each with the id of its request",
                   [seq for _, _, seq in ctx.error_ids])


async def _method_not_found(ctx: Context) -> None:
    older = [v for v in ctx.info.supported_versions if v != MODERN]
    methods = [UNKNOWN_METHOD] if older else [*REMOVED_METHODS, UNKNOWN_METHOD]
    wrong: list[str] = []
    seqs: list[int] = []
    for method in methods:
        params: dict[str, Any] = {"_meta": full_meta()}
        answer = await post(ctx, _request(ctx, method, params), _headers(method), f"check: {method} in 2026-07-28")
        seqs += answer.seqs
        if answer.status != 404 or answer.code != METHOD_NOT_FOUND:
            wrong.append(f"{method} got {answer.what()}")
    note = f" (the server speaks {', '.join(older)} too, so only an unknown method is asked)" if older else ""
    if wrong:
        ctx.failed("http-method-not-found-404", "; ".join(wrong) + ", not HTTP 404 with error -32601" + note, seqs)
    else:
        ctx.passed("http-method-not-found-404", f"{', '.join(methods)}: each HTTP 404 with -32601{note}", seqs)


async def _version_header_mismatch(ctx: Context) -> None:
    obj = _request(ctx, "server/discover", {"_meta": {**full_meta(), PROTOCOL_VERSION: UNKNOWN_VERSION}})
    answer = await post(ctx, obj, _headers("server/discover"), "check: MCP-Protocol-Version differs from _meta")
    if answer.status == 400 and answer.code == HEADER_MISMATCH:
        ctx.passed("http-version-header-mismatch", "HTTP 400 with -32020", answer.seqs)
    else:
        ctx.failed("http-version-header-mismatch", f"MCP-Protocol-Version {MODERN} with _meta protocolVersion "
                                                   f"{UNKNOWN_VERSION} got {answer.what()}, not HTTP 400 with "
                                                   "-32020", answer.seqs)


async def _named_target(ctx: Context) -> tuple[str, dict[str, Any]] | None:
    """A request that carries Mcp-Name and changes nothing: resources/read of a listed resource; else, when
    the user allowed calls, tools/call of a tool (read-only unless --call-all-tools); None when there is none."""
    resources, _, _ = await ctx.listing("resources")
    uri = next((r["uri"] for r in resources or [] if isinstance(r.get("uri"), str)), None)
    if uri is not None:
        return "resources/read", {"uri": uri, "_meta": full_meta()}
    tool = await _callable_tool(ctx)
    return None if tool is None else ("tools/call", {"name": tool["name"], "arguments": {}, "_meta": full_meta()})


async def _callable_tool(ctx: Context) -> dict[str, Any] | None:
    """The first listed tool the user let check call (read-only unless --call-all-tools); None without
    --call-tools or --call-all-tools, or when there is none."""
    if not (ctx.options.call_tools or ctx.options.call_all_tools):
        return None
    tools, _, _ = await ctx.listing("tools")
    for tool in tools or []:
        read_only = isinstance(tool.get("annotations"), dict) and tool["annotations"].get("readOnlyHint") is True
        if isinstance(tool.get("name"), str) and (read_only or ctx.options.call_all_tools):
            return tool
    return None


async def _standard_headers(ctx: Context) -> None:
    listing = {"_meta": full_meta()}
    rejects: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("Mcp-Method prompts/list on a tools/list body", _request(ctx, "tools/list", listing),
         _headers("prompts/list")),
        ("no Mcp-Method", _request(ctx, "tools/list", listing), {"MCP-Protocol-Version": MODERN, "Mcp-Method": ""}),
        ("Mcp-Method TOOLS/LIST on a tools/list body", _request(ctx, "tools/list", listing),
         _headers("TOOLS/LIST")),
    ]
    accepts: list[tuple[str, dict[str, Any], dict[str, str]]] = [
        ("the header name mcp-method", _request(ctx, "tools/list", listing),
         {"MCP-Protocol-Version": MODERN, "Mcp-Method": "", "mcp-method": "tools/list"}),
        ("the header name MCP-METHOD", _request(ctx, "tools/list", listing),
         {"MCP-Protocol-Version": MODERN, "Mcp-Method": "", "MCP-METHOD": "tools/list"}),
    ]
    target = await _named_target(ctx)
    if target is not None:
        method, params = target
        value = str(params.get("uri") or params.get("name"))[:100]  # for the sentences only
        rejects += [(f"Mcp-Name that is not {value} on {method}", _request(ctx, method, params),
                     _headers(method, "mcp-inspector-wrong-name")),
                    (f"no Mcp-Name on {method} of {value}", _request(ctx, method, params), _headers(method))]
    untested = "" if target is not None else (" (the server lists no resource and no tool may be called without "
                                               f"{ctx.options.call_tools_hint}, so Mcp-Name was not tried)")
    wrong: list[str] = []
    seqs: list[int] = []
    for what, obj, headers in rejects:
        answer = await post(ctx, obj, headers, f"check: {what}")
        seqs += answer.seqs
        if answer.status != 400 or answer.code != HEADER_MISMATCH:
            wrong.append(f"{what} got {answer.what()}")
    if wrong:
        ctx.failed("http-standard-headers", "; ".join(wrong) + ", not HTTP 400 with -32020" + untested, seqs)
    else:
        ctx.passed("http-standard-headers", f"{len(rejects)} requests whose headers contradict the body: each HTTP "
                                            f"400 with -32020{untested}", seqs)
    wrong = []
    seqs = []
    for what, obj, headers in accepts:
        answer = await post(ctx, obj, headers, f"check: {what}")
        seqs += answer.seqs
        # an error other than -32020 (arguments a tool refuses) means the headers were taken
        refused = answer.status is None or answer.code == HEADER_MISMATCH or (answer.error is None
                                                                            and answer.status >= 400)
        if refused:
            wrong.append(f"{what} got {answer.what()}")
    if wrong:
        ctx.failed("http-standard-headers-lenient", "; ".join(wrong) + untested, seqs)
    else:
        ctx.passed("http-standard-headers-lenient", f"{len(accepts)} requests with conforming header variants were "
                                                    "taken" + untested, seqs)


def _delivers(capabilities: dict[str, Any]) -> bool:
    """Whether the server declares something only a subscription brings (a list change, resource updates)."""
    def flag(kind: str, name: str) -> bool:
        found = capabilities.get(kind)
        return isinstance(found, dict) and found.get(name) is True
    return any(flag(k, "listChanged") for k in ("tools", "prompts", "resources")) or flag("resources", "subscribe")


SUBSCRIPTION_CHECKS = ("subscription-acknowledged", "subscription-notifications-tagged", "subscription-filter-honored")
#: What a subscription brings: the notifications a filter asks for, and the acknowledgement.
_SUBSCRIBED = frozenset({ACKNOWLEDGED, *FILTER_FIELDS.values()})


async def probe_subscription(ctx: Context) -> None:
    """subscriptions/listen with a filter for every list the server declares: the first message of that
    subscription is the acknowledgement, tagged with the request's id. Then one with a filter for a single list,
    heard for :data:`SETTLE` after its acknowledgement: acknowledged with no more than that, bringing no other
    type, and every notification tagged with its id. Each stream is closed after."""
    capabilities = ctx.info.capabilities if isinstance(ctx.info.capabilities, dict) else {}
    if not _delivers(capabilities):
        for check_id in SUBSCRIPTION_CHECKS:
            ctx.not_applicable(check_id, "the server declares no list change and no resource subscription: there "
                                         "is nothing to listen for")
        return
    subscriptions = Subscriptions(ctx.session)
    try:
        asked = filter_for(capabilities)
        mark = ctx.mark()
        subscription = await subscriptions.listen(asked)
        first = await ctx.wait_for(mark, _first_of(subscription), ctx.timeout)
        await subscriptions.close("closed by the check")
        _judge_acknowledgement(ctx, subscription, first, seqs_of(ctx.since(mark)))
        narrow = dict([next(iter(asked.items()))]) if asked else {}
        mark = ctx.mark()
        single = await subscriptions.listen(narrow)
        if await wait_for_acknowledgement(subscriptions, single, ctx.timeout):
            await asyncio.sleep(min(SETTLE, ctx.timeout))  # what it brings unasked, in a bounded window
        await subscriptions.close("closed by the check")
        events = ctx.since(mark)
        judge_tags(ctx, single, events)
        judge_filter(ctx, single, events)
    finally:
        subscriptions.detach()


def _first_of(subscription: Subscription) -> Any:
    key = id_key(subscription.msg_id)

    def first_of_it(event: Event) -> bool:
        rpc = event.rpc
        if event.kind != Kind.MESSAGE or event.dir != Direction.S2C or rpc is None:
            return False
        if rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
            return id_key(rpc.id) == key
        return rpc.method == ACKNOWLEDGED or id_key(subscription_id(event)) == key
    return first_of_it


def _judge_acknowledgement(ctx: Context, subscription: Subscription, first: Event | None, seqs: list[int]) -> None:
    key = id_key(subscription.msg_id)
    if first is None:
        ctx.failed("subscription-acknowledged", f"subscriptions/listen got nothing within {ctx.timeout:g} s: no "
                                                "acknowledgement", seqs)
    elif first.rpc is not None and first.rpc.kind in (jsonrpc.RESPONSE, jsonrpc.ERROR):
        _, error = result_of(first)
        what = code_text(error) if isinstance(error, dict) else "a result, which ends it"
        ctx.failed("subscription-acknowledged", f"the server declares what a subscription brings, yet "
                                                f"subscriptions/listen got {what} before any acknowledgement", seqs)
    elif first.rpc is not None and first.rpc.method != ACKNOWLEDGED:
        ctx.failed("subscription-acknowledged", f"the subscription's first message is {first.rpc.method}, not "
                                                f"{ACKNOWLEDGED}", seqs)
    elif id_key(subscription_id(first)) != key:
        ctx.failed("subscription-acknowledged", f"the acknowledgement does not carry the subscription's id in "
                                                f"_meta['{SUBSCRIPTION_ID}']", seqs)
    else:
        ctx.passed("subscription-acknowledged", f"{ACKNOWLEDGED} came first, tagged with the request's id", seqs)


def _brought(events: list[Event]) -> list[Event]:
    """The server's notifications of the kinds only a subscription brings (its acknowledgement too)."""
    return [e for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C and e.rpc is not None
            and e.rpc.kind == jsonrpc.NOTIFICATION and e.rpc.method in _SUBSCRIBED]


def judge_tags(ctx: Context, subscription: Subscription, events: list[Event]) -> None:
    """``subscription-notifications-tagged`` over ``events`` (from the subscription's request on, while it was
    the only one open): every notification only a subscription brings carries its id."""
    brought = _brought(events)
    if not brought:
        ctx.incomplete("subscription-notifications-tagged", "the subscription brought no notification, not even an "
                                                            "acknowledgement, so there was no tag to read",
                       seqs_of(events))
        return
    key = id_key(subscription.msg_id)
    untagged = [e for e in brought if id_key(subscription_id(e)) != key]
    if untagged:
        shown = json.dumps(subscription_id(untagged[0]))[:40]
        ctx.failed("subscription-notifications-tagged", f"{len(untagged)} of {len(brought)} notifications while "
                                                        f"subscription {json.dumps(subscription.msg_id)[:40]} was "
                                                        f"open did not carry its id (the first, "
                                                        f"{untagged[0].rpc.method if untagged[0].rpc else '?'}: "
                                                        f"{shown})", [e.seq for e in untagged])
    else:
        ctx.passed("subscription-notifications-tagged", f"{len(brought)} notification"
                   f"{'s' if len(brought) != 1 else ''} on subscription {json.dumps(subscription.msg_id)[:40]}, each "
                   "tagged with its id", [e.seq for e in brought])


def judge_filter(ctx: Context, subscription: Subscription, events: list[Event]) -> None:
    """``subscription-filter-honored`` over ``events`` (from the subscription's request on): the acknowledged
    filter asks for nothing the request did not, and no notification came that the filter did not ask for."""
    seqs = seqs_of(events)
    if subscription.acknowledged is None:
        ctx.incomplete("subscription-filter-honored", f"the subscription for {_shown_filter(subscription.asked)} "
                                                      f"was not acknowledged ({subscription.ended or 'nothing came'}), "
                                                      "so its filter could not be tested", seqs)
        return
    wrong = []
    extra = [name for name, value in subscription.acknowledged.items()
             if name in FILTER_FIELDS and value not in (False, None, []) and name not in subscription.asked]
    if extra:
        wrong.append(f"the acknowledgement agrees to {', '.join(extra)}, which was not asked for")
    outside = [e for e in _brought(events) if e.rpc is not None and e.rpc.method != ACKNOWLEDGED
               and not asked_for(subscription.asked, e.rpc.method or "", params_of(e))]
    if outside:
        wrong.append(f"{len(outside)} notification{'s' if len(outside) != 1 else ''} it did not ask for came (the "
                     f"first: {outside[0].rpc.method if outside[0].rpc else '?'})")
    asked = _shown_filter(subscription.asked)
    if wrong:
        ctx.failed("subscription-filter-honored", f"a subscription for {asked}: " + "; ".join(wrong),
                   [e.seq for e in outside] or seqs)
    else:
        ctx.passed("subscription-filter-honored", f"a subscription for {asked} was acknowledged for "
                                                  f"{_shown_filter(subscription.acknowledged)} and brought nothing "
                                                  "else", seqs)


def _shown_filter(notifications: dict[str, Any]) -> str:
    return ", ".join(f"{k}" for k, v in notifications.items() if v not in (False, None, [])) or "nothing"


async def probe_input_responses(ctx: Context) -> None:
    """A plain request (resources/read of a listed resource, prompts/get of a prompt without required
    arguments, or with --call-tools a read-only tool) with ``inputResponses`` nobody asked for is served as
    without them."""
    target = await _plain_target(ctx)
    if target is None:
        ctx.not_applicable("input-responses-unasked-ignored", "the server lists no resource and no prompt without "
                                                              "required arguments, and no tool may be called "
                                                              "without --call-tools: no request to carry them")
        return
    method, params = target
    answer = await ask(ctx, method, {**params, "inputResponses": UNASKED_RESPONSES}, meta=True)
    what = f"{method} of {str(params.get('uri') or params.get('name'))[:100]} with inputResponses nobody asked for"
    if answer.result is None:
        ctx.failed("input-responses-unasked-ignored", f"{what} got {answer.what()}", answer.seqs)
        return
    if isinstance(answer.result, dict) and answer.result.get("resultType") == "input_required":
        plain = await ask(ctx, method, params, meta=True)
        seqs = answer.seqs + plain.seqs
        if isinstance(plain.result, dict) and plain.result.get("resultType") != "input_required":
            ctx.failed("input-responses-unasked-ignored", f"{what} got input_required; without them it got a "
                                                          "result", seqs)
        else:
            ctx.passed("input-responses-unasked-ignored", f"{what} asked for input, as it does without them", seqs)
        return
    ctx.passed("input-responses-unasked-ignored", f"{what} got a result", answer.seqs)


async def _plain_target(ctx: Context) -> tuple[str, dict[str, Any]] | None:
    resources, _, _ = await ctx.listing("resources")
    uri = next((r["uri"] for r in resources or [] if isinstance(r.get("uri"), str)), None)
    if uri is not None:
        return "resources/read", {"uri": uri}
    prompts, _, _ = await ctx.listing("prompts")
    for prompt in prompts or []:
        found = prompt.get("arguments")
        arguments: list[Any] = found if isinstance(found, list) else []
        if isinstance(prompt.get("name"), str) and not any(isinstance(a, dict) and a.get("required") is True
                                                           for a in arguments):
            return "prompts/get", {"name": prompt["name"]}
    tool = await _callable_tool(ctx)
    return None if tool is None else ("tools/call", {"name": tool["name"],
                                                     "arguments": sample_arguments(tool.get("inputSchema"))})


async def probe_session_rules(ctx: Context) -> None:
    """What the server sent in the whole session (run last): no log message for requests that set no log level,
    and over Streamable HTTP no request of its own (a 2026-07-28 server asks for input in a result)."""
    judge_session_messages(ctx, ctx.events)


def judge_session_messages(ctx: Context, events: list[Event]) -> None:
    """``no-log-without-log-level`` and ``no-requests-on-response-streams`` over a session's ``events``."""
    requests = [e for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.C2S and e.rpc is not None
                and e.rpc.kind == jsonrpc.REQUEST]
    leveled = [e for e in requests if LOG_LEVEL.encode() in e.raw]
    from_server = [e for e in events if e.kind == Kind.MESSAGE and e.dir == Direction.S2C and e.rpc is not None]
    logs = [e for e in from_server if e.rpc is not None and e.rpc.kind == jsonrpc.NOTIFICATION
            and e.rpc.method == "notifications/message"]
    if leveled:
        ctx.not_applicable("no-log-without-log-level", f"{len(leveled)} requests of this session set a log level")
    elif logs:
        ctx.failed("no-log-without-log-level", f"{len(logs)} notifications/message came, though none of the "
                                               f"session's {len(requests)} requests set {LOG_LEVEL}",
                   [e.seq for e in logs[:20]])
    else:
        ctx.passed("no-log-without-log-level", f"no notifications/message in answer to {len(requests)} requests "
                                               "without a log level")
    if not ctx.http:
        return
    asks = [e for e in from_server if e.rpc is not None and e.rpc.kind == jsonrpc.REQUEST]
    if asks:
        methods = sorted({e.rpc.method or "?" for e in asks if e.rpc is not None})
        ctx.failed("no-requests-on-response-streams", f"the server sent {len(asks)} request"
                   f"{'s' if len(asks) != 1 else ''} of its own ({', '.join(methods)[:200]}); in 2026-07-28 it "
                   "asks for input in an InputRequiredResult", [e.seq for e in asks[:20]])
    else:
        ctx.passed("no-requests-on-response-streams", f"{len(from_server)} messages from the server in answer to "
                                                      f"{len(requests)} requests, none a request of its own")
